"""The SQLite store's own process, really failed: killed under a room, left by a killed server,
sent the Ctrl-C meant for the server.

What a player sees when the store's process dies is what a full disk shows
(tests/server/test_store_faults.py): ``unavailable``, the room suspended, then
restored from its journal once the health probe has started a new process.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from pathlib import Path

import pytest
from tilehall.server.store.errors import StoreUnavailable
from tilehall.server.store.process import ProcessStore

from bench.load.measure import Proc
from tests.helpers import Raw, ServerProcess
from tests.memory import House
from tests.server.store.test_store import entry, room_record, sqlite_file
from tests.server.test_store_faults import (
    ishido,
    ishido_over_socket,
    place,
    replays_to,
    restored,
    suspended,
)


def ended(pid: int, timeout: float = 10.0) -> bool:
    """Whether process ``pid`` (not ours to wait for) exits within ``timeout`` seconds: gone,
    or a zombie its new parent has not reaped yet."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


def journal_seqs(path: Path, room: str) -> list[int]:
    with contextlib.closing(sqlite_file(str(path))) as db:
        rows = db.execute("SELECT seq FROM journal WHERE room = ? ORDER BY seq", (room,))
        return [seq for (seq,) in rows]


async def test_the_stores_process_killed_under_a_room_suspends_it_and_loses_nothing(tmp_path):
    store = ProcessStore(tmp_path / "tilehall.sqlite3", synchronous="NORMAL")
    house = await House.open(tmp_path, store)
    try:
        a, w, room, view = await ishido(house)
        before = await house.journal(room)
        first = store.pid
        assert first is not None and first != os.getpid()
        os.kill(first, signal.SIGKILL)
        seen = len(w.frames)
        err = await house.call(a, place(room, view))
        assert err["code"] == "unavailable" and err["retry_after"] >= 1, err
        await w.wait_for(suspended(room), after=seen)
        assert house.lobby.health.up is False
        await restored(house, w, room)  # the probe's ping started a new process
        assert store.pid not in (None, first)
        assert await house.journal(room) == before, "the move that was not saved is gone"
        upd = await house.call(a, place(room, view))
        assert upd["t"] == "update" and upd["seq"] == len(before) + 1, upd
        await w.update(room, upd["seq"])
        await replays_to(house, room, w.of("update", room)[-1]["view"])
    finally:
        await house.close()
    assert ended(first) and store.pid is None


async def test_calls_in_flight_when_the_process_dies_are_told_and_the_next_call_starts_one(
    tmp_path,
):
    """Every call waiting is answered StoreUnavailable (none waits for ever); an append made
    while no process runs is told at once; the next call that may wait starts a new one."""
    store = ProcessStore(tmp_path / "s.sqlite3", synchronous="NORMAL")
    await store.open()
    try:
        await store.create_room(room_record("r1"))
        pid = store.pid
        assert pid is not None
        os.kill(pid, signal.SIGSTOP)  # answers nothing until it is killed
        waiting = [store.append(entry("r1", 1)), asyncio.ensure_future(store.journal("r1"))]
        await asyncio.sleep(0.2)
        assert not any(f.done() for f in waiting)
        os.kill(pid, signal.SIGKILL)
        got = await asyncio.wait_for(asyncio.gather(*waiting, return_exceptions=True), 10)
        assert all(isinstance(g, StoreUnavailable) for g in got), got
        assert "the store's process stopped" in str(got[0])
        with pytest.raises(StoreUnavailable):
            await store.append(entry("r1", 1))
        assert [e.seq for e in await store.journal("r1")] == []  # a new process answers
        await store.append(entry("r1", 1))
        assert [e.seq for e in await store.journal("r1")] == [1]
    finally:
        await store.close()
    assert ended(pid)


@pytest.mark.slow  # server processes
async def test_a_killed_server_leaves_no_store_process_behind_and_its_moves_stand(tmp_path):
    """SIGKILL gives the server no time to close its store: the store's process sees its
    input end, commits what it was handed and exits. Started again, the server finds every
    move it answered."""
    proc = ServerProcess(tmp_path)
    url = proc.start()
    try:
        a, room, view, seq = await ishido_over_socket(url)
        [child] = Proc(proc.pid).children()
        proc.kill()
        assert ended(child), "the store's process outlived the server"
        assert journal_seqs(tmp_path / "tilehall.sqlite3", room)[-1] == seq
        url = proc.start()
        back = await Raw.open(url)
        assert (await back.call({"t": "hello", "v": 1, "token": a.token}))["rooms"] == [room]
        again = await back.call({"t": "join", "room": room, "seq": seq})
        assert (again["seat"], again["seq"], again["view"]) == (0, seq, view)
    finally:
        proc.stop()


@pytest.mark.slow  # a server process
async def test_ctrl_c_reaches_the_store_process_too_and_the_server_still_closes_it(tmp_path):
    """A terminal's Ctrl-C (or a service manager's stop) signals the whole process group:
    the store's process ignores it and closes when the server, stopping, closes it, after
    the last move."""
    proc = ServerProcess(tmp_path)
    url = proc.start()
    try:
        _, room, _, seq = await ishido_over_socket(url, moves=1)
        assert proc.pid is not None and proc.proc is not None
        [child] = Proc(proc.pid).children()
        os.kill(child, signal.SIGINT)
        os.kill(proc.pid, signal.SIGINT)
        assert await asyncio.to_thread(proc.proc.wait, 20) == 0
        assert ended(child)
        assert not any("Traceback" in line for line in proc.log), "".join(proc.log)
        assert not (tmp_path / "tilehall.sqlite3-wal").exists(), "closed cleanly"
        assert journal_seqs(tmp_path / "tilehall.sqlite3", room) == list(range(1, seq + 1))
    finally:
        proc.stop()
