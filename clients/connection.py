"""The one async client: connect, hello/resume, request/reply by id, updates, reconnect.

The terminal, pygame and bot clients are thin layers over :class:`Connection`::

    async with Connection("ws://127.0.0.1:8765", name="ada") as conn:
        room = (await conn.request({"t": "create", "game": "ishido"}))["room"]
        joined = await conn.join(room)
        async for msg in conn.pushed():      # update, room, chat, error ...
            ...

Requests get an ``id`` and their reply (or ``error``) is matched by ``re``;
an ``error`` reply raises :class:`ServerError`. Frames the server pushes
(``update``, ``room``, ``chat``) arrive on :meth:`pushed`. When the connection
drops, it reconnects with back-off, says hello with the saved token and
re-joins its rooms with the last ``seq`` it saw, so nothing is missed.

Whatever :meth:`pushed` yields about a room comes in the order the server sent
it, replies included: an action's own ``update`` and the ``_rejoined``
snapshot of a rejoin are queued when they are read, not when their caller
resumes, so a newer update never comes before them. The room model of
:mod:`tilehall.clients.model` relies on that order.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import random
import time
from collections.abc import AsyncIterator
from types import TracebackType
from typing import Any

from tilehall.protocol import (
    SERVER_MESSAGES,
    VERSION,
    CloseCode,
    ProtocolError,
    decode,
    encode,
)
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

__all__ = ["Connection", "ConnectionLost", "ServerError"]

log = logging.getLogger(__name__)

ENDED_FOR_GOOD = frozenset({CloseCode.SIGNED_OUT, CloseCode.NAME_DISABLED})
"""Close codes after which reconnecting is pointless: the token was taken back (4001), or the
name is barred (4002: the token is kept, since it signs in again once the bar is lifted)."""


RATE_LIMIT_PAUSES = (0.1, 0.2, 0.5, 1.0, 2.0)
"""Pauses before sending a rate-limited request again (when it names no ``retry_after``)."""

PACE_MARGIN = 0.9
"""The share of the server's rate a connection uses: its own clock and the network's
jitter never make it look faster than allowed."""


class ServerError(Exception):
    """The server refused a request; ``code`` is its stable error code."""

    def __init__(
        self,
        code: str,
        message: str,
        retry_after: float | None = None,
        *,
        cells: list[list[int]] | None = None,
        tiles: list[Any] | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.retry_after = retry_after
        """Seconds the server asked to wait before sending it again, if it said."""
        self.cells = cells
        """A game's refusal: the squares it is about, for the client to name (words.py)."""
        self.tiles = tiles
        """A game's refusal: the tiles, stones or numbers it is about."""

    @classmethod
    def from_reply(cls, reply: dict[str, Any]) -> ServerError:
        return cls(
            reply["code"],
            reply["message"],
            reply.get("retry_after"),
            cells=reply.get("cells"),
            tiles=reply.get("tiles"),
        )


