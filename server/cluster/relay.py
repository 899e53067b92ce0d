"""The relaying node's side: this node's connections in rooms hosted elsewhere.

A :class:`RemoteRoom` answers the lobby's join, watch, act, leave and chat for
a room another node hosts by sending them to that node's inbox, and forwards
the host's frames to the one connection each was made for: never twice (by
``seq``) and in order (answers travel in the same stream as frames).

Ordering and duplicates: each of the host's links numbers its messages; a gap
(a message lost while the broker restarted, say) makes the room *resync*:
re-enter each connection with its last ``seq`` and send what was missed as one
catching-up ``update``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

import aiomqtt
from tilehall.protocol import ErrorCode, ProtocolError
from tilehall.server.cluster.wire import Entry, Topics, catch_up_update, code_hash, pack, unpack
from tilehall.server.room.member import Member
from tilehall.server.store.errors import StoreUnavailable
from tilehall.server.store.postgres import PostgresStore

__all__ = ["REQUEST_TIMEOUT", "Pending", "Relay", "RemoteRoom"]

log = logging.getLogger(__name__)

REQUEST_TIMEOUT = 10.0
"""Seconds a relayed request waits for the host's answer."""
ADOPTION_TRIES = 10
ADOPTION_PAUSE = 0.2
"""A host that does not know a room the store gives it is adopting it (a takeover or a
handover a moment ago): the request is sent again, up to 10 times 0.2 s."""
MOVING_RETRY = 1.0
"""``retry_after`` of a request refused because its room is moving or the bus is down."""


@dataclass(slots=True)
class Pending:
    """A request relayed to a host, waiting for its answer in the host's stream."""

    future: asyncio.Future[None]
    room: RemoteRoom
    session: Member
    kind: str
    """``enter`` (a client's join/watch), ``resync``, ``leave`` or ``other``."""
    re: int | None
    sid: int


