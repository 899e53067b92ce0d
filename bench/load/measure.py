"""The measurements: percentiles, a process's memory and CPU, fan-out delivery, the machine."""

from __future__ import annotations

import array
import asyncio
import contextlib
import os
import random
import resource
import time
from pathlib import Path
from typing import Any

from tilehall.protocol import unpack

from bench.load.wire import OnFrame

__all__ = ["FanOut", "Proc", "Reservoir", "machine", "mib", "pct", "per"]

MAX_FRAME = 2**22
"""Bound on what one frame may unpack to (the client library's own)."""


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
        """User + system CPU seconds so far, the processes it runs included.

        A server's SQLite store runs in a child process of its own (what was a thread of
        the server's before): its CPU is the server's as much as that thread's was, and
        /proc counts a child's only once it has ended.
        """
        if self.pid is None:
            return None
        own = _stat_cpu(Path(f"/proc/{self.pid}/stat"))
        if own is None:
            return None
        return own + sum(_stat_cpu(Path(f"/proc/{c}/stat")) or 0.0 for c in self.children())

    def children(self) -> list[int]:
        """The processes it started that still run (its threads' children)."""
        found: list[int] = []
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{self.pid}/task").iterdir():
                with contextlib.suppress(OSError):
                    found += [int(c) for c in (task / "children").read_text().split()]
        return found

    def loop_cpu(self) -> float | None:
        """User + system CPU seconds of the main thread alone: the event loop's.

        The rest of :meth:`cpu` is its other threads' and its children's: the SQLite
        store's process (each journal append, in groups), the password hashing pool's
        threads. Told apart,
        they say how much of a move's cost is the loop's Python and how much the
        journal's, which no compiled room code can take away.
        """
        if self.pid is None:
            return None
        return _stat_cpu(Path(f"/proc/{self.pid}/task/{self.pid}/stat"))


def _stat_cpu(path: Path) -> float | None:
    """User + system CPU seconds from a ``/proc`` ``stat`` file (a process's or a thread's)."""
    try:
        fields = path.read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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

    def receiver(self, i: int, sent_at: dict[int, float]) -> OnFrame:
        """The frame callback of spectator ``i``: updates are counted by their seq."""
        seqs = self._seqs

        def on_frame(payload: bytes, now: float) -> None:
            # Everyone gets the same bytes for an update (or a room summary):
            # decode each distinct frame once.
            seq = seqs.get(payload)
            if seq is None:
                msg = unpack(payload, max_size=MAX_FRAME)
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

    def bare_receiver(self, i: int, sent_at: dict[int, float]) -> OnFrame:
        def on_frame(payload: bytes, now: float) -> None:
            self._count(int.from_bytes(payload[1:9], "big"), now, sent_at)

        return on_frame

    async def all_watching(self, timeout: float) -> None:
        end = time.monotonic() + timeout
        while self.watching < self.alive:
            self._event.clear()
            async with asyncio.timeout(max(0.01, end - time.monotonic())):
                await self._event.wait()

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
                async with asyncio.timeout(min(left, 1.0)):
                    await self._event.wait()


def pct(now: float | None, before: float | None, elapsed: float) -> float | None:
    """CPU use over ``elapsed`` seconds, in percent of one core."""
    if now is None or before is None or elapsed <= 0:
        return None
    return round(100 * (now - before) / elapsed, 1)


def per(percent: float | None, elapsed: float, count: int) -> float | None:
    """Server CPU microseconds per unit of work: steadier than rates on a shared machine."""
    if percent is None or not count:
        return None
    return round(percent / 100 * elapsed * 1e6 / count, 2)


def mib(n: int | None) -> float | None:
    return round(n / 2**20, 1) if n else None


def machine() -> dict[str, Any]:
    """What the figures were taken on: they mean little without it."""
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
