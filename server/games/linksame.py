"""LinkSame: nine Shisen-Sho stages whose tiles slide after every pair, scored for speed.

Matt Neuburg's reconstruction of MacLinkSame (``/work/shared/rules/linksame.txt``,
GAMES.md): a full board of ``(rows*cols)/4`` picture kinds, four tiles each;
two equal tiles go when a path of at most three segments joins them
(:mod:`server.games.shisensho`, shortest path drawn). Stage ``n`` slides the
remaining tiles by movement rule ``n`` after each pair
(:func:`server.games.shisensho.movement`); a cleared board starts the next
stage on a new deal.

Timed mode scores +1 a pair, plus ``int(15 - 1.5*sqrt(10*dt))`` when the pair
comes ``dt < 10`` seconds after the stage's previous one; a shot clock takes
1 point for every 10 seconds without a pair once the stage's first pair is
made; a hint costs 10, a reshuffle 20. Practice mode has no clock and no score.

Choices where the texts are silent (documented in ``protocol/games/linksame.md``):

* A pair whose tiles do not match or do not connect is refused (``no_match``,
  ``no_path``): LinkSame has no penalty for a wrong selection.
* The shot clock runs from the stage's last pair: hints and reshuffles do
  not reset it. An action arriving after some of its ticks were due (the
  room has not called :meth:`LinkSame.advance` yet) first pays them.
* ``restart`` puts the stage's starting board back and the score the stage
  started with, so restarting never earns points twice; the clock stops
  until the first pair, as at the start of a stage.
* Every deal, reshuffle (paid or free) and restart board is one the solver
  clears under the stage's movement rule.
* ``quit`` ends the game; only a Timed game that cleared all its stages
  claims a high score.
"""

from __future__ import annotations

import enum
import itertools
import math
import random
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from server.games.base import (
    Action,
    Event,
    Game,
    IllegalMove,
    InvalidMove,
    Option,
    ScoreEntry,
    Status,
    require,
    require_cell,
)
from server.games.shisensho import (
    Board,
    Cell,
    Move,
    Movement,
    count_tiles,
    deal_by_play,
    find_path,
    identity_key,
    movement,
    playable_pairs,
    remove_pair,
    solve,
)

__all__ = [
    "SIZES",
    "EndReason",
    "LinkSame",
    "Mode",
    "deal_stage",
    "reshuffle",
    "speed_bonus",
]

SIZES: dict[str, tuple[int, int]] = {"easy": (7, 12), "normal": (8, 14), "hard": (9, 16)}
"""Board ``(rows, cols)`` by size name."""

STAGES = 9
PAIR_POINTS = 1
BONUS_WINDOW = 10.0
SHOT_CLOCK = 10.0
HINT_POINTS = -10
SHUFFLE_POINTS = -20

DEAL_NODES = 250
"""Solver budget to confirm a deal or reshuffle (three straight runs; about 25 ms on Hard).

A deal the solver needs longer for is dealt again: cheaper than searching on.
After five such deals the budget doubles with each further one."""
HINT_NODES = 500
"""Solver budget for a hint; past it the hint shows any playable pair."""


class Mode(enum.StrEnum):
    TIMED = "timed"
    PRACTICE = "practice"


class EndReason(enum.StrEnum):
    COMPLETED = "completed"
    """The last stage was cleared."""
    QUIT = "quit"
    """The player quit."""


def speed_bonus(dt: float) -> int:
    """Bonus for a pair ``dt`` seconds after the previous one.

    ``int(15 - 1.5*sqrt(10*dt))`` while ``dt`` is under 10 s (11 at half a
    second, 2 at seven seconds), else nothing.
    """
    if dt >= BONUS_WINDOW:
        return 0
    return int(15 - 1.5 * math.sqrt(10 * max(0.0, dt)))


