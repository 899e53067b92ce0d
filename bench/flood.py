"""Flood: does one abusive client hurt everyone else?

    .venv/bin/python bench/flood.py [--samples 1000] [--flooders 2] [--flood-ban 10]

Measures a well-behaved player's act->update round trip (p50/p99) on a real
server process, first alone, then while ``--flooders`` connections send
actions as fast as they can (they are rate-limited, then disconnected, and
come straight back). Goal (issue #10): loaded p99 within 2x of unloaded.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tilehall.protocol import encode
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests.helpers import Raw, ServerProcess


async def victim(url: str) -> tuple[Raw, str]:
    """The well-behaved player, in its room: connected before any flood begins."""
    a = await Raw.open(url, f"P{time.monotonic_ns()}")
    room = (await a.call({"t": "create", "game": "ishido"}))["room"]
    await a.call({"t": "join", "room": room})
    return a, room


async def measure(a: Raw, room: str, samples: int) -> list[float]:
    out = []
    for i in range(samples):
        t = time.perf_counter()
        reply = await a.call({"t": "act", "room": room, "action": {"do": "help"}}, rid=i)
        out.append((time.perf_counter() - t) * 1000)
        assert reply["t"] == "update", reply
        await asyncio.sleep(0.03)  # a brisk pace, still under the 50/s rate limit
    return out


async def flooder(url: str, seconds: float, counts: dict, pause: float) -> None:
    """Flood, get cut off, come straight back; for ``seconds``.

    A refused handshake (HTTP 429 while the address is barred) is tried again
    ``pause`` seconds later.
    """
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            f = await Raw.open(url, f"F{time.monotonic_ns()}")
            room = (await f.call({"t": "create", "game": "ishido"}))["room"]
            await f.call({"t": "join", "room": room})
            frame = encode({"t": "act", "room": room, "action": {"do": "help"}})
            counts["connections"] += 1

            async def drain(conn: Raw = f) -> None:
                with contextlib.suppress(ConnectionClosed):
                    async for _ in conn.ws:
                        pass

            reader = asyncio.create_task(drain())
            while time.monotonic() < end:
                await f.ws.send(frame)
                counts["sent"] += 1
                if counts["sent"] % 64 == 0:
                    await asyncio.sleep(0)
            reader.cancel()
        except ConnectionClosed as exc:
            code = str(exc.rcvd.code if exc.rcvd else None)
            counts["disconnects"] += 1
            counts["codes"][code] = counts["codes"].get(code, 0) + 1
        except InvalidStatus as exc:
            status = exc.response.status_code
            counts["refused"][status] = counts["refused"].get(status, 0) + 1
            await asyncio.sleep(pause)


def flood_process(
    url: str, seconds: float, n: int, pause: float, out: multiprocessing.Queue
) -> None:
    """Flooders in a process of their own, so they do not slow the measuring client."""
    counts: dict = {"sent": 0, "connections": 0, "disconnects": 0, "codes": {}, "refused": {}}

    async def run() -> None:
        await asyncio.gather(*(flooder(url, seconds, counts, pause) for _ in range(n)))

    asyncio.run(run())
    out.put(counts)


def server_act(port: int) -> dict[str, float]:
    """The server's own act-latency histogram (seconds), from /metrics (admin listener)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
        text = resp.read().decode()
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("tilehall_act_seconds_bucket"):
            le = line.split('le="')[1].split('"')[0]
            out[le] = float(line.rsplit(" ", 1)[1])
        elif line.startswith(("tilehall_act_seconds_sum", "tilehall_act_seconds_count")):
            out[line.split(" ")[0].rsplit("_", 1)[1]] = float(line.rsplit(" ", 1)[1])
    return out


def phase(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    """Server-side act latency within one phase: mean ms and share under 5 ms."""
    n = after["count"] - before["count"]
    under = after["0.005"] - before["0.005"]
    return {
        "actions": int(n),
        "mean_ms": round(1000 * (after["sum"] - before["sum"]) / n, 3),
        "under_5ms": round(under / n, 4),
    }


def pct(xs: list[float], p: float) -> float:
    return round(statistics.quantiles(xs, n=100)[int(p) - 1], 2)


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--flooders", type=int, default=2)
    ap.add_argument(
        "--seconds",
        type=float,
        default=0,
        help="how long the flood lasts (default: the whole loaded measurement, samples x 35 ms)",
    )
    ap.add_argument(
        "--flood-ban",
        type=float,
        default=10.0,
        help="the server's --flood-ban; 0 shows a flood from ever-new addresses",
    )
    ap.add_argument(
        "--retry-pause", type=float, default=0.05, help="a flooder's pause after an HTTP 429"
    )
    a = ap.parse_args()
    server = ServerProcess(Path(tempfile.mkdtemp()), "--flood-ban", str(a.flood_ban))
    url = server.start()
    try:
        player, room = await victim(url)
        m0 = server_act(server.admin_port)
        base = await measure(player, room, a.samples)
        m1 = server_act(server.admin_port)
        seconds = a.seconds or a.samples * 0.035 + 2
        queue: multiprocessing.Queue = multiprocessing.Queue()
        proc = multiprocessing.Process(
            target=flood_process, args=(url, seconds, a.flooders, a.retry_pause, queue)
        )
        proc.start()
        await asyncio.sleep(1)
        m2 = server_act(server.admin_port)
        loaded = await measure(player, room, a.samples)
        m3 = server_act(server.admin_port)
        counts = await asyncio.to_thread(queue.get)
        proc.join()
        await player.close()
        result = {
            "flood_ban_s": a.flood_ban,
            "unloaded_ms": {"p50": pct(base, 50), "p99": pct(base, 99)},
            "flooded_ms": {"p50": pct(loaded, 50), "p99": pct(loaded, 99)},
            "p99_ratio": round(pct(loaded, 99) / pct(base, 99), 2),
            "server_side_unloaded": phase(m0, m1),
            "server_side_flooded": phase(m2, m3),
            "flood_frames_sent": counts["sent"],
            "flooder_connections": counts["connections"],
            "flooders_disconnected": counts["disconnects"],
            "close_codes": {str(k): v for k, v in counts["codes"].items()},
            "handshakes_refused": {str(k): v for k, v in counts["refused"].items()},
        }
        print(json.dumps(result, indent=1))
    finally:
        server.stop()


if __name__ == "__main__":
    asyncio.run(main())
