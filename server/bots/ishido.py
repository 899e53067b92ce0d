"""Ishido COMP players.

Both read only the seat's view: the board, the current stone, the legal squares,
the 4-way count and the rules in force. The pouch order is hidden, but its
contents are not: they are the full set minus the stones on the board and in
hand, so a bot may reason about which stones are still to come.

* ``greedy`` plays exactly what the help button shows: the square where the
  current stone earns the most, ties to more neighbours, then row-major order.
* ``normal`` adds to that immediate score an estimate of the future: it avoids
  moves that leave some stone still to come with few or no squares to go to
  (a stuck stone ends the game and forfeits the end bonus), it values open
  4-way holes that a coming stone can fill, and it avoids killing squares.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, ClassVar

from tilehall.protocol import Status
from tilehall.server.bots.base import Bot
from tilehall.server.games.ishido import (
    COLS,
    DIRECTIONS,
    ROWS,
    Board,
    Stone,
    fits,
    full_set,
    is_ring,
    neighbours,
    placement_value,
    stone_of,
)

__all__ = ["BOTS", "GreedyBot", "NormalBot"]

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


BOTS: dict[str, type[Bot]] = {"normal": NormalBot, "greedy": GreedyBot}