class RemoteRoom:
    """A room hosted by another node, as this node's connections see it."""

    def __init__(self, relay: Relay, entry: Entry) -> None:
        self.relay = relay
        self.id = entry.room
        self.host = entry.node
        self.epoch = entry.epoch
        self.members: dict[Member, int | None] = {}
        self.last: dict[Member, int] = {}
        """The last update seq each member was sent."""
        self.stream: str | None = None
        self.n = 0
        self.syncing: dict[Member, asyncio.Event] = {}
        """Members being re-entered at the host: their other requests wait for it."""

    # -- the lobby's requests

    async def join(self, session: Member, msg: dict[str, Any]) -> None:
        await self.relay.request(self, "join", session, _with_compact(session, msg), kind="enter")

    async def watch(self, session: Member, msg: dict[str, Any]) -> None:
        await self.relay.request(self, "watch", session, _with_compact(session, msg), kind="enter")

    async def act(self, session: Member, msg: dict[str, Any]) -> None:
        await self._synced(session)
        await self.relay.request(self, "act", session, msg)

    async def leave(self, session: Member, msg: dict[str, Any]) -> None:
        self._require_member(session)
        await self.relay.request(self, "leave", session, msg, kind="leave")

    async def chat(self, session: Member, msg: dict[str, Any]) -> None:
        self._require_member(session)
        await self._synced(session)
        await self.relay.request(self, "chat", session, msg)

    async def _synced(self, session: Member) -> None:
        """Wait while ``session`` is being re-entered at the host (a resync after a move):
        an act overtaking its join would be refused as not in the room."""
        event = self.syncing.get(session)
        if event is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(REQUEST_TIMEOUT):
                    await event.wait()

    def _require_member(self, session: Member) -> None:
        if session not in self.members:
            raise ProtocolError(ErrorCode.NOT_IN_ROOM, f"you are not in room {self.id[:64]!r}")

    # -- membership

    def add(self, session: Member, seat: int | None, seq: int) -> None:
        self.members[session] = seat
        self.last[session] = max(seq, self.last.get(session, 0))
        session.rooms[self.id] = seat

    def remove(self, session: Member) -> None:
        self.members.pop(session, None)
        self.last.pop(session, None)
        if session.rooms.get(self.id, "absent") != "absent":
            session.rooms.pop(self.id, None)

    def catch_up(self, session: Member, reply: dict[str, Any]) -> None:
        """A re-entry was answered: send what the member missed since its last seq.

        A member removed while its re-entry was on its way (it left, or it was taken
        into a room now hosted here) is not made one again: its last seq went with it,
        and the catch-up would send again, as new, updates it already has.
        """
        if session not in self.members:
            return
        last = self.last.get(session, 0)
        self.members[session] = reply["seat"]
        session.rooms[self.id] = reply["seat"]
        update = catch_up_update(self.id, reply, last)
        if update is not None:
            self.last[session] = reply["seq"]
            session.send_msg(update)

    # -- the host's stream

    def on_batch(self, batch: dict[str, Any]) -> None:
        if batch["host"] != self.host:
            return  # a node that no longer hosts the room
        if batch["link"] != self.stream:
            self.stream, gap = batch["link"], False
        elif batch["n"] <= self.n:
            return  # delivered twice by the broker
        else:
            gap = batch["n"] != self.n + 1
        self.n = batch["n"]
        blobs = batch["blobs"]
        for item in batch["items"]:
            if item[0] == "f":
                self._forward(item[1], blobs[item[2]])
            elif item[0] == "r":
                self.relay.answered(item[1], item[2])
            elif item[0] == "e":
                self.relay.refused(item[1], item[2], item[3], *item[4:5])
        if gap:
            log.warning("room %s: messages from %s were lost; resyncing", self.id, self.host)
            self.resync()

    def _forward(self, sid: int, data: bytes) -> None:
        session = self.relay.sessions.get(sid)
        if session is None or session not in self.members:
            return
        head = unpack(data)
        if head.get("t") == "update":
            if head["seq"] <= self.last.get(session, 0):
                return  # already sent (or caught up past it)
            self.last[session] = head["seq"]
        session.send(data)

    def rehost(self, entry: Entry) -> None:
        """The room moved (taken over, handed over, or its host restarted): follow it."""
        if entry.node != self.host:
            log.info("room %s: now hosted by %s", self.id, entry.node)
            # Requests sent to the old host will never be answered.
            self.relay.fail_pending(self, "the room moved to another node; try again")
        self.host, self.epoch = entry.node, entry.epoch
        self.stream, self.n = None, 0
        self.resync()

    def resync(self) -> None:
        """Re-enter every member with its last seq; what it missed comes as one update."""
        for session, seat in list(self.members.items()):
            msg = {"room": self.id, "seq": self.last.get(session, 0)}
            if session.compact:
                msg["compact"] = True
            op = "watch" if seat is None else "join"
            event = self.syncing.get(session)
            if event is None or event.is_set():
                event = self.syncing[session] = asyncio.Event()
            self.relay.spawn(self._reenter(op, session, msg, event))

    async def _reenter(
        self, op: str, session: Member, msg: dict[str, Any], event: asyncio.Event
    ) -> None:
        try:
            await self.relay.request(self, op, session, msg, kind="resync")
        except ProtocolError as exc:
            if exc.code in (ErrorCode.UNKNOWN_ROOM, ErrorCode.NOT_IN_ROOM):
                self.remove(session)  # the room is gone (after any move was followed)
            raise
        finally:
            event.set()
            if self.syncing.get(session) is event:
                del self.syncing[session]

    @property
    def idle(self) -> bool:
        return not self.members and not any(p.room is self for p in self.relay.pending.values())


