"""Membership: ``join``, ``watch``, ``leave``, ``act``, ``chat``, and a connection's end.

Each goes to its room (:class:`~tilehall.server.room.Room`), whose core seats,
enters and answers: a newcomer is given the committed view and seq, once no
change is in flight.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from tilehall.protocol import ErrorCode, ProtocolError, encode
from tilehall.server.lobby.listing import Listing
from tilehall.server.member import Member
from tilehall.server.names import clean_chat
from tilehall.server.room import Room

__all__ = ["Membership"]


class Membership(Listing):
    """Entering and leaving rooms, and what members send them."""

    def find_room(self, msg: dict[str, Any], player: int | None = None) -> Room:
        """The room named by ``room`` or ``code``; a private room by its id only for a player
        who holds a seat in it or made it."""
        if "code" in msg:
            room = self.by_code.get(msg["code"])
            if room is None:
                raise ProtocolError(ErrorCode.UNKNOWN_ROOM, "no room has that code")
            return room
        room = self.rooms.get(msg["room"])
        if room is None or (
            room.private
            and (player is None or (room.seat_of(player) is None and room.record.creator != player))
        ):
            raise ProtocolError(ErrorCode.UNKNOWN_ROOM, f"there is no room {msg['room'][:64]!r}")
        return room

    async def join(self, session: Member, msg: dict[str, Any]) -> dict[str, Any] | None:
        if (remote := await self._remote(session, msg)) is not None:
            await remote.join(session, msg)  # it sends the reply itself, in order
            return None
        assert session.player is not None
        room = self.find_room(msg, session.player.id)
        compact = bool(msg.get("compact", session.compact))
        reply = await room.join(session, msg.get("seat"), compact=compact, since=msg.get("seq"))
        self._entered(room)
        return reply

    async def watch(self, session: Member, msg: dict[str, Any]) -> dict[str, Any] | None:
        if (remote := await self._remote(session, msg)) is not None:
            await remote.watch(session, msg)  # it sends the reply itself, in order
            return None
        player = session.player.id if session.player else None
        room = self.find_room(msg, player)
        compact = bool(msg.get("compact", session.compact))
        reply = await room.watch(session, compact=compact, since=msg.get("seq"))
        self._entered(room)
        return reply

    def _entered(self, room: Room) -> None:
        """Someone entered ``room``: it is not left to expire, and the cluster hears of it."""
        self._keep(room)
        self._announce(room)

    async def leave(self, session: Member, msg: dict[str, Any]) -> dict[str, Any] | None:
        if (remote := await self._remote(session, msg)) is not None:
            await remote.leave(session, msg)  # it sends the reply itself, in order
            return None
        room = self._member_of(session, msg["room"])
        room.leave(session)
        self._announce(room)
        self._expire_later(room)
        return {"t": "left", "room": room.id}

    def _member_of(self, session: Member, rid: str) -> Room:
        """The room ``rid`` that ``session`` is in: ``unknown_room`` if there is no such room
        (as ``act``, ``join`` and ``watch`` say), ``not_in_room`` if it is not a member."""
        room = self.rooms.get(rid)
        if room is None:
            raise ProtocolError(ErrorCode.UNKNOWN_ROOM, f"there is no room {rid[:64]!r}")
        if session not in room.members:
            raise ProtocolError(ErrorCode.NOT_IN_ROOM, f"you are not in room {rid[:64]!r}")
        return room

    def disconnect(self, session: Member) -> None:
        for room_id in list(session.rooms):
            room = self.rooms.get(room_id)
            if room is not None:
                room.leave(session)
                self._announce(room)
                self._expire_later(room)
        if self.bus is not None:
            self.bus.disconnect(session)

    def act(self, session: Member, msg: dict[str, Any]) -> Awaitable[None]:
        """``msg``'s action, to its room's door: the room's coroutine, for the caller to await.

        Outside a cluster no room is remote, and this makes no coroutine of its
        own: the room's (:meth:`Room.act`) is handed back, one coroutine less
        alive while the move waits for its append. The answer is the actor's
        update, carrying ``re``; what the awaitable returns says nothing more.
        """
        if self.bus is not None:
            return self._act_anywhere(session, msg)
        return self._act_here(session, msg)

    def _act_here(self, session: Member, msg: dict[str, Any]) -> Awaitable[None]:
        room = self.rooms.get(msg["room"])
        if room is None:
            raise ProtocolError(ErrorCode.UNKNOWN_ROOM, f"there is no room {msg['room'][:64]!r}")
        return room.act(session, msg["action"], msg.get("seq"), msg.get("id"))

    async def _act_anywhere(self, session: Member, msg: dict[str, Any]) -> None:
        if (remote := await self._remote(session, msg)) is not None:
            await remote.act(session, msg)
            return
        await self._act_here(session, msg)

    async def chat(self, session: Member, msg: dict[str, Any]) -> None:
        if (remote := await self._remote(session, msg)) is not None:
            return await remote.chat(session, msg)
        room = self._member_of(session, msg["room"])
        text = clean_chat(msg["text"])
        if not text:
            raise ProtocolError(ErrorCode.OUT_OF_RANGE, "chat.text is empty once cleaned")
        assert session.player is not None
        said = {"t": "chat", "room": room.id, "from": session.player.name, "text": text}
        data = encode(said)
        re = msg.get("id")
        for member in room.members:
            # The sender's own copy answers its request: it carries re, as act's update does.
            member.send(
                encode({**said, "re": re}) if member is session and re is not None else data
            )
