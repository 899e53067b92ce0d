"""Flood: does one abusive client hurt everyone else, and does an honest one never trip a limit?

    .venv/bin/python bench/flood.py [--mode act] [--samples 1000] [--flooders 2] [--flood-ban 10]
    .venv/bin/python bench/flood.py --mode listing [--rooms 10000] [--flooders 3] [--wide-names]
    .venv/bin/python bench/flood.py --mode junk [--junk 500] [--flooders 2]
    .venv/bin/python bench/flood.py --mode bots [--seconds 60]

Each mode runs a real server process and prints one JSON report.

- ``act`` (issue #10): a well-behaved player, connected before the flood,
  measures act->update and ping->pong round trips (p50/p99), first alone, then
  while ``--flooders`` connections send ``act`` frames as fast as they can
  (they are refused, cut off and barred, and come straight back).
- ``listing`` (issue #16): the server is filled with ``--rooms`` public rooms,
  made over the protocol by players of ``--per-player`` rooms each (the
  default bound); a sweep then walks every filter (none, each game, each
  status, a game and a status) with the default and the largest ``limit``,
  following ``next`` to the end, and reports the largest ``rooms`` reply in
  bytes (goal: <= 64 KiB). Then the bystander measures alone, and again while
  ``--flooders`` connections ask for pages of 200 as fast as the server lets
  them (each waits for its answer: the server paces them to its rate),
  walking the same filters and cursors; ``--window`` > 1 sends that many
  ahead instead (over the budget: refused, cut off, barred). The server runs
  with ``--waiting-ttl 0`` so that its rooms stay for the whole run however
  slow the machine (the default 600 s would close the waiting ones part-way).
- ``junk`` (issue #16): ``--flooders`` players each sit in a room of every
  game and send junk actions (unknown fields, ill-typed and out-of-range
  fields, unknown actions, reserved names, nesting past the limit, frames over
  the ``act`` size bound), each waiting for its refusal. First ``--junk`` of
  them with nothing else running: the data directory's growth in bytes (goal:
  < 1 MB) and every room's journal and view, byte for byte, before and after.
  Then the bystander's round trips alone and under the same junk without end.
- ``bots`` (issue #16): ``tilehall-bot`` for each of the five games at once,
  ``--seconds`` long, against a server on its defaults (keepalive on), then
  ``/metrics`` from the admin listener: requests refused ``rate_limited``,
  bans, requests paced, moves played (goal: 0 and 0).

Goals: the bystander's p99 under every flood within 2x of its unloaded p99.
The bystander alternates an Ishido ``help`` (act -> update, journaled) and a
``ping``, with 30 ms between requests (about 31 requests a second, under the
default 50/s).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import itertools
import json
import multiprocessing
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import msgpack
from tilehall.protocol import SERVER_MESSAGES, decode, encode
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests.helpers import Raw, ServerProcess

GAMES = ("mathable", "matchit", "linksame", "lines", "ishido")
STATUSES = ("waiting", "playing", "over")
PAGE_MAX = 200
FRAME_GOAL = 64 * 1024
"""The issue's bound on a ``rooms`` reply, in bytes."""
JUNK_GOAL = 1_000_000
"""The issue's bound on the data directory's growth from 500 junk actions, in bytes."""
SCRAPER = ("127.0.0.2", 0)
"""Where /metrics is read from: not the flooders' address."""
PACE = 0.03
"""The bystander's pause between two requests, seconds."""


def from_server(data: bytes | str) -> dict[str, Any]:
    """A frame the server sent, decoded as a client does (replies are not checked here)."""
    assert isinstance(data, bytes), data
    return decode(data, specs=SERVER_MESSAGES, max_size=2**22)


# -- the bystander ---------------------------------------------------------------------------


async def victim(url: str) -> tuple[Raw, str]:
    """The well-behaved player, in its Ishido room: connected before any flood begins."""
    a = await Raw.open(url, f"P{time.monotonic_ns()}")
    room = (await a.call({"t": "create", "game": "ishido"}))["room"]
    await a.call({"t": "join", "room": room})
    return a, room


@dataclass
class Probe:
    """Round trips one bystander saw, in ms: act -> update and ping -> pong."""

    act: list[float] = field(default_factory=list)
    ping: list[float] = field(default_factory=list)
    server_cpu: float = 0.0
    """The server process's CPU time over the wall time meanwhile (1.0: one core busy)."""
    server_act: dict[str, float] = field(default_factory=dict)
    """The server's own act latency meanwhile (:func:`phase`)."""
    gc_pauses: dict[str, float] = field(default_factory=dict)
    """The server's garbage-collection pauses meanwhile (:func:`gc_phase`)."""


