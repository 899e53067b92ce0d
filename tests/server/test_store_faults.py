"""Faults of the store, really caused: a room is never ahead of its journal, nothing is lost.

Each test breaks the real thing: a full filesystem under SQLite, a lock another
process holds, a PostgreSQL server stopped, a connection dropped after the
database committed and before its answer arrived, a backend terminated. What a
player sees is the same each time: ``unavailable`` with ``retry_after``, a
``room`` push saying the room is suspended, then restored from its journal. A sign-in
whose password rehash the store refuses goes on with the old hash.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sqlite3
import subprocess
import sys

import asyncpg
import pytest
from tilehall.server.games import find_game
from tilehall.server.names.passwords import Hasher
from tilehall.server.room import Room
from tilehall.server.store import open_store
from tilehall.server.store.errors import StoreUnavailable
from tilehall.server.store.process import ProcessStore
from tilehall.server.store.sqlite import SQLiteStore

from tests.helpers import Raw, ServerProcess
from tests.helpers import http_get as get
from tests.memory import House, MemoryMember
from tests.netfault import CutProxy
from tests.server.store.test_store import entry, room_record
from tests.services import PG_URL, PrivatePostgres, SmallDisk, pg_schema, require_postgres


@pytest.fixture
def disk(tmp_path):
    d = SmallDisk(tmp_path / "disk")
    yield d
    d.close()


async def ishido(house, moves=3):
    """Ada plays ``moves`` stones of an Ishido room that Wes watches."""
    a = await house.player("Ada")
    w = await house.player("Wes")
    room = (await house.call(a, {"t": "create", "game": "ishido"}))["room"]
    view = (await house.call(a, {"t": "join", "room": room}))["view"]
    await house.call(w, {"t": "watch", "room": room})
    for _ in range(moves):
        upd = await house.call(a, place(room, view))
        assert upd["t"] == "update", upd
        view = upd["view"]
    return a, w, room, view


async def ishido_over_socket(url, moves=3):
    """Ada, a raw client of the server at ``url``, places ``moves`` stones of a new Ishido
    room: her client, the room, the last view and its seq."""
    a = await Raw.open(url, "Ada")
    room = (await a.call({"t": "create", "game": "ishido"}))["room"]
    view = (await a.call({"t": "join", "room": room}))["view"]
    seq = 0
    for _ in range(moves):
        upd = await a.call(place(room, view))
        view, seq = upd["view"], upd["seq"]
    return a, room, view, seq


def place(room, view):
    return {"t": "act", "room": room, "action": {"do": "place", "at": view["legal"][0]}}


def suspended(room, flag=True):
    return lambda f: f["t"] == "room" and f["room"] == room and f.get("suspended") is flag


async def restored(house, member, room, *, timeout=30.0):
    """Let the store's probe run (its pauses are on the test's clock) until the room is back.

    Returns the ``room`` push that says so, the first after the one that said suspended.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    told = await member.wait_for(suspended(room))
    after = member.frames.index(told) + 1
    while True:
        house.clock.advance(max(house.lobby.health.retry_after, 0.1))
        try:
            return await member.wait_for(suspended(room, False), after=after, timeout=0.3)
        except TimeoutError:
            if loop.time() > deadline:
                raise


async def replays_to(house, room, view):
    """The journal, replayed by a fresh room, gives the spectator view last sent."""
    live = house.lobby.rooms[room]
    copy = Room(
        live.record,
        find_game(live.game.name),
        house.lobby.registry.services,
        journal=await house.journal(room),
    )
    assert copy.seq == live.seq
    assert copy.view(None) == view


