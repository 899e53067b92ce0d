"""The cluster's leases in the real PostgreSQL: who may take whose rooms, by the database's clock.

A lease is judged by ``GREATEST(renewed_at, healthy_since) + lease`` against the
database's own clock, in the same statement as the claim; these tests move the
real clock (short leases) rather than pretend.
"""

from __future__ import annotations

import asyncio

import pytest
from tilehall.server.store import open_store

from tests.server.store.test_store import room_record
from tests.services import pg_schema


@pytest.fixture
async def pg():
    async with pg_schema() as url:
        store = await open_store(url)
        yield store
        await store.close()


async def db_now(store) -> float:
    return await store.pool.fetchval("SELECT extract(epoch FROM clock_timestamp())::float8")


async def test_registering_again_bumps_the_epoch_and_an_old_epoch_cannot_renew(pg):
    first = await pg.register_node("n1", "ws://a:1")
    assert await pg.renew_lease("n1", first, 3) is not None
    second = await pg.register_node("n1", "ws://a:1")  # the process restarted
    assert second == first + 1
    assert await pg.renew_lease("n1", first, 3) is None, "the old incarnation is superseded"
    assert await pg.renew_lease("n1", second, 5) is not None
    _, nodes = await pg.nodes()
    assert [(n.name, n.epoch, n.rooms, n.url) for n in nodes] == [("n1", second, 5, "ws://a:1")]


async def test_a_room_is_taken_only_once_its_hosts_lease_has_lapsed(pg):
    await pg.create_room(room_record("r1", node="n1"))
    epoch = await pg.register_node("n1", "")
    n2 = await pg.register_node("n2", "")
    since = await db_now(pg) - 10  # n2 has been renewing for a long time
    assert await pg.claim_lapsed("r1", "n1", "n2", lease=0.5, healthy_since=since) is None
    await asyncio.sleep(0.6)
    got = await pg.claim_lapsed("r1", "n1", "n2", lease=0.5, healthy_since=since)
    assert got is not None and got.node == "n2"
    assert (await pg.room("r1")).node == "n2"
    # n1's renewal comes too late: the room stays n2's while n2 renews its own lease
    assert await pg.renew_lease("n1", epoch, 1) is not None
    assert await pg.renew_lease("n2", n2, 1) is not None
    assert await pg.claim_lapsed("r1", "n2", "n1", lease=0.5, healthy_since=since) is None


@pytest.mark.slow
async def test_a_claimer_that_was_itself_cut_off_waits_a_whole_lease(pg):
    """The database was down for everyone: when it returns nobody's lease counts as lapsed
    until the claimer has renewed its own for a whole lease."""
    await pg.create_room(room_record("r1", node="n1"))
    await pg.register_node("n1", "")
    await asyncio.sleep(0.6)  # n1 renewed nothing for longer than a lease (an outage)
    since = await db_now(pg)  # ...but n2 has only just renewed again itself
    assert await pg.claim_lapsed("r1", "n1", "n2", lease=0.5, healthy_since=since) is None
    await asyncio.sleep(0.6)
    assert await pg.claim_lapsed("r1", "n1", "n2", lease=0.5, healthy_since=since) is not None


async def test_a_stopped_node_or_one_never_registered_can_be_taken_at_once(pg):
    await pg.create_room(room_record("r1", node="n1"))
    await pg.create_room(room_record("r2", node="ghost"))
    await pg.register_node("n1", "")
    await pg.set_node("n1", stopped=True)
    since = await db_now(pg)
    assert await pg.claim_lapsed("r1", "n1", "n2", lease=60, healthy_since=since) is not None
    assert await pg.claim_lapsed("r2", "ghost", "n2", lease=60, healthy_since=since) is not None


async def test_many_claimants_at_once_one_winner(pg):
    await pg.create_room(room_record("r1", node="n1"))
    await pg.register_node("n1", "")
    await pg.set_node("n1", stopped=True)
    since = await db_now(pg)
    got = await asyncio.gather(
        *(pg.claim_lapsed("r1", "n1", f"c{i}", lease=1, healthy_since=since) for i in range(8))
    )
    winners = [g for g in got if g is not None]
    assert len(winners) == 1
    assert (await pg.room("r1")).node == winners[0].node


async def test_hand_over_moves_only_ones_own_unfinished_room(pg):
    await pg.create_room(room_record("r1", node="n1"))
    assert await pg.hand_over("r1", "n2", "n3") is None, "not n2's to give"
    assert (await pg.hand_over("r1", "n1", "n2")).node == "n2"
    await pg.finish_room("r1", {}, [], 2.0)
    assert await pg.hand_over("r1", "n2", "n1") is None, "over: it stays where it ended"
    assert await pg.room_owners() == set()
