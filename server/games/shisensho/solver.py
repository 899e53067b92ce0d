"""Whether a board can be cleared, and a clearing when it can.

A depth-first search on the bitboard with a memo of dead ends and Luby
restarts. It counts nodes rather than reading a clock, so a budget gives the
same answer on every machine.
"""

from __future__ import annotations

import enum
import itertools
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from tilehall.server.games.shisensho.bitboard import (
    Geometry,
    Position,
    Reach,
    bits,
    clear_class,
    connecting_pairs,
    connecting_pairs_after,
    joined,
)
from tilehall.server.games.shisensho.board import MatchKey, Move, identity_key
from tilehall.server.games.shisensho.movement import Movement

__all__ = ["Outcome", "Solution", "solve"]


class Outcome(enum.StrEnum):
    """What the solver could tell about a board."""

    SOLVED = "solved"
    """``moves`` clears the board."""
    STUCK = "stuck"
    """Proved: no order of removals clears the board."""
    UNKNOWN = "unknown"
    """The node budget ran out first."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Solution:
    """The solver's answer: the outcome, a clearing sequence when solved, nodes spent."""

    outcome: Outcome
    moves: tuple[Move, ...] = ()
    nodes: int = 0

    @property
    def solved(self) -> bool:
        return self.outcome is Outcome.SOLVED


class _OutOfBudget(Exception):
    pass


