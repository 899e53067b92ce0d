"""What every client says in words: events, pauses, refusals, game options and the quick-game form.

The terminal, pygame and web clients tell a player the same things in the same words. Each client
decides only how a sentence looks: a :class:`Said` carries a :class:`Tone`
that the terminal turns into a style and pygame into a colour.

Squares are named as the boards show them, column letter and row number from 1
(``[5, 8]`` is ``i6``), and tiles as the player sees them (Match-It's ``5c``,
LinkSame's ``F``, Ishido's ``R3``). The server's refusals quote the action as
sent, with raw ``[row, col]`` lists: :func:`error_text` names those squares
the board's way.

Nothing here talks to the server or draws; it reads events and views as the
protocol pages describe them (protocol/games/*.md).

The words shared with the web client (each error code's, a game refusal's from the
error frame's ``cells`` and ``tiles``, tiles and stones by name, the room's and every
game's event sentences, a rating) are in one file, ``clients/web/words.json``, that the
server also serves to the page: a sentence is written once, and the same event reads the
same in every client. Its game events are templates that this module and the page's
``js/words.js`` render by the same rules (words.json's ``about`` says them).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from importlib import resources
from typing import Any

from tilehall.clients.mathable import Placement

__all__ = [
    "CONFIRM",
    "ERRORS",
    "MOVEMENT",
    "QUICK_WAIT",
    "QUICK_WAITS",
    "QUIT_VOTE_ENDS",
    "QUIT_VOTE_UNSURE",
    "ROOM_GONE",
    "WORDS",
    "QuickField",
    "Said",
    "Tone",
    "Words",
    "changed_options",
    "column_letter",
    "duration",
    "error_text",
    "extra_missing",
    "option_label",
    "option_value",
    "paused_why",
    "plural",
    "quick_fields",
    "quick_note",
    "quick_request",
    "quit_vote_question",
    "rating_text",
    "refusal_text",
    "room_state",
    "square",
    "stone_label",
    "stone_name",
    "tile_label",
    "tile_name",
]


class Tone(StrEnum):
    """How much a sentence matters, for a client to style or colour it."""

    PLAIN = "plain"
    NOTE = "note"
    """Worth a look: a bonus, a game's end, a pause."""
    GOOD = "good"
    """Good news for the reader: your turn, a player back."""
    BAD = "bad"
    """A cost or a loss: a life, a shot-clock point, a refusal."""
    QUIET = "quiet"
    """Background: what someone else asked for, new chips."""


@dataclass(frozen=True, slots=True)
class Said:
    """One sentence about one event."""

    text: str
    tone: Tone = Tone.PLAIN
    minor: bool = False
    """Housekeeping (a refill, the next stone): a one-line log may leave it out."""


# -- squares and tiles ----------------------------------------------------------------------


def column_letter(col: int) -> str:
    """A column's letter (``0`` -> ``a``), as boards drawn with labels show it."""
    return chr(ord("a") + col) if 0 <= col < 26 else str(col)


def square(cell: Sequence[int] | None) -> str:
    """A square as the board shows it: column letter, row number from 1 (``[5, 8]`` -> ``i6``)."""
    if cell is None:
        return "-"
    r, c = int(cell[0]), int(cell[1])
    return f"{column_letter(c)}{r + 1}" if 0 <= c < 26 else f"{r},{c}"


WORDS: dict[str, Any] = json.loads(
    resources.files("tilehall.clients").joinpath("web", "words.json").read_text("utf-8")
)
"""The words every client shares (``clients/web/words.json``): tiles, error codes, refusals."""

_STONES: dict[str, Any] = WORDS["tiles"]["ishido"]

STONE_LETTERS: str = _STONES["letters"]
"""Ishido's six colours by their first letter, as the terminal labels stones: ``R3`` is
red, symbol 3 (the colours' names are the shared words': red, orange, yellow...)."""

_LINKSAME: str = WORDS["tiles"]["linksame"]["labels"]
"""LinkSame's 36 kinds at most, one character each (the shared words'): no ``I``/``1`` and
no ``O``/``0``, which look alike (in most terminal fonts, and worse without colour) yet
would be different tiles; four signs make up the count."""
_HONOURS = ("Rd", "Gd", "Wd", "E", "S", "W", "N", "Pl", "Or", "Ch", "Bm", "Sp", "Su", "Au", "Wi")