def cpu_seconds(pid: int | None) -> float:
    """User and system CPU seconds of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(a: Raw, room: str, samples: int, server: ServerProcess | None = None) -> Probe:
    """``samples`` acts and as many pings, alternated, ``PACE`` apart; and what ``server``
    says of itself meanwhile: its CPU share, its act latency, its collector's pauses."""
    out = Probe()
    rid = itertools.count(1)
    if server is not None:
        t0, c0, m0 = time.monotonic(), cpu_seconds(server.pid), scrape(server.admin_port)
    for _ in range(samples):
        t = time.perf_counter()
        reply = await a.call({"t": "act", "room": room, "action": {"do": "help"}}, next(rid))
        out.act.append((time.perf_counter() - t) * 1000)
        assert reply["t"] == "update", reply
        await asyncio.sleep(PACE)
        t = time.perf_counter()
        reply = await a.call({"t": "ping"}, next(rid))
        out.ping.append((time.perf_counter() - t) * 1000)
        assert reply["t"] == "pong", reply
        await asyncio.sleep(PACE)
    a.pushed.clear()
    if server is not None:
        out.server_cpu = (cpu_seconds(server.pid) - c0) / (time.monotonic() - t0)
        m1 = scrape(server.admin_port)
        out.server_act = phase(act_histogram(m0), act_histogram(m1))
        out.gc_pauses = gc_phase(m0, m1)
    return out


def pct(xs: list[float], p: float) -> float:
    return round(statistics.quantiles(xs, n=100)[int(p) - 1], 2)


def spread(xs: list[float]) -> dict[str, float]:
    """p50, p90, p99 and the worst, ms."""
    return {"p50": pct(xs, 50), "p90": pct(xs, 90), "p99": pct(xs, 99), "max": round(max(xs), 2)}


def compare(base: Probe, loaded: Probe) -> dict[str, Any]:
    """p50/p99 alone and under the flood, and the p99 ratio, for acts and pings."""
    out: dict[str, Any] = {"samples": len(base.act)}
    for kind in ("act", "ping"):
        b, f = getattr(base, kind), getattr(loaded, kind)
        out[kind] = {
            "unloaded_ms": spread(b),
            "flooded_ms": spread(f),
            "p99_ratio": round(pct(f, 99) / pct(b, 99), 2),
        }
    out["server_cpu"] = {
        "unloaded": round(base.server_cpu, 3),
        "flooded": round(loaded.server_cpu, 3),
    }
    out["server_act"] = {"unloaded": base.server_act, "flooded": loaded.server_act}
    out["server_gc"] = {"unloaded": base.gc_pauses, "flooded": loaded.gc_pauses}
    return out


# -- the server's own figures ----------------------------------------------------------------


def scrape(port: int) -> dict[str, float]:
    """``/metrics`` from the admin listener, one number per series (labels kept in the key).

    Asked from 127.0.0.2, as a monitoring host of its own would: a flooder cut off
    from 127.0.0.1 has that address barred from both listeners for a while.
    """
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=SCRAPER)
    try:
        conn.request("GET", "/metrics")
        resp = conn.getresponse()
        text = resp.read().decode()
        assert resp.status == 200, (resp.status, text[:200])
    finally:
        conn.close()
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            out[key] = float(value)
    return out


def act_histogram(metrics: dict[str, float]) -> dict[str, float]:
    """The server's own act-latency histogram (seconds) out of a :func:`scrape`."""
    out: dict[str, float] = {}
    for key, value in metrics.items():
        if key.startswith("tilehall_act_seconds_bucket"):
            out[key.split('le="')[1].split('"')[0]] = value
        elif key in ("tilehall_act_seconds_sum", "tilehall_act_seconds_count"):
            out[key.rsplit("_", 1)[1]] = value
    return out


