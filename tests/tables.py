"""A room's record and journal entries for tests that drive engines through ``step()``.

:func:`tilehall.server.games.base.step` reads a room's record and one journal
entry, as rooms, rebuilds and replays do; a test of an engine alone has no room,
so it makes the record here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tilehall.server.store.records import JournalEntry, RoomRecord, SeatRecord


def table(
    game: str,
    *,
    seed: int,
    seats: int = 1,
    bots: Iterable[int] = (),
    options: dict[str, Any] | None = None,
) -> RoomRecord:
    """The record of a room of ``game`` (``bots``: the seats a COMP holds)."""
    comps = set(bots)
    return RoomRecord(
        id="r1",
        game=game,
        options=options or {},
        seed=seed,
        seats=tuple(SeatRecord(bot="normal") if i in comps else SeatRecord() for i in range(seats)),
        private_code=None,
        created_at=0.0,
    )


def entry(seat: int | None, action: dict[str, Any], now: float, seq: int = 0) -> JournalEntry:
    """One journal entry (its seq matters to no engine)."""
    return JournalEntry(room="r1", seq=seq, seat=seat, action=action, now=now)
