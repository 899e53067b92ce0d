"""``tilehall-bot load``: measure a server with many connections, rooms of bots and spectators.

Three phases, each also run against a bare ``websockets`` server
(:mod:`clients.bot.baseline`) with the same clients and frame sizes, so that
every figure comes with the transport's own limit on this machine:

``idle``
    ``--connections`` connections that said hello and sit idle: server RSS
    growth per connection (baseline: bare connections to the bare server).
``rooms``
    ``--rooms`` connections, each playing its own room with a COMP bot from
    :mod:`server.bots`, as fast as the server answers: moves/s (each an action
    committed to the journal before its update went out) and the act -> update
    round trip (baseline: closed-loop echo with the same request/reply sizes).
``fanout``
    one bot playing a room watched by ``--spectators`` connections: update
    frames delivered to spectators per second and their lag behind the act
    (baseline: websockets' ``broadcast`` to as many connections). The player
    stays at most ``--window`` updates ahead of the slowest spectator, so no
    one is dropped for being slow and both servers are measured at the rate
    they can actually deliver.

``journal`` (no network) appends to the SQLite store from many rooms at once:
its committed actions/s ceiling.

The harness starts the server itself (``python -m server.app`` in a subprocess,
so it can read ``/proc/<pid>/status``) unless given ``--url`` (and
``--server-pid`` for memory figures). Bots think on the event loop here, not in
a thread: a worker thread holding the GIL would delay the arrival timestamps
that the latencies are made of; thinking time is reported apart.

Results print as a table, and as JSON with ``--json`` (or to ``--out FILE``).
"""

from __future__ import annotations

import argparse
import array
import asyncio
import contextlib
import gc
import itertools
import json
import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import msgpack

from clients.bot.baseline import request as bare_request
from clients.bot.wire import Wire, open_wire
from server.bots import bot_levels, find_bot
from server.bots.base import Bot

__all__ = ["LoadConfig", "main", "run_load"]

ROOT = Path(__file__).resolve().parents[2]
PHASES = ("idle", "rooms", "fanout", "journal")


@dataclass(slots=True, kw_only=True)
class LoadConfig:
    """What to measure, and how hard."""

    url: str | None = None
    """A running server; None starts one (and the baseline) in subprocesses."""
    server_pid: int | None = None
    connections: int = 1000
    rooms: int = 100
    spectators: int = 1000
    duration: float = 10.0
    """Seconds of measurement in each of the rooms and fanout phases."""
    phases: tuple[str, ...] = PHASES
    game: str = "ishido"
    level: str | None = None
    """Bot level; default the game's cheapest (easy, greedy, else normal)."""
    options: dict[str, Any] = field(default_factory=dict)
    window: int = 4
    pace: float = 0.0
    """Seconds each room's bot waits between moves (0: as fast as answered).

    Closed loops obey Little's law: latency = rooms / throughput. A thousand
    rooms moving flat out measure saturation; paced, they measure the round
    trip a player feels while the server carries that many rooms.
    """
    baseline: bool = True
    server_loop: str = "asyncio"
    """``asyncio`` or ``uvloop``: the event loop of the servers started here."""
    journal_rooms: int = 200
    journal_actions: int = 20000
    progress: bool = True


# -- statistics ---------------------------------------------------------------------------


class Reservoir:
    """A uniform sample of at most ``size`` values (Algorithm R), for percentiles."""

    def __init__(self, size: int = 200_000, seed: int = 1) -> None:
        self.size = size
        self.seen = 0
        self.values = array.array("d")
        self._rng = random.Random(seed)

    def add(self, value: float) -> None:
        self.seen += 1
        if len(self.values) < self.size:
            self.values.append(value)
        else:
            j = self._rng.randrange(self.seen)
            if j < self.size:
                self.values[j] = value

    def summary(self) -> dict[str, float | None]:
        """p50/p95/p99/max in milliseconds (None with no samples)."""
        if not self.values:
            return {"p50_ms": None, "p95_ms": None, "p99_ms": None, "max_ms": None, "n": 0}
        v = sorted(self.values)

        def q(p: float) -> float:
            return round(v[min(len(v) - 1, int(p * len(v)))] * 1000, 3)

        return {
            "p50_ms": q(0.50),
            "p95_ms": q(0.95),
            "p99_ms": q(0.99),
            "max_ms": round(v[-1] * 1000, 3),
            "n": self.seen,
        }


