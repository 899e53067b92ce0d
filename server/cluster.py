"""Cluster mode: several nodes act as one server, over MQTT and one PostgreSQL store.

Loaded only when ``--mqtt`` is given; a single process never imports it (nor
aiomqtt). The topic layout is documented in ``protocol/CLUSTER.md``.

Each room has exactly one **host**: the node whose ``rooms.node`` names it in the
shared store. Only the host runs the room (engine, journal, clocks, bots). Every
other node reaches it through the room's topic pair:

- a node whose client joins, watches, acts, leaves or chats in a room hosted
  elsewhere keeps a :class:`RemoteRoom` proxy for it and publishes the request on
  ``room/ROOM/in``;
- the host turns each remote connection into a :class:`StandIn` member of the
  real room, so the room's own code checks seats and sends it exactly the frames
  (per-seat views, private events) it would send a local connection; a
  :class:`Link` batches what the stand-ins of one node receive into one message
  per event-loop turn on ``room/ROOM/out/NODE``, replies and refusals included, in
  order. The relaying node forwards each frame to the one connection it was made
  for, so hidden information never reaches a connection that may not see it.

Ordering and duplicates: each link numbers its messages, and each ``update``
carries the room's ``seq``; the relaying node drops anything it has already
delivered to a connection. A gap (a message lost while the broker restarted,
say) makes it *resync*: re-enter each connection with its last ``seq`` and send
what was missed as one catching-up ``update``.

Failure: every node's presence is a retained ``online`` message with a Last
Will ``offline``. When a node's Will arrives, the others claim its unfinished
rooms through the store (``UPDATE ... WHERE node = dead``: one winner per room),
replay them from the journal and announce them; the nodes relaying those rooms
resync their connections with the new host. The store also *fences* a node cut
off from the broker: once its rooms have moved, its journal appends are refused.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import itertools
import logging
import random
import secrets
import ssl
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import unquote, urlsplit

import aiomqtt
import msgpack

from protocol import ErrorCode, ProtocolError, encode
from server.games.base import GameError
from server.store.base import PlayerRecord

if TYPE_CHECKING:
    from server.config import Config
    from server.lobby import Lobby
    from server.room import Room
    from server.session import Session

__all__ = ["Cluster", "Link", "RemoteRoom", "StandIn", "code_hash"]

log = logging.getLogger(__name__)

REQUEST_TIMEOUT = 10.0
"""Seconds a relayed request waits for the host's answer."""
CONNECT_TIMEOUT = 10.0
"""Seconds :meth:`Cluster.start` waits for the broker before serving without it."""
MAX_BACKOFF = 2.0
"""Longest pause between attempts to reach the broker."""
BACKLOG = 10_000
"""Messages kept for the broker while it is unreachable; beyond that the oldest stream
messages are dropped (their receivers notice the gap and resync)."""


def pack(obj: Any) -> bytes:
    return cast(bytes, msgpack.packb(obj, use_bin_type=True))


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


def code_hash(code: str) -> str:
    """What the directory says of a private room's code: enough to find it, not to join it."""
    return hashlib.sha256(code.encode()).hexdigest()[:32]


def catch_up_update(room: str, reply: dict[str, Any], last: int) -> dict[str, Any] | None:
    """After a resync: one ``update`` holding what a connection missed since ``last``.

    Its ``events`` are the missed updates' events in order (none when the host
    no longer keeps them) and its ``view`` the current one; None if nothing was
    missed. The ``seq`` jumps, as the protocol allows after a gap.
    """
    if reply["seq"] <= last:
        return None
    events = [ev for missed in reply.get("missed") or [] for ev in missed["events"]]
    return {
        "t": "update",
        "room": room,
        "seq": reply["seq"],
        "events": events,
        "view": reply["view"],
    }


@dataclass(frozen=True, slots=True)
class Entry:
    """A room as the directory lists it: its host and its public summary."""

    room: str
    node: str
    epoch: str
    summary: dict[str, Any]
    players: tuple[int, ...]
    code: str | None

    @classmethod
    def from_wire(cls, room: str, data: dict[str, Any]) -> Entry:
        return cls(
            room=room,
            node=data["node"],
            epoch=data["epoch"],
            summary=data["summary"],
            players=tuple(data.get("players") or ()),
            code=data.get("code"),
        )


