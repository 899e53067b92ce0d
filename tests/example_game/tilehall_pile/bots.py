"""Pile's COMP players, by level: a bot sees only its seat's view, as a remote player does."""

from __future__ import annotations

from typing import Any

from tilehall.server.bots import Bot

__all__ = ["BOTS", "Canny", "Hasty"]


class Hasty(Bot):
    """Takes a number of counters at random."""

    game = "pile"
    level = "easy"

    def choose(self, view: dict[str, Any]) -> dict[str, Any] | None:
        if view.get("to_move") != view.get("seat") or view.get("status") != "playing":
            return None
        return {"do": "take", "count": self.rng.randint(1, min(view["most"], view["left"]))}


class Canny(Bot):
    """Leaves one more than a multiple of ``most + 1`` when it can: then it never loses."""

    game = "pile"
    level = "normal"

    def choose(self, view: dict[str, Any]) -> dict[str, Any] | None:
        if view.get("to_move") != view.get("seat") or view.get("status") != "playing":
            return None
        left, most = view["left"], view["most"]
        count = (left - 1) % (most + 1)
        return {"do": "take", "count": count or 1}


BOTS: dict[str, type[Bot]] = {"easy": Hasty, "normal": Canny}
"""Each level's bot (the entry point ``tilehall.bots``: ``pile``)."""
