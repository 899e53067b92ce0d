"""Passwords that protect names: their Argon2id hashes, and the slowing of guesses.

Two parts, each with one job:

- :class:`Hasher` hashes and checks passwords with argon2-cffi's Argon2id on a
  small pool of threads, never on the event loop (a check costs tens of
  milliseconds of CPU: on the loop, a storm of sign-ins would stall every
  game). The pool is bounded: when :data:`Hasher.backlog` checks already wait,
  one more is refused at once (:class:`Busy`) rather than queued, so a storm
  costs a bounded amount of memory and of delay for those who come after.
- :class:`Attempts` counts wrong passwords per name and per address within a
  window, in memory, with the clock the caller passes. It holds no I/O.

In a cluster each node counts its own attempts: a guesser that spreads over
``n`` nodes gets ``n`` times the allowance (PROTOCOL.md says so).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from tilehall.protocol import ErrorCode, ProtocolError

__all__ = [
    "MAX_FAILURES",
    "MAX_PASSWORD",
    "MIN_PASSWORD",
    "WINDOW",
    "Attempts",
    "Busy",
    "Hasher",
    "check_password",
    "code_hash",
    "same_code",
]

T = TypeVar("T")

MIN_PASSWORD = 10
"""Shortest password, in characters: long enough that five guesses in ten minutes get nowhere."""
MAX_PASSWORD = 256
"""Longest password, in characters: a bound on what one check hashes."""

MAX_FAILURES = 5
"""Wrong passwords (per name, and per address) within :data:`WINDOW` before guesses stop."""
WINDOW = 600.0
"""Seconds a wrong password counts against its name and address."""

MAX_KEYS = 100_000
"""Names and addresses remembered at most; past it the oldest are forgotten (a bound on memory)."""


class Busy(Exception):
    """Every thread is hashing and :data:`Hasher.backlog` checks wait already."""


def check_password(password: str) -> str:
    """``password`` if it may protect a name: 10 to 256 characters.

    Raises:
        ProtocolError: ``bad_password``, saying why.
    """
    if len(password) < MIN_PASSWORD:
        raise ProtocolError(
            ErrorCode.BAD_PASSWORD,
            f"a password needs at least {MIN_PASSWORD} characters; this one has {len(password)}",
        )
    if len(password) > MAX_PASSWORD:
        raise ProtocolError(
            ErrorCode.BAD_PASSWORD, f"a password has at most {MAX_PASSWORD} characters"
        )
    return password


def code_hash(code: str) -> bytes:
    """A one-time sign-in code as stored: its SHA-256 (the code is random, 128 bits)."""
    return hashlib.sha256(code.encode()).digest()


def same_code(code: str, stored: bytes) -> bool:
    """Whether ``code`` is the one whose hash is ``stored`` (compared in constant time)."""
    return hmac.compare_digest(code_hash(code), stored)


class Hasher:
    """Argon2id hashing and checking, off the event loop, on a bounded pool.

    Args:
        threads: hashing threads (each check holds ~19 MiB while it runs). One by
            default: a check takes a core for tens of milliseconds, and the games
            keep the other core whatever comes (about 20-30 checks a second fit).
        backlog: checks that may wait for a thread; one more is :class:`Busy`
            (eight: a wait of at most about a third of a second).
        memory_cost: KiB per hash; 19456 (19 MiB) is OWASP's recommendation.
        time_cost: passes over the memory; OWASP says 2 at 19 MiB.
    """

    def __init__(
        self, *, threads: int = 1, backlog: int = 8, memory_cost: int = 19456, time_cost: int = 2
    ) -> None:
        self._ph = PasswordHasher(memory_cost=memory_cost, time_cost=time_cost, parallelism=1)
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="argon2")
        self._bound = threads + backlog
        self._busy = 0
        self._lock = threading.Lock()

    async def _run(self, fn: Callable[[], T]) -> T:
        with self._lock:
            if self._busy >= self._bound:
                raise Busy
            self._busy += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, fn)
        finally:
            with self._lock:
                self._busy -= 1

    async def hash(self, password: str) -> str:
        """The encoded Argon2id hash of ``password`` (salt and parameters inside).

        Raises:
            Busy: the pool is full.
        """
        return await self._run(lambda: self._ph.hash(password))

    async def verify(self, stored: str, password: str) -> bool:
        """Whether ``password`` is the one ``stored`` was made from.

        Raises:
            Busy: the pool is full.
        """

        def work() -> bool:
            try:
                return self._ph.verify(stored, password)
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                return False

        return await self._run(work)

    def outdated(self, stored: str) -> bool:
        """Whether ``stored`` was hashed with other parameters than this hasher's.

        When a release raises the costs (newer advice, faster machines), every
        name's hash is made again at its next sign-in, when the password is at hand.
        """
        return self._ph.check_needs_rehash(stored)

    def close(self) -> None:
        """Stop the threads (hashes under way finish first)."""
        self._pool.shutdown(wait=False, cancel_futures=True)


class Attempts:
    """Wrong passwords per key (a name's key, an address) within :data:`WINDOW` seconds.

    The caller passes the time, so the counting is tested with a clock it
    moves. A key with :data:`MAX_FAILURES` failures in the window is barred
    until the oldest of them is :data:`WINDOW` old.
    """

    def __init__(self, *, failures: int = MAX_FAILURES, window: float = WINDOW) -> None:
        self.failures = failures
        self.window = window
        self._seen: dict[str, deque[float]] = {}

    def _recent(self, key: str, now: float) -> deque[float] | None:
        times = self._seen.get(key)
        if times is None:
            return None
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            del self._seen[key]
            return None
        return times

    def retry_after(self, keys: tuple[str, ...], now: float) -> float:
        """Seconds before any of ``keys`` may guess again (0: now)."""
        wait = 0.0
        for key in keys:
            times = self._recent(key, now)
            if times is not None and len(times) >= self.failures:
                wait = max(wait, times[-self.failures] + self.window - now)
        return wait

    def failed(self, keys: tuple[str, ...], now: float) -> None:
        """Count one wrong password against each of ``keys``."""
        for key in keys:
            times = self._recent(key, now)
            if times is None:
                if len(self._seen) >= MAX_KEYS:
                    self._seen.pop(next(iter(self._seen)))
                times = self._seen[key] = deque(maxlen=self.failures)
            times.append(now)

    def undo(self, key: str, at: float) -> None:
        """Take back one failure counted at ``at`` (counted before the check, then right)."""
        times = self._seen.get(key)
        if times is not None and at in times:
            times.remove(at)

    def forget(self, key: str) -> None:
        """The right password: the name's count starts again (an address's does not)."""
        self._seen.pop(key, None)