@pytest.mark.parametrize("process", [False, True], ids=["thread", "process"])
async def test_a_full_disk_suspends_the_room_and_loses_nothing(disk, process):
    """The same whether SQLite runs on a thread of the server or in a process of its own
    (the server's default for a file): its errors come back as they are."""
    store = ProcessStore(disk.path / "tilehall.sqlite3", synchronous="NORMAL") if process else None
    house = await House.open(disk.path, store)
    try:
        a, w, room, view = await ishido(house)
        before = await house.journal(room)
        seen = len(w.frames)
        disk.fill()
        err = await house.call(a, place(room, view))
        assert err["code"] == "unavailable" and err["retry_after"] >= 1, err
        await w.wait_for(suspended(room), after=seen)
        # nothing gets in while the room waits for its journal
        assert (await house.call(a, place(room, view)))["code"] == "unavailable"
        assert (await house.call(w, {"t": "watch", "room": room}))["code"] == "unavailable"
        newcomer = await house.call(MemoryMember(), {"t": "hello", "v": 1, "name": "Nell"})
        assert newcomer["code"] == "unavailable"
        assert house.lobby.health.up is False
        assert [u for u in w.of("update", room) if u["seq"] > len(before)] == []
        disk.free()
        await restored(house, w, room)
        assert await house.journal(room) == before, "the move that was not saved is gone"
        upd = await house.call(a, place(room, view))  # and the same move is good again
        assert upd["t"] == "update" and upd["seq"] == len(before) + 1, upd
        await w.update(room, upd["seq"])
        await replays_to(house, room, w.of("update", room)[-1]["view"])
    finally:
        await house.close()


async def test_a_group_of_rows_and_writes_on_a_full_disk_fails_whole_and_keeps_nothing(disk):
    """SQLite commits a room's writes with the journal rows queued beside them. On a full
    disk every item of such a group is told ``unavailable`` (StoreUnavailable) and none of
    it is kept, so no answer and no file disagree; once there is room, all of it goes in."""
    store = await open_store(str(disk.path / "store.sqlite3"))
    try:
        await store.create_room(room_record("r1"))
        await store.append(entry("r1", 1, n=1))

        async def append(e):
            await store.append(e)

        def group():  # one turn of the loop: queued together, in this order
            return [
                asyncio.create_task(work)
                for work in (
                    append(entry("r1", 2, n=2)),
                    store.create_room(room_record("r2")),
                    store.create_player("Grace", b"g" * 32, 1.0),
                    append(entry("r2", 1, n=3)),
                    store.finish_room("r1", {"winners": [0]}, [], 9.0),
                )
            ]

        disk.fill()
        got = await asyncio.gather(*group(), return_exceptions=True)
        assert all(isinstance(g, StoreUnavailable) for g in got), got
        disk.free()
        assert [e.seq for e in await store.journal("r1")] == [1]
        assert await store.room("r2") is None
        assert await store.player_by_name("Grace") is None
        r1 = await store.room("r1")
        assert r1 is not None and r1.status != "over"
        got = await asyncio.gather(*group(), return_exceptions=True)
        assert not [g for g in got if isinstance(g, BaseException)], got
        assert [e.seq for e in await store.journal("r1")] == [1, 2]
        assert [e.seq for e in await store.journal("r2")] == [1]
        assert await store.player_by_name("Grace") is not None
    finally:
        await store.close()


async def test_a_lock_held_past_the_busy_timeout_suspends_then_resumes(tmp_path):
    path = tmp_path / "tilehall.sqlite3"
    house = await House.open(tmp_path, SQLiteStore(path, busy_timeout=0.2))
    other = sqlite3.connect(path, isolation_level=None)  # another process's connection, say
    try:
        a, w, room, view = await ishido(house)
        before = await house.journal(room)
        other.execute("BEGIN EXCLUSIVE")
        err = await house.call(a, place(room, view))
        assert err["code"] == "unavailable", err
        await w.wait_for(suspended(room))
        other.execute("ROLLBACK")
        await restored(house, w, room)
        assert await house.journal(room) == before
        upd = await house.call(a, place(room, view))
        assert upd["seq"] == len(before) + 1
    finally:
        other.close()
        await house.close()


