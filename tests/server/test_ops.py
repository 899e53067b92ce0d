"""Operations: /healthz, /metrics, admin commands and JSON logs, on a real server.

/metrics and /admin/... are the admin listener's (its own port); the admin
commands find it through DATA_DIR/admin.json, with no --url (test_admin.py
has the listener's own tests).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from tilehall.server.ops.command import load_export, replay_export

from tests.helpers import ROOT, Raw, ServerProcess
from tests.helpers import http_get as get


@pytest.fixture
def proc(tmp_path):
    p = ServerProcess(tmp_path, "--log-format", "json")
    p.start()
    yield p
    p.stop()


def admin(proc, *args):
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "tilehall.server.app",
            "admin",
            "--data-dir",
            str(proc.data_dir),
            *args,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=30,
    )


async def test_healthz_and_metrics(proc):
    http = f"http://127.0.0.1:{proc.port}"
    assert get(f"{http}/healthz") == (200, "ok\n")
    assert get(f"{http}/readyz") == (200, "ready\n")
    a = await Raw.open(proc.url, "Ada")
    room = (await a.call({"t": "create", "game": "ishido"}))["room"]
    view = (await a.call({"t": "join", "room": room}))["view"]
    await a.call({"t": "act", "room": room, "action": {"do": "place", "at": view["legal"][0]}})
    await a.call({"t": "act", "room": room, "action": {"do": "place", "at": [0, 0]}})
    assert get(f"{http}/metrics")[0] == 404  # not on the game port
    status, text = get(f"{proc.admin_url}/metrics")
    assert status == 200
    lines = set(text.splitlines())
    assert "tilehall_connections 1" in lines
    assert 'tilehall_rooms{game="ishido",status="playing"} 1' in lines
    assert 'tilehall_actions_total{game="ishido"} 2' in lines  # the start and the move
    assert 'tilehall_errors_total{code="occupied"} 1' in lines
    assert "tilehall_act_seconds_count 2" in lines
    assert "tilehall_journal_commit_seconds_count 2" in lines
    assert {"tilehall_store_up 1", "tilehall_rooms_suspended 0"} <= lines
    # the server process times its collections and froze what its imports built
    counts = {
        line.split("{")[1].split("}")[0]: int(line.rsplit(" ", 1)[1])
        for line in lines
        if line.startswith("tilehall_gc_pause_seconds_count")
    }
    assert set(counts) == {'generation="0"', 'generation="1"', 'generation="2"'}
    assert counts['generation="2"'] >= 1  # the collection before the freeze, at least
    frozen = next(line for line in lines if line.startswith("tilehall_gc_frozen_objects "))
    assert int(frozen.split()[1]) > 10_000
    # middle collections after 50 young ones and full ones after 20 middle ones,
    # not CPython's 10 and 10 (see tune_gc)
    assert 'tilehall_gc_threshold{generation="1"} 50' in lines
    assert 'tilehall_gc_threshold{generation="2"} 20' in lines
    assert any(line.startswith('tilehall_gc_threshold{generation="0"} ') for line in lines)
    assert get(f"{http}/nothing")[0] in (400, 404, 426)


@pytest.mark.slow
async def test_admin_commands_need_the_key_and_work(proc):
    http = proc.admin_url
    assert get(f"{http}/admin/rooms")[0] == 401
    assert get(f"{http}/admin/rooms", {"Authorization": "Bearer guess"})[0] == 401
    a = await Raw.open(proc.url, "Ada")
    room = (await a.call({"t": "create", "game": "ishido"}))["room"]
    view = (await a.call({"t": "join", "room": room}))["view"]
    await a.call({"t": "act", "room": room, "action": {"do": "place", "at": view["legal"][0]}})

    out = admin(proc, "rooms")
    assert out.returncode == 0, out.stderr
    assert room in out.stdout and "ishido" in out.stdout and "Ada" in out.stdout

    out = admin(proc, "replay", room)
    assert out.returncode == 0, out.stderr
    replay = json.loads(out.stdout)
    assert [e["action"]["do"] for e in replay["journal"]] == ["_start", "place"]
    assert replay["game"] == "ishido" and isinstance(replay["seed"], int)
    # the export is enough to rebuild the game exactly
    seq, engine = replay_export(load_export(out.stdout))
    watched = await a.call({"t": "watch", "room": room})
    assert seq == watched["seq"] and engine.view(watched["seat"]) == watched["view"]

    out = admin(proc, "close", room)
    assert out.returncode == 0, out.stderr
    while (msg := await a.recv())["t"] != "error":
        pass
    assert msg["code"] == "room_closed"
    assert (await a.call({"t": "rooms"}))["rooms"] == []
    assert admin(proc, "close", "nope").returncode == 1

    # the log is JSON, one object a line, with the room id where there is one
    entries = [json.loads(line) for line in proc.log if line.startswith("{")]
    assert any(e.get("room") == room and "closed" in e["msg"] for e in entries)


def test_a_taken_admin_port_is_one_clear_line_naming_admin_port(tmp_path):
    """The admin listener takes the game port + 1: when that is in use the server says so,
    naming ``--admin-port``, and exits without a traceback (issue 30)."""
    import socket

    for _ in range(20):
        game = socket.socket()
        game.bind(("127.0.0.1", 0))
        port = game.getsockname()[1]
        taken = socket.socket()
        try:
            taken.bind(("127.0.0.1", port + 1))
        except OSError:
            game.close()
            taken.close()
            continue
        game.close()  # free again for the server; port + 1 stays held
        break
    else:
        pytest.skip("no two adjacent free ports on this machine")
    try:
        taken.listen()
        argv = ["--port", str(port), "--host", "127.0.0.1", "--data-dir", str(tmp_path)]
        done = subprocess.run(
            [sys.executable, "-m", "tilehall.server.app", *argv],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        taken.close()
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("tilehall-server: the admin listener cannot listen on"), last
    assert f":{port + 1}" in last and "--admin-port" in last, last
