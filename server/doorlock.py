"""The room's door lock: :class:`asyncio.Lock`'s rules, with a free path that makes no coroutine.

Every move takes its room's lock. ``asyncio.Lock.acquire`` is a coroutine even
when the lock is free (nearly always: one player acts at a time), so each move
made one and ran through it, for nothing to wait for. :meth:`DoorLock.take` takes a free lock
at once and says so; only a lock held or waited for needs :meth:`acquire`.

Fairness is ``asyncio.Lock``'s: first come, first served. A lock released to a
waiter that has not run yet is not free: :meth:`take` refuses while anyone
waits, so no newcomer passes a task that was woken for it.
"""

from __future__ import annotations

import asyncio
import collections
from types import TracebackType

__all__ = ["DoorLock"]


class DoorLock:
    """A lock for one event loop's tasks (see the module)."""

    __slots__ = ("_locked", "_waiters")

    def __init__(self) -> None:
        self._locked = False
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()

    def locked(self) -> bool:
        return self._locked

    def take(self) -> bool:
        """Take the lock if it is free and nobody waits for it; whether it was taken."""
        if self._locked or self._waiters:
            return False
        self._locked = True
        return True

    async def acquire(self) -> None:
        """Wait for the lock, in turn, and take it (as ``asyncio.Lock.acquire``)."""
        if self.take():
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        try:
            try:
                await fut
            finally:
                self._waiters.remove(fut)
        except asyncio.CancelledError:
            # Woken and then cancelled before running: the next in line goes instead.
            if not self._locked:
                self._wake_first()
            raise
        self._locked = True

    def release(self) -> None:
        if not self._locked:
            raise RuntimeError("the door lock is not held")
        self._locked = False
        self._wake_first()

    def _wake_first(self) -> None:
        for fut in self._waiters:
            if not fut.done():
                fut.set_result(None)
            return

    async def __aenter__(self) -> None:
        if not self.take():
            await self.acquire()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()
