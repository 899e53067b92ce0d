"""One connection: identity, rate limit, and a bounded outgoing queue.

What happens to slow receivers: every frame for a connection goes through
:meth:`Session.send`, which never waits. Frames wait in a queue of at most
``Limits.send_queue`` frames drained by one writer task; when the queue is full
the connection is closed with 1008 and the frame dropped. So a client that
stops reading costs a bounded amount of memory and never stalls a room's
broadcast.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from typing import TYPE_CHECKING, Any

from tilehall.protocol import encode
from tilehall.server.config import Limits
from tilehall.server.store.records import PlayerRecord
from websockets.asyncio.server import broadcast
from websockets.exceptions import ConnectionClosed

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

__all__ = ["BYTES_PER_REQUEST", "Session", "TokenBucket"]

log = logging.getLogger(__name__)

BYTES_PER_REQUEST = 4096
"""A frame counts as one request of the budget per this many bytes, rounded up
(``welcome.limits.bytes_per_request``). Why: reading a frame costs the server in
proportion to what it holds, not one request's worth. A 64 KiB frame of 16,000 small
maps takes milliseconds to read (every map's keys are checked), and one nested past
msgpack's own limit is read by a walker in Python, about a microsecond a byte
(``python -m bench.codec``); counted as one request, a client could send fifty a
second. Every frame a client needs (an ``act`` is at most 1 KiB, a chat text 2 KiB)
counts as one."""


class TokenBucket:
    """Classic token bucket: ``rate`` tokens a second, at most ``burst`` stored.

    It starts with ``initial`` tokens (default: full), so that a new connection
    earns its full burst by staying: one that floods, is cut off and comes back
    gets only the small first allowance each time.
    """

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: int, initial: int | None = None) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst if initial is None else min(initial, burst))
        self.stamp = time.monotonic()

    def _refill(self, now: float | None) -> None:
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self, now: float | None = None) -> bool:
        """Spend one token if there is one."""
        self._refill(now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def charge(self, tokens: float, now: float | None = None) -> None:
        """Spend ``tokens`` more for a request that cost more than one, even below zero.

        Why below zero: the price is known only once the reply is made (a
        ``rooms`` page's size), and the debt then delays the next request as
        the pacing delays any request over budget.
        """
        self._refill(now)
        self.tokens -= tokens

    def delay(self, now: float | None = None) -> float:
        """Seconds until a token is there (0: there is one now)."""
        self._refill(now)
        return 0.0 if self.tokens >= 1.0 else (1.0 - self.tokens) / self.rate

    def resize(self, rate: float, burst: int) -> None:
        """Another budget (a bot's), keeping what was saved so far."""
        self._refill(None)
        self.rate, self.burst = rate, float(burst)


class Session:
    """State of one WebSocket connection.

    Slotted, and its send queue made only when a frame has to wait: ten thousand
    idle connections each hold one of these, and an instance dict and an empty
    ``asyncio.Queue`` (three deques and an Event) would be a seventh of what an
    idle connection costs.
    """

    __slots__ = (
        "_closer",
        "_queue",
        "_writer",
        "abusive",
        "bot",
        "bucket",
        "closing",
        "compact",
        "ip",
        "limits",
        "player",
        "rooms",
        "strikes",
        "ws",
    )

    def __init__(self, ws: ServerConnection, limits: Limits, ip: str) -> None:
        self.ws = ws
        self.ip = ip
        """The client's address (through trusted proxies): what per-address limits count."""
        self.limits = limits
        self.player: PlayerRecord | None = None
        self.rooms: dict[str, int | None] = {}
        """Rooms this connection is in, with its seat there (None: watching)."""
        self.bucket = TokenBucket(limits.rate, limits.burst, limits.initial_burst)
        self.strikes = 0
        self.bot = False
        """Said ``hello`` as a bot: paced by the bot budget (``Limits.bot_rate``)."""
        self.compact = False
        self._queue: deque[bytes] | None = None
        """Frames waiting for the writer; None while nothing waits."""
        self._writer: asyncio.Task[None] | None = None
        """Started when a frame is queued, gone when the queue is empty: a parked
        writer task costs about 4 KiB, a fifth of an idle connection."""
        self.closing = False
        self.abusive = False
        """Cut off for abuse: read nothing more from it (see :meth:`close`)."""
        self._closer: asyncio.Task[None] | None = None

    @property
    def peer(self) -> str:
        """For logs: the socket's address, and the client's when a proxy forwarded it."""
        addr = self.ws.remote_address
        sock = f"{addr[0]}:{addr[1]}" if addr else "?"
        return sock if addr and str(addr[0]) == self.ip else f"{self.ip} via {sock}"

    @property
    def origin(self) -> str | None:
        """Where this client reached the server, ``http(s)://host[:port]`` (None: unknown):
        the web client's address, for links a player shares (today's deal).

        The ``Host`` of its handshake, which a reverse proxy passes on; over TLS
        ``https``. A host that says ``--public-url`` is used before this.
        """
        request = getattr(self.ws, "request", None)
        host = request.headers.get("Host") if request is not None else None
        if not host or any(c in host for c in "/?#@ \\"):
            return None
        tls = self.ws.transport.get_extra_info("ssl_object") is not None
        return f"{'https' if tls else 'http'}://{host}"

    def backlog(self) -> int:
        """Frames the client has sent that are read but not yet handled.

        A client that waits for each answer has none or one; one that sends
        ahead faster than its budget fills this (up to websockets' ``max_queue``,
        after which TCP pushes back). Read from websockets' own buffer; if a
        version hides it, 0: every request over budget is then paced, none refused.
        """
        assembler = getattr(self.ws, "recv_messages", None)
        frames = getattr(assembler, "frames", None)
        try:
            return len(frames) if frames is not None else 0
        except TypeError:
            return 0

    def grant_bot_budget(self) -> None:
        """The host's budget for bot players (``--bot-rate``/``--bot-burst``), from now on."""
        self.bot = True
        limits = self.limits
        self.bucket.resize(limits.bot_rate or limits.rate, limits.bot_burst or limits.burst)

    def push(self, data: bytes) -> None:
        """Send a frame pushed to many (a room's update): at once when the way is clear.

        When nothing is queued and the socket's buffer is below its high-water
        mark, the frame is written now (websockets' own synchronous
        ``broadcast``), so a broadcast to thousands costs no task wake-up per
        member. Otherwise it goes through :meth:`send`, behind the frames queued
        before it: order and the memory bound are as before.
        """
        if not self.closing and not self._queue and self._writable():
            broadcast((self.ws,), data)
        else:
            self.send(data)

    def send(self, data: bytes) -> None:
        """Queue an encoded frame; close the connection if the client is too slow."""
        if self.closing:
            return
        queue = self._queue
        if queue is None:
            queue = self._queue = deque()
        bound = self.limits.send_queue
        if 0 < bound <= len(queue):
            log.warning("closing %s: send queue full (%d frames)", self.peer, bound)
            self.close(1008, "too slow: send queue full")
            return
        queue.append(data)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._drain(), name="session-writer")

    def _writable(self) -> bool:
        transport = self.ws.transport
        return transport.get_write_buffer_size() <= transport.get_write_buffer_limits()[1]

    def send_msg(self, msg: dict[str, Any]) -> None:
        self.send(encode(msg))

    def close(self, code: int, reason: str, *, abort_after: float | None = None) -> None:
        """Close soon, without waiting (safe to call from a broadcast).

        ``abort_after``: for abusers. Stop reading at once, so a flood costs no
        more parsing and TCP pushes back on the sender; drop the connection that
        many seconds later whether or not the peer answered the close.
        """
        if self.closing:
            return
        self.closing = True
        if abort_after is not None:
            self.abusive = True
            transport = self.ws.transport
            transport.pause_reading()
            asyncio.get_running_loop().call_later(abort_after, transport.abort)
        self._closer = asyncio.get_running_loop().create_task(self._close(code, reason))

    async def _close(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close(code, reason)

    async def _drain(self) -> None:
        ws = self.ws
        try:
            while queue := self._queue:
                await ws.send(queue.popleft())
            # Emptied: an idle connection keeps neither the deque nor this task.
            self._queue = None
            self._writer = None
        except ConnectionClosed:
            pass
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("writer of %s failed", self.peer)

    async def drained(self) -> None:
        """Wait until every frame queued so far has been written (before a close)."""
        while self._writer is not None and not self._writer.done() and not self.closing:
            await asyncio.wait({self._writer})

    async def finish(self) -> None:
        """Stop the writer: called once the connection is gone."""
        self.closing = True
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._writer
