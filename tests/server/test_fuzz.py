"""A short fuzz run against a live server: nothing crashes, every room stays consistent.

The long run (1,000,000 frames) is ``bench/fuzz_server.py``.
"""

from __future__ import annotations

import logging
import random

import pytest
from tilehall.server.app import Server
from tilehall.server.config import Config, Limits
from tilehall.server.games import find_game
from tilehall.server.room import Room
from websockets.exceptions import ConnectionClosed

from tests.fuzzing import frame
from tests.helpers import Raw

FRAMES = 3000


@pytest.mark.slow
async def test_fuzzed_frames_break_nothing(tmp_path, caplog):
    caplog.set_level(logging.ERROR)
    srv = Server(
        Config(
            showcase=False,
            port=0,
            data_dir=tmp_path,
            limits=Limits(ping_interval=None, rate=1e6, burst=10**6, bot_delay=0),
        )
    )
    await srv.start()
    url = f"ws://127.0.0.1:{srv.port}"
    try:
        owner = await Raw.open(url, "Owner")
        rooms = []
        for game, seats in [("ishido", None), ("mathable", ["Owner", "COMP:easy"])]:
            room = (
                await owner.call(
                    {"t": "create", "game": game, "seats": seats}
                    if seats
                    else {"t": "create", "game": game}
                )
            )["room"]
            await owner.call({"t": "join", "room": room})
            rooms.append(room)
        rng = random.Random(20261122)
        conn, sent, reconnects = owner, 0, 0
        token = owner.token
        while sent < FRAMES:
            try:
                for _ in range(50):
                    await conn.send(frame(rng, rooms))
                    sent += 1
                await conn.call({"t": "ping"}, rid=2**31 - 1)  # the server still answers
            except ConnectionClosed:
                reconnects += 1
                conn = await Raw.open(url)
                assert (await conn.call({"t": "hello", "v": 1, "token": token}))["t"] == "welcome"
                for room in rooms:
                    await conn.call({"t": "join", "room": room})
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        # every room is consistent: replaying its journal gives its current state
        for room_id in rooms:
            live = srv.lobby.rooms[room_id]
            copy = Room(
                live.record,
                find_game(live.game.name),
                srv.lobby.registry.services,
                journal=await srv.store.journal(room_id),
            )
            assert copy.seq == live.seq
            assert all(copy.view(s) == live.view(s) for s in (None, 0))
        # the server still serves a newcomer
        newcomer = await Raw.open(url, "Late")
        assert len((await newcomer.call({"t": "rooms"}))["rooms"]) == 2
    finally:
        await srv.stop()