@pytest.mark.slow
async def test_a_rehash_the_store_refuses_waits_for_the_next_sign_in(tmp_path, caplog):
    """A sign-in hashes an old-cost password again, best effort. With the write lock held by
    another connection past the busy timeout, that write fails; the sign-in goes on once the
    lock is let go, the old hash stands and still works, and the next sign-in makes the new."""
    path = tmp_path / "tilehall.sqlite3"
    house = await House.open(tmp_path, SQLiteStore(path, busy_timeout=1.0))
    other = sqlite3.connect(path, isolation_level=None)
    try:
        ada = await house.player("ada")
        secret = "correct horse battery"
        reply = await house.call(ada, {"t": "set_password", "password": secret})
        assert reply["t"] == "password_set", reply
        before = (await house.store.account_by_name("ada")).password
        assert ",t=2," in before
        house.lobby.accounts.hasher = Hasher(time_cost=3)  # a release raised the cost
        sign_in = {"t": "hello", "v": 1, "name": "ada", "password": secret}

        other.execute("BEGIN IMMEDIATE")
        signing = asyncio.create_task(house.call(MemoryMember("phone"), sign_in))
        async with asyncio.timeout(10):
            while "password not hashed again" not in caplog.text:
                await asyncio.sleep(0.01)
        assert not signing.done()  # its token's write waits on the same lock
        other.execute("ROLLBACK")
        welcome = await signing
        assert welcome["t"] == "welcome", welcome
        assert (await house.store.account_by_name("ada")).password == before

        again = await house.call(MemoryMember("tablet"), sign_in)
        assert again["t"] == "welcome", again
        after = (await house.store.account_by_name("ada")).password
        assert after != before and ",t=3," in after
    finally:
        other.close()
        await house.close()


def view_at(house, room, entries):
    """The spectator view a fresh room rebuilt from ``entries`` shows."""
    live = house.lobby.rooms[room]
    copy = Room(
        live.record, find_game(live.game.name), house.lobby.registry.services, journal=entries
    )
    return copy.view(None)


@pytest.mark.slow
async def test_a_newcomer_is_never_shown_a_move_before_its_commit(tmp_path):
    """While an append waits on the journal, the engine already holds the move.

    bench/chaos.py caught a spectator let in during that wait: it was shown the move
    under the seq before it, then got it again as an update; when the node was killed
    before the commit, it had seen a game the journal never held.
    """
    path = tmp_path / "tilehall.sqlite3"
    house = await House.open(tmp_path, SQLiteStore(path, busy_timeout=1.5))
    other = sqlite3.connect(path, isolation_level=None)
    try:
        a, w, room, view = await ishido(house)
        nell = await house.player("Nell")
        olga = await house.player("Olga")
        before = await house.journal(room)

        # the commit waits on another connection's lock, then goes through
        other.execute("BEGIN EXCLUSIVE")
        acting = asyncio.create_task(house.call(a, place(room, view)))
        await asyncio.sleep(0.3)  # the append is in flight
        joining = asyncio.create_task(house.call(nell, {"t": "watch", "room": room}))
        await asyncio.sleep(0.3)
        other.execute("ROLLBACK")
        upd, joined = await acting, await joining
        assert upd["t"] == "update" and upd["seq"] == len(before) + 1, upd
        assert joined["t"] == "joined", joined
        journal = await house.journal(room)
        assert joined["view"] == view_at(house, room, journal[: joined["seq"]])
        await asyncio.sleep(0.1)
        assert [u["seq"] for u in nell.of("update", room) if u["seq"] <= joined["seq"]] == []

        # the commit fails: the newcomer is told to come back, and never sees the move
        other.execute("BEGIN EXCLUSIVE")
        acting = asyncio.create_task(house.call(a, place(room, upd["view"])))
        await asyncio.sleep(0.3)
        joining = asyncio.create_task(house.call(olga, {"t": "watch", "room": room}))
        err, refused = await acting, await joining
        assert err["code"] == "unavailable", err
        assert refused["code"] == "unavailable", refused
        other.execute("ROLLBACK")
        await restored(house, w, room)
        assert await house.journal(room) == journal
        again = await house.call(olga, {"t": "watch", "room": room})
        assert again["seq"] == len(journal)
        assert again["view"] == view_at(house, room, journal)
    finally:
        other.close()
        await house.close()


class JournalReadFailsOnce(SQLiteStore):
    """The real SQLite store, whose next journal read fails once with a driver's own error.

    bench/chaos.py saw asyncpg raise ``InternalClientError`` ("another operation is
    in progress") on a connection PostgreSQL had dropped, while rooms read their
    journals to come back; no fault of the real database causes that on cue.
    """

    armed = False

    async def journal(self, room):
        if self.armed:
            self.armed = False
            raise RuntimeError("cannot switch to state 12; another operation is in progress")
        return await super().journal(room)


