"""Match-It: clear Shisen-Sho sheets against the clock, with lives, helps and sheet bonuses.

The MicroEmacs '99 game (the rules are in ``protocol/games/matchit.md``): a 16x6
sheet of 96 tiles of 42 kinds; two tiles go when they match and a path of at
most three segments joins them (:mod:`tilehall.server.games.shisensho`). Any flower
matches any flower and any season any season; pairing two different ones loses
the sheet's Pedigree bonus.

Choices where the texts are silent (documented in ``protocol/games/matchit.md``):

* Selecting is done by the client; the engine sees a pair (``pair``), which
  scores +2 when a path joins the tiles and -1 when none does. Two tiles that
  do not match at all are refused (``no_match``) without a penalty.
* A sheet left with tiles but no playable pair is stuck: nothing can change on
  a board that never slides, so it is detected at once and treated like a
  time-out (a life, then the same level with a new sheet). ``giveup`` does the
  same when the player sees a dead end coming. ``help`` therefore always finds
  a pair; it picks at random among the pairs that keep the sheet clearable.
* A help's removal counts like the player's for the margins and Pedigree;
  it prefers pairs of identical tiles, so it only costs the Pedigree when
  no such pair keeps the sheet clearable.
* An action at or after the sheet's deadline is refused (``time_up``); the
  room then calls :meth:`MatchIt.advance`, which plays the time-out.
* ``quit`` ends the game at once; its score still enters the table.

Sheets get harder as the level rises: the deal's ``hardness`` goes from 0 at
level 1 to 1 at level 10 and beyond, and :func:`sheet_difficulty` measures the
result (see its docstring).
"""

from __future__ import annotations

import enum
import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from tilehall.protocol import GameCode
from tilehall.server.games.actions import Action, ActionSpec, action_table, as_cell, cell_field
from tilehall.server.games.base import (
    PAUSE_ACTIONS,
    UNDO_ACTION,
    Event,
    IllegalMove,
    PositionError,
    ScoreEntry,
    SoloGame,
)
from tilehall.server.games.shisensho import (
    Board,
    Cell,
    Move,
    Side,
    Solution,
    count_tiles,
    deal_by_play,
    find_path,
    margin_moves,
    path_sides,
    playable_pairs,
    remove_pair,
    solve,
)

__all__ = [
    "COLS",
    "FLOWERS",
    "KIND_COUNTS",
    "ROWS",
    "SEASONS",
    "EndReason",
    "MatchIt",
    "SheetDifficulty",
    "deal_sheet",
    "earns_help",
    "hardness_for",
    "match_key",
    "sheet_difficulty",
    "sheet_seconds",
]

ROWS = 6
COLS = 16
LIVES = 3
HELPS = 3
MAX_HELPS = 9
PAIR_POINTS = 2
NO_PATH_POINTS = -1
HIGHLIGHT_POINTS = -4
PEDIGREE_BONUS = 50
INTERNAL_BONUS = 400
SIDE_BONUS: dict[Side, int] = {Side.LEFT: 10, Side.RIGHT: 10, Side.TOP: 20, Side.BOTTOM: 20}
SIDE_ORDER: tuple[Side, ...] = (Side.TOP, Side.BOTTOM, Side.LEFT, Side.RIGHT)

DOTS = range(0, 9)
BAMBOO = range(9, 18)
CHARACTERS = range(18, 27)
DRAGONS = range(27, 30)
WINDS = range(30, 34)
FLOWERS = range(34, 38)
SEASONS = range(38, 42)
"""Tile ids: dots 1-9 = 0-8, bamboo 1-9 = 9-17, characters 1-9 = 18-26, dragons red,
green, white = 27-29, winds east, south, west, north = 30-33, flowers plum, orchid,
chrysanthemum, bamboo = 34-37, seasons spring, summer, autumn, winter = 38-41."""

KIND_COUNTS: dict[int, int] = {k: 4 if k in (27, 28) or k in WINDS else 2 for k in range(42)}
"""Two dragons and the four winds four times each, every other kind twice: 96 tiles."""

SHEET_NODES = 300
"""Solver budget to confirm a sheet (most need under 30 nodes); a sheet that needs more is
dealt again, and after five such sheets the budget doubles with each further one."""
HELP_NODES = 300
"""Solver budget per check when a help looks for a pair that keeps the sheet clearable."""
HELP_TRIES = 4
"""Random pairs a help checks before it settles for the solver's own first pair."""


