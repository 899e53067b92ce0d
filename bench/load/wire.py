"""A bare-bones WebSocket client for the load harness: frames in, frames out, nothing else.

Why not :mod:`websockets` or :class:`tilehall.clients.connection.Connection`? A load
generator shares the machine with the server it measures; with thousands of
spectators it receives tens of thousands of frames a second, and a full client
(a reader task, a queue and a validating decoder per frame) would saturate its
core long before the server does, so the harness would measure itself. This
protocol parses frame headers inside ``data_received`` and hands each payload,
with its arrival time, to a callback: no task wake-up per frame, nothing decoded
that the caller does not ask for. It answers pings and closes cleanly; it does
not support fragmented messages (the server never fragments) or extensions.
"""

from __future__ import annotations

import asyncio
import base64
import os
import random
import time
from collections.abc import Callable

from websockets.speedups import apply_mask

__all__ = ["Wire", "open_wire"]

OnFrame = Callable[[bytes, float], None]
"""Called with each data frame's payload and ``time.monotonic()`` at its arrival."""

_BINARY, _CLOSE, _PING, _PONG = 0x2, 0x8, 0x9, 0xA


class Wire(asyncio.Protocol):
    """One client connection: a handshake, then unmasked frames in, masked frames out."""

    def __init__(self, host: str, port: int, on_frame: OnFrame | None = None) -> None:
        self.host = host
        self.port = port
        self.on_frame = on_frame
        self.transport: asyncio.Transport | None = None
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self.close_code: int | None = None
        self.frames_in = 0
        self.bytes_in = 0
        self._buf = bytearray()
        self._handshaken = False

    # -- asyncio.Protocol ------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write(
            f"GET / HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        buf = self._buf
        buf += data
        if not self._handshaken:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(buf[: buf.find(b"\r\n")])
            del buf[: end + 4]
            if b" 101 " not in status:
                self._fail(ConnectionError(f"handshake refused: {status.decode(errors='replace')}"))
                return
            self._handshaken = True
            if not self.opened.done():
                self.opened.set_result(None)
        while len(buf) >= 2:
            n = buf[1] & 0x7F
            head = 2
            if n == 126:
                if len(buf) < 4:
                    return
                n, head = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                if len(buf) < 10:
                    return
                n, head = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < head + n:
                return
            opcode = buf[0] & 0x0F
            payload = bytes(buf[head : head + n])
            del buf[: head + n]
            if opcode <= _BINARY:
                self.frames_in += 1
                self.bytes_in += n
                if self.on_frame is not None:
                    self.on_frame(payload, now)
            elif opcode == _PING:
                self._write(_PONG, payload)
            elif opcode == _CLOSE:
                self._write(_CLOSE, payload[:2])
                self.close_code = int.from_bytes(payload[:2], "big") if n >= 2 else 1005
                if self.transport is not None:
                    self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(exc or ConnectionError("connection closed"))
        if not self.closed.done():
            self.closed.set_result(self.close_code)

    def _fail(self, exc: BaseException) -> None:
        if not self.opened.done():
            self.opened.set_exception(exc)
        if self.transport is not None and not self._handshaken:
            self.transport.close()

    # -- sending -----------------------------------------------------------------------

    def send(self, payload: bytes) -> None:
        """Send one binary frame now (buffered by the transport, never waits)."""
        self._write(_BINARY, payload)

    def _write(self, opcode: int, payload: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        n = len(payload)
        if n < 126:
            head = bytes((0x80 | opcode, 0x80 | n))
        elif n < 1 << 16:
            head = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
        else:
            head = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
        mask = random.getrandbits(32).to_bytes(4, "big")
        self.transport.write(head + mask + apply_mask(payload, mask))

    def close(self) -> None:
        """Start the closing handshake (1000); ``closed`` resolves when the socket is gone."""
        if self.transport is not None and not self.transport.is_closing():
            self._write(_CLOSE, (1000).to_bytes(2, "big"))
            loop = asyncio.get_running_loop()
            # The server answers and closes; do not wait on it for ever.
            loop.call_later(2.0, self.abort)

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()


async def open_wire(
    host: str, port: int, on_frame: OnFrame | None = None, *, timeout: float = 30.0
) -> Wire:
    """Connect and finish the opening handshake."""
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(timeout):
        _, wire = await loop.create_connection(lambda: Wire(host, port, on_frame), host, port)
    async with asyncio.timeout(timeout):
        await asyncio.shield(wire.opened)
    return wire