def stone_label(stone: Sequence[int] | None) -> str:
    """An Ishido stone, ``[colour, symbol]``, as the board labels it: ``R3``."""
    if not stone:
        return "-"
    return f"{STONE_LETTERS[int(stone[0]) % 6]}{int(stone[1]) + 1}"


def stone_name(stone: Sequence[int] | None) -> str:
    """An Ishido stone, ``[colour, symbol]``, as it looks: ``yellow square``."""
    if not stone:
        return "-"
    colour, symbol = int(stone[0]) % 6, int(stone[1]) % 6
    return str(_STONES["name"]).format(
        colour=_STONES["colours"][colour], symbol=_STONES["symbols"][symbol]
    )


def tile_name(game: str | None, tile: Any) -> str:
    """A tile as it looks, in the shared words: Match-It's ``6 of characters`` or ``east
    wind``, LinkSame's ``F tile``, Ishido's ``yellow square``, Mathable's ``6``."""
    if game == "ishido" and isinstance(tile, list | tuple):
        return stone_name(tile)
    if not isinstance(tile, int) or isinstance(tile, bool):
        return str(tile)
    names: dict[str, Any] = WORDS["tiles"].get(game or "", {})
    if game == "matchit":
        if 0 <= tile < 27:
            return str(names["number"]).format(n=tile % 9 + 1, suit=names["suits"][tile // 9])
        if 27 <= tile < 27 + len(names["honours"]):
            return str(names["honours"][tile - 27])
    elif game == "linksame" and 0 <= tile < len(names["labels"]):
        return str(names["name"]).format(label=names["labels"][tile])
    elif game == "mathable":
        return str(names["name"]).format(n=tile)
    return str(tile)


def tile_label(game: str, kind: int) -> str:
    """A tile as the board labels it: Match-It's ``1d``/``Rd``/``Pl``, LinkSame's ``A``.

    LinkSame's kinds read ``A``..``Z`` without ``I`` and ``O``, then ``2``..``9``,
    then ``# % & @``.
    """
    if game == "matchit":
        if 0 <= kind < 27:
            return f"{kind % 9 + 1}{'dbc'[kind // 9]}"
        if 27 <= kind < 42:
            return _HONOURS[kind - 27]
    elif game == "linksame" and 0 <= kind < len(_LINKSAME):
        return _LINKSAME[kind]
    return str(kind)


MOVEMENT: dict[str, str] = WORDS["movement"]
"""LinkSame's movement rules (``view.movement``, the ``stage`` event's) in words."""


def duration(seconds: float) -> str:
    """``42 s``, ``3 min 5 s``: how long a pause lasted."""
    whole = math.floor(seconds + 0.5)  # halves up, as the page's Math.round
    return f"{whole} s" if whole < 60 else f"{whole // 60} min {whole % 60} s"


EVENTS: dict[str, Any] = WORDS["events"]
"""The sentences of the events every game may send, shared with the web page (words.json)."""


def paused_why(why: str, *, seats: int, player: bool) -> str:
    """Why a game stands still (a view's or room summary's ``paused``), in the shared words.

    Args:
        why: ``away``, ``player`` or ``unwatched``.
        seats: the room's seats: a room of several pauses only when every player is away.
        player: the reader holds a seat (``player``: they paused it themselves).
    """
    said = EVENTS["paused_why"].get(why)
    if not said:
        return why
    which = {"away": seats > 1, "player": not player}.get(why, False)
    return str(said[min(int(which), len(said) - 1)])


def fill(template: str, **values: Any) -> str:
    """``template`` with its ``{name}`` places filled (the shared words' one syntax)."""
    return re.sub(r"\{(\w+)\}", lambda m: str(values.get(m[1], m[0])), template)


# -- events -------------------------------------------------------------------------------

_Teller = Callable[["Words", dict[str, Any]], Said | None]


@dataclass(frozen=True, slots=True, kw_only=True)
class Words:
    """The sentences of one room, as one reader sees it.

    Args:
        game: the game's name (``mathable``...).
        name: a seat's name as the client shows it (its model's ``name``).
        seat: the reader's seat, None for a spectator.
        seats: the room's number of seats.
    """

    game: str
    name: Callable[[int | None], str] = field(
        default=lambda seat: "-" if seat is None else f"seat {seat + 1}"
    )
    seat: int | None = None
    seats: int = 1

    def event(self, ev: Mapping[str, Any]) -> Said | None:
        """One event in words; None for one the reader need not be told (another's private)."""
        kind = str(ev.get("e"))
        teller = _EVENTS.get(self.game, {}).get(kind) or _COMMON.get(kind)
        if teller is None:
            return Said(kind.replace("_", " "), minor=True)
        return teller(self, dict(ev))

    def events(self, events: Sequence[Mapping[str, Any]], *, minor: bool = False) -> list[Said]:
        """Every event's sentence, in order (``minor``: the housekeeping ones too)."""
        said = [self.event(ev) for ev in events]
        return [s for s in said if s is not None and (minor or not s.minor)]

    def paused(self, why: str) -> str:
        """:func:`paused_why` for this room and reader."""
        return paused_why(why, seats=self.seats, player=self.seat is not None)

    def undone(self, action: Mapping[str, Any]) -> str:
        """An action taken back, in the shared words: ``the stone on h7``, ``c6-b5``,
        ``the pair a1+b1``; its squares named as the board does."""
        do = str(action.get("do") or "")
        table: dict[str, str] = EVENTS["undone_what"]
        template = table.get(f"{self.game}.{do}") or table.get(do)
        if template is None:
            return do or table[""]
        cells = {k: square(v) for k, v in action.items() if isinstance(v, list | tuple)}
        return fill(template, **cells)

    def who(self, seat: Any, opens: bool = False) -> str:
        """A seat as a sentence names it: ``you`` for the reader's own, else its name
        (``seat N`` without one); ``opens``: to open a sentence (``You``, ``Seat 2``,
        a name as its player wrote it)."""
        if seat is None:
            name = "nobody"
        elif seat == self.seat:
            name = "you"
        else:
            name = self.name(int(seat))
        if opens and (name in ("you", "nobody") or re.fullmatch(r"seat \d+", name)):
            return name.capitalize()
        return name

    def tile(self, kind: int) -> str:
        """A tile as it looks, in the shared words (:func:`tile_name`)."""
        return tile_name(self.game, kind)


def _started(w: Words, ev: dict[str, Any]) -> Said:
    return Said(EVENTS["started"], Tone.NOTE)


def _paused(w: Words, ev: dict[str, Any]) -> Said:
    return Said(fill(EVENTS["paused"], why=w.paused(str(ev.get("why") or ""))), Tone.NOTE)


def _resumed(w: Words, ev: dict[str, Any]) -> Said:
    paused_for = duration(float(ev.get("paused_for") or 0))
    return Said(fill(EVENTS["resumed"], duration=paused_for), Tone.NOTE)


def _stand_in(w: Words, ev: dict[str, Any]) -> Said:
    return Said(fill(EVENTS["stand_in"], who=w.name(ev.get("seat"))), Tone.NOTE)


def _stand_back(w: Words, ev: dict[str, Any]) -> Said:
    who = w.name(ev.get("seat"))
    if re.fullmatch(r"seat \d+", who):  # it opens the sentence: "Seat 2", as the page says
        who = who.capitalize()
    return Said(fill(EVENTS["stand_back"], who=who), Tone.GOOD)


def _undone(w: Words, ev: dict[str, Any]) -> Said:
    what = w.undone(ev.get("action") or {})
    return Said(fill(EVENTS["undone"], what=what, undos=ev.get("undos")), Tone.NOTE)


_COMMON: dict[str, _Teller] = {
    "started": _started,
    "paused": _paused,
    "resumed": _resumed,
    "stand_in": _stand_in,
    "stand_back": _stand_back,
    "undone": _undone,
}
"""Events any game may send: the room's more than the game's."""


# -- each game's own events: rendered from words.json's ``games`` ---------------------------
#
# The template language is words.json's (its ``about`` says it) and js/words.js renders it
# the same way: a change to one of the two renderers is a change to the other.

_TONES = {t.value: t for t in Tone}


def _true(value: Any) -> bool:
    """Whether an ``if`` takes its ``then``: JSON's false values, and an empty list."""
    return value is not None and value is not False and value != 0 and value != "" and value != []


def _text(value: Any) -> str:
    """A value as a template writes it, as JavaScript's ``String`` does for JSON's values."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list | tuple):
        return ", ".join(_text(v) for v in value)
    return str(value)


def _pick(node: Any, values: Mapping[str, Any]) -> Any:
    """A node's leaf for this event: ``if``/``then``/``else`` and ``by`` followed down."""
    while isinstance(node, dict):
        if "if" in node:
            node = node.get("then" if _true(values.get(node["if"])) else "else", "")
        elif "by" in node:
            key = _text(values.get(node["by"]))
            node = node[key] if key in node else node.get("*", "")
        else:
            return ""
    return node


def plural(n: Any, word: str) -> str:
    """``1 life``, ``3 lives``: the shared words' odd plurals, else an ``s``."""
    many: str = WORDS["plurals"].get(word, f"{word}s")
    return f"{_text(n)} {word if n == 1 else many}"


OPS: dict[str, str] = WORDS["tiles"]["mathable"]["ops"]
"""Mathable's operators as every client writes them (a times and a division sign for ``*``
and ``/``)."""


def equation(ev: Mapping[str, Any]) -> str:
    """A placed Mathable tile and its equations as people write them: ``21=7*3``, the
    operators as words.json spells them (a times sign for ``*``)."""
    return Placement.from_event(dict(ev)).equation(ops=OPS)


def _and(items: Sequence[str]) -> str:
    said = list(items)
    return said[0] if len(said) == 1 else f"{', '.join(said[:-1])} and {said[-1]}" if said else ""


def rating_text(rating: Mapping[str, Any]) -> str:
    """A rating as every client writes it (words.json's ``rating``): ``1642 ± 142 (18 games)``.

    The margin is twice the Glicko deviation: the player's strength lies within it about
    95 % of the time, so a new player's 1500 reads ``± 700`` until games bring it down
    (``1500 ± 700 (no games yet)``).
    """
    values = {
        "rating": round(float(rating.get("rating") or 0)),
        "margin": round(2 * float(rating.get("rd") or 0)),
        "games": int(rating.get("games") or 0),
    }
    return fill_in(
        str(_pick(WORDS["rating"], values)), values, game="", who=lambda seat, opens: str(seat)
    )


def room_state(summary: Mapping[str, Any]) -> str:
    """A listed room's state as every lobby says it (words.json's ``rooms``): ``playing``,
    ``paused until watched``, ``a game to watch``...

    From the room's summary (``rooms`` / ``room`` frames): the server's own all-COMP game
    (``showcase``) reads as one to watch until it is over, whatever else it says (it
    stands still while nobody watches, which is no news to a visitor); a room being
    rebuilt from its journal says so; a paused one says why; else its status. A status
    words.json does not know is shown as sent.
    """
    rooms = WORDS["rooms"]
    status = str(summary.get("status") or "")
    if status == "over":
        return str(rooms["over"])
    if summary.get("showcase"):
        return str(rooms["showcase"])
    if summary.get("suspended"):
        return str(rooms["suspended"])
    paused = summary.get("paused")
    if paused and status == "playing":
        by_why = rooms["paused"]
        return str(by_why.get(paused, by_why[""]))
    said = rooms.get(status)
    return said if isinstance(said, str) else status


def fill_in(
    template: str,
    values: Mapping[str, Any],
    *,
    game: str,
    who: Callable[[Any, bool], str],
    parts: Mapping[str, Any] | None = None,
) -> str:
    """``template`` with each ``{name|filter...}`` filled from ``parts`` (nodes, rendered
    in turn from ``values`` alone: a part may name the field it is named after) or
    ``values``; ``who(seat, opens)`` names a seat."""

    def one(m: re.Match[str]) -> str:
        name, *filters = m[1].split("|")
        if parts is not None and name in parts:
            value: Any = fill_in(str(_pick(parts[name], values)), values, game=game, who=who)
        else:
            value = values.get(name)
        for f in filters:
            value = _filter(f, value, game, who)
        return _text(value)

    return re.sub(r"\{([\w|: ]+)\}", one, template)


def _filter(spec: str, value: Any, game: str, who: Callable[[Any, bool], str]) -> Any:
    name, _, arg = spec.partition(":")
    items = list(value) if isinstance(value, list | tuple) else []
    match name:
        case "square":
            return square(value)
        case "squares":
            return [square(c) for c in items]
        case "tile":
            return "-" if value is None else tile_name(game, value)
        case "tiles":
            return [tile_name(game, t) for t in items]
        case "who" | "Who":
            return who(value, name == "Who")
        case "seats":
            return [who(s, False) for s in items]
        case "chip":
            colours: list[str] = WORDS["tiles"]["lines"]["colours"]
            ok = isinstance(value, int) and 0 < value < len(colours)
            return colours[value] if ok else f"colour {_text(value)}"
        case "movement":
            return WORDS["movement"].get(_text(value), _text(value))
        case "from1":
            whole = isinstance(value, int) and not isinstance(value, bool)
            return value + 1 if whole else value
        case "signed":
            number = isinstance(value, int | float) and not isinstance(value, bool)
            return f"+{_text(value)}" if number and value >= 0 else value
        case "count":
            return len(items)
        case "distinct":
            return list(dict.fromkeys(items))
        case "and":
            return _and([_text(v) for v in items])
        case "list":
            return ", ".join(_text(v) for v in items)
        case "duration":
            return duration(float(value or 0))
        case "plural":
            return plural(value, arg)
        case "cap":
            text = _text(value)
            return text[:1].upper() + text[1:]
    raise ValueError(f"words.json: no filter {name!r}")


def _game_teller(entry: Any) -> _Teller:
    """The teller of one ``games`` entry of words.json."""
    spec: dict[str, Any] = entry if isinstance(entry, dict) and "text" in entry else {"text": entry}

    def tell(w: Words, ev: dict[str, Any]) -> Said:
        values = dict(ev)
        values["mine"] = ev.get("seat") is not None and ev.get("seat") == w.seat
        if ev.get("equations") is not None and ev.get("tile") is not None:
            values["equation"] = equation(ev)
        text = fill_in(
            str(_pick(spec["text"], values)),
            values,
            game=w.game,
            who=w.who,
            parts=spec.get("parts") or {},
        )
        tone = _TONES.get(str(_pick(spec.get("tone", "plain"), values)), Tone.PLAIN)
        return Said(text, tone, minor=_pick(spec.get("minor", False), values) is True)

    return tell


_EVENTS: dict[str, dict[str, _Teller]] = {
    game: {kind: _game_teller(entry) for kind, entry in table.items()}
    for game, table in WORDS["games"].items()
}


# -- refusals -------------------------------------------------------------------------------

ERRORS: dict[str, str] = dict(WORDS["errors"])
"""Every error code of PROTOCOL.md §Error codes, and the codes all games share, in words."""

_DETAILED = frozenset(WORDS["detailed"])
"""Codes whose message says which field, value or room is wrong: the server's words then."""


def sign_out_words(name: str, *, protected: bool, everywhere: bool) -> str:
    """What a client says before it signs ``name`` out: what happens, and what is lost.

    A name without a password cannot be signed out (the server refuses
    ``no_password``): nobody could play as it again. The words say so and ask
    for a password first.
    """
    if not protected:
        return (
            f"{name} has no password. Signed out, nobody could play as {name} again, you"
            " neither: its games, ratings and seats would be lost. Set a password first;"
            " then its password signs in again, here or on any device."
        )
    if everywhere:
        return (
            f"Sign {name} out everywhere? Every device's key for {name} stops working and"
            f" its other windows close. {name}'s password signs in again."
        )
    return (
        f"Sign {name} out of this device? Its key here is forgotten; {name}'s other devices"
        f" stay signed in, and its password signs in again."
    )


ENDED: dict[int, str] = {
    1000: "signed out",
    4001: "signed out on another device, or by the host: sign in with the password",
    4002: "barred by the host: this device keeps its key, and plays on once the bar is lifted",
}
"""Why a session ended for good, by close code (PROTOCOL.md, "Keeping a name")."""


_CELL = re.compile(r"(?<![\w\]])\[(-?\d+), (-?\d+)\]")
_STONE = re.compile(r"\b(stone|holds) \[(\d+), (\d+)\]")
_TILES = re.compile(r"\b(\d+)(?= at \[)")


def refusal_text(
    code: str,
    game: str | None,
    cells: Sequence[Sequence[int]] | None,
    tiles: Sequence[Any] | None,
) -> str | None:
    """A game's refusal in the shared words (``refusals`` of words.json), from the error
    frame's ``cells`` and ``tiles``; None when there is no template for it or the frame
    lacks what the template names (an older server's)."""
    table: dict[str, Any] = WORDS["refusals"]
    template = table.get(f"{game}.{code}") or table.get(code)
    cells, tiles = list(cells or ()), list(tiles or ())
    if isinstance(template, list):  # by how many tiles follow the first
        template = template[min(max(len(tiles) - 2, 0), len(template) - 1)] if template else None
    if not isinstance(template, str):
        return None
    names = [tile_name(game, t) for t in tiles]
    values = {
        "cell": square(cells[0]) if cells else None,
        "cell2": square(cells[1]) if len(cells) > 1 else None,
        "tile": names[0] if names else None,
        "tile2": names[1] if len(names) > 1 else None,
        "tiles": ", ".join(names) if names else None,
        "others": _the(names[1:]) if len(names) > 1 else None,
    }
    wanted = re.findall(r"\{(\w+)\}", template)
    if any(values.get(k) is None for k in wanted):
        return None
    return re.sub(r"\{(\w+)\}", lambda m: str(values[m[1]]), template)


def _the(names: Sequence[str]) -> str:
    """``the A``, ``the A and the B``, ``the A, the B and the C``."""
    said = [f"the {n}" for n in names]
    return said[0] if len(said) == 1 else f"{', '.join(said[:-1])} and {said[-1]}"


def error_text(
    code: str,
    message: str,
    *,
    game: str | None = None,
    cells: Sequence[Sequence[int]] | None = None,
    tiles: Sequence[Any] | None = None,
) -> str:
    """A refusal as the player reads it: the words for ``code``, the squares and tiles it is
    about named the board's way (``i6``, ``the 6 of characters``).

    A game rule's refusal (``occupied``, ``no_match``...) is worded from the error frame's
    ``cells`` and ``tiles`` by the shared table; from an older server, which sends only
    its message, that message with its squares named. One that names the field or value
    at fault (``bad_option``, ``unknown_room``...) is the server's own message, which
    quotes it; a request's (``stale``, ``unavailable``...) is said plainly.
    """
    worded = refusal_text(code, game, cells, tiles)
    if worded is not None:
        return worded
    detail = board_words(message, game=game)
    known = ERRORS.get(code)
    if known is None:  # a game's own rule: its message says what and where
        return detail or code.replace("_", " ")
    if code in _DETAILED and detail:
        return detail
    return known


def board_words(message: str, *, game: str | None = None) -> str:
    """``message`` with its ``[row, col]`` squares, stones and tiles named as the board shows.

    Ishido's stones (``stone [0, 2]``, ``holds [0, 2]``) are ``[colour, symbol]``
    and Mathable's racks are lists of numbers: only a list of two that follows
    none of those is a square.
    """
    text = message
    if game == "ishido":
        text = _STONE.sub(lambda m: f"{m[1]} the {stone_name((int(m[2]), int(m[3])))}", text)
    if game in ("matchit", "linksame"):
        text = _TILES.sub(lambda m: tile_name(game, int(m[1])), text)
    pieces = re.split(r"(\brack \[[^\]]*\])", text)  # a rack is a list of tiles
    return "".join(
        p if p.startswith("rack [") else _CELL.sub(lambda m: square((int(m[1]), int(m[2]))), p)
        for p in pieces
    )


# -- the quick-game form --------------------------------------------------------------------

CONFIRM = 10.0
"""Seconds a costly press (quit, give up, the vote that ends a game) waits for its second
press in both clients: long enough to read why it asks; the question goes when it lapses."""

QUIT_VOTE_ENDS = "Your vote would end the game now: the other players are COMP or have voted."
"""Mathable: the one quit vote that would end the game at once asks first (the clients add how)."""

QUIT_VOTE_UNSURE = "Your vote may end the game now: the room has not said yet who plays COMP."
"""Asked instead when the room's summary, which names the COMP seats, has not come yet."""


def quit_vote_question(ends: bool | None) -> str | None:
    """What a Mathable quit vote asks before it goes (the clients add how to confirm), or
    None when it goes at once. ``ends`` is :meth:`RoomModel.vote_ends_game`: a vote that
    may end the game (None: not known yet) asks as one that does."""
    if ends is False:
        return None
    return QUIT_VOTE_ENDS if ends else QUIT_VOTE_UNSURE


ROOM_GONE = "That room has ended and the server has let it go: it is off the list now."
"""A room of the lobby's list answers ``unknown_room``: finished rooms are dropped after a while."""

# -- game options ----------------------------------------------------------------------------


def option_label(opt: Mapping[str, Any]) -> str:
    """What a form shows beside a game option (a ``welcome.games[].options`` entry).

    The server's ``label`` (``Stand-in after (s)``) when it sends one; a server
    that predates labels sends none, and then the wire name in words will do
    (``standin_after`` reads ``Standin after``): the same fallback as the web
    client's, so every client words an old server's options alike.
    """
    label = opt.get("label")
    if isinstance(label, str) and label.strip():
        return label
    words = str(opt.get("name", "")).replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def option_value(value: Any) -> str:
    """An option's value as a summary shows it: a switch ``on``/``off``, else as sent."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def changed_options(game: Mapping[str, Any], options: Mapping[str, Any] | None) -> str:
    """A room's options that differ from ``game``'s defaults, in one line.

    ``Opponents' racks hidden, Stand-in after (s) 120``: each option's label and
    value, in the order the game declares its options; an option the game does
    not declare (a newer server's, say) is left out rather than guessed at.
    """
    given = options or {}
    return ", ".join(
        f"{option_label(opt)} {option_value(given[opt['name']])}"
        for opt in game.get("options") or ()
        if opt.get("name") in given and given[opt["name"]] != opt.get("default")
    )


_EXTRAS = {"cli": "Textual, the terminal toolkit", "gui": "pygame-ce, the window toolkit"}


def extra_missing(command: str, extra: str, module: str) -> str:
    """What ``command`` says when the optional part it runs on is not installed.

    Args:
        command: the command the user ran (``tilehall``).
        extra: the extra in pyproject.toml that installs the part (``cli``).
        module: the module that could not be imported (``textual``).

    Returns:
        Two lines: what is missing, and the pip command that installs it.
    """
    what = _EXTRAS.get(extra, extra)
    return (
        f"{command}: the module {module!r} is not installed; {command} needs the "
        f"{extra!r} extra ({what}).\n"
        f"Install it with:  pip install 'tilehall[{extra}]'"
    )


QUICK_WAITS = (10, 30, 60, 120)
"""Seconds to wait for people before COMP players take the open seats, in the order a
player steps through them (shortest first)."""
QUICK_WAIT = 30
"""The wait the form starts on: the server's own when none is sent."""


@dataclass(frozen=True, slots=True, kw_only=True)
class QuickField:
    """One field of the quick-game form: the ``match`` field it fills, and its choices."""

    key: str
    label: str
    choices: tuple[Any, ...]
    labels: tuple[str, ...]
    default: Any


def quick_fields(game: Mapping[str, Any]) -> list[QuickField]:
    """The form's fields for ``game`` (its ``welcome.games`` entry): none for a game of one.

    In the order a player fills them: seats, the bots' level, how long to wait for people.
    """
    lo, hi = int(game.get("min_seats", 1)), int(game.get("max_seats", 1))
    if hi <= 1:
        return []
    seats = tuple(range(lo, hi + 1))
    levels = tuple(game.get("bots") or ["normal"])
    level = "normal" if "normal" in levels else levels[0]
    return [
        QuickField(
            key="seats", label="seats", choices=seats, labels=tuple(map(str, seats)), default=lo
        ),
        QuickField(key="level", label="bots' level", choices=levels, labels=levels, default=level),
        QuickField(
            key="bots_after",
            label="bots after",
            choices=QUICK_WAITS,
            labels=tuple(f"{w} s" for w in QUICK_WAITS),
            default=QUICK_WAIT if QUICK_WAIT in QUICK_WAITS else QUICK_WAITS[0],
        ),
    ]


def quick_note(game: Mapping[str, Any]) -> str:
    """What happens once the form is sent, for ``game``."""
    if int(game.get("max_seats", 1)) > 1:
        return "You join an open room like this, or open one; COMP takes seats left."
    return "A game of one: it starts at once."


def quick_request(game: Mapping[str, Any], **chosen: Any) -> dict[str, Any]:
    """The ``match`` request the form says: every field of :func:`quick_fields`, the
    ``chosen`` values or else the defaults. A game's options are never sent: a quick game
    is met by whoever asks for the same game, so it keeps the defaults everyone gets."""
    msg: dict[str, Any] = {"t": "match", "game": game["name"]}
    for f in quick_fields(game):
        value = chosen.get(f.key)
        msg[f.key] = value if value in f.choices else f.default
    return msg
