"""A room's summary: what ``rooms`` lists and the ``room`` push says, from committed state.

The summary is the face a room shows to people who are not playing in it (the
lobby's listing, a newcomer deciding whether to take a seat or watch) and to its
members when seats, presence or status change. Everything in it comes from the
room's core as the journal holds it, from its seats and from its members, never
from a pending change: a reader sees nothing the journal may still refuse.

Kept apart from the core because it is a reader's concern: a move never needs
it, and the packed copy here (reused by every listing page) is about how often
readers ask, not about play.
"""

from __future__ import annotations

from typing import Any

import msgpack
from tilehall.server.room.core import RoomCore
from tilehall.server.store.records import SeatRecord

__all__ = ["Summary", "summary_of"]


def summary_of(core: RoomCore) -> dict[str, Any]:
    """The room as listed by ``rooms`` and pushed as ``room``; a room of today's deal says
    which day's deal it is and whether it is practice, so its player knows before playing;
    the server's own all-COMP game says ``showcase`` (a lobby shows it as its live game)."""
    out = {
        "room": core.id,
        "game": core.game.name,
        "options": core.record.options,
        "seats": [
            {
                "name": s.name,
                "bot": s.bot is not None,
                "taken": s.player is not None or s.bot is not None,
                "connected": s.bot is not None or core.connected(i),
            }
            for i, s in enumerate(core.seats)
        ],
        "spectators": sum(1 for seat in core.members.values() if seat is None),
        "status": core.status.value,
        "private": core.private,
        "suspended": core.suspended,
        "paused": core.paused_why(),
        "bots_at": None if core.started else core.fill_at,
    }
    if core.record.daily is not None:
        out["daily"] = core.record.daily
        out["practice"] = core.record.practice
    if core.record.showcase:
        out["showcase"] = True
    return out


class Summary:
    """One room's summary packed, again only when it may have changed."""

    __slots__ = ("_packed", "epoch")

    def __init__(self) -> None:
        self.epoch = 0
        """Moves on whenever the summary may have changed in a way seq does not show
        (members came or went, seats or bots changed): see :meth:`packed`."""
        self._packed: tuple[tuple[Any, ...], tuple[SeatRecord, ...], bytes] | None = None

    def packed(self, core: RoomCore) -> bytes:
        """:func:`summary_of` packed as msgpack, packed again only when it may have changed.

        Why: a ``rooms`` page of 200 rooms is 200 summaries; built and packed
        anew for each page they cost milliseconds of the event loop per page,
        during which every other client waits. What a summary shows changes
        with the journal (seq: status, pauses), the members (each change moves
        the epoch), the seats (a new tuple each time), suspension and the
        quick-match deadline, all in the key; a key that still matches gives
        back the bytes packed before.
        """
        key = (self.epoch, core.seq, core.status, core.suspended, core.fill_at)
        packed = self._packed
        if packed is not None and packed[0] == key and packed[1] is core.seats:
            return packed[2]
        data: bytes = msgpack.packb(summary_of(core), use_bin_type=True)
        self._packed = (key, core.seats, data)
        return data