class Proc:
    """A process whose memory and CPU we read from /proc."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid

    def status(self, key: str) -> int | None:
        """A ``kB`` field of /proc/<pid>/status, in bytes."""
        if self.pid is None:
            return None
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
        except OSError:
            return None
        return None

    def rss(self) -> int | None:
        return self.status("VmRSS")

    def cpu(self) -> float | None:
        """User + system CPU seconds so far."""
        if self.pid is None:
            return None
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# -- processes started here ------------------------------------------------------------


def _raise_nofile() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class Spawned:
    """A server in a subprocess; its port is read from the line it logs when listening."""

    def __init__(self, argv: list[str], pattern: str) -> None:
        self.argv = argv
        self.pattern = re.compile(pattern)
        self.proc: subprocess.Popen[str] | None = None
        self.port = 0
        self.log: list[str] = []

    def start(self, timeout: float = 30.0) -> int:
        self.proc = subprocess.Popen(
            self.argv,
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            preexec_fn=_raise_nofile,
        )
        assert self.proc.stderr is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            self.log.append(line)
            m = self.pattern.search(line)
            if m:
                self.port = int(m.group(1))
                # Keep reading its log so that it never blocks on a full pipe.
                stderr = self.proc.stderr
                _drain_thread(stderr, self.log)
                return self.port
        raise RuntimeError("server did not start:\n" + "".join(self.log))

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


def _drain_thread(stream: Any, log: list[str]) -> None:
    import threading

    def drain() -> None:
        for line in stream:
            if len(log) < 2000:
                log.append(line)

    threading.Thread(target=drain, daemon=True).start()


def _python(loop: str) -> list[str]:
    if loop == "uvloop":
        return [sys.executable, "-c", "import sys, uvloop; uvloop.install(); "
                "sys.argv[0] = 'tilehall'; import runpy; runpy.run_module("
                "sys.argv.pop(1), run_name='__main__')"]  # fmt: skip
    return [sys.executable, "-m"]


def start_tilehall(data_dir: Path, loop: str = "asyncio") -> Spawned:
    """``tilehall-server`` on a free port, with limits opened up for load."""
    argv = [
        *_python(loop),
        "server.app",
        "--port",
        "0",
        "--data-dir",
        str(data_dir),
        "--log-level",
        "warning" if loop == "never" else "info",
        # A load generator is one address sending far more than a person.
        "--rate",
        "1000000",
        "--burst",
        "1000000",
        "--bot-delay",
        "0",
    ]
    srv = Spawned(argv, r"listening on ws://[\d.]+:(\d+)")
    srv.start()
    return srv


def start_baseline(loop: str = "asyncio") -> Spawned:
    argv = [*_python(loop), "clients.bot.baseline", "--port", "0"]
    srv = Spawned(argv, r"listening on port (\d+)")
    srv.start()
    return srv


# -- a light msgpack session over a Wire --------------------------------------------


class Session:
    """Requests by id over a :class:`Wire`; replies resolve futures with their arrival time."""

    def __init__(self, stats: Stats) -> None:
        self.wire: Wire | None = None
        self.stats = stats
        self.ids = itertools.count(1)
        self.waiting: dict[int, asyncio.Future[tuple[dict[str, Any], float]]] = {}
        self.player: str | None = None
        self.token: str | None = None
        self.last_sent = 0

    async def open(self, host: str, port: int) -> None:
        self.wire = await open_wire(host, port, self.on_frame)

    def on_frame(self, payload: bytes, now: float) -> None:
        msg = msgpack.unpackb(payload, raw=False, strict_map_key=False)
        msg["_bytes"] = len(payload)
        re_ = msg.get("re")
        fut = self.waiting.pop(re_, None) if re_ is not None else None
        if msg.get("t") == "error":
            self.stats.error(msg.get("code", "?"))
        if fut is not None and not fut.done():
            fut.set_result((msg, now))

    def send(self, msg: dict[str, Any]) -> tuple[int, float]:
        assert self.wire is not None
        rid = next(self.ids)
        data = msgpack.packb({**msg, "id": rid}, use_bin_type=True)
        self.stats.sent_bytes(len(data))
        self.last_sent = len(data)
        t0 = time.monotonic()
        self.wire.send(data)
        return rid, t0

    async def request(
        self, msg: dict[str, Any], timeout: float = 60.0
    ) -> tuple[dict[str, Any], float]:
        fut: asyncio.Future[tuple[dict[str, Any], float]] = (
            asyncio.get_running_loop().create_future()
        )
        rid, _ = self.send(msg)
        self.waiting[rid] = fut
        try:
            return await asyncio.wait_for(fut, timeout)
        finally:
            self.waiting.pop(rid, None)

    async def hello(self, name: str | None = None, token: str | None = None) -> None:
        msg: dict[str, Any] = {"t": "hello", "v": 1}
        msg.update({"token": token} if token else {"name": name})
        reply, _ = await self.request(msg)
        if reply["t"] != "welcome":
            raise RuntimeError(f"hello refused: {reply}")
        self.player, self.token = reply["player"], reply["token"]

    def close(self) -> None:
        if self.wire is not None:
            self.wire.close()


@dataclass(slots=True)
class Stats:
    """Counters shared by one phase's clients."""

    moves: int = 0
    games: int = 0
    act_bytes: int = 0
    update_bytes: int = 0
    updates: int = 0
    think: float = 0.0
    errors: dict[str, int] = field(default_factory=dict)
    latency: Reservoir = field(default_factory=Reservoir)
    bytes_out: int = 0

    def error(self, code: str) -> None:
        self.errors[code] = self.errors.get(code, 0) + 1

    def sent_bytes(self, n: int) -> None:
        self.bytes_out += n


