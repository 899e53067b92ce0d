"""LinkSame bot: clears every stage with the shared Shisen-Sho solver bot."""

from __future__ import annotations

from typing import Any, ClassVar

from tilehall.server.bots.base import Bot
from tilehall.server.bots.shisensho import ShisenBot
from tilehall.server.games.shisensho import MatchKey, Movement, identity_key, movement

__all__ = ["BOTS", "LinkSameBot"]


class LinkSameBot(ShisenBot):
    """Removes a pair of a solver clearing under the stage's movement rule each turn."""

    game: ClassVar[str] = "linksame"
    level: ClassVar[str] = "normal"

    def match_key(self) -> MatchKey:
        return identity_key

    def rule(self, view: dict[str, Any]) -> Movement | None:
        return movement(view["stage"], view["rows"], view["cols"])

    def stuck_action(self, view: dict[str, Any]) -> dict[str, Any] | None:
        # The game reshuffles a stuck board by itself; asking is the fallback.
        return {"do": "shuffle"}


BOTS: dict[str, type[Bot]] = {"normal": LinkSameBot}
