"""Ishido COMP players.

Each reads only the seat's view: the board, the current stone, the legal squares,
the 4-way count and the rules in force. The pouch order is hidden, but its
contents are not: they are the full set minus the stones on the board and in
hand, so a bot may reason about which stones are still to come.

* ``greedy`` plays exactly what the help button shows: the square where the
  current stone earns the most, ties to more neighbours, then row-major order.
* ``normal`` adds to that immediate score an estimate of the future: it avoids
  moves that leave some stone still to come with few or no squares to go to
  (a stuck stone ends the game and forfeits the end bonus), it values open
  4-way holes that a coming stone can fill, and it avoids killing squares.
* ``hard`` looks one draw ahead. Its evaluation credits each open 4-way hole
  that an unseen stone fits with the bonus and the doubling of later points it
  will bring, and each three-neighbour square with the share of unseen stones
  that could close it into such a hole; it charges the stones still to come
  that would fit few or no squares. Its best few squares by that evaluation
  are then searched over the next stone: for each kind still to come, weighted
  by its copies in the pouch, the best square for it (or the loss of a stuck
  game). No randomness; the think budget only cuts the search short.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, ClassVar

from tilehall.protocol import Status
from tilehall.server.bots.base import Bot
from tilehall.server.games.ishido import (
    COLOURS,
    COLS,
    DIRECTIONS,
    ROWS,
    SYMBOLS,
    Board,
    Stone,
    fit_mask,
    fits,
    fourway_bonus,
    full_set,
    is_ring,
    neighbours,
    placement_value,
    stone_of,
)

__all__ = ["BOTS", "GreedyBot", "HardBot", "NormalBot"]

Square = tuple[int, int]


def _my_turn(view: dict[str, Any]) -> bool:
    return (
        view.get("status") == Status.PLAYING
        and view.get("seat") is not None
        and view.get("to_move") == view.get("seat")
        and bool(view.get("legal"))
        and view.get("current") is not None
    )


def _board(view: dict[str, Any]) -> Board:
    return [[None if s is None else stone_of(*s) for s in row] for row in view["board"]]


def _key(value_total: int, count: int, at: Square) -> tuple[int, int, int, int]:
    """Sort key of the help: most points, then most neighbours, then row-major."""
    return (-value_total, -count, at[0], at[1])


class GreedyBot(Bot):
    """Plays the help's square: the most points now, nothing else considered."""

    game: ClassVar[str] = "ishido"
    level: ClassVar[str] = "greedy"

    def choose(self, view: dict[str, Any]) -> dict[str, Any] | None:
        """Return the help's square for the current stone, or None when not to move."""
        if not _my_turn(view):
            return None
        board = _board(view)
        best = min(
            (tuple(at) for at in view["legal"]),
            key=lambda at: self._rank(board, at, view),
        )
        return {"do": "place", "at": list(best)}

    @staticmethod
    def _rank(board: Board, at: Sequence[int], view: dict[str, Any]) -> tuple[int, int, int, int]:
        r, c = at
        count = len(neighbours(board, r, c))
        value = placement_value(r, c, count, view["fourways"], view["scoring"])
        return _key(value.total, count, (r, c))


@lru_cache(maxsize=1 << 16)
def _fits_cached(stone: Stone, around: tuple[tuple[int, Stone], ...], touching: bool) -> bool:
    return fits(stone, around, touching=touching)


