"""Whether the store answers: one watcher for the whole server, one probe while it does not.

When a write fails with :class:`~tilehall.server.store.base.StoreUnavailable`
(the database stopped, the connection dropped, the disk filled), whoever saw it
calls :meth:`StoreHealth.failed`. From then on the server refuses what needs
the store at once (``unavailable`` with ``retry_after``) instead of running an
engine ahead of a journal that cannot follow, and a single probe asks the store
for a small write, backing off, until it succeeds. Rooms that were suspended
wait for :meth:`StoreHealth.wait` and rebuild from what the journal holds.
``/readyz`` answers 503 while the store is down.
"""

from __future__ import annotations

import asyncio
import logging

from tilehall.server.clock import Clock
from tilehall.server.store.base import Store

__all__ = ["StoreHealth"]

log = logging.getLogger(__name__)

MIN_RETRY_AFTER = 1.0
"""The least ``retry_after`` a refusal names: a player's client need not ask ten times a second."""


class StoreHealth:
    """The store's availability as this process sees it.

    Args:
        store: the store to probe.
        clock: the back-off's sleeps (a test's clock in memory).
        first: the first pause before a probe, in seconds; it doubles after
            each failed probe up to ``longest``.
        longest: the longest pause between probes.
    """

    def __init__(
        self, store: Store, clock: Clock, *, first: float = 0.1, longest: float = 2.0
    ) -> None:
        self.store = store
        self.clock = clock
        self.first = first
        self.longest = longest
        self.up = True
        """The last thing asked of the store worked (or the probe says it works again): a
        plain attribute, read before every move."""
        self._up = asyncio.Event()
        self._up.set()
        self._delay = first
        self._probe: asyncio.Task[None] | None = None
        self.outages = 0
        """How many times the store went away (for ``/metrics``)."""
        self.last_error = ""

    @property
    def retry_after(self) -> float:
        """Seconds a client should wait before asking again: the probe's next pause."""
        return 0.0 if self.up else round(max(self._delay, MIN_RETRY_AFTER), 1)

    def failed(self, exc: BaseException) -> None:
        """The store did not do what it was asked: mark it down and start probing."""
        self.last_error = str(exc)
        if not self.up:
            return
        self.up = False
        self._up.clear()
        self.outages += 1
        self._delay = self.first
        log.error("the store stopped answering (%s); probing it", exc)
        self._probe = asyncio.create_task(self._run(), name="store-probe")

    async def wait(self) -> None:
        """Return once the store answers (at once when it does)."""
        await self._up.wait()

    async def _run(self) -> None:
        while True:
            await self.clock.sleep(self._delay)
            try:
                await self.store.ping()
            except Exception as exc:
                self.last_error = str(exc)
                self._delay = min(self.longest, self._delay * 2)
                continue
            log.warning("the store answers again")
            self.up = True
            self._up.set()
            return

    async def close(self) -> None:
        if self._probe is not None and not self._probe.done():
            self._probe.cancel()
            await asyncio.gather(self._probe, return_exceptions=True)
