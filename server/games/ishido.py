"""Ishido, the Way of Stones: place 72 stones by colour and symbol on a 12x8 board.

One seat plays alone. The six opening stones (all colours and all symbols
different) sit on the corners and on ``[3,5]`` and ``[4,6]``; the other 66 come
out of a shuffled pouch one at a time. A stone may only go on an empty square
with at least one occupied orthogonal neighbour, matching them as the rules
text says (1: colour or symbol; 2: one by colour, the other by symbol; 3: two by
one attribute and the third by the other; 4: two by colour and two by symbol,
and by default the two colour matches touch at a corner). The game ends when
every stone is placed (a win) or the stone just drawn fits nowhere.

The rule checks live in small pure functions (:func:`fits`, :func:`legal_squares`,
:func:`placement_value`) so that bots can reason with exactly the engine's rules
from nothing but a view.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, ClassVar, NamedTuple

from tilehall.protocol import GameCode
from tilehall.server.games.actions import Action, ActionSpec, action_table, cell_field
from tilehall.server.games.base import (
    UNDO_ACTION,
    Event,
    IllegalMove,
    Option,
    PositionError,
    ScoreEntry,
    SoloGame,
)

__all__ = [
    "COLOURS",
    "COLS",
    "DIRECTIONS",
    "END_BONUS",
    "FOURWAY_BONUSES",
    "ROWS",
    "START_SQUARES",
    "SYMBOLS",
    "Board",
    "EndReason",
    "Ishido",
    "Stone",
    "Value",
    "fit_mask",
    "fits",
    "fourway_bonus",
    "full_set",
    "is_ring",
    "legal_squares",
    "neighbours",
    "placement_value",
    "stone_of",
]

ROWS = 8
COLS = 12
COLOURS = 6
SYMBOLS = 6
COPIES = 2
START_SQUARES: tuple[tuple[int, int], ...] = ((0, 0), (0, 11), (7, 0), (7, 11), (3, 5), (4, 6))

DIRECTIONS: tuple[tuple[str, int, int], ...] = (
    ("up", -1, 0),
    ("down", 1, 0),
    ("left", 0, -1),
    ("right", 0, 1),
)
"""Neighbour directions; indices 0/1 and 2/3 are the opposite pairs."""

FOURWAY_BONUSES: tuple[int, ...] = (
    25,
    50,
    100,
    200,
    400,
    600,
    800,
    1000,
    5000,
    10000,
    25000,
    50000,
)
"""Bonus of the 1st, 2nd, ... 4-way; every 4-way after the twelfth earns the last value again."""

END_BONUS: Mapping[int, int] = {0: 1000, 1: 500, 2: 100}
"""Modern end bonus by the number of stones left unplaced (pouch plus the stuck stone)."""

# How many neighbours must match by colour (the rest by symbol), by neighbour count.
# One neighbour: colour (1) or symbol (0). Three: two colours + one symbol or the reverse.
_COLOUR_MATCHES: Mapping[int, tuple[int, ...]] = {1: (0, 1), 2: (1,), 3: (1, 2), 4: (2,)}
_GROUP_SIZES = {n: (min(ks), max(ks)) for n, ks in _COLOUR_MATCHES.items()}
"""Each allowed size set is a range: its ends."""


class Stone(NamedTuple):
    """A stone: colour and symbol, each 0..5. Sent on the wire as ``[colour, symbol]``."""

    colour: int
    symbol: int

    def __deepcopy__(self, memo: dict[int, Any]) -> Stone:
        """A stone is immutable and shared (:data:`_KINDS`): a copy of a game (undo's
        checkpoints) keeps the same objects, instead of rebuilding each one."""
        return self

    def __copy__(self) -> Stone:
        return self

    def __reduce__(self) -> tuple[Any, tuple[int, int]]:
        """Unpickled (undo's checkpoints) as the shared stone, not a new one."""
        return stone_of, (self.colour, self.symbol)


Board = list[list[Stone | None]]
"""``board[row][col]``: the stone on a square, or None."""


_KINDS: tuple[Stone, ...] = tuple(Stone(c, s) for c in range(COLOURS) for s in range(SYMBOLS))
"""The 36 stones, one object each, shared by every game; index ``colour * SYMBOLS + symbol``.

A NamedTuple is a tuple subclass, which the garbage collector never untracks;
a thousand rooms holding their own 72 stones were half the server's tracked
objects and most of the cost of its full collections.
"""


_WIRE: tuple[list[int], ...] = tuple([stone.colour, stone.symbol] for stone in _KINDS)
"""Each stone as views show it, ``[colour, symbol]``: one list per kind, shared by every
view of every game, as :data:`_SQUARES` is for squares.

Views are read and packed, never changed, so they may share lists. Made at import,
these are among what the server freezes out of the collector's walks; a list made
per stone on a board, per legal square and per move's square was most of the
tracked objects of a thousand games under way, and every full collection walked
them.
"""
_SQUARES: tuple[tuple[list[int], ...], ...] = tuple(
    tuple([r, c] for c in range(COLS)) for r in range(ROWS)
)
"""``_SQUARES[r][c]``: the square as views and events show it, ``[r, c]`` (see :data:`_WIRE`)."""


def stone_of(colour: int, symbol: int) -> Stone:
    """The shared :class:`Stone` of this colour and symbol."""
    if not (0 <= colour < COLOURS and 0 <= symbol < SYMBOLS):
        raise ValueError(f"no stone of colour {colour!r} and symbol {symbol!r}")
    return _KINDS[colour * SYMBOLS + symbol]


def full_set() -> list[Stone]:
    """All 72 stones: every colour/symbol pair twice."""
    return [kind for kind in _KINDS for _ in range(COPIES)]


def is_ring(r: int, c: int) -> bool:
    """True on the outer ring (the "Beyond"), where stones score nothing."""
    return r in (0, ROWS - 1) or c in (0, COLS - 1)


def _adjacent(r: int, c: int) -> tuple[tuple[int, int, int], ...]:
    return tuple(
        (d, r + dr, c + dc)
        for d, (_, dr, dc) in enumerate(DIRECTIONS)
        if 0 <= r + dr < ROWS and 0 <= c + dc < COLS
    )


_ADJACENT = [[_adjacent(r, c) for c in range(COLS)] for r in range(ROWS)]
"""``_ADJACENT[r][c]``: the on-board neighbours of a square as ``(direction, row, col)``."""


def neighbours(board: Board, r: int, c: int) -> list[tuple[int, Stone]]:
    """The occupied neighbours of ``[r, c]`` as ``(direction index, stone)``."""
    return [(d, stone) for d, rr, cc in _ADJACENT[r][c] if (stone := board[rr][cc]) is not None]


def _assignments(stone: Stone, around: Sequence[tuple[int, Stone]]) -> list[tuple[int, ...]]:
    """Every way to pick the colour-matching neighbours so that the rest match by symbol.

    Each result is the tuple of indices (into ``around``) of the neighbours that
    match by colour. A neighbour identical to ``stone`` may play either part.
    """
    n = len(around)
    colour_ok = [nb.colour == stone.colour for _, nb in around]
    symbol_ok = [nb.symbol == stone.symbol for _, nb in around]
    found: list[tuple[int, ...]] = []
    for k in _COLOUR_MATCHES.get(n, ()):
        for group in combinations(range(n), k):
            if all(colour_ok[i] for i in group) and all(
                symbol_ok[i] for i in range(n) if i not in group
            ):
                found.append(group)
    return found


def fits(stone: Stone, around: Sequence[tuple[int, Stone]], *, touching: bool = True) -> bool:
    """Whether ``stone`` may go on a square whose occupied neighbours are ``around``.

    Args:
        stone: the stone to place.
        around: the square's occupied neighbours, as from :func:`neighbours`.
        touching: apply the 4-way corner condition (option ``four_way="touching"``).

    This runs for every empty square after every draw, so it counts instead of
    enumerating. A neighbour matching by colour only must be in the colour
    group, one matching by symbol only must be out of it, an identical one may
    be either, and one matching neither rules the square out. A group of an
    allowed size exists when that size lies between the forced members and the
    forced plus the free ones. In a touching 4-way the group is one stone of
    each opposite pair, so each pair needs one stone that may be in and the
    other that may be out. :func:`_assignments` is the rules' own wording of
    the same test, kept for the error messages.
    """
    n = len(around)
    if not n:
        return False
    colour, symbol = stone
    if n == 4 and touching:
        may_in = [False] * 4
        may_out = [False] * 4
        for d, nb in around:
            may_in[d] = nb.colour == colour
            may_out[d] = nb.symbol == symbol
            if not (may_in[d] or may_out[d]):
                return False
        return ((may_in[0] and may_out[1]) or (may_in[1] and may_out[0])) and (
            (may_in[2] and may_out[3]) or (may_in[3] and may_out[2])
        )
    forced = free = 0
    for _, nb in around:
        if nb.colour == colour:
            if nb.symbol == symbol:
                free += 1
            else:
                forced += 1
        elif nb.symbol != symbol:
            return False
    low, high = _GROUP_SIZES[n]
    return forced <= high and forced + free >= low


def _kind(stone: Stone) -> int:
    """The stone's index 0..35 in :data:`_KINDS` (and its bit in :func:`_fit_mask`)."""
    return stone.colour * SYMBOLS + stone.symbol


_SAME_COLOUR: tuple[int, ...] = tuple(
    sum(1 << _kind(b) for b in _KINDS if b.colour == a.colour) for a in _KINDS
)
"""``_SAME_COLOUR[k]``: the set of stone kinds (bit ``kind``) whose colour is kind ``k``'s."""
_SAME_SYMBOL: tuple[int, ...] = tuple(
    sum(1 << _kind(b) for b in _KINDS if b.symbol == a.symbol) for a in _KINDS
)
"""``_SAME_SYMBOL[k]``: the kinds whose symbol is kind ``k``'s."""


def _fit_mask(around: tuple[int, ...], touching: bool) -> int:
    """Every stone that fits a square, as a set of kinds (bit ``kind``), from its coded
    neighbours: each ``direction << 6 | kind``, in direction order.

    The rules ask for a group of neighbours matching by colour, the others by
    symbol, of a size the neighbour count allows (one: either; two: one colour
    and one symbol; three: one or two colours; four: two, at a corner when
    touching). The stones that satisfy one such group are the intersection of
    the members' same-colour sets and the others' same-symbol sets; the stones
    that fit are the union over the allowed groups. A neighbour identical to the
    stone lies in both of its sets, so it may play either part. Computed when a
    square's neighbours change, the draw then tests a bit per square.
    """
    kinds = [v & 63 for v in around]
    c = [_SAME_COLOUR[k] for k in kinds]
    s = [_SAME_SYMBOL[k] for k in kinds]
    n = len(kinds)
    if n == 1:
        return c[0] | s[0]
    if n == 2:
        return (c[0] & s[1]) | (s[0] & c[1])
    if n == 3:
        return (
            (c[0] & c[1] & s[2])
            | (c[0] & s[1] & c[2])
            | (s[0] & c[1] & c[2])
            | (c[0] & s[1] & s[2])
            | (s[0] & c[1] & s[2])
            | (s[0] & s[1] & c[2])
        )
    if n != 4:
        return 0
    up, down, left, right = range(4)  # the coded tuple is in direction order
    corners = (
        (c[up] & c[left] & s[down] & s[right])
        | (c[up] & c[right] & s[down] & s[left])
        | (c[down] & c[left] & s[up] & s[right])
        | (c[down] & c[right] & s[up] & s[left])
    )
    if touching:
        return corners
    return corners | (c[up] & c[down] & s[left] & s[right]) | (c[left] & c[right] & s[up] & s[down])


fit_mask = _fit_mask
"""Public name of :func:`_fit_mask`, for bots that track the stones each square takes."""


def legal_squares(board: Board, stone: Stone, *, touching: bool = True) -> list[tuple[int, int]]:
    """Every empty square where ``stone`` may go, in row-major order."""
    out: list[tuple[int, int]] = []
    for r, row in enumerate(board):
        adjacent = _ADJACENT[r]
        for c, here in enumerate(row):
            if here is None:
                around = [(d, nb) for d, rr, cc in adjacent[c] if (nb := board[rr][cc]) is not None]
                if around and fits(stone, around, touching=touching):
                    out.append((r, c))
    return out


def fourway_bonus(fourways_before: int) -> int:
    """The bonus of the 4-way made after ``fourways_before`` earlier ones."""
    return FOURWAY_BONUSES[min(fourways_before, len(FOURWAY_BONUSES) - 1)]


@dataclass(frozen=True, slots=True, kw_only=True)
class Value:
    """What one placement earns: ``points`` for the match, ``bonus`` for a 4-way."""

    neighbours: int
    points: int
    fourway: bool
    bonus: int

    @property
    def total(self) -> int:
        """Everything the placement adds to the score."""
        return self.points + self.bonus


def placement_value(r: int, c: int, count: int, fourways_before: int, scoring: str) -> Value:
    """Score a legal placement on ``[r, c]`` with ``count`` occupied neighbours.

    Modern: 1/2/4/8 points for 1..4 neighbours, times ``2 ** fourways_before``,
    nothing on the outer ring; a 4-way adds the next bonus of :data:`FOURWAY_BONUSES`.
    Ancient: only the 4-way bonus counts. A 4-way can never be made on the ring
    (a ring square has at most three neighbours).
    """
    fourway = count == 4
    bonus = fourway_bonus(fourways_before) if fourway else 0
    points = 0
    if scoring == "modern" and not is_ring(r, c):
        points = (1 << (count - 1)) << fourways_before
    return Value(neighbours=count, points=points, fourway=fourway, bonus=bonus)


def _stone_wire(stone: Stone | None) -> list[int] | None:
    return None if stone is None else _WIRE[_kind(stone)]


def _describe_failure(stone: Stone, around: Sequence[tuple[int, Stone]], touching: bool) -> str:
    """Say which neighbours fail, for the ``no_match`` message."""
    parts = []
    for d, nb in around:
        what = [
            name
            for name, ok in (
                ("colour", nb.colour == stone.colour),
                ("symbol", nb.symbol == stone.symbol),
            )
            if ok
        ]
        parts.append(
            f"{DIRECTIONS[d][0]} {list(nb)} matches {' and '.join(what) if what else 'nothing'}"
        )
    n = len(around)
    need = {
        1: "the neighbour must match by colour or by symbol",
        2: "one neighbour must match by colour and the other by symbol",
        3: "two neighbours must match by one attribute and the third by the other",
        4: "two neighbours must match by colour and the other two by symbol",
    }[n]
    text = f"{'; '.join(parts)}: {need}"
    if n == 4 and touching and _assignments(stone, around):
        text += ", and the two colour matches must touch at a corner, not sit on opposite sides"
    return text


class EndReason(enum.StrEnum):
    """Why a game ended (the view's ``result.won`` says which)."""

    WON = "won"
    """Every stone was placed."""
    STUCK = "stuck"
    """The stone just drawn fits nowhere."""
    QUIT = "quit"
    """The player stopped: the score as it stands, no end bonus."""


class Ishido(SoloGame):
    """The Ishido engine (one seat)."""

    view_fields: ClassVar[Mapping[str, str]] = {
        "board": "list",
        "current": "cell?",
        "pouch": "int",
        "left": "int",
        "placed": "int",
        "fourways": "int",
        "legal": "list",
        "helps": "int",
        "undos": "int",
        "last": "map?",
        "scoring": "str",
        "four_way": "str",
    }
    """This game's own view fields and their shapes (its page's View table)."""
    event_fields: ClassVar[Mapping[str, Mapping[str, str]]] = {
        "placed": {
            "at": "cell",
            "stone": "cell",
            "neighbours": "int",
            "points": "int",
            "fourway": "bool",
            "bonus": "int",
            "score": "int",
        },
        "drew": {"stone": "cell", "pouch": "int"},
        "won": {"left": "int", "bonus": "int", "score": "int"},
        "game_over": {
            "left": "int",
            "score": "int",
            "bonus": "opt int",
            "reason": "opt str",
            "stone": "opt cell",
        },
        "help": {"at": "cell?", "points": "int", "helps": "int"},
    }
    """This game's events by ``e`` and the shapes of their fields (its page's Events)."""
    result_fields: ClassVar[Mapping[str, str]] = {
        "won": "bool",
        "reason": "str?",
        "left": "int",
        "placed": "int",
        "fourways": "int",
        "end_bonus": "int",
    }
    """What this game's ``result`` adds to ``scores`` and ``winners``."""

    name: ClassVar[str] = "ishido"
    daily = True
    daily_counts: ClassVar[Mapping[str, str]] = {"fourways": "4-ways"}
    title: ClassVar[str] = "Ishido"
    summary: ClassVar[str] = "Lay 72 stones so each matches its neighbours by colour or symbol."
    undo_moves: ClassVar[frozenset[str]] = frozenset({"place"})
    tracks_changes: ClassVar[bool] = True
    rebuilt_fields: ClassVar[tuple[str, ...]] = ("_shown", "_around", "_masks")
    derived_events: ClassVar[Mapping[str, Mapping[str, tuple[str | int, ...] | None]]] = {
        # a placement is the view's `last` and score; a draw its `current` and `pouch`
        "placed": {
            "at": ("last", "at"),
            "stone": ("last", "stone"),
            "neighbours": ("last", "neighbours"),
            "points": ("last", "points"),
            "fourway": ("last", "fourway"),
            "bonus": ("last", "bonus"),
            "score": ("scores", 0),
        },
        "drew": {"stone": ("current",), "pouch": ("pouch",)},
    }
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            name="scoring",
            label="Scoring rules",
            kind="choice",
            default="modern",
            choices=("modern", "ancient"),
            doc="modern: points per placement, 4-way bonuses and an end bonus; "
            "ancient: only 4-way bonuses count",
        ),
        Option(
            name="four_way",
            label="4-way rule",
            kind="choice",
            default="touching",
            choices=("touching", "original"),
            doc="touching: a 4-way's two colour matches must share a corner (the rules text); "
            "original: any two colour and two symbol matches",
        ),
    )

    pouch: list[Stone]
    """The stones still to draw; the next one is the last."""

    def __init__(
        self,
        *,
        options: Mapping[str, Any],
        seats: int,
        rng: random.Random,
        now: float,
        bots: frozenset[int] = frozenset(),
    ) -> None:
        super().__init__(options=options, seats=seats, rng=rng, now=now, bots=bots)
        self._settle()
        self.pouch = full_set()
        self._deal_opening()
        self.rng.shuffle(self.pouch)
        self._draw()

    @classmethod
    def from_position(
        cls,
        board: Sequence[Sequence[Sequence[int] | None]],
        current: Sequence[int],
        pouch: Sequence[Sequence[int]] = (),
        *,
        score: int = 0,
        fourways: int = 0,
        placed: int = 0,
        helps: int = 0,
        options: Mapping[str, Any] | None = None,
        rng: random.Random | None = None,
        now: float = 0.0,
    ) -> Ishido:
        """A game in play with ``current`` to place on ``board``, for tests and tools.

        Args:
            board: 8 rows of 12 squares, each None or ``[colour, symbol]`` (0..5
                each), as a view's ``board``.
            current: the stone to place, ``[colour, symbol]``. It need not fit
                anywhere: a position is a test bench, and the rules then refuse
                every square (a real game would have ended at its draw).
            pouch: the stones still to draw, first drawn first.
            score, fourways, placed, helps: the counters, as in the view.
            options: ``scoring`` and ``four_way``.
            rng: the game's random stream from here on (Ishido draws none after
                the opening: the pouch order is given).
            now: unused by Ishido, taken for the common signature.

        The stones need not make a set a real game could reach (a test may put
        four identical stones around a square).

        Raises:
            PositionError: the position breaks one of the above.
            OptionError: an option is unknown or out of bounds.
        """
        game = cls._bare(options=options, seats=1, rng=rng, now=now)
        game._settle()
        if len(board) != ROWS or any(len(row) != COLS for row in board):
            raise PositionError(f"an Ishido board has {ROWS} rows of {COLS} squares")
        stones = [[None if s is None else _stone(s) for s in row] for row in board]
        if min(score, fourways, placed, helps) < 0:
            raise PositionError(
                f"score {score}, fourways {fourways}, placed {placed}, helps {helps} are counts"
            )
        for r, row in enumerate(stones):
            for c, stone in enumerate(row):
                if stone is not None:
                    game._put(r, c, stone)
        game.pouch = [_stone(s) for s in reversed(pouch)]
        game.current = _stone(current)
        game.legal = game._legal(game.current)
        game._score, game.fourways, game.placed, game.helps = score, fourways, placed, helps
        return game

    def _settle(self) -> None:
        """The settings, and an empty board with nothing drawn."""
        self.scoring: str = self.opts["scoring"]
        self.touching: bool = self.opts["four_way"] == "touching"
        self.board: Board = [[None] * COLS for _ in range(ROWS)]
        self._shown: list[list[list[int] | None]] = [[None] * COLS for _ in range(ROWS)]
        self._around: dict[tuple[int, int], tuple[int, ...]] = {}
        self._masks: dict[tuple[int, int], int] = {}
        """The stones that fit each square of :attr:`_around` (:func:`_fit_mask`)."""
        self.pouch = []
        self.current: Stone | None = None
        self.legal: list[tuple[int, int]] = []
        self._score = 0
        self.fourways = 0
        self.placed = 0
        self.helps = 0
        self.last: dict[str, Any] | None = None
        self.end_bonus = 0
        self._end = None

    @property
    def won(self) -> bool:
        """True once every stone is placed."""
        return self._end is EndReason.WON

    # -- setup and flow ----------------------------------------------------------

    def _deal_opening(self) -> None:
        """Put six stones with all colours and all symbols different on the start squares."""
        symbols = list(range(SYMBOLS))
        self.rng.shuffle(symbols)
        opening = [stone_of(colour, symbols[colour]) for colour in range(COLOURS)]
        self.rng.shuffle(opening)
        for (r, c), stone in zip(START_SQUARES, opening, strict=True):
            self._put(r, c, stone)
            self.pouch.remove(stone)

    def _put(self, r: int, c: int, stone: Stone) -> None:
        """Lay ``stone`` on ``[r, c]`` and tell the empty squares around it.

        ``_around`` maps every empty square with an occupied neighbour to those
        neighbours, coded as in :func:`_fit_mask`. Only these squares can be
        legal, and their neighbours change only here, so a draw tests a few
        dozen squares without looking at the board. The codes are plain ints
        in tuples, which the garbage collector stops tracking.
        """
        board = self.board
        board[r][c] = stone
        # The board as views show it: a new row list, the other rows and cells the
        # same objects as in the views before (see state_view).
        row = self._shown[r] = list(self._shown[r])
        kind = _kind(stone)
        row[c] = _WIRE[kind]
        self._touch(("board", r, c))
        around, masks, touching = self._around, self._masks, self.touching
        around.pop((r, c), None)
        masks.pop((r, c), None)
        for d, rr, cc in _ADJACENT[r][c]:
            if board[rr][cc] is None:
                square = (rr, cc)
                # seen from there, this stone lies the opposite way: d ^ 1
                coded = tuple(sorted((*around.get(square, ()), (d ^ 1) << 6 | kind)))
                around[square] = coded
                masks[square] = _fit_mask(coded, touching)

    def _rebuild(self) -> None:
        """The board's indexes, laid again stone by stone (undo restored a copy without)."""
        board = self.board
        self.board = [[None] * COLS for _ in range(ROWS)]
        self._shown = [[None] * COLS for _ in range(ROWS)]
        self._around, self._masks = {}, {}
        for r, row in enumerate(board):
            for c, stone in enumerate(row):
                if stone is not None:
                    self._put(r, c, stone)

    def _legal(self, stone: Stone) -> list[tuple[int, int]]:
        """:func:`legal_squares` of this board: the same squares in the same order."""
        bit = 1 << _kind(stone)
        # Sorting the few squares that fit is cheaper than sorting all candidates first.
        legal = [square for square, mask in self._masks.items() if mask & bit]
        legal.sort()
        return legal

    def _draw(self) -> list[Event]:
        """Draw the next stone; end the game at once if it fits nowhere."""
        self._touch("current", "legal", "pouch", "left")
        if not self.pouch:
            self.current = None
            self.legal = []
            return self._finish(won=True)
        self.current = self.pouch.pop()
        self.legal = self._legal(self.current)
        events: list[Event] = [
            {"e": "drew", "stone": _stone_wire(self.current), "pouch": len(self.pouch)}
        ]
        if not self.legal:
            events += self._finish(won=False)
        return events

    def _finish(self, *, won: bool) -> list[Event]:
        self._end = EndReason.WON if won else EndReason.STUCK
        self._touch("legal")  # none once over
        left = self.stones_left
        if self.scoring == "modern":
            self.end_bonus = END_BONUS.get(left, 0)
        self._score += self.end_bonus
        event: Event = {
            "e": "won" if won else "game_over",
            "left": left,
            "bonus": self.end_bonus,
            "score": self._score,
        }
        if not won:
            event["stone"] = _stone_wire(self.current)
        return [event]

    @property
    def stones_left(self) -> int:
        """Stones not yet on the board: the pouch plus the current stone."""
        return len(self.pouch) + (self.current is not None)

    # -- actions -------------------------------------------------------------------

    def _act_quit(self, seat: int, action: Action, now: float) -> list[Event]:
        self._end = EndReason.QUIT
        self._touch("legal")  # none once over
        left = self.stones_left
        return [{"e": "game_over", "reason": "quit", "left": left, "score": self._score}]

    def _act_place(self, seat: int, action: Action, now: float) -> list[Event]:
        """Put the current stone on ``at``.

        Raises:
            IllegalMove: ``occupied``, ``no_neighbour``, ``no_match``.
        """
        r, c = action["at"]
        return self._place(r, c)

    def _act_help(self, seat: int, action: Action, now: float) -> list[Event]:
        return self._help()

    def _place(self, r: int, c: int) -> list[Event]:
        stone = self.current
        assert stone is not None  # a playing game always holds a drawn stone
        if not self._masks.get((r, c), 0) >> _kind(stone) & 1:
            self._refuse(stone, r, c)
        value = placement_value(r, c, len(self._around[r, c]), self.fourways, self.scoring)
        self._put(r, c, stone)
        self.placed += 1
        self.fourways += value.fourway
        self._score += value.total
        before = self.last
        self._touch("placed")
        if value.fourway:
            self._touch("fourways")
        self.last = {
            "at": _SQUARES[r][c],
            "stone": _stone_wire(stone),
            "neighbours": value.neighbours,
            "points": value.points,
            "fourway": value.fourway,
            "bonus": value.bonus,
        }
        if before is None:
            self._touch("last")
        else:  # most placements keep some of these: only the others go
            self._touch(*(("last", k) for k, v in self.last.items() if before[k] != v))
        placed: Event = {"e": "placed", **self.last, "score": self._score}
        return [placed, *self._draw()]

    def _refuse(self, stone: Stone, r: int, c: int) -> None:
        """Say why ``stone`` may not go on ``[r, c]``, from the board itself.

        Raises:
            IllegalMove: ``occupied``, ``no_neighbour`` or ``no_match``.
        """
        there = self.board[r][c]
        if there is not None:
            raise IllegalMove(
                GameCode.OCCUPIED,
                f"square {[r, c]} already holds {list(there)}",
                cells=[(r, c)],
                tiles=[there],
            )
        around = neighbours(self.board, r, c)
        if not around:
            raise IllegalMove(
                GameCode.NO_NEIGHBOUR, f"square {[r, c]} has no occupied neighbour", cells=[(r, c)]
            )
        reason = _describe_failure(stone, around, self.touching)
        raise IllegalMove(
            GameCode.NO_MATCH,
            f"stone {list(stone)} does not fit at {[r, c]}: {reason}",
            cells=[(r, c)],
            tiles=[stone, *(nb for _, nb in around)],  # the stone, then its neighbours
        )

    def best_square(self) -> tuple[tuple[int, int], Value] | None:
        """The square where the current stone earns the most, as the help shows it.

        Ties go to the square with more neighbours (tighter packing keeps the
        board playable), then to the first in row-major order.
        """
        stone = self.current
        if stone is None or not self.legal:
            return None
        scored = [
            (
                placement_value(
                    r, c, len(neighbours(self.board, r, c)), self.fourways, self.scoring
                ),
                (r, c),
            )
            for r, c in self.legal
        ]
        value, at = min(scored, key=lambda vs: (-vs[0].total, -vs[0].neighbours, vs[1]))
        return at, value

    def _help(self) -> list[Event]:
        best = self.best_square()
        self.helps += 1
        self._touch("helps")
        if best is None:  # unreachable while playing: a stuck stone ends the game
            return [{"e": "help", "at": None, "points": 0, "helps": self.helps}]
        (r, c), value = best
        return [{"e": "help", "at": _SQUARES[r][c], "points": value.total, "helps": self.helps}]

    # -- views -----------------------------------------------------------------------

    def state_view(self, seat: int | None) -> dict[str, Any]:
        """Board, current stone and counts; the pouch order never leaves the engine.

        The board's rows and stones are shared with the views before: a placement
        makes one new row (:meth:`_put`). A view is read, never changed (packed,
        patched against the next); so consecutive views are cheap to build and to
        compare, the patch of a move skipping every row and stone that did not
        change by identity.
        """
        return self.fields_view(seat)

    def result(self) -> dict[str, Any] | None:
        out = super().result()
        if out is not None:
            out.update(
                {
                    "won": self.won,
                    "reason": None if self._end is None else self._end.value,
                    "left": self.stones_left,
                    "placed": self.placed,
                    "fourways": self.fourways,
                    "end_bonus": self.end_bonus,
                }
            )
        return out

    @classmethod
    def tables(cls) -> list[str]:
        """``<scoring>/<four_way>`` for every pair of those options (the defaults first)."""
        scoring = next(o for o in cls.options if o.name == "scoring")
        four_way = next(o for o in cls.options if o.name == "four_way")
        default = f"{scoring.default}/{four_way.default}"
        every = [f"{s}/{f}" for s in scoring.choices for f in four_way.choices]
        return [default, *(t for t in every if t != default)]

    def _score_entries(self) -> list[ScoreEntry]:
        """One entry per finished game, on the table of its scoring and 4-way rule."""
        if self._end is None:
            return []
        return [
            ScoreEntry(
                table=f"{self.scoring}/{self.opts['four_way']}",
                seat=0,
                score=self._score,
                detail={
                    "placed": self.placed,
                    "fourways": self.fourways,
                    "won": self.won,
                    "left": self.stones_left,
                    "helps": self.helps,
                },
            )
        ]


