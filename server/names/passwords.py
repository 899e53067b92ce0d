"""Passwords that protect names: their Argon2id hashes, and the slowing of guesses.

Three parts, each with one job:

- :class:`Hasher` hashes and checks passwords with argon2-cffi's Argon2id on a
  small pool of threads, never on the event loop (a check costs tens of
  milliseconds of CPU: on the loop, a storm of sign-ins would stall every
  game). The pool is bounded and fair: each address may have at most
  :data:`Hasher.per_source` checks in it, and of those waiting the one whose
  address was served longest ago goes next, so a storm from one address delays
  another address's check by one check at most; when the pool is full, one
  more is refused at once (:class:`Busy`) rather than queued.
- :class:`Attempts` counts wrong passwords in memory, with the clock the
  caller passes, three ways: per address and name (five in ten minutes lock
  that address out of that name), per address (twenty in ten minutes, whatever
  the names: a sprayer), and per name from everywhere (a hundred in a day,
  NIST SP 800-63B 5.2.2; past that a password for the name is checked at most
  once a minute, from anywhere). It holds no I/O.
- :func:`check_password` and :func:`normalized`: a password is NFKC-normalised
  (NIST SP 800-63B 5.1.1.2) before it is hashed or checked.

In a cluster each node counts its own attempts: a guesser that spreads over
``n`` nodes gets ``n`` times the allowance (PROTOCOL.md says so).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import unicodedata
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Literal, TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from tilehall.protocol import ErrorCode, ProtocolError

__all__ = [
    "ADDRESS_FAILURES",
    "DAILY_FAILURES",
    "MAX_FAILURES",
    "MAX_PASSWORD",
    "MIN_PASSWORD",
    "SLOW_EVERY",
    "WINDOW",
    "Attempts",
    "Busy",
    "Hasher",
    "Lock",
    "check_password",
    "code_hash",
    "normalized",
    "same_code",
]

T = TypeVar("T")

MIN_PASSWORD = 10
"""Shortest password, in characters: long enough that five guesses in ten minutes get nowhere."""
MAX_PASSWORD = 256
"""Longest password, in characters: a bound on what one check hashes."""

MAX_FAILURES = 5
"""Wrong passwords from one address for one name within :data:`WINDOW` before that address
may guess that name no more (until the oldest of them is :data:`WINDOW` old)."""
WINDOW = 600.0
"""Seconds a wrong password counts against its address."""
ADDRESS_FAILURES = 20
"""Wrong passwords from one address within :data:`WINDOW`, whatever the names, before it may
guess none: one who tries a few passwords on many names (a household never comes near)."""
DAILY_FAILURES = 100
"""Wrong passwords for one name from every address within :data:`DAY` (NIST SP 800-63B
5.2.2 asks for at most 100); past it the name's password checks are slowed."""
DAY = 86400.0
SLOW_EVERY = 60.0
"""Seconds between two password checks of a name past its :data:`DAILY_FAILURES`, whoever
asks. Devices that hold a token never wait: only a new device's sign-in is slowed."""

MAX_KEYS = 100_000
"""Names and addresses remembered at most; past it the oldest are forgotten (a bound on memory)."""


class Busy(Exception):
    """Every thread is hashing and :data:`Hasher.backlog` checks wait already."""


def normalized(password: str) -> str:
    """``password`` as it is hashed and checked: NFKC (NIST SP 800-63B 5.1.1.2), so that an
    ``é`` typed as one character or as ``e`` and its accent is one password."""
    return unicodedata.normalize("NFKC", password)


