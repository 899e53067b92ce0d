"""The server's own game in a cluster: one node keeps it, every node lists it, and a node
that stops hands it on like any room, without a second one being made."""

from __future__ import annotations

import asyncio

import pytest

from tests.cluster.conftest import Peer, until

pytestmark = pytest.mark.slow  # server processes, a broker and PostgreSQL schemas: seconds each

LOOKS = 5.0
"""Seconds for a few looks of every node's keeper (one every 2 s)."""


async def showcases(peer: Peer) -> list[str]:
    rooms = (await peer.call({"t": "rooms"}))["rooms"]
    return sorted(r["room"] for r in rooms if r.get("showcase") and r["status"] != "over")


async def test_one_node_keeps_it_and_hands_it_on_when_it_stops(cluster):
    u1, u2 = await cluster.start("n1", "n2", showcase=True)
    ada = await Peer.open(u1, "Ada")
    bob = await Peer.open(u2, "Bob")
    first = await until(lambda: showcases(ada))
    await asyncio.sleep(LOOKS)
    for peer in (ada, bob):
        assert await showcases(peer) == first, "one showcase for the whole cluster"
    assert len(first) == 1
    # n1 (the first by name) keeps it; stopped, it hands the room to n2, which makes none
    assert await asyncio.to_thread(cluster.nodes["n1"].terminate) == 0
    await until(lambda: _listed(bob, first))
    await asyncio.sleep(LOOKS)
    assert await showcases(bob) == first, "still the same one, and only it"


async def _listed(peer: Peer, expected: list[str]) -> bool:
    return await showcases(peer) == expected
