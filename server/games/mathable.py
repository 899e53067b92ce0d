"""Mathable: Scrabble with numbers on a 14x14 board, for 2 to 4 seats.

The rules are in ``protocol/games/mathable.md``, which is the specification.
A tile goes on an empty square X when, in one of the four directions, the two
squares next to X in a straight line (A adjacent to X, B beyond A) hold numbers
a and b and the tile equals a+b, |a-b|, a*b, or an exact a/b or b/a. Never
diagonally, never between the operands; on an operator square only that
operation counts. A placement scores face value x the number of directions
that form an equation x the premium of the square (2x, 3x); seven tiles in one
turn earn 50 more. Each tile placed on an operator square earns one optional
extra draw during that turn.

A turn is: place tiles one at a time (``place``), optionally take earned extra
draws (``draw``), then ``end`` (the rack refills to seven while the bag lasts);
or, before placing anything, ``exchange`` tiles, which ends the turn. The game
ends when a turn ends with the bag empty and no seat able to place, when no
tile still in play (racks and bag) fits anywhere (the board can then never
change again), or when every human seat has voted to ``quit``. Rack values
are then subtracted from the scores.

The rule checks are small pure functions (:func:`equations`,
:func:`accepted_values`, :func:`legal_placements`, :func:`all_placements`) so
that bots reason with exactly the engine's rules from nothing but a view.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

from tilehall.protocol import GameCode, Status
from tilehall.server.games.actions import (
    Action,
    ActionSpec,
    action_table,
    as_cell,
    cell_field,
    flag_field,
    int_field,
    ints_field,
)
from tilehall.server.games.base import (
    Event,
    Game,
    IllegalMove,
    InvalidMove,
    Option,
    PositionError,
    ScoreEntry,
)

__all__ = [
    "DIRECTIONS",
    "DOUBLE",
    "FULL_TURN",
    "FULL_TURN_BONUS",
    "OPERATORS",
    "PRESET",
    "RACK_SIZE",
    "SIZE",
    "TILE_COUNTS",
    "TILE_VALUES",
    "TRIPLE",
    "Board",
    "Cell",
    "Equation",
    "Mathable",
    "Placement",
    "accepted_values",
    "all_placements",
    "equations",
    "legal_placements",
    "operation_results",
    "placeable_values",
    "premium",
    "preset_board",
    "square_code",
    "tile_set",
]

SIZE = 14
RACK_SIZE = 7
FULL_TURN = 7
"""Tiles placed in one turn that earn :data:`FULL_TURN_BONUS`."""
FULL_TURN_BONUS = 50

Cell = tuple[int, int]
Board = Sequence[Sequence[int | None]]
"""``board[row][col]``: the number on a square, or None when it is empty."""

PRESET: Mapping[Cell, int] = {(6, 6): 1, (6, 7): 2, (7, 6): 3, (7, 7): 4}

TRIPLE: frozenset[Cell] = frozenset(
    {
        (0, 0),
        (0, 6),
        (0, 7),
        (0, 13),
        (6, 0),
        (7, 0),
        (6, 13),
        (7, 13),
        (13, 0),
        (13, 6),
        (13, 7),
        (13, 13),
    }
)
DOUBLE: frozenset[Cell] = frozenset(
    cell
    for i in range(1, 5)
    for cell in ((i, i), (i, SIZE - 1 - i), (SIZE - 1 - i, i), (SIZE - 1 - i, SIZE - 1 - i))
)


def _cells(op: str, cells: Iterable[Cell]) -> dict[Cell, str]:
    return {cell: op for cell in cells}


OPERATORS: Mapping[Cell, str] = {
    **_cells("/", [(1, 4), (1, 9), (4, 1), (4, 12), (9, 1), (9, 12), (12, 4), (12, 9)]),
    **_cells("-", [(2, 5), (2, 8), (5, 2), (5, 11), (8, 2), (8, 11), (11, 5), (11, 8)]),
    **_cells("+", [(3, 6), (4, 7), (6, 4), (7, 3), (6, 10), (7, 9), (9, 6), (10, 7)]),
    **_cells("*", [(3, 7), (4, 6), (6, 3), (7, 4), (6, 9), (7, 10), (9, 7), (10, 6)]),
}
"""Operator squares: ``+ - * /`` on the wire (the rules text draws them ``+ - x :``)."""

_BIG_TILES = (21, 24, 25, 27, 28, 30, 32, 35, 36, 40, 42, 45, 48, 49, 50, 54, 56, 60, 63, 64)
TILE_COUNTS: Mapping[int, int] = {
    0: 1,
    **{v: 7 for v in range(1, 11)},
    **{v: 1 for v in range(11, 21)},
    **{v: 1 for v in (*_BIG_TILES, 70, 72, 80, 81, 90)},
}
"""The 106 tiles of the bag (the four preset tiles come on top of these)."""
TILE_VALUES: frozenset[int] = frozenset(TILE_COUNTS)
MAX_TILE = max(TILE_VALUES)

DIRECTIONS: tuple[tuple[str, int, int], ...] = (
    ("up", -1, 0),
    ("down", 1, 0),
    ("left", 0, -1),
    ("right", 0, 1),
)
"""Where the operands lie, seen from the square being filled."""

_OPS = ("+", "-", "*", "/")


def tile_set() -> list[int]:
    """All 106 bag tiles, in ascending order."""
    return [v for v, n in sorted(TILE_COUNTS.items()) for _ in range(n)]


def preset_board() -> list[list[int | None]]:
    """An empty board with the four preset tiles in the centre."""
    board: list[list[int | None]] = [[None] * SIZE for _ in range(SIZE)]
    for (r, c), v in PRESET.items():
        board[r][c] = v
    return board


def premium(cell: Cell) -> int:
    """The multiplier of a square: 3, 2 or 1."""
    return 3 if cell in TRIPLE else 2 if cell in DOUBLE else 1


def square_code(cell: Cell) -> str:
    """How a square is drawn on the wire: ``3x``, ``2x``, an operator or ``""``."""
    if cell in TRIPLE:
        return "3x"
    if cell in DOUBLE:
        return "2x"
    return OPERATORS.get(cell, "")


def _results(a: int, b: int) -> list[tuple[str, int]]:
    """Every (operation, result) a and b give; division only when exact, never by zero."""
    out = [("+", a + b), ("-", abs(a - b)), ("*", a * b)]
    if b != 0 and a % b == 0:
        out.append(("/", a // b))
    if a != 0 and b % a == 0:
        out.append(("/", b // a))
    return out


@cache
def operation_results(a: int, b: int, only: str | None = None) -> frozenset[int]:
    """The numbers a tile may carry to sit next to operands a, b (``only``: an operator square)."""
    return frozenset(v for op, v in _results(a, b) if only is None or op == only)


def _operation(a: int, b: int, tile: int, only: str | None) -> str | None:
    """The first operation (in ``+ - * /`` order) by which a and b give ``tile``."""
    for op, v in _results(a, b):
        if v == tile and (only is None or op == only):
            return op
    return None


_SQUARE_CODES: list[list[str]] = [[square_code((r, c)) for c in range(SIZE)] for r in range(SIZE)]
"""Every square's code, row by row: one list for every view (views are read, never changed),
which the patch of a move then skips at once."""


def _operands(board: Board, cell: Cell, dr: int, dc: int) -> tuple[int, int] | None:
    """The numbers on A (adjacent) and B (beyond) in one direction, if both squares hold one."""
    r, c = cell
    ra, ca, rb, cb = r + dr, c + dc, r + 2 * dr, c + 2 * dc
    if not (0 <= rb < SIZE and 0 <= cb < SIZE):
        return None
    a, b = board[ra][ca], board[rb][cb]
    if a is None or b is None:
        return None
    return a, b


@dataclass(frozen=True, slots=True, kw_only=True)
class Equation:
    """One direction in which a placed tile is the result of its two neighbours' operation."""

    direction: str
    a: int
    b: int
    op: str

    def wire(self) -> dict[str, Any]:
        """As sent in a ``placed`` event."""
        return {"dir": self.direction, "a": self.a, "b": self.b, "op": self.op}


