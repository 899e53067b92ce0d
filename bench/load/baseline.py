"""The transport's own limit: a bare ``websockets`` server that echoes and broadcasts.

The load harness runs this in a subprocess next to the real server and drives
it with the same clients and the same frame sizes, so that every figure of the
real server can be given as a fraction of what the WebSocket layer alone can do
on this machine. It runs on the same settings as ``tilehall-server`` (no
compression, the same ping interval and receive queue).

A request frame is ``kind (1 byte) + tag (8 bytes) + reply size (4 bytes) +
padding``. ``kind`` ``e`` echoes: the sender gets ``kind + tag`` padded to the
reply size. ``kind`` ``b`` broadcasts that reply to every connection, the sender
included, with websockets' own :func:`~websockets.asyncio.server.broadcast`.

Run from a checkout: ``python -m bench.load.baseline [--port 0]``; like
``tilehall-server`` it logs ``listening on ws://HOST:PORT`` on stderr, so that
the harness starts and reads both the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from functools import cache

from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed

__all__ = ["main", "request"]

HEAD = 13
"""Bytes of a request before its padding: kind, tag, reply size."""


def request(kind: bytes, tag: int, size: int, reply_size: int) -> bytes:
    """A request frame of ``size`` bytes asking for a reply of ``reply_size`` bytes."""
    head = kind + tag.to_bytes(8, "big") + reply_size.to_bytes(4, "big")
    return head + bytes(max(0, size - HEAD))


@cache
def _padding(n: int) -> bytes:
    return bytes(max(0, n))


async def _handle(ws: ServerConnection) -> None:
    server = ws.server
    try:
        async for frame in ws:
            data = frame if isinstance(frame, bytes) else frame.encode()
            reply = data[:9] + _padding(int.from_bytes(data[9:13], "big") - 9)
            if data[:1] == b"b":
                broadcast(server.connections, reply)
            else:
                await ws.send(reply)
    except ConnectionClosed:
        pass


async def _serve(host: str, port: int, ping_interval: float | None) -> None:
    async with serve(
        _handle,
        host,
        port,
        max_size=2**22,
        ping_interval=ping_interval,
        ping_timeout=ping_interval,
        max_queue=16,
        compression=None,
    ) as server:
        bound = next(iter(server.sockets)).getsockname()[1]
        print(f"listening on ws://{host}:{bound}", file=sys.stderr, flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.load.baseline", description=__doc__)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--ping-interval", type=float, default=20.0, help="0 disables pings")
    p.add_argument("--uvloop", action="store_true", help="run on uvloop (if installed)")
    a = p.parse_args(argv)
    if a.uvloop:
        import uvloop

        uvloop.install()
    asyncio.run(_serve(a.host, a.port, a.ping_interval or None))


if __name__ == "__main__":
    main()