class _Outlook:
    """Where each stone still to come could go, and how a placement changes that.

    Only a placed square and its empty neighbours change when a stone goes down,
    so each candidate is scored by updating a few squares, not the whole board.
    """

    def __init__(self, board: Board, unseen: Counter[Stone], touching: bool) -> None:
        self.board = board
        self.unseen = unseen
        self.kinds = sorted(unseen)
        self.touching = touching
        self.fit: dict[Square, frozenset[Stone]] = {}
        self.mobility: Counter[Stone] = Counter()
        for r in range(ROWS):
            for c in range(COLS):
                if board[r][c] is None and neighbours(board, r, c):
                    here = self._fitting(r, c)
                    self.fit[(r, c)] = here
                    self.mobility.update(here)

    def _fitting(self, r: int, c: int) -> frozenset[Stone]:
        around = tuple(neighbours(self.board, r, c))
        if not around:
            return frozenset()
        return frozenset(k for k in self.kinds if _fits_cached(k, around, self.touching))

    def after(self, at: Square, stone: Stone) -> tuple[Counter[Stone], list[tuple[Square, int]]]:
        """Mobility of every coming stone after ``stone`` goes on ``at``, and the
        changed empty squares with how many coming stones fit there."""
        r, c = at
        mobility = Counter(self.mobility)
        mobility.subtract(self.fit.get(at, frozenset()))
        changed: list[tuple[Square, int]] = []
        self.board[r][c] = stone
        try:
            for _, dr, dc in DIRECTIONS:
                rr, cc = r + dr, c + dc
                if 0 <= rr < ROWS and 0 <= cc < COLS and self.board[rr][cc] is None:
                    mobility.subtract(self.fit.get((rr, cc), frozenset()))
                    now = self._fitting(rr, cc)
                    mobility.update(now)
                    changed.append(((rr, cc), sum(self.unseen[k] for k in now)))
        finally:
            self.board[r][c] = None
        return mobility, changed


class NormalBot(Bot):
    """Immediate score plus an estimate of how playable the board stays.

    The weights were set by playing seeded games (see ``bench/ishido_bot.py``);
    one evaluation touches at most five squares per candidate, so a move costs a
    few milliseconds, well inside any budget, and needs no clock.
    """

    game: ClassVar[str] = "ishido"
    level: ClassVar[str] = "normal"

    stuck_penalty: ClassVar[float] = 60.0
    """Per coming stone that would fit nowhere right now."""
    scarce_penalty: ClassVar[tuple[float, ...]] = (0.0, 14.0, 6.0, 3.0, 1.0)
    """Per coming stone by how many squares it fits (index 1..4); more is safe."""
    dead_penalty: ClassVar[float] = 8.0
    """Per empty square touched by the move that no coming stone can fill."""
    hole_reward: ClassVar[float] = 1.0
    """Share of the next 4-way's worth credited for an open hole a coming stone fits."""
    near_hole_reward: ClassVar[float] = 0.05
    """Share of the next 4-way's worth credited for a fillable three-neighbour square."""
    scale_risk: ClassVar[bool] = True
    """Weigh risks by the current points multiplier (what a lost stone would have earned)."""

    def choose(self, view: dict[str, Any]) -> dict[str, Any] | None:
        """Return the best-looking legal square for the current stone, or None."""
        if not _my_turn(view):
            return None
        board = _board(view)
        stone = stone_of(*view["current"])
        unseen = Counter(full_set())
        unseen.subtract(s for row in board for s in row if s is not None)
        unseen[stone] -= 1
        unseen = +unseen
        outlook = _Outlook(board, unseen, view["four_way"] == "touching")
        best: tuple[float, tuple[int, int, int, int]] | None = None
        choice: Square | None = None
        for r, c in (tuple(at) for at in view["legal"]):
            count = len(neighbours(board, r, c))
            value = placement_value(r, c, count, view["fourways"], view["scoring"])
            fourways = view["fourways"] + value.fourway
            score = value.total + self._future((r, c), stone, outlook, fourways, view)
            key = (-score, _key(value.total, count, (r, c)))
            if best is None or key < best:
                best, choice = key, (r, c)
        assert choice is not None
        return {"do": "place", "at": list(choice)}

    def _future(
        self, at: Square, stone: Stone, outlook: _Outlook, fourways: int, view: dict[str, Any]
    ) -> float:
        """Estimated worth of the position after the move, relative to a stone's points."""
        scale = float(1 << fourways) if view["scoring"] == "modern" and self.scale_risk else 1.0
        mobility, changed = outlook.after(at, stone)
        risk = 0.0
        for kind, copies in outlook.unseen.items():
            m = mobility[kind]
            if m <= 0:
                risk += self.stuck_penalty * copies
            elif m < len(self.scarce_penalty):
                risk += self.scarce_penalty[m] * copies
        worth = 0.0
        next_bonus = placement_value(1, 1, 4, fourways, view["scoring"]).total
        for (r, c), fitting in changed:
            if fitting == 0:
                worth -= self.dead_penalty
            elif len(neighbours(outlook.board, r, c)) == 3 and not is_ring(r, c):
                # The move's own stone is not on the outlook board: a count of 3
                # here means the move made this square a 4-way hole.
                worth += self.hole_reward * next_bonus * min(1.0, fitting / 2)
            elif len(neighbours(outlook.board, r, c)) == 2 and not is_ring(r, c):
                worth += self.near_hole_reward * next_bonus * min(1.0, fitting / 2)
        return worth - risk * scale