class Relay:
    """This node's requests to rooms hosted elsewhere, and their answers.

    Args:
        node: this node's name.
        topics: where requests go (the host's inbox).
        store: to find a room the directory has not announced yet.
        publish: send one request now (raises ``aiomqtt.MqttError`` when the bus is down).
        connected: whether the bus is up.
        alive: whether a node is not known to be gone.
        reachable: whether a request sent to a node now can reach it (it is on the
            bus: its presence was heard since this node last connected).
        directory: the rooms other nodes announced.
        spawn: run a background task.
    """

    def __init__(
        self,
        node: str,
        topics: Topics,
        store: PostgresStore,
        *,
        publish: Callable[[str, bytes], Coroutine[Any, Any, None]],
        connected: Callable[[], bool],
        alive: Callable[[str], bool],
        reachable: Callable[[str], bool],
        directory: dict[str, Entry],
        spawn: Callable[[Coroutine[Any, Any, Any]], None],
    ) -> None:
        self.node = node
        self.topics = topics
        self.store = store
        self._publish = publish
        self._connected = connected
        self._alive = alive
        self._reachable = reachable
        self.directory = directory
        self.spawn = spawn
        self.remote: dict[str, RemoteRoom] = {}
        self.pending: dict[int, Pending] = {}
        self.sessions: dict[int, Member] = {}
        self._sids: dict[Member, int] = {}
        self._ids = itertools.count(1)

    # -- finding the host

    async def remote_room(self, session: Member, msg: dict[str, Any]) -> RemoteRoom | None:
        """The proxy of the room ``msg`` names, if another node hosts it (None: ask here).

        The directory answers first; a room it does not know yet (created an
        instant ago on another node, or placed there) is looked up in the store,
        so a fresh room is never ``unknown_room`` for want of an announcement.
        """
        if "code" in msg:
            wanted = code_hash(msg["code"])
            entry = next((e for e in self.directory.values() if e.code == wanted), None)
        else:
            remote = self.remote.get(msg["room"])
            if remote is not None:
                return remote
            entry = self.directory.get(msg["room"])
            if entry is None:
                entry = await self._from_store(msg["room"])
        if entry is None or entry.node == self.node:
            return None
        remote = self.remote.get(entry.room)
        if remote is None:
            remote = self.remote[entry.room] = RemoteRoom(self, entry)
        return remote

    async def _from_store(self, room_id: str) -> Entry | None:
        try:
            record = await self.store.room(room_id)
        except StoreUnavailable:
            return None
        if record is None or record.status == "over" or not record.node:
            return None
        return Entry(room_id, record.node, 0, {}, (), None)

    def sid(self, session: Member) -> int:
        sid = self._sids.get(session)
        if sid is None:
            sid = self._sids[session] = next(self._ids)
            self.sessions[sid] = session
        return sid

    # -- requests

    async def request(
        self,
        room: RemoteRoom,
        op: str,
        session: Member,
        msg: dict[str, Any],
        *,
        kind: str = "other",
    ) -> None:
        """Send one request to the room's host; its answer comes in the host's stream.

        A host that no longer knows the room (it moved a moment ago) gets the
        request once more, at the host the store names now.

        Raises:
            ProtocolError: the host's refusal (its own code); ``unavailable`` when the
                bus is down or the room is moving (nothing was done), or when the host
                did not answer in time (an ``act`` sent with ``seq`` is safe to resend).
        """
        try:
            for attempt in range(ADOPTION_TRIES):
                try:
                    await self._request(room, op, session, msg, kind)
                    return
                except ProtocolError as exc:
                    if exc.code != ErrorCode.UNKNOWN_ROOM or attempt == ADOPTION_TRIES - 1:
                        raise
                    host = await self._host_now(room)
                    if host is None or host == self.node:
                        raise
                    if host == room.host:  # being adopted there right now: a moment
                        await asyncio.sleep(ADOPTION_PAUSE)
                    else:
                        room.host, room.stream, room.n = host, None, 0
        finally:
            if room.idle and self.remote.get(room.id) is room:
                del self.remote[room.id]

    async def _host_now(self, room: RemoteRoom) -> str | None:
        """The node the store names for ``room`` now (None: no node runs it)."""
        entry = await self._from_store(room.id)
        return None if entry is None else entry.node

    async def _request(
        self, room: RemoteRoom, op: str, session: Member, msg: dict[str, Any], kind: str
    ) -> None:
        if not self._connected():
            raise ProtocolError(
                ErrorCode.UNAVAILABLE,
                "the cluster bus is down: nothing was done; try again",
                retry_after=MOVING_RETRY,
            )
        if not self._alive(room.host):
            raise ProtocolError(
                ErrorCode.UNAVAILABLE,
                f"room {room.id} is moving to another node; try again",
                retry_after=MOVING_RETRY,
            )
        if not self._reachable(room.host):
            raise ProtocolError(
                ErrorCode.UNAVAILABLE,
                f"room {room.id}'s node is not on the cluster bus yet: nothing was done; try again",
                retry_after=MOVING_RETRY,
            )
        assert session.player is not None
        cid = next(self._ids)
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        sid = self.sid(session)
        self.pending[cid] = Pending(future, room, session, kind, msg.get("id"), sid)
        request = {
            "op": op,
            "room": room.id,
            "node": self.node,
            "sid": sid,
            "cid": cid,
            "player": [session.player.id, session.player.name],
            "msg": msg,
        }
        try:
            await self._publish(self.topics.inbox(room.host), pack(request))
            async with asyncio.timeout(REQUEST_TIMEOUT):
                await future
        except aiomqtt.MqttError:
            raise ProtocolError(
                ErrorCode.UNAVAILABLE,
                "the cluster bus is down: nothing was done; try again",
                retry_after=MOVING_RETRY,
            ) from None
        except TimeoutError:
            raise ProtocolError(
                ErrorCode.UNAVAILABLE,
                f"room {room.id}'s node did not answer in time; join again with your last seq",
                retry_after=MOVING_RETRY,
            ) from None
        finally:
            self.pending.pop(cid, None)

    def answered(self, cid: int, reply: dict[str, Any] | None) -> None:
        pending = self.pending.pop(cid, None)
        if pending is None:
            return  # it timed out already
        room, session = pending.room, pending.session
        if pending.kind == "enter" and reply is not None and pending.sid not in self.sessions:
            # It disconnected while waiting: give the place straight back.
            drop = {
                "op": "drop",
                "room": room.id,
                "node": self.node,
                "sid": pending.sid,
                "cid": None,
            }
            self.spawn(self._send_quietly(room.host, drop))
        elif pending.kind == "enter" and reply is not None:
            room.add(session, reply["seat"], reply["seq"])
            # Sent from here, not by the waiting request, so that it goes before
            # the updates that follow it in the host's stream.
            session.send_msg(reply if pending.re is None else {**reply, "re": pending.re})
        elif pending.kind == "resync" and reply is not None:
            room.catch_up(session, reply)
        elif pending.kind == "leave" and reply is not None:
            room.remove(session)
            session.send_msg(reply if pending.re is None else {**reply, "re": pending.re})
        if not pending.future.done():
            pending.future.set_result(None)

    def refused(
        self, cid: int, code: str, message: str, about: dict[str, Any] | None = None
    ) -> None:
        """The host refused ``cid``; ``about``: the cells and tiles of a game's refusal."""
        pending = self.pending.pop(cid, None)
        if pending is None:
            return
        if not pending.future.done():
            about = about or {}
            pending.future.set_exception(
                ProtocolError(code, message, cells=about.get("cells"), tiles=about.get("tiles"))
            )

    def fail_pending(self, room: RemoteRoom, message: str) -> None:
        for cid, pending in list(self.pending.items()):
            if pending.room is room:
                del self.pending[cid]
                if not pending.future.done():
                    pending.future.set_exception(
                        ProtocolError(ErrorCode.UNAVAILABLE, message, retry_after=MOVING_RETRY)
                    )

    def fail_all(self, message: str) -> None:
        """Every request waiting for an answer fails now (the bus connection was lost).

        Like a request that timed out, one of them may have been done by its host:
        the message says to join again with the last seq (an ``act`` sent with
        ``seq`` is refused ``stale`` if sent again after it was done).
        """
        for cid, pending in list(self.pending.items()):
            del self.pending[cid]
            if not pending.future.done():
                pending.future.set_exception(
                    ProtocolError(
                        ErrorCode.UNAVAILABLE,
                        f"{message}; join again with your last seq",
                        retry_after=MOVING_RETRY,
                    )
                )

    def fail_node(self, node: str) -> None:
        """``node`` is gone: nothing it was asked will be answered."""
        for room in list(self.remote.values()):
            if room.host == node:
                self.fail_pending(room, f"node {node} went down; the room is moving, try again")

    def on_batch(self, room_id: str, payload: bytes) -> None:
        room = self.remote.get(room_id)
        if room is not None:
            room.on_batch(unpack(payload))

    def resync_host(self, node: str) -> None:
        """``node`` (re)joined the bus: whatever it sent meanwhile may be lost."""
        for room in list(self.remote.values()):
            if room.host == node:
                room.resync()

    def disconnect(self, session: Member) -> None:
        """A connection closed; its places in rooms hosted elsewhere are given up."""
        sid = self._sids.pop(session, None)
        if sid is None:
            return
        self.sessions.pop(sid, None)
        for room in list(self.remote.values()):
            if session in room.members:
                room.remove(session)
                drop = {"op": "drop", "room": room.id, "node": self.node, "sid": sid, "cid": None}
                self.spawn(self._send_quietly(room.host, drop))
            if room.idle:
                self.remote.pop(room.id, None)

    async def _send_quietly(self, host: str, request: dict[str, Any]) -> None:
        # If the bus is down, the host learns of it when this node's connections resync.
        with contextlib.suppress(aiomqtt.MqttError):
            await self._publish(self.topics.inbox(host), pack(request))


def _with_compact(session: Member, msg: dict[str, Any]) -> dict[str, Any]:
    """The host knows the connection only by what is relayed: its hello's ``compact`` too."""
    if session.compact and "compact" not in msg:
        return {**msg, "compact": True}
    return msg
