"""Wrong passwords while the rooms play: the storm issue 29 asks the server to shrug off.

:func:`guess` protects a name of its own, then sends ``hello {name, password}``
with wrong passwords at ``rate`` a second, from this one address, spread over a
few connections (each connection's request budget is 50/s), until ``end``.
It does not wait for the answers: a guesser in a hurry would not. The answers
are counted by code (``bad_password`` for the first five, then
``too_many_attempts``), so the report says what the server did with them.
"""

from __future__ import annotations

import asyncio
import collections
import os
import time
from typing import Any

from tilehall.protocol import SERVER_MESSAGES, VERSION, decode, encode
from websockets.asyncio.client import connect

__all__ = ["guess"]

CONNECTIONS = 5


async def guess(url: str, rate: float, end: float) -> dict[str, Any]:
    """Send ``rate`` wrong-password hellos a second until ``end`` (monotonic); count answers."""
    name = f"guessed-{os.getpid()}"
    async with connect(url) as owner:  # the name guessed at, protected at once
        await owner.send(
            encode({"t": "hello", "v": VERSION, "name": name, "password": "the right one, long"})
        )
        welcome = await owner.recv(decode=False)  # bytes: the server sends binary frames
        assert decode(welcome, specs=SERVER_MESSAGES)["t"] == "welcome"
    answers: collections.Counter[str] = collections.Counter()
    sent = 0
    seconds = 0.0
    conns = [await connect(url) for _ in range(CONNECTIONS)]

    async def read(ws: Any) -> None:
        async for frame in ws:
            msg = decode(frame, specs=SERVER_MESSAGES)
            answers[msg.get("code", msg["t"])] += 1

    readers = [asyncio.create_task(read(ws)) for ws in conns]
    start = time.monotonic()
    try:
        while (now := time.monotonic()) < end:
            due = int((now - start) * rate) + 1
            while sent < due:
                hello = {"t": "hello", "v": VERSION, "name": name, "password": f"guess {sent:08}"}
                await conns[sent % CONNECTIONS].send(encode(hello))
                sent += 1
            await asyncio.sleep(1 / rate)
        seconds = time.monotonic() - start
        await asyncio.sleep(1.0)  # the last answers
    finally:
        for task in readers:
            task.cancel()
        for ws in conns:
            await ws.close()
    return {"sent": sent, "per_s": round(sent / seconds, 1), "answers": dict(answers)}
