"""Membership: ``join``, ``watch``, ``leave``, ``chat``, and a connection's end.

Each goes to its room (:class:`~tilehall.server.room.Room`), whose core seats,
enters and answers: a newcomer is given the committed view and seq, once no
change is in flight. (``act`` goes straight from the lobby's router to its
room: :mod:`.router`.)
"""

from __future__ import annotations

from typing import Any

from tilehall.protocol import ErrorCode, ProtocolError
from tilehall.server.lobby.registry import Registry
from tilehall.server.names import clean_chat
from tilehall.server.room import Room
from tilehall.server.room.member import Member

__all__ = ["Membership"]


class Membership:
    """Entering and leaving rooms, and what members say there, over the lobby's registry."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    async def join(self, session: Member, msg: dict[str, Any]) -> dict[str, Any]:
        assert session.player is not None
        room = self.registry.find_room(msg, session.player.id)
        compact = bool(msg.get("compact", session.compact))
        reply = await room.join(session, msg.get("seat"), compact=compact, since=msg.get("seq"))
        self._entered(room)
        return reply

    async def watch(self, session: Member, msg: dict[str, Any]) -> dict[str, Any]:
        player = session.player.id if session.player else None
        room = self.registry.find_room(msg, player)
        compact = bool(msg.get("compact", session.compact))
        reply = await room.watch(session, compact=compact, since=msg.get("seq"))
        self._entered(room)
        return reply

    def _entered(self, room: Room) -> None:
        """Someone entered ``room``: it does not expire, and the other nodes hear of it."""
        self.registry.keep(room)
        self.registry.announce(room)

    async def leave(self, session: Member, msg: dict[str, Any]) -> dict[str, Any]:
        room = self.registry.member_of(session, msg["room"])
        self._left(session, room)
        return {"t": "left", "room": room.id}

    def _left(self, session: Member, room: Room) -> None:
        room.leave(session)
        self.registry.announce(room)
        self.registry.expire_later(room)

    def disconnect(self, session: Member) -> None:
        """The connection is gone: it leaves every room it was in (keeping its seats)."""
        for room_id in list(session.rooms):
            room = self.registry.rooms.get(room_id)
            if room is not None:
                self._left(session, room)
        self.registry.others.disconnect(session)

    async def chat(self, session: Member, msg: dict[str, Any]) -> None:
        room = self.registry.member_of(session, msg["room"])
        text = clean_chat(msg["text"])
        if not text:
            raise ProtocolError(ErrorCode.OUT_OF_RANGE, "chat.text is empty once cleaned")
        await room.chat(session, text, msg.get("id"))