# -- bots playing ------------------------------------------------------------------------


def cheapest_level(game: str) -> str:
    levels = bot_levels(game)
    for level in ("easy", "greedy", "normal"):
        if level in levels:
            return level
    return next(iter(levels))


class Player:
    """One connection playing rooms of a solo game with a bot, one after another."""

    def __init__(self, session: Session, cfg: LoadConfig, bot: Bot, stats: Stats) -> None:
        self.s = session
        self.cfg = cfg
        self.bot = bot
        self.stats = stats
        self.room: str | None = None
        self.view: dict[str, Any] = {}
        self.seq = 0
        self.sent_at: dict[int, float] = {}
        """When the act that made each seq was sent (for spectator lag)."""

    async def new_room(self) -> str:
        msg: dict[str, Any] = {"t": "create", "game": self.cfg.game}
        if self.cfg.options:
            msg["options"] = self.cfg.options
        created, _ = await self.s.request(msg)
        if created["t"] != "created":
            raise RuntimeError(f"create refused: {created}")
        joined, _ = await self.s.request({"t": "join", "room": created["room"]})
        if joined["t"] != "joined":
            raise RuntimeError(f"join refused: {joined}")
        self.room, self.view, self.seq = created["room"], joined["view"], joined["seq"]
        return self.room

    def my_turn(self) -> bool:
        v = self.view
        return v.get("status") == "playing" and v.get("to_move") == v.get("seat")

    async def move(self) -> bool:
        """Think, act, wait for the update; False when the game is over (or stuck)."""
        if not self.my_turn():
            return False
        t = time.monotonic()
        action = self.bot.choose(self.view)
        self.stats.think += time.monotonic() - t
        if action is None:
            return False
        fut: asyncio.Future[tuple[dict[str, Any], float]] = (
            asyncio.get_running_loop().create_future()
        )
        rid, t0 = self.s.send({"t": "act", "room": self.room, "action": action})
        self.stats.act_bytes += self.s.last_sent
        self.s.waiting[rid] = fut
        self.sent_at[self.seq + 1] = t0
        reply, t1 = await asyncio.wait_for(fut, 30.0)
        if reply["t"] != "update":
            return False  # an error, counted by the session
        self.stats.latency.add(t1 - t0)
        self.stats.moves += 1
        self.seq, self.view = reply["seq"], reply["view"]
        self.stats.updates += 1
        self.stats.update_bytes += reply["_bytes"]
        return True


