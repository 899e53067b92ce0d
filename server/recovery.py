"""A room's faults of the store: suspended when an append is not confirmed, then rebuilt.

When an append fails or its outcome is unknown (the database stopped, the
connection dropped mid-commit, the disk is full), the engine already holds a
move that may not be saved: the door drops it (:meth:`RoomCore.drop
<tilehall.server.roomcore.RoomCore.drop>`) and the room is **suspended**:
actions and joins are refused with ``unavailable`` (and ``retry_after``),
members are told by a ``room`` push, bots and clocks stop. Once the store
answers again the room is rebuilt from what the journal really holds, which
settles an append whose commit was in doubt: if it was kept, its update goes
out now; if not, everyone's last view is still right.

A room whose store was down *before* anything changed is only **parked**: its
proposers wait for the store and go on.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from tilehall.server.roomcore import Pending
from tilehall.server.store.base import StoreUnavailable

if TYPE_CHECKING:
    from tilehall.server.room import Room

__all__ = ["REBUILD_BACKOFF", "Recovery"]

log = logging.getLogger(__name__)

REBUILD_BACKOFF = (0.1, 30.0)
"""First and longest pause between two attempts to rebuild a suspended room whose
journal could not be read for a reason other than the store being away, or could be
read but not rebuilt (a defect: it is logged each time)."""


class Recovery:
    """Suspension, rebuild and parking of one room."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.task: asyncio.Task[None] | None = None
        self.parked: asyncio.Task[None] | None = None

    def suspend(self, pending: Pending) -> None:
        """Drop a state the journal may not hold; refuse everything until rebuilt. In the door."""
        room = self.room
        room.core.drop(pending)
        if room.suspended:
            return
        room.suspended = True
        room.bots.forget()  # a bot's memory of the dropped move must go too
        room.ticker.cancel()
        room.push_summary()
        log.warning("room %s suspended at seq %d until its journal can be read", room.id, room.seq)
        self.task = asyncio.create_task(self._rebuild(), name=f"recover-{room.id}")

    async def _rebuild(self) -> None:
        """Once the store answers: rebuild from the journal, tell the members, play on."""
        room = self.room
        health = room.services.health
        pause = REBUILD_BACKOFF[0]
        while not room.closed:
            await health.wait()
            try:
                record = await room.store.room(room.id)
                entries = await room.store.journal(room.id)
            except StoreUnavailable as exc:
                health.failed(exc)
                continue
            except Exception:
                # Not the store being away but its driver failing (asyncpg's "another
                # operation is in progress" on a connection the database dropped): this
                # task is the room's only way back, so it never ends over it.
                log.exception("room %s: its journal could not be read", room.id)
                await room.clock.sleep(pause)
                pause = min(REBUILD_BACKOFF[1], pause * 2)
                continue
            if record is None or record.node != room.record.node:
                log.warning("room %s is no longer this node's; letting it go", room.id)
                room.moved()
                return
            async with room.between_moves():
                before = room.seq
                try:
                    room.core.rebuild(entries)
                except Exception:
                    log.exception("room %s: its journal could not be rebuilt", room.id)
                    await room.clock.sleep(pause)
                    pause = min(REBUILD_BACKOFF[1], pause * 2)
                    continue
                room.suspended = False
                log.warning("room %s restored at seq %d (was %d)", room.id, room.seq, before)
                if room.seq > before:  # the append in doubt had been committed after all
                    room.broadcast(room.core.events_since(before))
                room.push_summary()
                if room.engine is not None:
                    await room.after_change(entries[-1].now)
            if room.engine is None:
                await room.maybe_start()
            return

    def park(self) -> None:
        """The store was down before anything changed: wait for it, then re-arm clocks and bots."""
        if self.parked is not None and not self.parked.done():
            return
        room = self.room

        async def unpark() -> None:
            await room.services.health.wait()
            if not room.closed and not room.suspended:
                room.ticker.arm()
                room.bots.wake()
                if room.engine is None:
                    await room.maybe_start()

        self.parked = asyncio.create_task(unpark(), name=f"park-{room.id}")

    def cancel(self) -> None:
        for task in (self.task, self.parked):
            if task is not None:
                task.cancel()
