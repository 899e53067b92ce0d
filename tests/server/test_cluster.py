"""The cluster's parts without a broker: batching, forwarding, dedup, catching up; the switch.

The cluster against a real Mosquitto and PostgreSQL is tested in tests/cluster/.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys

import msgpack
import pytest
from tilehall.protocol import encode
from tilehall.server.app import Server
from tilehall.server.cluster import (
    Entry,
    Link,
    RemoteRoom,
    StandIn,
    Topics,
    catch_up_update,
    code_hash,
)
from tilehall.server.config import Config
from tilehall.server.store.records import PlayerRecord

from tests.helpers import ROOT


class FakeSession:
    def __init__(self, name):
        self.player = PlayerRecord(id=hash(name) % 1000, name=name)
        self.rooms = {}
        self.compact = False
        self.sent = []

    def send(self, data):
        self.sent.append(msgpack.unpackb(data))

    def send_msg(self, msg):
        self.send(encode(msg))


class FakeRelay:
    """What a RemoteRoom needs of the Relay, recording what it is asked."""

    def __init__(self):
        self.node = "here"
        self.topics = Topics("tilehall")
        self.published = []
        self.sessions = {}
        self.pending = {}
        self.answers = []
        self.requests = []

    def publish(self, topic, payload):
        self.published.append((topic, msgpack.unpackb(payload)))

    def answered(self, cid, reply):
        self.answers.append(("r", cid, reply))

    def refused(self, cid, code, message):
        self.answers.append(("e", cid, code))

    def spawn(self, coro):
        coro.close()

    async def request(self, room, op, session, msg, *, kind="other"):
        self.requests.append((op, session.player.name, msg, kind))

    def fail_pending(self, room, message):
        pass


def update(seq, seat, text="x"):
    return encode(
        {"t": "update", "room": "r1", "seq": seq, "events": [{"e": text}], "view": {"seat": seat}}
    )


def test_catch_up_is_one_update_with_every_missed_event_and_the_current_view():
    reply = {
        "t": "joined",
        "room": "r1",
        "seat": 1,
        "seq": 9,
        "view": {"v": 9},
        "missed": [{"seq": 8, "events": [{"e": "a"}]}, {"seq": 9, "events": [{"e": "b"}]}],
    }
    assert catch_up_update("r1", reply, 7) == {
        "t": "update",
        "room": "r1",
        "seq": 9,
        "events": [{"e": "a"}, {"e": "b"}],
        "view": {"v": 9},
    }
    assert catch_up_update("r1", reply, 9) is None  # nothing missed: nothing sent
    no_history = {k: v for k, v in reply.items() if k != "missed"}
    assert catch_up_update("r1", no_history, 2)["events"] == []  # the view says it all


async def test_a_link_sends_one_message_per_turn_each_frame_once_replies_in_order():
    cluster = FakeRelay()
    link = Link("here", "r1", "there", cluster.topics, cluster.publish)
    ada = StandIn(link, 1, PlayerRecord(id=1, name="Ada"))
    also = StandIn(link, 2, PlayerRecord(id=1, name="Ada"))
    frame = update(5, 0)
    ada.push(frame)  # one encoding for the seat, sent to both of its connections
    also.send(frame)
    link.reply(7, {"t": "left", "room": "r1"})
    link.reply(None, {"t": "ignored"})  # nobody waits for an answer without a cid
    await asyncio.sleep(0)
    assert len(cluster.published) == 1
    topic, batch = cluster.published[0]
    assert topic == "tilehall/room/r1/out/there"
    assert batch["host"] == "here" and batch["n"] == 1 and batch["link"] == link.id
    assert batch["blobs"] == [frame]
    assert batch["items"] == [["f", 1, 0], ["f", 2, 0], ["r", 7, {"t": "left", "room": "r1"}]]
    link.refuse(8, "stale", "old")
    await asyncio.sleep(0)
    assert cluster.published[1][1]["n"] == 2
    assert cluster.published[1][1]["items"] == [["e", 8, "stale", "old"]]


def batch(n, items, blobs, host="there", link="L1"):
    return {"host": host, "link": link, "n": n, "items": items, "blobs": blobs}


def remote_room():
    cluster = FakeRelay()
    room = RemoteRoom(cluster, Entry("r1", "there", 1, {}, (), None))
    ada, bob = FakeSession("Ada"), FakeSession("Bob")
    cluster.sessions = {1: ada, 2: bob}
    room.add(ada, 0, 4)
    room.add(bob, 1, 4)
    return cluster, room, ada, bob


def test_frames_reach_only_their_connection_never_twice_and_answers_in_stream_order():
    cluster, room, ada, bob = remote_room()
    blobs = [update(5, 0), update(5, 1)]
    room.on_batch(batch(1, [["f", 1, 0], ["f", 2, 1], ["r", 3, None]], blobs))
    assert [m["view"]["seat"] for m in ada.sent] == [0]  # each its own seat's view
    assert [m["view"]["seat"] for m in bob.sent] == [1]
    assert cluster.answers == [("r", 3, None)]
    room.on_batch(batch(1, [["f", 1, 0]], blobs))  # the broker delivered it again
    room.on_batch(batch(2, [["f", 1, 0]], [update(5, 0)]))  # a seq already sent
    room.on_batch(batch(3, [["f", 9, 0]], [update(6, 0)]))  # a connection not in the room
    room.on_batch(batch(4, [["f", 1, 0]], [update(6, 0)], host="old"))  # no longer the host
    assert [m["seq"] for m in ada.sent] == [5]
    room.on_batch(batch(5, [["f", 1, 0]], [update(6, 0)]))
    assert [m["seq"] for m in ada.sent] == [5, 6]
    assert cluster.requests == []


async def test_a_gap_in_the_stream_resyncs_every_member_with_its_last_seq():
    cluster, room, _, bob = remote_room()
    room.on_batch(batch(1, [["f", 1, 0]], [update(5, 0)]))
    called = []
    cluster.spawn = lambda coro: called.append(coro)
    room.on_batch(batch(3, [["f", 2, 0]], [update(7, 1)]))  # batch 2 was lost
    assert [m["seq"] for m in bob.sent] == [7]  # what came is still delivered
    assert len(called) == 2
    for coro in called:
        await coro
    assert sorted(cluster.requests) == [
        ("join", "Ada", {"room": "r1", "seq": 5}, "resync"),
        ("join", "Bob", {"room": "r1", "seq": 7}, "resync"),
    ]
    # a new link (the host made a new one) starts a new count: no gap there
    cluster.requests.clear()
    room.on_batch(batch(1, [], [], link="L2"))
    assert called[2:] == []


def test_private_codes_are_hashed_in_the_directory():
    assert code_hash("abc") == code_hash("abc") != code_hash("abd")
    assert "abc" not in code_hash("abc") and len(code_hash("abc")) == 32


@pytest.mark.slow  # a server process
def test_a_single_node_never_imports_the_cluster_or_aiomqtt(tmp_path):
    script = (
        "import asyncio, sys\n"
        "from tilehall.server.app import Server, parse_args\n"
        f"config = parse_args(['--port', '0', '--data-dir', {str(tmp_path)!r}])\n"
        "async def main():\n"
        "    server = Server(config)\n"
        "    await server.start()\n"
        "    await server.stop()\n"
        "asyncio.run(main())\n"
        "loaded = ('aiomqtt', 'tilehall.server.cluster', 'asyncpg')\n"
        "print(sorted(m for m in loaded if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


async def test_cluster_mode_needs_a_shared_postgresql_store(tmp_path):
    server = Server(
        Config(showcase=False, port=0, data_dir=tmp_path, mqtt="mqtt://127.0.0.1:1", node="n1")
    )
    with pytest.raises(ValueError, match="PostgreSQL"):
        await server.start()
    await server.stop()