_SQUARES = ROWS * COLS
_ADJ: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple(
        (d, (r + dr) * COLS + c + dc)
        for d, (_, dr, dc) in enumerate(DIRECTIONS)
        if 0 <= r + dr < ROWS and 0 <= c + dc < COLS
    )
    for r in range(ROWS)
    for c in range(COLS)
)
"""``_ADJ[square]``: the on-board neighbours of a square (``row * COLS + col``) as
``(direction, square)``, in direction order."""
_INTERIOR: tuple[bool, ...] = tuple(not is_ring(sq // COLS, sq % COLS) for sq in range(_SQUARES))


def _bits(mask: int) -> list[int]:
    """The kinds (bit numbers) in ``mask``."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _unseen_masks(unseen: list[int]) -> tuple[int, int]:
    """The kinds with a copy still to come, and those with two, as bit masks."""
    once = twice = 0
    for k, n in enumerate(unseen):
        if n > 0:
            once |= 1 << k
            if n > 1:
                twice |= 1 << k
    return once, twice


_fit = lru_cache(maxsize=1 << 16)(fit_mask)
""":func:`fit_mask` remembered: the search meets the same few neighbourhoods again and again."""


class _Frontier:
    """The empty squares next to a stone, each with the kinds that fit there.

    As the engine keeps it (:func:`fit_mask`): a square's coded neighbours
    (``direction << 6 | kind``) and the set of kinds that fit, as bits. A move
    changes the placed square and its empty neighbours only, so trying one
    copies two small dicts and recomputes at most four masks.
    """

    __slots__ = ("around", "kinds", "masks", "touching")

    def __init__(
        self,
        kinds: list[int],
        around: dict[int, tuple[int, ...]],
        masks: dict[int, int],
        touching: bool,
    ) -> None:
        self.kinds = kinds
        self.around = around
        self.masks = masks
        self.touching = touching

    @classmethod
    def of(cls, board: Board, touching: bool) -> _Frontier:
        """The frontier of a view's board, counted square by square."""
        kinds = [-1] * _SQUARES
        for r, row in enumerate(board):
            for c, stone in enumerate(row):
                if stone is not None:
                    kinds[r * COLS + c] = stone.colour * SYMBOLS + stone.symbol
        around: dict[int, tuple[int, ...]] = {}
        for sq in range(_SQUARES):
            if kinds[sq] < 0:
                coded = tuple(d << 6 | kinds[n] for d, n in _ADJ[sq] if kinds[n] >= 0)
                if coded:
                    around[sq] = coded
        masks = {sq: fit_mask(coded, touching) for sq, coded in around.items()}
        return cls(kinds, around, masks, touching)

    def play(self, sq: int, kind: int) -> _Frontier:
        """The frontier after ``kind`` goes on ``sq`` (this one is left as it was)."""
        kinds = self.kinds[:]
        kinds[sq] = kind
        around = dict(self.around)
        masks = dict(self.masks)
        del around[sq], masks[sq]
        for d, n in _ADJ[sq]:
            if kinds[n] < 0:
                coded = tuple(sorted((*around.get(n, ()), (d ^ 1) << 6 | kind)))
                around[n] = coded
                masks[n] = _fit(coded, self.touching)
        return _Frontier(kinds, around, masks, self.touching)


class HardBot(Bot):
    """Scores what a move leaves for the stones still to come, 4-way holes first,
    and searches its best few moves over the next stone.

    Every legal square is valued as its points now plus an evaluation of the
    board after it (:meth:`_evaluate`): the open 4-way holes that an unseen
    stone fits, each worth the bonus and the doubling of later points it will
    bring; the three-neighbour squares that some unseen stone could close into
    such a hole; the points still to come at the multiplier reached; and the
    risk that a stone still to come fits nowhere. The :attr:`width` best are
    then valued by :meth:`_expect`, the mean over the next stone of its best
    answer. The weights were set by playing seeded games (``bench/ishido_bot.py``;
    the search's on seeds 1000-1099, which the published figures do not use, the
    first trials of the evaluation alone on seeds 0-119). A move costs tens of
    milliseconds of CPU; ``budget`` only cuts the search short on a loaded
    machine, keeping the moves searched so far.
    """

    game: ClassVar[str] = "ishido"
    level: ClassVar[str] = "hard"

    points_per_stone: ClassVar[float] = 2.0
    """Average points (before the multiplier) of a future placement."""
    future_share: ClassVar[float] = 0.5
    """Share of the stones still to come credited at the multiplier reached: a 4-way made
    now is worth more than the same hole left open."""
    hole_share: ClassVar[tuple[float, float]] = (0.6, 0.85)
    """Share of a 4-way's worth credited for a hole that 1, or 2 or more, unseen stones fit."""
    near_share: ClassVar[float] = 1.6
    """Share of a 4-way's worth for a three-neighbour square some unseen stone could close
    into a hole, times the share of the unseen stones that could (1.6 beat 0.15-1.0)."""
    stuck_penalty: ClassVar[float] = 60.0
    """Per coming stone that would fit nowhere right now (as ``normal``)."""
    scarce_penalty: ClassVar[tuple[float, ...]] = (0.0, 14.0, 6.0, 3.0, 1.0)
    """Per coming stone by how many squares it fits (index 1..4), as ``normal``."""
    dead_penalty: ClassVar[float] = 8.0
    """Per empty square next to a stone that no coming stone fits."""
    scale_risk: ClassVar[bool] = True
    """Weigh risks by the current points multiplier (what a lost stone would have earned)."""
    width: ClassVar[int] = 6
    """How many of the best squares by the evaluation are searched over the next stone."""
    stuck_loss: ClassVar[float] = 1000.0
    """What a next stone that fits nowhere costs (the end bonus), times the multiplier."""
    budget_share: ClassVar[float] = 0.6
    """Share of ``budget`` after which no further square is searched."""

    def choose(self, view: dict[str, Any]) -> dict[str, Any] | None:
        """Return the best-valued legal square for the current stone, or None."""
        if not _my_turn(view):
            return None
        deadline = time.perf_counter() + self.budget * self.budget_share
        board = _board(view)
        stone = stone_of(*view["current"])
        kind = stone.colour * SYMBOLS + stone.symbol
        frontier = _Frontier.of(board, view["four_way"] == "touching")
        unseen = [0] * (COLOURS * SYMBOLS)
        for each in full_set():
            unseen[each.colour * SYMBOLS + each.symbol] += 1
        for k in frontier.kinds:
            if k >= 0:
                unseen[k] -= 1
        unseen[kind] -= 1
        fourways = view["fourways"]
        scoring = view["scoring"]
        left = sum(unseen)
        ranked: list[tuple[float, tuple[int, int, int, int], float, _Frontier, int]] = []
        for r, c in (tuple(at) for at in view["legal"]):
            sq = r * COLS + c
            count = len(frontier.around[sq])
            value = placement_value(r, c, count, fourways, scoring)
            after = frontier.play(sq, kind)
            f = fourways + value.fourway
            score = value.total + self._evaluate(after, unseen, f, left, scoring)
            ranked.append((-score, _key(value.total, count, (r, c)), value.total, after, f))
        ranked.sort(key=lambda entry: (entry[0], entry[1]))
        best = ranked[0][1]
        if left and len(ranked) > 1:
            searched: list[tuple[float, tuple[int, int, int, int]]] = []
            for _, key, now, after, f in ranked[: self.width]:
                if searched and time.perf_counter() > deadline:
                    break
                searched.append((-(now + self._expect(after, unseen, f, left, scoring)), key))
            best = min(searched)[1]
        return {"do": "place", "at": [best[2], best[3]]}

    def _expect(
        self, frontier: _Frontier, unseen: list[int], fourways: int, left: int, scoring: str
    ) -> float:
        """The mean over the next stone of the best that stone can then do."""
        total = 0.0
        stuck = -self.stuck_loss * (float(1 << fourways) if scoring == "modern" else 1.0)
        items = list(frontier.masks.items())
        for k, copies in enumerate(unseen):
            if not copies:
                continue
            bit = 1 << k
            unseen[k] -= 1
            best: float | None = None
            for sq, mask in items:
                if mask & bit:
                    count = len(frontier.around[sq])
                    value = placement_value(sq // COLS, sq % COLS, count, fourways, scoring)
                    after = frontier.play(sq, k)
                    v = value.total + self._evaluate(
                        after, unseen, fourways + value.fourway, left - 1, scoring
                    )
                    if best is None or v > best:
                        best = v
            unseen[k] += 1
            total += copies * (stuck if best is None else best)
        return total / left

    def _fourway_worth(self, fourways: int, left: int, scoring: str) -> float:
        """What the next 4-way adds: its bonus, and (modern) the doubling of the points
        the stones after it earn."""
        bonus = float(fourway_bonus(fourways))
        if scoring != "modern":
            return bonus
        return bonus + self.points_per_stone * (1 << fourways) * left / 2

    def _evaluate(
        self, frontier: _Frontier, unseen: list[int], fourways: int, left: int, scoring: str
    ) -> float:
        """Worth of the position after a move, in points, for the stones still to come.

        Sets of kinds are bit masks; how many squares each kind fits is counted
        for all kinds at once, in three bit planes and an overflow plane (a
        kind's count is ``ones + 2 twos + 4 fours`` below 8).
        """
        unseen_mask, twice_mask = _unseen_masks(unseen)
        ones = twos = fours = over = 0
        holes: list[float] = []
        near = 0
        dead = 0
        around = frontier.around
        for sq, mask in frontier.masks.items():
            fit = mask & unseen_mask
            if not fit:
                dead += 1
                continue
            carry = ones & fit
            ones ^= fit
            carry, twos = twos & carry, twos ^ carry
            carry, fours = fours & carry, fours ^ carry
            over |= carry
            n = len(around[sq])
            if n == 4:
                copies = fit.bit_count() + (fit & twice_mask).bit_count()
                holes.append(self.hole_share[min(copies, 2) - 1])
            elif n == 3 and _INTERIOR[sq]:
                near += self._closable(frontier, sq, unseen, unseen_mask)
        worth = 0.0
        f = fourways
        for share in sorted(holes, reverse=True):
            worth += share * self._fourway_worth(f, left, scoring)
            f += 1
        worth += self.near_share * near / max(left, 1) * self._fourway_worth(f, left, scoring)
        if scoring == "modern":
            # The points still to come at the multiplier reached: a 4-way made now
            # doubles them, and a hole left open is only credited a share of that.
            worth += self.future_share * self.points_per_stone * (1 << fourways) * left
        small = ~(fours & (ones | twos)) & ~over  # at most 4 squares
        risk = 0.0
        for count, penalty in enumerate((self.stuck_penalty, *self.scarce_penalty[1:])):
            kinds = unseen_mask & small
            kinds &= ones if count & 1 else ~ones
            kinds &= twos if count & 2 else ~twos
            kinds &= fours if count & 4 else ~fours
            if kinds:
                risk += penalty * (kinds.bit_count() + (kinds & twice_mask).bit_count())
        scale = float(1 << fourways) if scoring == "modern" and self.scale_risk else 1.0
        return worth - risk * scale - self.dead_penalty * dead

    @staticmethod
    def _closable(frontier: _Frontier, sq: int, unseen: list[int], unseen_mask: int) -> int:
        """How many unseen stones could go on the open side of three-neighbour ``sq``
        and leave it a hole that some other unseen stone fits."""
        coded = frontier.around[sq]
        taken = {code >> 6 for code in coded}
        d, side = next((d, n) for d, n in _ADJ[sq] if d not in taken)
        side_mask = frontier.masks.get(side, 0) & unseen_mask
        count = 0
        for k in _bits(side_mask):
            closed = tuple(sorted((*coded, (d ^ 1) << 6 | k)))
            rest = unseen_mask if unseen[k] > 1 else unseen_mask & ~(1 << k)
            if _fit(closed, frontier.touching) & rest:
                count += unseen[k]
        return count


BOTS: dict[str, type[Bot]] = {"normal": NormalBot, "greedy": GreedyBot, "hard": HardBot}
