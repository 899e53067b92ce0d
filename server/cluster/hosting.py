"""The host's side: connections on other nodes, as members of the rooms hosted here.

Each relayed connection becomes a :class:`StandIn` member of the real room, so
the room's own code checks its seat and sends it exactly the frames (per-seat
views, private events) it would send a local connection. A :class:`Link`
batches what the stand-ins of one node receive in one room into one message per
event-loop turn, replies and refusals included, in order.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import secrets
from collections.abc import Callable
from typing import Any

from tilehall.protocol import ErrorCode, ProtocolError, encode
from tilehall.server.cluster.wire import Topics, pack
from tilehall.server.games.base import GameError
from tilehall.server.lobby import Lobby
from tilehall.server.store.records import PlayerRecord

__all__ = ["RELAYED", "Hosting", "Link", "StandIn"]

RELAYED = ("join", "watch", "act", "leave", "chat")
"""The requests another node relays for its connections in a room hosted here."""

log = logging.getLogger(__name__)


class StandIn:
    """A connection on another node, as a :class:`~tilehall.server.room.member.Member` here.

    Frames sent to it go to its node's :class:`Link`. It is never closed from
    here: the connection belongs to its own node.
    """

    def __init__(self, link: Link, sid: int, player: PlayerRecord) -> None:
        self.link = link
        self.sid = sid
        self.player: PlayerRecord | None = player
        self.rooms: dict[str, int | None] = {}
        self.compact = False
        """Its node says in each join whether the connection wants compact updates."""
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
        log.info(
            "not closing %s (%d %s): it belongs to node %s", self.peer, code, reason, self.link.node
        )


class Link:
    """What the stand-ins of one node in one room receive: one message per loop turn.

    Frames the room encoded once for several stand-ins (same seat, same view)
    travel once. Messages are numbered; ``id`` tells this link from an earlier
    one between the same room and node.
    """

    def __init__(
        self, host: str, room: str, node: str, topics: Topics, publish: Callable[[str, bytes], None]
    ) -> None:
        self.host = host
        self.room = room
        self.node = node
        self.topic = topics.room_out(room, node)
        self._publish = publish
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

    def refuse(
        self, cid: int | None, code: str, message: str, about: dict[str, Any] | None = None
    ) -> None:
        """A refusal for the request ``cid``; ``about``: a game refusal's cells and tiles."""
        if cid is not None:
            self._add(["e", cid, code, message, about] if about else ["e", cid, code, message])

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
            "host": self.host,
            "link": self.id,
            "n": self.n,
            "blobs": self.blobs,
            "items": self.items,
        }
        self.items, self.blobs, self._index = [], [], {}
        self._publish(self.topic, pack(batch))


class Hosting:
    """Serve the requests other nodes relay for rooms hosted here, one room at a time.

    Args:
        node: this node's name.
        topics: where links send.
        lobby: the lobby that runs the rooms.
        publish: queue a message for the broker.
        alive: whether a node is not known to be gone (requests of a gone node are dropped).
    """

    def __init__(
        self,
        node: str,
        topics: Topics,
        lobby: Lobby,
        publish: Callable[[str, bytes], None],
        alive: Callable[[str], bool],
    ) -> None:
        self.node = node
        self.topics = topics
        self.lobby = lobby
        self._publish = publish
        self._alive = alive
        self.links: dict[tuple[str, str], Link] = {}
        self.standins: dict[tuple[str, str, int], StandIn] = {}
        self._requests: dict[str, collections.deque[dict[str, Any]]] = {}
        self._workers: dict[str, asyncio.Task[None]] = {}

    def on_request(self, req: dict[str, Any]) -> None:
        """One relayed request. A room's requests are served in arrival order: a drop
        never overtakes the join before it."""
        room_id = req["room"]
        queue = self._requests.setdefault(room_id, collections.deque())
        queue.append(req)
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
                self.drop(standin)
            return
        if not self._alive(node):
            return  # its node is gone; nobody waits for this
        link = self.links.get((room_id, node))
        if link is None:
            link = self.links[(room_id, node)] = Link(
                self.node, room_id, node, self.topics, self._publish
            )
        standin = self.standins.get((room_id, node, sid))
        if standin is None:
            player = PlayerRecord(id=req["player"][0], name=req["player"][1])
            standin = self.standins[(room_id, node, sid)] = StandIn(link, sid, player)
        msg = req["msg"]
        try:
            if op not in RELAYED:
                raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown relayed request {op!r}")
            reply = await self.lobby.routes[op](standin, msg)
            assert reply is None or isinstance(reply, dict)
        except (ProtocolError, GameError) as exc:
            about = {k: v for k in ("cells", "tiles") if (v := getattr(exc, k, None))}
            link.refuse(cid, exc.code, exc.message, about)
        except Exception:
            log.exception("relayed %s from %s failed", op, standin.peer)
            link.refuse(cid, ErrorCode.INTERNAL_ERROR, "internal error")
        else:
            link.reply(cid, reply)
        if not standin.rooms:  # not (or no longer) a member: forget it
            self._forget(standin, room_id)

    def drop(self, standin: StandIn) -> None:
        """A remote connection is gone: the lobby treats it as a disconnect."""
        room_id = standin.link.room
        self.lobby.disconnect(standin)
        self._forget(standin, room_id)

    def drop_node(self, node: str) -> None:
        """Every connection of ``node`` is gone (the node is)."""
        for key, standin in list(self.standins.items()):
            if key[1] == node:
                self.drop(standin)

    def drop_room(self, room_id: str) -> None:
        """The room left this node: its stand-ins go with it."""
        for key, standin in list(self.standins.items()):
            if key[0] == room_id:
                self.drop(standin)

    def _forget(self, standin: StandIn, room_id: str) -> None:
        node = standin.link.node
        self.standins.pop((room_id, node, standin.sid), None)
        if not any(k[0] == room_id and k[1] == node for k in self.standins):
            link = self.links.pop((room_id, node), None)
            if link is not None:
                link.flush()

    def stop(self) -> None:
        for task in self._workers.values():
            task.cancel()
