"""A room's summary: what ``rooms`` lists and the ``room`` push says, from committed state.

The summary is the face a room shows to people who are not playing in it (the
lobby's listing, a newcomer deciding whether to take a seat or watch) and to its
members when seats, presence or status change. Everything in it comes from the
room's core as the journal holds it, from its seats and from its members, never
from a pending change: a reader sees nothing the journal may still refuse.

Kept apart from :mod:`tilehall.server.room` because it is a reader's concern:
the room's door (:meth:`Room.submit`) never needs it, and the two caches here
(the packed bytes a listing page reuses, the one push per event-loop turn) are
about how often readers ask, not about play.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import msgpack
from tilehall.protocol import encode
from tilehall.server.games import Status
from tilehall.server.store.base import SeatRecord

if TYPE_CHECKING:
    from tilehall.server.room import Room

__all__ = ["Summary", "paused_why", "summary_of"]


def summary_of(room: Room) -> dict[str, Any]:
    """The room as listed by ``rooms`` and pushed as ``room``."""
    return {
        "room": room.id,
        "game": room.game.name,
        "options": room.record.options,
        "seats": [
            {
                "name": s.name,
                "bot": s.bot is not None,
                "taken": s.player is not None or s.bot is not None,
                "connected": s.bot is not None or room.connected(i),
            }
            for i, s in enumerate(room.seats)
        ],
        "spectators": sum(1 for seat in room.members.values() if seat is None),
        "status": room.status.value,
        "private": room.private,
        "suspended": room.suspended,
        "paused": paused_why(room),
        "bots_at": None if room.core.started else room.fill_at,
    }


def paused_why(room: Room) -> str | None:
    """Why play stands still: ``away``/``player`` (a pause), or ``unwatched`` (bots only,
    waiting for a spectator); None while it goes on."""
    core = room.core
    if core.status is not Status.PLAYING:
        return None
    if core.paused is not None:
        return core.paused.value
    return "unwatched" if room.unattended() else None


class Summary:
    """One room's summary as readers get it: packed once per change, pushed once per turn."""

    __slots__ = ("_due", "_packed", "epoch")

    def __init__(self) -> None:
        self._due = False
        self.epoch = 0
        """Moves on whenever the summary may have changed in a way seq does not show
        (members came or went, seats or bots changed): see :meth:`packed`."""
        self._packed: tuple[tuple[Any, ...], list[SeatRecord], bytes] | None = None

    def packed(self, room: Room) -> bytes:
        """:func:`summary_of` packed as msgpack, packed again only when it may have changed.

        Why: a ``rooms`` page of 200 rooms is 200 summaries; built and packed
        anew for each page they cost milliseconds of the event loop per page,
        during which every other client waits. What a summary shows changes
        with the journal (seq: status, pauses), the members (each change calls
        :meth:`push`, which moves the epoch), the seats (a new list each time),
        suspension and the quick-match deadline, all in the key; a key that
        still matches gives back the bytes packed before.
        """
        key = (self.epoch, room.seq, room.status, room.suspended, room.fill_at)
        packed = self._packed
        if packed is not None and packed[0] == key and packed[1] is room.seats:
            return packed[2]
        data: bytes = msgpack.packb(summary_of(room), use_bin_type=True)
        self._packed = (key, room.seats, data)
        return data

    def push(self, room: Room) -> None:
        """Send every member the room's summary: one snapshot per event-loop turn.

        Joins and leaves come in bursts (a crowd arriving to watch). A summary
        each would cost n*n frames for n arrivals and overflow the members' send
        queues, disconnecting them; the summary is a whole snapshot, so the last
        one of a turn says everything the others would have.
        """
        self.epoch += 1
        if not self._due:
            self._due = True
            asyncio.get_running_loop().call_soon(self._push_now, room)

    def _push_now(self, room: Room) -> None:
        self._due = False
        if room.closed:  # let go or closed: what it would say is no longer anyone's news
            return
        room.changed()
        data = encode({"t": "room", **summary_of(room)})
        for member in room.members:
            member.push(data)