async def test_a_room_keeps_trying_to_come_back_when_its_journal_cannot_be_read(tmp_path):
    path = tmp_path / "tilehall.sqlite3"
    store = JournalReadFailsOnce(path, busy_timeout=0.2)
    house = await House.open(tmp_path, store)
    other = sqlite3.connect(path, isolation_level=None)
    try:
        a, w, room, view = await ishido(house)
        before = await house.journal(room)
        other.execute("BEGIN EXCLUSIVE")
        err = await house.call(a, place(room, view))
        assert err["code"] == "unavailable", err
        await w.wait_for(suspended(room))
        store.armed = True  # the rebuild's first read of the journal fails
        other.execute("ROLLBACK")
        await restored(house, w, room)
        assert not store.armed, "the failing read was tried"
        upd = await house.call(a, place(room, view))
        assert upd["t"] == "update" and upd["seq"] == len(before) + 1, upd
    finally:
        other.close()
        await house.close()


@pytest.mark.slow  # server processes
async def test_a_server_on_a_full_disk_killed_and_restarted_brings_the_room_back(disk):
    proc = ServerProcess(disk.path)
    url = proc.start()
    try:
        a, room, view, seq = await ishido_over_socket(url)
        http = f"http://127.0.0.1:{proc.port}"
        disk.fill()
        err = await a.call(place(room, view))
        assert err["code"] == "unavailable"
        while not suspended(room)(await a.recv()):
            pass
        status, text = await asyncio.to_thread(get, f"{http}/readyz")
        assert status == 503 and "store unavailable" in text, text
        assert (await asyncio.to_thread(get, f"{http}/healthz"))[0] == 200  # alive, not ready
        # what a container's health check runs: it finds the ports from the data directory
        ready = await asyncio.to_thread(health, disk.path)
        assert ready.returncode == 1 and "/readyz: 503" in ready.stdout, ready
        live = await asyncio.to_thread(health, disk.path, "--live")
        assert live.returncode == 0 and "/healthz: 200" in live.stdout, live
        metrics = await asyncio.to_thread(get, f"{proc.admin_url}/metrics")
        assert "tilehall_rooms_suspended 1" in metrics[1]
        proc.kill()
        disk.free()
        url = proc.start()
        back = await Raw.open(url)
        assert (await back.call({"t": "hello", "v": 1, "token": a.token}))["rooms"] == [room]
        again = await back.call({"t": "join", "room": room, "seq": seq})
        assert (again["seat"], again["seq"], again["view"]) == (0, seq, view)
        assert again["missed"] == []
        upd = await back.call(place(room, view))
        assert upd["seq"] == seq + 1
        http = f"http://127.0.0.1:{proc.port}"
        assert await asyncio.to_thread(get, f"{http}/readyz") == (200, "ready\n")
        assert (await asyncio.to_thread(health, disk.path)).returncode == 0
    finally:
        proc.stop()
    assert (await asyncio.to_thread(health, disk.path)).returncode == 1, "no server: not ready"


def health(data_dir, *args):
    """``tilehall-server admin health``, as a container's health check runs it."""
    return subprocess.run(
        [sys.executable, "-m", "tilehall.server.app", "admin", "health", *args],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "TILEHALL_DATA": str(data_dir)},
    )


@pytest.fixture
async def private_pg():
    pg = PrivatePostgres()
    pg.start()
    yield pg
    pg.close()


@pytest.mark.slow  # server processes
async def test_postgresql_stopped_and_started_again(tmp_path, private_pg):
    house = await House.open(tmp_path, private_pg.url)
    try:
        a, w, room, view = await ishido(house)
        before = await house.journal(room)
        private_pg.stop()  # as a service manager stops it: sessions are terminated
        err = await house.call(a, place(room, view))
        assert err["code"] == "unavailable", err
        await w.wait_for(suspended(room))
        refused = await house.call(MemoryMember(), {"t": "hello", "v": 1, "name": "Nell"})
        assert refused["code"] == "unavailable"
        # a new room neither: no id drawn again for it, no room in memory without its row
        made = await house.call(a, {"t": "create", "game": "lines"})
        assert made["code"] == "unavailable", made
        assert list(house.lobby.rooms) == [room]
        for _ in range(3):  # the probe keeps failing meanwhile
            house.clock.advance(house.lobby.health.retry_after)
            await asyncio.sleep(0.05)
        assert house.lobby.rooms[room].suspended
        private_pg.start()
        await restored(house, w, room)
        assert await house.journal(room) == before
        upd = await house.call(a, place(room, view))
        assert upd["seq"] == len(before) + 1
        await w.update(room, upd["seq"])
        await replays_to(house, room, upd["view"] | {"seat": None})
    finally:
        await house.close()


