"""What the lobby and a room need of whoever is in a room: the :class:`Member` protocol.

Three kinds of member exist: a WebSocket connection
(:class:`tilehall.server.net.session.Session`), a connection on another node of a
cluster (the cluster's stand-in), and, in tests, an in-memory member that keeps
the frames it was sent. Rooms and the lobby only ever use what is declared
here, so each kind can be checked against it by the type checker instead of
being cast into the shape of another.
"""

from __future__ import annotations

from typing import Any, Protocol

from tilehall.server.store.records import PlayerRecord

__all__ = ["Member"]


class Member(Protocol):
    """One participant of the lobby: a player once ``hello`` succeeded."""

    player: PlayerRecord | None
    """Who said hello on it (None before ``welcome``)."""
    rooms: dict[str, int | None]
    """Rooms it is in, with its seat there (None: watching). Rooms keep it current."""
    compact: bool
    """Its ``hello`` asked for compact updates: patches to the view it holds, not views.
    ``join``/``watch`` may say otherwise for one room."""

    @property
    def peer(self) -> str:
        """Where it comes from, for logs."""
        ...

    def send(self, data: bytes) -> None:
        """Queue one encoded frame for it, after those queued before; never waits.

        What happens to slow receivers is the member's business (a session is
        closed once its queue is full); a room is never delayed by one.
        """
        ...

    def push(self, data: bytes) -> None:
        """Send a frame broadcast to many: :meth:`send`, or cheaper when the way is clear."""
        ...

    def send_msg(self, msg: dict[str, Any]) -> None:
        """Encode and :meth:`send` one message."""
        ...

    def close(self, code: int, reason: str) -> None:
        """Ask for it to be closed with a WebSocket close code, without waiting."""
        ...
