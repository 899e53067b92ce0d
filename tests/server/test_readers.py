"""Readers see only what the journal holds: never a move still waiting for its append.

A room's engine steps before the append is confirmed (the step is what says the
move is legal); until the journal confirms it, the move is *pending* and may
still be dropped. Members get it only as the update sent after the commit; every
other reader (``rooms``, a newcomer's ``watch``, ``scores``, ``history``,
``leaderboard``) must not see it either. Each test holds a real write lock on
the real database from another connection, so the append really waits.
"""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Any

import asyncpg
import pytest
from tilehall.protocol import unpack
from tilehall.server.store.sqlite import SQLiteStore

from tests.memory import House, MemoryMember
from tests.services import pg_schema


def vote(room: str) -> dict[str, Any]:
    return {"t": "act", "room": room, "action": {"do": "quit", "vote": True}}


async def voted_once(house: House) -> tuple[MemoryMember, MemoryMember, str, int]:
    """A two-player Mathable room where Ada voted to quit: Bob's vote ends it."""
    a = await house.player("Ada")
    b = await house.player("Bob")
    room = (await house.call(a, {"t": "create", "game": "mathable", "seats": [None, None]}))["room"]
    await house.call(a, {"t": "join", "room": room})
    await house.call(b, {"t": "join", "room": room})
    upd = await house.call(a, vote(room))
    assert upd["t"] == "update", upd
    return a, b, room, upd["seq"]


def listed(page: dict[str, Any]) -> dict[str, str]:
    """A ``rooms`` page as room -> status."""
    rooms = (unpack(r) if isinstance(r, bytes) else r for r in page["rooms"])
    return {s["room"]: s["status"] for s in rooms}


READS: dict[str, dict[str, Any]] = {
    "rooms": {"t": "rooms"},
    "over": {"t": "rooms", "status": "over"},
    "scores": {"t": "scores", "game": "mathable"},
    "history": {"t": "history"},
    "leaderboard": {"t": "leaderboard", "game": "mathable"},
}


def gist(name: str, reply: dict[str, Any]) -> Any:
    """What a reader's reply says of the room's end (replies carry ``re``: left out)."""
    assert reply["t"] != "error", reply
    if name in ("rooms", "over"):
        return listed(reply)
    if name == "history":
        return [r["room"] for r in reply["rooms"]]
    if name == "leaderboard":
        return reply["mine"]
    return reply["entries"], reply.get("mine")


async def read_all(house: House, who: MemoryMember) -> dict[str, Any]:
    out = {}
    for name, msg in READS.items():
        out[name] = gist(name, await house.call(who, msg))
    return out


async def while_pending(house: House, locked: Any, unlock: Any) -> None:
    """Bob's vote ends the game while the journal is locked: nobody reads the end early."""
    a, b, room, seq = await voted_once(house)
    reader = await house.player("Cy")
    before = await read_all(house, a)
    assert before["rooms"][room] == "playing" and room not in before["over"]

    await locked()
    try:
        acting = asyncio.create_task(house.call(b, vote(room)))
        await asyncio.sleep(0.3)  # the engine has the game over; the append waits
        assert not acting.done(), "the append did not wait on the lock"
        # The listing reads the room, not the store: it answers now, and says playing.
        shown = await house.call(a, READS["rooms"])
        assert gist("rooms", shown)[room] == "playing", "a pending quit was listed as over"
        assert room not in gist("over", await house.call(a, READS["over"]))
        # A newcomer's watch, and the readers of the store, show nothing of it: each
        # answers with the state before the move, or only once the move is committed.
        watching = asyncio.create_task(house.call(reader, {"t": "watch", "room": room}))
        reads = {
            name: asyncio.create_task(house.call(a, msg))
            for name, msg in READS.items()
            if name not in ("rooms", "over")
        }
        await asyncio.sleep(0.3)
        assert not acting.done()
        if watching.done():
            joined = watching.result()
            assert joined["seq"] == seq and joined["view"]["status"] == "playing", joined
        for name, task in reads.items():
            if task.done():
                assert gist(name, task.result()) == before[name], name
        early = {name for name, task in reads.items() if task.done()}
    finally:
        await unlock()

    end = await acting
    assert end["t"] == "update" and end["seq"] == seq + 1, end
    assert end["view"]["status"] == "over"
    joined = await watching
    assert joined["t"] == "joined", joined
    if joined["seq"] == seq:  # let in before the commit: the move comes as its update
        upd = await reader.update(room, seq + 1)
        assert upd["view"]["status"] == "over"
    else:
        assert joined["seq"] == seq + 1 and joined["view"]["status"] == "over"
        await asyncio.sleep(0.05)
        assert [u["seq"] for u in reader.of("update", room)] == []
    for name in early:
        await reads[name]
    for task in reads.values():
        await task
    await house.lobby.rooms[room].quiet()
    after = await read_all(house, a)
    assert after["rooms"][room] == "over" and after["over"][room] == "over"
    assert after["history"] == [room] and before["history"] == []
    assert after["leaderboard"]["games"] == before["leaderboard"]["games"] + 1


async def test_sqlite_readers_never_see_a_move_before_its_append(tmp_path):
    path = tmp_path / "tilehall.sqlite3"
    house = await House.open(tmp_path, SQLiteStore(path, busy_timeout=5.0))
    other = sqlite3.connect(path, isolation_level=None)

    async def lock() -> None:
        other.execute("BEGIN IMMEDIATE")  # a write lock: the append waits, readers do not

    async def unlock() -> None:
        other.execute("ROLLBACK")

    try:
        await while_pending(house, lock, unlock)
    finally:
        other.close()
        await house.close()


@pytest.mark.slow
async def test_postgresql_readers_never_see_a_move_before_its_append(tmp_path):
    async with pg_schema() as url:
        house = await House.open(tmp_path, url)
        other = await asyncpg.connect(url)
        tx = other.transaction()

        async def lock() -> None:
            await tx.start()
            # Writers of the journal wait; its readers (and every other table) do not.
            await other.execute("LOCK TABLE journal IN EXCLUSIVE MODE")

        async def unlock() -> None:
            await tx.rollback()

        try:
            await while_pending(house, lock, unlock)
        finally:
            await other.close()
            await house.close()
