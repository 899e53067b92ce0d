"""The Shisen-Sho bot shared by Match-It and LinkSame: clear the board with the solver.

A bot sees the seat's view: the board, and for LinkSame the stage (hence the
movement rule). It asks :func:`tilehall.server.games.shisensho.solve` for a clearing and
plays its first pair, one pair per :meth:`ShisenBot.choose`. The rest of the
clearing is kept as a plan: while the next view shows exactly the board the
plan expects, the next pair comes without searching again. A board the solver
cannot clear in its budget still gets a playable pair, chosen at random.

``budget`` seconds become a node budget (:data:`NODES_PER_SECOND`), so the bot
stays deterministic for a given view and seed; a node is well under a
millisecond on the boards these games deal.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from typing import Any

from tilehall.protocol import Status
from tilehall.server.bots.base import Bot
from tilehall.server.games.shisensho import (
    Board,
    MatchKey,
    Move,
    Movement,
    playable_pairs,
    remove_pair,
    solve,
)

__all__ = ["NODES_PER_SECOND", "ShisenBot"]

NODES_PER_SECOND = 2_500
"""Solver nodes granted per second of ``budget`` (at least :data:`MIN_NODES`); a node costs
0.1 ms on a sliding board and up to 0.4 ms on a static one, so this errs on the short side."""
MIN_NODES = 300


def _frozen(board: Sequence[Sequence[int | None]]) -> tuple[tuple[int | None, ...], ...]:
    return tuple(tuple(row) for row in board)


class ShisenBot(Bot):
    """Plays solver pairs; subclasses say how tiles match, how they slide, what to do when stuck."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._plan: list[Move] = []
        self._expect: tuple[tuple[int | None, ...], ...] | None = None

    @abstractmethod
    def match_key(self) -> MatchKey:
        """The game's match classes."""

    @abstractmethod
    def rule(self, view: dict[str, Any]) -> Movement | None:
        """The movement rule in force in ``view`` (None: nothing slides)."""

    @abstractmethod
    def stuck_action(self, view: dict[str, Any]) -> dict[str, Any] | None:
        """What to do when no pair is playable (the games normally prevent it)."""

    def choose(self, view: dict[str, Any]) -> dict[str, Any] | None:
        """The next pair to remove, or None when the game is over or not this seat's."""
        if view.get("status") != Status.PLAYING or view.get("to_move") != view.get("seat"):
            return None
        board: Board = [list(row) for row in view["board"]]
        rule = self.rule(view)
        move = self._planned(board)
        if move is None:
            move = self._search(board, rule)
        if move is None:
            self._plan, self._expect = [], None
            return self.stuck_action(view)
        after = [row[:] for row in board]
        remove_pair(after, move, rule)
        self._expect = _frozen(after)
        a, b = move
        return {"do": "pair", "a": list(a), "b": list(b)}

    def _planned(self, board: Board) -> Move | None:
        if self._plan and self._expect == _frozen(board):
            return self._plan.pop(0)
        self._plan = []
        return None

    def _search(self, board: Board, rule: Movement | None) -> Move | None:
        nodes = max(MIN_NODES, int(self.budget * NODES_PER_SECOND))
        solution = solve(board, self.match_key(), rule, node_limit=nodes, rng=self.rng)
        if solution.solved and solution.moves:
            self._plan = list(solution.moves[1:])
            return solution.moves[0]
        pairs = playable_pairs(board, self.match_key())
        if not pairs:
            return None
        return pairs[self.rng.randrange(len(pairs))]
