"""Today's deal as the terminal and pygame clients see it: which games have one, the day's
table, and the result to share once a game of it ends.

The words shared are the server's (``scores.share``, one function for every client,
with the server's link to the deal); this module only asks for them at the right
time: the result of a game is kept just after its last update is sent, so the
table asked for at once may not hold it yet.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

__all__ = ["daily_games", "day_before", "day_table", "room_day", "try_words"]

Request = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
"""Sends one request and returns its reply (a connection's ``request``)."""

RESULT_WAIT = 5.0
"""Seconds to wait for a game's result to reach its day's table."""


def daily_games(games: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The games of ``welcome.games`` that offer today's deal, in the server's order."""
    return [name for name, game in games.items() if game.get("daily")]


def day_before(day: str) -> str:
    """The day before ``day`` (``YYYY-MM-DD``): yesterday's deal, whose games may be replayed."""
    return (dt.date.fromisoformat(day) - dt.timedelta(days=1)).isoformat()


def room_day(summary: Mapping[str, Any] | None) -> str | None:
    """The day whose deal a room plays (its summary's ``daily``); None for any other room."""
    day = (summary or {}).get("daily")
    return str(day) if day else None


def try_words(created: Mapping[str, Any]) -> str:
    """What a player is told before a game of today's deal starts: whether it counts."""
    day = created.get("daily", "today")
    if created.get("resumed"):
        return f"Back to your game of the deal of {day}."
    if created.get("practice"):
        return f"Practice: your try of the deal of {day} is played; this game is on no table."
    return f"The deal of {day}: this game is your try, it counts on the day's table."


async def day_table(
    request: Request, game: str, day: str | None = None, *, result: bool = False
) -> dict[str, Any]:
    """The ``scores`` reply of ``game``'s table of ``day`` (None: today's).

    ``result``: a game of that day just ended; wait (up to :data:`RESULT_WAIT` s)
    until the table holds the player's result, with its ``share``. A practice game
    never gets there: the reply is then the table without one.
    """
    msg = {"t": "scores", "game": game, "table": f"daily-{day}" if day else "daily"}
    reply = await request(msg)
    waited = 0.0
    while result and "share" not in reply and waited < RESULT_WAIT:
        await asyncio.sleep(0.1)
        waited += 0.1
        reply = await request(msg)
    return reply
