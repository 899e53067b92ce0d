"""What a relayed act costs: a player on one node acting in a room another node hosts.

Two real ``tilehall-server`` nodes share a private Mosquitto and a PostgreSQL
schema. A player connected to the room's own node and one connected to the
other node each play Ishido ``help`` actions (journaled, no state change that
ends the game) as fast as their answers come, one at a time; the round trip
of each act, from the frame sent to the update carrying its ``re``, is timed.

    python -m bench.relay --acts 2000
    python -m bench.relay --acts 2000 --broker-nodelay off   # Nagle's algorithm on the broker

Prints p50/p90/p99/max in milliseconds for the local and the relayed acts.
Needs the ``mosquitto`` binary and PostgreSQL (``$TILEHALL_TEST_PG``).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from tests.cluster.conftest import Cluster, Peer
from tests.services import Mosquitto, pg_schema


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def time_acts(peer: Peer, room: str, acts: int) -> list[float]:
    out = []
    for _ in range(acts):
        started = time.perf_counter()
        reply = await peer.act(room, {"do": "help"})
        out.append((time.perf_counter() - started) * 1000)
        assert reply["t"] == "update", reply
    return out


async def main(acts: int, nodelay: bool) -> None:
    with tempfile.TemporaryDirectory(prefix="tilehall-relay-") as tmp:
        work = Path(tmp)
        broker = Mosquitto(work)
        if not nodelay:
            broker.conf.write_text(broker.conf.read_text().replace("set_tcp_nodelay true\n", ""))
        broker.start()
        try:
            async with pg_schema() as url:
                cluster = Cluster(work, broker, url)
                try:
                    unlimited = ("--rate", "1e6", "--burst", "100000", "--initial-burst", "100000")
                    u1, u2 = await cluster.start("n1", "n2", extra=unlimited)
                    here = await Peer.open(u1, "Here")
                    room = (await here.call({"t": "create", "game": "ishido"}))["room"]
                    await here.call({"t": "join", "room": room})
                    # a second room on n1, played by a player connected to n2: relayed
                    other = (await here.call({"t": "create", "game": "ishido"}))["room"]
                    there = await Peer.open(u2, "There")
                    joined = await there.call({"t": "join", "room": other})
                    assert joined["t"] == "joined", joined
                    await time_acts(here, room, 50)  # warm up both paths
                    await time_acts(there, other, 50)
                    local = await time_acts(here, room, acts)
                    relayed = await time_acts(there, other, acts)
                finally:
                    cluster.stop()
        finally:
            broker.stop()
    print(f"broker TCP_NODELAY: {'on' if nodelay else 'off'}; {acts} acts each, one at a time")
    for name, samples in (("local", local), ("relayed", relayed)):
        print(
            f"{name:>8}: p50 {percentile(samples, 0.5):6.2f}  p90 {percentile(samples, 0.9):6.2f}"
            f"  p99 {percentile(samples, 0.99):6.2f}  max {max(samples):7.2f}"
            f"  mean {statistics.fmean(samples):6.2f} ms"
        )


if __name__ == "__main__":
    p = argparse.ArgumentParser(prog="python -m bench.relay", description=__doc__)
    p.add_argument("--acts", type=int, default=2000)
    p.add_argument("--broker-nodelay", choices=["on", "off"], default="on")
    a = p.parse_args()
    asyncio.run(main(a.acts, a.broker_nodelay == "on"))
