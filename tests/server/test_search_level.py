"""Lines master on a real server: offered only with the [search] extra, said so at start-up
and in /metrics, refused by name without it, compiled in the background with it.

Which half runs depends on this venv: with Numba, the offered half; without, the refused
half.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from tilehall.server.bots import lines_master

from tests.helpers import Raw, ServerProcess
from tests.helpers import http_get as get


def lines_levels(welcome):
    return next(g for g in welcome["games"] if g["name"] == "lines")["bots"]


async def hello(url):
    raw = await Raw.open(url)
    welcome = await raw.call({"t": "hello", "v": 1, "name": "Ada"})
    return raw, welcome


@pytest.mark.skipif(lines_master.available(), reason="Numba is installed: master is offered")
async def test_without_the_extra_master_is_absent_and_refused_naming_it(tmp_path):
    proc = ServerProcess(tmp_path, "--search-compile", "start")
    proc.start()
    try:
        assert any("lines master: not offered" in line and "[search]" in line for line in proc.log)
        raw, welcome = await hello(proc.url)
        assert "master" not in lines_levels(welcome) and "hard" in lines_levels(welcome)
        err = await raw.call({"t": "create", "game": "lines", "seats": ["COMP:master"]})
        assert err["t"] == "error" and err["code"] == "bad_seats"
        assert "[search]" in err["message"] and "pip install" in err["message"]
        status, text = get(f"{proc.admin_url}/metrics")
        assert status == 200
        assert 'tilehall_search_available{level="lines:master"} 0' in text.splitlines()
        await raw.close()
    finally:
        proc.stop()


@pytest.mark.slow
@pytest.mark.skipif(not lines_master.available(), reason="the [search] extra is not installed")
async def test_with_the_extra_master_compiles_at_start_up_and_plays(tmp_path):
    proc = ServerProcess(tmp_path, "--search-compile", "start")
    proc.start()
    try:
        assert any("lines master: offered (numba" in line for line in proc.log)
        raw, welcome = await hello(proc.url)
        assert "master" in lines_levels(welcome)
        lines = set(get(f"{proc.admin_url}/metrics")[1].splitlines())
        assert 'tilehall_search_available{level="lines:master"} 1' in lines
        # The compile runs in a child process; the server answers meanwhile.
        deadline = time.monotonic() + 300
        while True:
            assert (await raw.call({"t": "ping"}))["t"] == "pong"
            lines = set(get(f"{proc.admin_url}/metrics")[1].splitlines())
            if 'tilehall_search_ready{level="lines:master"} 1' in lines:
                break
            assert time.monotonic() < deadline, "the compile did not finish"
            await asyncio.sleep(1.0)
        assert any((tmp_path / "numba").iterdir()), "Numba's cache is in the data directory"
        created = await raw.call({"t": "create", "game": "lines", "seats": ["COMP:master"]})
        assert created["t"] == "created", created
        joined = await raw.call({"t": "watch", "room": created["room"]})
        assert joined["t"] == "joined", joined
        # The bot plays on its own: updates arrive, each a legal move the server accepted.
        moved = 0
        while moved < 3:
            msg = await raw.recv(timeout=30)
            if msg.get("t") == "update":
                moved += 1
        await raw.close()
    finally:
        proc.stop()