def equations(board: Board, cell: Cell, tile: int) -> list[Equation]:
    """Every direction in which ``tile`` on ``cell`` forms an equation (cell assumed empty).

    On an operator square only that operation counts. The count of the result
    is the score multiplier of the placement.
    """
    only = OPERATORS.get(cell)
    out: list[Equation] = []
    for name, dr, dc in DIRECTIONS:
        pair = _operands(board, cell, dr, dc)
        if pair is None:
            continue
        op = _operation(pair[0], pair[1], tile, only)
        if op is not None:
            out.append(Equation(direction=name, a=pair[0], b=pair[1], op=op))
    return out


def accepted_values(board: Board, cell: Cell) -> dict[int, int]:
    """Numbers an empty ``cell`` accepts, each with the count of directions it satisfies."""
    only = OPERATORS.get(cell)
    out: dict[int, int] = {}
    for _, dr, dc in DIRECTIONS:
        pair = _operands(board, cell, dr, dc)
        if pair is None:
            continue
        for v in operation_results(pair[0], pair[1], only):
            out[v] = out.get(v, 0) + 1
    return out


def _empty_cells(board: Board) -> Iterable[Cell]:
    return ((r, c) for r in range(SIZE) for c in range(SIZE) if board[r][c] is None)


def legal_placements(board: Board, tile: int) -> list[Cell]:
    """Every empty square where ``tile`` forms at least one equation, row-major."""
    return [cell for cell in _empty_cells(board) if tile in accepted_values(board, cell)]