# The handler table is set after the class, not in its body: a class body compiled by
# mypyc (the compiled build, tilehall.server.build) cannot name its own methods.
Ishido.actions = action_table(
    ActionSpec(
        do="place",
        handler=Ishido._act_place,
        fields=(cell_field("at", ROWS, COLS, "an empty square next to a stone"),),
        doc="put the current stone on 'at'",
    ),
    ActionSpec(
        do="help",
        handler=Ishido._act_help,
        doc="ask where the current stone earns the most; counts a help",
    ),
    ActionSpec(do="quit", handler=Ishido._act_quit, doc="end the game; the score as it stands"),
    UNDO_ACTION,
)


# Each field of the view read alone (Game.state_fields): a compact update reads only the
# fields a step recorded (Ishido._touch).
Ishido.state_fields = {
    "board": lambda game, seat: list(game._shown),
    "current": lambda game, seat: _stone_wire(game.current),
    "pouch": lambda game, seat: len(game.pouch),
    "left": lambda game, seat: game.stones_left,
    "placed": lambda game, seat: game.placed,
    "fourways": lambda game, seat: game.fourways,
    "legal": lambda game, seat: (
        [_SQUARES[r][c] for r, c in game.legal] if game._end is None else []
    ),
    "helps": lambda game, seat: game.helps,
    "last": lambda game, seat: dict(game.last) if game.last is not None else None,
    "scoring": lambda game, seat: game.scoring,
    "four_way": lambda game, seat: game.opts["four_way"],
}


def _stone(value: Sequence[int]) -> Stone:
    """The shared stone ``[colour, symbol]`` names, for positions given from outside."""
    if isinstance(value, str | bytes) or len(value) != 2:
        raise PositionError(f"a stone is [colour, symbol], not {value!r}")
    colour, symbol = value
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (colour, symbol)):
        raise PositionError(f"a stone is [colour, symbol] of two integers, not {value!r}")
    try:
        return stone_of(colour, symbol)
    except ValueError as err:
        raise PositionError(str(err)) from None
