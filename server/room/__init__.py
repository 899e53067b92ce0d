"""A room: the only authority for one game, as a state machine and its asyncio shell.

- :mod:`.lifecycle`: its phases and the one table of moves between them;
- :mod:`.events`: what goes into its core (events) and comes out (effects);
- :mod:`.core`: every decision a room makes, without I/O;
- :mod:`.shell`: the asyncio around the core: frames, journal, timers, bots' threads;
- :mod:`.summary`, :mod:`.seating`, :mod:`.outcome`: what the core reads and writes of
  seats, listings and results; :mod:`.replays`: finished games, position by position.
"""

from tilehall.server.room.core import RoomCore
from tilehall.server.room.lifecycle import Phase
from tilehall.server.room.shell import Room, RoomServices

__all__ = ["Phase", "Room", "RoomCore", "RoomServices"]