def placeable_values(board: Board) -> set[int]:
    """Every number that some empty square accepts."""
    out: set[int] = set()
    for cell in _empty_cells(board):
        out.update(accepted_values(board, cell))
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class Placement:
    """A legal single placement and what it earns (without the seven-tile bonus)."""

    tile: int
    at: Cell
    directions: int
    points: int


def all_placements(board: Board, rack: Iterable[int]) -> list[Placement]:
    """Every legal (tile, square) for the distinct tiles of ``rack``, row-major then by tile."""
    tiles = sorted(set(rack))
    out: list[Placement] = []
    for cell in _empty_cells(board):
        acc = accepted_values(board, cell)
        if not acc:
            continue
        mult = premium(cell)
        for t in tiles:
            n = acc.get(t)
            if n:
                out.append(Placement(tile=t, at=cell, directions=n, points=t * n * mult))
    return out


_PLACED_FIELDS: tuple[str, ...] = (
    *("seat", "tile", "at", "square", "equations", "premium", "points", "draw_earned"),
    "score",
)
"""The fields of ``placed``, in the event's order."""


class Mathable(Game):
    """The Mathable engine (2 to 4 seats)."""

    view_fields: ClassVar[Mapping[str, str]] = {
        "board": "list",
        "squares": "list",
        "racks": "list",
        "rack_sizes": "ints",
        "racks_open": "bool",
        "bag": "int",
        "unseen": "ints",
        "turn": "map",
        "turn_seconds": "int",
        "deadline": "num?",
        "now": "opt num",
        "tiles_placed": "ints",
        "quit_votes": "ints",
        "hinted": "ints",
        "standins": "ints",
        "paused": "str?",
        "penalties": "ints?",
    }
    """This game's own view fields and their shapes (its page's View table)."""
    event_fields: ClassVar[Mapping[str, Mapping[str, str]]] = {
        "placed": {
            "seat": "int",
            "tile": "int",
            "at": "cell",
            "square": "str",
            "equations": "list",
            "premium": "int",
            "points": "int",
            "draw_earned": "bool",
            "score": "int",
        },
        "bonus": {"seat": "int", "points": "int", "score": "int"},
        "drew": {"seat": "int", "count": "int", "reason": "str", "tiles": "opt ints"},
        "drew_tiles": {"seat": "int", "reason": "str", "tiles": "ints"},
        "exchanged": {"seat": "int", "count": "int", "tiles": "opt ints"},
        "hinted": {"seat": "int"},
        "hint": {"seat": "int", "tile": "int?"},
        "timeout": {"seat": "int"},
        "turn_ended": {"seat": "int", "placed": "int", "reason": "str"},
        "turn": {"seat": "int"},
        "quit_vote": {"seat": "int", "vote": "bool", "votes": "ints"},
        "game_over": {"reason": "str", "penalties": "ints", "scores": "ints"},
        "stand_in": {"seat": "int"},
        "stand_back": {"seat": "int"},
    }
    """This game's events by ``e`` and the shapes of their fields (its page's Events)."""
    result_fields: ClassVar[Mapping[str, str]] = {"reason": "str?", "penalties": "ints"}
    """What this game's ``result`` adds to ``scores`` and ``winners``."""
    bot_ratings: ClassVar[Mapping[str, float]] = {"easy": 1240.0, "normal": 1500.0, "hard": 1840.0}
    """Its bot levels' fixed ratings: the calibration of tests/perf/mathable_calibration.json."""

    name: ClassVar[str] = "mathable"
    title: ClassVar[str] = "Mathable"
    summary: ClassVar[str] = (
        "Lay number tiles that are the sum, difference, product or quotient of two neighbours."
    )
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 4
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            name="racks",
            label="Opponents' racks",
            kind="choice",
            default="open",
            choices=("open", "hidden"),
            doc="open: every rack is visible, as in the rules text; "
            "hidden: each player sees only their own rack",
        ),
        Option(
            name="turn_seconds",
            label="Seconds per turn",
            kind="int",
            default=0,
            min=0,
            max=600,
            doc="seconds per turn before the turn is ended for the player; 0: no clock",
        ),
        Option(
            name="standin_after",
            label="Stand-in after (s)",
            kind="int",
            default=60,
            min=0,
            max=3600,
            doc="seconds a player may be away on their turn before a COMP stand-in plays for "
            "them (until they are back, at the next turn); 0: never",
        ),
    )
    pausable: ClassVar[bool] = True
    """The room stops the turn clock while every human player is away."""
    tracks_changes: ClassVar[bool] = True
    derived_events: ClassVar[Mapping[str, Mapping[str, tuple[str | int, ...] | None]]] = {
        "turn": {"seat": ("to_move",)},  # whose turn it is now
        # The frequent events with their values only: the field names were half the
        # bytes of a compact update.
        "placed": dict.fromkeys(_PLACED_FIELDS),
        "bonus": dict.fromkeys(("seat", "points", "score")),
        "turn_ended": dict.fromkeys(("seat", "placed", "reason")),
        "drew": dict.fromkeys(("seat", "count", "reason", "tiles")),  # open racks
        "exchanged": dict.fromkeys(("seat", "count")),
    }

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
        self.bag: list[int] = tile_set()
        racks = [sorted(self._take(RACK_SIZE)) for _ in range(seats)]
        self._hold(
            board=preset_board(),
            racks=racks,
            scores=[0] * seats,
            tiles_placed=[0] * seats,
            turn=self.rng.randrange(seats),
            placed=[],
            draws=0,
            turn_started=now,
            quit_votes=set(),
            hinted=set(),
        )

    @classmethod
    def from_position(
        cls,
        board: Sequence[Sequence[int | None]],
        racks: Sequence[Sequence[int]],
        bag: Sequence[int],
        *,
        turn: int = 0,
        scores: Sequence[int] | None = None,
        tiles_placed: Sequence[int] | None = None,
        placed: Sequence[Sequence[int]] = (),
        draws: int = 0,
        quit_votes: Iterable[int] = (),
        hinted: Iterable[int] = (),
        options: Mapping[str, Any] | None = None,
        bots: frozenset[int] = frozenset(),
        rng: random.Random | None = None,
        now: float = 0.0,
    ) -> Mathable:
        """A game in play in a given position, for tests and tools.

        Args:
            board: 14 rows of 14 squares, each None or a tile number, as a view's
                ``board``.
            racks: one rack per seat (2 to 4 seats), each at most 7 tiles.
            bag: the tiles still in the bag (its order does not matter: draws
                are random).
            turn: the seat to move; its turn started at ``now``.
            scores, tiles_placed: per seat; zeros by default.
            placed: the squares filled so far in this turn (they must hold tiles).
            draws: extra draws earned and not yet taken this turn.
            quit_votes, hinted: the seats that voted to quit, that took a hint.
            options: ``racks`` and ``turn_seconds``.
            bots: the seats a computer plays.
            rng: the game's random stream from here on (every draw).
            now: the engine's clock.

        Tiles are numbers of the set (``0..90``), but the position need not hold
        exactly the set's tiles: a test may put any tiles anywhere.

        Raises:
            PositionError: the position breaks one of the above.
            OptionError: an option is unknown or out of bounds, or the seat count is.
        """
        game = cls._bare(options=options, seats=len(racks), rng=rng, now=now, bots=bots)
        seats = game.seats
        if len(board) != SIZE or any(len(row) != SIZE for row in board):
            raise PositionError(f"a Mathable board has {SIZE} rows of {SIZE} squares")
        _check_tiles("the board", [v for row in board for v in row if v is not None])
        for seat, rack in enumerate(racks):
            _check_tiles(f"rack {seat}", rack)
            if len(rack) > RACK_SIZE:
                raise PositionError(f"rack {seat} holds {len(rack)} tiles, more than {RACK_SIZE}")
        _check_tiles("the bag", bag)
        per_seat = {"scores": scores, "tiles_placed": tiles_placed}
        for name, values in per_seat.items():
            if values is not None and len(values) != seats:
                raise PositionError(f"{name} has {len(values)} entries for {seats} seats")
        votes, hints = set(quit_votes), set(hinted)
        if not 0 <= turn < seats or not votes | hints <= set(range(seats)):
            raise PositionError(
                f"turn {turn}, quit votes {sorted(votes)}, hints {sorted(hints)}:"
                f" seats are 0 to {seats - 1}"
            )
        cells = [as_cell(cell) for cell in placed]
        if any(board[r][c] is None for r, c in cells) or draws < 0:
            raise PositionError(f"placed {cells} must hold tiles, and {draws} draws is a count")
        game.bag = list(bag)
        game._hold(
            board=[list(row) for row in board],
            racks=[sorted(rack) for rack in racks],
            scores=[0] * seats if scores is None else list(scores),
            tiles_placed=[0] * seats if tiles_placed is None else list(tiles_placed),
            turn=turn,
            placed=cells,
            draws=draws,
            turn_started=now,
            quit_votes=votes,
            hinted=hints,
        )
        return game

    def _hold(
        self,
        *,
        board: list[list[int | None]],
        racks: list[list[int]],
        scores: list[int],
        tiles_placed: list[int],
        turn: int,
        placed: list[Cell],
        draws: int,
        turn_started: float,
        quit_votes: set[int],
        hinted: set[int],
    ) -> None:
        """Take up a game in play: the settings, then the state given (the bag is set apart)."""
        self.open_racks: bool = self.opts["racks"] == "open"
        self.turn_seconds: int = self.opts["turn_seconds"]
        self.board = board
        self.racks = racks
        self.score_list = scores
        self.tiles_placed = tiles_placed
        self.turn_seat = turn
        self.turn_placed = placed
        self.draws_left = draws
        self.turn_started = turn_started
        self.quit_votes = quit_votes
        self.hinted = hinted
        self.standins: set[int] = set()
        """Seats a COMP stand-in plays now, their player being away."""
        self.stood_in: set[int] = set()
        """Seats a stand-in has played at some time: out of the Hall of Fame, as hints are."""
        self.penalties: list[int] | None = None
        self.end_reason: str | None = None

    # -- the bag -------------------------------------------------------------------

    def _take(self, n: int) -> list[int]:
        """Draw ``n`` tiles at random; the bag's order is never part of any view."""
        return [self.bag.pop(self.rng.randrange(len(self.bag))) for _ in range(n)]

    def _draw_events(self, seat: int, tiles: list[int], reason: str) -> list[Event]:
        """``drew`` is public; the tiles themselves are private when racks are hidden."""
        public: Event = {"e": "drew", "seat": seat, "count": len(tiles), "reason": reason}
        if self.open_racks:
            return [{**public, "tiles": sorted(tiles)}]
        private: Event = {
            "e": "drew_tiles",
            "seat": seat,
            "reason": reason,
            "tiles": sorted(tiles),
            "_to": seat,
        }
        return [public, private]

    # -- the contract --------------------------------------------------------------

    # -- actions ---------------------------------------------------------------------

    def _act_place(self, seat: int, action: Action, now: float) -> list[Event]:
        return self._place(seat, action["tile"], as_cell(action["at"]))

    def _act_draw(self, seat: int, action: Action, now: float) -> list[Event]:
        return self._extra_draw(seat)

    def _act_end(self, seat: int, action: Action, now: float) -> list[Event]:
        return self._end_turn(seat, "end", now)

    def _act_exchange(self, seat: int, action: Action, now: float) -> list[Event]:
        return self._exchange(seat, action["tiles"], now)

    def _act_hint(self, seat: int, action: Action, now: float) -> list[Event]:
        return self._hint(seat)

    def _act_quit(self, seat: int, action: Action, now: float) -> list[Event]:
        return self._quit(seat, action.get("vote"))

    def _place(self, seat: int, tile: int, cell: Cell) -> list[Event]:
        rack = self.racks[seat]
        if tile not in rack:
            raise IllegalMove(
                GameCode.NOT_IN_RACK, f"tile {tile} is not on your rack {rack}", tiles=[tile]
            )
        r, c = cell
        there = self.board[r][c]
        if there is not None:
            raise IllegalMove(
                GameCode.OCCUPIED,
                f"square {[r, c]} already holds {there}",
                cells=[(r, c)],
                tiles=[there],
            )
        found = equations(self.board, cell, tile)
        if not found:
            only = OPERATORS.get(cell)
            how = f"by {only} (an operator square)" if only else "by + - * or exact /"
            raise IllegalMove(
                GameCode.NO_EQUATION,
                f"tile {tile} at {[r, c]} is not made {how} of the two numbers in line "
                f"above, below, left or right of it",
                cells=[(r, c)],
                tiles=[tile],
            )
        mult = premium(cell)
        points = tile * len(found) * mult
        rack.remove(tile)
        self.board[r][c] = tile
        self.turn_placed.append(cell)
        self.tiles_placed[seat] += 1
        self.score_list[seat] += points
        earns = cell in OPERATORS
        self.draws_left += earns
        self._touch(("board", r, c), ("tiles_placed", seat), ("turn", "placed"))
        if earns:
            self._touch(("turn", "draws"))
        if len(self.turn_placed) == 1:  # no exchange once a tile is down
            self._touch(("turn", "can_exchange"))
        self._tiles_moved(seat, to_board=[tile])
        events: list[Event] = [
            {
                "e": "placed",
                "seat": seat,
                "tile": tile,
                "at": [r, c],
                "square": square_code(cell),
                "equations": [eq.wire() for eq in found],
                "premium": mult,
                "points": points,
                "draw_earned": earns,
                "score": self.score_list[seat],
            }
        ]
        if len(self.turn_placed) == FULL_TURN:
            self.score_list[seat] += FULL_TURN_BONUS
            events.append(
                {
                    "e": "bonus",
                    "seat": seat,
                    "points": FULL_TURN_BONUS,
                    "score": self.score_list[seat],
                }
            )
        return events

    def _extra_draw(self, seat: int) -> list[Event]:
        if self.draws_left <= 0:
            raise IllegalMove(
                GameCode.NO_DRAW,
                "no extra draw left: each tile placed on an operator square earns one",
            )
        if not self.bag:
            raise IllegalMove(GameCode.BAG_EMPTY, "the bag is empty")
        self.draws_left -= 1
        tiles = self._take(1)
        self.racks[seat] = sorted(self.racks[seat] + tiles)
        self._touch(("turn", "draws"))
        self._tiles_moved(seat, drawn=tiles)
        return self._draw_events(seat, tiles, "extra")

    def _exchange(self, seat: int, tiles: list[int], now: float) -> list[Event]:
        if self.turn_placed:
            raise IllegalMove(
                GameCode.ALREADY_PLACED, "you may only exchange before placing a tile"
            )
        missing = Counter(tiles) - Counter(self.racks[seat])
        if missing:
            raise IllegalMove(
                GameCode.NOT_IN_RACK,
                f"tiles {sorted(missing.elements())} of {tiles} are not on your rack "
                f"{self.racks[seat]}",
                tiles=sorted(missing.elements()),
            )
        if len(tiles) > len(self.bag):
            raise IllegalMove(
                GameCode.BAG_TOO_SMALL,
                f"cannot exchange {len(tiles)} tiles: the bag holds {len(self.bag)}",
            )
        # Draw first, then return: a player never gets back the tiles they gave up.
        new = self._take(len(tiles))
        rack = self.racks[seat]
        for t in tiles:
            rack.remove(t)
        self.bag.extend(tiles)
        self.racks[seat] = sorted(rack + new)
        self._tiles_moved(seat, drawn=new, returned=tiles)
        event: Event = {"e": "exchanged", "seat": seat, "count": len(tiles)}
        if self.open_racks:
            event["tiles"] = sorted(tiles)
        events = [event, *self._draw_events(seat, new, "exchange")]
        return events + self._end_turn(seat, "exchange", now)

    def _hint(self, seat: int) -> list[Event]:
        """Name the biggest rack tile that fits somewhere (never where it fits)."""
        fits = placeable_values(self.board) & set(self.racks[seat])
        tile = max(fits) if fits else None
        self.hinted.add(seat)
        self._touch("hinted")
        return [
            {"e": "hinted", "seat": seat},
            {"e": "hint", "seat": seat, "tile": tile, "_to": seat},
        ]

    def _quit(self, seat: int, vote: bool | None) -> list[Event]:
        if vote is None:
            vote = seat not in self.quit_votes
        if vote:
            self.quit_votes.add(seat)
        else:
            self.quit_votes.discard(seat)
        self._touch("quit_votes")
        events: list[Event] = [
            {"e": "quit_vote", "seat": seat, "vote": vote, "votes": sorted(self.quit_votes)}
        ]
        humans = set(range(self.seats)) - self.bots
        if humans and humans <= self.quit_votes:
            events += self._finish("quit")
        return events

    def _end_turn(self, seat: int, reason: str, now: float) -> list[Event]:
        """Refill the rack, pass the turn, and end the game if nothing can change any more."""
        before = self._turn_now()
        events: list[Event] = [
            {"e": "turn_ended", "seat": seat, "placed": len(self.turn_placed), "reason": reason}
        ]
        need = min(RACK_SIZE - len(self.racks[seat]), len(self.bag))
        if need > 0:
            new = self._take(need)
            self.racks[seat] = sorted(self.racks[seat] + new)
            self._tiles_moved(seat, drawn=new)
            events += self._draw_events(seat, new, "refill")
        self.turn_placed = []
        self.draws_left = 0
        self.turn_seat = (seat + 1) % self.seats
        self.turn_started = now
        self._turn_changed(before)
        if self._blocked():
            return events + self._finish("blocked")
        return [*events, {"e": "turn", "seat": self.turn_seat}]

    def _blocked(self) -> bool:
        """No rack tile fits anywhere and either the bag is empty or none of its tiles fits."""
        fits = placeable_values(self.board)
        in_racks = {t for rack in self.racks for t in rack}
        if fits & in_racks:
            return False
        return not (fits & set(self.bag))

    def _finish(self, reason: str) -> list[Event]:
        before = self._turn_now()
        self.end_reason = reason
        self.penalties = [sum(rack) for rack in self.racks]
        for i, p in enumerate(self.penalties):
            self.score_list[i] -= p
        self.turn_placed = []
        self.draws_left = 0
        self._touch("penalties")
        self._turn_changed(before)
        return [
            {
                "e": "game_over",
                "reason": reason,
                "penalties": list(self.penalties),
                "scores": list(self.score_list),
            }
        ]

    def advance(self, now: float) -> list[Event]:
        """End the turn of the player to move when their time is up."""
        if self._paused is not None:
            return []
        deadline = self.next_deadline()
        if deadline is None or now < deadline:
            return []
        seat = self.turn_seat
        return [{"e": "timeout", "seat": seat}, *self._end_turn(seat, "timeout", now)]

    def next_deadline(self) -> float | None:
        if self.turn_seconds <= 0 or self.end_reason is not None or self._paused is not None:
            return None
        return self.turn_started + self.turn_seconds

    def _clock_stops(self, now: float) -> None:
        self._touch("deadline")  # none runs while paused

    def _clock_resumes(self, now: float, gap: float) -> None:
        self.turn_started += gap
        self._touch("deadline")

    # -- what a step changed, for the compact updates (Game._touch) -----------------

    _TURN_KEYS: ClassVar[tuple[str, ...]] = ("seat", "placed", "draws", "can_exchange")
    """The keys of the view's ``turn``, in its order (:func:`_read_turn`)."""

    def _turn_now(self) -> tuple[Any, ...]:
        """The view's ``turn`` fields (:data:`_TURN_KEYS`) and ``deadline``, as they are now."""
        turn = _read_turn(self, None)
        return (*(turn[key] for key in self._TURN_KEYS), self.next_deadline())

    def _turn_changed(self, before: tuple[Any, ...]) -> None:
        """A turn ended, or the game: record the fields of ``turn`` and the deadline that
        differ from ``before`` (:meth:`_turn_now`)."""
        after = self._turn_now()
        for key, old, new in zip((*self._TURN_KEYS, "deadline"), before, after, strict=True):
            if old != new:
                self._touch(key if key == "deadline" else ("turn", key))

    def _tiles_moved(
        self,
        seat: int,
        *,
        to_board: Sequence[int] = (),
        drawn: Sequence[int] = (),
        returned: Sequence[int] = (),
    ) -> None:
        """``seat``'s rack changed: tiles went from it ``to_board``, were ``drawn`` from the
        bag into it, or ``returned`` from it to the bag (an exchange).

        What each audience sees of it differs when racks are hidden: the rack itself
        only its owner; ``unseen`` (the bag and the racks an audience cannot see) loses
        a tile put on the board for everyone else, and changes with the bag for the
        owner alone (the others still cannot see the tiles). With open racks every
        audience sees the rack, and ``unseen`` is the bag.
        """
        self._touch(("rack_sizes", seat))
        bag = bool(drawn or returned)
        if bag:
            self._touch("bag", ("turn", "can_exchange"))
        everyone: list[int | None] = [*range(self.seats), None]
        if self.open_racks:
            self._touch(("racks", seat))
            if bag:
                self._touch_sorted(everyone, "unseen", drawn, returned)
            return
        self._touch_only((seat,), ("racks", seat))
        if to_board:
            self._touch_sorted([a for a in everyone if a != seat], "unseen", to_board, ())
        if bag:
            self._touch_sorted((seat,), "unseen", drawn, returned)

    # -- stand-ins: the room's COMP plays an away player's turns ---------------------

    def stand_in(self, seat: int, now: float) -> list[Event]:
        """A COMP stand-in plays ``seat`` from now on, its player being away.

        Raises:
            IllegalMove: ``game_over``; InvalidMove: ``bad_seat`` (not a human seat).
        """
        self._check_standin_seat(seat)
        self.standins.add(seat)
        self.stood_in.add(seat)
        self._touch("standins")
        return [{"e": "stand_in", "seat": seat}]

    def stand_back(self, seat: int, now: float) -> list[Event]:
        """``seat``'s player takes the seat back from its stand-in."""
        self._check_standin_seat(seat)
        self.standins.discard(seat)
        self._touch("standins")
        return [{"e": "stand_back", "seat": seat}]

    @property
    def stood_in_seats(self) -> frozenset[int]:
        return frozenset(self.standins)

    @property
    def ever_stood_in(self) -> frozenset[int]:
        return frozenset(self.stood_in)

    def _check_standin_seat(self, seat: int) -> None:
        if self.end_reason is not None:
            raise IllegalMove(GameCode.GAME_OVER, "the game is over")
        if not 0 <= seat < self.seats or seat in self.bots:
            raise InvalidMove(GameCode.BAD_SEAT, f"seat {seat} is not a human seat")

    @property
    def status(self) -> Status:
        return Status.PLAYING if self.end_reason is None else Status.OVER

    @property
    def to_move(self) -> int | None:
        return self.turn_seat if self.end_reason is None else None

    @property
    def scores(self) -> list[int]:
        return list(self.score_list)

    def unseen(self, seat: int | None) -> list[int]:
        """Tiles ``seat`` cannot see: the bag, plus other racks when racks are hidden."""
        out = list(self.bag)
        if not self.open_racks:
            for i, rack in enumerate(self.racks):
                if i != seat:
                    out += rack
        return sorted(out)

    def state_view(self, seat: int | None) -> dict[str, Any]:
        """Board, racks as ``seat`` may see them, the tiles it cannot see, and the turn."""
        return self.fields_view(seat)

    def revealed(self) -> dict[str, Any]:
        """Every rack, when racks are hidden."""
        return {} if self.open_racks else {"racks": [list(rack) for rack in self.racks]}

    def result(self) -> dict[str, Any] | None:
        out = super().result()
        if out is not None:
            out["reason"] = self.end_reason
            out["penalties"] = list(self.penalties or [])
        return out

    @classmethod
    def tables(cls) -> list[str]:
        """One Hall of Fame per seat count."""
        return [f"{n} players" for n in range(cls.min_seats, cls.max_seats + 1)]

    def score_entries(self) -> list[ScoreEntry]:
        """Hall of Fame claims: one table per seat count; hints, bots and stand-ins are out."""
        if self.end_reason is None:
            return []
        return [
            ScoreEntry(
                table=f"{self.seats} players",
                seat=i,
                score=self.score_list[i],
                detail={"tiles_placed": self.tiles_placed[i], "reason": self.end_reason},
            )
            for i in range(self.seats)
            if i not in self.bots and i not in self.hinted and i not in self.stood_in
        ]


