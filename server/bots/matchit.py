"""Match-It bot: clears sheets with the shared Shisen-Sho solver bot."""

from __future__ import annotations

from typing import Any, ClassVar

from tilehall.server.bots.base import Bot
from tilehall.server.bots.shisensho import ShisenBot
from tilehall.server.games.matchit import match_key
from tilehall.server.games.shisensho import MatchKey, Movement

__all__ = ["BOTS", "MatchItBot"]


class MatchItBot(ShisenBot):
    """Removes a pair of a solver clearing each turn; gives the sheet up if it is stuck."""

    game: ClassVar[str] = "matchit"
    level: ClassVar[str] = "normal"

    def match_key(self) -> MatchKey:
        return match_key

    def rule(self, view: dict[str, Any]) -> Movement | None:
        return None  # Match-It's tiles never slide

    def stuck_action(self, view: dict[str, Any]) -> dict[str, Any] | None:
        return {"do": "giveup"}


BOTS: dict[str, type[Bot]] = {"normal": MatchItBot}