class Pacer:
    """The server's request budget, kept on this side: wait for a token before sending.

    The server tells its budget in ``welcome.limits`` (a token bucket: ``rate``
    per second, ``burst`` at most, starting at ``initial_burst``). Sending by it,
    a little under it, no request of this connection is ever delayed or refused
    for its rate, however fast the program above wants to go.

    A ``rooms`` reply counts as one request per ``rooms_per_request`` rooms it
    holds: the pacer takes what the page's ``limit`` could cost before sending
    and gives back what the reply did not cost (:meth:`cost_of_rooms`,
    :meth:`refund`), so it is never behind the server's count.
    """

    def __init__(self) -> None:
        self.rate = 0.0
        """0: not told yet, nothing is held back (only ``hello`` goes before the welcome)."""
        self.burst = 0.0
        self.tokens = 0.0
        self.stamp = 0.0
        self.rooms_per_request = 0
        """Rooms a ``rooms`` reply holds for one request (0: a server that counts each as one)."""
        self._lock = asyncio.Lock()

    def configure(self, limits: dict[str, Any]) -> None:
        """A new connection's budget, the ``hello`` already spent."""
        rate, burst = limits.get("rate"), limits.get("burst")
        if not rate or not burst:
            self.rate = 0.0
            return
        self.rate = float(rate) * PACE_MARGIN
        self.burst = float(burst)
        self.tokens = min(float(limits.get("initial_burst", burst)), self.burst) - 1.0
        self.stamp = time.monotonic()
        self.rooms_per_request = int(limits.get("rooms_per_request") or 0)

    def cost_of_rooms(self, rooms: int) -> int:
        """Requests a ``rooms`` reply of ``rooms`` rooms counts as (as the server counts)."""
        per = self.rooms_per_request
        return max(1, -(-rooms // per)) if per else 1

    def cost_of(self, msg: dict[str, Any]) -> int:
        """The most requests ``msg`` may count as: a ``rooms`` page by its ``limit``."""
        if msg.get("t") != "rooms":
            return 1
        return self.cost_of_rooms(int(msg.get("limit") or 0))

    async def wait(self, cost: int = 1) -> None:
        """Take ``cost`` tokens, waiting for the first if there is none.

        The rest may leave the budget owing (as the server's does for a large
        page): the next request waits until it is paid back.
        """
        if not self.rate:
            return
        async with self._lock:
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now
            if self.tokens < 1.0:
                await asyncio.sleep((1.0 - self.tokens) / self.rate)
                now = time.monotonic()
                self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
                self.stamp = now
            self.tokens -= cost

    def refund(self, tokens: int) -> None:
        """Give back what a request was charged beyond what its reply cost."""
        if self.rate and tokens > 0:
            self.tokens = min(self.burst, self.tokens + tokens)


class ConnectionLost(Exception):
    """The connection is gone and reconnecting was not allowed or gave up."""


class Connection:
    """A session with a Tilehall server.

    Args:
        url: ``ws://host:port``.
        name: the player name for a first hello (ignored when ``token`` is given).
        token: the secret of a returning player.
        password: with ``name``: the password of a protected name, for a first hello
            on this device (forgotten once the welcome brings this device's token).
        reconnect: reconnect with back-off when the connection drops.
        max_backoff: the longest pause between reconnect attempts, in seconds.
        timeout: seconds to wait for a reply.
        bot: say ``bot: true`` in ``hello``: a program plays (the host may give bots
            a larger request budget; ``welcome.limits`` says which applies).
        compact: ask for compact updates (patches to the view held, an eighth to a
            quarter of the bytes): for a client that keeps its rooms in
            :class:`~tilehall.clients.model.RoomModel`, which applies them and asks for the
            whole view again if one does not fit (the bundled clients do). Off by
            default: every update then carries its whole view.
    """

    def __init__(
        self,
        url: str,
        *,
        name: str | None = None,
        token: str | None = None,
        password: str | None = None,
        reconnect: bool = True,
        max_backoff: float = 5.0,
        timeout: float = 10.0,
        bot: bool = False,
        compact: bool = False,
    ) -> None:
        self.url = url
        self.bot = bot
        self.compact = compact
        self.limits: dict[str, Any] = {}
        """``welcome.limits``: the request budget this connection keeps to."""
        self.pacer = Pacer()
        self.name = name
        self.token = token
        self.password = password
        self.signed_out: int | None = None
        """The close code that ended this session for good (signed out, name barred)."""
        self.reconnect = reconnect
        self.max_backoff = max_backoff
        self.timeout = timeout
        self.player: str | None = None
        self.games: list[dict[str, Any]] = []
        self.my_rooms: list[str] = []
        self.seqs: dict[str, int] = {}
        """The last seq seen in each room this connection is in."""
        self.seats: dict[str, int | None] = {}
        self.reconnects = 0
        self._ws: ClientConnection | None = None
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._rejoins: set[int] = set()
        """Ids of join/watch requests whose ``joined`` also goes on pushed() as ``_rejoined``."""
        self._pushed: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None
        self._rejoiner: asyncio.Task[None] | None = None
        self._closed = False
        self._ready = asyncio.Event()

    # -- lifecycle -------------------------------------------------------------------

    async def __aenter__(self) -> Connection:
        await self.open()
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def open(self) -> dict[str, Any]:
        """Connect and say hello; returns the ``welcome``."""
        welcome = await self._connect()
        self._reader = asyncio.create_task(self._read_forever(), name="tilehall-reader")
        return welcome

    async def close(self) -> None:
        self._closed = True
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        if self._ws is not None:
            await self._ws.close()
        self._fail_waiting(ConnectionLost("closed"))

    @property
    def connected(self) -> bool:
        return self._ready.is_set()

    async def _connect(self) -> dict[str, Any]:
        self._ready.clear()
        self._ws = await connect(self.url, max_size=2**22, compression=None)
        hello: dict[str, Any] = {"t": "hello", "v": VERSION}
        if self.token:
            hello["token"] = self.token
        else:
            hello["name"] = self.name or "player"
            if self.password:
                hello["password"] = self.password
        if self.bot:
            hello["bot"] = True
        if self.compact:
            hello["compact"] = True
        hello["id"] = 0
        await self._ws.send(encode(hello))
        reply = decode(await self._ws.recv(), specs=SERVER_MESSAGES, max_size=2**22)
        if reply["t"] == "error":
            await self._ws.close()
            raise ServerError.from_reply(reply)
        self.limits = reply.get("limits") or {}
        self.pacer.configure(self.limits)
        self.player = reply["player"]
        self.token = reply["token"]
        self.password = None  # the token stands for it from now on
        self.games = reply["games"]
        self.my_rooms = reply["rooms"]
        self._ready.set()
        return reply

    async def _read_forever(self) -> None:
        backoff = 0.1
        while not self._closed:
            ws = self._ws
            assert ws is not None
            try:
                async for frame in ws:
                    self._dispatch(frame)
            except ConnectionClosed:
                pass
            self._ready.clear()
            self._fail_waiting(ConnectionLost("connection lost"))
            if ws.close_code in ENDED_FOR_GOOD or self.signed_out is not None:
                self.signed_out = self.signed_out or ws.close_code
                if self.signed_out != CloseCode.NAME_DISABLED:
                    self.token = None
                self._pushed.put_nowait({"t": "_signed_out", "code": self.signed_out})
                return
            if self._closed or not self.reconnect:
                self._pushed.put_nowait({"t": "_closed"})
                return
            self._pushed.put_nowait({"t": "_reconnecting"})
            while not self._closed:
                await asyncio.sleep(backoff * (0.5 + random.random()))
                backoff = min(self.max_backoff, backoff * 2)
                try:
                    await self._connect()
                except (
                    TimeoutError,
                    OSError,
                    InvalidHandshake,
                    ConnectionClosed,
                    ServerError,
                ) as exc:
                    log.info("reconnect to %s failed: %s", self.url, exc)
                    continue
                break
            else:
                return
            backoff = 0.1
            self.reconnects += 1
            self._rejoiner = asyncio.create_task(self._rejoin())

    async def _rejoin(self) -> None:
        """After a reconnect: take back each seat / spectator place with the last seq."""
        for room in list(self.seats):
            try:
                await self.rejoin(room)
            except (ServerError, ConnectionLost, TimeoutError) as exc:
                log.warning("could not rejoin %s: %s", room, exc)
        self._pushed.put_nowait({"t": "_reconnected"})

    def _dispatch(self, frame: bytes | str) -> None:
        try:
            msg = decode(frame, specs=SERVER_MESSAGES, max_size=2**22)
        except ProtocolError as exc:
            log.warning("server sent a bad frame: %s", exc)
            return
        self._track(msg)
        re = msg.get("re")
        if re is not None and re in self._waiting:
            fut = self._waiting.pop(re)
            if msg["t"] in ("update", "chat"):
                # An action's update, a line said: news for the room too (its log, its chat).
                self._pushed.put_nowait(msg)
            elif msg["t"] == "joined" and re in self._rejoins:
                self._pushed.put_nowait({**msg, "t": "_rejoined"})
            if not fut.done():
                fut.set_result(msg)
            return
        self._pushed.put_nowait(msg)

    def _track(self, msg: dict[str, Any]) -> None:
        """Keep each room's seq and seat as the frames say, in the order they came."""
        t = msg["t"]
        if t == "update":
            self.seqs[msg["room"]] = msg["seq"]
        elif t == "joined":
            self.seqs[msg["room"]] = msg["seq"]
            self.seats[msg["room"]] = msg["seat"]
        elif t == "left":
            self.seqs.pop(msg["room"], None)
            self.seats.pop(msg["room"], None)
        elif t == "reconnect":
            # The node is going away and names another: the next reconnect goes there.
            log.info("server asks to reconnect to %s", msg["url"])
            self.url = msg["url"]

    def _fail_waiting(self, exc: Exception) -> None:
        for fut in self._waiting.values():
            if not fut.done():
                fut.set_exception(exc)
        self._waiting.clear()

    # -- requests ---------------------------------------------------------------------

    async def send(self, msg: dict[str, Any]) -> None:
        """Send without waiting for a reply (after this connection's turn in its budget).

        A ``rooms`` request is paid for as the largest page its ``limit`` allows.
        """
        if self._ws is None:
            raise ConnectionLost("not connected")
        await self.pacer.wait(self.pacer.cost_of(msg))
        try:
            await self._ws.send(encode(msg))
        except ConnectionClosed as exc:
            raise ConnectionLost(str(exc)) from None

    async def set_password(self, password: str, old_password: str | None = None) -> None:
        """Protect this player's name with ``password`` (``old_password``: to change it).

        Raises:
            ServerError: ``bad_password`` (too short, too long, a wrong old one), or
                ``too_many_attempts``.
        """
        msg: dict[str, Any] = {"t": "set_password", "password": password}
        if old_password is not None:
            msg["old_password"] = old_password
        await self.request(msg)

    async def sign_out(self, *, everywhere: bool = False) -> None:
        """Take back this device's token (or every device's); the server then closes.

        No reconnect follows: :attr:`signed_out` says why (1000: this one signed out).
        """
        self.signed_out = 1000
        try:
            await self.request({"t": "sign_out", "everywhere": everywhere})
        except BaseException:
            self.signed_out = None
            raise
        self.token = None

    async def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send ``msg`` with a fresh id and return its reply; raise ServerError on ``error``.

        A ``rate_limited`` refusal means the request was not processed: it is sent
        again after a growing pause, a few times, before the error is raised.
        """
        return await self._request(msg)

    async def _request(self, msg: dict[str, Any], *, rejoin: bool = False) -> dict[str, Any]:
        for pause in RATE_LIMIT_PAUSES:
            try:
                return await self._request_once(msg, rejoin)
            except ServerError as exc:
                if exc.code != "rate_limited":
                    raise
                await asyncio.sleep(exc.retry_after or pause)
        return await self._request_once(msg, rejoin)

    async def _request_once(self, msg: dict[str, Any], rejoin: bool = False) -> dict[str, Any]:
        if not self._ready.is_set():
            async with asyncio.timeout(self.timeout):
                await self._ready.wait()
        rid = next(self._ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = fut
        if rejoin:
            self._rejoins.add(rid)
        try:
            await self.send({**msg, "id": rid})
            async with asyncio.timeout(self.timeout):
                reply = await fut
        finally:
            self._waiting.pop(rid, None)
            self._rejoins.discard(rid)
        if msg.get("t") == "rooms":  # paid for a full page: give back what it did not hold
            held = len(reply["rooms"]) if reply["t"] == "rooms" else 0
            self.pacer.refund(self.pacer.cost_of(msg) - self.pacer.cost_of_rooms(held))
        if reply["t"] == "error":
            raise ServerError.from_reply(reply)
        return reply

    async def join(self, room: str, seat: int | None = None) -> dict[str, Any]:
        msg: dict[str, Any] = {"t": "join", "room": room}
        if seat is not None:
            msg["seat"] = seat
        if room in self.seqs:
            msg["seq"] = self.seqs[room]
        return await self.request(msg)

    async def watch(self, room: str) -> dict[str, Any]:
        return await self.request({"t": "watch", "room": room})

    async def rejoin(self, room: str) -> None:
        """Join (or watch) ``room`` again with the last seq seen, as after a reconnect.

        For a client whose room model fell behind (an update skipped seqs). The
        answer is not returned: it arrives on :meth:`pushed` as ``_rejoined``,
        among the room's other frames in the order the server sent them, which
        is what lets a model take it whatever its seq (see
        :mod:`tilehall.clients.model`).

        Raises:
            ServerError: the server refused (the room is gone, say).
            ConnectionLost: the connection dropped first (a reconnect rejoins anyway).
        """
        seat = self.seats.get(room)
        msg: dict[str, Any] = {"t": "join" if seat is not None else "watch", "room": room}
        if room in self.seqs:
            msg["seq"] = self.seqs[room]
        await self._request(msg, rejoin=True)

    async def act(self, room: str, action: dict[str, Any]) -> dict[str, Any] | None:
        """Send an action. Errors come back as ServerError; success arrives as an update.

        An accepted action yields no reply of its own (its ``update`` says it all),
        so this waits for the update carrying ``re``, or for the error. Like
        :meth:`request`, it sends again after a ``rate_limited`` refusal.
        """
        return await self._request({"t": "act", "room": room, "action": action})

    async def next_pushed(self, timeout: float | None = None) -> dict[str, Any]:
        """The next pushed frame (``update``, ``room``, ``chat``, or ``_reconnecting`` ...)."""
        async with asyncio.timeout(timeout):
            return await self._pushed.get()

    async def pushed(self) -> AsyncIterator[dict[str, Any]]:
        """Every pushed frame, until the connection is closed for good."""
        while True:
            msg = await self._pushed.get()
            if msg["t"] == "_closed":
                return
            yield msg