def check_password(password: str) -> str:
    """``password`` NFKC-normalised, if it may protect a name: 10 to 256 characters.

    Raises:
        ProtocolError: ``bad_password``, saying why.
    """
    password = normalized(password)
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
    """Argon2id hashing and checking, off the event loop, on a bounded and fair pool.

    Args:
        threads: hashing threads (each check holds ~19 MiB while it runs). One by
            default: a check takes a core for tens of milliseconds, and the games
            keep the other core whatever comes (about 20-30 checks a second fit).
        backlog: checks that may wait for a thread; one more is :class:`Busy`
            (eight: a wait of at most about a third of a second).
        per_source: checks one address may have in the pool, running or waiting;
            one more from it is :class:`Busy` while others still get in.
        memory_cost: KiB per hash; 19456 (19 MiB) is OWASP's recommendation.
        time_cost: passes over the memory; OWASP says 2 at 19 MiB.

    Only the event loop calls it: the bookkeeping is the loop's, the hashing the threads'.
    """

    def __init__(
        self,
        *,
        threads: int = 1,
        backlog: int = 8,
        per_source: int = 2,
        memory_cost: int = 19456,
        time_cost: int = 2,
    ) -> None:
        self._ph = PasswordHasher(memory_cost=memory_cost, time_cost=time_cost, parallelism=1)
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="argon2")
        self.threads = threads
        self.per_source = per_source
        self._bound = threads + backlog
        self._running = 0
        self._waiting: dict[str, deque[asyncio.Future[None]]] = {}
        self._queued = 0
        self._held: dict[str, int] = {}
        self._served: dict[str, int] = {}
        """When each address last got a thread (a tick), for the order of those waiting."""
        self._tick = 0

    async def _run(self, fn: Callable[[], T], source: str) -> T:
        held = self._held.get(source, 0)
        if self._running + self._queued >= self._bound or held >= self.per_source:
            raise Busy
        self._held[source] = held + 1
        try:
            if self._running < self.threads and not self._queued:
                self._start(source)
            else:
                await self._wait_turn(source)
            try:
                return await asyncio.get_running_loop().run_in_executor(self._pool, fn)
            finally:
                self._running -= 1
                self._next()
        finally:
            self._held[source] -= 1
            if not self._held[source]:
                del self._held[source]
                self._served.pop(source, None)

    def _start(self, source: str) -> None:
        self._running += 1
        self._tick += 1
        self._served[source] = self._tick

    async def _wait_turn(self, source: str) -> None:
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(source, deque()).append(turn)
        self._queued += 1
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():  # given a thread as it was cancelled
                self._running -= 1
                self._next()
            elif turn in self._waiting.get(source, ()):
                self._waiting[source].remove(turn)
                self._queued -= 1
                if not self._waiting[source]:
                    del self._waiting[source]
            raise

    def _next(self) -> None:
        """Give free threads to those waiting: the address served longest ago first."""
        while self._running < self.threads and self._waiting:
            source = min(self._waiting, key=lambda s: self._served.get(s, 0))
            queue = self._waiting[source]
            turn = queue.popleft()
            if not queue:
                del self._waiting[source]
            self._queued -= 1
            if turn.done():
                continue
            self._start(source)
            turn.set_result(None)

    async def hash(self, password: str, *, source: str = "") -> str:
        """The encoded Argon2id hash of ``password`` (salt and parameters inside).

        ``source``: the address asking (its share of the pool is bounded).

        Raises:
            Busy: the pool, or the address's share of it, is full.
        """
        return await self._run(lambda: self._ph.hash(password), source)

    async def verify(self, stored: str, password: str, *, source: str = "") -> bool:
        """Whether ``password`` is the one ``stored`` was made from.

        Raises:
            Busy: the pool, or the address's share of it, is full.
        """

        def work() -> bool:
            try:
                return self._ph.verify(stored, password)
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                return False

        return await self._run(work, source)

    def outdated(self, stored: str) -> bool:
        """Whether ``stored`` was hashed with other parameters than this hasher's.

        When a release raises the costs (newer advice, faster machines), every
        name's hash is made again at its next sign-in, when the password is at hand.
        """
        return self._ph.check_needs_rehash(stored)

    def close(self) -> None:
        """Stop the threads (hashes under way finish first)."""
        self._pool.shutdown(wait=False, cancel_futures=True)


