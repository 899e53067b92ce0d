"""Time as the lobby and its rooms see it: handed in, never read from the system.

A room journals the time of every action and arms timers for clocks, bots and
finished rooms. Taking both from a :class:`Clock` it is given, rather than from
``time.time()`` and the event loop, is what lets its logic be tested in memory
with a clock the test moves (as h11 and websockets test their cores without
sockets). The server gives every room :class:`SystemClock`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Protocol

__all__ = ["Clock", "SystemClock", "Timer"]


class Timer(Protocol):
    """A scheduled callback that can be called off (``asyncio.TimerHandle`` is one)."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """Wall time, timers and sleeps for the lobby and its rooms."""

    def time(self) -> float:
        """Seconds since the epoch: what the journal records and engines are given."""
        ...

    def call_later(self, delay: float, callback: Callable[[], object]) -> Timer:
        """Call ``callback`` (on the event loop) ``delay`` seconds from now."""
        ...

    async def sleep(self, delay: float) -> None:
        """Wait ``delay`` seconds."""
        ...


class SystemClock:
    """The real clock: ``time.time()`` and the running event loop's timers."""

    time = staticmethod(time.time)
    """Seconds since the epoch (``time.time`` itself: read for every move)."""

    def call_later(self, delay: float, callback: Callable[[], object]) -> Timer:
        return asyncio.get_running_loop().call_later(delay, callback)

    async def sleep(self, delay: float) -> None:
        await asyncio.sleep(delay)