class _Search:
    """Depth-first search with backtracking and a memo of positions known to be dead ends.

    On a static board (Match-It, LinkSame stage 0) whole classes that can be
    cleared at once are cleared without branching (see :func:`clear_class`),
    the playable pairs are updated rather than recomputed after a removal, and
    a position is identified by its empty cells alone. On a sliding board no
    move is safe in that way: every pair is a branch, tried lazily (classes
    with fewer tiles left first) so that the usual straight run to the end
    looks at few pairs, and a position is its full layout.
    """

    def __init__(self, rule: Movement | None, rng: random.Random | None) -> None:
        self.rule = rule if rule is not None and not rule.static else None
        self.rng = rng
        self.nodes = 0
        self.limit = 0
        self.dead: set[object] = set()
        self.pairs_of: dict[int, list[tuple[int, int]]] = {}
        # pairs of tiles by class mask: sliding boards meet the same masks again and again

    def run(self, pos: Position) -> list[tuple[int, int]] | None:
        """Clear ``pos``; None if no order of removals can."""
        return self._static(pos, None) if self.rule is None else self._sliding(pos)

    def _enter(self) -> None:
        self.nodes += 1
        if self.nodes > self.limit:
            raise _OutOfBudget

    def _static(
        self, pos: Position, moves: list[tuple[int, int]] | None
    ) -> list[tuple[int, int]] | None:
        if not pos.masks:
            return []
        key = pos.empty
        if key in self.dead:
            return None
        self._enter()
        if moves is None:
            moves = connecting_pairs(pos)
        forced = self._forced(pos, moves)
        if forced:
            branches = [forced]
        else:
            branches = [[m] for m in moves]
            if self.rng is not None:
                self.rng.shuffle(branches)
        for play in branches:
            child = pos.copy()
            for p, q in play:
                child.remove(p, q, None)
            rest = self._static(child, connecting_pairs_after(child, moves, play))
            if rest is not None:
                return play + rest
        self.dead.add(key)
        return None

    def _sliding(self, pos: Position) -> list[tuple[int, int]] | None:
        if not pos.masks:
            return []
        key = pos.layout_key()
        if key in self.dead:
            return None
        self._enter()
        for p, q in self._lazy_moves(pos):
            child = pos.copy()
            child.remove(p, q, self.rule)
            rest = self._sliding(child)
            if rest is not None:
                return [(p, q), *rest]
        self.dead.add(key)
        return None

    def _lazy_moves(self, pos: Position) -> Iterator[tuple[int, int]]:
        """Playable pairs, found one at a time, classes with fewer tiles left first.

        Finishing a class keeps other classes' four tiles as spare partners;
        it cuts backtracking on sliding boards noticeably.
        """
        reach = Reach(pos.geo, pos.empty)
        classes = list(pos.masks.values())
        if self.rng is not None:
            self.rng.shuffle(classes)
        classes.sort(key=int.bit_count)
        pairs_of = self.pairs_of
        for mask in classes:
            pairs = pairs_of.get(mask)
            if pairs is None:
                found = list(bits(mask))
                pairs = pairs_of[mask] = [
                    (p, q) for n, p in enumerate(found) for q in found[n + 1 :]
                ]
            for p, q in pairs:
                if reach.joined(p, q):
                    yield (p, q)

    def _forced(self, pos: Position, moves: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Whole classes that can go at once (see :func:`clear_class`), as pairs in order."""
        grid, geo, empty = pos.grid, pos.geo, pos.empty
        movable: dict[int, int] = {}
        moves_of: dict[int, list[tuple[int, int]]] = {}
        for p, q in moves:
            k = grid[p]
            movable[k] = movable.get(k, 0) | (1 << p) | (1 << q)
            moves_of.setdefault(k, []).append((p, q))
        forced: list[tuple[int, int]] = []
        for k, touched in movable.items():
            mask = pos.masks[k]
            # In a big class (Match-It's eight flowers) the search for an order
            # is costly, so it is only tried when every tile has a pair now.
            if touched != mask and mask.bit_count() > 4:
                continue
            cleared = self._clear_now(geo, empty, mask, moves_of[k])
            if cleared:
                forced.extend(cleared)
        return forced

    @staticmethod
    def _clear_now(
        geo: Geometry, empty: int, mask: int, moves: list[tuple[int, int]]
    ) -> list[tuple[int, int]] | None:
        """:func:`clear_class`, with the common small classes answered from ``moves``."""
        size = mask.bit_count()
        if size == 2:
            return moves[:1]
        if size == 4:
            for p, q in moves:
                both = (1 << p) | (1 << q)
                s, t = bits(mask & ~both)
                if joined(geo, empty | both, s, t):
                    return [(p, q), (s, t)]
            return None
        return clear_class(geo, empty, mask)


def _luby(i: int) -> int:
    """The ``i``-th term (from 1) of Luby's restart sequence 1, 1, 2, 1, 1, 2, 4, 1..."""
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    if i == (1 << k) - 1:
        return 1 << (k - 1)
    return _luby(i - (1 << (k - 1)) + 1)


def solve(
    board: Sequence[Sequence[int | None]],
    key: MatchKey = identity_key,
    rule: Movement | None = None,
    *,
    node_limit: int = 20_000,
    rng: random.Random | None = None,
) -> Solution:
    """Decide whether ``board`` can be cleared, removing pairs under ``rule``'s sliding.

    The search restarts with a fresh move order after ``u, u, 2u, u, u, 2u,
    4u...`` nodes (Luby's sequence; ``u`` is a little more than the pairs on
    the board), keeping what it learnt about dead ends: a search that took a
    wrong turn early can spend long below it, and a restart is usually the
    quickest way out. A restart that finishes its whole tree without a
    solution proves the board stuck.

    Args:
        board: the position (not modified).
        key: the game's match classes.
        rule: the sliding rule; None or a static rule for boards that never move.
        node_limit: positions to expand in all before giving up with ``UNKNOWN``.
        rng: orders the moves tried (a hint or a bot that should not always
            pick the first pair); None starts in reading order and reshuffles
            from a fixed seed on restarts, so the answer never varies.

    Returns:
        The outcome and, when solved, the moves in order as board cells
        (positions after each previous move's sliding).
    """
    pos = Position.from_board(board, key)
    search = _Search(rule, rng)
    order = rng if rng is not None else random.Random(0)
    # One straight run to the end takes a node per pair; restarts get a few runs' worth.
    unit = pos.tiles_left() // 2 + 10
    found: list[tuple[int, int]] | None = None
    for attempt in itertools.count(1):
        search.limit = min(node_limit, search.nodes + unit * _luby(attempt))
        try:
            found = search.run(pos)
        except _OutOfBudget:
            if search.nodes >= node_limit:
                return Solution(outcome=Outcome.UNKNOWN, nodes=search.nodes)
            search.rng = order
            continue
        break
    if found is None:
        return Solution(outcome=Outcome.STUCK, nodes=search.nodes)
    geo = pos.geo
    moves = tuple((geo.point(p), geo.point(q)) for p, q in found)
    return Solution(outcome=Outcome.SOLVED, moves=moves, nodes=search.nodes)
