"""Operations: Prometheus metrics, health checks, admin requests and JSON logs.

Two listeners answer plain HTTP GETs:

- **the game port** answers ``/healthz`` (liveness: the process serves) and
  ``/readyz`` (readiness: it can play games now: its store answers, in a
  cluster its broker too, and it is not draining) before any WebSocket
  handshake, because load balancers probe the port they send players to. It
  answers 404 for ``/metrics`` and ``/admin/...``. Its other plain GETs are the web
  client's (:mod:`tilehall.server.web`), unless ``--no-web``.
- **the admin listener** (:class:`AdminListener`, ``--admin-host`` 127.0.0.1 and
  ``--admin-port``, by default the game port + 1) answers ``/metrics``,
  ``/admin/...``, ``/healthz`` and ``/readyz``. Admin requests need
  ``Authorization: Bearer KEY``, the key the server keeps in
  ``DATA_DIR/admin.key`` (0600); an address that gives a wrong key
  :data:`ADMIN_FAILURES` times in :data:`ADMIN_FAILURE_WINDOW` seconds is banned
  as a flooder is (``--flood-ban`` seconds; 429 on both listeners). The server
  writes where the listener is to ``DATA_DIR/admin.json`` (0600) for
  ``tilehall-server admin``, and removes it when it stops cleanly.
"""

from __future__ import annotations

import array
import asyncio
import base64
import bisect
import contextlib
import gc
import hmac
import json
import logging
import math
import os
import secrets
import time
from collections import Counter, deque
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from tilehall.server.build import build_name
from tilehall.server.config import Config
from tilehall.server.files import create_private, private_dir, write_private
from websockets.asyncio.server import Server as WSServer
from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

if TYPE_CHECKING:
    from tilehall.server.app import Server

__all__ = [
    "ADMIN_FILE",
    "ADMIN_KEY",
    "AdminListener",
    "Histogram",
    "JsonFormatter",
    "Metrics",
    "admin_key",
    "admin_port",
    "http_handler",
    "read_admin_key",
    "watch_gc",
]

log = logging.getLogger(__name__)

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)


class Histogram:
    """A Prometheus histogram: cumulative bucket counts, a sum and a count.

    :meth:`observe` only appends to a buffer of doubles (a list's append in C: no
    Python frame for every move), folded into the buckets when the histogram is
    read, or by :meth:`fold` (the server folds every histogram once a second, so
    the buffer holds at most a second of values).
    """

    __slots__ = ("_values", "bounds", "count", "counts", "observe", "total")

    def __init__(self, bounds: tuple[float, ...] = LATENCY_BUCKETS) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        self.total = 0.0
        self.count = 0
        self._values = array.array("d")
        self.observe: Callable[[float], None] = self._values.append
        """Record one value."""

    def fold(self) -> None:
        """Count the values observed since the last fold into the buckets."""
        values, self._values = self._values, array.array("d")
        self.observe = self._values.append
        counts, bounds = self.counts, self.bounds
        for value in values:
            counts[bisect.bisect_left(bounds, value)] += 1
        self.total += sum(values)
        self.count += len(values)

    def render(self, name: str, labels: str = "") -> list[str]:
        self.fold()
        sep = "," if labels else ""
        lines, running = [], 0
        for bound, n in zip(self.bounds, self.counts, strict=False):
            running += n
            lines.append(f'{name}_bucket{{{labels}{sep}le="{bound}"}} {running}')
        lines.append(f'{name}_bucket{{{labels}{sep}le="+Inf"}} {self.count}')
        suffix = f"{{{labels}}}" if labels else ""
        lines.append(f"{name}_sum{suffix} {self.total:.6f}")
        lines.append(f"{name}_count{suffix} {self.count}")
        return lines


GC_PAUSES = tuple(Histogram() for _ in range(3))
"""This process's garbage-collection pauses by generation, once :func:`watch_gc` ran."""


def watch_gc() -> None:
    """Time every garbage collection of this process into :data:`GC_PAUSES`.

    The collector stops the event loop while it runs; its full passes were once
    the whole act->update p99, so an operator should see them. Process-wide,
    hence called by the server process, not by each :class:`Metrics`.
    """
    if _gc_timer in gc.callbacks:
        return
    gc.callbacks.append(_gc_timer)


_gc_started = [0.0]


