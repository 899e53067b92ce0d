"""The other nodes, as the lobby sees them: :class:`Others`, and :class:`Alone` for one node.

A lobby of a cluster places new rooms on the least loaded node, lists the other
nodes' rooms beside its own, tells them of its rooms and of names signed out,
and lets a room go when the store names another node for it. A lobby alone does
none of that. The lobby talks to one :class:`Others` either way, so no handler
asks whether it is part of a cluster: :class:`Alone` answers as a cluster of one
would (:class:`tilehall.server.cluster.Cluster` is the other implementation).
Requests about a room another node hosts never reach the lobby's handlers: the
cluster routes them there first (:mod:`tilehall.server.cluster.routing`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from tilehall.server.room import Room
from tilehall.server.room.member import Member
from tilehall.server.store.records import RoomRecord

__all__ = ["Alone", "Others"]


class Others(Protocol):
    """What a lobby asks of, and tells, the other nodes of its cluster."""

    def place(self) -> str:
        """The node a new room should run on."""
        ...

    async def host_new_room(self, record: RoomRecord) -> RoomRecord | None:
        """Have ``record.node`` (another node) run a room just made for it; the record,
        now this node's, if it did not take it in time (run it here), else None."""
        ...

    def listed(self, game: str | None) -> list[dict[str, Any]]:
        """The other nodes' rooms (of ``game``), as their summaries."""
        ...

    def seated(self, player: int) -> list[str]:
        """Rooms on other nodes where ``player`` holds a seat."""
        ...

    def keeps_showcase(self) -> bool:
        """Whether this node is the one that keeps the server's own game going (one
        node of a cluster at a time: :mod:`tilehall.server.lobby.showcase`)."""
        ...

    def room_changed(self, room: Room) -> None:
        """A room here was added, or its summary may have changed."""
        ...

    def room_gone(self, room: Room) -> None:
        """A room here left memory (finished a while ago, closed, or let go)."""
        ...

    def room_lost(self, room: Room) -> None:
        """The store names another node for ``room``: let it go (its members follow it)."""
        ...

    def signed_out(self, player: int, token: bytes | None, code: int) -> None:
        """``player``'s connections elsewhere holding ``token`` (None: all) are to close."""
        ...

    def disconnect(self, session: Member) -> None:
        """A connection here ended: it leaves the rooms it was in elsewhere."""
        ...


class Alone:
    """The other nodes of a server that has none.

    Args:
        node: this server's node name (``--node``; empty alone).
        release: lets a room go here (a room the store gives another node is let go).
    """

    def __init__(self, node: str, release: Callable[[Room], None]) -> None:
        self._node = node
        self._release = release

    def place(self) -> str:
        return self._node

    async def host_new_room(self, record: RoomRecord) -> RoomRecord | None:
        return record  # no other node to run it: here

    def listed(self, game: str | None) -> list[dict[str, Any]]:
        return []

    def seated(self, player: int) -> list[str]:
        return []

    def keeps_showcase(self) -> bool:
        return True

    def room_changed(self, room: Room) -> None:
        return None

    def room_gone(self, room: Room) -> None:
        return None

    def room_lost(self, room: Room) -> None:
        self._release(room)

    def signed_out(self, player: int, token: bytes | None, code: int) -> None:
        return None

    def disconnect(self, session: Member) -> None:
        return None
