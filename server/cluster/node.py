"""This node's place in the cluster: presence, takeovers, handovers and where new rooms go.

:class:`Cluster` composes the parts, each in its own module: the broker
connection (:mod:`.bus`), the lease that says who is alive (:mod:`.leases`),
the room directory (:mod:`.directory`), the relaying of this node's connections
to rooms hosted elsewhere (:mod:`.relay`) and the serving of other nodes'
connections in rooms hosted here (:mod:`.hosting`). The lobby talks to it
through a few hooks; nothing else in the server knows about MQTT.

Who runs a room is what the store's ``rooms.node`` says. It changes in three
ways only, each one ``UPDATE`` that exactly one node can win:

- **takeover**: a node whose lease has lapsed loses its rooms to the nodes that
  claim them (:meth:`PostgresStore.claim_lapsed`). A Last Will only makes the
  others look sooner; the lease decides.
- **handover**: a node that stops (SIGTERM) or is drained gives each of its
  rooms to a live node at once and tells it to adopt it; its players are told
  where to reconnect.
- **placement**: a new room is created for the least loaded live node.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Coroutine
from typing import Any

from tilehall.protocol import ProtocolError
from tilehall.server.cluster.bus import Bus, BusSettings
from tilehall.server.cluster.directory import Directory
from tilehall.server.cluster.hosting import Hosting, StandIn
from tilehall.server.cluster.leases import Leases
from tilehall.server.cluster.relay import Relay, RemoteRoom
from tilehall.server.cluster.routing import route_remote_first
from tilehall.server.cluster.wire import CONTROL, Entry, Presence, catch_up_update, pack, unpack
from tilehall.server.config import Config, read_secret
from tilehall.server.games.base import GameError
from tilehall.server.lobby import Lobby
from tilehall.server.room import Room
from tilehall.server.room.member import Member
from tilehall.server.store.errors import StoreUnavailable
from tilehall.server.store.postgres import NodeRecord, PostgresStore
from tilehall.server.store.records import RoomRecord

__all__ = ["Cluster"]

log = logging.getLogger(__name__)

CONNECT_TIMEOUT = 10.0
"""Seconds :meth:`Cluster.start` waits for the broker before serving without it."""
PLACE_TIMEOUT = 2.0
"""Seconds a new room placed on another node may take to be announced from there;
after that it is taken back and hosted here."""
PLACE_SLACK = 2
"""Rooms this node may host beyond the least loaded node before new rooms go elsewhere:
a local room costs no relaying, so a small imbalance is worth keeping."""
WILL_PATIENCE = 3
"""Leases a node named by a Last Will may keep renewing before the Will is taken for
what it is (a broker restart, not a death) and no longer watched."""


class Cluster:
    """This node's side of the cluster.

    To the lobby it is the other nodes (:class:`~tilehall.server.lobby.Others`:
    ``place``, ``host_new_room``, ``listed``, ``seated``, ``room_changed``,
    ``room_gone``, ``room_lost``, ``signed_out``, ``disconnect``), and the router
    that sends requests about rooms hosted elsewhere there (:mod:`.routing`).
    """

    def __init__(self, config: Config, lobby: Lobby) -> None:
        if not config.mqtt:
            raise ValueError("cluster mode needs a broker URL (--mqtt mqtt://host:port)")
        if not config.node or any(c in config.node for c in "/+#"):
            raise ValueError(f"a cluster node needs a name without / + #, not {config.node!r}")
        if not isinstance(lobby.store, PostgresStore):
            raise ValueError("--mqtt needs a PostgreSQL store shared by the nodes")
        self.config = config
        self.node = config.node
        self.lobby = lobby
        self.store: PostgresStore = lobby.store
        settings = BusSettings(
            config.mqtt, password=read_secret(config.mqtt_password_file, "TILEHALL_MQTT_PASSWORD")
        )
        self.topics = settings.topics
        self.url = config.public_url or ""
        self.draining = False
        self._stopping = False
        self._tasks: set[asyncio.Task[Any]] = set()
        self._taking: set[str] = set()
        self._watching: set[str] = set()
        self._placed: dict[str, asyncio.Future[Entry]] = {}
        self.presence: dict[str, Presence] = {}
        self.heard: dict[str, int] = {}
        """The bus connection (``bus.conn``) on which each other node's presence was last
        heard: a node not heard on the current one may not be on the bus (see reachable)."""
        self.leases = Leases(
            self.store,
            self.node,
            url=self.url,
            lease=config.lease,
            load=lambda: len(self.directory.hosted),
            on_lapsed=self._lapsed,
            on_superseded=self._superseded,
        )
        self.bus = Bus(
            settings,
            self.node,
            keepalive=config.mqtt_keepalive,
            presence=self._presence,
            on_message=self._on_message,
            on_connected=self._on_connected,
            on_disconnected=self._on_disconnected,
        )
        self.directory = Directory(
            self.node,
            lambda: self.leases.epoch,
            self.topics,
            lobby,
            self.store,
            publish=self.bus.publish,
            spawn=self.spawn,
            on_moved=self._on_moved,
            on_rival=self._rival,
        )
        self.relay = Relay(
            self.node,
            self.topics,
            self.store,
            publish=self._publish_now,
            connected=self.bus.connected.is_set,
            alive=self.alive,
            reachable=self.reachable,
            directory=self.directory.entries,
            spawn=self.spawn,
        )
        self.hosting = Hosting(self.node, self.topics, lobby, self.bus.publish, self.alive)

    # -- life cycle -------------------------------------------------------------------

    async def start(self) -> None:
        """Join: fence the store, take a lease, connect, announce this node and its rooms."""
        self.store.owner = self.node  # appends only to rooms this node owns
        await self.leases.start()
        self.lobby.registry.others = self
        route_remote_first(self.lobby, self.remote_room)
        for room in self.lobby.rooms.values():
            self.directory.changed(room)
        self.bus.start()
        try:
            async with asyncio.timeout(CONNECT_TIMEOUT):
                await self.bus.connected.wait()
        except TimeoutError:
            log.error("broker %s unreachable; serving, and still trying", self.bus.where)

    async def stop(self) -> None:
        """Leave: hand every room over, say so in the store and on the bus, disconnect."""
        self._stopping = True
        with contextlib.suppress(StoreUnavailable):
            await self.store.set_node(self.node, stopped=True)
        await self.bus.stop(goodbye=self._presence("offline", self.bus.conn))
        await self.leases.stop()
        self.hosting.stop()
        for task in list(self._tasks):
            task.cancel()

    def not_ready(self) -> list[str]:
        """Why this node cannot serve the cluster's rooms now (``/readyz``)."""
        problems = []
        if not self.bus.connected.is_set():
            problems.append(f"broker {self.bus.where} unreachable")
        if self.leases.healthy_since is None:
            problems.append("lease not renewed in the store")
        if self.draining:
            problems.append("draining: handing its rooms to other nodes")
        return problems

    def spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled() or (exc := task.exception()) is None:
            return
        if not isinstance(exc, ProtocolError | GameError):  # refusals were answered already
            log.error("cluster task failed", exc_info=exc)

    def _superseded(self) -> None:
        import os
        import signal

        os.kill(os.getpid(), signal.SIGTERM)

    # -- the bus ----------------------------------------------------------------------

    def _presence(self, state: str, conn: int) -> Presence:
        return Presence(self.node, state, self.leases.epoch, conn, self.url)

    async def _publish_now(self, topic: str, payload: bytes) -> None:
        client = self.bus._client
        if client is None:
            import aiomqtt

            raise aiomqtt.MqttError("not connected")
        await client.publish(topic, payload, qos=1)

    def _on_connected(self) -> None:
        self.directory.republish()
        self.spawn(self._reannounce())

    def _on_disconnected(self) -> None:
        # Answers to requests relayed over the lost connection can no longer arrive.
        self.relay.fail_all("the cluster bus went down before the answer came")

    def _on_message(self, parts: list[str], payload: bytes) -> None:
        if parts[0] == "node" and len(parts) == 2:
            self._on_presence(parts[1], payload)
        elif parts[0] == "node" and len(parts) == 3 and parts[1] == self.node and parts[2] == "in":
            self._on_inbox(unpack(payload))
        elif parts[0] == "dir" and len(parts) == 2:
            self.directory.on_message(parts[1], payload)
        elif parts[0] == "room" and len(parts) == 4 and parts[3] == self.node:
            self.relay.on_batch(parts[1], payload)

    async def _reannounce(self) -> None:
        """After (re)connecting: let go of the rooms the store gave to others meanwhile."""
        for room_id in list(self.directory.hosted):
            try:
                record = await self.store.room(room_id)
            except StoreUnavailable:
                return  # the rooms find out themselves when they next write
            if record is not None and record.node != self.node:
                await self._check_lost(room_id)

    # -- presence: only a hint ----------------------------------------------------------

    def _on_presence(self, node: str, payload: bytes) -> None:
        if not payload:
            return
        info = Presence.from_wire(unpack(payload))
        if node == self.node:
            if (
                info.state == "offline"
                and not self._stopping
                and info.order
                <= (
                    self.leases.epoch,
                    self.bus.conn,
                )
            ):
                # Declared dead while alive (the broker restarted, or this node was cut
                # off): say otherwise at once. The lease decides what happens to rooms.
                self.spawn(self.bus.say_presence())
            return
        known = self.presence.get(node)
        if known is not None and info.order < known.order:
            return  # older than what is known: a late Will, a stale retained message
        first = self.heard.get(node) != self.bus.conn
        self.heard[node] = self.bus.conn
        if known is not None and info.order == known.order and info.state == known.state:
            if first and info.state == "online":
                # Heard again after this node reconnected: what it sent us meanwhile, and
                # re-entries refused while it was not heard, are to be done again.
                self.relay.resync_host(node)
            return
        self.presence[node] = info
        if info.state == "online":
            self.relay.resync_host(node)  # whatever it sent meanwhile may be lost
            return
        log.warning("node %s is offline on the bus; checking its lease", node)
        if node not in self._watching:
            self.spawn(self._watch_lapse(node))

    def alive(self, node: str) -> bool:
        """Not known to be offline (a node not heard of yet is given the benefit of the doubt)."""
        known = self.presence.get(node)
        return node == self.node or known is None or known.state != "offline"

    def reachable(self, node: str) -> bool:
        """Whether a request sent to ``node`` now can reach it: it is alive, and its
        presence was heard on this node's current bus connection.

        After a broker restart the nodes come back one by one; a request sent to
        a node not yet back would be lost (nobody holds its subscriptions), and its
        sender would wait the whole request timeout. Every node says its presence
        after subscribing, so once it is heard its inbox is listened to.
        """
        return self.alive(node) and self.heard.get(node) == self.bus.conn

    async def _watch_lapse(self, node: str) -> None:
        """A Will named ``node``: take its rooms when its lease lapses, unless it renews."""
        self._watching.add(node)
        try:
            loop = asyncio.get_running_loop()
            give_up = loop.time() + WILL_PATIENCE * self.leases.lease
            while loop.time() < give_up and not self._stopping:
                if self.alive(node):
                    return  # it is back on the bus
                left = self.leases.lapse_in(node)
                if left is not None and left <= 0:
                    await self.takeover(node)
                    return
                await asyncio.sleep(self.leases.interval if left is None else left + 0.05)
            log.info("node %s keeps renewing its lease: the Will was not a death", node)
        finally:
            self._watching.discard(node)

    # -- takeover ---------------------------------------------------------------------

    def _lapsed(self, node: str) -> None:
        if node not in self._taking and not self._stopping:
            self.spawn(self.takeover(node))

    async def takeover(self, node: str) -> None:
        """``node``'s lease lapsed: claim its rooms (each goes to exactly one node)."""
        if node in self._taking:
            return
        self._taking.add(node)
        try:
            self.hosting.drop_node(node)
            self.relay.fail_node(node)
            await asyncio.sleep(random.uniform(0, 0.05))  # spread the rooms over the claimants
            try:
                rooms = {r.id for r in await self.store.unfinished_rooms(node)}
            except StoreUnavailable:
                return  # the next scan tries again
            rooms |= {e.room for e in self.directory.entries.values() if e.node == node}
            order = sorted(rooms)
            random.shuffle(order)
            since = self.leases.healthy_since
            for room_id in order:
                if self._stopping or self.draining or since is None:
                    return
                try:
                    record = await self.store.claim_lapsed(
                        room_id, node, self.node, lease=self.leases.lease, healthy_since=since
                    )
                except StoreUnavailable:
                    return
                if record is None:
                    await self.directory.clear_if_orphan(room_id)
                    continue
                log.warning("took room %s over from node %s", room_id, node)
                await self._adopt(record)
        finally:
            self._taking.discard(node)

    async def _adopt(self, record: RoomRecord) -> None:
        if record.id in self.lobby.rooms:
            return
        if await self.lobby.registry.adopt(record) is None:
            log.error("room %s could not be rebuilt here", record.id)

    # -- the inbox: other nodes' requests, and orders ------------------------------------

    def _on_inbox(self, msg: dict[str, Any]) -> None:
        op = msg.get("op")
        if op in CONTROL:
            self.spawn(self._control(msg))
        else:
            self.hosting.on_request(msg)

    async def _control(self, msg: dict[str, Any]) -> None:
        op = msg["op"]
        if op == "adopt":
            record = await self.store.room(msg["room"])
            if record is not None and record.node == self.node and record.status != "over":
                await self._adopt(record)
            elif record is not None:
                await self.directory.clear_if_orphan(record.id)
        elif op == "drain":
            await self.drain(stopping=False)
        elif op == "undrain":
            self.draining = False
            await self.store.set_node(self.node, draining=False)
            log.warning("node %s takes new rooms again", self.node)
        elif op == "sign_out":
            self.lobby.accounts.close_signed_in(msg["player"], msg.get("token"), msg["code"])

    def signed_out(self, player: int, token: bytes | None, code: int) -> None:
        """Tell the other nodes to close ``player``'s connections: those holding the token
        that hashes to ``token``, or all (None). At most once each; a node off the bus
        meanwhile keeps them until they next say ``hello`` (the token is gone from the store)."""
        order = pack({"op": "sign_out", "player": player, "token": token, "code": code})
        for node in list(self.presence):
            if node != self.node:
                self.bus.publish(self.topics.inbox(node), order)

    # -- the directory's news ------------------------------------------------------------

    def _on_moved(self, entry: Entry, old: Entry | None) -> None:
        placed = self._placed.get(entry.room)
        if placed is not None and not placed.done():
            placed.set_result(entry)
        remote = self.relay.remote.get(entry.room)
        if remote is not None:
            remote.rehost(entry)

    def room_lost(self, room: Room) -> None:
        """The store names another node for a room here."""
        self.spawn(self._check_lost(room.id))

    def _rival(self, room_id: str) -> None:
        """Another node announces a room hosted here."""
        self.spawn(self._check_lost(room_id))

    async def _check_lost(self, room_id: str) -> None:
        """Let a room go if the store agrees it is another node's; else announce ours again."""
        record = await self.store.room(room_id)
        room = self.lobby.rooms.get(room_id)
        if record is None or room is None:
            return
        if record.node == self.node:
            self.directory.mark_mine(room_id)
            return
        log.warning("room %s now belongs to node %s; letting it go", room_id, record.node)
        # Between the room's moves, as a handover does: an act holds the door from the
        # engine's step until its append is answered (here: refused, the room is fenced), and
        # the copy let go in between would leave behind a room ahead of its journal,
        # still reachable by that act's suspension and recovery. Once the act is done
        # this copy is let go as it stands, at the seq its journal holds.
        async with room.between_moves():
            if self.lobby.rooms.get(room_id) is not room:
                return  # let go meanwhile (another check, or its own recovery's)
            self._relay_members(room, record.node)

    def _relay_members(self, room: Room, host: str) -> None:
        """Let ``room`` go; this node's connections in it follow it to ``host``.

        Between the room's moves: ``room.seq`` is then what the journal holds, each
        connection's last seq at the new host.
        """
        members = [(s, seat) for s, seat in room.members.items() if not isinstance(s, StandIn)]
        seq = room.seq
        self.lobby.registry.release(room)
        if not members:
            return
        # Its entry may not have reached us yet; the real one, when it comes, resyncs again.
        entry = self.directory.entries.get(room.id)
        if entry is None or entry.node != host:
            entry = Entry(room.id, host, 0, {}, (), None)
        remote = self.relay.remote.setdefault(room.id, RemoteRoom(self.relay, entry))
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
                    reply = await self.lobby.membership.watch(session, msg)
                else:
                    reply = await self.lobby.membership.join(session, msg)
            except (ProtocolError, GameError) as exc:
                log.warning("room %s: could not bring %s back: %s", remote.id, session.peer, exc)
                continue
            if reply is not None and (update := catch_up_update(remote.id, reply, last)):
                session.send_msg(update)

    # -- hooks of the lobby --------------------------------------------------------------

    def room_changed(self, room: Room) -> None:
        """A room hosted here was added, or its summary may have changed."""
        if room.id not in self.directory.hosted:
            remote = self.relay.remote.pop(room.id, None)
            if remote is not None:  # this node took over a room its connections were in
                self.spawn(self._localize(remote))
        self.directory.changed(room)

    def room_gone(self, room: Room) -> None:
        """A room hosted here left memory (finished a while ago, closed, or moved)."""
        if room.id not in self.directory.hosted:
            return
        self.hosting.drop_room(room.id)
        self.directory.gone(room.id)

    async def remote_room(self, session: Member, msg: dict[str, Any]) -> RemoteRoom | None:
        """The proxy of the room ``msg`` names, if another node hosts it."""
        if isinstance(session, StandIn):
            return None  # a relayed request is for a room hosted here, or for none
        return await self.relay.remote_room(session, msg)

    def listed(self, game: str | None) -> list[dict[str, Any]]:
        return self.directory.listed(game)

    def seated(self, player: int) -> list[str]:
        return self.directory.seated(player)

    def disconnect(self, session: Member) -> None:
        self.relay.disconnect(session)

    # -- where new rooms go ---------------------------------------------------------------

    def place(self) -> str:
        """The node a new room should run on: the least loaded live one, this one if close."""
        if self.draining:
            candidates = [r for r in self.leases.live() if r.name != self.node]
        else:
            candidates = self.leases.live()
        # A node whose Will came (killed: the broker saw its socket close) keeps its lease
        # for up to a lease more; a room placed there would keep its maker waiting out
        # PLACE_TIMEOUT before being taken back. Only a hint, but one that costs nothing.
        candidates = [r for r in candidates if r.name == self.node or self.reachable(r.name)]
        if not candidates or not self.bus.connected.is_set():
            return self.node
        load = {r.name: self._load(r) for r in candidates}
        best = min(load, key=lambda n: (load[n], n != self.node))
        mine = load.get(self.node)
        if mine is not None and mine <= load[best] + PLACE_SLACK:
            return self.node
        return best

    def keeps_showcase(self) -> bool:
        """The node that keeps the showcase: the first by name of the live nodes (as the
        leases in the store say, every node reading the same table), while this one is
        on the bus and not draining. A node that stops or dies hands its showcase on
        like any room; the next first node then sees it listed and makes none."""
        if self.draining or not self.bus.connected.is_set():
            return False
        live = [r.name for r in self.leases.live() if r.name == self.node or self.reachable(r.name)]
        return bool(live) and min(live) == self.node

    def _load(self, record: NodeRecord) -> int:
        if record.name == self.node:
            return len(self.directory.hosted)
        # Its count as of its last renewal, or what the directory shows since, if more.
        return max(record.rooms, self.directory.count(record.name))

    async def host_new_room(self, record: RoomRecord) -> RoomRecord | None:
        """Have ``record.node`` (another node) run a room just created for it.

        Returns None once that node announced the room, so that the creator's
        next request finds it; if it did not in time, the room is taken back and
        its record, now this node's, returned to be run here.
        """
        placed: asyncio.Future[Entry] = asyncio.get_running_loop().create_future()
        self._placed[record.id] = placed
        try:
            await self._publish_now(
                self.topics.inbox(record.node), pack({"op": "adopt", "room": record.id})
            )
            async with asyncio.timeout(PLACE_TIMEOUT):
                await placed
            return None
        except Exception as exc:  # the bus is down, or no answer: keep it here
            log.warning(
                "room %s not taken by %s (%s); hosting it here", record.id, record.node, exc
            )
        finally:
            self._placed.pop(record.id, None)
        back = await self.store.hand_over(record.id, record.node, self.node)
        return back  # None: it was adopted there after all

    # -- handing rooms over ----------------------------------------------------------------

    def redirect_urls(self) -> list[str]:
        """Where this node's players may reconnect: the other live nodes' public URLs."""
        return [r.url for r in self.leases.live() if r.name != self.node and r.url]

    async def drain(self, *, stopping: bool) -> int:
        """Hand every room hosted here to the other live nodes, at once; returns how many.

        ``stopping``: this node is going away (SIGTERM): its own connections are
        about to be told where to reconnect. Otherwise (``admin drain``) it stays
        up, takes no new rooms, and its connections follow their rooms there.
        """
        self.draining = True
        with contextlib.suppress(StoreUnavailable):
            await self.store.set_node(self.node, draining=True)
            await self.leases.refresh()  # a node that joined a moment ago is a target too
        targets = {r.name: self._load(r) for r in self.leases.live() if r.name != self.node}
        if not targets or not self.bus.connected.is_set():
            log.warning("node %s: no other node to hand its rooms to", self.node)
            return 0
        moved = 0
        for room in list(self.lobby.rooms.values()):
            if room.closed or room.status.value == "over":
                continue
            target = min(targets, key=lambda n: (targets[n], n))
            async with room.between_moves():
                try:
                    record = await self.store.hand_over(room.id, self.node, target)
                except StoreUnavailable:
                    log.error("room %s: the store did not answer; it stays here", room.id)
                    continue
                if record is None:
                    continue
                targets[target] += 1
                moved += 1
                if stopping:
                    self.lobby.registry.release(room)
                else:
                    self._relay_members(room, target)
            self.bus.publish(self.topics.inbox(target), pack({"op": "adopt", "room": room.id}))
        log.warning("node %s handed %d rooms over", self.node, moved)
        return moved

    async def drain_node(self, node: str) -> None:
        """``admin drain NODE`` on any node: this one, or tell that one."""
        if node == self.node:
            await self.drain(stopping=False)
        else:
            self.bus.publish(self.topics.inbox(node), pack({"op": "drain"}))

    async def undrain_node(self, node: str) -> None:
        """``admin undrain NODE``: it takes new rooms again (rooms it handed over stay moved)."""
        self.bus.publish(self.topics.inbox(node), pack({"op": "undrain"}))

    async def cluster_rooms(self) -> list[dict[str, Any]]:
        """Every node's rooms, for ``admin rooms``: this node's live, the others' as announced."""
        out = []
        for entry in self.directory.entries.values():
            if entry.node != self.node:
                out.append({**entry.summary, "node": entry.node})
        return out

    def nodes(self) -> list[dict[str, Any]]:
        """The nodes as the store knows them, for ``admin nodes``."""
        now = self.leases.db_now()
        return [
            {
                "node": r.name,
                "epoch": r.epoch,
                "url": r.url,
                "rooms": self._load(r),
                "lease_left": round(r.renewed_at + self.leases.lease - now, 2),
                "draining": r.draining,
                "stopped": r.stopped,
                "on_bus": self.alive(r.name),
            }
            for r in self.leases.nodes.values()
        ]