async def test_a_commit_whose_answer_was_lost_is_read_back_and_shown(tmp_path):
    await require_postgres()
    async with pg_schema() as url:
        host_port = PG_URL.split("@", 1)[1].split("/", 1)[0]
        host, port = host_port.rsplit(":", 1)
        proxy = CutProxy(host, int(port))
        listen = await proxy.start()
        via_proxy = url.replace(host_port, f"127.0.0.1:{listen}")
        house = await House.open(tmp_path, via_proxy)
        try:
            a, w, room, view = await ishido(house)
            before = await house.journal(room)
            proxy.cut_before(b"INSERT 0 1")  # the journal's insert commits; its answer is lost
            err = await house.call(a, place(room, view))
            assert proxy.cuts == 1
            assert err["code"] == "unavailable", err
            mark = len(w.frames)
            await restored(house, w, room)
            # the move had been saved: the room shows it, once, as the next update
            journal = await house.journal(room)
            assert len(journal) == len(before) + 1
            assert journal[-1].action == {"do": "place", "at": view["legal"][0]}
            shown = [u for u in w.frames[mark - 1 :] if u["t"] == "update"]
            assert [u["seq"] for u in shown] == [len(before) + 1]
            assert any(e["e"] == "placed" for e in shown[0]["events"])
            mine = await a.update(room, len(before) + 1)
            assert "re" not in mine  # the act was answered already: unavailable
            upd = await house.call(a, place(room, mine["view"]))
            assert upd["seq"] == len(before) + 2
            await replays_to(house, room, upd["view"] | {"seat": None})
        finally:
            await house.close()
            await proxy.close()


async def test_a_terminated_backend_costs_at_most_one_suspension(tmp_path):
    await require_postgres()
    async with pg_schema() as url:
        name = "t_" + secrets.token_hex(6)
        house = await House.open(tmp_path, f"{url}&application_name={name}")
        admin = await asyncpg.connect(PG_URL)
        try:
            a, w, room, view = await ishido(house)
            killed = await admin.fetchval(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE application_name = $1",
                name,
            )
            assert killed >= 1
            reply = await house.call(a, place(room, view))
            if reply["t"] == "error":  # the pool's connection was the dead one
                assert reply["code"] == "unavailable", reply
                await restored(house, w, room)
                reply = await house.call(a, place(room, view))
            assert reply["t"] == "update", reply
            journal = await house.journal(room)
            assert journal[-1].seq == reply["seq"] == len(journal)
            await replays_to(house, room, reply["view"] | {"seat": None})
        finally:
            await admin.close()
            await house.close()


@pytest.mark.slow  # server processes
async def test_the_database_password_comes_from_a_file_never_the_command_line(tmp_path):
    pg = PrivatePostgres(password="s3cret word")
    pg.start()
    try:
        secret = tmp_path / "db.password"
        secret.write_text("s3cret word\n")
        refused = ServerProcess(tmp_path / "a", "--db", pg.url)
        with pytest.raises(RuntimeError, match="password"):
            refused.start()
        proc = ServerProcess(tmp_path / "b", "--db", pg.url, "--db-password-file", str(secret))
        try:
            url = proc.start()
            a = await Raw.open(url, "Ada")
            assert (await a.call({"t": "create", "game": "ishido"}))["t"] == "created"
            assert "s3cret" not in " ".join(proc.proc.args)
        finally:
            proc.stop()
            refused.stop()
    finally:
        pg.close()


@pytest.mark.slow  # server processes
async def test_a_server_started_on_a_full_disk_says_so_in_one_line(disk):
    """What the host sees when the data directory's disk is full at start-up: not a
    traceback, one line naming the file it could not write and the setting."""
    proc = ServerProcess(disk.path)
    proc.start()  # the database made while there is room
    proc.stop()
    disk.fill()
    argv = ["--port", "0", "--host", "127.0.0.1", "--data-dir", str(disk.path), "--no-showcase"]
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "tilehall.server.app", *argv],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("tilehall-server: cannot write"), last
    assert "No space left on device" in last and "--data-dir" in last, last
    disk.free()
    url = proc.start()  # and once there is room again it starts
    raw = await Raw.open(url, "Ada")
    await raw.close()
    proc.stop()
