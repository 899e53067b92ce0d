"""LinkSame: nine Shisen-Sho stages whose tiles slide after every pair, scored for speed.

Matt Neuburg's reconstruction of MacLinkSame (the rules are in
``protocol/games/linksame.md``): a full board of ``(rows*cols)/4`` picture kinds, four tiles each;
two equal tiles go when a path of at most three segments joins them
(:mod:`tilehall.server.games.shisensho`, shortest path drawn). Stage ``n`` slides the
remaining tiles by movement rule ``n`` after each pair
(:func:`tilehall.server.games.shisensho.movement`); a cleared board starts the next
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
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from tilehall.protocol import GameCode
from tilehall.server.games.actions import (
    Action,
    ActionSpec,
    action_table,
    cell_field,
    on_board,
)
from tilehall.server.games.base import (
    PAUSE_ACTIONS,
    UNDO_ACTION,
    Event,
    IllegalMove,
    Option,
    PositionError,
    ScoreEntry,
    SoloGame,
)
from tilehall.server.games.shisensho import (
    Board,
    Cell,
    Move,
    Movement,
    count_tiles,
    deal_by_play,
    find_path,
    identity_key,
    playable_pairs,
    remove_pair,
    solve,
)

# From its module, not the package: compiled by mypyc, ``from ...shisensho import movement``
# binds the submodule of that name, not the function the package re-exports.
from tilehall.server.games.shisensho.movement import movement

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
MAX_ROWS = max(rows for rows, _ in SIZES.values())
MAX_COLS = max(cols for _, cols in SIZES.values())

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


class LinkSame(SoloGame):
    """One player clears ``stages`` boards; see the module docstring for the rules."""

    view_fields: ClassVar[Mapping[str, str]] = {
        "rows": "int",
        "cols": "int",
        "size": "str",
        "stages": "int",
        "mode": "str",
        "kinds": "int",
        "stage": "int",
        "movement": "str",
        "board": "list?",
        "tiles_left": "int",
        "score": "int",
        "hint": "map?",
        "now": "num",
        "last_pair": "num?",
        "bonus_until": "num?",
        "shot_deadline": "num?",
        "time_left": "num?",
        "end": "str?",
        "undos": "int",
        "paused": "str?",
    }
    """This game's own view fields and their shapes (its page's View table)."""
    event_fields: ClassVar[Mapping[str, Mapping[str, str]]] = {
        "removed": {
            "a": "cell",
            "b": "cell",
            "tile": "int",
            "path": "list",
            "points": "int",
            "bonus": "int",
            "moved": "list",
        },
        "shot_clock": {"ticks": "int", "points": "int", "score": "int"},
        "hint": {"a": "cell", "b": "cell", "path": "list", "points": "int"},
        "shuffled": {"free": "bool", "points": "int", "board": "list"},
        "restarted": {"stage": "int", "score": "int"},
        "stage_clear": {"stage": "int", "score": "int"},
        "stage": {"stage": "int", "movement": "str"},
        "game_over": {"reason": "str", "score": "int", "stage": "int"},
    }
    """This game's events by ``e`` and the shapes of their fields (its page's Events)."""
    result_fields: ClassVar[Mapping[str, str]] = {
        "completed": "bool",
        "stages_cleared": "int",
        "mode": "str",
    }
    """What this game's ``result`` adds to ``scores`` and ``winners``."""

    name: ClassVar[str] = "linksame"
    daily = True
    daily_counts: ClassVar[Mapping[str, str]] = {"stages": "stages"}
    title: ClassVar[str] = "LinkSame"
    summary: ClassVar[str] = (
        "Link pairs of like tiles by a path of up to three lines; the faster, the better."
    )
    undo_moves: ClassVar[frozenset[str]] = frozenset({"pair"})
    tracks_changes: ClassVar[bool] = True
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            name="size",
            label="Board size",
            kind="choice",
            default="normal",
            choices=tuple(SIZES),
            doc="board size: easy 12x7, normal 14x8, hard 16x9",
        ),
        Option(
            name="stages",
            label="Stages to play",
            kind="int",
            default=STAGES,
            min=1,
            max=STAGES,
            doc="how many stages to play, from stage 0",
        ),
        Option(
            name="mode",
            label="Play mode",
            kind="choice",
            default=Mode.TIMED.value,
            choices=tuple(m.value for m in Mode),
            doc="timed: scored, with the shot clock; practice: no clock, no score",
        ),
    )

    pausable: ClassVar[bool] = True
    hidden_when_paused: ClassVar[tuple[str, ...]] = ("board", "hint")

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
        self._settle(now)
        self._start_stage(0)

    @classmethod
    def from_position(
        cls,
        board: Sequence[Sequence[int | None]],
        *,
        stage: int = 0,
        score: int = 0,
        start_board: Sequence[Sequence[int | None]] | None = None,
        start_score: int | None = None,
        last_pair: float | None = None,
        ticks: int = 0,
        options: Mapping[str, Any] | None = None,
        rng: random.Random | None = None,
        now: float = 0.0,
    ) -> LinkSame:
        """A game in play on ``board`` at ``stage``, for tests and tools.

        Args:
            board: the board as a view's ``board``; its shape gives the size
                (7x12 easy, 8x14 normal, 9x16 hard), so ``options`` need not.
                Tile ids run from 0 to ``rows * cols / 4 - 1``; at least one
                tile. The board need not be one a deal and the stage's sliding
                would make, nor one that can be cleared.
            stage: the stage being played, below the ``stages`` option.
            score: the score so far.
            start_board, start_score: what ``restart`` puts back; by default
                ``board`` and ``score``.
            last_pair: when the stage's last pair was made (the shot clock and
                the speed bonus run from it); None before the stage's first.
            ticks: shot-clock ticks already charged since ``last_pair``; those
                due by ``now`` beyond them are charged by the next action or
                clock step, as when the room has not run the clock yet.
            options: ``stages`` and ``mode``; ``size``, if given, must match.
            rng: the game's random stream from here on (hints, reshuffles, deals).
            now: the engine's clock; not before ``last_pair``.

        Raises:
            PositionError: the position breaks one of the above.
            OptionError: an option is unknown or out of bounds.
        """
        size = next((n for n, shape in SIZES.items() if shape == _shape(board)), None)
        if size is None:
            raise PositionError(
                f"a LinkSame board is {', '.join(f'{r}x{c}' for r, c in SIZES.values())},"
                f" not {'x'.join(map(str, _shape(board)))}"
            )
        given = dict(options or {})
        if given.setdefault("size", size) != size:
            raise PositionError(f"option size {given['size']!r} but a {size} board")
        game = cls._bare(options=given, seats=1, rng=rng, now=now)
        game._settle(now)
        if not 0 <= stage < game.stages:
            raise PositionError(f"stage {stage} is not one of 0 to {game.stages - 1}")
        if last_pair is not None and last_pair > now:
            raise PositionError(f"the last pair ({last_pair}) comes after now ({now})")
        if ticks < 0 or (ticks and last_pair is None):
            raise PositionError(f"{ticks} ticks charged, with the last pair at {last_pair}")
        start = board if start_board is None else start_board
        for rows in (board, start):
            _check_board(rows, game.rows, game.cols)
        game._stage = stage
        game._score = score
        game._board = [list(row) for row in board]
        game._start_board = [list(row) for row in start]
        game._start_score = score if start_score is None else start_score
        game._last_pair = last_pair
        game._ticks = ticks
        return game

    def _settle(self, now: float) -> None:
        """The settings and the state every game starts from, before its first board."""
        self.size: str = self.opts["size"]
        self.rows, self.cols = SIZES[self.size]
        self.stages: int = self.opts["stages"]
        self.mode = Mode(self.opts["mode"])
        self._now = now
        self._stage = 0
        self._score = 0
        self._end = None
        self._board: Board = []
        self._start_board: Board = []
        self._start_score = 0
        self._last_pair: float | None = None
        self._ticks = 0
        self._hint: dict[str, Any] | None = None

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

        Each handler checks its action first, then pays the shot clock's ticks
        due by ``now`` (:meth:`_clock`), then plays: a refused action changes
        nothing, the clock included.

        Raises:
            InvalidMove: ``unknown_action``, ``missing_field``, ``bad_field``, ``bad_cell``.
            IllegalMove: ``game_over``, ``not_your_turn``, ``same_cell``,
                ``empty_cell``, ``no_match``, ``no_path``.
        """
        return super().act(seat, action, now)

    def advance(self, now: float) -> list[Event]:
        """Charge the shot clock's ticks due by ``now``."""
        return self._clock(now)

    def next_deadline(self) -> float | None:
        return None if self._paused is not None else self._shot_deadline()

    @property
    def clock_runs(self) -> bool:
        """A timed game's clock counts from the deal: its first pair's speed bonus and shot
        clock start there, though no deadline is set before it."""
        return self.timed and self._end is None

    def _shot_deadline(self) -> float | None:
        """When the shot clock charges next, paused or not."""
        if self._end is not None or not self.timed or self._last_pair is None:
            return None
        return self._last_pair + SHOT_CLOCK * (self._ticks + 1)

    def _clock_stops(self, now: float) -> None:
        self._now = max(self._now, now)
        self._touch("board", "hint", *_CLOCK_FIELDS)  # hidden while paused, and no clock runs

    def _clock_resumes(self, now: float, gap: float) -> None:
        if self._last_pair is not None:  # the shot clock and the speed bonus both count on
            self._last_pair += gap
        self._now = max(self._now, now)
        self._touch("board", "hint", *_CLOCK_FIELDS)

    def state_view(self, seat: int | None) -> dict[str, Any]:
        """Everything is public: the board, the stage, the score and the clock, each field
        read by its reader (:data:`Game.state_fields`), which a compact update reads alone
        for the fields a step recorded.

        While paused no deadline is named (none runs); ``time_left`` is what
        was left when the pause began.
        """
        return self.fields_view(seat)

    def result(self) -> dict[str, Any] | None:
        out = super().result()
        if out is not None:
            out.update(
                completed=self._end is EndReason.COMPLETED,
                stages_cleared=self._stage + (self._end is EndReason.COMPLETED),
                mode=self.mode.value,
            )
        return out

    @classmethod
    def tables(cls) -> list[str]:
        """``<size>-<stages>`` for every size and stage count (the default first)."""
        sizes = next(o for o in cls.options if o.name == "size")
        stages = next(o for o in cls.options if o.name == "stages")
        assert stages.min is not None and stages.max is not None
        default = f"{sizes.default}-{stages.default}"
        every = [
            f"{size}-{n}" for size in sizes.choices for n in range(stages.max, stages.min - 1, -1)
        ]
        return [default, *(t for t in every if t != default)]

    def _score_entries(self) -> list[ScoreEntry]:
        """A completed Timed game claims a place on the table ``<size>-<stages>``."""
        if self._end is not EndReason.COMPLETED or not self.timed:
            return []
        table = f"{self.size}-{self.stages}"
        detail = {"size": self.size, "stages": self.stages}
        return [ScoreEntry(table=table, seat=0, score=self._score, detail=detail)]

    # -- actions: each checks its action, then runs the clock, then plays ------------

    def _act_pair(self, seat: int, action: Action, now: float) -> list[Event]:
        a = on_board(action["a"], "a", self.rows, self.cols)
        b = on_board(action["b"], "b", self.rows, self.cols)
        if a == b:
            raise IllegalMove(
                GameCode.SAME_CELL, f"a pair needs two cells, not {list(a)} twice", cells=[a]
            )
        ta, tb = self._board[a[0]][a[1]], self._board[b[0]][b[1]]
        for cell, tile in ((a, ta), (b, tb)):
            if tile is None:
                raise IllegalMove(GameCode.EMPTY_CELL, f"no tile at {list(cell)}", cells=[cell])
        if ta != tb:
            raise IllegalMove(
                GameCode.NO_MATCH,
                f"tiles {ta} at {list(a)} and {tb} at {list(b)} differ",
                cells=[a, b],
                tiles=[ta, tb],
            )
        path = find_path(self._board, a, b)
        if path is None:
            raise IllegalMove(
                GameCode.NO_PATH,
                f"no path of three segments joins {list(a)} and {list(b)}",
                cells=[a, b],
            )
        return self._clock(now) + self._remove((a, b), path, now)

    def _act_hint(self, seat: int, action: Action, now: float) -> list[Event]:
        return self._clock(now) + self._hint_now()

    def _act_shuffle(self, seat: int, action: Action, now: float) -> list[Event]:
        return self._clock(now) + self._shuffle(free=False)

    def _act_restart(self, seat: int, action: Action, now: float) -> list[Event]:
        return self._clock(now) + self._restart()

    def _act_quit(self, seat: int, action: Action, now: float) -> list[Event]:
        return self._clock(now) + self._finish(EndReason.QUIT)

    # -- rules -------------------------------------------------------------------

    def _clock(self, now: float) -> list[Event]:
        """Let the engine's clock run to ``now``: charge the shot clock's ticks due (-1 each)."""
        if self._paused is not None:
            return []
        deadline = self.next_deadline()
        self._now = max(self._now, now)
        if deadline is None or now < deadline:
            return []
        assert self._last_pair is not None
        due = int((now - self._last_pair) // SHOT_CLOCK) - self._ticks
        self._ticks += due
        self._score -= due
        self._touch("score", "shot_deadline")
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
        if self._hint is not None:
            self._hint = None
            self._touch("hint")
        self._touch(("board", ar, ac), ("board", br, bc), "tiles_left", *_CLOCK_FIELDS)
        if points:
            self._touch("score")
        for src, dst in moved:  # the tiles the stage's movement slid
            self._touch(("board", *src), ("board", *dst))
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

    def _hint_now(self) -> list[Event]:
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
        self._touch("score", "hint")
        return [{"e": "hint", **self._hint, "points": points}]

    def _shuffle(self, *, free: bool) -> list[Event]:
        points = 0 if free or not self.timed else SHUFFLE_POINTS
        self._score += points
        self._board = reshuffle(self._board, self.rule, self.rng)
        self._hint = None
        self._touch("score", "board", "hint")
        return [
            {
                "e": "shuffled",
                "free": free,
                "points": points,
                "board": [list(row) for row in self._board],
            }
        ]

    def _restart(self) -> list[Event]:
        self._board = [row[:] for row in self._start_board]
        self._score = self._start_score
        self._last_pair = None
        self._ticks = 0
        self._hint = None
        self._touch("board", "tiles_left", "score", "hint", *_CLOCK_FIELDS)
        return [{"e": "restarted", "stage": self._stage, "score": self._score}]

    def _start_stage(self, stage: int) -> list[Event]:
        self._stage = stage
        self._board = deal_stage(self.rows, self.cols, self.rule, self.rng)
        self._start_board = [row[:] for row in self._board]
        self._start_score = self._score
        self._last_pair = None
        self._ticks = 0
        self._hint = None
        self._touch("stage", "movement", "board", "tiles_left", "hint", *_CLOCK_FIELDS)
        return [{"e": "stage", "stage": stage, "movement": self.rule.name}]

    def _finish(self, reason: EndReason) -> list[Event]:
        self._end = reason
        self._hint = None
        self._touch("end", "hint", *_CLOCK_FIELDS)
        return [
            {
                "e": "game_over",
                "reason": reason.value,
                "score": self._score,
                "stage": self._stage,
            }
        ]


# The handler table is set after the class, not in its body: a class body compiled by
# mypyc (the compiled build, tilehall.server.build) cannot name its own methods.
def _bonus_until(game: LinkSame, seat: int | None) -> float | None:
    if game._paused is None and game.timed and game._last_pair is not None and game._end is None:
        return game._last_pair + BONUS_WINDOW
    return None


def _time_left(game: LinkSame, seat: int | None) -> float | None:
    shot = game._shot_deadline()
    return None if shot is None else max(0.0, shot - game._now)


_CLOCK_FIELDS = ("last_pair", "bonus_until", "shot_deadline")
"""What a pair, a pause or a new stage changes of the clock in the view (``now`` and
``time_left`` go with every update)."""

# Each field of the view read alone (Game.state_fields), in the view's order.
LinkSame.state_fields = {
    "rows": lambda game, seat: game.rows,
    "cols": lambda game, seat: game.cols,
    "size": lambda game, seat: game.size,
    "stages": lambda game, seat: game.stages,
    "mode": lambda game, seat: game.mode.value,
    "kinds": lambda game, seat: game.rows * game.cols // 4,
    "stage": lambda game, seat: game._stage,
    "movement": lambda game, seat: game.rule.name,
    "board": lambda game, seat: game._view_rows(game._board),
    "tiles_left": lambda game, seat: count_tiles(game._board),
    "score": lambda game, seat: game._score,
    "hint": lambda game, seat: None if game._hint is None else dict(game._hint),
    "now": lambda game, seat: game._now,
    "last_pair": lambda game, seat: game._last_pair,
    "bonus_until": _bonus_until,
    "shot_deadline": lambda game, seat: game._shot_deadline() if game._paused is None else None,
    "time_left": _time_left,
    "end": lambda game, seat: None if game._end is None else game._end.value,
}

LinkSame.actions = action_table(
    ActionSpec(
        do="pair",
        handler=LinkSame._act_pair,
        fields=(
            cell_field("a", MAX_ROWS, MAX_COLS, "one tile of the pair, on the room's board"),
            cell_field("b", MAX_ROWS, MAX_COLS, "the other tile"),
        ),
        doc="remove two equal tiles that a path of at most three segments joins",
    ),
    ActionSpec(
        do="hint", handler=LinkSame._act_hint, doc="show a pair the solver would play (-10)"
    ),
    ActionSpec(
        do="shuffle",
        handler=LinkSame._act_shuffle,
        doc="rearrange the tiles left into a board that can be cleared (-20)",
    ),
    ActionSpec(
        do="restart",
        handler=LinkSame._act_restart,
        doc="put back the stage's starting board and score",
    ),
    ActionSpec(do="quit", handler=LinkSame._act_quit, doc="end the game"),
    *PAUSE_ACTIONS,
    UNDO_ACTION,
)


def _shape(board: Sequence[Sequence[int | None]]) -> tuple[int, int]:
    return (len(board), len(board[0]) if board else 0)


def _check_board(board: Sequence[Sequence[int | None]], rows: int, cols: int) -> None:
    """Refuse a board :meth:`LinkSame.from_position` cannot play on."""
    if _shape(board) != (rows, cols) or any(len(row) != cols for row in board):
        raise PositionError(f"the board must be {rows}x{cols}")
    kinds = rows * cols // 4
    tiles = 0
    for row in board:
        for t in row:
            if t is None:
                continue
            if isinstance(t, bool) or not isinstance(t, int) or not 0 <= t < kinds:
                raise PositionError(f"tile ids are 0 to {kinds - 1}, not {t!r}")
            tiles += 1
    if not tiles:
        raise PositionError("a board in play holds at least one tile")
