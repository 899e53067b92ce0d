"""Player names and chat text: what may be shown, and when two names are one.

A name is shown as its player typed it (NFC, trimmed), but two names are
compared by what a reader sees. Three keys of a name do that, and the players
table keeps each under a unique index:

- :func:`name_key`, the name NFKC-normalised and case-folded: ``alice`` in
  fullwidth letters and ``ALICE`` are ``alice``.
- :func:`skeleton`, its confusable skeleton, taken of the name as typed: the
  full skeleton of Unicode's UTS #39 (:mod:`tilehall.server.names.confusables`,
  ASCII rows included), then case folded, with :data:`OWN_PROTOTYPES` for the
  look-alikes of several letters UTS #39 leaves out, until nothing changes.
  ``COMP-1`` in Cyrillic letters, ``C0MP-1`` and ``COMP-l`` are one;
  ``mara`` and ``rnara`` are one (UTS #39 maps ``m`` to ``rn``), ``wendy`` and
  ``vvendy`` are one, ``clara`` and ``dara`` are one (this project's table);
  ``Ilse`` (capital i) and ``llse`` (small L) are one, because ``I`` and ``l``
  look alike.
- :func:`folded_skeleton`, the skeleton of the name key: it joins what case
  alone keeps apart in the skeleton, so that ``ALICE`` (whose skeleton is
  ``allce``) also blocks ``alice`` spelled with a Cyrillic ``a``.

The last would do for both, but for ``i`` and ``l``, which look alike only
when the ``i`` is a capital: a skeleton of the case-folded name cannot see that
``Ilse`` and ``llse`` are one.

A new name that shares any key with a player's is ``name_taken``; one whose
skeleton begins as ``COMP``'s does is ``name_reserved``. A new name must also
show in one order wherever it is shown (:func:`check_new_name`): one with
right-to-left letters may hold no digit and no left-to-right letter, and its
spaces and ``_ . -`` stand between two of its letters. Otherwise the Unicode
bidirectional algorithm shows ``אב 12`` and ``12 אב`` alike in a left-to-right
line.

Names taken before a rule changed keep working: when the keys change (a new
:data:`KEYS_VERSION`), each store makes every player's keys again at open, in
the order the players came, and of two players whose names are now one the
later keeps its keys with its id appended
(:func:`tilehall.server.store.base.player_keys`): both sign in as before, with a
token or by name and password, and neither blocks a third.

Chat text is cleaned rather than refused: line breaks become spaces, controls
and format characters go, and each character keeps at most
:data:`MAX_MARKS` combining marks (a stack of hundreds covers the lines above
and below it in every client).
"""

from __future__ import annotations

import re
import unicodedata

import disarm
from tilehall.protocol import ErrorCode, ProtocolError
from tilehall.server.names.confusables import VERSION as CONFUSABLES_VERSION
from tilehall.server.names.confusables import tr39_skeleton

__all__ = [
    "KEYS_VERSION",
    "MAX_MARKS",
    "MAX_NAME",
    "OWN_PROTOTYPES",
    "check_new_name",
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

OWN_PROTOTYPES: dict[str, str] = {
    # "vvendy" reads as "wendy": two v set close are a w in most sans-serif faces.
    "w": "vv",
    # "clara" reads as "dara": a c against an l is a d, its bowl and stem.
    "d": "cl",
}
"""Look-alikes of several letters that UTS #39 leaves out (it lists one letter to one
prototype, and holds ``m`` to ``rn`` only): a letter to the letters it is mistaken for,
applied to case-folded skeletons. Each entry widely known from the spoofing of domain
names; changing it changes :data:`KEYS_VERSION`."""

_OWN_VERSION = "1"
"""Bumped with every change to :data:`OWN_PROTOTYPES` or to how :func:`skeleton` uses it."""

KEYS_VERSION = (
    f"UTS #39 {CONFUSABLES_VERSION}, own {_OWN_VERSION}, Unicode {unicodedata.unidata_version}"
)
"""What the keys of a name depend on: the skeletons on Unicode's confusables and this
project's table, the name key on Python's Unicode data. The stores keep the version their
keys were made with and make them again at open when it differs: a key made by other
tables would miss look-alikes."""

_OWN = str.maketrans(OWN_PROTOTYPES)

_RTL = frozenset({"R", "AL"})
"""Bidirectional classes of right-to-left letters."""

_NAME = re.compile(r"^[\w][\w .\-]*$")

_BOT = "cornp"
"""The skeleton every name reserved for bots begins with: that of ``COMP`` (``m`` is
``rn`` in UTS #39)."""

_LINE_BREAKS = re.compile(r"[\n\v\f\r\x1c-\x1e\x85\u2028\u2029]+")
"""What a client may draw as a new line: Unicode's mandatory breaks (UAX #14 BK, CR,
LF, NL) and the separators Python's ``str.splitlines`` splits on."""


def skeleton(name: str) -> str:
    """The UTS #39 skeleton of ``name`` as typed, then case-folded with :data:`OWN_PROTOTYPES`.

    Digits fold as UTS #39 says (``1`` is ``l``, ``0`` is ``o``). The fold is
    repeated until it changes nothing, so that a skeleton is its own skeleton.
    """
    key = tr39_skeleton(name)
    for _ in range(8):  # a fixed point within two rounds for every name; the bound is a guard
        again = tr39_skeleton(unicodedata.normalize("NFKC", key).casefold().translate(_OWN))
        if again == key:
            break
        key = again
    return key


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
    """Whether ``ch`` renders as blank: disarm's key drops what shows nothing (invisible
    format characters, Hangul fillers), which the UTS #39 table leaves as they are."""
    return ch != " " and not disarm.skeleton_key(ch).strip()


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
            f"{raw[:40]!r} is not a name: use 1-24 letters, digits, spaces, '_', '.', '-',"
            " starting with a letter or digit, with no two spaces in a row",
        )
    if any(_shows_nothing(ch) for ch in name):
        raise ProtocolError(
            ErrorCode.BAD_NAME, f"{raw[:40]!r} is not a name: it has a letter that shows nothing"
        )
    return name


def check_new_name(name: str) -> None:
    """Refuse a valid name (:func:`validate_name`) that may not be taken as a new one.

    A name with a right-to-left letter must show the same in a left-to-right
    line as in a right-to-left one: no digit, no left-to-right letter, and a
    space or ``_ . -`` only between two of its letters (with their marks). The
    bidirectional algorithm moves digits and neutrals about right-to-left
    letters by where they stand, so ``אב 12`` and ``12 אב`` show alike. Names
    taken before this rule keep working: it is asked of new names only.

    Raises:
        ProtocolError: ``bad_name``, saying why.
    """
    classes = [unicodedata.bidirectional(ch) for ch in name]
    if not _RTL & set(classes):
        return
    letters = [c for c in classes if c != "NSM"]  # a mark goes with its letter
    mixed = any(c not in _RTL and c not in ("WS", "ES", "CS", "ON") for c in letters)
    edges = letters[0] not in _RTL or letters[-1] not in _RTL
    if mixed or edges:
        raise ProtocolError(
            ErrorCode.BAD_NAME,
            f"{name!r} mixes right-to-left letters with digits, left-to-right letters or an "
            "edge of space or punctuation, which show in another order in other places: use "
            "right-to-left letters, with spaces or '_', '.', '-' between them",
        )


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
    text = _cap_marks(text.strip())
    return text if disarm.skeleton_key(text).strip() else ""


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