# The handler table is set after the class, not in its body: a class body compiled by
# mypyc (the compiled build, tilehall.server.build) cannot name its own methods.
Mathable.actions = action_table(
    ActionSpec(
        do="place",
        handler=Mathable._act_place,
        fields=(
            int_field("tile", 0, MAX_TILE, "a tile of the rack"),
            cell_field("at", SIZE, SIZE, "an empty square where the tile makes an equation"),
        ),
        doc="put a rack tile on the board; it scores at once",
    ),
    ActionSpec(
        do="draw", handler=Mathable._act_draw, doc="take one earned extra draw from the bag"
    ),
    ActionSpec(do="end", handler=Mathable._act_end, doc="end the turn: refill the rack to 7"),
    ActionSpec(
        do="exchange",
        handler=Mathable._act_exchange,
        fields=(ints_field("tiles", 0, MAX_TILE, (1, RACK_SIZE), "rack tiles to give back"),),
        doc="before placing anything: swap rack tiles for as many new ones; ends the turn",
    ),
    ActionSpec(do="hint", handler=Mathable._act_hint, doc="name a rack tile that fits somewhere"),
    ActionSpec(
        do="quit",
        handler=Mathable._act_quit,
        fields=(flag_field("vote", "set this seat's vote; without it, toggle it", required=False),),
        turn=False,
        doc="vote to end the game; it ends when every human seat votes yes",
    ),
)


