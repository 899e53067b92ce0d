"""A move's path through the server: the source files one act runs on the event loop.

Each layer a move crosses is code to read, to keep right and to pay for on every
move. The path is held here: one Ishido ``act`` sent over a real socket, traced
on the event loop's thread until its ``update`` arrives, runs code from at most
:data:`MOST` files of ``server/`` and ``protocol/``. The client is plain
``websockets`` and ``msgpack``, so every file counted is the server's.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import FrameType
from typing import Any

import msgpack
import pytest
import tilehall.protocol
import tilehall.server
import websockets

MOST = 10
"""codec, app, session, the lobby's router, the room's shell and core, the engine's
contract, its actions and the game itself, and the store's journal."""

ROOTS = tuple(str(Path(p.__file__).parent) for p in (tilehall.server, tilehall.protocol))


@pytest.fixture
def frames_match_the_schema() -> None:
    """Off here: the schema check runs on this thread too, and would be traced."""
    return None


async def _call(ws: Any, msg: dict[str, Any]) -> dict[str, Any]:
    await ws.send(msgpack.packb(msg))
    while True:
        reply = msgpack.unpackb(await ws.recv())
        if reply.get("re") == msg.get("id"):
            return reply  # type: ignore[no-any-return]


async def test_a_move_runs_code_from_at_most_ten_files(server):
    async with websockets.connect(f"ws://127.0.0.1:{server.port}") as ws:
        await _call(ws, {"t": "hello", "v": 1, "name": "Ada", "id": 1})
        room = (await _call(ws, {"t": "create", "game": "ishido", "id": 2}))["room"]
        view = (await _call(ws, {"t": "join", "room": room, "id": 3}))["view"]
        ran: dict[str, int] = {}

        def profile(frame: FrameType, event: str, arg: object) -> None:
            if event == "call" and frame.f_code.co_filename.startswith(ROOTS):
                name = frame.f_code.co_filename
                ran[name] = ran.get(name, 0) + 1

        act = {"t": "act", "room": room, "action": {"do": "place", "at": view["legal"][0]}}
        sys.setprofile(profile)
        try:
            update = await _call(ws, {**act, "id": 4})
        finally:
            sys.setprofile(None)
    assert update["t"] == "update" and update["seq"] == 2, update
    files = sorted(str(Path(f).relative_to(Path(ROOTS[0]).parent)) for f in ran)
    assert len(files) <= MOST, f"{len(files)} files: {files}"
    assert "server/room/core.py" in files and "server/games/ishido.py" in files, files