class Topics:
    """Topic names under one prefix (several clusters may share a broker)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def node(self, node: str) -> str:
        return f"{self.prefix}/node/{node}"

    def directory(self, room: str) -> str:
        return f"{self.prefix}/dir/{room}"

    def room_in(self, room: str) -> str:
        return f"{self.prefix}/room/{room}/in"

    def room_out(self, room: str, node: str) -> str:
        return f"{self.prefix}/room/{room}/out/{node}"

    def parse(self, topic: str) -> list[str]:
        return topic.removeprefix(self.prefix + "/").split("/")


# -- the host's side -------------------------------------------------------------------------


class StandIn:
    """A connection on another node, as a member of a room hosted here.

    It quacks like :class:`server.session.Session` for the room and the lobby:
    frames sent to it go to its node's :class:`Link`.
    """

    def __init__(self, link: Link, sid: int, player: PlayerRecord) -> None:
        self.link = link
        self.sid = sid
        self.player: PlayerRecord | None = player
        self.rooms: dict[str, int | None] = {}
        self.closing = False

    @property
    def peer(self) -> str:
        return f"{self.link.node}/{self.sid}"

    def send(self, data: bytes) -> None:
        self.link.frame(self.sid, data)

    push = send

    def send_msg(self, msg: dict[str, Any]) -> None:
        self.send(encode(msg))

    def close(self, code: int, reason: str) -> None:
        """The connection is not ours to close; its node closes it if it must."""
        log.info(
            "not closing %s (%d %s): it belongs to node %s", self.peer, code, reason, self.link.node
        )


class Link:
    """What the stand-ins of one node in one room receive: one message per loop turn.

    Frames the room encoded once for several stand-ins (same seat, same view)
    travel once. Messages are numbered; ``link`` tells this link from an earlier
    one between the same room and node.
    """

    def __init__(self, cluster: Cluster, room: str, node: str) -> None:
        self.cluster = cluster
        self.room = room
        self.node = node
        self.id = secrets.token_hex(4)
        self.n = 0
        self.items: list[list[Any]] = []
        self.blobs: list[bytes] = []
        self._index: dict[int, int] = {}
        self._due = False

    def frame(self, sid: int, data: bytes) -> None:
        # The blob list keeps ``data`` alive until the flush, so id() stays unique.
        index = self._index.get(id(data))
        if index is None:
            index = self._index[id(data)] = len(self.blobs)
            self.blobs.append(data)
        self._add(["f", sid, index])

    def reply(self, cid: int | None, reply: dict[str, Any] | None) -> None:
        if cid is not None:
            self._add(["r", cid, reply])

    def refuse(self, cid: int | None, code: str, message: str) -> None:
        if cid is not None:
            self._add(["e", cid, code, message])

    def _add(self, item: list[Any]) -> None:
        self.items.append(item)
        if not self._due:
            self._due = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        self._due = False
        if not self.items:
            return
        self.n += 1
        batch = {
            "host": self.cluster.node,
            "link": self.id,
            "n": self.n,
            "blobs": self.blobs,
            "items": self.items,
        }
        self.items, self.blobs, self._index = [], [], {}
        self.cluster.publish(self.cluster.topics.room_out(self.room, self.node), pack(batch))


# -- the relaying node's side ----------------------------------------------------------------


@dataclass(slots=True)
class Pending:
    """A request relayed to a host, waiting for its answer in the host's stream."""

    future: asyncio.Future[None]
    room: RemoteRoom
    session: Session
    kind: str
    """``enter`` (a client's join/watch), ``resync``, ``leave`` or ``other``."""
    re: int | None
    sid: int