class _Window:
    """Times of failures per key within ``window`` seconds, at most ``limit`` kept per key."""

    def __init__(self, limit: int, window: float) -> None:
        self.limit = limit
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

    def full_for(self, key: str, now: float) -> float:
        """Seconds until ``key`` has fewer than ``limit`` failures in the window (0: now)."""
        times = self._recent(key, now)
        if times is None or len(times) < self.limit:
            return 0.0
        return times[-self.limit] + self.window - now

    def add(self, key: str, now: float) -> None:
        times = self._recent(key, now)
        if times is None:
            if len(self._seen) >= MAX_KEYS:
                self._seen.pop(next(iter(self._seen)))
            times = self._seen[key] = deque(maxlen=self.limit)
        times.append(now)

    def undo(self, key: str, at: float) -> None:
        times = self._seen.get(key)
        if times is not None and at in times:
            times.remove(at)

    def forget(self, key: str) -> None:
        self._seen.pop(key, None)


Lock = Literal["pair", "address", "slowed"]
"""Why a password may not be checked now: ``pair`` (this address, this name),
``address`` (this address, every name) or ``slowed`` (this name, past its day)."""


class Attempts:
    """Wrong passwords, per address and name, per address, and per name (see the module).

    The caller passes the time, so the counting is tested with a clock it
    moves. Names are passed by their key (:func:`tilehall.server.names.name_key`),
    addresses as the per-address limits count them.
    """

    def __init__(
        self,
        *,
        failures: int = MAX_FAILURES,
        window: float = WINDOW,
        address_failures: int = ADDRESS_FAILURES,
        daily: int = DAILY_FAILURES,
        day: float = DAY,
        slow_every: float = SLOW_EVERY,
    ) -> None:
        self.pairs = _Window(failures, window)
        self.addresses = _Window(address_failures, window)
        self.names = _Window(daily, day)
        self.slow_every = slow_every
        self._checked: dict[str, float] = {}
        """When a slowed name's password was last checked."""

    def retry_after(self, name: str, address: str, now: float) -> tuple[float, Lock | None]:
        """Seconds before ``address`` may have a password of ``name`` checked, and why."""
        waits: list[tuple[float, Lock]] = [
            (self.pairs.full_for(f"{address}\n{name}", now), "pair"),
            (self.addresses.full_for(address, now), "address"),
            (self._slowed_for(name, now), "slowed"),
        ]
        wait, why = max(waits, key=lambda w: w[0])
        return (wait, why) if wait > 0 else (0.0, None)

    def slowed(self, name: str, now: float) -> bool:
        """Whether ``name`` had its day's wrong passwords: its checks are slowed."""
        return self.names.full_for(name, now) > 0

    def _slowed_for(self, name: str, now: float) -> float:
        if not self.slowed(name, now):
            self._checked.pop(name, None)
            return 0.0
        last = self._checked.get(name)
        return 0.0 if last is None else max(0.0, last + self.slow_every - now)

    def failed(self, name: str, address: str, now: float) -> None:
        """Count one wrong password (counted before the check: see :meth:`right`)."""
        if self.slowed(name, now):
            if len(self._checked) >= MAX_KEYS:
                self._checked.pop(next(iter(self._checked)))
            self._checked[name] = now
        self.pairs.add(f"{address}\n{name}", now)
        self.addresses.add(address, now)
        self.names.add(name, now)

    def right(self, name: str, address: str, at: float) -> None:
        """The password counted at ``at`` was right: that failure is taken back, and the
        address's count for the name starts again (its count for every name does not)."""
        self.pairs.forget(f"{address}\n{name}")
        self.addresses.undo(address, at)
        self.names.undo(name, at)

    def undo(self, name: str, address: str, at: float) -> None:
        """The check counted at ``at`` never happened (the pool was full, the store down)."""
        self.pairs.undo(f"{address}\n{name}", at)
        self.addresses.undo(address, at)
        self.names.undo(name, at)
