"""``rooms``: one page of the public rooms, by id, filtered by game and status.

Every room's summary is its committed state (:class:`~tilehall.server.room.RoomCore`):
a move still waiting for its append is not listed.
"""

from __future__ import annotations

import bisect
import functools
import heapq
import itertools
from collections.abc import Iterable
from typing import Any

from tilehall.protocol import ErrorCode, ProtocolError
from tilehall.server.lobby.pages import (
    PAGE_DEFAULT,
    PAGE_SCAN,
    STATUSES,
    Frame,
    Listed,
    Page,
    by_room,
    packed,
)
from tilehall.server.lobby.registry import Registry
from tilehall.server.room.member import Member

__all__ = ["Listing"]


class Listing:
    """The ``rooms`` request, over the lobby's :class:`Registry`."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    async def rooms(self, session: Member, msg: dict[str, Any]) -> Frame:
        """``rooms``: one page (:meth:`page`)."""
        return self.page(msg)

    def page(self, msg: dict[str, Any]) -> Frame:
        """One page of the public rooms, by id, filtered by game and status.

        A page holds at most ``limit`` rooms (default 50, at most 200) and at
        most ``PAGE_BYTES`` of their summaries, so a reply stays far under the
        frame limit however many rooms there are and however long their
        players' names; ``next`` is the cursor of the following page (null on
        the last one). Only the rooms of the page are summarised, and at most
        ``PAGE_SCAN`` rooms are looked at (of the game asked for, when it is):
        a filter that matches few rooms gets a short page (maybe empty) and a
        ``next`` to go on from, so no request costs more than a bounded amount
        however many rooms there are.

        Each room's summary is kept packed (:meth:`Room.packed_summary`) and the
        reply is joined from those bytes, not packed again: a page of 200 costs
        tens of microseconds, not milliseconds of the loop other clients wait
        on. The reply counts as :func:`rooms_cost` requests of the asker's budget.
        """
        game, status = msg.get("game"), msg.get("status")
        if status is not None and status not in STATUSES:
            raise ProtocolError(
                ErrorCode.OUT_OF_RANGE,
                f"rooms.status is one of {', '.join(STATUSES)}, not {status!r}",
            )
        limit: int = msg.get("limit") or PAGE_DEFAULT
        after: str = msg.get("cursor") or ""
        registry = self.registry
        ids = registry.listed if game is None else registry.listed_by_game.get(game, [])
        start = bisect.bisect_right(ids, after)
        elsewhere = registry.others.listed(game)  # the other nodes' rooms, as announced
        if not elsewhere:
            return self._local_page(ids, start, status, limit, msg.get("id"))
        rooms = registry.rooms
        candidates: Iterable[Listed] = (
            # Status is a StrEnum: it compares equal to its wire string as it is.
            Listed(rid, room.game.name, room.status, room.packed_summary)
            for rid in itertools.islice(ids, start, None)
            if (room := rooms.get(rid)) is not None
        )
        remote = sorted(
            (
                Listed(s["room"], s["game"], s["status"], functools.partial(packed, s))
                for s in elsewhere
                if s["room"] > after
            ),
            key=by_room,
        )
        candidates = heapq.merge(candidates, remote, key=by_room)
        page = Page(limit)
        seen = ""
        for looked, item in enumerate(candidates):
            if looked == PAGE_SCAN:
                page.next = seen
                break
            if item.room == seen:
                continue  # moving between nodes this instant: listed once
            seen = item.room
            if (game is not None and item.game != game) or (
                status is not None and item.status != status
            ):
                continue
            if not page.add(item.room, item.packed):
                break
        return page.frame(msg.get("id"))

    def _local_page(
        self, ids: list[str], start: int, status: str | None, limit: int, re: int | None
    ) -> Frame:
        """:meth:`page` when no other node has rooms: the same page, walked on the index.

        ``ids`` holds only the game asked for, if any. No record is made per room
        looked at: a room that does not match costs a lookup and a comparison,
        so a filter that matches nothing costs about 0.1 ms for its 1,000 rooms.
        """
        rooms = self.registry.rooms
        page = Page(limit)
        end = min(len(ids), start + PAGE_SCAN)
        for i in range(start, end):
            room = rooms.get(ids[i])
            # Status is a StrEnum: it compares equal to its wire string as it is.
            if room is None or (status is not None and room.status != status):
                continue
            if not page.add(ids[i], room.packed_summary):
                break
        else:
            if end < len(ids):  # looked at PAGE_SCAN rooms: the next page goes on from here
                page.next = ids[end - 1]
        return page.frame(re)
