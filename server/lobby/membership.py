"""Membership: ``join``, ``watch``, ``leave``, ``act``, ``chat``, and a connection's end.

A newcomer is given the room's committed view and seq (:meth:`Room.settled
<tilehall.server.room.Room.settled>` waits, when need be, for a move's append to
settle; never for the room's lock); a player's ``act`` goes to the room's door.
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
        room.check_open()
        seat = room.choose_seat(session.player.id, session.player.name, msg.get("seat"))
        await room.take_seat(seat, session.player.id, session.player.name)
        return await self._enter(session, room, seat, msg)

    async def watch(self, session: Member, msg: dict[str, Any]) -> dict[str, Any] | None:
        if (remote := await self._remote(session, msg)) is not None:
            await remote.watch(session, msg)  # it sends the reply itself, in order
            return None
        player = session.player.id if session.player else None
        room = self.find_room(msg, player)
        room.check_open()
        # Watching a room where you hold a seat is being in your seat: a spectator's view
        # would hide your own tiles and show your seat as away.
        seat = room.seat_of(player) if player is not None else None
        return await self._enter(session, room, seat, msg)

    async def _enter(
        self, session: Member, room: Room, seat: int | None, msg: dict[str, Any]
    ) -> dict[str, Any]:
        """Make ``session`` a member and give it the room's view at its journal's seq.

        The view is the committed one (:class:`~tilehall.server.roomcore.RoomCore`):
        while a move waits for its append the engine holds it already, and a
        newcomer shown it would see a move the journal may never hold (the node
        killed, the disk full), then get it again as an update: a forked game.
        When the core kept no view of the committed seq for this seat, the
        newcomer waits for the append to settle (never for the room's lock).
        """
        await room.settled(seat)
        room.check_open()  # the append it waited for may have suspended the room
        return self._enter_now(session, room, seat, msg)

    def _enter_now(
        self, session: Member, room: Room, seat: int | None, msg: dict[str, Any]
    ) -> dict[str, Any]:
        since: int | None = msg.get("seq")
        compact = bool(msg.get("compact", session.compact))
        room.add_member(session, seat, compact=compact)
        self._keep(room)
        self._announce(room)
        reply: dict[str, Any] = {
            "t": "joined",
            "room": room.id,
            "seat": seat,
            "seq": room.seq,
            "view": room.base_view(seat) if compact else room.view(seat),
        }
        if compact:  # how to read the events that updates send by name
            reply["derived"] = {
                name: {f: None if path is None else list(path) for f, path in fields.items()}
                for name, fields in room.game.derived_events.items()
            }
        if since is not None:
            missed = room.missed(seat, since)
            if missed is not None:
                reply["missed"] = missed
        return reply

    async def leave(self, session: Member, msg: dict[str, Any]) -> dict[str, Any] | None:
        if (remote := await self._remote(session, msg)) is not None:
            await remote.leave(session, msg)  # it sends the reply itself, in order
            return None
        room = self._member_of(session, msg["room"])
        room.remove_member(session)
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
                room.remove_member(session)
                self._announce(room)
                self._expire_later(room)
        if self.bus is not None:
            self.bus.disconnect(session)

    def act(self, session: Member, msg: dict[str, Any]) -> Awaitable[bool | None]:
        """``msg``'s action, to its room's door: the room's coroutine, for the caller to await.

        Outside a cluster no room is remote, and this makes no coroutine of its
        own: the room's (:meth:`Room.act`) is handed back, one coroutine less
        alive while the move waits for its append. The answer is the actor's
        update, carrying ``re``; what the awaitable returns says nothing more.
        """
        if self.bus is not None:
            return self._act_anywhere(session, msg)
        return self._act_here(session, msg)

    def _act_here(self, session: Member, msg: dict[str, Any]) -> Awaitable[bool]:
        room = self.rooms.get(msg["room"])
        if room is None:
            raise ProtocolError(ErrorCode.UNKNOWN_ROOM, f"there is no room {msg['room'][:64]!r}")
        return room.act(session, msg["action"], msg.get("seq"), msg.get("id"))

    async def _act_anywhere(self, session: Member, msg: dict[str, Any]) -> bool | None:
        if (remote := await self._remote(session, msg)) is not None:
            await remote.act(session, msg)
            return None
        return await self._act_here(session, msg)

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
