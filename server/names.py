"""Player names and chat text: what may be shown, and when two names are one.

A name is shown as its player typed it (NFC, trimmed), but two names are
compared by what a reader sees. Three keys of a name do that, and the players
table keeps each under a unique index:

- :func:`name_key`, the name NFKC-normalised and case-folded: ``alice`` in
  fullwidth letters and ``ALICE`` are ``alice``.
- :func:`skeleton`, its confusable skeleton (Unicode TR39, through the
  ``disarm`` library), taken of the name as typed: ``COMP-1`` in Cyrillic
  letters, ``C0MP-1`` and ``COMP-l`` are all ``comp-l``; ``Ilse`` (capital i)
  and ``llse`` (small L) are one, because ``I`` and ``l`` look alike.
- :func:`folded_skeleton`, the skeleton of the name key: it joins what case
  alone keeps apart in the skeleton, so that ``ALICE`` (whose skeleton is
  ``allce``) also blocks ``alice`` spelled with a Cyrillic ``a``.

The last would do for both, but for ``i`` and ``l``, which look alike only
when the ``i`` is a capital: a skeleton of the case-folded name cannot see that
``Ilse`` and ``llse`` are one.

A new name that shares any key with a player's is ``name_taken``; one whose
skeleton begins as ``COMP``'s does is ``name_reserved``.

Chat text is cleaned rather than refused: line breaks become spaces, controls
and format characters go, and each character keeps at most
:data:`MAX_MARKS` combining marks (a stack of hundreds covers the lines above
and below it in every client).
"""

from __future__ import annotations

import re
import unicodedata
from importlib.metadata import version

import disarm
from tilehall.protocol import ErrorCode, ProtocolError

__all__ = [
    "KEYS_VERSION",
    "MAX_MARKS",
    "MAX_NAME",
    "clean_chat",
    "folded_skeleton",
    "is_bot_name",
    "is_plain_bot_name",
    "name_key",
    "same_name",
    "skeleton",
    "validate_name",
]

MAX_NAME = 24
"""Longest name, in code points once NFC-normalised and trimmed."""

MAX_MARKS = 3
"""Combining marks kept on one character of chat (counted decomposed). Three keeps
Vietnamese (ệ has two), pointed Hebrew with its accent and Thai vowel-and-tone,
and bounds how far a character's marks reach into the lines around it."""

KEYS_VERSION = f"disarm {version('disarm')}, Unicode {unicodedata.unidata_version}"
"""What the keys of a name depend on: the skeletons on disarm's tables, the name key on
Python's Unicode data. The stores keep the version their keys were made with and make
them again at open when it differs: a key made by other tables would miss look-alikes."""

_NAME = re.compile(r"^[\w][\w .\-]*$")

_BOT = "comp"
"""The skeleton every name reserved for bots begins with: that of ``COMP``."""

_LINE_BREAKS = re.compile(r"[\n\v\f\r\x1c-\x1e\x85\u2028\u2029]+")
"""What a client may draw as a new line: Unicode's mandatory breaks (UAX #14 BK, CR,
LF, NL) and the separators Python's ``str.splitlines`` splits on."""


def skeleton(name: str) -> str:
    """The TR39 skeleton of ``name``, case-folded, digits folded too (``1`` is ``l``).

    Characters that show nothing (invisible format characters, Hangul fillers)
    have none: their skeleton is ``""`` (or a space between two others).
    """
    return disarm.skeleton_key(name, digit_policy="tr39")


def name_key(name: str) -> str:
    """``name`` NFKC-normalised and case-folded: what "the same name, ignoring case" compares."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return unicodedata.normalize("NFKC", folded)


def folded_skeleton(name: str) -> str:
    """The skeleton of ``name``'s :func:`name_key`: look-alikes of any case variant of it."""
    return skeleton(name_key(name))


def same_name(a: str, b: str) -> bool:
    """Whether two names are one player's, as the players table compares them (NFKC, case,
    look-alikes): a seat kept for "alice" in fullwidth letters is Alice's."""
    return name_key(a) == name_key(b) or folded_skeleton(a) == folded_skeleton(b)


def _shows_nothing(ch: str) -> bool:
    return ch != " " and not skeleton(ch).strip()


def validate_name(raw: str) -> str:
    """A name as it will be shown: NFC, trimmed; refused unless it is a visible name.

    1-24 letters, digits, spaces, ``_ . -``, starting with a letter or digit,
    no two spaces in a row, and no character that shows nothing (such as
    U+3164 HANGUL FILLER, a letter that renders as blank).

    Raises:
        ProtocolError: ``bad_name``.
    """
    name = unicodedata.normalize("NFC", raw).strip()
    if not name or len(name) > MAX_NAME or not _NAME.match(name) or "  " in name:
        raise ProtocolError(
            ErrorCode.BAD_NAME,
            f"{raw[:40]!r} is not a name: use 1-24 letters, digits, spaces, '_', '.', '-'",
        )
    if any(_shows_nothing(ch) for ch in name):
        raise ProtocolError(
            ErrorCode.BAD_NAME, f"{raw[:40]!r} is not a name: it has a letter that shows nothing"
        )
    return name


def is_bot_name(name: str) -> bool:
    """Whether ``name`` looks like a bot's: a skeleton of it begins as ``COMP``'s.

    ``COMP-2``, ``comp``, ``C0MP`` and ``COMP`` in Cyrillic letters all do.
    """
    return skeleton(name).startswith(_BOT) or folded_skeleton(name).startswith(_BOT)


def is_plain_bot_name(name: str) -> bool:
    """Whether ``name`` spells ``COMP`` with the plain Latin letters (in any case)."""
    return name[:4].upper() == "COMP"


def clean_chat(raw: str) -> str:
    """Chat text as the room will see it (empty: nothing worth sending).

    NFC first, so that ordinary accented text is untouched; line and paragraph
    separators and other line breaks become one space (a chat line stays one
    line); other control, format and unassigned characters go; each character
    keeps at most :data:`MAX_MARKS` combining marks, and marks before any
    character go. A text that shows nothing at all (only blank letters) is
    empty.
    """
    text = _LINE_BREAKS.sub(" ", unicodedata.normalize("NFC", raw))
    text = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C")
    text = _cap_marks(text).strip()
    return text if skeleton(text).strip() else ""


def _cap_marks(text: str) -> str:
    out: list[str] = []
    marks = MAX_MARKS  # none may come before the first character
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.category(ch)[0] != "M":
            marks = 0
            out.append(ch)
        elif marks < MAX_MARKS:
            marks += 1
            out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))
