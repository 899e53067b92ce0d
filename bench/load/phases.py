"""The phases of a load run, each measured against the bare baseline where it has one.

:class:`Harness` starts the servers (unless given ``--url``), runs the phases
of its :class:`~bench.load.config.LoadConfig` one after another and gathers
their figures into one report; see :mod:`bench.load` for what each phase does.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tilehall.protocol import VERSION, encode
from tilehall.server.bots import find_bot

from bench.load.baseline import request as bare_request
from bench.load.config import LoadConfig
from bench.load.guesses import guess
from bench.load.measure import FanOut, Proc, Reservoir, machine, mib, pct, per
from bench.load.players import Client, Player, Stats, cheapest_level
from bench.load.report import config_json
from bench.load.servers import BareServer, start_baseline, start_tilehall, stop
from bench.load.wire import OnFrame, Wire, open_wire
from tests.helpers import ServerProcess, http_get

__all__ = ["Harness"]


class Harness:
    """One load run: its servers, its phases, its report."""

    def __init__(self, cfg: LoadConfig) -> None:
        self.cfg = cfg
        self.report: dict[str, Any] = {"config": config_json(cfg), "machine": machine()}
        self.tilehall: ServerProcess | None = None
        self.bare: BareServer | None = None
        self.tmp = tempfile.TemporaryDirectory(prefix="tilehall-load-")
        self.host = "127.0.0.1"
        self.port = 0
        self.server = Proc(cfg.server_pid)
        self.bare_proc = Proc(None)
        self.token: str | None = None

    # -- plumbing --------------------------------------------------------------

    def start(self) -> None:
        cfg = self.cfg
        if cfg.url is None:
            self.tilehall = start_tilehall(
                Path(self.tmp.name) / "data", cfg.server_loop, cfg.server_python
            )
            self.port = self.tilehall.port
            self.server = Proc(self.tilehall.pid)
        else:
            parts = urlsplit(cfg.url)
            self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 8765
        if cfg.baseline:
            self.bare = start_baseline(cfg.server_loop)
            self.bare_proc = Proc(self.bare.pid)

    def stop(self) -> None:
        for srv in (self.tilehall, self.bare):
            if srv is not None:
                stop(srv)
        self.tmp.cleanup()

    def say(self, text: str) -> None:
        if self.cfg.progress:
            print(text, file=sys.stderr, flush=True)

    @contextlib.asynccontextmanager
    async def progress(self, phase: str, counter: Callable[[], str]) -> Any:
        """Print ``counter()`` once a second while the phase runs."""
        start = time.monotonic()

        async def tick() -> None:
            while True:
                await asyncio.sleep(1.0)
                rss = self.server.rss()
                mem = f" server rss {rss / 2**20:.0f} MiB" if rss else ""
                self.say(f"[{phase} {time.monotonic() - start:5.1f}s] {counter()}{mem}")

        task = asyncio.create_task(tick()) if self.cfg.progress else None
        try:
            yield
        finally:
            if task is not None:
                task.cancel()

    async def client(self, stats: Stats) -> Client:
        """A connection that said hello; all share one player (solo rooms allow it)."""
        s = Client(stats)
        await s.open(self.host, self.port)
        if self.token is None:
            await s.hello(
                name=f"load-{os.getpid()}-{random.randrange(10**6)}", compact=self.cfg.compact
            )
            self.token = s.token
        else:
            await s.hello(token=self.token, compact=self.cfg.compact)
        return s

    async def open_many(self, n: int, make: Callable[[], Any], batch: int = 200) -> list[Any]:
        out: list[Any] = []
        for i in range(0, n, batch):
            out.extend(await asyncio.gather(*(make() for _ in range(min(batch, n - i)))))
        return out

    # -- idle ----------------------------------------------------------------------

    async def phase_idle(self) -> dict[str, Any]:
        n = self.cfg.connections
        stats = Stats()
        out: dict[str, Any] = {"connections": n}
        await self.client(stats)  # the shared player exists before we measure
        await asyncio.sleep(0.5)
        before = self.server.rss()
        t0 = time.monotonic()
        opened: list[Client] = []

        async with self.progress("idle", lambda: f"{len(opened)}/{n} connected"):

            async def one() -> Client:
                s = await self.client(stats)
                opened.append(s)
                return s

            await self.open_many(n, one)
        out["connect_s"] = round(time.monotonic() - t0, 2)
        await asyncio.sleep(1.0)
        after = self.server.rss()
        if before is not None and after is not None:
            out["server_rss_before_mib"] = round(before / 2**20, 1)
            out["server_rss_after_mib"] = round(after / 2**20, 1)
            out["kib_per_connection"] = round((after - before) / n / 1024, 2)
        out["errors"] = stats.errors
        await self._close_all(opened)  # the client's own descriptors are limited too
        if self.bare is not None:
            out["baseline_kib_per_connection"] = await self._bare_idle(n)
            if out.get("kib_per_connection") and out["baseline_kib_per_connection"]:
                out["ratio_to_baseline"] = round(
                    out["kib_per_connection"] / out["baseline_kib_per_connection"], 2
                )
        return out

    async def _bare_idle(self, n: int) -> float | None:
        assert self.bare is not None
        await asyncio.sleep(0.5)
        before = self.bare_proc.rss()
        wires: list[Wire] = await self.open_many(
            n, lambda: open_wire(self.host, self.bare.port if self.bare else 0)
        )
        await asyncio.sleep(1.0)
        after = self.bare_proc.rss()
        for w in wires:
            w.close()
        await asyncio.gather(*(w.closed for w in wires), return_exceptions=True)
        if before is None or after is None:
            return None
        return round((after - before) / n / 1024, 2)

    async def _close_all(self, clients: list[Client]) -> None:
        for c in clients:
            c.close()
        wires = [c.wire.closed for c in clients if c.wire is not None]
        await asyncio.gather(*wires, return_exceptions=True)

    # -- rooms ---------------------------------------------------------------------

    async def phase_rooms(self) -> dict[str, Any]:
        cfg = self.cfg
        stats = Stats()
        level = cfg.level or cheapest_level(cfg.game)
        cls = find_bot(cfg.game, level)
        self.say(f"[rooms] opening {cfg.rooms} rooms of {cfg.game} ({level} bots)")
        clients: list[Client] = await self.open_many(
            cfg.rooms, lambda: self.client(stats), batch=100
        )
        players = [
            Player(s, cfg, cls(rng=random.Random(i), budget=0.05), stats)
            for i, s in enumerate(clients)
        ]
        await self.open_many_rooms(players)
        gc0 = await self.server_gc()
        cpu0, loop0, t0 = self.server.cpu(), self.server.loop_cpu(), time.monotonic()
        ccpu0 = time.process_time()
        end = t0 + cfg.duration
        stats.moves = 0
        stats.latency = Reservoir()

        pace = cfg.pace

        async def play(p: Player) -> None:
            if pace:
                await asyncio.sleep(random.uniform(0, pace))
            while time.monotonic() < end:
                if pace:
                    await asyncio.sleep(pace * random.uniform(0.5, 1.5))
                if not await p.move():
                    stats.games += 1
                    await p.new_room()

        last = [0, t0]

        def counter() -> str:
            now = time.monotonic()
            rate = (stats.moves - last[0]) / max(1e-9, now - last[1])
            last[:] = [stats.moves, now]
            return f"moves {stats.moves} ({rate:.0f}/s) errors {sum(stats.errors.values())}"

        guessing = (
            asyncio.create_task(guess(f"ws://{self.host}:{self.port}", cfg.guesses, end))
            if cfg.guesses
            else None
        )
        async with self.progress("rooms", counter):
            results = await asyncio.gather(*(play(p) for p in players), return_exceptions=True)
        elapsed = time.monotonic() - t0
        guessed = await guessing if guessing is not None else None
        failures = [r for r in results if isinstance(r, BaseException)]
        for exc in failures:
            stats.error(f"client:{type(exc).__name__}")
        out: dict[str, Any] = {
            "rooms": cfg.rooms,
            "pace_s": cfg.pace,
            "game": cfg.game,
            "level": level,
            "seconds": round(elapsed, 2),
            "moves": stats.moves,
            "moves_per_s": round(stats.moves / elapsed, 1),
            "games_finished": stats.games,
            "act_update_rtt": stats.latency.summary(),
            "think_ms_per_move": round(1000 * stats.think / max(1, stats.moves), 3),
            "act_bytes": round(stats.act_bytes / max(1, stats.moves)),
            "update_bytes": round(stats.update_bytes / max(1, stats.updates)),
            "update_bytes_median": stats.median_update_bytes(),
            "server_cpu_pct": pct(self.server.cpu(), cpu0, elapsed),
            "server_loop_cpu_pct": pct(self.server.loop_cpu(), loop0, elapsed),
            "client_cpu_pct": round(100 * (time.process_time() - ccpu0) / elapsed, 1),
            "errors": stats.errors,
        }
        if guessed is not None:
            out["guesses"] = guessed
        out["server_cpu_us_per_move"] = per(out["server_cpu_pct"], elapsed, stats.moves)
        out["server_loop_cpu_us_per_move"] = per(out["server_loop_cpu_pct"], elapsed, stats.moves)
        gc1 = await self.server_gc()
        if gc0 is not None and gc1 is not None:
            counts = [b - a for a, b in zip(gc0[1], gc1[1], strict=True)]
            out["server_build"] = gc1[0]
            out["server_collections"] = counts
            # Every collection, of whichever generation, starts when the young generation
            # fills: a move's allocations (net container objects), counted where they land.
            out["server_collections_per_1000_moves"] = round(
                1000 * sum(counts) / max(1, stats.moves), 2
            )
        await self._close_all(clients)
        if self.bare is not None:
            bare = await self.bare_echo(cfg.rooms, out["act_bytes"], out["update_bytes"], cfg.pace)
            out["baseline_echo"] = bare
            out["ratio_to_echo"] = round(out["moves_per_s"] / bare["round_trips_per_s"], 3)
        return out

    async def server_gc(self) -> tuple[str, list[int]] | None:
        """The harness's own server's build and collections by generation, from ``/metrics``."""
        if self.tilehall is None or not self.tilehall.admin_port:
            return None
        status, body = await asyncio.to_thread(http_get, self.tilehall.admin_url + "/metrics")
        if status != 200:
            return None
        counts = [0, 0, 0]
        build = "?"
        for line in body.splitlines():
            if line.startswith('tilehall_gc_pause_seconds_count{generation="'):
                counts[int(line.split('"')[1])] = int(line.split()[-1])
            elif line.startswith("tilehall_build_info{"):
                build = line.split('"')[1]
        return build, counts

    async def open_many_rooms(self, players: list[Player]) -> None:
        sem = asyncio.Semaphore(50)

        async def one(p: Player) -> None:
            async with sem:
                await p.new_room()

        await asyncio.gather(*(one(p) for p in players))

    async def bare_echo(self, n: int, size: int, reply: int, pace: float) -> dict[str, Any]:
        """Closed-loop echo on ``n`` connections with the rooms' frame sizes and pace."""
        assert self.bare is not None
        lat = Reservoir()
        done = 0
        wires: list[Wire] = []
        waiters: dict[Wire, asyncio.Future[float]] = {}

        def on_frame(wire: Wire) -> OnFrame:
            def cb(payload: bytes, now: float) -> None:
                fut = waiters.pop(wire, None)
                if fut is not None and not fut.done():
                    fut.set_result(now)

            return cb

        async def connect() -> Wire:
            wire = await open_wire(self.host, self.bare.port if self.bare else 0)
            wire.on_frame = on_frame(wire)
            wires.append(wire)
            return wire

        await self.open_many(n, connect)
        end = time.monotonic() + self.cfg.duration
        t_start = time.monotonic()
        cpu0 = self.bare_proc.cpu()
        loop = asyncio.get_running_loop()

        async def run(wire: Wire) -> None:
            nonlocal done
            tag = 0
            if pace:
                await asyncio.sleep(random.uniform(0, pace))
            while time.monotonic() < end:
                if pace:
                    await asyncio.sleep(pace * random.uniform(0.5, 1.5))
                tag += 1
                fut: asyncio.Future[float] = loop.create_future()
                waiters[wire] = fut
                t0 = time.monotonic()
                wire.send(bare_request(b"e", tag, size, reply))
                async with asyncio.timeout(30.0):
                    t1 = await fut
                lat.add(t1 - t0)
                done += 1

        async with self.progress("echo", lambda: f"round trips {done}"):
            await asyncio.gather(*(run(w) for w in wires))
        elapsed = time.monotonic() - t_start
        for w in wires:
            w.close()
        await asyncio.gather(*(w.closed for w in wires), return_exceptions=True)
        cpu = pct(self.bare_proc.cpu(), cpu0, elapsed)
        return {
            "connections": n,
            "round_trips_per_s": round(done / elapsed, 1),
            "rtt": lat.summary(),
            "server_cpu_pct": cpu,
            "server_cpu_us_per_round_trip": per(cpu, elapsed, done),
        }

    # -- fanout --------------------------------------------------------------------

    async def phase_fanout(self) -> dict[str, Any]:
        cfg = self.cfg
        stats = Stats()
        level = cfg.level or cheapest_level(cfg.game)
        bot = find_bot(cfg.game, level)(rng=random.Random(7), budget=0.05)
        player = Player(await self.client(stats), cfg, bot, stats)
        fan = FanOut(cfg.spectators, cfg.window)
        self.say(f"[fanout] {cfg.spectators} spectators connecting")
        specs: list[Wire] = await self.open_many(
            cfg.spectators, lambda: open_wire(self.host, self.port, None)
        )
        for i, w in enumerate(specs):
            w.on_frame = fan.receiver(i, player.sent_at)
            w.closed.add_done_callback(lambda _f: fan.lost())
        # Spectators say hello as the shared player: one raw frame each, no reply awaited.
        assert self.token is not None
        hello = encode({"t": "hello", "v": VERSION, "token": self.token, "compact": cfg.compact})
        for w in specs:
            w.send(hello)
        watch_s = 0.0
        play_s = 0.0
        moves = 0
        cpu_play = 0.0
        end = time.monotonic() + cfg.duration
        rounds = 0

        def counter() -> str:
            return (
                f"moves {stats.moves} frames to spectators {fan.delivered} "
                f"alive {fan.alive}/{cfg.spectators}"
            )

        async with self.progress("fanout", counter):
            while time.monotonic() < end and fan.alive:
                rounds += 1
                room = await player.new_room()
                t = time.monotonic()
                watch = encode({"t": "watch", "room": room})
                fan.reset(player.seq)
                for w in specs:
                    w.send(watch)
                await fan.all_watching(timeout=max(60.0, cfg.spectators / 50))
                watch_s += time.monotonic() - t
                t, cpu0 = time.monotonic(), self.server.cpu()
                while time.monotonic() < end:
                    await fan.window_open(player.seq + 1)
                    if not await player.move():
                        break
                    moves += 1
                    fan.expected += fan.alive
                await fan.window_open(player.seq + cfg.window, timeout=30.0)
                play_s += time.monotonic() - t
                cpu1 = self.server.cpu()
                if cpu0 is not None and cpu1 is not None:
                    cpu_play += cpu1 - cpu0
        rss = self.server.rss()
        out: dict[str, Any] = {
            "spectators": cfg.spectators,
            "game": cfg.game,
            "rooms_played": rounds,
            "watch_setup_s": round(watch_s, 2),
            "play_s": round(play_s, 2),
            "moves": moves,
            "moves_per_s": round(moves / max(play_s, 1e-9), 1),
            "frames_delivered": fan.delivered,
            "delivery_per_s": round(fan.delivered / max(play_s, 1e-9), 1),
            "expected_frames": fan.expected,
            "completeness": round(fan.delivered / max(1, fan.expected), 4),
            "lag": fan.lag.summary(),
            "act_update_rtt": stats.latency.summary(),
            "update_bytes": round(stats.update_bytes / max(1, stats.updates)),
            "update_bytes_median": stats.median_update_bytes(),
            "act_bytes": round(stats.act_bytes / max(1, stats.moves)),
            "spectators_lost": cfg.spectators - fan.alive,
            "server_cpu_pct": round(100 * cpu_play / play_s, 1) if play_s else None,
            "server_cpu_us_per_frame": round(1e6 * cpu_play / fan.delivered, 2)
            if fan.delivered
            else None,
            "server_rss_mib": round(rss / 2**20, 1) if rss else None,
            "errors": stats.errors,
        }
        for w in specs:
            w.close()
        await asyncio.gather(*(w.closed for w in specs), return_exceptions=True)
        player.c.close()
        if self.bare is not None:
            bare = await self.bare_broadcast(
                cfg.spectators, out["act_bytes"], out["update_bytes"], cfg.duration
            )
            out["baseline_broadcast"] = bare
            if bare["delivery_per_s"]:
                out["ratio_to_broadcast"] = round(out["delivery_per_s"] / bare["delivery_per_s"], 3)
        return out

    async def bare_broadcast(
        self, n: int, size: int, reply: int, duration: float
    ) -> dict[str, Any]:
        """One publisher, ``n`` receivers, the same window rule as the real fan-out."""
        assert self.bare is not None
        port = self.bare.port
        fan = FanOut(n, self.cfg.window)
        sent_at: dict[int, float] = {}
        specs: list[Wire] = await self.open_many(n, lambda: open_wire(self.host, port, None))
        for i, w in enumerate(specs):
            w.on_frame = fan.bare_receiver(i, sent_at)
            w.closed.add_done_callback(lambda _f: fan.lost())
        own: dict[int, asyncio.Future[float]] = {}

        def mine(payload: bytes, now: float) -> None:
            fut = own.pop(int.from_bytes(payload[1:9], "big"), None)
            if fut is not None and not fut.done():
                fut.set_result(now)

        pub = await open_wire(self.host, port, mine)
        lat = Reservoir()
        loop = asyncio.get_running_loop()
        fan.reset(0)
        fan.watching = n
        seq = 0
        t_start = time.monotonic()
        end = t_start + duration
        cpu0 = self.bare_proc.cpu()
        async with self.progress("broadcast", lambda: f"sent {seq} delivered {fan.delivered}"):
            while time.monotonic() < end and fan.alive:
                await fan.window_open(seq + 1)
                seq += 1
                fut: asyncio.Future[float] = loop.create_future()
                own[seq] = fut
                t0 = time.monotonic()
                sent_at[seq] = t0
                pub.send(bare_request(b"b", seq, size, reply))
                fan.expected += fan.alive
                async with asyncio.timeout(30.0):
                    lat.add(await fut - t0)
            await fan.window_open(seq + self.cfg.window, timeout=30.0)
        elapsed = time.monotonic() - t_start
        lost = n - fan.alive
        for w in [*specs, pub]:
            w.close()
        await asyncio.gather(*(w.closed for w in [*specs, pub]), return_exceptions=True)
        out: dict[str, Any] = {
            "receivers": n,
            "messages": seq,
            "messages_per_s": round(seq / elapsed, 1),
            "delivery_per_s": round(fan.delivered / elapsed, 1),
            "completeness": round(fan.delivered / max(1, fan.expected), 4),
            "lag": fan.lag.summary(),
            "publisher_rtt": lat.summary(),
            "server_cpu_pct": pct(self.bare_proc.cpu(), cpu0, elapsed),
            "lost": lost,
        }
        out["server_cpu_us_per_frame"] = per(out["server_cpu_pct"], elapsed, fan.delivered)
        return out

    # -- journal -----------------------------------------------------------------

    async def phase_journal(self) -> dict[str, Any]:
        """Append to a fresh SQLite store from many rooms at once, as rooms do."""
        from tilehall.server.store.records import JournalEntry, RoomRecord, SeatRecord
        from tilehall.server.store.sqlite import SQLiteStore

        cfg = self.cfg
        store = SQLiteStore(Path(self.tmp.name) / "journal.sqlite3")
        await store.open()
        rooms = [f"j{i}" for i in range(cfg.journal_rooms)]
        for r in rooms:
            await store.create_room(
                RoomRecord(
                    id=r, game="ishido", options={}, seed=1, seats=(SeatRecord(),),
                    private_code=None, created_at=0.0,
                )
            )  # fmt: skip
        per_room = max(1, cfg.journal_actions // len(rooms))
        action = {"do": "place", "at": [3, 4]}
        lat = Reservoir()

        async def room(r: str) -> None:
            for seq in range(1, per_room + 1):
                t = time.monotonic()
                await store.append(JournalEntry(room=r, seq=seq, seat=0, action=action, now=t))
                lat.add(time.monotonic() - t)

        t0 = time.monotonic()
        async with self.progress("journal", lambda: f"appends {lat.seen}"):
            await asyncio.gather(*(room(r) for r in rooms))
        elapsed = time.monotonic() - t0
        await store.close()
        total = per_room * len(rooms)
        return {
            "rooms": len(rooms),
            "actions": total,
            "committed_per_s": round(total / elapsed, 1),
            "append_latency": lat.summary(),
            "synchronous": store.synchronous,
        }

    # -- all -------------------------------------------------------------------------

    async def run(self) -> dict[str, Any]:
        for phase in self.cfg.phases:
            gc.collect()
            self.say(f"== {phase}")
            result = await getattr(self, f"phase_{phase}")()
            self.report[phase] = result
        rss = self.server.rss()
        self.report["server"] = {
            "pid": self.server.pid,
            "rss_mib": round(rss / 2**20, 1) if rss else None,
            "peak_rss_mib": mib(self.server.status("VmHWM")),
            "loop": self.cfg.server_loop,
        }
        self.report["client_loop"] = type(asyncio.get_running_loop()).__module__
        return self.report
