"""The admin listener: ``/admin/...``, ``/metrics`` and the health checks on a port of its own.

``--admin-host`` (127.0.0.1) and ``--admin-port`` (by default the game port + 1):
metrics need no key, so they are kept off the port the Internet reaches. Admin
requests need ``Authorization: Bearer KEY``, the key the server keeps in
``DATA_DIR/admin.key`` (:mod:`.keys`); an address that gives a wrong key
:data:`ADMIN_FAILURES` times in :data:`ADMIN_FAILURE_WINDOW` seconds is banned
as a flooder is (``--flood-ban`` seconds; 429 on both listeners). The server
writes where the listener is to ``DATA_DIR/admin.json`` (0600) for
``tilehall-server admin``, and removes it when it stops cleanly.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import os
from collections import deque
from typing import Any
from urllib.parse import unquote

from tilehall.server.files import write_private
from tilehall.server.ops.host import Host
from tilehall.server.ops.http import (
    HEALTH,
    banned,
    health,
    json_response,
    render,
    response,
)
from tilehall.server.ops.keys import ADMIN_FILE, admin_key, admin_port
from websockets.asyncio.server import Server as WSServer
from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request, Response

__all__ = [
    "ADMIN_FAILURES",
    "ADMIN_FAILURE_WINDOW",
    "AdminListener",
    "ListenError",
    "StartError",
    "cannot_listen",
    "cannot_write",
]

log = logging.getLogger("tilehall.server.ops")

ADMIN_FAILURES = 5
"""Wrong admin keys from one address, within :data:`ADMIN_FAILURE_WINDOW`, that ban it."""
ADMIN_FAILURE_WINDOW = 60.0
"""Seconds over which wrong admin keys are counted."""


class StartError(Exception):
    """What keeps the server from starting that the host is to fix: the message says what.

    Raised instead of the bare ``OSError`` so that ``tilehall-server`` can say in
    one line what to change, rather than end in a traceback.
    """


class ListenError(StartError):
    """A port the server cannot listen on: the message names the option that moves it."""


def cannot_listen(exc: OSError, what: str, host: str, port: int, option: str) -> ListenError:
    """The :class:`ListenError` for ``exc``, raised while ``what`` opened ``host:port``."""
    reason = exc.strerror or str(exc)
    return ListenError(f"{what} cannot listen on {host or '*'}:{port} ({reason}): {option}")


def cannot_write(exc: OSError, path: object) -> StartError:
    """The :class:`StartError` for ``exc``, raised writing ``path`` in the data directory
    (a full disk, a read-only one): the host's to fix, in one line."""
    return StartError(
        f"cannot write {path} ({exc.strerror or exc}): the data directory "
        "(--data-dir) must be writable, with free space"
    )


class AdminListener:
    """The admin listener: ``/admin/...``, ``/metrics`` and the health checks on a port of its own.

    It is a WebSocket server that never accepts a WebSocket: every request is
    answered by :meth:`answer` before a handshake could happen, so the admin
    port shares the game port's HTTP parsing, its limits and its timeouts.
    """

    def __init__(self, server: Host) -> None:
        self.server = server
        self.key = ""
        self.ws_server: WSServer | None = None
        self.file = server.config.data_dir / ADMIN_FILE
        self.failures: dict[str, deque[float]] = {}
        """Address -> loop times of its wrong admin keys within the window."""

    @property
    def port(self) -> int:
        assert self.ws_server is not None
        port: int = next(iter(self.ws_server.sockets)).getsockname()[1]
        return port

    @property
    def url(self) -> str:
        """Where a client on this host reaches the listener (a wildcard address as loopback)."""
        host = self.server.config.admin_host
        host = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
        return f"http://[{host}]:{self.port}" if ":" in host else f"http://{host}:{self.port}"

    async def start(self) -> None:
        """Listen, and say where in ``DATA_DIR/admin.json`` (0600)."""
        config = self.server.config
        self.key = admin_key(config.data_dir)
        port = admin_port(config)
        try:
            self.ws_server = await serve(
                _no_websocket,
                config.admin_host,
                port,
                process_request=self.answer,
                max_size=1024,
                ping_interval=None,
                compression=None,
            )
        except OSError as exc:
            raise cannot_listen(
                exc,
                "the admin listener",
                config.admin_host,
                port,
                "it takes the game port + 1 unless --admin-port names another (0: any free port)",
            ) from None
        try:
            write_private(self.file, json.dumps({"url": self.url, "pid": os.getpid()}) + "\n")
        except OSError as exc:  # a full disk, a read-only one: nothing else could be kept either
            await self.stop()
            raise cannot_write(exc, self.file) from None

    async def stop(self) -> None:
        """Stop listening; remove ``admin.json`` unless another process has written it since."""
        if self.ws_server is None:
            return
        self.ws_server.close()
        await self.ws_server.wait_closed()
        self.ws_server = None
        with contextlib.suppress(OSError, ValueError, KeyError):
            if json.loads(self.file.read_text())["pid"] == os.getpid():
                self.file.unlink()

    async def answer(self, connection: ServerConnection, request: Request) -> Response:
        """Every request to the admin port: health, metrics, admin, or 404."""
        server = self.server
        path = request.path.split("?", 1)[0]
        if path in HEALTH:  # never refused: a ban must not get a healthy server restarted
            return health(server, path)
        ip = server.address_of(connection, request)
        if left := server.banned_for(ip):
            return banned(server, left)
        if path == "/metrics":
            return response(200, render(server), "text/plain; version=0.0.4")
        if not path.startswith("/admin/"):
            return response(
                404, "not found: /admin/..., /metrics, /healthz, /readyz\n", "text/plain"
            )
        given = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        if not hmac.compare_digest(given.encode(), self.key.encode()):
            self._failed(ip)
            return json_response(401, {"error": "bad admin key"})
        return await _admin(server, path.removeprefix("/admin/").split("/"))

    def _failed(self, ip: str) -> None:
        """Count a wrong key from ``ip``; ban it at :data:`ADMIN_FAILURES` within the window."""
        server = self.server
        if server.lobby is not None:
            server.lobby.metrics.refused["admin_key"] += 1
        now = asyncio.get_running_loop().time()
        if len(self.failures) > 4096:
            self.failures = {
                k: v for k, v in self.failures.items() if v[-1] > now - ADMIN_FAILURE_WINDOW
            }
        times = self.failures.setdefault(ip, deque())
        times.append(now)
        while times[0] <= now - ADMIN_FAILURE_WINDOW:
            times.popleft()
        if len(times) >= ADMIN_FAILURES:
            del self.failures[ip]
            server.ban(ip, f"{ADMIN_FAILURES} wrong admin keys")


