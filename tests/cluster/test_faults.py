"""Faults of a cluster, really caused: the broker restarts, PostgreSQL stops, nodes die or leave.

The rules under test: a room is owned by exactly one node; a broker restart of
any kind and length moves no room; a node that dies (even while the broker is
down, leaving no Will) has its rooms taken over; a node that stops or is
drained hands its rooms over at once and tells its players where to go; new
rooms go to the least loaded node and are known everywhere before their
creator hears of them. Timings are measured by bench/chaos.py, not asserted.
"""

from __future__ import annotations

import asyncio
import random
import signal
import subprocess
import sys

import asyncpg
import pytest

from tests.cluster.conftest import Cluster, Peer, act_when_possible, until
from tests.cluster.test_cluster import assert_stream, play_turns, start_mathable
from tests.helpers import ROOT, http_get
from tests.netfault import Gate
from tests.services import PrivatePostgres

pytestmark = pytest.mark.slow  # server processes, a broker and PostgreSQL schemas: seconds each

LEASE = ("--lease", "1")
"""A short lease, so that a test outlives several without waiting long."""


async def owners(pg_url: str) -> dict[str, str]:
    conn = await asyncpg.connect(pg_url)
    try:
        rows = await conn.fetch("SELECT id, node FROM rooms WHERE status <> 'over'")
    finally:
        await conn.close()
    return {r[0]: r[1] for r in rows}


async def ready(url: str) -> bool:
    status, _ = await asyncio.to_thread(http_get, url.replace("ws://", "http://") + "/readyz")
    return status == 200


async def not_ready(url: str) -> bool:
    return not await ready(url)


async def ishido_on(url: str, name: str) -> tuple[Peer, str, dict]:
    peer = await Peer.open(url, name)
    room = (await peer.call({"t": "create", "game": "ishido"}))["room"]
    joined = await peer.call({"t": "join", "room": room})
    assert joined["t"] == "joined", joined
    return peer, room, joined["view"]


async def test_broker_restarts_move_no_room_and_a_later_kill_still_fails_over(
    cluster, broker, pg_url
):
    u1, u2 = await cluster.start("n1", "n2", extra=LEASE)
    ada, bob, carol, room = await start_mathable(cluster, u1, u2, u2)
    _dora, other, _ = await ishido_on(u2, "Dora")  # a room of n2's too
    await play_turns(room, {0: ada, 1: bob}, 2, random.Random(21))
    before = await owners(pg_url)
    assert set(before.values()) == {"n1", "n2"}
    for sig in (signal.SIGTERM, signal.SIGKILL, signal.SIGTERM):
        broker.stop(sig)  # SIGTERM: the broker publishes both nodes' Wills on its way out
        await until(lambda: not_ready(u1))
        await until(lambda: not_ready(u2))
        await asyncio.sleep(3)  # three leases: a Will taken for a death would have moved rooms
        assert await owners(pg_url) == before
        broker.start()
        await until(lambda: ready(u1))
        await until(lambda: ready(u2))
    assert await owners(pg_url) == before, "no room moved"
    after = await play_turns(room, {0: ada, 1: bob}, 3, random.Random(22))
    for peer in (ada, bob, carol):
        await peer.wait_update(room, after["seq"])
        assert_stream(peer, room, after["seq"])
    # after all those restarts, a node that really dies is still taken over
    cluster.nodes["n1"].kill()
    await until(lambda: _owned_by(pg_url, room, "n2"))
    back = await Peer.open(u2, token=ada.token)
    joined = await until(lambda: _joined(back, room, after["seq"]))  # rebuilt after the claim
    assert (joined["t"], joined["seq"]) == ("joined", after["seq"]), joined
    assert (await owners(pg_url))[other] == "n2"


async def _owned_by(pg_url: str, room: str, node: str) -> bool:
    return (await owners(pg_url)).get(room) == node


async def test_a_node_dying_while_the_broker_is_down_is_taken_over_without_a_will(
    cluster, broker, pg_url
):
    u1, u2 = await cluster.start("n1", "n2", extra=LEASE)
    ada, room, view = await ishido_on(u1, "Ada")
    upd = await ada.act(room, {"do": "place", "at": view["legal"][0]})
    broker.stop(signal.SIGKILL)
    cluster.nodes["n1"].kill()  # its Will dies with the broker: nobody is told
    broker.start()
    await until(lambda: _owned_by(pg_url, room, "n2"))  # the lease said it
    back = await Peer.open(u2, token=ada.token)
    # n2 claims the room in the store first and rebuilds it from the journal after: a join
    # sent on the claim alone may come before the room is there. Wait for the join itself.
    joined = await until(lambda: _joined(back, room, upd["seq"]))
    assert (joined["seq"], joined["view"]) == (upd["seq"], upd["view"])


async def _joined(peer: Peer, room: str, seq: int) -> dict | None:
    reply = await peer.call({"t": "join", "room": room, "seq": seq})
    return reply if reply["t"] == "joined" else None


@pytest.fixture
async def gate(broker):
    """A way to the broker that the test can cut off for one node."""
    g = Gate("127.0.0.1", broker.port)
    await g.start()
    yield g
    await g.close()


