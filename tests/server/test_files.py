"""The data directory is the server's user's alone, whatever the umask it was started with.

A real ``tilehall-server`` process, started with a permissive umask, and its
files looked at with ``stat``: the directory 0700; the database, its -wal and
-shm, the admin key and admin.json 0600. Files an older version left readable
are corrected at the next start.
"""

from __future__ import annotations

import os
import signal
import stat

import pytest

from bench.load.measure import Proc
from tests.helpers import Raw, ServerProcess

FILES = ("tilehall.sqlite3", "tilehall.sqlite3-wal", "tilehall.sqlite3-shm", "admin.key")


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize("umask", [0o000, 0o022])
async def test_a_new_data_directory_and_its_files_are_private_whatever_the_umask(tmp_path, umask):
    data = tmp_path / "made" / "data"  # its parent is made by the server too
    proc = ServerProcess(data, umask=umask)
    try:
        proc.start()
        a = await Raw.open(proc.url, "Ada")  # a write: the -wal and -shm files exist now
        room = (await a.call({"t": "create", "game": "ishido"}))["room"]
        await a.call({"t": "join", "room": room})
        assert {p.name for p in data.iterdir()} >= {*FILES, "admin.json"}
        assert (mode(data), mode(data.parent)) == (0o700, 0o700)
        for name in (*FILES, "admin.json"):
            assert mode(data / name) == 0o600, name
        await a.close()
    finally:
        proc.stop()


@pytest.mark.slow
async def test_files_an_older_server_left_readable_are_made_private_at_start(tmp_path):
    data = tmp_path / "data"
    proc = ServerProcess(data, umask=0o022)
    proc.start()
    a = await Raw.open(proc.url, "Ada")
    room = (await a.call({"t": "create", "game": "ishido"}))["room"]
    await a.call({"t": "join", "room": room})
    # no clean stop: the -wal and -shm files stay, as after a power cut (the store's process
    # too, which closes the file when only the server is killed)
    for pid in Proc(proc.pid).children():
        os.kill(pid, signal.SIGKILL)
    proc.kill()
    data.chmod(0o755)
    for name in FILES:
        (data / name).chmod(0o644)
    assert all(mode(data / name) == 0o644 for name in FILES)

    proc.start()
    try:
        assert mode(data) == 0o700
        for name in (*FILES, "admin.json"):
            assert mode(data / name) == 0o600, name
        back = await Raw.open(proc.url)  # and nothing was lost on the way
        welcome = await back.call({"t": "hello", "v": 1, "token": a.token})
        assert (welcome["player"], welcome["rooms"]) == ("Ada", [room])
        await back.close()
    finally:
        proc.stop()


async def test_a_shared_folder_given_as_the_data_directory_keeps_its_mode(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # as /tmp: other users' files live there too
    proc = ServerProcess(shared, umask=0o000)
    try:
        proc.start()
        assert mode(shared) == 0o1777
        assert mode(shared / "tilehall.sqlite3") == mode(shared / "admin.key") == 0o600
        assert any("shared directory" in line for line in proc.log)
    finally:
        proc.stop()
