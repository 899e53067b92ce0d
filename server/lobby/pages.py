"""Pages of ``rooms`` and ``history``: bounded in rooms, bytes and cost.

A page is joined from summaries packed once (msgpack), never packed again, and
priced by the rooms it holds (:func:`rooms_cost`) against the asker's budget.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import msgpack
from tilehall.protocol import encode_with, pack_array
from tilehall.server.games import Status

__all__ = [
    "PAGE_BYTES",
    "PAGE_DEFAULT",
    "PAGE_SCAN",
    "ROOMS_PER_REQUEST",
    "STATUSES",
    "Frame",
    "Listed",
    "Page",
    "by_room",
    "packed",
    "rooms_cost",
]

PAGE_DEFAULT = 50
"""Rooms in a ``rooms`` page when the request names no ``limit`` (at most 200)."""

PAGE_SCAN = 1000
"""Rooms a ``rooms`` request looks at, at most: what bounds its cost (about 1 ms)."""

PAGE_BYTES = 16 * 1024
"""Bytes of summaries a ``rooms`` or ``history`` page holds at most, whatever its ``limit``.

A summary grows with its seats' names: 200 four-seat Mathable rooms whose players
took the longest names (24 letters of four UTF-8 bytes each) come to 130 KiB, twice
the frame limit. A page cut short by this bound says so as a filter's page does, by
a ``next`` that is not null. Why 16 KiB and not just under the frame limit: with
48 KiB pages, three clients walking the list within their budget tripled another
client's ping p99 on a two-core host (the large writes, not the page building, per
``tests/perf/HARDENING.md``); with 16 KiB it stayed within 1.5x. A page of 50
rooms of ordinary names (about 250 bytes each) still comes whole."""

ROOMS_PER_REQUEST = 50
"""Rooms a ``rooms`` reply may hold for the price of one request (``welcome.limits``)."""

STATUSES = tuple(s.value for s in Status)


class Listed(NamedTuple):
    """A room as the listing sees it, ordered by id; summarised only if it is on the page."""

    room: str
    game: str
    status: str
    packed: Callable[[], bytes]
    """Its summary, packed as msgpack."""


def by_room(item: Listed) -> str:
    return item.room


def packed(value: Any) -> bytes:
    """``value`` in msgpack, as the frame carrying it will hold it."""
    data: bytes = msgpack.packb(value, use_bin_type=True)
    return data


class Frame(NamedTuple):
    """A reply already encoded (``re`` included), and how many requests it counts as."""

    data: bytes
    cost: int


def rooms_cost(rooms: int) -> int:
    """Requests a ``rooms`` reply of ``rooms`` rooms counts as: one per
    :data:`ROOMS_PER_REQUEST`, rounded up, and at least one.

    Why: a page of 200 rooms costs the server some 50 times what a ping does
    (it was up to 48 KiB to write); counted as one request, three clients polling
    pages of 200 within their budget held the loop enough to multiply another
    client's ping time by ten (``tests/perf/HARDENING.md``).
    """
    return max(1, -(-rooms // ROOMS_PER_REQUEST))


class Page:
    """A ``rooms`` or ``history`` page being filled: at most ``limit`` entries, each packed,
    and at most :data:`PAGE_BYTES` of them; ``next`` is the key of its last entry if more
    follow."""

    __slots__ = ("last", "limit", "next", "parts", "size")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[bytes] = []
        self.size = 0
        self.last = ""
        self.next: str | None = None
        """The cursor of the following page; None on the last."""

    def add(self, key: str, packed: Callable[[], bytes]) -> bool:
        """Add the entry ``key`` (packed only if it fits the count); False, with
        :attr:`next` set, once the page is full."""
        if len(self.parts) == self.limit:
            self.next = self.last
            return False
        data = packed()
        if self.parts and self.size + len(data) > PAGE_BYTES:  # long names: fewer to a page
            self.next = self.last
            return False
        self.parts.append(data)
        self.size += len(data)
        self.last = key
        return True

    def frame(self, re: int | None) -> Frame:
        """The reply, encoded, priced by the rooms it holds."""
        reply: dict[str, Any] = {"t": "rooms", "rooms": pack_array(self.parts), "next": self.next}
        if re is not None:
            reply["re"] = re
        return Frame(encode_with(reply), rooms_cost(len(self.parts)))
