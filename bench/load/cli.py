"""``python -m bench.load``: the command line of the load harness."""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import resource
from pathlib import Path
from typing import Any

from tilehall.server.app import tune_gc
from tilehall.server.ops import GC_PAUSES, LATENCY_BUCKETS, watch_gc

from bench.load.config import PHASES, LoadConfig
from bench.load.phases import Harness
from bench.load.report import table
from bench.load.servers import raise_nofile

__all__ = ["main", "parse_args", "run_load"]


def parse_args(argv: list[str] | None = None) -> tuple[LoadConfig, argparse.Namespace]:
    d = LoadConfig()
    p = argparse.ArgumentParser(
        prog="python -m bench.load",
        description="Measure a Tilehall server: idle connections, rooms of bots, fan-out to "
        "spectators and the journal, each against a bare websockets server.",
    )
    p.add_argument("--url", help="measure this running server (default: start one)")
    p.add_argument("--server-pid", type=int, help="with --url: the server's pid, for memory")
    p.add_argument("--connections", "-N", type=int, default=d.connections, help="idle connections")
    p.add_argument("--rooms", "-R", type=int, default=d.rooms, help="rooms of bots playing")
    p.add_argument("--spectators", "-S", type=int, default=d.spectators, help="on one room")
    p.add_argument("--duration", type=float, default=d.duration, help="seconds per phase")
    p.add_argument("--phases", default=",".join(PHASES), help="comma list of " + ", ".join(PHASES))
    p.add_argument("--game", default=d.game, help="solo game the bots play (default ishido)")
    p.add_argument("--level", help="bot level (default: the game's cheapest)")
    p.add_argument(
        "--pace", type=float, default=d.pace, help="seconds between a room's moves (0: flat out)"
    )
    p.add_argument(
        "--guesses",
        type=float,
        default=d.guesses,
        help="wrong-password hellos a second from this address during the rooms phase",
    )
    p.add_argument("--window", type=int, default=d.window, help="updates ahead of spectators")
    p.add_argument("--no-baseline", action="store_true", help="skip the bare websockets runs")
    p.add_argument(
        "--compact", action="store_true", help="compact updates (patches), as bundled clients"
    )
    p.add_argument("--server-loop", choices=["asyncio", "uvloop"], default="asyncio")
    p.add_argument("--client-loop", choices=["asyncio", "uvloop"], default="asyncio")
    p.add_argument(
        "--server-python",
        help="run the Tilehall server with this Python (e.g. a compiled build's venv); "
        "the harness and the bare baseline keep this one",
    )
    p.add_argument(
        "--client-gc",
        choices=["off", "tuned"],
        default="off",
        help="the harness's own garbage collector: off while it runs (default), or tuned "
        "as the server's (its pauses then stamp replies late)",
    )
    p.add_argument("--journal-rooms", type=int, default=d.journal_rooms)
    p.add_argument("--journal-actions", type=int, default=d.journal_actions)
    p.add_argument("--json", action="store_true", help="print the JSON report on stdout")
    p.add_argument("--out", type=Path, help="also write the JSON report here")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    a = p.parse_args(argv)
    phases = tuple(x.strip() for x in a.phases.split(",") if x.strip())
    if bad := [x for x in phases if x not in PHASES]:
        p.error(f"unknown phase(s) {', '.join(bad)}")
    cfg = LoadConfig(
        url=a.url,
        server_pid=a.server_pid,
        connections=a.connections,
        rooms=a.rooms,
        spectators=a.spectators,
        duration=a.duration,
        phases=phases,
        game=a.game,
        level=a.level,
        window=a.window,
        pace=a.pace,
        guesses=a.guesses,
        baseline=not a.no_baseline,
        compact=a.compact,
        server_loop=a.server_loop,
        server_python=a.server_python,
        journal_rooms=a.journal_rooms,
        journal_actions=a.journal_actions,
        progress=not a.quiet,
    )
    return cfg, a


async def run_load(cfg: LoadConfig) -> dict[str, Any]:
    """Run the phases of ``cfg`` and return the report (servers started here are stopped)."""
    raise_nofile()
    h = Harness(cfg)
    await asyncio.to_thread(h.start)
    try:
        return await h.run()
    finally:
        await asyncio.to_thread(h.stop)


def _tune_own_collector(mode: str) -> None:
    """The harness's own collector: off (``mode`` "off") or tuned as the server's.

    A reply that arrives while this process collects is stamped late, and the
    lateness is the client's, not the server's. Tuned as the server's, the
    harness still paused 522 times, 1.8 s in all and 131 times over 5 ms, in a
    90 s run of a thousand rooms with whole views: each reply is decoded into a
    view its player keeps for a second, the very objects that make the
    server's collections long. The harness measures the server, so by default
    its collector is off while it runs (it collects once before each phase,
    out of the timing); reference counting still frees what it drops. Its peak
    RSS is in the report (``client_rss_mib``: 58 MiB over that run), and what
    pauses there were as ``client_gc`` (:func:`_own_pauses`), to be read next
    to the tails.
    """
    tune_gc()
    watch_gc()
    if mode == "off":
        gc.disable()


def _own_pauses(mode: str) -> dict[str, Any]:
    """This process's collections since :func:`_tune_own_collector`: how many, how long."""
    over = LATENCY_BUCKETS.index(0.005) + 1  # the buckets above 5 ms
    return {
        "mode": mode,
        "collections": sum(h.count for h in GC_PAUSES),
        "total_ms": round(1e3 * sum(h.total for h in GC_PAUSES), 2),
        "over_5ms": sum(sum(h.counts[over:]) for h in GC_PAUSES),
        "client_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def main(argv: list[str] | None = None) -> None:
    """``python -m bench.load``."""
    cfg, a = parse_args(argv)
    if a.client_loop == "uvloop":
        import uvloop

        uvloop.install()
    _tune_own_collector(a.client_gc)
    report = asyncio.run(run_load(cfg))
    report["client_gc"] = _own_pauses(a.client_gc)
    if a.out:
        a.out.write_text(json.dumps(report, indent=2))
    if a.json:
        print(json.dumps(report, indent=2))
    else:
        print(table(report))
