"""The game port's plain HTTP: ``/healthz``, ``/readyz`` and the web client; ``/metrics``.

Load balancers probe the port they send players to, so the game port answers
the health checks before any WebSocket handshake; it answers 404 for
``/metrics`` and ``/admin/...``, which are the admin listener's
(:mod:`.listener`). Its other plain GETs are the web client's
(:mod:`tilehall.server.net.web`), unless ``--no-web``. :func:`render` is the
Prometheus exposition the admin listener serves.
"""

from __future__ import annotations

import base64
import gc
import json
import math
import time
from collections import Counter
from typing import Any

from tilehall.server.bots import lines_master
from tilehall.server.build import build_name
from tilehall.server.ops.host import Host
from tilehall.server.ops.metrics import GC_PAUSES
from websockets.asyncio.server import ServerConnection
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

__all__ = [
    "HEALTH",
    "banned",
    "health",
    "http_handler",
    "json_response",
    "jsonable",
    "render",
    "response",
]


def render(server: Host) -> str:
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
        "# HELP tilehall_search_available Whether Lines master is offered (the search extra's"
        " Numba imports).",
        "# TYPE tilehall_search_available gauge",
        f'tilehall_search_available{{level="lines:master"}} {int(lines_master.available())}',
        "# HELP tilehall_search_ready Whether its compiled search is loaded (until then it"
        " plays as hard).",
        "# TYPE tilehall_search_ready gauge",
        f'tilehall_search_ready{{level="lines:master"}} {int(lines_master.ready())}',
    ]
    return "\n".join(out) + "\n"


def response(status: int, body: str | bytes, ctype: str) -> Response:
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


def json_response(status: int, payload: Any) -> Response:
    # ends with a new line, so that curl leaves the shell prompt on a line of its own
    text = json.dumps(payload, indent=1, default=jsonable) + "\n"
    return response(status, text, "application/json")


def jsonable(value: Any) -> Any:
    """Journals hold msgpack; the one msgpack type JSON lacks, binary, goes as base64."""
    if isinstance(value, bytes):
        return {"$bytes": base64.b64encode(value).decode()}
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def health(server: Host, path: str) -> Response:
    if path == "/healthz":
        ok = server.lobby is not None and server.accepting
        return response(200 if ok else 503, "ok\n" if ok else "stopping\n", "text/plain")
    problems = server.not_ready()
    body = "ready\n" if not problems else "".join(f"{p}\n" for p in problems)
    return response(503 if problems else 200, body, "text/plain")


def banned(server: Host, left: float) -> Response:
    if server.lobby is not None:
        server.lobby.metrics.refused["flood_ban"] += 1
    refused = response(429, "flooding: try again later\n", "text/plain")
    refused.headers["Retry-After"] = str(math.ceil(left))
    return refused


HEALTH = ("/healthz", "/readyz")
"""The health checks, answered on both listeners."""


async def http_handler(
    server: Host, connection: ServerConnection, request: Request
) -> Response | None:
    """The game port's HTTP: health, readiness and the web client; None: the handshake goes on.

    ``/metrics`` and ``/admin/...`` are 404 here: they are the admin listener's.
    Any other plain request is the web client's (:mod:`tilehall.server.net.web`),
    unless ``--no-web`` turned it off.
    """
    path = request.path.split("?", 1)[0]
    upgrade = request.headers.get("Upgrade", "").lower() == "websocket"
    if upgrade:  # at any path: a handshake elsewhere than / must not slip past a ban
        left = server.banned_for(server.address_of(connection, request))
        if left:
            return banned(server, left)
        if path == "/":
            return None
    if path in HEALTH:
        return health(server, path)
    if path in ("/metrics", "/admin") or path.startswith("/admin/"):
        return response(404, "not found\n", "text/plain")
    if not upgrade and server.web is not None:
        return server.web.answer(request)
    if not upgrade and path != "/":  # --no-web: no room pages either
        return response(404, "not found\n", "text/plain")
    return None