async def test_a_request_is_never_relayed_to_a_node_not_back_on_the_bus(
    cluster, broker, gate, pg_url
):
    # After a broker restart the nodes come back one at a time. A request sent to a
    # host not back yet is lost (nobody holds its subscription): it must be refused
    # at once, not left to time out.
    (u1,) = await cluster.start("n1", extra=("--mqtt", f"mqtt://127.0.0.1:{gate.listen_port}"))
    ada, room, view = await ishido_on(u1, "Ada")
    (u2,) = await cluster.start("n2")
    there = await Peer.open(u2, token=ada.token)  # Ada plays on through n2: relayed
    joined = await there.call({"t": "join", "room": room})
    assert joined["t"] == "joined" and (await owners(pg_url))[room] == "n1", joined
    broker.stop(signal.SIGKILL)  # no Wills: n1 still looks alive to n2
    gate.shut()  # and n1 cannot reach the broker again
    broker.start()
    await until(lambda: ready(u2))
    action = {"do": "place", "at": view["legal"][0]}
    refused = await there.act(room, action, seq=joined["seq"])
    assert refused["code"] == "unavailable" and refused["retry_after"] > 0, refused
    assert "not on the cluster bus" in refused["message"], refused
    gate.reopen()
    upd = await act_when_possible(there, room, action, seq=joined["seq"])
    assert upd["t"] == "update" and upd["seq"] == joined["seq"] + 1, upd


async def test_requests_waiting_for_an_answer_fail_when_the_bus_is_lost(cluster, broker, pg_url):
    u1, u2 = await cluster.start("n1", "n2")
    ada, room, view = await ishido_on(u1, "Ada")
    assert (await owners(pg_url))[room] == "n1"
    there = await Peer.open(u2, token=ada.token)
    joined = await there.call({"t": "join", "room": room})
    assert joined["t"] == "joined", joined
    action = {"do": "place", "at": view["legal"][0]}
    host = cluster.nodes["n1"].proc
    host.send_signal(signal.SIGSTOP)  # the host reads nothing: the act waits for its answer
    try:
        sent = asyncio.create_task(there.act(room, action, seq=joined["seq"]))
        await asyncio.sleep(0.5)
        broker.stop(signal.SIGKILL)  # that answer can no longer come
        refused = await sent
    finally:
        host.send_signal(signal.SIGCONT)
    assert refused["code"] == "unavailable" and refused["retry_after"] > 0, refused
    assert "bus went down" in refused["message"], refused
    broker.start()
    # Sent again with its seq: done once, whether or not the host had read it.
    again = await act_when_possible(there, room, action, seq=joined["seq"])
    assert again["t"] == "update" or again["code"] == "stale", again
    rejoined = await there.call({"t": "join", "room": room, "seq": joined["seq"]})
    assert rejoined["seq"] == joined["seq"] + 1, rejoined


@pytest.fixture
async def private_cluster(tmp_path, broker):
    pg = PrivatePostgres()
    pg.start()
    c = Cluster(tmp_path, broker, pg.url)
    c.pg = pg
    yield c
    c.stop()
    pg.close()


async def test_postgresql_stopped_under_a_cluster_moves_no_room(private_cluster):
    cluster = private_cluster
    u1, u2 = await cluster.start("n1", "n2", extra=LEASE)
    ada, bob, carol, room = await start_mathable(cluster, u1, u2, u2)
    dora, other, view = await ishido_on(u2, "Dora")
    last = await play_turns(room, {0: ada, 1: bob}, 2, random.Random(31))
    before = await owners(cluster.pg_url)
    cluster.pg.stop()
    err = await dora.act(other, {"do": "place", "at": view["legal"][0]})
    assert err["code"] == "unavailable" and err["retry_after"] > 0, err
    await until(lambda: not_ready(u1))
    await asyncio.sleep(4)  # four leases without a renewal, on every node
    cluster.pg.start()
    await until(lambda: ready(u1))
    await until(lambda: ready(u2))
    await asyncio.sleep(2)  # two more leases: long enough for a wrong takeover to show
    assert await owners(cluster.pg_url) == before, "no room moved"
    upd = await act_when_possible(dora, other, {"do": "place", "at": view["legal"][0]})
    assert upd["t"] == "update", upd
    after = await play_turns(room, {0: ada, 1: bob}, 2, random.Random(32))
    for peer in (ada, bob, carol):
        await peer.wait_update(room, after["seq"])
        assert_stream(peer, room, after["seq"])
    assert last["seq"] < after["seq"]