class RemoteRoom:
    """A room hosted by another node, as this node's connections see it.

    It answers the lobby's join, watch, act, leave and chat for such a room by
    relaying them to the host, and forwards the host's frames to the one
    connection each was made for, never twice (``seq``) and in order.
    """

    def __init__(self, cluster: Cluster, entry: Entry) -> None:
        self.cluster = cluster
        self.id = entry.room
        self.host = entry.node
        self.epoch = entry.epoch
        self.members: dict[Session, int | None] = {}
        self.last: dict[Session, int] = {}
        """The last update seq each member was sent."""
        self.stream: str | None = None
        self.n = 0

    # -- the lobby's requests

    async def join(self, session: Session, msg: dict[str, Any]) -> None:
        await self.cluster.request(self, "join", session, msg, kind="enter")

    async def watch(self, session: Session, msg: dict[str, Any]) -> None:
        await self.cluster.request(self, "watch", session, msg, kind="enter")

    async def act(self, session: Session, msg: dict[str, Any]) -> None:
        await self.cluster.request(self, "act", session, msg)

    async def leave(self, session: Session, msg: dict[str, Any]) -> None:
        self._require_member(session)
        await self.cluster.request(self, "leave", session, msg, kind="leave")

    async def chat(self, session: Session, msg: dict[str, Any]) -> None:
        self._require_member(session)
        await self.cluster.request(self, "chat", session, msg)

    def _require_member(self, session: Session) -> None:
        if session not in self.members:
            raise ProtocolError(ErrorCode.NOT_IN_ROOM, f"you are not in room {self.id[:64]!r}")

    # -- membership

    def add(self, session: Session, seat: int | None, seq: int) -> None:
        self.members[session] = seat
        self.last[session] = max(seq, self.last.get(session, 0))
        session.rooms[self.id] = seat

    def remove(self, session: Session) -> None:
        self.members.pop(session, None)
        self.last.pop(session, None)
        if session.rooms.get(self.id, "absent") != "absent":
            session.rooms.pop(self.id, None)

    def catch_up(self, session: Session, reply: dict[str, Any]) -> None:
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
                self.cluster.answered(item[1], item[2])
            elif item[0] == "e":
                self.cluster.refused(item[1], item[2], item[3])
        if gap:
            log.warning("room %s: messages from %s were lost; resyncing", self.id, self.host)
            self.resync()

    def _forward(self, sid: int, data: bytes) -> None:
        session = self.cluster.sessions.get(sid)
        if session is None or session not in self.members:
            return
        head = unpack(data)
        if head.get("t") == "update":
            if head["seq"] <= self.last.get(session, 0):
                return  # already sent (or caught up past it)
            self.last[session] = head["seq"]
        session.send(data)

    def rehost(self, entry: Entry) -> None:
        """The room moved (its host died, or restarted): follow it and resync."""
        if entry.node != self.host:
            log.info("room %s: now hosted by %s", self.id, entry.node)
            # Requests sent to the old host will never be answered.
            self.cluster.fail_pending(self, "the room moved to another node; try again")
        self.host, self.epoch = entry.node, entry.epoch
        self.stream, self.n = None, 0
        self.resync()

    def resync(self) -> None:
        """Re-enter every member with its last seq; what it missed comes as one update."""
        for session, seat in list(self.members.items()):
            msg = {"room": self.id, "seq": self.last.get(session, 0)}
            op = "watch" if seat is None else "join"
            self.cluster.spawn(self.cluster.request(self, op, session, msg, kind="resync"))

    @property
    def idle(self) -> bool:
        return not self.members and not any(p.room is self for p in self.cluster.pending.values())


# -- the bus ---------------------------------------------------------------------------------