def gc_phase(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    """Collector pauses between two scrapes: how many, and their total ms, by generation."""
    out: dict[str, float] = {}
    for key, value in after.items():
        if key.startswith("tilehall_gc_pause_seconds_") and not key.startswith(
            "tilehall_gc_pause_seconds_bucket"
        ):
            kind = key.split("{")[0].rsplit("_", 1)[1]
            gen = key.split('generation="')[1].split('"')[0]
            d = value - before.get(key, 0.0)
            out[f"gen{gen}_{kind}"] = round(d * 1000, 1) if kind == "sum" else int(d)
    return out


def phase(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    """Server-side act latency within one phase: mean ms and share under 5 ms."""
    n = after["count"] - before["count"]
    if not n:
        return {"actions": 0}
    under = after["0.005"] - before["0.005"]
    return {
        "actions": int(n),
        "mean_ms": round(1000 * (after["sum"] - before["sum"]) / n, 3),
        "under_5ms": round(under / n, 4),
    }


def limits_seen(metrics: dict[str, float]) -> dict[str, Any]:
    """What /metrics says about the limits: refusals by code, bans, pacing."""
    errors = {
        key.split('code="')[1].split('"')[0]: int(v)
        for key, v in metrics.items()
        if key.startswith("tilehall_errors_total{")
    }
    return {
        "rate_limited": errors.get("rate_limited", 0),
        "bans": int(metrics.get("tilehall_bans_total", 0)),
        "requests_paced": int(metrics.get("tilehall_requests_paced_total", 0)),
        "pacing_seconds": metrics.get("tilehall_pacing_seconds_total", 0.0),
        "errors_by_code": errors,
        "connections_refused": {
            key.split('reason="')[1].split('"')[0]: int(v)
            for key, v in metrics.items()
            if key.startswith("tilehall_connections_refused_total{")
        },
    }


def rooms_held(metrics: dict[str, float]) -> dict[str, int]:
    """Rooms in the server's memory by status, from ``tilehall_rooms``."""
    out: Counter[str] = Counter()
    for key, v in metrics.items():
        if key.startswith("tilehall_rooms{"):
            out[key.split('status="')[1].split('"')[0]] += int(v)
    return dict(out)


def rss_kib(pid: int | None) -> int:
    """The server process's resident memory, KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def dir_bytes(path: Path) -> int:
    """Bytes in every file under ``path`` (the SQLite file, its WAL and shared memory, keys)."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def spawn(a: argparse.Namespace, *args: str, ping_interval: float = 0.0) -> ServerProcess:
    """A server process on a data directory of its own, under ``--data-root`` (keepalive off
    unless asked)."""
    data = Path(tempfile.mkdtemp(prefix="tilehall-flood-", dir=a.data_root))
    # Flooders come back under a new name each time, all from this one address: the
    # budget of new names per address (bench/names_storm.py measures it) is off here.
    server = ServerProcess(data, "--names-per-address", "0", *args, ping_interval=ping_interval)
    server.start()
    return server


def stop(server: ServerProcess) -> None:
    server.stop()
    shutil.rmtree(server.data_dir, ignore_errors=True)


# -- act flood (issue #10) --------------------------------------------------------------------


async def act_flooder(
    url: str, i: int, counts: dict[str, Any], seconds: float, pause: float
) -> None:
    """Flood ``act`` frames, get cut off, come straight back; for ``seconds``.

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
            reader = asyncio.create_task(drain(f))
            while time.monotonic() < end:
                await f.ws.send(frame)
                counts["sent"] += 1
                if counts["sent"] % 64 == 0:
                    await asyncio.sleep(0)
            reader.cancel()
        except ConnectionClosed as exc:
            cut_off(counts, exc)
        except InvalidStatus as exc:
            barred(counts, exc)
            await asyncio.sleep(pause)


async def drain(conn: Raw) -> None:
    with contextlib.suppress(ConnectionClosed):
        async for _ in conn.ws:
            pass


def cut_off(counts: dict[str, Any], exc: ConnectionClosed) -> None:
    code = str(exc.rcvd.code if exc.rcvd else None)
    counts["disconnects"] += 1
    counts["codes"][code] = counts["codes"].get(code, 0) + 1


def barred(counts: dict[str, Any], exc: InvalidStatus) -> None:
    status = str(exc.response.status_code)
    counts["refused"][status] = counts["refused"].get(status, 0) + 1


def new_counts() -> dict[str, Any]:
    return {"sent": 0, "connections": 0, "disconnects": 0, "codes": {}, "refused": {}}


def flood_process(kind: str, args: tuple[Any, ...], out: multiprocessing.Queue[Any]) -> None:
    """Flooders in a process of their own, so they do not slow the measuring client."""
    counts = new_counts()
    floods: dict[str, Callable[..., Any]] = {
        "act": act_flooder,
        "listing": listing_flooder,
        "junk": junk_flooder,
    }
    url, n, *rest = args

    async def run() -> None:
        await asyncio.gather(*(floods[kind](url, i, counts, *rest) for i in range(n)))

    asyncio.run(run())
    counts["cpu_s"] = round(time.process_time(), 2)
    out.put(counts)


async def under_flood(
    kind: str,
    args: tuple[Any, ...],
    player: Raw,
    room: str,
    samples: int,
    settle: float = 1.0,
    server: ServerProcess | None = None,
) -> tuple[Probe, dict[str, Any]]:
    """The bystander's round trips while a flood of ``kind`` runs in another process.

    ``args``: the flood's URL, its number of connections and the rest of its
    flooder's arguments. Measuring starts ``settle`` seconds after the flood.
    """
    queue: multiprocessing.Queue[Any] = multiprocessing.Queue()
    proc = multiprocessing.Process(target=flood_process, args=(kind, args, queue))
    proc.start()
    await asyncio.sleep(settle)
    loaded = await measure(player, room, samples, server)
    counts = await asyncio.to_thread(queue.get)
    proc.join()
    return loaded, counts


async def run_act(a: argparse.Namespace) -> dict[str, Any]:
    server = spawn(a, "--flood-ban", str(a.flood_ban))
    url = server.url
    try:
        player, room = await victim(url)
        base = await measure(player, room, a.samples, server)
        seconds = a.seconds or a.samples * 2 * (PACE + 0.003) + 2
        loaded, counts = await under_flood(
            "act",
            (url, a.flooders, seconds, a.retry_pause),
            player,
            room,
            a.samples,
            server=server,
        )
        await player.close()
        return {
            "mode": "act",
            "flood_ban_s": a.flood_ban,
            "bystander": compare(base, loaded),
            "flood_frames_sent": counts["sent"],
            "flood_process_cpu_s": counts["cpu_s"],
            "flooder_connections": counts["connections"],
            "flooders_disconnected": counts["disconnects"],
            "close_codes": counts["codes"],
            "handshakes_refused": counts["refused"],
            "limits": limits_seen(scrape(server.admin_port)),
        }
    finally:
        stop(server)


# -- listing flood (issue #16) ----------------------------------------------------------------


def player_name(i: int, wide: bool) -> str:
    """A 24-character name, the longest allowed; ``wide``: of 4-byte letters (CJK Extension B),
    the most bytes a name can take."""
    if wide:
        return "".join(chr(0x20000 + (i * 24 + k) % 40000) for k in range(24))
    return f"player{i:06d}".ljust(24, "x")


def seat_names(i: int, wide: bool) -> list[str]:
    """Three more 24-character names to reserve seats of a four-seat Mathable room for."""
    return [player_name(1_000_000 + 3 * i + k, wide) for k in range(3)]


async def make_player_rooms(url: str, i: int, per: int, wide: bool) -> Counter[str]:
    """One player makes ``per`` public rooms (every game in turn) and goes.

    Mathable rooms have four seats, the maker's and three reserved for other
    long names: the largest summary a room can have. The maker joins every
    other solo room, which starts it (``playing``, then paused as its player is
    away); the rest wait.
    """
    name = player_name(i, wide)
    made: Counter[str] = Counter()
    p = await Raw.open(url, name)
    try:
        for j in range(per):
            game = GAMES[(i * per + j) % len(GAMES)]
            msg: dict[str, Any] = {"t": "create", "game": game}
            if game == "mathable":
                msg["seats"] = [name, *seat_names(i, wide)]
            reply = await p.call(msg, rid=j + 1)
            assert reply["t"] == "created", reply
            made[game] += 1
            if game != "mathable" and j % 2:
                joined = await p.call({"t": "join", "room": reply["room"]}, rid=1000 + j)
                assert joined["t"] == "joined", joined
    finally:
        await p.close()
    return made


async def fill(url: str, rooms: int, per: int, wide: bool, parallel: int = 20) -> dict[str, Any]:
    """``rooms`` public rooms, made over the protocol by ``rooms / per`` players."""
    makers = -(-rooms // per)
    t0 = time.monotonic()
    made: Counter[str] = Counter()
    todo = iter(range(makers))
    last = rooms - (makers - 1) * per

    async def worker() -> None:
        for i in todo:
            made.update(await make_player_rooms(url, i, per if i < makers - 1 else last, wide))

    await asyncio.gather(*(worker() for _ in range(parallel)))
    return {
        "players": makers,
        "rooms": sum(made.values()),
        "by_game": dict(made),
        "seconds": round(time.monotonic() - t0, 1),
    }


def filters() -> list[dict[str, Any]]:
    """Every kind of listing: none, each game, each status, one game in one status."""
    return [
        {},
        *({"game": g} for g in GAMES),
        *({"status": s} for s in STATUSES),
        {"game": "mathable", "status": "waiting"},
        {"game": "ishido", "status": "playing"},
    ]


async def call_sized(raw: Raw, msg: dict[str, Any], rid: int) -> tuple[dict[str, Any], int]:
    """Send a request; return the frame answering it and that frame's size in bytes."""
    await raw.ws.send(encode({**msg, "id": rid}))
    while True:
        data = await raw.ws.recv()
        reply = from_server(data)
        if reply.get("re") == rid:
            return reply, len(data)


async def sweep(url: str) -> dict[str, Any]:
    """Walk every filter to its end, with the default ``limit`` and with 200: reply sizes."""
    p = await Raw.open(url, f"S{time.monotonic_ns()}")
    rid = itertools.count(1)
    walks = []
    largest = 0
    try:
        for base in filters():
            for limit in (None, PAGE_MAX):
                req = base | ({"limit": limit} if limit else {})
                cursor, pages, rooms, top, t0 = None, 0, 0, 0, time.perf_counter()
                while True:
                    msg = req | ({"cursor": cursor} if cursor else {})
                    reply, size = await call_sized(p, {"t": "rooms", **msg}, next(rid))
                    assert reply["t"] == "rooms", reply
                    pages += 1
                    rooms += len(reply["rooms"])
                    top = max(top, size)
                    cursor = reply["next"]
                    if cursor is None:
                        break
                largest = max(largest, top)
                walks.append(
                    {
                        "filter": base,
                        "limit": limit or "default",
                        "pages": pages,
                        "rooms": rooms,
                        "largest_bytes": top,
                        "seconds": round(time.perf_counter() - t0, 2),
                    }
                )
    finally:
        await p.close()
    return {"largest_reply_bytes": largest, "walks": walks}


async def listing_flooder(
    url: str,
    i: int,
    counts: dict[str, Any],
    seconds: float,
    window: int,
    pause: float,
    poll_rate: float,
    page_limit: int = PAGE_MAX,
) -> None:
    """Ask for pages of ``page_limit`` (200) for ``seconds``, every filter in turn, following
    ``next``.

    ``window`` requests are sent before waiting for an answer (1: wait for each,
    so the server paces this connection to its rate and never refuses it).
    ``poll_rate`` > 0: no more than that many requests a second, of its own
    accord (with a small ``page_limit``: as many requests, little to send back). Cut off, it
    comes back (``pause`` after a refused handshake). Replies
    are unpacked without the schema check: a flooder has no use for it, and its
    CPU would be taken from the server and the bystander on a small machine.
    """
    end = time.monotonic() + seconds
    due = time.monotonic()
    counts.setdefault("replies", 0)
    counts.setdefault("largest_reply_bytes", 0)
    counts.setdefault("errors", {})
    walk = itertools.cycle(filters())
    while time.monotonic() < end:
        try:
            f = await Raw.open(url, f"L{i}-{time.monotonic_ns()}")
            counts["connections"] += 1
            base, cursor, rid = next(walk), None, 0
            while time.monotonic() < end:
                if poll_rate:
                    due = max(due + window / poll_rate, time.monotonic())
                    await asyncio.sleep(due - time.monotonic())
                for _ in range(window):
                    rid += 1
                    msg = {"t": "rooms", "limit": page_limit, **base}
                    if cursor:
                        msg["cursor"] = cursor
                    await f.ws.send(encode({**msg, "id": rid}))
                    counts["sent"] += 1
                for _ in range(window):
                    data = await f.ws.recv()
                    reply = msgpack.unpackb(data)
                    if reply["t"] == "rooms":
                        counts["replies"] += 1
                        size = len(data)
                        counts["largest_reply_bytes"] = max(counts["largest_reply_bytes"], size)
                        cursor = reply["next"]
                    elif reply["t"] == "error":
                        code = reply["code"]
                        counts["errors"][code] = counts["errors"].get(code, 0) + 1
                if cursor is None:
                    base = next(walk)
        except ConnectionClosed as exc:
            cut_off(counts, exc)
        except InvalidStatus as exc:
            barred(counts, exc)
            await asyncio.sleep(pause)


async def run_listing(a: argparse.Namespace) -> dict[str, Any]:
    server = spawn(a, "--waiting-ttl", "0", "--flood-ban", str(a.flood_ban))
    url = server.url
    try:
        made = await fill(url, a.rooms, a.per_player, a.wide_names)
        held = rooms_held(scrape(server.admin_port))
        swept = await sweep(url)
        player, room = await victim(url)
        base = await measure(player, room, a.samples, server)
        seconds = a.seconds or a.samples * 2 * (PACE + 0.003) + 2
        loaded, counts = await under_flood(
            "listing",
            (url, a.flooders, seconds, a.window, a.retry_pause, a.poll_rate, a.page_limit),
            player,
            room,
            a.samples,
            server=server,
        )
        await player.close()
        after = scrape(server.admin_port)
        return {
            "mode": "listing",
            "wide_names": a.wide_names,
            "made": made,
            "rooms_held_before": held,
            "rooms_held_after": rooms_held(after),
            "server_rss_kib": rss_kib(server.pid),
            "largest_rooms_reply_bytes": swept["largest_reply_bytes"],
            "goal_bytes": FRAME_GOAL,
            "sweep": swept["walks"],
            "bystander": compare(base, loaded),
            "flood": {
                "flooders": a.flooders,
                "window": a.window,
                "poll_rate": a.poll_rate,
                "page_limit": a.page_limit,
                "seconds": round(seconds, 1),
                "requests_sent": counts["sent"],
                "pages_received": counts.get("replies", 0),
                "pages_per_s": round(counts.get("replies", 0) / seconds, 1),
                "flood_process_cpu_s": counts["cpu_s"],
                "largest_reply_bytes": counts.get("largest_reply_bytes", 0),
                "errors": counts.get("errors", {}),
                "connections": counts["connections"],
                "close_codes": counts["codes"],
                "handshakes_refused": counts["refused"],
            },
            "limits": limits_seen(after),
        }
    finally:
        stop(server)


# -- junk-action flood (issue #16) ------------------------------------------------------------

PAD = "x" * 900
"""Junk that keeps an ``act`` frame under the 1,024-byte bound: refused for its field."""
HUGE = "x" * 60_000
"""Junk that takes an ``act`` frame past the bound (still under the 64 KiB frame limit)."""
CONTROL = 100
"""Accepted actions sent after the junk, to show the same measure sees what is journaled."""
NESTED: Any = [[[[[[[[["deep"]]]]]]]]]


def junk_actions(game: str) -> list[dict[str, Any] | Any]:
    """Actions no server may accept: every kind of malformed, each for ``game``'s own actions.

    ``help``-like actions (each journaled when accepted) carry extra fields; the
    game's moves come with fields of the wrong type, out of range, or missing.
    """
    plain = {
        "mathable": "hint",
        "matchit": "help",
        "linksame": "hint",
        "lines": "quit",
        "ishido": "help",
    }[game]
    common: list[Any] = [
        {"do": plain, "junk": PAD},
        {"do": plain, "junk": {"k": PAD[:400], "n": 1}},
        {"do": plain, "Do": plain},
        {"do": plain, "junk": HUGE},
        {"do": plain, "junk": NESTED},
        {"do": "nuke"},
        {"do": 7},
        {"do": None},
        {"do": ["help"]},
        {},
        {"junk": PAD},
        {"do": "_start"},
        {"do": "_tick", "at": 1.0},
        "help",
        [1, 2, 3],
        None,
    ]
    own: dict[str, list[Any]] = {
        "mathable": [
            {"do": "place", "tile": -1, "at": [0, 0]},
            {"do": "place", "tile": 91, "at": [0, 0]},
            {"do": "place", "tile": "7", "at": [0, 0]},
            {"do": "place", "tile": 7, "at": [14, 0]},
            {"do": "place", "tile": 7, "at": [0, 0], "colour": "red"},
            {"do": "place", "tile": 7},
            {"do": "exchange", "tiles": [1] * 50},
            {"do": "exchange", "tiles": []},
            {"do": "exchange", "tiles": "1,2"},
            {"do": "quit", "vote": "yes"},
            {"do": "end", "now": True},
        ],
        "matchit": [
            {"do": "highlight", "at": [6, 0]},
            {"do": "highlight", "at": [0, 16]},
            {"do": "highlight", "at": [0, 0], "colour": "red"},
            {"do": "pair", "a": [0, 0], "b": "x"},
            {"do": "pair", "a": [0, 0]},
            {"do": "pair", "a": [0.5, 0], "b": [0, 1]},
            {"do": "pause", "why": PAD},
        ],
        "linksame": [
            {"do": "pair", "a": [0, 0], "b": [0, -1]},
            {"do": "pair", "a": [0, 0], "b": [9, 0]},
            {"do": "pair", "a": [0, 0, 0], "b": [0, 1]},
            {"do": "pair", "a": "a1", "b": "a2"},
            {"do": "shuffle", "seed": 1},
            {"do": "restart", "stage": 3},
        ],
        "lines": [
            {"do": "move", "from": [0, 0], "to": [0, 1], "junk": 1},
            {"do": "move", "from": [0, 0]},
            {"do": "move", "from": [-1, 0], "to": [0, 0]},
            {"do": "move", "from": [0, 0], "to": [20, 0]},
            {"do": "move", "from": [True, False], "to": [0, 1]},
            {"do": "move", "from": {"r": 0, "c": 0}, "to": [0, 1]},
            {"do": "undo", "steps": 5},
        ],
        "ishido": [
            {"do": "place", "at": "a1"},
            {"do": "place", "at": [8, 0]},
            {"do": "place", "at": [0, 12]},
            {"do": "place", "at": [1.5, 2]},
            {"do": "place", "at": [1, 2, 3]},
            {"do": "place"},
            {"do": "place", "at": [3, 4], "stone": 0},
            {"do": "undo", "all": True},
        ],
    }
    return common + own[game]


@dataclass
class Junker:
    """A player sitting in one room of every game, sending junk into them."""

    raw: Raw
    rooms: dict[str, str]
    seat: dict[str, int]

    @classmethod
    async def open(cls, url: str, name: str, *, comp: bool = True) -> Junker:
        """The player and its five rooms. ``comp``: Mathable against a COMP seat, a game
        under way; else with a seat left open, a room waiting (no bot thinking meanwhile)."""
        p = await Raw.open(url, name)
        rooms, seats = {}, {}
        for game in GAMES:
            msg: dict[str, Any] = {"t": "create", "game": game}
            if game == "mathable":
                msg["seats"] = [name, "COMP:easy" if comp else None]
            if game == "linksame":
                msg["options"] = {"mode": "practice"}  # no shot clock to journal time-outs
            room = (await p.call(msg))["room"]
            joined = await p.call({"t": "join", "room": room})
            assert joined["t"] == "joined", joined
            rooms[game], seats[game] = room, joined["seat"]
        return cls(p, rooms, seats)

    def frames(self) -> Iterator[tuple[int, bytes]]:
        """(id, the ``act`` frame) for every junk action of every game, in turn, for ever."""
        catalogue = [
            {"t": "act", "room": room, "action": action}
            for game, room in self.rooms.items()
            for action in junk_actions(game)
        ]
        for rid, msg in enumerate(itertools.cycle(catalogue), start=1):
            yield rid, encode({**msg, "id": rid})

    async def send_junk(self, count: int | None, end: float | None, tally: Counter[str]) -> int:
        """Send junk, each waiting for its answer; ``count`` of them, or until ``end``."""
        sent = 0
        for rid, frame in self.frames():
            if (count is not None and sent >= count) or (
                end is not None and time.monotonic() > end
            ):
                break
            await self.raw.ws.send(frame)
            sent += 1
            while True:
                data = await self.raw.ws.recv()
                reply = from_server(data)
                if reply.get("re") == rid:
                    break
            tally["refused:" + reply["code"] if reply["t"] == "error" else "ACCEPTED"] += 1
        return sent


def journal(db: Path, room: str) -> list[tuple[Any, ...]]:
    """A room's journal rows as the store holds them (a read-only connection)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute(
            "SELECT seq, seat, action, at FROM journal WHERE room = ? ORDER BY seq", (room,)
        ).fetchall()
    finally:
        con.close()


def steady(view: Any) -> Any:
    """A view without the fields that move with the clock alone (``now``, ``time_left``)."""
    if isinstance(view, dict):
        return {k: steady(v) for k, v in view.items() if k not in ("now", "time_left")}
    if isinstance(view, list):
        return [steady(v) for v in view]
    return view


async def snapshot(url: str, db: Path, junkers: list[Junker]) -> dict[str, Any]:
    """Every junk room's journal and its view as a spectator sees it."""
    spy = await Raw.open(url, f"W{time.monotonic_ns()}")
    out: dict[str, Any] = {}
    try:
        for j in junkers:
            for room in j.rooms.values():
                watched = await spy.call({"t": "watch", "room": room})
                assert watched["t"] == "joined", watched
                await spy.call({"t": "leave", "room": room})
                out[room] = {
                    "seq": watched["seq"],
                    "view": steady(watched["view"]),
                    "journal": journal(db, room),
                }
    finally:
        await spy.close()
    return out


async def wait_for_turns(url: str, junkers: list[Junker], timeout: float = 20.0) -> None:
    """Let each Mathable room's COMP seat play until it is the junker's turn: then nothing
    moves in any junk room but what the junk could move."""
    spy = await Raw.open(url, f"T{time.monotonic_ns()}")
    try:
        deadline = time.monotonic() + timeout
        for j in junkers:
            room = j.rooms["mathable"]
            while True:
                view = (await spy.call({"t": "watch", "room": room}))["view"]
                await spy.call({"t": "leave", "room": room})
                if view.get("to_move") == j.seat["mathable"]:
                    break
                assert time.monotonic() < deadline, f"COMP never gave the turn back in {room}"
                await asyncio.sleep(0.2)
    finally:
        await spy.close()


async def junk_flooder(url: str, i: int, counts: dict[str, Any], seconds: float) -> None:
    """A junker of its own (a player, five rooms), sending junk for ``seconds``."""
    j = await Junker.open(url, f"J{i}-{time.monotonic_ns()}", comp=False)
    tally: Counter[str] = Counter()
    sent = await j.send_junk(None, time.monotonic() + seconds, tally)
    counts["sent"] += sent  # not ``+= await``: that reads the count before the wait
    counts["connections"] += 1
    for k, v in tally.items():
        counts["refused"][k] = counts["refused"].get(k, 0) + v
    await j.raw.close()


async def run_junk(a: argparse.Namespace) -> dict[str, Any]:
    server = spawn(a, "--flood-ban", str(a.flood_ban))
    url, data = server.url, server.data_dir
    db = data / "tilehall.sqlite3"
    try:
        junkers = [await Junker.open(url, f"junker{i}") for i in range(a.flooders)]
        await wait_for_turns(url, junkers)
        await asyncio.sleep(1.0)  # the last commits settle
        before = await snapshot(url, db, junkers)
        size0, log0 = dir_bytes(data), len(server.log)
        tally: Counter[str] = Counter()
        t0 = time.monotonic()
        share = [a.junk // a.flooders + (i < a.junk % a.flooders) for i in range(a.flooders)]
        sent = sum(
            await asyncio.gather(
                *(j.send_junk(n, None, tally) for j, n in zip(junkers, share, strict=True))
            )
        )
        took = time.monotonic() - t0
        await asyncio.sleep(1.0)
        size1, log1 = dir_bytes(data), len(server.log)
        after = await snapshot(url, db, junkers)
        changed = [room for room in before if before[room] != after[room]]
        # The control: the same measure sees what accepted actions write (Ishido helps).
        keeper = junkers[0]
        for k in range(CONTROL):
            help_ = {"t": "act", "room": keeper.rooms["ishido"], "action": {"do": "help"}}
            assert (await keeper.raw.call(help_, rid=k + 1))["t"] == "update"
        await asyncio.sleep(1.0)
        control = dir_bytes(data) - size1
        for j in junkers:
            await j.raw.close()

        player, room = await victim(url)
        base = await measure(player, room, a.samples, server)
        seconds = a.seconds or a.samples * 2 * (PACE + 0.003) + 2
        loaded, counts = await under_flood(
            "junk", (url, a.flooders, seconds), player, room, a.samples, server=server
        )
        await player.close()
        return {
            "mode": "junk",
            "junk_sent": sent,
            "junk_seconds": round(took, 1),
            "answers": dict(sorted(tally.items())),
            "accepted": tally["ACCEPTED"],
            "data_dir_bytes_before": size0,
            "data_dir_growth_bytes": size1 - size0,
            "control_actions": CONTROL,
            "control_growth_bytes": control,
            "goal_bytes": JUNK_GOAL,
            "server_log_lines": log1 - log0,
            "rooms_checked": len(before),
            "rooms_changed": changed,
            "journal_rows_checked": sum(len(s["journal"]) for s in before.values()),
            "bystander": compare(base, loaded),
            "flood": {
                "flooders": a.flooders,
                "junk_sent": counts["sent"],
                "answers": counts["refused"],
                "flood_process_cpu_s": counts["cpu_s"],
            },
            "limits": limits_seen(scrape(server.admin_port)),
        }
    finally:
        stop(server)


# -- bots on a default server (issue #16) -------------------------------------------------------


BOT_LAUNCH = (
    "import runpy, signal, sys; "
    "signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.argv[0] = 'tilehall-bot'; "
    "runpy.run_module('tilehall.clients.bot', run_name='__main__', alter_sys=True)"
)
"""``tilehall-bot`` with Ctrl-C (SIGINT) handled as a terminal gives it.

A script started in the background by a shell without job control (``cmd &`` in
a script) runs with SIGINT ignored, and so would the bots it starts: Python then
installs no handler and Ctrl-C never reaches them. The handler is put back here,
in the bot's own interpreter, and not in a ``preexec_fn``: that runs between
fork and exec, where a lock another thread of the parent held can never be
released, and the child hangs before it is a bot."""


def bot_command(url: str, game: str, parallel: int) -> list[str]:
    return [
        sys.executable,
        "-c",
        BOT_LAUNCH,
        "--url",
        url,
        "--game",
        game,
        "--games",
        "1000",
        "--parallel",
        str(parallel),
        "--json",
        "--progress",
        "0",
    ]


async def run_bots(a: argparse.Namespace) -> dict[str, Any]:
    """Every game's ``tilehall-bot`` at once for ``--seconds``, then Ctrl-C, then /metrics."""
    server = spawn(a, ping_interval=20.0)
    url = server.url
    try:
        games = a.games.split(",") if a.games else list(GAMES)
        procs = {
            g: subprocess.Popen(
                bot_command(url, g, a.bot_parallel),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for g in games
        }
        seconds = a.seconds or 60.0
        await asyncio.sleep(seconds)
        for p in procs.values():
            p.send_signal(signal.SIGINT)
        bots: dict[str, Any] = {}
        for g, p in procs.items():
            try:
                out, err = await asyncio.to_thread(p.communicate, timeout=60)
            except subprocess.TimeoutExpired:  # reported as such, never left running
                p.kill()
                out, err = await asyncio.to_thread(p.communicate)
                err += "\ndid not stop within 60 s of Ctrl-C: killed"
            lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
            summary = next((x["summary"] for x in lines if "summary" in x), None)
            errors: Counter[str] = Counter()
            for x in lines:
                if "summary" not in x:
                    errors.update(x.get("errors") or [])
            bots[g] = {
                "exit": p.returncode,
                "games": summary["games"] if summary else None,
                "finished": summary["finished"] if summary else None,
                "moves": summary["moves"] if summary else None,
                "refused": summary["refused"] if summary else None,
                "error_codes": dict(errors),
                "stderr_tail": err.strip().splitlines()[-3:],
            }
        metrics = scrape(server.admin_port)
        actions = {
            key.split('game="')[1].split('"')[0]: int(v)
            for key, v in metrics.items()
            if key.startswith("tilehall_actions_total{")
        }
        limits = limits_seen(metrics)
        return {
            "mode": "bots",
            "seconds": seconds,
            "parallel_per_bot": a.bot_parallel,
            "rate_limited": limits["rate_limited"],
            "bans": limits["bans"],
            "bots": bots,
            "moves_played": sum(b["moves"] or 0 for b in bots.values()),
            "server_actions_by_game": actions,
            "limits": limits,
        }
    finally:
        stop(server)


# -- command line -----------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--mode", choices=("act", "listing", "junk", "bots"), default="act")
    ap.add_argument("--samples", type=int, default=1000, help="bystander acts (and pings)")
    ap.add_argument(
        "--flooders",
        type=int,
        default=None,
        help="flooding connections (act: 2, listing: 3, junk: 2)",
    )
    ap.add_argument(
        "--seconds",
        type=float,
        default=0,
        help="how long the flood lasts (default: the whole loaded measurement); "
        "bots: how long the bots play (default 60)",
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
    ap.add_argument("--rooms", type=int, default=10_000, help="listing: rooms to fill the server")
    ap.add_argument(
        "--per-player", type=int, default=10, help="listing: rooms each filling player makes"
    )
    ap.add_argument(
        "--wide-names",
        action="store_true",
        help="listing: names of 4-byte letters (96 bytes each), the largest summaries",
    )
    ap.add_argument(
        "--window",
        type=int,
        default=1,
        help="listing: requests a flooder sends before reading answers (1: waits for each)",
    )
    ap.add_argument(
        "--poll-rate",
        type=float,
        default=0,
        help="listing: each flooder's own cap on requests a second (0: as the server allows)",
    )
    ap.add_argument(
        "--page-limit",
        type=int,
        default=PAGE_MAX,
        help="listing: the flooders' rooms limit (a small one with --poll-rate: the same "
        "requests, small replies)",
    )
    ap.add_argument("--junk", type=int, default=500, help="junk: actions in the measured batch")
    ap.add_argument(
        "--data-root",
        default=None,
        help="where the server's data directory goes (e.g. /dev/shm: no disk, so no fsync "
        "stalls in the act round trips; default: the temp folder, on disk)",
    )
    ap.add_argument("--games", default="", help="bots: games to play, comma-separated (all)")
    ap.add_argument("--bot-parallel", type=int, default=1, help="bots: each bot's --parallel")
    a = ap.parse_args(argv)
    if a.flooders is None:
        a.flooders = {"act": 2, "listing": 3, "junk": 2}.get(a.mode, 0)
    return a


RUNS: dict[str, Callable[[argparse.Namespace], Any]] = {
    "act": run_act,
    "listing": run_listing,
    "junk": run_junk,
    "bots": run_bots,
}


async def main(argv: list[str] | None = None) -> dict[str, Any]:
    a = parse_args(argv)
    result: dict[str, Any] = await RUNS[a.mode](a)
    result["machine"] = {"nproc": os.cpu_count(), "loadavg": os.getloadavg()}
    result["data_root"] = a.data_root or tempfile.gettempdir()
    return result


def show(report: dict[str, Any]) -> str:
    """The report as JSON, a line for each top-level field and each item of a list."""
    lines = []
    for key, value in report.items():
        if isinstance(value, list) and value:
            items = ",\n  ".join(json.dumps(v) for v in value)
            lines.append(f"  {json.dumps(key)}: [\n  {items}\n ]")
        elif isinstance(value, dict) and any(isinstance(v, dict) for v in value.values()):
            inner = ",\n  ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in value.items())
            lines.append(f" {json.dumps(key)}: {{\n  {inner}\n }}")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(lines) + "\n}"


if __name__ == "__main__":
    print(show(asyncio.run(main())))
