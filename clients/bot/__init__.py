"""The headless bot client: a bot plays rooms on a server like any remote player.

A bot is a :class:`Bot` (the same base class as the server's COMP players):
subclass it, set ``game``, implement ``choose(view) -> action or None``, and hand
it to :func:`run` (or :func:`play_games` from async code). It sees only the views
its seat receives; the server is the judge of every action.

``tilehall-bot`` (:mod:`tilehall.clients.bot.app`) plays from the command line.
"""

from __future__ import annotations

from tilehall.clients.bot.player import BotStuck, GameResult, play_room, think_in_thread
from tilehall.clients.bot.runner import level_bot, play_games, play_seat, random_name, run
from tilehall.server.bots.base import Bot

__all__ = [
    "Bot",
    "BotStuck",
    "GameResult",
    "level_bot",
    "play_games",
    "play_room",
    "play_seat",
    "random_name",
    "run",
    "think_in_thread",
]