def match_key(tile: int) -> int:
    """Match class: every flower is one class, every season another, other kinds themselves."""
    if tile in FLOWERS:
        return FLOWERS.start
    if tile in SEASONS:
        return SEASONS.start
    return tile


def sheet_seconds(level: int) -> int:
    """Time allowed for a sheet: ``400 - 20*(level-1)``, never under 200."""
    return max(200, 400 - 20 * (level - 1))


def earns_help(level: int) -> bool:
    """True when reaching ``level`` earns a help (every third level)."""
    return level % 3 == 0


def hardness_for(level: int) -> float:
    """How hard the deal of ``level`` is steered: 0 at level 1, 1 from level 10."""
    return min(1.0, (level - 1) / 9)


@dataclass(frozen=True, slots=True, kw_only=True)
class SheetDifficulty:
    """How hard a sheet is, measured on the deal and its solver clearing.

    ``adjacent``: orthogonally touching pairs of matching tiles on the dealt
    sheet (the easy first moves). ``margin_moves``: moves of the solver's
    clearing that have no path staying on the board. ``score`` is
    ``margin_moves - adjacent``: more margin work and fewer gifts is harder.
    """

    adjacent: int
    margin_moves: int

    @property
    def score(self) -> int:
        return self.margin_moves - self.adjacent


def sheet_difficulty(board: Sequence[Sequence[int | None]], solution: Solution) -> SheetDifficulty:
    """Measure a sheet (see :class:`SheetDifficulty`) from the solver's clearing of it."""
    rows, cols = len(board), len(board[0])
    adjacent = 0
    for r in range(rows):
        for c in range(cols):
            t = board[r][c]
            if t is None:
                continue
            for nr, nc in ((r, c + 1), (r + 1, c)):
                if nr < rows and nc < cols:
                    u = board[nr][nc]
                    if u is not None and match_key(u) == match_key(t):
                        adjacent += 1
    return SheetDifficulty(adjacent=adjacent, margin_moves=margin_moves(board, solution.moves))


