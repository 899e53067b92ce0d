"""Operations: Prometheus metrics, a health check, admin requests and JSON logs.

Everything here rides on the WebSocket port: plain HTTP GETs to ``/metrics``,
``/healthz`` and ``/admin/...`` are answered before any WebSocket handshake, so
a host opens one port. Admin requests need ``Authorization: Bearer KEY``, the
key the server writes to ``DATA_DIR/admin.key`` (mode 0600) at start.
"""

from __future__ import annotations

import base64
import bisect
import gc
import hmac
import json
import logging
import math
import secrets
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

    from server.app import Server

__all__ = ["Histogram", "JsonFormatter", "Metrics", "admin_key", "http_handler", "watch_gc"]

log = logging.getLogger(__name__)

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)


class Histogram:
    """A Prometheus histogram: cumulative bucket counts, a sum and a count."""

    __slots__ = ("bounds", "count", "counts", "total")

    def __init__(self, bounds: tuple[float, ...] = LATENCY_BUCKETS) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        self.total = 0.0
        self.count = 0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, value)] += 1
        self.total += value
        self.count += 1

    def render(self, name: str, labels: str = "") -> list[str]:
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
        "# HELP tilehall_uptime_seconds Seconds since the server started.",
        "# TYPE tilehall_uptime_seconds gauge",
        f"tilehall_uptime_seconds {time.time() - m.started:.1f}",
    ]
    return "\n".join(out) + "\n"


def admin_key(data_dir: Path) -> str:
    """The admin key of this data directory, made on first use (0600)."""
    path = data_dir / "admin.key"
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        data_dir.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(32)
        path.touch(mode=0o600)
        path.write_text(key)
        return key


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
    return _response(status, json.dumps(payload, indent=1, default=_jsonable), "application/json")


def _jsonable(value: Any) -> Any:
    """Journals hold msgpack; the one msgpack type JSON lacks, binary, goes as base64."""
    if isinstance(value, bytes):
        return {"$bytes": base64.b64encode(value).decode()}
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


async def http_handler(
    server: Server, connection: ServerConnection, request: Request
) -> Response | None:
    """Answer ``/healthz``, ``/metrics`` and ``/admin/...``; None lets the handshake go on."""
    path = request.path.split("?", 1)[0]
    if request.headers.get("Upgrade", "").lower() == "websocket" and path == "/":
        left = server.banned_for(server.address_of(connection, request))
        if left and server.lobby is not None:
            server.lobby.metrics.refused["flood_ban"] += 1
            response = _response(429, "flooding: try again later\n", "text/plain")
            response.headers["Retry-After"] = str(math.ceil(left))
            return response
        return None
    if path == "/healthz":
        ok = server.lobby is not None and server.accepting
        return _response(200 if ok else 503, "ok\n" if ok else "stopping\n", "text/plain")
    if path == "/metrics":
        return _response(200, render(server), "text/plain; version=0.0.4")
    if path.startswith("/admin/"):
        given = request.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        if not hmac.compare_digest(given.encode(), server.admin_key.encode()):
            return _json(401, {"error": "bad admin key"})
        return await _admin(server, path.removeprefix("/admin/").split("/"))
    return None


async def _admin(server: Server, parts: list[str]) -> Response:
    lobby = server.lobby
    assert lobby is not None
    if parts == ["rooms"]:
        rooms = [
            {**r.summary(), "seq": r.seq, "code": r.record.private_code}
            for r in lobby.rooms.values()
        ]
        return _json(200, {"rooms": rooms})
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
    return _json(404, {"error": "admin requests: rooms, close/ROOM, replay/ROOM"})


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
