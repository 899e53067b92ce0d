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
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import random
from collections.abc import AsyncIterator
from types import TracebackType
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from protocol import SERVER_MESSAGES, VERSION, ProtocolError, decode, encode

__all__ = ["Connection", "ConnectionLost", "ServerError"]

log = logging.getLogger(__name__)


RATE_LIMIT_PAUSES = (0.1, 0.2, 0.5, 1.0, 2.0)
"""Pauses before sending a rate-limited request again."""


class ServerError(Exception):
    """The server refused a request; ``code`` is its stable error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ConnectionLost(Exception):
    """The connection is gone and reconnecting was not allowed or gave up."""


class Connection:
    """A session with a Tilehall server.

    Args:
        url: ``ws://host:port``.
        name: the player name for a first hello (ignored when ``token`` is given).
        token: the secret of a returning player.
        reconnect: reconnect with back-off when the connection drops.
        max_backoff: the longest pause between reconnect attempts, in seconds.
        timeout: seconds to wait for a reply.
    """

    def __init__(
        self,
        url: str,
        *,
        name: str | None = None,
        token: str | None = None,
        reconnect: bool = True,
        max_backoff: float = 5.0,
        timeout: float = 10.0,
    ) -> None:
        self.url = url
        self.name = name
        self.token = token
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
        hello["id"] = 0
        await self._ws.send(encode(hello))
        reply = decode(await self._ws.recv(), specs=SERVER_MESSAGES, max_size=2**22)  # type: ignore[arg-type]
        if reply["t"] == "error":
            await self._ws.close()
            raise ServerError(reply["code"], reply["message"])
        self.player = reply["player"]
        self.token = reply["token"]
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
        for room, seat in list(self.seats.items()):
            msg: dict[str, Any] = {"t": "join" if seat is not None else "watch", "room": room}
            if room in self.seqs:
                msg["seq"] = self.seqs[room]
            try:
                joined = await self.request(msg)
            except (ServerError, ConnectionLost) as exc:
                log.warning("could not rejoin %s: %s", room, exc)
                continue
            self._pushed.put_nowait({**joined, "t": "_rejoined"})
        self._pushed.put_nowait({"t": "_reconnected"})

    def _dispatch(self, frame: bytes | str) -> None:
        try:
            msg = decode(frame, specs=SERVER_MESSAGES, max_size=2**22)  # type: ignore[arg-type]
        except ProtocolError as exc:
            log.warning("server sent a bad frame: %s", exc)
            return
        re = msg.get("re")
        if re is not None and re in self._waiting:
            fut = self._waiting.pop(re)
            if not fut.done():
                fut.set_result(msg)
            return
        if msg["t"] == "update":
            self.seqs[msg["room"]] = msg["seq"]
        self._pushed.put_nowait(msg)

    def _fail_waiting(self, exc: Exception) -> None:
        for fut in self._waiting.values():
            if not fut.done():
                fut.set_exception(exc)
        self._waiting.clear()

    # -- requests ---------------------------------------------------------------------

    async def send(self, msg: dict[str, Any]) -> None:
        """Send without waiting for a reply."""
        if self._ws is None:
            raise ConnectionLost("not connected")
        try:
            await self._ws.send(encode(msg))
        except ConnectionClosed as exc:
            raise ConnectionLost(str(exc)) from None

    async def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send ``msg`` with a fresh id and return its reply; raise ServerError on ``error``.

        A ``rate_limited`` refusal means the request was not processed: it is sent
        again after a growing pause, a few times, before the error is raised.
        """
        for pause in RATE_LIMIT_PAUSES:
            try:
                return await self._request_once(msg)
            except ServerError as exc:
                if exc.code != "rate_limited":
                    raise
                await asyncio.sleep(pause)
        return await self._request_once(msg)

    async def _request_once(self, msg: dict[str, Any]) -> dict[str, Any]:
        if not self._ready.is_set():
            await asyncio.wait_for(self._ready.wait(), self.timeout)
        rid = next(self._ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = fut
        try:
            await self.send({**msg, "id": rid})
            reply = await asyncio.wait_for(fut, self.timeout)
        finally:
            self._waiting.pop(rid, None)
        if reply["t"] == "error":
            raise ServerError(reply["code"], reply["message"])
        if reply["t"] == "joined":
            self.seqs[reply["room"]] = reply["seq"]
            self.seats[reply["room"]] = reply["seat"]
        if reply["t"] == "left":
            self.seqs.pop(reply["room"], None)
            self.seats.pop(reply["room"], None)
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

    async def act(self, room: str, action: dict[str, Any]) -> dict[str, Any] | None:
        """Send an action. Errors come back as ServerError; success arrives as an update.

        An accepted action yields no reply of its own (its ``update`` says it all),
        so this waits for the update carrying ``re``, or for the error. Like
        :meth:`request`, it sends again after a ``rate_limited`` refusal.
        """
        for pause in RATE_LIMIT_PAUSES:
            try:
                return await self._act_once(room, action)
            except ServerError as exc:
                if exc.code != "rate_limited":
                    raise
                await asyncio.sleep(pause)
        return await self._act_once(room, action)

    async def _act_once(self, room: str, action: dict[str, Any]) -> dict[str, Any] | None:
        if not self._ready.is_set():
            await asyncio.wait_for(self._ready.wait(), self.timeout)
        rid = next(self._ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = fut
        try:
            await self.send({"t": "act", "room": room, "action": action, "id": rid})
            reply = await asyncio.wait_for(fut, self.timeout)
        finally:
            self._waiting.pop(rid, None)
        if reply["t"] == "error":
            raise ServerError(reply["code"], reply["message"])
        self.seqs[room] = reply["seq"]
        self._pushed.put_nowait(reply)
        return reply

    async def next_pushed(self, timeout: float | None = None) -> dict[str, Any]:
        """The next pushed frame (``update``, ``room``, ``chat``, or ``_reconnecting`` ...)."""
        return await asyncio.wait_for(self._pushed.get(), timeout)

    async def pushed(self) -> AsyncIterator[dict[str, Any]]:
        """Every pushed frame, until the connection is closed for good."""
        while True:
            msg = await self._pushed.get()
            if msg["t"] == "_closed":
                return
            yield msg