# -- the phases --------------------------------------------------------------------------


class Harness:
    def __init__(self, cfg: LoadConfig) -> None:
        self.cfg = cfg
        self.report: dict[str, Any] = {"config": _config_json(cfg), "machine": machine()}
        self.tilehall: Spawned | None = None
        self.bare: Spawned | None = None
        self.tmp = tempfile.TemporaryDirectory(prefix="tilehall-load-")
        self.host = "127.0.0.1"
        self.port = 0
        self.server = Proc(cfg.server_pid)
        self.bare_proc = Proc(None)
        self.token: str | None = None
        self._phase = ""
        self._counter: Callable[[], str] = lambda: ""

    # -- plumbing --------------------------------------------------------------

    def start(self) -> None:
        cfg = self.cfg
        if cfg.url is None:
            self.tilehall = start_tilehall(Path(self.tmp.name) / "data", cfg.server_loop)
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
                srv.stop()
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

    async def session(self, stats: Stats, *, port: int | None = None) -> Session:
        s = Session(stats)
        await s.open(self.host, port or self.port)
        return s

    async def player_session(self, stats: Stats) -> Session:
        """A connection that said hello; all share one player (solo rooms allow it)."""
        s = await self.session(stats)
        if self.token is None:
            await s.hello(name=f"load-{os.getpid()}-{random.randrange(10**6)}")
            self.token = s.token
        else:
            await s.hello(token=self.token)
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
        await self.player_session(stats)  # the shared player exists before we measure
        await asyncio.sleep(0.5)
        before = self.server.rss()
        t0 = time.monotonic()
        opened: list[Session] = []

        async with self.progress("idle", lambda: f"{len(opened)}/{n} connected"):

            async def one() -> Session:
                s = await self.player_session(stats)
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

    async def _close_all(self, sessions: list[Session]) -> None:
        for s in sessions:
            s.close()
        wires = [s.wire.closed for s in sessions if s.wire is not None]
        await asyncio.gather(*wires, return_exceptions=True)

    # -- rooms ---------------------------------------------------------------------

    async def phase_rooms(self) -> dict[str, Any]:
        cfg = self.cfg
        stats = Stats()
        level = cfg.level or cheapest_level(cfg.game)
        cls = find_bot(cfg.game, level)
        self.say(f"[rooms] opening {cfg.rooms} rooms of {cfg.game} ({level} bots)")
        sessions: list[Session] = await self.open_many(
            cfg.rooms, lambda: self.player_session(stats), batch=100
        )
        players = [
            Player(s, cfg, cls(rng=random.Random(i), budget=0.05), stats)
            for i, s in enumerate(sessions)
        ]
        await self.open_many_rooms(players)
        cpu0, t0 = self.server.cpu(), time.monotonic()
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

        async with self.progress("rooms", counter):
            results = await asyncio.gather(*(play(p) for p in players), return_exceptions=True)
        elapsed = time.monotonic() - t0
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
            "server_cpu_pct": _pct(self.server.cpu(), cpu0, elapsed),
            "client_cpu_pct": round(100 * (time.process_time() - ccpu0) / elapsed, 1),
            "errors": stats.errors,
        }
        out["server_cpu_us_per_move"] = _per(out["server_cpu_pct"], elapsed, stats.moves)
        await self._close_all(sessions)
        if self.bare is not None:
            bare = await self.bare_echo(cfg.rooms, out["act_bytes"], out["update_bytes"], cfg.pace)
            out["baseline_echo"] = bare
            out["ratio_to_echo"] = round(out["moves_per_s"] / bare["round_trips_per_s"], 3)
        return out

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

        def on_frame(wire: Wire) -> Callable[[bytes, float], None]:
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
                t1 = await asyncio.wait_for(fut, 30.0)
                lat.add(t1 - t0)
                done += 1

        async with self.progress("echo", lambda: f"round trips {done}"):
            await asyncio.gather(*(run(w) for w in wires))
        elapsed = time.monotonic() - t_start
        for w in wires:
            w.close()
        await asyncio.gather(*(w.closed for w in wires), return_exceptions=True)
        cpu = _pct(self.bare_proc.cpu(), cpu0, elapsed)
        return {
            "connections": n,
            "round_trips_per_s": round(done / elapsed, 1),
            "rtt": lat.summary(),
            "server_cpu_pct": cpu,
            "server_cpu_us_per_round_trip": _per(cpu, elapsed, done),
        }

    # -- fanout --------------------------------------------------------------------

    async def phase_fanout(self) -> dict[str, Any]:
        cfg = self.cfg
        stats = Stats()
        level = cfg.level or cheapest_level(cfg.game)
        bot = find_bot(cfg.game, level)(rng=random.Random(7), budget=0.05)
        player = Player(await self.player_session(stats), cfg, bot, stats)
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
        hello = msgpack.packb({"t": "hello", "v": 1, "token": self.token}, use_bin_type=True)
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
                watch = msgpack.packb({"t": "watch", "room": room}, use_bin_type=True)
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
        player.s.close()
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
                lat.add(await asyncio.wait_for(fut, 30.0) - t0)
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
            "server_cpu_pct": _pct(self.bare_proc.cpu(), cpu0, elapsed),
            "lost": lost,
        }
        out["server_cpu_us_per_frame"] = _per(out["server_cpu_pct"], elapsed, fan.delivered)
        return out

    # -- journal -----------------------------------------------------------------

    async def phase_journal(self) -> dict[str, Any]:
        """Append to a fresh SQLite store from many rooms at once, as rooms do."""
        from server.store.base import JournalEntry, RoomRecord, SeatRecord
        from server.store.sqlite import SQLiteStore

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
            "peak_rss_mib": _mib(self.server.status("VmHWM")),
            "loop": self.cfg.server_loop,
        }
        self.report["client_loop"] = type(asyncio.get_running_loop()).__module__
        return self.report


