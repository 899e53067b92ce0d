"""Names storm (issue 37): does a storm of new names from one address delay another's sign-in?

    .venv/bin/python bench/names_storm.py [--storm 30] [--seconds 10] [--signins 20]

One real server process on its defaults (``--names-per-address`` 20 an hour). First
the honest player alone: ``--signins`` right-password sign-ins of a protected name,
each ``hello {name, password}`` on a new connection from ``127.0.0.2`` (another
address, as the server counts them), spread over ``--seconds``; the median of their
hello->welcome times is the storm-free figure. Then the same sign-ins again while
``--storm`` connections from ``127.0.0.1`` loop ``hello {new name, password}`` for
``--seconds``: each waits for its answer and sends the next at once (a welcomed
connection is closed and opened again, since a connection says hello once). The
storm runs in a process of its own, so that its clients' work never delays the
measuring client's event loop.

Goal: every sign-in during the storm is welcomed, each within 100 ms of the
storm-free median. The report also counts the storm's answers by code and the names
it made. Prints one JSON report.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import multiprocessing
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tilehall.protocol import SERVER_MESSAGES, VERSION, decode, encode
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.helpers import ServerProcess

PASSWORD = "the honest player's password"
HONEST = "127.0.0.2"
STORM = "127.0.0.1"
GOAL_MS = 100.0
"""How much slower than the storm-free median a sign-in may be while the storm blows."""


async def call(ws: ClientConnection, msg: dict[str, Any]) -> dict[str, Any]:
    await ws.send(encode(msg))
    frame = await ws.recv(decode=False)
    return decode(frame, specs=SERVER_MESSAGES)


async def sign_in(url: str, name: str) -> tuple[str, float]:
    """One right-password sign-in from :data:`HONEST`: its answer's type or code, and its
    hello->welcome time in ms (the handshake before it not counted)."""
    async with connect(url, local_addr=(HONEST, 0)) as ws:
        start = time.perf_counter()
        reply = await call(ws, {"t": "hello", "v": VERSION, "name": name, "password": PASSWORD})
        elapsed = (time.perf_counter() - start) * 1000
    return reply.get("code", reply["t"]), elapsed


async def sign_ins(url: str, name: str, count: int, seconds: float) -> list[tuple[str, float]]:
    """``count`` sign-ins, one every ``seconds / count``, one after the other."""
    out = []
    gap = seconds / count
    for _ in range(count):
        began = time.monotonic()
        out.append(await sign_in(url, name))
        await asyncio.sleep(max(0.0, gap - (time.monotonic() - began)))
    return out


async def storm_worker(
    url: str, worker: int, end: float, answers: collections.Counter[str]
) -> None:
    """Loop ``hello {new name, password}`` from :data:`STORM` until ``end`` (monotonic)."""
    n = 0
    while time.monotonic() < end:
        try:
            async with connect(url, local_addr=(STORM, 0)) as ws:
                while time.monotonic() < end:
                    n += 1
                    name = f"storm {worker}-{n}"
                    hello = {"t": "hello", "v": VERSION, "name": name, "password": PASSWORD}
                    reply = await call(ws, hello)
                    answers[reply.get("code", reply["t"])] += 1
                    if reply["t"] == "welcome":
                        break  # one hello a connection: open another
        except (ConnectionClosed, OSError) as exc:
            answers[f"closed: {type(exc).__name__}"] += 1
            await asyncio.sleep(0.05)


async def storm(url: str, connections: int, seconds: float) -> dict[str, int]:
    answers: collections.Counter[str] = collections.Counter()
    end = time.monotonic() + seconds
    await asyncio.gather(*(storm_worker(url, i, end, answers) for i in range(connections)))
    return dict(answers)


def storm_process(url: str, connections: int, seconds: float, out: Any) -> None:
    """The storm, in a process of its own: its answers by code, sent back through ``out``."""
    out.send(asyncio.run(storm(url, connections, seconds)))


def summary(results: list[tuple[str, float]]) -> dict[str, Any]:
    times = sorted(ms for _, ms in results)
    return {
        "answers": dict(collections.Counter(code for code, _ in results)),
        "median_ms": round(statistics.median(times), 1),
        "max_ms": round(times[-1], 1),
        "ms": [round(ms, 1) for _, ms in results],
    }


async def run(storm: int, seconds: float, count: int) -> dict[str, Any]:
    data = Path(tempfile.mkdtemp(prefix="names-storm-"))
    server = ServerProcess(data)
    server.start()
    try:
        url = server.url
        name = "honest player"
        async with connect(url, local_addr=(HONEST, 0)) as ws:  # made before either phase
            made = await call(ws, {"t": "hello", "v": VERSION, "name": name, "password": PASSWORD})
            assert made["t"] == "welcome", made
        await sign_in(url, name)  # the first check warms the hasher up: not measured
        alone = await sign_ins(url, name, count, seconds)
        mine, theirs = multiprocessing.Pipe()
        blower = multiprocessing.get_context("spawn").Process(
            target=storm_process, args=(url, storm, seconds, theirs)
        )
        blower.start()
        await asyncio.sleep(1.0)  # the storm is blowing (its process started) before the first
        during = await sign_ins(url, name, count, seconds - 1.5)
        answers = collections.Counter(await asyncio.to_thread(mine.recv))
        blower.join()
    finally:
        server.stop()
        shutil.rmtree(data, ignore_errors=True)
    base, under = summary(alone), summary(during)
    worst = max(ms for _, ms in during) - base["median_ms"]
    return {
        "storm": {
            "connections": storm,
            "seconds": seconds,
            "answers": dict(answers),
            "names_made": answers["welcome"],
        },
        "sign_ins_alone": base,
        "sign_ins_during_storm": under,
        "worst_over_median_ms": round(worst, 1),
        "goal": f"all welcomed, each within {GOAL_MS:.0f} ms of the storm-free median",
        "met": under["answers"] == {"welcome": count} and worst <= GOAL_MS,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--storm", type=int, default=30, help="storm connections (default 30)")
    p.add_argument("--seconds", type=float, default=10.0, help="storm length (default 10)")
    p.add_argument("--signins", type=int, default=20, help="honest sign-ins (default 20)")
    a = p.parse_args()
    report = asyncio.run(run(a.storm, a.seconds, a.signins))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
