"""The shared client library against a real server."""

from __future__ import annotations

import asyncio

import pytest

from clients.connection import Connection, ServerError
from tests.helpers import ServerProcess


async def test_request_reply_act_and_errors(url):
    async with Connection(url, name="Ada", reconnect=False) as conn:
        assert conn.player == "Ada" and conn.token
        room = (await conn.request({"t": "create", "game": "ishido"}))["room"]
        joined = await conn.join(room)
        update = await conn.act(room, {"do": "place", "at": joined["view"]["legal"][0]})
        assert update["seq"] == joined["seq"] + 1
        assert conn.seqs[room] == update["seq"]
        with pytest.raises(ServerError) as info:
            await conn.act(room, {"do": "place", "at": [0, 0]})
        assert info.value.code == "occupied"
        with pytest.raises(ServerError) as info:
            await conn.request({"t": "join", "room": "nowhere"})
        assert info.value.code == "unknown_room"


async def test_a_second_connection_resumes_by_token(url):
    async with Connection(url, name="Ada", reconnect=False) as first:
        token = first.token
    async with Connection(url, token=token, reconnect=False) as again:
        assert again.player == "Ada"
    with pytest.raises(ServerError) as info:
        async with Connection(url, name="ada", reconnect=False):
            pass
    assert info.value.code == "name_taken"


async def test_reconnects_after_a_server_restart_and_catches_up(tmp_path):
    proc = ServerProcess(tmp_path)
    proc.start()
    try:
        player = Connection(proc.url, name="Ada", max_backoff=0.5)
        watcher = Connection(proc.url, name="Wat", max_backoff=0.5)
        await player.open()
        await watcher.open()
        room = (await player.request({"t": "create", "game": "ishido"}))["room"]
        view = (await player.join(room))["view"]
        await watcher.watch(room)
        await player.act(room, {"do": "place", "at": view["legal"][0]})
        port = proc.port
        proc.kill()
        proc.args = ("--port", str(port))  # same address after the restart
        proc.proc = None
        # ServerProcess passes --port 0 first; the later --port wins with argparse
        proc.start()
        assert proc.port == port
        # both clients reconnect and rejoin on their own
        for conn in (player, watcher):
            while (await conn.next_pushed(timeout=15))["t"] != "_reconnected":
                pass
            assert conn.connected and conn.reconnects == 1
        assert player.seats[room] == 0 and watcher.seats[room] is None
        view = (await player.join(room))["view"]
        update = await player.act(room, {"do": "place", "at": view["legal"][0]})
        while True:
            msg = await watcher.next_pushed(timeout=5)
            if msg["t"] == "update":
                break
        assert msg["seq"] == update["seq"]
        assert msg["view"]["board"] == update["view"]["board"]
        await player.close()
        await watcher.close()
    finally:
        proc.stop()


async def test_pushed_frames_arrive_in_order(url):
    async with Connection(url, name="Ada") as a, Connection(url, name="Bob") as b:
        room = (await a.request({"t": "create", "game": "ishido"}))["room"]
        view = (await a.join(room))["view"]
        await b.watch(room)
        seqs = []
        for _ in range(5):
            upd = await a.act(room, {"do": "place", "at": view["legal"][0]})
            view = upd["view"]
            seqs.append(upd["seq"])
        got = []
        while len(got) < 5:
            msg = await asyncio.wait_for(b.next_pushed(), 5)
            if msg["t"] == "update":
                got.append(msg["seq"])
        assert got == seqs


async def test_reconnect_waits_out_a_refused_handshake(tmp_path):
    """A 429 while reconnecting (the address is barred for a flood) is retried, not fatal."""
    from server.app import Server
    from server.config import Config, Limits
    from tests.helpers import Raw

    limits = Limits(ping_interval=None, rate=5, burst=5, max_strikes=5, flood_ban=3.0)
    srv = Server(Config(port=0, data_dir=tmp_path, limits=limits))
    await srv.start()
    url = f"ws://127.0.0.1:{srv.port}"
    try:
        async with Connection(url, name="Ada", max_backoff=0.2) as conn:
            flooder = await Raw.open(url, "Flo")
            with pytest.raises(Exception):  # noqa: B017 - cut off is all that matters here
                for _ in range(100):
                    await flooder.send({"t": "ping"})
                while True:
                    await flooder.recv()
            assert srv.banned_for("127.0.0.1") > 0
            # Ada's line drops while her address is barred
            (ada,) = [s for s in srv.sessions if s.player and s.player.name == "Ada"]
            ada.ws.transport.abort()
            while (await conn.next_pushed(timeout=15))["t"] != "_reconnected":
                pass
            assert conn.reconnects == 1 and srv.lobby.metrics.refused["flood_ban"] >= 1
            assert (await conn.request({"t": "ping"}))["t"] == "pong"
    finally:
        await srv.stop()