class FanOut:
    """Counts update frames reaching the spectators, and opens the player's window."""

    def __init__(self, n: int, window: int) -> None:
        self.n = n
        self.alive = n
        self.window = window
        self.delivered = 0
        self.expected = 0
        self.watching = 0
        self.lag = Reservoir()
        self.base = 0
        self.arrived: dict[int, int] = {}
        self._seqs: dict[bytes, int] = {}
        self._event = asyncio.Event()
        self._watched: set[int] = set()

    def reset(self, seq: int) -> None:
        self.base = seq
        self.arrived.clear()
        self._seqs.clear()
        self._watched.clear()
        self.watching = 0

    def lost(self) -> None:
        self.alive -= 1
        self._event.set()

    def _count(self, seq: int, now: float, sent_at: dict[int, float]) -> None:
        self.delivered += 1
        c = self.arrived.get(seq, 0) + 1
        self.arrived[seq] = c
        t = sent_at.get(seq)
        if t is not None:
            self.lag.add(now - t)
        if c >= self.alive:
            self._event.set()

    def receiver(self, i: int, sent_at: dict[int, float]) -> Callable[[bytes, float], None]:
        """The frame callback of spectator ``i``: updates are counted by their seq."""
        seqs = self._seqs

        def on_frame(payload: bytes, now: float) -> None:
            # Everyone gets the same bytes for an update (or a room summary):
            # decode each distinct frame once.
            seq = seqs.get(payload)
            if seq is None:
                msg = msgpack.unpackb(payload, raw=False, strict_map_key=False)
                t = msg.get("t")
                if t == "joined":
                    if i not in self._watched:
                        self._watched.add(i)
                        self.watching += 1
                        self._event.set()
                    return
                seq = msg["seq"] if t == "update" else -1
                if len(seqs) > 64:
                    seqs.clear()
                seqs[payload] = seq
            if seq >= 0:
                self._count(seq, now, sent_at)

        return on_frame

    def bare_receiver(self, i: int, sent_at: dict[int, float]) -> Callable[[bytes, float], None]:
        def on_frame(payload: bytes, now: float) -> None:
            self._count(int.from_bytes(payload[1:9], "big"), now, sent_at)

        return on_frame

    async def all_watching(self, timeout: float) -> None:
        end = time.monotonic() + timeout
        while self.watching < self.alive:
            self._event.clear()
            await asyncio.wait_for(self._event.wait(), max(0.01, end - time.monotonic()))

    async def window_open(self, seq: int, timeout: float = 30.0) -> None:
        """Wait until every live spectator has the update ``seq - window``."""
        need = seq - self.window
        end = time.monotonic() + timeout
        while need > self.base and self.arrived.get(need, 0) < self.alive:
            self._event.clear()
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"spectators stuck at update {need}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._event.wait(), min(left, 1.0))