def _gc_timer(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _gc_started[0] = time.perf_counter()
    else:
        GC_PAUSES[info["generation"]].observe(time.perf_counter() - _gc_started[0])


class Metrics:
    """Counters and histograms the server updates as it works."""

    def __init__(self) -> None:
        self.started = time.time()
        self.actions: Counter[str] = Counter()
        """Accepted actions by game."""
        self.errors: Counter[str] = Counter()
        """Refusals by error code."""
        self.act_latency = Histogram()
        """Seconds from an accepted action's arrival to its broadcast."""
        self.commit_latency = Histogram()
        """Seconds a journal append waits for its commit."""
        self.refused: Counter[str] = Counter()
        """Connections refused before they became sessions, by reason."""
        self.paced = 0
        """Requests over budget that were delayed (not refused)."""
        self.paced_seconds = 0.0
        """Time those requests waited, in total."""
        self.bans = 0
        """Addresses barred for flooding."""

    def fold(self) -> None:
        """Fold what every histogram observed into its buckets (see :class:`Histogram`)."""
        for histogram in (self.act_latency, self.commit_latency, *GC_PAUSES):
            histogram.fold()

    async def fold_forever(self, every: float = 1.0) -> None:
        """:meth:`fold` every ``every`` seconds: a histogram then holds at most that much
        unfolded, however long nobody reads ``/metrics``."""
        while True:
            await asyncio.sleep(every)
            self.fold()


def render(server: Server) -> str:
    """The Prometheus text exposition of the server's state."""
    lobby = server.lobby
    assert lobby is not None
    m = lobby.metrics
    out = [
        "# HELP tilehall_connections Open WebSocket connections.",
        "# TYPE tilehall_connections gauge",
        f"tilehall_connections {len(server.sessions)}",
        "# HELP tilehall_rooms Rooms in memory by game and status.",
        "# TYPE tilehall_rooms gauge",
    ]
    rooms = Counter((r.game.name, r.status.value) for r in lobby.rooms.values())
    for (game, status), n in sorted(rooms.items()):
        out.append(f'tilehall_rooms{{game="{game}",status="{status}"}} {n}')
    suspended = sum(1 for r in lobby.rooms.values() if r.suspended)
    out += [
        "# HELP tilehall_rooms_suspended Rooms waiting to be rebuilt from their journal.",
        "# TYPE tilehall_rooms_suspended gauge",
        f"tilehall_rooms_suspended {suspended}",
        "# HELP tilehall_store_up 1 while the store answers, 0 while it is being probed.",
        "# TYPE tilehall_store_up gauge",
        f"tilehall_store_up {int(lobby.health.up)}",
        "# HELP tilehall_store_outages_total Times the store stopped answering.",
        "# TYPE tilehall_store_outages_total counter",
        f"tilehall_store_outages_total {lobby.health.outages}",
    ]
    out += [
        "# HELP tilehall_actions_total Accepted actions.",
        "# TYPE tilehall_actions_total counter",
    ]
    for game, n in sorted(m.actions.items()):
        out.append(f'tilehall_actions_total{{game="{game}"}} {n}')
    out += [
        "# HELP tilehall_errors_total Refusals by code.",
        "# TYPE tilehall_errors_total counter",
    ]
    for code, n in sorted(m.errors.items()):
        out.append(f'tilehall_errors_total{{code="{code}"}} {n}')
    out += [
        "# HELP tilehall_connections_refused_total Connections refused, by reason.",
        "# TYPE tilehall_connections_refused_total counter",
    ]
    for reason, n in sorted(m.refused.items()):
        out.append(f'tilehall_connections_refused_total{{reason="{reason}"}} {n}')
    out += [
        "# HELP tilehall_requests_paced_total Requests over budget delayed, not refused.",
        "# TYPE tilehall_requests_paced_total counter",
        f"tilehall_requests_paced_total {m.paced}",
        "# HELP tilehall_pacing_seconds_total Time paced requests waited for their turn.",
        "# TYPE tilehall_pacing_seconds_total counter",
        f"tilehall_pacing_seconds_total {m.paced_seconds:.3f}",
        "# HELP tilehall_bans_total Addresses barred from connecting (flooding).",
        "# TYPE tilehall_bans_total counter",
        f"tilehall_bans_total {m.bans}",
    ]
    out += [
        "# HELP tilehall_act_seconds From an accepted action to its broadcast.",
        "# TYPE tilehall_act_seconds histogram",
        *m.act_latency.render("tilehall_act_seconds"),
        "# HELP tilehall_journal_commit_seconds Wait for a journal commit.",
        "# TYPE tilehall_journal_commit_seconds histogram",
        *m.commit_latency.render("tilehall_journal_commit_seconds"),
        "# HELP tilehall_gc_pause_seconds Garbage-collection pauses by generation (2: full).",
        "# TYPE tilehall_gc_pause_seconds histogram",
        *(
            line
            for generation, pauses in enumerate(GC_PAUSES)
            for line in pauses.render("tilehall_gc_pause_seconds", f'generation="{generation}"')
        ),
        "# HELP tilehall_gc_frozen_objects Objects frozen at start-up, left out of collections.",
        "# TYPE tilehall_gc_frozen_objects gauge",
        f"tilehall_gc_frozen_objects {gc.get_freeze_count()}",
        "# HELP tilehall_gc_threshold The collector's thresholds by generation (see tune_gc).",
        "# TYPE tilehall_gc_threshold gauge",
        *(
            f'tilehall_gc_threshold{{generation="{generation}"}} {value}'
            for generation, value in enumerate(gc.get_threshold())
        ),
        "# HELP tilehall_uptime_seconds Seconds since the server started.",
        "# TYPE tilehall_uptime_seconds gauge",
        f"tilehall_uptime_seconds {time.time() - m.started:.1f}",
        "# HELP tilehall_build_info Which build runs: pure Python, or mypyc (see setup.py).",
        "# TYPE tilehall_build_info gauge",
        f'tilehall_build_info{{build="{build_name()}"}} 1',
    ]
    return "\n".join(out) + "\n"


ADMIN_KEY = "admin.key"
"""The admin key's file in the data directory."""
ADMIN_FILE = "admin.json"
"""Where the running server's admin listener is (``url``, ``pid``), in the data directory."""
ADMIN_FAILURES = 5
"""Wrong admin keys from one address, within :data:`ADMIN_FAILURE_WINDOW`, that ban it."""
ADMIN_FAILURE_WINDOW = 60.0
"""Seconds over which wrong admin keys are counted."""


def admin_key(data_dir: Path) -> str:
    """The admin key of this data directory, made on first use; 0600 either way.

    An empty file (a disk that filled as it was written) gets a new key: an
    empty key would let in anyone who sends none.
    """
    path = data_dir / ADMIN_KEY
    private_dir(data_dir, tighten=False)
    create_private(path)
    key = path.read_text().strip()
    if not key:
        key = secrets.token_urlsafe(32)
        write_private(path, key + "\n")
    return key


def read_admin_key(data_dir: Path) -> str | None:
    """The admin key a server made in ``data_dir``; None when there is none (or it is empty)."""
    try:
        return (data_dir / ADMIN_KEY).read_text().strip() or None
    except FileNotFoundError:
        return None


def admin_port(config: Config) -> int:
    """The port the admin listener asks for: ``--admin-port``, else the game port + 1.

    A free one (0) when the game port is itself picked freely, so that servers
    started side by side (tests) do not collide.
    """
    if config.admin_port is not None:
        return config.admin_port
    return config.port + 1 if 0 < config.port < 65535 else 0


def _response(status: int, body: str | bytes, ctype: str) -> Response:
    data = body.encode() if isinstance(body, str) else body
    headers = Headers([("Content-Type", ctype), ("Content-Length", str(len(data)))])
    reason = {
        200: "OK",
        401: "Unauthorized",
        404: "Not Found",
        429: "Too Many Requests",
        503: "Service Unavailable",
    }
    return Response(status, reason.get(status, ""), headers, data)


def _json(status: int, payload: Any) -> Response:
    # ends with a new line, so that curl leaves the shell prompt on a line of its own
    text = json.dumps(payload, indent=1, default=_jsonable) + "\n"
    return _response(status, text, "application/json")


def _jsonable(value: Any) -> Any:
    """Journals hold msgpack; the one msgpack type JSON lacks, binary, goes as base64."""
    if isinstance(value, bytes):
        return {"$bytes": base64.b64encode(value).decode()}
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _health(server: Server, path: str) -> Response:
    if path == "/healthz":
        ok = server.lobby is not None and server.accepting
        return _response(200 if ok else 503, "ok\n" if ok else "stopping\n", "text/plain")
    problems = server.not_ready()
    body = "ready\n" if not problems else "".join(f"{p}\n" for p in problems)
    return _response(503 if problems else 200, body, "text/plain")


def _banned(server: Server, left: float) -> Response:
    if server.lobby is not None:
        server.lobby.metrics.refused["flood_ban"] += 1
    response = _response(429, "flooding: try again later\n", "text/plain")
    response.headers["Retry-After"] = str(math.ceil(left))
    return response


_HEALTH = ("/healthz", "/readyz")


async def http_handler(
    server: Server, connection: ServerConnection, request: Request
) -> Response | None:
    """The game port's HTTP: health, readiness and the web client; None: the handshake goes on.

    ``/metrics`` and ``/admin/...`` are 404 here: they are the admin listener's.
    Any other plain request is the web client's (:mod:`tilehall.server.web`),
    unless ``--no-web`` turned it off.
    """
    path = request.path.split("?", 1)[0]
    upgrade = request.headers.get("Upgrade", "").lower() == "websocket"
    if upgrade:  # at any path: a handshake elsewhere than / must not slip past a ban
        left = server.banned_for(server.address_of(connection, request))
        if left:
            return _banned(server, left)
        if path == "/":
            return None
    if path in _HEALTH:
        return _health(server, path)
    if path in ("/metrics", "/admin") or path.startswith("/admin/"):
        return _response(404, "not found\n", "text/plain")
    if not upgrade and server.web is not None:
        return server.web.answer(request)
    if not upgrade and path != "/":  # --no-web: no room pages either
        return _response(404, "not found\n", "text/plain")
    return None


async def _no_websocket(ws: ServerConnection) -> None:
    """Never runs: the admin listener answers every request itself, WebSocket or not."""
    await ws.close()


class ListenError(Exception):
    """A port the server cannot listen on: the message names the option that moves it.

    Raised instead of the bare ``OSError`` so that ``tilehall-server`` can say in
    one line what to change, rather than end in a traceback.
    """


def cannot_listen(exc: OSError, what: str, host: str, port: int, option: str) -> ListenError:
    """The :class:`ListenError` for ``exc``, raised while ``what`` opened ``host:port``."""
    reason = exc.strerror or str(exc)
    return ListenError(f"{what} cannot listen on {host or '*'}:{port} ({reason}): {option}")


class AdminListener:
    """The admin listener: ``/admin/...``, ``/metrics`` and the health checks on a port of its own.

    It is a WebSocket server that never accepts a WebSocket: every request is
    answered by :meth:`answer` before a handshake could happen, so the admin
    port shares the game port's HTTP parsing, its limits and its timeouts.
    """

    def __init__(self, server: Server) -> None:
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
        write_private(self.file, json.dumps({"url": self.url, "pid": os.getpid()}) + "\n")

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
        if path in _HEALTH:  # never refused: a ban must not get a healthy server restarted
            return _health(server, path)
        ip = server.address_of(connection, request)
        if left := server.banned_for(ip):
            return _banned(server, left)
        if path == "/metrics":
            return _response(200, render(server), "text/plain; version=0.0.4")
        if not path.startswith("/admin/"):
            return _response(
                404, "not found: /admin/..., /metrics, /healthz, /readyz\n", "text/plain"
            )
        given = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        if not hmac.compare_digest(given.encode(), self.key.encode()):
            self._failed(ip)
            return _json(401, {"error": "bad admin key"})
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


async def _admin(server: Server, parts: list[str]) -> Response:
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
        return _json(200, {"rooms": rooms})
    if parts == ["nodes"]:
        if cluster is None:
            return _json(404, {"error": "not a cluster node (no --mqtt)"})
        return _json(200, {"nodes": cluster.nodes()})
    if len(parts) == 2 and parts[0] in ("drain", "undrain"):
        if cluster is None:
            return _json(404, {"error": "not a cluster node (no --mqtt)"})
        if parts[0] == "drain":
            await cluster.drain_node(parts[1])
        else:
            await cluster.undrain_node(parts[1])
        return _json(200, {parts[0]: parts[1]})
    if len(parts) == 2 and parts[0] in ("close", "replay"):
        room = lobby.rooms.get(parts[1])
        record = room.record if room else await lobby.store.room(parts[1])
        if record is None:
            return _json(404, {"error": f"no room {parts[1]!r}"})
        if parts[0] == "close":
            if room is None:
                return _json(404, {"error": f"room {parts[1]!r} is not open here"})
            await lobby.close_room(room, "closed by an administrator")
            return _json(200, {"closed": room.id})
        journal = await lobby.store.journal(record.id)
        return _json(
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
    return _json(
        404,
        {
            "error": "admin requests: rooms, close/ROOM, replay/ROOM, nodes, drain/NODE, "
            "undrain/NODE, player/NAME[/disable|/enable|/reset-password]"
        },
    )


async def _player(server: Server, name: str, what: str) -> Response:
    """``admin player NAME``: show a player; bar or restore the name; reset its password."""
    lobby = server.lobby
    assert lobby is not None
    if what not in ("", "disable", "enable", "reset-password"):
        return _json(404, {"error": f"no player request {what!r}"})
    try:
        code = None
        if what in ("disable", "enable"):
            await lobby.bar(name, what == "disable")
        elif what == "reset-password":
            code = await lobby.reset_password(name)
        account = await lobby.named(name)
    except KeyError:
        return _json(404, {"error": f"no player {name!r}"})
    shown: dict[str, Any] = {
        "player": account.name,
        "id": account.id,
        "password": account.password is not None,
        "one_time_code": account.reset_code is not None,
        "disabled": account.disabled,
        # a connection the bar just closed is on its way out: not counted
        "connections": sum(
            not getattr(member, "closing", False) for member in lobby.signed_in.get(account.id, {})
        ),
    }
    if code is not None:
        shown["code"] = code
    return _json(200, shown)


class JsonFormatter(logging.Formatter):
    """One JSON object a line, with the room and request ids when the record has them."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key in ("room", "req", "peer", "player"):
            if hasattr(record, key):
                entry[key] = getattr(record, key)
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry)
