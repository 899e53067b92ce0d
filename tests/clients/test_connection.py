"""The shared client library against a real server."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from typing import Any

import pytest
from tilehall.clients.connection import Connection, ServerError
from tilehall.clients.model import RoomModel

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


@pytest.mark.slow
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


@pytest.mark.slow
async def test_reconnect_waits_out_a_refused_handshake(tmp_path):
    """A 429 while reconnecting (the address is barred for a flood) is retried, not fatal."""
    from tilehall.server.app import Server
    from tilehall.server.config import Config, Limits

    from tests.helpers import Raw

    limits = Limits(ping_interval=None, rate=5, burst=5, max_strikes=5, flood_ban=3.0)
    srv = Server(Config(showcase=False, port=0, data_dir=tmp_path, limits=limits))
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


async def test_an_actions_update_comes_pushed_in_seq_order(tmp_path):
    """The act's own update is queued when it is read, so the bot's answer never overtakes it.

    The client's loop is held while both are on their way (the server runs in a
    process of its own), so that the reader finds them together, as a slow
    client would.
    """
    proc = ServerProcess(tmp_path, "--bot-delay", "0")
    proc.start()
    try:
        await _act_then_read(proc.url)
    finally:
        proc.stop()


async def _sent(conn: Connection) -> None:
    """Return in the loop's turn ``conn``'s request went out, before any answer can be read.

    The caller then holds the loop. A fixed number of turns was used before: each
    reads what came, and on a loaded machine the answer came within 20 of them, so
    the frames the test means to find queued together had been read one by one.
    """
    for _ in range(1000):
        if conn._waiting:
            return
        await asyncio.sleep(0)
    raise AssertionError("the request was never sent")


async def _act_then_read(url: str) -> None:
    async with Connection(url, name="Ada") as conn:
        made = await conn.request({"t": "create", "game": "mathable", "seats": ["Ada", "COMP"]})
        room = made["room"]
        view, seq = (await conn.join(room))["view"], 0
        while view["to_move"] != 0:  # the COMP may begin
            msg = await conn.next_pushed(timeout=5)
            if msg["t"] == "update":
                view, seq = msg["view"], msg["seq"]
        acting = asyncio.create_task(conn.act(room, {"do": "end"}))
        await _sent(conn)
        time.sleep(0.5)  # the server answers and the COMP moves meanwhile
        mine = await acting
        assert mine is not None
        seqs = []
        while len(seqs) < 2 or not conn._pushed.empty():
            msg = await conn.next_pushed(timeout=5)
            if msg["t"] == "update" and msg["seq"] > seq:
                seqs.append(msg["seq"])
        assert seqs[0] == mine["seq"]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
        assert conn.seqs[room] == seqs[-1]


@pytest.mark.slow
async def test_rejoin_answers_on_pushed_in_order(tmp_path):
    """``rejoin``'s snapshot is queued when it is read: an update sent after it comes after it.

    As above, the client's loop is held while the snapshot and a move made just
    after it are on their way.
    """
    proc = ServerProcess(tmp_path)
    proc.start()
    try:
        async with Connection(proc.url, name="Ada") as a, Connection(proc.url, name="Wat") as w:
            room = (await a.request({"t": "create", "game": "ishido"}))["room"]
            view = (await a.join(room))["view"]
            await w.watch(room)
            first = await a.act(room, {"do": "place", "at": view["legal"][0]})
            assert first is not None
            rejoining = asyncio.create_task(w.rejoin(room))
            await _sent(w)
            time.sleep(0.2)  # the server takes the rejoin first; nothing is read meanwhile
            acting = asyncio.create_task(
                a.act(room, {"do": "place", "at": first["view"]["legal"][0]})
            )
            await _sent(a)
            time.sleep(0.5)  # the snapshot and the move's update both reach Wat meanwhile
            assert await rejoining is None
            second = await acting
            assert second is not None
            got = []
            while len(got) < 3:
                msg = await w.next_pushed(timeout=5)
                if msg["t"] in ("update", "_rejoined"):
                    got.append((msg["t"], msg["seq"]))
            assert got == [
                ("update", first["seq"]),
                ("_rejoined", first["seq"]),
                ("update", second["seq"]),
            ]
            assert w.seats[room] is None and w.seqs[room] == second["seq"]
    finally:
        proc.stop()


@pytest.mark.slow
async def test_a_server_that_lost_its_last_moves_is_followed_back(tmp_path):
    """The journal lost its tail (a power cut under relaxed fsync, a restored backup):
    the rejoin's older snapshot is the truth, and the room's next updates are taken."""
    proc = ServerProcess(tmp_path)
    proc.start()
    try:
        conn = Connection(proc.url, name="Ada", max_backoff=0.5)
        await conn.open()
        room = (await conn.request({"t": "create", "game": "ishido"}))["room"]
        model = RoomModel.from_joined(await conn.join(room))
        for _ in range(3):
            update = await conn.act(room, {"do": "place", "at": model.view["legal"][0]})
            assert update is not None and model.apply(update)
        kept = model.seq - 2
        port = proc.port
        proc.kill()
        with sqlite3.connect(tmp_path / "tilehall.sqlite3") as db:
            db.execute("DELETE FROM journal WHERE room = ? AND seq > ?", (room, kept))
        db.close()
        proc.args = ("--port", str(port))
        proc.proc = None
        proc.start()
        while (msg := await conn.next_pushed(timeout=15))["t"] != "_rejoined":
            model.apply(msg)  # the last updates, pushed before the line dropped
        assert model.apply(msg) and model.seq == kept
        update = await conn.act(room, {"do": "place", "at": model.view["legal"][0]})
        assert update is not None and update["seq"] == kept + 1
        assert model.apply(update) and model.view == update["view"]
        await conn.close()
    finally:
        proc.stop()


class _CancelOnReply(dict[int, "asyncio.Future[Any]"]):
    """The connection's waiting replies, each set to cancel ``task`` once it is resolved.

    The callback is added as the future is stored, so it runs first once the reply
    comes: before the requester can resume, as a Ctrl-C handled in that step would.
    """

    def __init__(self) -> None:
        super().__init__()
        self.task: asyncio.Task[Any] | None = None

    def __setitem__(self, rid: int, fut: asyncio.Future[Any]) -> None:
        super().__setitem__(rid, fut)
        fut.add_done_callback(lambda _: self.task.cancel() if self.task else None)


@pytest.mark.parametrize("call", ["request", "act"])
async def test_a_cancel_that_comes_with_the_reply_is_not_lost(url, call):
    """Ctrl-C on a bot may land in the very step its reply arrives.

    Python 3.11's ``asyncio.wait_for`` then returned the reply and dropped the
    cancellation: the bot played on, and a fresh-clone CI run timed out waiting
    for it to quit. Here the cancel comes in that step every time.
    """
    async with Connection(url, name="Ada", reconnect=False) as conn:
        room = (await conn.request({"t": "create", "game": "ishido"}))["room"]
        joined = await conn.join(room)
        waiting, conn._waiting = conn._waiting, _CancelOnReply()
        if call == "request":
            waiting_for = conn.request({"t": "rooms"})
        else:
            waiting_for = conn.act(room, {"do": "place", "at": joined["view"]["legal"][0]})
        conn._waiting.task = task = asyncio.create_task(waiting_for)
        with pytest.raises(asyncio.CancelledError):
            await task
        conn._waiting = waiting
        # the connection is still good for the next request
        assert (await conn.request({"t": "rooms"}))["t"] == "rooms"


async def test_a_barred_name_ends_the_session_and_keeps_its_token(server, url) -> None:
    """Issue 37 (3): 4002 is no sign-out: the token signs in again once the bar is lifted."""
    async with Connection(url, name="ada") as conn:
        token = conn.token
        await server.lobby.accounts.bar("ada", True)
        async with asyncio.timeout(5):
            async for msg in conn.pushed():
                if msg["t"] == "_signed_out":
                    break
        assert (msg["code"], conn.signed_out, conn.token) == (4002, 4002, token)
    await server.lobby.accounts.bar("ada", False)
    async with Connection(url, token=token) as again:
        assert again.player == "ada"