class Cluster:
    """This node's side of the cluster: presence, directory, relays and takeover.

    The lobby calls it through a few hooks (``remote_room``, ``listed``,
    ``seated``, ``disconnect``, ``room_changed``, ``room_gone``); nothing else in
    the server knows about MQTT.
    """

    def __init__(self, config: Config, lobby: Lobby) -> None:
        if not config.mqtt:
            raise ValueError("cluster mode needs a broker URL (--mqtt mqtt://host:port)")
        url = urlsplit(config.mqtt)
        if url.scheme not in ("mqtt", "mqtts"):
            raise ValueError(f"--mqtt takes mqtt://host:port or mqtts://..., not {config.mqtt!r}")
        if not config.node or "/" in config.node or "+" in config.node or "#" in config.node:
            raise ValueError(f"a cluster node needs a name without / + #, not {config.node!r}")
        self.config = config
        self.node = config.node
        self.lobby = lobby
        self.store = lobby.store
        self.host = url.hostname or "127.0.0.1"
        self.port = url.port or (8883 if url.scheme == "mqtts" else 1883)
        self.username = unquote(url.username) if url.username else None
        self.password = unquote(url.password) if url.password else None
        self.tls = ssl.create_default_context() if url.scheme == "mqtts" else None
        self.topics = Topics(url.path.strip("/") or "tilehall")
        self.keepalive = config.mqtt_keepalive
        self.epoch = secrets.token_hex(4)
        """This process's incarnation: tells a restarted node from its former self."""
        self.conn = 0
        """Connections to the broker so far: tells a stale Will from the current one."""

        self.presence: dict[str, dict[str, Any]] = {}
        self.directory: dict[str, Entry] = {}
        # relaying
        self.remote: dict[str, RemoteRoom] = {}
        self.pending: dict[int, Pending] = {}
        self.sessions: dict[int, Session] = {}
        self._sids: dict[Session, int] = {}
        self._ids = itertools.count(1)
        # hosting
        self.hosted: set[str] = set()
        self.links: dict[tuple[str, str], Link] = {}
        self.standins: dict[tuple[str, str, int], StandIn] = {}
        self._requests: dict[str, collections.deque[dict[str, Any]]] = {}
        self._workers: dict[str, asyncio.Task[None]] = {}
        self._dirty: set[str] = set()
        self._dirty_due = False
        self._published: dict[str, bytes] = {}
        # the broker
        self._fifo: collections.deque[tuple[str, str, bytes, bool]] = collections.deque()
        self._fifo_ready = asyncio.Event()
        self._client: aiomqtt.Client | None = None
        self._connected = asyncio.Event()
        self._runner: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._stopping = False

    # -- life cycle -------------------------------------------------------------------

    async def start(self) -> None:
        """Join the cluster: fence the store, connect, announce this node and its rooms."""
        if hasattr(self.store, "owner"):
            self.store.owner = self.node  # appends only to rooms this node owns
        self.lobby.bus = self
        for room in self.lobby.rooms.values():
            self.room_changed(room)
        self._runner = asyncio.create_task(self._run(), name="cluster")
        try:
            await asyncio.wait_for(self._connected.wait(), CONNECT_TIMEOUT)
        except TimeoutError:
            log.error("broker %s:%d unreachable; serving, and still trying", self.host, self.port)

    async def stop(self) -> None:
        """Leave: say offline (the other nodes take this node's rooms over), disconnect."""
        self._stopping = True
        client = self._client
        if client is not None and self._connected.is_set():
            with contextlib.suppress(Exception):
                for _ in range(100):  # let queued messages out first, briefly
                    if not self._fifo:
                        break
                    await asyncio.sleep(0.02)
                await client.publish(
                    self.topics.node(self.node), self._presence("offline"), qos=1, retain=True
                )
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._runner
        for task in [*self._tasks, *self._workers.values()]:
            task.cancel()

    def spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled() or (exc := task.exception()) is None:
            return
        if not isinstance(exc, ProtocolError | GameError):  # refusals were answered already
            log.error("cluster task failed", exc_info=exc)

    def _presence(self, state: str) -> bytes:
        return pack(
            {
                "node": self.node,
                "state": state,
                "epoch": self.epoch,
                "conn": self.conn,
                "at": time.time(),
            }
        )

    async def _run(self) -> None:
        backoff = 0.1
        while not self._stopping:
            self.conn += 1
            client = aiomqtt.Client(
                self.host,
                self.port,
                username=self.username,
                password=self.password,
                identifier=f"tilehall-{self.node}-{self.epoch}-{self.conn}",
                keepalive=self.keepalive,
                will=aiomqtt.Will(
                    self.topics.node(self.node), self._presence("offline"), qos=1, retain=True
                ),
                tls_context=self.tls,
                clean_session=True,
            )
            publisher: asyncio.Task[None] | None = None
            try:
                async with client:
                    self._client = client
                    await self._on_connect(client)
                    self._connected.set()
                    backoff = 0.1
                    publisher = asyncio.create_task(self._publish_loop(client), name="cluster-pub")
                    async for message in client.messages:
                        self._on_message(message)
            except aiomqtt.MqttError as exc:
                if not self._stopping:
                    log.warning("broker %s:%d: %s; reconnecting", self.host, self.port, exc)
            except Exception:  # never leave the bus for good over one bug
                log.exception("cluster connection failed; reconnecting")
            finally:
                self._connected.clear()
                self._client = None
                if publisher is not None:
                    publisher.cancel()
            await asyncio.sleep(backoff * (0.5 + random.random()))
            backoff = min(MAX_BACKOFF, backoff * 2)

    async def _on_connect(self, client: aiomqtt.Client) -> None:
        # Listen before saying "online": a node that hears it may send requests at once.
        for topic in ("node/+", "dir/+", f"room/+/out/{self.node}"):
            await client.subscribe(f"{self.topics.prefix}/{topic}", qos=1)
        for room in self.hosted:
            await client.subscribe(self.topics.room_in(room), qos=1)
        # A broker that restarted has forgotten everything retained: say it all again.
        await client.publish(
            self.topics.node(self.node), self._presence("online"), qos=1, retain=True
        )
        self._published.clear()
        self.spawn(self._reannounce())
        log.info(
            "node %s on the bus %s:%d (%d rooms hosted)",
            self.node,
            self.host,
            self.port,
            len(self.hosted),
        )

    async def _reannounce(self) -> None:
        """After (re)connecting: announce the rooms still this node's, let the others go.

        A node cut off from the bus long enough was declared dead and its rooms were
        taken over; announcing its old copies would overwrite their new entries.
        """
        for room_id in list(self.hosted):
            record = await self.store.room(room_id)
            if record is not None and record.node != self.node:
                await self._check_lost(room_id)
            else:
                self._dirty.add(room_id)
        self._schedule_directory()

    # -- sending ------------------------------------------------------------------------

    def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> None:
        """Queue a message: one task sends them in order, keeping them while the broker is away."""
        self._queue("pub", topic, payload, retain)

    def _queue(self, op: str, topic: str, payload: bytes = b"", retain: bool = False) -> None:
        if len(self._fifo) >= BACKLOG:
            for i, item in enumerate(self._fifo):
                if item[0] == "pub" and "/out/" in item[1]:
                    del self._fifo[i]
                    break
        self._fifo.append((op, topic, payload, retain))
        self._fifo_ready.set()

    async def _publish_loop(self, client: aiomqtt.Client) -> None:
        while True:
            while not self._fifo:
                self._fifo_ready.clear()
                await self._fifo_ready.wait()
            op, topic, payload, retain = self._fifo[0]
            try:
                if op == "pub":
                    await client.publish(topic, payload, qos=1, retain=retain)
                elif op == "sub":
                    await client.subscribe(topic, qos=1)
                else:
                    await client.unsubscribe(topic)
            except aiomqtt.MqttError as exc:
                log.warning("could not send to %s (%s); will retry", topic, exc)
                await asyncio.sleep(0.2)
                continue
            except Exception:
                log.exception("could not send to %s; dropped", topic)
            self._fifo.popleft()

    # -- receiving ----------------------------------------------------------------------

    def _on_message(self, message: aiomqtt.Message) -> None:
        parts = self.topics.parse(message.topic.value)
        payload = message.payload if isinstance(message.payload, bytes) else b""
        try:
            if parts[0] == "node" and len(parts) == 2:
                self._on_presence(parts[1], payload)
            elif parts[0] == "dir" and len(parts) == 2:
                self._on_directory(parts[1], payload)
            elif parts[0] == "room" and len(parts) == 3 and parts[2] == "in":
                self._on_request(parts[1], payload)
            elif parts[0] == "room" and len(parts) == 4 and parts[3] == self.node:
                room = self.remote.get(parts[1])
                if room is not None:
                    room.on_batch(unpack(payload))
        except Exception:
            log.exception("bad cluster message on %s", message.topic.value)

    # -- presence and takeover ------------------------------------------------------------

    def _on_presence(self, node: str, payload: bytes) -> None:
        info = unpack(payload) if payload else None
        if node == self.node:
            if info is not None and info["state"] == "offline" and not self._stopping:
                # Declared dead while alive (cut off for a while): say otherwise at once.
                # Rooms already claimed stay claimed; _check_lost lets them go here.
                self.publish(self.topics.node(self.node), self._presence("online"), retain=True)
            return
        if info is None:
            self.presence.pop(node, None)
            return
        known = self.presence.get(node)
        if info["state"] == "online":
            self.presence[node] = info
            # It (re)joined the bus: whatever it sent us meanwhile may be lost.
            for room in list(self.remote.values()):
                if room.host == node:
                    room.resync()
            return
        if (
            known is not None
            and known["state"] == "online"
            and (known["epoch"], known["conn"]) != (info["epoch"], info["conn"])
        ):
            return  # the Will of a connection it has already replaced
        self.presence[node] = info
        log.warning("node %s is offline", node)
        self.spawn(self._node_down(node))

    def alive(self, node: str) -> bool:
        """Not known to be offline (a node not heard of yet is given the benefit of the doubt)."""
        return node == self.node or self.presence.get(node, {}).get("state") != "offline"

    async def _node_down(self, node: str) -> None:
        # Its connections are gone, and so is anything it was asked.
        for key, standin in list(self.standins.items()):
            if key[1] == node:
                self._drop(standin)
        for room in list(self.remote.values()):
            if room.host == node:
                self.fail_pending(room, f"node {node} went down; the room is moving, try again")
        # Claim its rooms; spread over the survivors by chance.
        await asyncio.sleep(random.uniform(0, 0.1))
        rooms = {r.id for r in await self.store.unfinished_rooms(node)}
        rooms |= {e.room for e in self.directory.values() if e.node == node}
        order = sorted(rooms)
        random.shuffle(order)
        for room_id in order:
            if self.alive(node) or self._stopping:
                return  # it came back: its rooms are its own again
            record = await self.store.claim_room(room_id, node, self.node)
            if record is None:
                await self._clear_if_orphan(room_id)
                continue
            log.warning("took room %s over from node %s", room_id, node)
            if await self.lobby.adopt(record) is None:
                log.error("room %s could not be rebuilt here", room_id)

    async def _clear_if_orphan(self, room_id: str) -> None:
        """Clear a room's retained directory entry, unless the store says a node runs it.

        The store decides, not the entry: an entry seen here may be a stale echo that
        has already been replaced by the room's new host.
        """
        record = await self.store.room(room_id)
        if (
            record is None
            or record.status == "over"
            or (record.node == self.node and room_id not in self.hosted)
        ):
            self.publish(self.topics.directory(room_id), b"", retain=True)

    # -- directory -------------------------------------------------------------------------

    def _on_directory(self, room_id: str, payload: bytes) -> None:
        if not payload:
            self.directory.pop(room_id, None)
            return
        entry = Entry.from_wire(room_id, unpack(payload))
        old = self.directory.get(room_id)
        self.directory[room_id] = entry
        if entry.node == self.node:
            if room_id not in self.hosted:  # from an earlier life, or a room let go since
                self.spawn(self._clear_if_orphan(room_id))
            return
        if room_id in self.hosted:
            self.spawn(self._check_lost(room_id))
        remote = self.remote.get(room_id)
        if remote is not None and (
            old is None or (old.node, old.epoch) != (entry.node, entry.epoch)
        ):
            remote.rehost(entry)

    def room_changed(self, room: Room) -> None:
        """Hook: a room hosted here was added, or its summary may have changed."""
        if room.id not in self.hosted:
            self.hosted.add(room.id)
            self._queue("sub", self.topics.room_in(room.id))
            remote = self.remote.pop(room.id, None)
            if remote is not None:  # this node took over a room its connections were in
                self.spawn(self._localize(remote))
        self._dirty.add(room.id)
        self._schedule_directory()

    def room_gone(self, room: Room) -> None:
        """Hook: a room hosted here left memory (finished a while ago, closed, or moved)."""
        if room.id not in self.hosted:
            return
        self.hosted.discard(room.id)
        for key, standin in list(self.standins.items()):
            if key[0] == room.id:
                self._drop(standin)
        self._queue("unsub", self.topics.room_in(room.id))
        self._dirty.add(room.id)
        self._schedule_directory()

    def _schedule_directory(self) -> None:
        if not self._dirty_due:
            self._dirty_due = True
            asyncio.get_running_loop().call_soon(self._publish_directory)

    def _publish_directory(self) -> None:
        """Publish each changed entry once per loop turn (summaries change in bursts)."""
        self._dirty_due = False
        dirty, self._dirty = self._dirty, set()
        for room_id in dirty:
            room = self.lobby.rooms.get(room_id)
            if room is None or room_id not in self.hosted:
                published = self._published.pop(room_id, None)
                entry = self.directory.get(room_id)
                if entry is not None and entry.node != self.node:
                    continue  # another node hosts it now: the entry is its own
                if published is not None or entry is not None:
                    self.spawn(self._clear_if_orphan(room_id))
                continue
            code = room.record.private_code
            payload = pack(
                {
                    "node": self.node,
                    "epoch": self.epoch,
                    "summary": room.summary(),
                    "players": sorted({s.player for s in room.seats if s.player is not None}),
                    "code": code_hash(code) if code else None,
                }
            )
            if self._published.get(room_id) != payload:
                self._published[room_id] = payload
                self.publish(self.topics.directory(room_id), payload, retain=True)

    def listed(self, game: str | None) -> list[dict[str, Any]]:
        """Hook: the public rooms other nodes host (``rooms`` on this node lists them too)."""
        return [
            e.summary
            for e in self.directory.values()
            if e.node != self.node
            and not e.summary.get("private")
            and (game is None or e.summary.get("game") == game)
        ]

    def seated(self, player: int) -> list[str]:
        """Hook: rooms other nodes host where ``player`` holds a seat (for ``welcome.rooms``)."""
        return [
            e.room for e in self.directory.values() if e.node != self.node and player in e.players
        ]

    async def _check_lost(self, room_id: str) -> None:
        """Another node announces a room hosted here: let it go if the store agrees.

        If the store says the room is still this node's, the other entry was stale
        (a node cut off from the bus announcing its old copy): announce ours again.
        """
        record = await self.store.room(room_id)
        room = self.lobby.rooms.get(room_id)
        if record is None or room is None:
            return
        if record.node == self.node:
            self._published.pop(room_id, None)
            self._dirty.add(room_id)
            self._schedule_directory()
            return
        log.warning("room %s now belongs to node %s; letting it go", room_id, record.node)
        members = [(s, seat) for s, seat in room.members.items() if not isinstance(s, StandIn)]
        seq = room.seq
        self.lobby.release(room)
        if not members:
            return
        # Its entry may not have reached us yet; the real one, when it comes, resyncs again.
        entry = self.directory.get(room_id)
        if entry is None or entry.node != record.node:
            entry = Entry(room_id, record.node, "", {}, (), None)
        remote = self.remote.setdefault(room_id, RemoteRoom(self, entry))
        for session, seat in members:
            remote.add(session, seat, seq)
        remote.resync()

    async def _localize(self, remote: RemoteRoom) -> None:
        """Take this node's connections of a room it now hosts into the real room."""
        for session, seat in list(remote.members.items()):
            last = remote.last.get(session, 0)
            remote.remove(session)
            msg = {"room": remote.id, "seq": last}
            try:
                if seat is None:
                    reply = await self.lobby.watch(session, msg)
                else:
                    reply = await self.lobby.join(session, msg)
            except (ProtocolError, GameError) as exc:
                log.warning("room %s: could not bring %s back: %s", remote.id, session.peer, exc)
                continue
            if reply is not None and (update := catch_up_update(remote.id, reply, last)):
                session.send_msg(update)

    # -- relaying requests to a host ---------------------------------------------------------

    def remote_room(self, session: Session, msg: dict[str, Any]) -> RemoteRoom | None:
        """Hook: the proxy of the room ``msg`` names, if another node hosts it."""
        if isinstance(session, StandIn):
            return None  # a relayed request is for a room hosted here, or for none
        if "code" in msg:
            wanted = code_hash(msg["code"])
            entry = next((e for e in self.directory.values() if e.code == wanted), None)
        else:
            remote = self.remote.get(msg["room"])
            if remote is not None:
                return remote
            entry = self.directory.get(msg["room"])
        if entry is None or entry.node == self.node:
            return None
        remote = self.remote.get(entry.room)
        if remote is None:
            remote = self.remote[entry.room] = RemoteRoom(self, entry)
        return remote

    def sid(self, session: Session) -> int:
        sid = self._sids.get(session)
        if sid is None:
            sid = self._sids[session] = next(self._ids)
            self.sessions[sid] = session
        return sid

    async def request(
        self,
        room: RemoteRoom,
        op: str,
        session: Session,
        msg: dict[str, Any],
        *,
        kind: str = "other",
    ) -> None:
        """Send one request to the room's host; its answer comes in the host's stream.

        Raises:
            ProtocolError: the host's refusal (its own code), or ``internal_error``
                when the bus is down or the room is moving (nothing was done), or
                when the host did not answer in time (the request may have been
                applied: an ``act`` sent with ``seq`` can safely be sent again).
        """
        try:
            await self._request(room, op, session, msg, kind)
        finally:
            if room.idle and self.remote.get(room.id) is room:
                del self.remote[room.id]

    async def _request(
        self, room: RemoteRoom, op: str, session: Session, msg: dict[str, Any], kind: str
    ) -> None:
        client = self._client
        if client is None or not self._connected.is_set():
            raise ProtocolError(
                ErrorCode.INTERNAL_ERROR, "the cluster bus is down: nothing was done; try again"
            )
        if not self.alive(room.host):
            raise ProtocolError(
                ErrorCode.INTERNAL_ERROR, f"room {room.id} is moving to another node; try again"
            )
        assert session.player is not None
        cid = next(self._ids)
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        sid = self.sid(session)
        self.pending[cid] = Pending(future, room, session, kind, msg.get("id"), sid)
        request = {
            "op": op,
            "node": self.node,
            "sid": sid,
            "cid": cid,
            "player": [session.player.id, session.player.name],
            "msg": msg,
        }
        try:
            await client.publish(self.topics.room_in(room.id), pack(request), qos=1)
            await asyncio.wait_for(future, REQUEST_TIMEOUT)
        except aiomqtt.MqttError:
            raise ProtocolError(
                ErrorCode.INTERNAL_ERROR, "the cluster bus is down: nothing was done; try again"
            ) from None
        except TimeoutError:
            raise ProtocolError(
                ErrorCode.INTERNAL_ERROR,
                f"room {room.id}'s node did not answer in time; join again with your last seq",
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
            drop = {"op": "drop", "node": self.node, "sid": pending.sid, "cid": None}
            self.publish(self.topics.room_in(room.id), pack(drop))
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

    def refused(self, cid: int, code: str, message: str) -> None:
        pending = self.pending.pop(cid, None)
        if pending is None:
            return
        if pending.kind == "resync" and code in (ErrorCode.UNKNOWN_ROOM, ErrorCode.NOT_IN_ROOM):
            pending.room.remove(pending.session)  # the room is gone
        if not pending.future.done():
            pending.future.set_exception(ProtocolError(code, message))

    def fail_pending(self, room: RemoteRoom, message: str) -> None:
        for cid, pending in list(self.pending.items()):
            if pending.room is room:
                del self.pending[cid]
                if not pending.future.done():
                    pending.future.set_exception(ProtocolError(ErrorCode.INTERNAL_ERROR, message))

    def disconnect(self, session: Session) -> None:
        """Hook: a connection closed; its places in rooms hosted elsewhere are given up."""
        sid = self._sids.pop(session, None)
        if sid is None:
            return
        self.sessions.pop(sid, None)
        for room in list(self.remote.values()):
            if session in room.members:
                room.remove(session)
                drop = {"op": "drop", "node": self.node, "sid": sid, "cid": None, "player": None}
                self.publish(self.topics.room_in(room.id), pack(drop))
            if room.idle:
                self.remote.pop(room.id, None)

    # -- serving requests for rooms hosted here --------------------------------------------------

    def _on_request(self, room_id: str, payload: bytes) -> None:
        # One room's requests are served one at a time, in arrival order: a drop
        # never overtakes the join before it.
        queue = self._requests.setdefault(room_id, collections.deque())
        queue.append(unpack(payload))
        if room_id not in self._workers:
            self._workers[room_id] = asyncio.create_task(self._serve_room(room_id))

    async def _serve_room(self, room_id: str) -> None:
        queue = self._requests[room_id]
        try:
            while queue:
                await self._serve(room_id, queue.popleft())
        finally:
            del self._workers[room_id]
            if not queue:
                self._requests.pop(room_id, None)

    async def _serve(self, room_id: str, req: dict[str, Any]) -> None:
        op, node, sid, cid = req["op"], req["node"], req["sid"], req.get("cid")
        if op == "drop":
            standin = self.standins.get((room_id, node, sid))
            if standin is not None:
                self._drop(standin)
            return
        if not self.alive(node):
            return  # its node is gone; nobody waits for this
        link = self.links.get((room_id, node))
        if link is None:
            link = self.links[(room_id, node)] = Link(self, room_id, node)
        standin = self.standins.get((room_id, node, sid))
        if standin is None:
            player = PlayerRecord(id=req["player"][0], name=req["player"][1])
            standin = self.standins[(room_id, node, sid)] = StandIn(link, sid, player)
        session = cast("Session", standin)
        msg = req["msg"]
        lobby = self.lobby
        try:
            reply: dict[str, Any] | None = None
            if op == "join":
                reply = await lobby.join(session, msg)
            elif op == "watch":
                reply = await lobby.watch(session, msg)
            elif op == "act":
                await lobby.act(session, msg)
            elif op == "leave":
                reply = await lobby.leave(session, msg)
            elif op == "chat":
                await lobby.chat(session, msg)
            else:
                raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown relayed request {op!r}")
        except (ProtocolError, GameError) as exc:
            link.refuse(cid, exc.code, exc.message)
        except Exception:
            log.exception("relayed %s from %s failed", op, standin.peer)
            link.refuse(cid, ErrorCode.INTERNAL_ERROR, "internal error")
        else:
            link.reply(cid, reply)
        if not standin.rooms:  # not (or no longer) a member: forget it
            self._forget_standin(standin, room_id)

    def _drop(self, standin: StandIn) -> None:
        """A remote connection is gone: the lobby treats it as a disconnect."""
        room_id = standin.link.room
        self.lobby.disconnect(cast("Session", standin))
        self._forget_standin(standin, room_id)

    def _forget_standin(self, standin: StandIn, room_id: str) -> None:
        node = standin.link.node
        self.standins.pop((room_id, node, standin.sid), None)
        if not any(k[0] == room_id and k[1] == node for k in self.standins):
            link = self.links.pop((room_id, node), None)
            if link is not None:
                link.flush()
