"""What a load run measures, and how hard."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["PHASES", "LoadConfig"]

PHASES = ("idle", "rooms", "fanout", "journal")


@dataclass(slots=True, kw_only=True)
class LoadConfig:
    """What to measure, and how hard."""

    url: str | None = None
    """A running server; None starts one (and the baseline) in subprocesses."""
    server_pid: int | None = None
    connections: int = 1000
    rooms: int = 100
    spectators: int = 1000
    duration: float = 10.0
    """Seconds of measurement in each of the rooms and fanout phases."""
    phases: tuple[str, ...] = PHASES
    game: str = "ishido"
    level: str | None = None
    """Bot level; default the game's cheapest (easy, greedy, else normal)."""
    options: dict[str, Any] = field(default_factory=dict)
    window: int = 4
    pace: float = 0.0
    """Seconds each room's bot waits between moves (0: as fast as answered).

    Closed loops obey Little's law: latency = rooms / throughput. A thousand
    rooms moving flat out measure saturation; paced, they measure the round
    trip a player feels while the server carries that many rooms.
    """
    guesses: float = 0.0
    """Wrong-password ``hello``s a second from this address during the rooms phase (issue 29)."""
    baseline: bool = True
    compact: bool = False
    """Players and spectators ask for compact updates (patches), as the bundled clients do."""
    server_loop: str = "asyncio"
    """``asyncio`` or ``uvloop``: the event loop of the servers started here."""
    server_python: str | None = None
    """The Python that runs the Tilehall server started here (default: the harness's own):
    another virtualenv's, to measure its build (``TILEHALL_MYPYC=1``) with the same harness."""
    journal_rooms: int = 200
    journal_actions: int = 20000
    progress: bool = True
