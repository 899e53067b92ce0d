"""``tilehall-server --loop uvloop``: the optional event loop, in a real process."""

from __future__ import annotations

import sys

import pytest

from tests.helpers import Raw, ServerProcess


@pytest.mark.skipif(sys.platform == "win32", reason="uvloop does not exist on Windows")
async def test_the_server_plays_on_uvloop(tmp_path):
    server = ServerProcess(tmp_path, "--loop", "uvloop")
    url = server.start()
    try:
        assert any("loop uvloop" in line for line in server.log), server.log
        a = await Raw.open(url, "Ada")
        room = (await a.call({"t": "create", "game": "ishido"}))["room"]
        view = (await a.call({"t": "join", "room": room}))["view"]
        move = {"do": "place", "at": view["legal"][0]}
        update = await a.call({"t": "act", "room": room, "action": move})
        assert update["t"] == "update" and update["view"]["placed"] == 1
        await a.close()
    finally:
        server.stop()


async def test_the_default_loop_is_asyncio(tmp_path):
    server = ServerProcess(tmp_path)
    server.start()
    try:
        assert any("loop asyncio" in line for line in server.log), server.log
    finally:
        server.stop()