def _pct(now: float | None, before: float | None, elapsed: float) -> float | None:
    if now is None or before is None or elapsed <= 0:
        return None
    return round(100 * (now - before) / elapsed, 1)


def _per(pct: float | None, elapsed: float, count: int) -> float | None:
    """Server CPU microseconds per unit of work: steadier than rates on a shared machine."""
    if pct is None or not count:
        return None
    return round(pct / 100 * elapsed * 1e6 / count, 2)


def _mib(n: int | None) -> float | None:
    return round(n / 2**20, 1) if n else None


def _config_json(cfg: LoadConfig) -> dict[str, Any]:
    return {k: getattr(cfg, k) for k in cfg.__dataclass_fields__}


def machine() -> dict[str, Any]:
    import platform
    from importlib.metadata import version

    mem = None
    with contextlib.suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = round(int(line.split()[1]) / 2**20, 1)
    return {
        "nproc": os.cpu_count(),
        "memory_gib": mem,
        "python": platform.python_version(),
        "websockets": version("websockets"),
        "platform": platform.platform(),
        "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
    }


# -- output ------------------------------------------------------------------------------


def table(report: dict[str, Any]) -> str:
    """The figures that matter, one per line, each next to its baseline."""
    rows: list[tuple[str, str, str]] = []

    def add(name: str, value: Any, base: Any = "") -> None:
        rows.append((name, "-" if value is None else str(value), "" if base is None else str(base)))

    m = report.get("machine", {})
    add("machine", f"{m.get('nproc')} cpu, {m.get('memory_gib')} GiB, python "
        f"{m.get('python')}, websockets {m.get('websockets')}")  # fmt: skip
    if idle := report.get("idle"):
        add("idle: connections", idle["connections"])
        add(
            "idle: server KiB per connection",
            idle.get("kib_per_connection"),
            f"bare websockets {idle.get('baseline_kib_per_connection')}",
        )
    if rooms := report.get("rooms"):
        echo = rooms.get("baseline_echo", {})
        ratio = rooms.get("ratio_to_echo")
        add(f"rooms: {rooms['rooms']} rooms moves/s", rooms["moves_per_s"],
            f"bare echo {echo.get('round_trips_per_s')} rt/s, ratio {ratio}")  # fmt: skip
        for q in ("p50_ms", "p95_ms", "p99_ms"):
            add(f"rooms: act->update {q}", rooms["act_update_rtt"][q],
                f"bare echo {echo.get('rtt', {}).get(q)}")  # fmt: skip
        add("rooms: bot think ms/move", rooms["think_ms_per_move"])
        add("rooms: frame bytes act/update", f"{rooms['act_bytes']}/{rooms['update_bytes']}")
        add("rooms: server cpu %", rooms["server_cpu_pct"], f"bare {echo.get('server_cpu_pct')}")
        add("rooms: server cpu us per move", rooms["server_cpu_us_per_move"],
            f"bare us per round trip {echo.get('server_cpu_us_per_round_trip')}")  # fmt: skip
        add("rooms: errors", rooms["errors"] or 0)
    if fan := report.get("fanout"):
        bare = fan.get("baseline_broadcast", {})
        ratio = fan.get("ratio_to_broadcast")
        add(f"fanout: {fan['spectators']} spectators frames/s", fan["delivery_per_s"],
            f"bare broadcast {bare.get('delivery_per_s')}, ratio {ratio}")  # fmt: skip
        add("fanout: moves/s", fan["moves_per_s"], f"bare msgs/s {bare.get('messages_per_s')}")
        for q in ("p50_ms", "p99_ms"):
            add(f"fanout: spectator lag {q}", fan["lag"][q],
                f"bare {bare.get('lag', {}).get(q)}")  # fmt: skip
        add("fanout: completeness", fan["completeness"], f"bare {bare.get('completeness')}")
        add("fanout: server cpu us per frame", fan["server_cpu_us_per_frame"],
            f"bare {bare.get('server_cpu_us_per_frame')}")  # fmt: skip
        add("fanout: watch setup s", fan["watch_setup_s"])
        add("fanout: spectators lost", fan["spectators_lost"])
    if j := report.get("journal"):
        add("journal: committed actions/s", j["committed_per_s"],
            f"{j['rooms']} rooms, p99 {j['append_latency']['p99_ms']} ms")  # fmt: skip
    if srv := report.get("server"):
        add("server rss / peak MiB", f"{srv.get('rss_mib')} / {srv.get('peak_rss_mib')}")
    w = max(len(r[0]) for r in rows)
    v = max(len(r[1]) for r in rows)
    return "\n".join(f"{a:<{w}}  {b:>{v}}  {c}".rstrip() for a, b, c in rows)


