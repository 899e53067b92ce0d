"""The room directory: which node hosts each room, and its public summary.

Each host publishes a retained entry per room it hosts (at most once per
event-loop turn per room) and clears it when the room leaves its memory for
good. Every node keeps every entry, to list other nodes' rooms, to find the
room a client names (by id or by private code), and to notice that a room
moved. The store, not the directory, says who hosts a room: an entry is a
message that may be stale, so a host that sees a rival entry asks the store.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from tilehall.server.cluster.wire import Entry, Topics, code_hash, pack, unpack
from tilehall.server.lobby import Lobby
from tilehall.server.room import Room
from tilehall.server.store.errors import StoreUnavailable
from tilehall.server.store.postgres import PostgresStore

__all__ = ["Directory"]

log = logging.getLogger(__name__)


class Directory:
    """Every node's entries as last heard, and this node's own, published.

    Args:
        node: this node's name.
        epoch: this node's incarnation (entries carry it: a new one means the room moved).
        topics: where entries are published.
        lobby: the rooms hosted here.
        store: the truth about who hosts what.
        publish: queue a message for the broker.
        spawn: run a background task.
        on_moved: an entry names a new host for a room (another node's, or now this one's).
        on_rival: another node announces a room this node hosts.
    """

    def __init__(
        self,
        node: str,
        epoch: Callable[[], int],
        topics: Topics,
        lobby: Lobby,
        store: PostgresStore,
        *,
        publish: Callable[..., None],
        spawn: Callable[[Coroutine[Any, Any, Any]], None],
        on_moved: Callable[[Entry, Entry | None], None],
        on_rival: Callable[[str], None],
    ) -> None:
        self.node = node
        self._epoch = epoch
        self.topics = topics
        self.lobby = lobby
        self.store = store
        self._publish = publish
        self._spawn = spawn
        self._on_moved = on_moved
        self._on_rival = on_rival
        self.entries: dict[str, Entry] = {}
        self.hosted: set[str] = set()
        self._dirty: set[str] = set()
        self._due = False
        self._published: dict[str, bytes] = {}

    # -- this node's rooms

    def changed(self, room: Room) -> None:
        """A room hosted here was added, or its summary may have changed."""
        self.hosted.add(room.id)
        self._dirty.add(room.id)
        self._schedule()

    def gone(self, room_id: str) -> None:
        """A room hosted here left memory (finished a while ago, closed, or moved)."""
        self.hosted.discard(room_id)
        self._dirty.add(room_id)
        self._schedule()

    def republish(self) -> None:
        """After (re)connecting: a broker that restarted forgot every retained entry."""
        self._published.clear()
        self._dirty |= self.hosted
        self._schedule()

    def _schedule(self) -> None:
        if not self._due:
            self._due = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._due = False
        dirty, self._dirty = self._dirty, set()
        for room_id in dirty:
            room = self.lobby.rooms.get(room_id)
            if room is None or room_id not in self.hosted:
                published = self._published.pop(room_id, None)
                entry = self.entries.get(room_id)
                if entry is not None and entry.node != self.node:
                    continue  # another node hosts it now: the entry is its own
                if published is not None or entry is not None:
                    self._spawn(self.clear_if_orphan(room_id))
                continue
            code = room.record.private_code
            payload = pack(
                {
                    "node": self.node,
                    "epoch": self._epoch(),
                    "summary": room.summary(),
                    "players": sorted({s.player for s in room.seats if s.player is not None}),
                    "code": code_hash(code) if code else None,
                }
            )
            if self._published.get(room_id) != payload:
                self._published[room_id] = payload
                self._publish(self.topics.directory(room_id), payload, retain=True)

    async def clear_if_orphan(self, room_id: str) -> None:
        """Clear a room's retained entry, unless the store says a node runs it."""
        try:
            record = await self.store.room(room_id)
        except StoreUnavailable:
            return  # asked again when it next changes
        if (
            record is None
            or record.status == "over"
            or (record.node == self.node and room_id not in self.hosted)
        ):
            self._publish(self.topics.directory(room_id), b"", retain=True)

    # -- everyone's rooms

    def on_message(self, room_id: str, payload: bytes) -> None:
        if not payload:
            self.entries.pop(room_id, None)
            return
        entry = Entry.from_wire(room_id, unpack(payload))
        old = self.entries.get(room_id)
        self.entries[room_id] = entry
        if entry.node == self.node:
            if room_id not in self.hosted:  # from an earlier life, or a room let go since
                self._spawn(self.clear_if_orphan(room_id))
            return
        if room_id in self.hosted:
            self._on_rival(room_id)
        if old is None or (old.node, old.epoch) != (entry.node, entry.epoch):
            self._on_moved(entry, old)

    def mark_mine(self, room_id: str) -> None:
        """This node's own entry is to be published again (a rival was stale)."""
        self._published.pop(room_id, None)
        self._dirty.add(room_id)
        self._schedule()

    def listed(self, game: str | None) -> list[dict[str, Any]]:
        """The public rooms other nodes host (``rooms`` on this node lists them too)."""
        return [
            e.summary
            for e in self.entries.values()
            if e.node != self.node
            and not e.summary.get("private")
            and (game is None or e.summary.get("game") == game)
        ]

    def seated(self, player: int) -> list[str]:
        """Rooms other nodes host where ``player`` holds a seat (for ``welcome.rooms``)."""
        return [
            e.room for e in self.entries.values() if e.node != self.node and player in e.players
        ]

    def count(self, node: str) -> int:
        return sum(1 for e in self.entries.values() if e.node == node)
