"""The states a room goes through, as every view and room listing names them.

A room is ``waiting`` until every seat is filled, ``playing`` from the start
until its engine says the game is over, then ``over`` for good. The engine only
ever reports ``playing`` or ``over``; ``waiting`` belongs to the room, which
has no engine yet. The values are the strings on the wire (``view.status``,
``rooms[].status``); clients and bots compare against these members, never
against bare strings.
"""

from __future__ import annotations

import enum

__all__ = ["Status"]


class Status(enum.StrEnum):
    """A room's lifecycle, as shown in every view: ``waiting`` -> ``playing`` -> ``over``."""

    WAITING = "waiting"
    """The room waits for players; there is no game yet."""
    PLAYING = "playing"
    """The game is on."""
    OVER = "over"
    """The game has ended; the view carries its ``result``."""