async def _admin(server: Host, parts: list[str]) -> Response:
    lobby = server.lobby
    assert lobby is not None
    cluster = server.cluster
    if parts == ["rooms"]:
        here = server.config.node
        rooms = [
            {**r.summary(), "seq": r.seq, "code": r.record.private_code, "node": here}
            for r in lobby.rooms.values()
        ]
        if cluster is not None:  # the whole cluster's, as the other nodes announce theirs
            rooms += await cluster.cluster_rooms()
        return json_response(200, {"rooms": rooms})
    if parts == ["nodes"]:
        if cluster is None:
            return json_response(404, {"error": "not a cluster node (no --mqtt)"})
        return json_response(200, {"nodes": cluster.nodes()})
    if len(parts) == 2 and parts[0] in ("drain", "undrain"):
        if cluster is None:
            return json_response(404, {"error": "not a cluster node (no --mqtt)"})
        if parts[0] == "drain":
            await cluster.drain_node(parts[1])
        else:
            await cluster.undrain_node(parts[1])
        return json_response(200, {parts[0]: parts[1]})
    if len(parts) == 2 and parts[0] in ("close", "replay"):
        room = lobby.rooms.get(parts[1])
        record = room.record if room else await lobby.store.room(parts[1])
        if record is None:
            return json_response(404, {"error": f"no room {parts[1]!r}"})
        if parts[0] == "close":
            if room is None:
                return json_response(404, {"error": f"room {parts[1]!r} is not open here"})
            await lobby.registry.close_room(room, "closed by an administrator")
            return json_response(200, {"closed": room.id})
        journal = await lobby.store.journal(record.id)
        return json_response(
            200,
            {
                "room": record.id,
                "game": record.game,
                "options": record.options,
                "seed": record.seed,
                "seats": [s.to_json() for s in record.seats],
                "journal": [
                    {"seq": e.seq, "seat": e.seat, "action": e.action, "at": e.now} for e in journal
                ],
            },
        )
    if parts[0] == "player" and len(parts) in (2, 3):
        return await _player(server, unquote(parts[1]), parts[2] if len(parts) == 3 else "")
    return json_response(
        404,
        {
            "error": "admin requests: rooms, close/ROOM, replay/ROOM, nodes, drain/NODE, "
            "undrain/NODE, player/NAME[/disable|/enable|/reset-password]"
        },
    )


async def _player(server: Host, name: str, what: str) -> Response:
    """``admin player NAME``: show a player; bar or restore the name; reset its password."""
    lobby = server.lobby
    assert lobby is not None
    if what not in ("", "disable", "enable", "reset-password"):
        return json_response(404, {"error": f"no player request {what!r}"})
    try:
        code = None
        if what in ("disable", "enable"):
            await lobby.accounts.bar(name, what == "disable")
        elif what == "reset-password":
            code = await lobby.accounts.reset_password(name)
        account = await lobby.accounts.named(name)
    except KeyError:
        return json_response(404, {"error": f"no player {name!r}"})
    shown: dict[str, Any] = {
        "player": account.name,
        "id": account.id,
        "password": account.password is not None,
        "one_time_code": account.reset_code is not None,
        "disabled": account.disabled,
        # a connection the bar just closed is on its way out: not counted
        "connections": sum(
            not getattr(member, "closing", False)
            for member in lobby.accounts.signed_in.get(account.id, {})
        ),
    }
    if code is not None:
        shown["code"] = code
    return json_response(200, shown)


async def _no_websocket(ws: ServerConnection) -> None:
    """Never runs: the admin listener answers every request itself, WebSocket or not."""
    await ws.close()