def parse_args(argv: list[str] | None = None) -> tuple[LoadConfig, argparse.Namespace]:
    d = LoadConfig()
    p = argparse.ArgumentParser(
        prog="tilehall-bot load",
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
    p.add_argument("--window", type=int, default=d.window, help="updates ahead of spectators")
    p.add_argument("--no-baseline", action="store_true", help="skip the bare websockets runs")
    p.add_argument("--server-loop", choices=["asyncio", "uvloop"], default="asyncio")
    p.add_argument("--client-loop", choices=["asyncio", "uvloop"], default="asyncio")
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
        baseline=not a.no_baseline,
        server_loop=a.server_loop,
        journal_rooms=a.journal_rooms,
        journal_actions=a.journal_actions,
        progress=not a.quiet,
    )
    return cfg, a


async def run_load(cfg: LoadConfig) -> dict[str, Any]:
    """Run the phases of ``cfg`` and return the report (servers started here are stopped)."""
    _raise_nofile()
    h = Harness(cfg)
    await asyncio.to_thread(h.start)
    try:
        return await h.run()
    finally:
        await asyncio.to_thread(h.stop)


def main(argv: list[str] | None = None) -> None:
    """``tilehall-bot load``."""
    cfg, a = parse_args(argv)
    if a.client_loop == "uvloop":
        import uvloop

        uvloop.install()
    report = asyncio.run(run_load(cfg))
    if a.out:
        a.out.write_text(json.dumps(report, indent=2))
    if a.json:
        print(json.dumps(report, indent=2))
    else:
        print(table(report))