async def test_sigterm_hands_rooms_over_at_once_and_names_where_to_reconnect(cluster, pg_url):
    u1, u2 = await cluster.start("n1", "n2")  # the default lease: nobody waits it out
    ada, room, view = await ishido_on(u1, "Ada")
    upd = await ada.act(room, {"do": "place", "at": view["legal"][0]})
    assert await asyncio.to_thread(cluster.nodes["n1"].terminate) == 0
    assert (await owners(pg_url))[room] == "n2", "handed over before the node exited"
    told = [f for f in ada.frames if f["t"] == "reconnect"]
    assert [f["url"] for f in told] == [u2]
    assert ada.ws.close_code == 1001
    back = await Peer.open(told[0]["url"], token=ada.token)
    joined = await back.call({"t": "join", "room": room, "seq": upd["seq"]})
    assert (joined["t"], joined["view"]) == ("joined", upd["view"]), joined
    nxt = await back.act(room, {"do": "place", "at": upd["view"]["legal"][0]})
    assert nxt["seq"] == upd["seq"] + 1


def admin(node, *args):
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "tilehall.server",
            "admin",
            "--data-dir",
            str(node.data_dir),
            *args,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=30,
    )


async def test_admin_drain_moves_a_live_nodes_rooms_and_its_players_play_on(cluster, pg_url):
    u1, u2 = await cluster.start("n1", "n2")
    ada, bob, carol, room = await start_mathable(cluster, u1, u2, u2)
    await play_turns(room, {0: ada, 1: bob}, 2, random.Random(41))
    done = await asyncio.to_thread(admin, cluster.nodes["n2"], "drain", "n1")  # from n2
    assert done.returncode == 0, done.stderr
    await until(lambda: _owned_by(pg_url, room, "n2"))
    await until(lambda: not_ready(u1))  # draining
    # Ada stays connected to n1, now relayed to the room's new host
    after = await play_turns(room, {0: ada, 1: bob}, 3, random.Random(42))
    for peer in (ada, bob, carol):
        await peer.wait_update(room, after["seq"])
        assert_stream(peer, room, after["seq"])
    # a drained node takes no new rooms: one created through it runs on n2
    _, fresh, _ = await ishido_on(u1, "Eve")
    assert (await owners(pg_url))[fresh] == "n2"
    listing = await asyncio.to_thread(admin, cluster.nodes["n1"], "nodes")
    assert "draining" in listing.stdout and "n2" in listing.stdout, listing.stdout
    rooms = await asyncio.to_thread(admin, cluster.nodes["n1"], "rooms")
    assert room in rooms.stdout and "node n2" in rooms.stdout, rooms.stdout


async def test_new_rooms_go_to_the_lighter_node_and_are_known_at_once(cluster, pg_url):
    unbounded = ("--max-rooms-per-player", "0")  # one player makes all 25
    (u1,) = await cluster.start("n1", extra=unbounded)
    for i in range(5):  # n1 carries five rooms before n2 exists (as after a failover)
        await ishido_on(u1, f"Old{i}")
    (u2,) = await cluster.start("n2", extra=unbounded)
    await until(lambda: _nodes_seen(cluster.nodes["n1"], 2))
    creator = await Peer.open(u1, "Cy")
    elsewhere = await Peer.open(u2, "Di")
    placed = []
    for _ in range(25):
        created = await creator.call({"t": "create", "game": "ishido"})
        assert created["t"] == "created", created
        room = created["room"]
        # known on the other node the moment its creator hears of it
        watched = await elsewhere.call({"t": "watch", "room": room})
        assert watched["t"] == "joined", watched
        joined = await creator.call({"t": "join", "room": room})
        assert joined["t"] == "joined", joined
        placed.append(room)
        await asyncio.sleep(0.05)  # two requests per 50 ms: within the default rate limit
    hosts = await owners(pg_url)
    on_n2 = sum(1 for r in placed if hosts[r] == "n2")
    assert on_n2 >= 13, f"the lighter node got {on_n2} of 25"
    assert abs(sum(1 for h in hosts.values() if h == "n1") - on_n2) <= 3, hosts


async def _nodes_seen(node, count: int) -> bool:
    done = await asyncio.to_thread(admin, node, "nodes")
    return done.returncode == 0 and done.stdout.count(" up ") == count


async def test_no_room_is_placed_on_a_node_whose_will_came(cluster, pg_url):
    """kill -9 closes a node's socket, so the broker sends its Will at once, while its lease
    runs on: a room placed there by its lease alone would keep its maker waiting for an
    answer that cannot come, then be taken back (bench/chaos.py saw both)."""
    extra = ("--max-rooms-per-player", "0", "--lease", "30")  # the dead lease outlives the test
    (u1,) = await cluster.start("n1", extra=extra)
    for i in range(5):  # n1 is the heavier node: the lighter one would get the next rooms
        await ishido_on(u1, f"Old{i}")
    await cluster.start("n2", extra=extra)
    await until(lambda: _nodes_seen(cluster.nodes["n1"], 2))
    cluster.nodes["n2"].kill()
    n1 = cluster.nodes["n1"]

    async def told() -> bool:
        return any("n2 is offline on the bus" in line for line in n1.log)

    await until(told)
    creator = await Peer.open(u1, "Cy")
    made = [(await creator.call({"t": "create", "game": "ishido"}))["room"] for _ in range(4)]
    hosts = await owners(pg_url)
    assert [hosts[r] for r in made] == ["n1"] * 4
    assert not [line for line in n1.log if "not taken by" in line], "placed on the dead node"