def _pairs_of(tiles: list[int]) -> list[tuple[int, int]]:
    """Group tiles of equal kind two by two (every kind is on the board an even number of times)."""
    counts: dict[int, int] = {}
    for t in tiles:
        counts[t] = counts.get(t, 0) + 1
    return [(k, k) for k, n in sorted(counts.items()) for _ in range(n // 2)]


def deal_stage(rows: int, cols: int, rule: Movement, rng: random.Random) -> Board:
    """A full board of ``rows*cols/4`` kinds, four tiles each, that the solver clears."""
    kinds = rows * cols // 4
    tiles = [k for k in range(kinds) for _ in range(4)]
    return _solvable(rows, cols, _pairs_of(tiles), rule, rng, None)


def reshuffle(board: Board, rule: Movement, rng: random.Random) -> Board:
    """The tiles of ``board`` rearranged on the same cells so that the solver clears them."""
    rows, cols = len(board), len(board[0])
    cells = [(r, c) for r in range(rows) for c in range(cols) if board[r][c] is not None]
    tiles = [t for row in board for t in row if t is not None]
    return _solvable(rows, cols, _pairs_of(tiles), rule, rng, cells)


def _solvable(
    rows: int,
    cols: int,
    pairs: list[tuple[int, int]],
    rule: Movement,
    rng: random.Random,
    cells: list[Cell] | None,
) -> Board:
    """Deal ``pairs`` by blank play (:func:`deal_by_play`) until the solver confirms a deal."""
    for attempt in itertools.count():
        board = deal_by_play(rows, cols, pairs, rng, rule=rule, cells=cells)
        if board is None:
            continue
        budget = DEAL_NODES << max(0, attempt - 4)
        if solve(board, identity_key, rule, node_limit=budget).solved:
            return board
    raise AssertionError("unreachable")


class LinkSame(Game):
    """One player clears ``stages`` boards; see the module docstring for the rules."""

    name: ClassVar[str] = "linksame"
    title: ClassVar[str] = "LinkSame"
    min_seats: ClassVar[int] = 1
    max_seats: ClassVar[int] = 1
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            name="size",
            kind="choice",
            default="normal",
            choices=tuple(SIZES),
            doc="board size: easy 12x7, normal 14x8, hard 16x9",
        ),
        Option(
            name="stages",
            kind="int",
            default=STAGES,
            min=1,
            max=STAGES,
            doc="how many stages to play, from stage 0",
        ),
        Option(
            name="mode",
            kind="choice",
            default=Mode.TIMED.value,
            choices=tuple(m.value for m in Mode),
            doc="timed: scored, with the shot clock; practice: no clock, no score",
        ),
    )

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
        self.size: str = self.opts["size"]
        self.rows, self.cols = SIZES[self.size]
        self.stages: int = self.opts["stages"]
        self.mode = Mode(self.opts["mode"])
        self._now = now
        self._stage = 0
        self._score = 0
        self._end: EndReason | None = None
        self._board: Board = []
        self._start_board: Board = []
        self._start_score = 0
        self._last_pair: float | None = None
        self._ticks = 0
        self._hint: dict[str, Any] | None = None
        self._start_stage(0)

    @property
    def rule(self) -> Movement:
        """The movement rule of the current stage."""
        return movement(self._stage, self.rows, self.cols)

    @property
    def timed(self) -> bool:
        return self.mode is Mode.TIMED

    # -- the contract ------------------------------------------------------------

    def act(self, seat: int, action: Action, now: float) -> list[Event]:
        """Play one action; see ``protocol/games/linksame.md`` for the vocabulary.

        Raises:
            InvalidMove: ``unknown_action``, ``missing_field``, ``bad_cell``.
            IllegalMove: ``game_over``, ``not_your_turn``, ``same_cell``,
                ``empty_cell``, ``no_match``, ``no_path``.
        """
        if not isinstance(action, Mapping):
            raise InvalidMove("unknown_action", f"an action is a map, not {action!r}")
        do = require(action, "do")
        handler = self._handlers.get(do) if isinstance(do, str) else None
        if handler is None:
            raise InvalidMove("unknown_action", f"LinkSame has no action {do!r}")
        if self._end is not None:
            raise IllegalMove("game_over", "the game is over")
        if seat != 0:
            raise IllegalMove("not_your_turn", f"LinkSame has one seat, not seat {seat}")
        apply = handler(self, action)  # validates; changes nothing
        events = self._tick(now)
        self._now = max(self._now, now)
        return events + apply(now)

    def advance(self, now: float) -> list[Event]:
        """Charge the shot clock's ticks due by ``now``."""
        events = self._tick(now)
        self._now = max(self._now, now)
        return events

    def next_deadline(self) -> float | None:
        if self._end is not None or not self.timed or self._last_pair is None:
            return None
        return self._last_pair + SHOT_CLOCK * (self._ticks + 1)

    @property
    def status(self) -> Status:
        return Status.PLAYING if self._end is None else Status.OVER

    @property
    def to_move(self) -> int | None:
        return 0 if self._end is None else None

    @property
    def scores(self) -> list[int]:
        return [self._score]

    def state_view(self, seat: int | None) -> dict[str, Any]:
        """Everything is public: the board, the stage, the score and the clock."""
        deadline = self.next_deadline()
        bonus_until = (
            self._last_pair + BONUS_WINDOW
            if self.timed and self._last_pair is not None and self._end is None
            else None
        )
        return {
            "rows": self.rows,
            "cols": self.cols,
            "size": self.size,
            "stages": self.stages,
            "mode": self.mode.value,
            "kinds": self.rows * self.cols // 4,
            "stage": self._stage,
            "movement": self.rule.name,
            "board": [list(row) for row in self._board],
            "tiles_left": count_tiles(self._board),
            "score": self._score,
            "hint": None if self._hint is None else dict(self._hint),
            "now": self._now,
            "last_pair": self._last_pair,
            "bonus_until": bonus_until,
            "shot_deadline": deadline,
            "time_left": None if deadline is None else max(0.0, deadline - self._now),
            "end": None if self._end is None else self._end.value,
        }

    def result(self) -> dict[str, Any] | None:
        out = super().result()
        if out is not None:
            out.update(
                completed=self._end is EndReason.COMPLETED,
                stages_cleared=self._stage + (self._end is EndReason.COMPLETED),
                mode=self.mode.value,
            )
        return out

    def score_entries(self) -> list[ScoreEntry]:
        """A completed Timed game claims a place on the table ``<size>-<stages>``."""
        if self._end is not EndReason.COMPLETED or not self.timed:
            return []
        table = f"{self.size}-{self.stages}"
        detail = {"size": self.size, "stages": self.stages}
        return [ScoreEntry(table=table, seat=0, score=self._score, detail=detail)]

    # -- actions: each validates, then returns what applies it -------------------------

    def _act_pair(self, action: Mapping[str, Any]) -> Callable[[float], list[Event]]:
        a = require_cell(action, "a", self.rows, self.cols)
        b = require_cell(action, "b", self.rows, self.cols)
        if a == b:
            raise IllegalMove("same_cell", f"a pair needs two cells, not {list(a)} twice")
        ta, tb = self._board[a[0]][a[1]], self._board[b[0]][b[1]]
        for cell, tile in ((a, ta), (b, tb)):
            if tile is None:
                raise IllegalMove("empty_cell", f"no tile at {list(cell)}")
        if ta != tb:
            raise IllegalMove("no_match", f"tiles {ta} at {list(a)} and {tb} at {list(b)} differ")
        path = find_path(self._board, a, b)
        if path is None:
            raise IllegalMove("no_path", f"no path of three segments joins {list(a)} and {list(b)}")
        return lambda now: self._remove((a, b), path, now)

    def _act_hint(self, action: Mapping[str, Any]) -> Callable[[float], list[Event]]:
        return self._hint_now

    def _act_shuffle(self, action: Mapping[str, Any]) -> Callable[[float], list[Event]]:
        return lambda now: self._shuffle(free=False)

    def _act_restart(self, action: Mapping[str, Any]) -> Callable[[float], list[Event]]:
        return self._restart

    def _act_quit(self, action: Mapping[str, Any]) -> Callable[[float], list[Event]]:
        return lambda now: self._finish(EndReason.QUIT)

    _handlers: ClassVar[
        dict[str, Callable[[LinkSame, Mapping[str, Any]], Callable[[float], list[Event]]]]
    ] = {
        "pair": _act_pair,
        "hint": _act_hint,
        "shuffle": _act_shuffle,
        "restart": _act_restart,
        "quit": _act_quit,
    }

    # -- rules -------------------------------------------------------------------

    def _tick(self, now: float) -> list[Event]:
        """Charge the shot clock's ticks due by ``now`` (-1 each)."""
        deadline = self.next_deadline()
        if deadline is None or now < deadline:
            return []
        assert self._last_pair is not None
        due = int((now - self._last_pair) // SHOT_CLOCK) - self._ticks
        self._ticks += due
        self._score -= due
        return [{"e": "shot_clock", "ticks": due, "points": -due, "score": self._score}]

    def _remove(self, move: Move, path: list[Cell], now: float) -> list[Event]:
        (ar, ac), (br, bc) = move
        tile = self._board[ar][ac]
        points = bonus = 0
        if self.timed:
            if self._last_pair is not None:
                bonus = speed_bonus(now - self._last_pair)
            points = PAIR_POINTS + bonus
            self._score += points
        moved = remove_pair(self._board, move, self.rule)
        self._last_pair = now
        self._ticks = 0
        self._hint = None
        events: list[Event] = [
            {
                "e": "removed",
                "a": [ar, ac],
                "b": [br, bc],
                "tile": tile,
                "path": [list(p) for p in path],
                "points": points,
                "bonus": bonus,
                "moved": [[list(src), list(dst)] for src, dst in moved],
            }
        ]
        if count_tiles(self._board) == 0:
            events.append({"e": "stage_clear", "stage": self._stage, "score": self._score})
            if self._stage + 1 >= self.stages:
                return events + self._finish(EndReason.COMPLETED)
            return events + self._start_stage(self._stage + 1)
        if not playable_pairs(self._board):
            events += self._shuffle(free=True)
        return events

    def _hint_now(self, now: float) -> list[Event]:
        solution = solve(self._board, identity_key, self.rule, node_limit=HINT_NODES, rng=self.rng)
        if solution.solved:
            a, b = solution.moves[0]
        else:
            pairs = playable_pairs(self._board)
            a, b = pairs[self.rng.randrange(len(pairs))]
        path = find_path(self._board, a, b)
        assert path is not None
        points = HINT_POINTS if self.timed else 0
        self._score += points
        self._hint = {"a": list(a), "b": list(b), "path": [list(p) for p in path]}
        return [{"e": "hint", **self._hint, "points": points}]

    def _shuffle(self, *, free: bool) -> list[Event]:
        points = 0 if free or not self.timed else SHUFFLE_POINTS
        self._score += points
        self._board = reshuffle(self._board, self.rule, self.rng)
        self._hint = None
        return [
            {
                "e": "shuffled",
                "free": free,
                "points": points,
                "board": [list(row) for row in self._board],
            }
        ]

    def _restart(self, now: float) -> list[Event]:
        self._board = [row[:] for row in self._start_board]
        self._score = self._start_score
        self._last_pair = None
        self._ticks = 0
        self._hint = None
        return [{"e": "restarted", "stage": self._stage, "score": self._score}]

    def _start_stage(self, stage: int) -> list[Event]:
        self._stage = stage
        self._board = deal_stage(self.rows, self.cols, self.rule, self.rng)
        self._start_board = [row[:] for row in self._board]
        self._start_score = self._score
        self._last_pair = None
        self._ticks = 0
        self._hint = None
        return [{"e": "stage", "stage": stage, "movement": self.rule.name}]

    def _finish(self, reason: EndReason) -> list[Event]:
        self._end = reason
        self._hint = None
        return [
            {
                "e": "game_over",
                "reason": reason.value,
                "score": self._score,
                "stage": self._stage,
            }
        ]
