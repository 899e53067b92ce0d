"""What the server counts as it works: counters, latency histograms, collector pauses.

A leaf: it imports nothing of the server, so that every part (the lobby, each
room's shell) can count without depending on how the counts are shown
(:mod:`.http` renders them for ``/metrics``).
"""

from __future__ import annotations

import array
import asyncio
import bisect
import gc
import time
from collections import Counter
from collections.abc import Callable

__all__ = ["GC_PAUSES", "LATENCY_BUCKETS", "Histogram", "Metrics", "watch_gc"]

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)


class Histogram:
    """A Prometheus histogram: cumulative bucket counts, a sum and a count.

    :meth:`observe` only appends to a buffer of doubles (a list's append in C: no
    Python frame for every move); the buffer is folded into the buckets when the
    histogram is read (:attr:`counts`, :attr:`count`, :attr:`total`, :meth:`render`)
    or by :meth:`fold` (the server folds every histogram once a second, so the
    buffer holds at most a second of values).
    """

    __slots__ = ("_count", "_counts", "_total", "_values", "bounds", "observe")

    def __init__(self, bounds: tuple[float, ...] = LATENCY_BUCKETS) -> None:
        self.bounds = bounds
        self._counts = [0] * (len(bounds) + 1)
        self._total = 0.0
        self._count = 0
        self._values = array.array("d")
        self.observe: Callable[[float], None] = self._values.append
        """Record one value."""

    def fold(self) -> None:
        """Count the values observed since the last fold into the buckets."""
        values, self._values = self._values, array.array("d")
        self.observe = self._values.append
        counts, bounds = self._counts, self.bounds
        for value in values:
            counts[bisect.bisect_left(bounds, value)] += 1
        self._total += sum(values)
        self._count += len(values)

    @property
    def counts(self) -> list[int]:
        """Values by bucket (the last: over every bound), all observed so far."""
        self.fold()
        return self._counts

    @property
    def count(self) -> int:
        """Values observed so far."""
        self.fold()
        return self._count

    @property
    def total(self) -> float:
        """Their sum."""
        self.fold()
        return self._total

    def render(self, name: str, labels: str = "") -> list[str]:
        counts, count, total = self.counts, self._count, self._total
        sep = "," if labels else ""
        lines, running = [], 0
        for bound, n in zip(self.bounds, counts, strict=False):
            running += n
            lines.append(f'{name}_bucket{{{labels}{sep}le="{bound}"}} {running}')
        lines.append(f'{name}_bucket{{{labels}{sep}le="+Inf"}} {count}')
        suffix = f"{{{labels}}}" if labels else ""
        lines.append(f"{name}_sum{suffix} {total:.6f}")
        lines.append(f"{name}_count{suffix} {count}")
        return lines


GC_PAUSES = tuple(Histogram() for _ in range(3))
"""This process's garbage-collection pauses by generation, once :func:`watch_gc` ran."""


def watch_gc() -> None:
    """Time every garbage collection of this process into :data:`GC_PAUSES`.

    The collector stops the event loop while it runs; its full passes can be
    the whole act->update p99, so an operator should see them. Process-wide,
    hence called by the server process, not by each :class:`Metrics`.
    """
    if _gc_timer in gc.callbacks:
        return
    gc.callbacks.append(_gc_timer)


_gc_started = [0.0]


def _gc_timer(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _gc_started[0] = time.perf_counter()
    else:
        GC_PAUSES[info["generation"]].observe(time.perf_counter() - _gc_started[0])


class Metrics:
    """Counters and histograms the server updates as it works."""

    def __init__(self) -> None:
        self.started = time.time()
        self.actions: Counter[str] = Counter()
        """Accepted actions by game."""
        self.errors: Counter[str] = Counter()
        """Refusals by error code."""
        self.act_latency = Histogram()
        """Seconds from an accepted action's arrival to its broadcast."""
        self.commit_latency = Histogram()
        """Seconds a journal append waits for its commit."""
        self.refused: Counter[str] = Counter()
        """Connections refused before they became sessions, by reason."""
        self.paced = 0
        """Requests over budget that were delayed (not refused)."""
        self.paced_seconds = 0.0
        """Time those requests waited, in total."""
        self.bans = 0
        """Addresses barred for flooding."""

    def fold(self) -> None:
        """Fold what every histogram observed into its buckets (see :class:`Histogram`)."""
        for histogram in (self.act_latency, self.commit_latency, *GC_PAUSES):
            histogram.fold()

    async def fold_forever(self, every: float = 1.0) -> None:
        """:meth:`fold` every ``every`` seconds: a histogram then holds at most that much
        unfolded, however long nobody reads ``/metrics``."""
        while True:
            await asyncio.sleep(every)
            self.fold()