def deal_sheet(level: int, rng: random.Random) -> tuple[Board, Solution]:
    """A full sheet for ``level`` that the solver clears, with the solver's clearing.

    The deal is built by playing a blank board (so it can be cleared) and then
    confirmed by the solver; a deal the solver cannot confirm within its budget
    is thrown away.
    """
    pairs = [(k, k) for k, n in KIND_COUNTS.items() for _ in range(n // 2)]
    for attempt in itertools.count():
        board = deal_by_play(ROWS, COLS, pairs, rng, key=match_key, hardness=hardness_for(level))
        if board is None:
            continue
        solution = solve(board, match_key, node_limit=SHEET_NODES << max(0, attempt - 4))
        if solution.solved:
            return board, solution
    raise AssertionError("unreachable")


class EndReason(enum.StrEnum):
    """Why a game ended."""

    LIVES = "lives"
    """The last life was lost (time-out, stuck sheet or give-up)."""
    QUIT = "quit"
    """The player quit."""


class LifeLoss(enum.StrEnum):
    """What cost a life; ``life_lost.reason`` on the wire."""

    TIME_OUT = "time_out"
    STUCK = "stuck"
    GIVEUP = "giveup"


class MatchIt(SoloGame):
    """One player clears sheets; see the module docstring for the rules."""

    view_fields: ClassVar[Mapping[str, str]] = {
        "rows": "int",
        "cols": "int",
        "board": "list?",
        "level": "int",
        "lives": "int",
        "helps": "int",
        "score": "int",
        "sheets": "int",
        "tiles_left": "int",
        "sheet_time": "int",
        "deadline": "num?",
        "now": "num",
        "time_left": "num",
        "paused": "str?",
        "pedigree": "bool",
        "margins_used": "strs",
        "difficulty": "int",
        "end": "str?",
        "undos": "int",
    }
    """This game's own view fields and their shapes (its page's View table)."""
    event_fields: ClassVar[Mapping[str, Mapping[str, str]]] = {
        "removed": {
            "a": "cell",
            "b": "cell",
            "tiles": "ints",
            "path": "list",
            "points": "int",
            "margins": "strs",
            "help": "bool",
            "helps": "opt int",
        },
        "no_path": {"a": "cell", "b": "cell", "points": "int"},
        "highlight": {"at": "cell", "cells": "list", "points": "int"},
        "no_pairs": {"helps": "int"},
        "sheet_clear": {"level": "int", "bonus": "map", "points": "int"},
        "sheet": {
            "level": "int",
            "sheet_time": "int",
            "deadline": "num?",
            "helps": "int",
            "lives": "int",
            "difficulty": "int",
        },
        "time_out": {"level": "int"},
        "stuck": {"level": "int"},
        "giveup": {"level": "int"},
        "life_lost": {"reason": "str", "lives": "int"},
        "game_over": {"reason": "str", "score": "int", "level": "int", "sheets": "int"},
    }
    """This game's events by ``e`` and the shapes of their fields (its page's Events)."""
    result_fields: ClassVar[Mapping[str, str]] = {"level": "int", "sheets": "int", "reason": "str?"}
    """What this game's ``result`` adds to ``scores`` and ``winners``."""

    name: ClassVar[str] = "matchit"
    daily = True
    daily_counts: ClassVar[Mapping[str, str]] = {"sheets": "sheets"}
    title: ClassVar[str] = "Match-It"
    summary: ClassVar[str] = (
        "Clear each sheet in time: take matching tiles joined by a path with two turns at most."
    )
    undo_moves: ClassVar[frozenset[str]] = frozenset({"pair", "help"})
    tracks_changes: ClassVar[bool] = True
    pausable: ClassVar[bool] = True
    hidden_when_paused: ClassVar[tuple[str, ...]] = ("board",)

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
        self._begin(now=now, level=1, lives=LIVES, helps=HELPS, score=0, sheets=0)
        self._new_sheet(now)

    @classmethod
    def from_position(
        cls,
        board: Sequence[Sequence[int | None]],
        *,
        level: int = 1,
        lives: int = LIVES,
        helps: int = HELPS,
        score: int = 0,
        sheets: int = 0,
        deadline: float | None = None,
        pedigree: bool = True,
        margins: Iterable[str] = (),
        rng: random.Random | None = None,
        now: float = 0.0,
    ) -> MatchIt:
        """A game in play whose current sheet is ``board``, for tests and tools.

        Args:
            board: 6 rows of 16 tile ids (``0..41``) or None, as a view's ``board``;
                at least one tile. It need not be a sheet a deal would make, nor
                one that can be cleared: a test may want a lone flower.
            level, lives, helps, score, sheets: the counters, as in the view.
            deadline: when the sheet times out; by default ``now`` plus the
                level's sheet time.
            pedigree, margins: the sheet's Pedigree and the margins used so far.
            rng: the game's random stream from here on (helps, later sheets).
            now: the engine's clock.

        Raises:
            PositionError: the position breaks one of the above.
        """
        rows = _check_board(board)
        if level < 1 or not 1 <= lives <= LIVES or not 0 <= helps <= MAX_HELPS or sheets < 0:
            raise PositionError(
                f"level {level}, lives {lives}, helps {helps}, sheets {sheets}: need level >= 1,"
                f" lives 1 to {LIVES}, helps 0 to {MAX_HELPS}, sheets >= 0"
            )
        if deadline is not None and deadline <= now:
            raise PositionError(f"the deadline {deadline} is not after now ({now})")
        sides = {Side(m) for m in margins}
        game = cls._bare(options={}, seats=1, rng=rng, now=now)
        game._begin(now=now, level=level, lives=lives, helps=helps, score=score, sheets=sheets)
        solution = solve(rows, match_key, node_limit=SHEET_NODES)
        game._lay_sheet(
            rows,
            solution,
            now + sheet_seconds(level) if deadline is None else deadline,
            sides=sides,
            pedigree=pedigree,
        )
        return game

    def _begin(
        self, *, now: float, level: int, lives: int, helps: int, score: int, sheets: int
    ) -> None:
        self._now = now
        self._level = level
        self._lives = lives
        self._helps = helps
        self._score = score
        self._sheets = sheets
        self._end = None

    def _lay_sheet(
        self,
        board: Board,
        solution: Solution,
        deadline: float,
        *,
        sides: Iterable[Side] = (),
        pedigree: bool = True,
    ) -> None:
        self._board = board
        self._difficulty = sheet_difficulty(board, solution)
        self._deadline = deadline
        self._sides: set[Side] = set(sides)
        self._pedigree = pedigree
        self._touch("board", "difficulty", "margins_used", "pedigree", "tiles_left")
        self._touch("sheet_time", "deadline")

    # -- the contract ------------------------------------------------------------

    def act(self, seat: int, action: Action, now: float) -> list[Event]:
        """Play one action; see ``protocol/games/matchit.md`` for the vocabulary.

        Raises:
            InvalidMove: ``unknown_action``, ``missing_field``, ``bad_field``, ``bad_cell``.
            IllegalMove: ``game_over``, ``not_your_turn``, ``time_up``, ``same_cell``,
                ``empty_cell``, ``no_match``, ``no_helps``.
        """
        events = super().act(seat, action, now)
        self._now = max(self._now, now)
        return events

    def _check_action(self, seat: int, spec: ActionSpec[Any], now: float) -> None:
        if now >= self._deadline:
            raise IllegalMove(
                GameCode.TIME_UP, f"the sheet's time ran out at {self._deadline}; it is {now}"
            )

    def advance(self, now: float) -> list[Event]:
        """Play the sheet's time-out when ``now`` has reached the deadline."""
        if self._paused is not None:
            return []  # the clock is stopped
        self._now = max(self._now, now)
        if self._end is not None or now < self._deadline:
            return []
        return [{"e": "time_out", "level": self._level}, *self._lose_life(LifeLoss.TIME_OUT, now)]

    def next_deadline(self) -> float | None:
        return None if self._end is not None or self._paused is not None else self._deadline

    def _clock_stops(self, now: float) -> None:
        self._now = max(self._now, now)
        self._touch("board", "deadline")  # hidden while paused, and no deadline runs

    def _clock_resumes(self, now: float, gap: float) -> None:
        self._deadline += gap
        self._now = max(self._now, now)
        self._touch("board", "deadline")

    def state_view(self, seat: int | None) -> dict[str, Any]:
        """Everything is public: the sheet, the counters and the clock; each field read by
        its reader (:data:`Game.state_fields`), which a compact update reads alone for the
        fields a step recorded (the clock's are read at every step)."""
        return self.fields_view(seat)

    def result(self) -> dict[str, Any] | None:
        out = super().result()
        if out is not None:
            out.update(
                level=self._level,
                sheets=self._sheets,
                reason=None if self._end is None else self._end.value,
            )
        return out

    @classmethod
    def tables(cls) -> list[str]:
        return ["top"]

    def _score_entries(self) -> list[ScoreEntry]:
        """Every finished game claims a place on the one table, ``top``."""
        if self._end is None:
            return []
        detail = {"level": self._level, "sheets": self._sheets}
        return [ScoreEntry(table="top", seat=0, score=self._score, detail=detail)]

    # -- actions -----------------------------------------------------------------

    def _tile(self, cell: Sequence[int]) -> int:
        tile = self._board[cell[0]][cell[1]]
        if tile is None:
            raise IllegalMove(GameCode.EMPTY_CELL, f"no tile at {list(cell)}", cells=[cell])
        return tile

    def _act_pair(self, seat: int, action: Action, now: float) -> list[Event]:
        a, b = as_cell(action["a"]), as_cell(action["b"])
        if a == b:
            raise IllegalMove(
                GameCode.SAME_CELL, f"a pair needs two cells, not {list(a)} twice", cells=[a]
            )
        ta, tb = self._tile(a), self._tile(b)
        if match_key(ta) != match_key(tb):
            raise IllegalMove(
                GameCode.NO_MATCH,
                f"tiles {ta} at {list(a)} and {tb} at {list(b)} differ",
                cells=[a, b],
                tiles=[ta, tb],
            )
        path = find_path(self._board, a, b, avoid_margin=True)
        if path is None:
            self._score += NO_PATH_POINTS
            self._touch("score")
            return [{"e": "no_path", "a": list(a), "b": list(b), "points": NO_PATH_POINTS}]
        return self._remove((a, b), path, now, helped=False)

    def _act_highlight(self, seat: int, action: Action, now: float) -> list[Event]:
        at = action["at"]
        kind = match_key(self._tile(at))
        cells = [
            [r, c]
            for r in range(ROWS)
            for c in range(COLS)
            if (t := self._board[r][c]) is not None and match_key(t) == kind
        ]
        self._score += HIGHLIGHT_POINTS
        self._touch("score")
        return [{"e": "highlight", "at": list(at), "cells": cells, "points": HIGHLIGHT_POINTS}]

    def _act_help(self, seat: int, action: Action, now: float) -> list[Event]:
        if self._helps == 0:
            raise IllegalMove(GameCode.NO_HELPS, "no helps left")
        pairs = playable_pairs(self._board, match_key)
        if not pairs:
            return [{"e": "no_pairs", "helps": self._helps}]
        move = self._help_pair(pairs)
        path = find_path(self._board, *move, avoid_margin=True)
        assert path is not None
        self._helps -= 1
        self._touch("helps")
        return self._remove(move, path, now, helped=True)

    def _help_pair(self, pairs: list[Move]) -> Move:
        """A random playable pair after which the sheet can still be cleared, if it can be now.

        A few random pairs are checked with the solver, pairs of identical
        tiles first (a help should not cost the Pedigree when it need not);
        the solver's own first pair is the fallback. A sheet that is already
        a dead end (or too hard to tell within the budget) gets any pair.
        """
        self.rng.shuffle(pairs)
        board = self._board
        pairs.sort(key=lambda m: board[m[0][0]][m[0][1]] != board[m[1][0]][m[1][1]])
        now = solve(self._board, match_key, node_limit=HELP_NODES)
        if not now.solved:
            return pairs[0]
        for move in pairs[:HELP_TRIES]:
            after = [row[:] for row in self._board]
            remove_pair(after, move)
            if solve(after, match_key, node_limit=HELP_NODES).solved:
                return move
        return now.moves[0]

    def _act_giveup(self, seat: int, action: Action, now: float) -> list[Event]:
        return [{"e": "giveup", "level": self._level}, *self._lose_life(LifeLoss.GIVEUP, now)]

    def _act_quit(self, seat: int, action: Action, now: float) -> list[Event]:
        return self._finish(EndReason.QUIT)

    # -- rules -------------------------------------------------------------------

    def _remove(self, move: Move, path: list[Cell], now: float, *, helped: bool) -> list[Event]:
        (ar, ac), (br, bc) = move
        ta, tb = self._board[ar][ac], self._board[br][bc]
        assert ta is not None and tb is not None
        sides = path_sides(path, ROWS, COLS)
        if not sides <= self._sides:
            self._sides |= sides
            self._touch("margins_used")
        if ta != tb and self._pedigree:
            self._pedigree = False
            self._touch("pedigree")
        points = 0 if helped else PAIR_POINTS
        self._score += points
        remove_pair(self._board, move)
        self._touch(("board", ar, ac), ("board", br, bc), "tiles_left", "score")
        event: Event = {
            "e": "removed",
            "a": [ar, ac],
            "b": [br, bc],
            "tiles": [ta, tb],
            "path": [list(p) for p in path],
            "points": points,
            "margins": [s.value for s in SIDE_ORDER if s in sides],
            "help": helped,
        }
        if helped:
            event["helps"] = self._helps
        events = [event]
        if count_tiles(self._board) == 0:
            events += self._clear_sheet(now)
        elif not playable_pairs(self._board, match_key):
            events += [{"e": "stuck", "level": self._level}, *self._lose_life(LifeLoss.STUCK, now)]
        return events

    def _clear_sheet(self, now: float) -> list[Event]:
        internal = (
            INTERNAL_BONUS
            if not self._sides
            else sum(v for s, v in SIDE_BONUS.items() if s not in self._sides)
        )
        bonus = {
            "time": max(0, int(self._deadline - now)),
            "lives": 10 * self._lives,
            "level": 2 * self._level,
            "helps": 2 * self._helps,
            "pedigree": PEDIGREE_BONUS if self._pedigree else 0,
            "internal": internal,
        }
        total = sum(bonus.values())
        self._score += total
        self._sheets += 1
        self._touch("score", "sheets", "level", "helps")
        events: list[Event] = [
            {"e": "sheet_clear", "level": self._level, "bonus": bonus, "points": total}
        ]
        self._level += 1
        if earns_help(self._level) and self._helps < MAX_HELPS:
            self._helps += 1
        return events + self._new_sheet(now)

    def _lose_life(self, reason: LifeLoss, now: float) -> list[Event]:
        self._lives -= 1
        self._touch("lives")
        events: list[Event] = [{"e": "life_lost", "reason": reason.value, "lives": self._lives}]
        if self._lives == 0:
            return events + self._finish(EndReason.LIVES)
        return events + self._new_sheet(now)

    def _finish(self, reason: EndReason) -> list[Event]:
        self._end = reason
        self._touch("end", "deadline")
        return [
            {
                "e": "game_over",
                "reason": reason.value,
                "score": self._score,
                "level": self._level,
                "sheets": self._sheets,
            }
        ]

    def _new_sheet(self, now: float) -> list[Event]:
        board, solution = deal_sheet(self._level, self.rng)
        self._lay_sheet(board, solution, now + sheet_seconds(self._level))
        return [
            {
                "e": "sheet",
                "level": self._level,
                "sheet_time": sheet_seconds(self._level),
                "deadline": self._deadline,
                "helps": self._helps,
                "lives": self._lives,
                "difficulty": self._difficulty.score,
            }
        ]


# The handler table is set after the class, not in its body: a class body compiled by
# mypyc (the compiled build, tilehall.server.build) cannot name its own methods.
# Each field of the view read alone (Game.state_fields), in the view's order.
MatchIt.state_fields = {
    "rows": lambda game, seat: ROWS,
    "cols": lambda game, seat: COLS,
    "board": lambda game, seat: game._view_rows(game._board),
    "level": lambda game, seat: game._level,
    "lives": lambda game, seat: game._lives,
    "helps": lambda game, seat: game._helps,
    "score": lambda game, seat: game._score,
    "sheets": lambda game, seat: game._sheets,
    "tiles_left": lambda game, seat: count_tiles(game._board),
    "sheet_time": lambda game, seat: sheet_seconds(game._level),
    "deadline": lambda game, seat: game.next_deadline(),
    "now": lambda game, seat: game._now,
    "time_left": lambda game, seat: (
        max(0.0, game._deadline - game._now) if game._end is None else 0.0
    ),
    "pedigree": lambda game, seat: game._pedigree,
    "margins_used": lambda game, seat: [s.value for s in SIDE_ORDER if s in game._sides],
    "difficulty": lambda game, seat: game._difficulty.score,
    "end": lambda game, seat: None if game._end is None else game._end.value,
}

MatchIt.actions = action_table(
    ActionSpec(
        do="pair",
        handler=MatchIt._act_pair,
        fields=(
            cell_field("a", ROWS, COLS, "one tile of the pair"),
            cell_field("b", ROWS, COLS, "the other tile"),
        ),
        doc="remove two matching tiles (+2), or pay 1 when no path joins them",
    ),
    ActionSpec(
        do="highlight",
        handler=MatchIt._act_highlight,
        fields=(cell_field("at", ROWS, COLS, "a tile"),),
        doc="pay 4 to see every tile matching the one at 'at'",
    ),
    ActionSpec(do="help", handler=MatchIt._act_help, doc="spend a help: a pair is removed for you"),
    ActionSpec(
        do="giveup",
        handler=MatchIt._act_giveup,
        doc="abandon the sheet: a life, then the same level on a new sheet",
    ),
    ActionSpec(do="quit", handler=MatchIt._act_quit, doc="end the game; the score still counts"),
    *PAUSE_ACTIONS,
    UNDO_ACTION,
)


def _check_board(board: Sequence[Sequence[int | None]]) -> Board:
    """A copy of a sheet given to :meth:`MatchIt.from_position`, once it is checked."""
    if len(board) != ROWS or any(len(row) != COLS for row in board):
        raise PositionError(f"a Match-It sheet has {ROWS} rows of {COLS} cells")
    tiles = 0
    for row in board:
        for t in row:
            if t is None:
                continue
            if isinstance(t, bool) or not isinstance(t, int) or t not in KIND_COUNTS:
                raise PositionError(f"tile ids are 0 to {len(KIND_COUNTS) - 1}, not {t!r}")
            tiles += 1
    if not tiles:
        raise PositionError("a sheet in play holds at least one tile")
    return [list(row) for row in board]