def _read_turn(game: Mathable, seat: int | None) -> dict[str, Any]:
    """The view's ``turn``: whose it is, what it placed, its draws, whether it may exchange."""
    over = game.end_reason is not None
    return {
        "seat": None if over else game.turn_seat,
        "placed": [[r, c] for r, c in game.turn_placed],
        "draws": game.draws_left,
        "can_exchange": not over and not game.turn_placed and bool(game.bag),
    }


# Each field of the view read alone (Game.state_fields): a compact update reads only the
# fields a step recorded (Mathable._touch), for each audience.
Mathable.state_fields = {
    "board": lambda game, seat: game._view_rows(game.board),
    "squares": lambda game, seat: _SQUARE_CODES,
    "racks": lambda game, seat: [
        list(rack) if game.open_racks or i == seat else None for i, rack in enumerate(game.racks)
    ],
    "rack_sizes": lambda game, seat: [len(rack) for rack in game.racks],
    "racks_open": lambda game, seat: game.open_racks,
    "bag": lambda game, seat: len(game.bag),
    "unseen": lambda game, seat: game.unseen(seat),
    "turn": _read_turn,
    "turn_seconds": lambda game, seat: game.turn_seconds,
    "deadline": lambda game, seat: game.next_deadline(),
    "tiles_placed": lambda game, seat: list(game.tiles_placed),
    "quit_votes": lambda game, seat: sorted(game.quit_votes),
    "hinted": lambda game, seat: sorted(game.hinted),
    "standins": lambda game, seat: sorted(game.standins),
    "penalties": lambda game, seat: None if game.penalties is None else list(game.penalties),
}


def _check_tiles(where: str, tiles: Iterable[Any]) -> None:
    """Refuse a position holding something that is not a tile number."""
    for t in tiles:
        if isinstance(t, bool) or t not in TILE_VALUES:
            raise PositionError(f"{where} holds {t!r}, which is no Mathable tile")
