"""The admin listener: its own port, its key, bans for wrong keys, admin.json, the CLI.

A real server on 127.0.0.1 in this process, spoken to over HTTP and
WebSockets; the ``tilehall-server admin`` commands run as real processes and
find the server through ``DATA_DIR/admin.json``, with no ``--url``.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import stat
import subprocess
import sys

import pytest
from tilehall.server.app import Server
from tilehall.server.config import Config, Limits
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.helpers import ROOT, Raw, ServerProcess, http_get


async def get(url: str, key: str | None = None) -> tuple[int, str]:
    headers = {"Authorization": f"Bearer {key}"} if key is not None else None
    return await asyncio.to_thread(http_get, url, headers)


def admin(data_dir, *args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "tilehall.server.app", "admin", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=30,
        env={**os.environ, "TILEHALL_DATA": str(data_dir), **(env or {})},
    )


async def started(config: Config) -> Server:
    server = Server(config)
    await server.start()
    return server


def key_of(server: Server) -> str:
    return (server.config.data_dir / "admin.key").read_text().strip()


async def test_metrics_and_admin_are_answered_on_the_admin_port_only(server):
    game = f"http://127.0.0.1:{server.port}"
    admin_url = f"http://127.0.0.1:{server.admin_port}"
    key = key_of(server)
    assert server.admin_port not in (0, server.port)
    for path in ("/metrics", "/admin/rooms", "/admin"):
        assert (await get(game + path, key))[0] == 404, path
    for base in (game, admin_url):  # load balancers probe the game port; both answer
        assert await get(base + "/healthz") == (200, "ok\n")
        assert await get(base + "/readyz") == (200, "ready\n")
    status, text = await get(admin_url + "/metrics")
    assert status == 200 and "tilehall_connections 0" in text.splitlines()
    status, text = await get(admin_url + "/admin/rooms", key)
    assert (status, json.loads(text)) == (200, {"rooms": []})
    status, text = await get(admin_url + "/admin/player/x", key)  # as curl shows it
    assert (status, text) == (404, '{\n "error": "no player \'x\'"\n}\n')
    assert (await get(admin_url + "/admin/rooms"))[0] == 401
    assert (await get(admin_url + "/nothing", key))[0] == 404
    host = next(iter(server.admin.ws_server.sockets)).getsockname()[0]
    assert host == "127.0.0.1"
    with pytest.raises(InvalidStatus):  # no WebSocket is ever accepted there
        await connect(f"ws://127.0.0.1:{server.admin_port}")


@pytest.mark.slow
async def test_wrong_admin_keys_ban_the_address_on_both_listeners(tmp_path):
    limits = Limits(bot_delay=0, ping_interval=None, flood_ban=1.5)
    server = await started(Config(showcase=False, port=0, data_dir=tmp_path, limits=limits))
    try:
        admin_url = f"http://127.0.0.1:{server.admin_port}"
        key = key_of(server)
        for _ in range(4):
            assert (await get(admin_url + "/admin/rooms", "guess"))[0] == 401
        assert (await get(admin_url + "/admin/rooms", key))[0] == 200  # four: not yet
        assert (await get(admin_url + "/admin/rooms", "guess"))[0] == 401  # the fifth
        status, text = await get(admin_url + "/admin/rooms", key)
        assert status == 429 and "try again" in text  # even with the right key
        assert (await get(admin_url + "/metrics"))[0] == 429
        with pytest.raises(InvalidStatus) as refused:
            await connect(f"ws://127.0.0.1:{server.port}")
        assert refused.value.response.status_code == 429
        assert (await get(admin_url + "/healthz"))[0] == 200  # probes are never refused
        assert server.sessions == set()

        await asyncio.sleep(1.6)  # the ban is over
        assert (await get(admin_url + "/admin/rooms", key))[0] == 200
        player = await Raw.open(f"ws://127.0.0.1:{server.port}", "Ada")
        await player.close()
        _, text = await get(admin_url + "/metrics")
        lines = text.splitlines()
        assert 'tilehall_connections_refused_total{reason="admin_key"} 5' in lines
    finally:
        await server.stop()


async def test_the_admin_port_defaults_to_the_game_port_plus_one(tmp_path):
    for _ in range(20):  # a free port whose next one is free too
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
        break
    limits = Limits(ping_interval=None)
    server = await started(
        Config(showcase=False, port=port, data_dir=tmp_path / "a", limits=limits)
    )
    try:
        assert (server.port, server.admin_port) == (port, port + 1)
    finally:
        await server.stop()
    server = await started(
        Config(showcase=False, port=0, admin_port=port, data_dir=tmp_path / "b", limits=limits)
    )
    try:
        assert server.admin_port == port
    finally:
        await server.stop()


async def test_admin_json_says_where_the_listener_is_until_a_clean_stop(tmp_path):
    server = await started(
        Config(showcase=False, port=0, data_dir=tmp_path, limits=Limits(ping_interval=None))
    )
    found = tmp_path / "admin.json"
    try:
        assert json.loads(found.read_text()) == {
            "url": f"http://127.0.0.1:{server.admin_port}",
            "pid": os.getpid(),
        }
        assert stat.S_IMODE(found.stat().st_mode) == 0o600
    finally:
        await server.stop()
    assert not found.exists()


@pytest.mark.slow
async def test_the_admin_commands_find_the_server_from_its_data_directory(server, tmp_path):
    a = await Raw.open(f"ws://127.0.0.1:{server.port}", "Ada")
    room = (await a.call({"t": "create", "game": "ishido"}))["room"]
    out = await asyncio.to_thread(admin, tmp_path, "rooms")  # TILEHALL_DATA, as the server's
    assert out.returncode == 0, out.stderr
    assert room in out.stdout and "ishido" in out.stdout
    out = await asyncio.to_thread(
        admin, tmp_path / "elsewhere", "--data-dir", str(tmp_path), "rooms"
    )
    assert out.returncode == 0 and room in out.stdout, out.stderr
    # and after the command, as a new host types it (issue 30 item 4, point 12)
    out = await asyncio.to_thread(
        admin, tmp_path / "elsewhere", "rooms", "--data-dir", str(tmp_path)
    )
    assert out.returncode == 0 and room in out.stdout, out.stderr
    # --url is for a server elsewhere; the game port is not an admin listener
    game = f"http://127.0.0.1:{server.port}"
    out = await asyncio.to_thread(admin, tmp_path, "--url", game, "rooms")
    assert out.returncode == 1 and "not an admin listener" in out.stderr, out.stderr
    await a.close()


@pytest.mark.slow
async def test_the_admin_commands_say_when_no_server_runs_there(tmp_path):
    server = await started(
        Config(showcase=False, port=0, data_dir=tmp_path, limits=Limits(ping_interval=None))
    )
    await server.stop()
    out = await asyncio.to_thread(admin, tmp_path, "rooms")
    assert out.returncode == 2 and "no server is running" in out.stderr, out.stderr
    out = await asyncio.to_thread(admin, tmp_path / "never", "rooms")
    assert out.returncode == 2 and "no admin key" in out.stderr, out.stderr
    assert not (tmp_path / "never").exists()  # the command makes no key of its own


@pytest.mark.slow
async def test_a_crashed_servers_admin_json_is_named_in_the_error(tmp_path):
    proc = ServerProcess(tmp_path)
    proc.start()
    pid = proc.pid
    proc.kill()
    out = await asyncio.to_thread(admin, tmp_path, "rooms")
    assert out.returncode == 2, out.stderr
    assert "cannot reach" in out.stderr and f"server pid {pid}" in out.stderr
