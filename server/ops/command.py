"""``tilehall-server admin``: list rooms, close a room, export a game's replay, see to a player.

The commands talk to a running server's admin listener over HTTP, with the key
the server keeps in ``DATA_DIR/admin.key``; only someone who can read that
file (the server's user on its host) can use them. Where the listener is, the
server writes to ``DATA_DIR/admin.json`` as it starts, so ``--data-dir`` (by
default the server's own default) is all a command needs; ``--url`` is for a
server whose data directory is not here (with its key copied into
``--data-dir``).
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tilehall.server.config import default_data_dir
from tilehall.server.games import Game, find_game
from tilehall.server.games.base import step
from tilehall.server.ops.keys import ADMIN_FILE, ADMIN_KEY, read_admin_key
from tilehall.server.store.records import JournalEntry, RoomRecord, SeatRecord

__all__ = ["load_export", "main", "replay_export"]


def replay_export(export: dict[str, Any]) -> tuple[int, Game | None]:
    """Rebuild the engine of an exported room (``admin replay``), as the room would.

    Returns:
        The last seq and the engine (None if the game never started).
    """
    record = RoomRecord(
        id=export.get("room", ""),
        game=export["game"],
        options=export["options"],
        seed=export["seed"],
        seats=tuple(SeatRecord.from_json(s) for s in export["seats"]),
        private_code=None,
        created_at=0.0,
    )
    game = find_game(record.game)
    engine: Game | None = None
    seq = 0
    for e in export["journal"]:
        entry = JournalEntry(
            room=record.id, seq=e["seq"], seat=e["seat"], action=e["action"], now=e["at"]
        )
        engine, _ = step(game, record, engine, entry)
        seq = entry.seq
    return seq, engine


def load_export(text: str) -> dict[str, Any]:
    """Parse an ``admin replay`` export, turning ``{"$bytes": ...}`` back into bytes."""

    def unbytes(obj: dict[str, Any]) -> Any:
        return base64.b64decode(obj["$bytes"]) if set(obj) == {"$bytes"} else obj

    export: dict[str, Any] = json.loads(text, object_hook=unbytes)
    return export


def _get(url: str, key: str) -> tuple[int, Any]:
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        body = exc.read()
        try:
            return exc.code, json.loads(body or b"{}")
        except ValueError:  # not an admin listener's answer (the game port's 404, a ban's 429)
            text = body[:80].decode(errors="replace").strip()
            wait = exc.headers.get("Retry-After")
            later = f" (try again in {wait} s)" if wait else ""
            return exc.code, {"error": f"HTTP {exc.code}: {text}{later}"}


def find_server(data_dir: Path) -> tuple[str, str] | None:
    """The admin URL of the server running with ``data_dir`` and how it was found.

    None when ``DATA_DIR/admin.json`` is missing: no server runs with that data
    directory, or the one that did stopped cleanly.
    """
    try:
        found = json.loads((data_dir / ADMIN_FILE).read_text())
    except FileNotFoundError:
        return None
    return str(found["url"]), f"from {data_dir / ADMIN_FILE}, server pid {found.get('pid')}"


def _health(url: str | None, data_dir: Path, *, live: bool) -> int:
    """GET /readyz (or /healthz) on the admin listener; it needs no key."""
    if url is None:
        found = find_server(data_dir)
        if found is None:
            print(f"no server is running with the data directory {data_dir}", file=sys.stderr)
            return 1
        url = found[0]
    probe = "healthz" if live else "readyz"
    try:
        with urllib.request.urlopen(f"{url.rstrip('/')}/{probe}", timeout=3) as resp:
            status = resp.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except OSError as exc:
        print(f"cannot reach {url}: {exc}", file=sys.stderr)
        return 1
    print(f"/{probe}: {status}")
    return 0 if status == 200 else 1


def _player_request(a: argparse.Namespace) -> str:
    for flag, request in (
        ("disable", "/disable"),
        ("enable", "/enable"),
        ("reset_password", "/reset-password"),
    ):
        if getattr(a, flag, False):
            return request
    return ""


def _print_player(body: dict[str, Any]) -> None:
    guard = "password" if body["password"] else "no password"
    if body["one_time_code"]:
        guard += ", a one-time code waiting"
    state = "DISABLED" if body["disabled"] else "enabled"
    print(
        f"{body['player']} (id {body['id']}): {state}, {guard},"
        f" {body['connections']} connection(s) here"
    )
    if "code" in body:
        print(f"one-time code (signs in once in place of the password): {body['code']}")


def _where(parser: argparse.ArgumentParser, data_dir: Any) -> None:
    """Add ``--url`` and ``--data-dir`` (which server) to ``parser``, ``data_dir`` their default."""
    url_default = None if data_dir is not argparse.SUPPRESS else argparse.SUPPRESS
    parser.add_argument(
        "--url",
        default=url_default,
        help="the server's admin listener, http://HOST:PORT (default: the one DATA_DIR/admin.json "
        "names, written by the server running with that data directory)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=data_dir,
        help="the server's data directory, for its admin key and admin.json "
        "(default: the server's own default)",
    )


def main(argv: list[str]) -> int:
    """Run one admin command; returns the exit status."""
    p = argparse.ArgumentParser(prog="tilehall-server admin", description=__doc__)
    _where(p, default_data_dir())
    # The same two options again on every command, so that `admin rooms --data-dir X`
    # works as well as `admin --data-dir X rooms`; there they default to "not given"
    # (SUPPRESS), so that they never overwrite what was given before the command.
    where = argparse.ArgumentParser(add_help=False)
    _where(where, argparse.SUPPRESS)
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser(
        "rooms",
        parents=[where],
        help="list the rooms in the server's memory (a cluster's: every node's)",
    )
    sub.add_parser("nodes", parents=[where], help="cluster: every node, its lease, load and state")
    drain = sub.add_parser(
        "drain",
        parents=[where],
        help="cluster: hand every room of NODE to the other nodes now; it takes no new rooms",
    )
    drain.add_argument("node")
    undrain = sub.add_parser(
        "undrain", parents=[where], help="cluster: let a drained NODE take new rooms again"
    )
    undrain.add_argument("node")
    close = sub.add_parser(
        "close", parents=[where], help="end a room for good; its members are told"
    )
    close.add_argument("room")
    replay = sub.add_parser(
        "replay",
        parents=[where],
        help="export a room's journal (options, seed, actions) as JSON; binary values "
        'appear as {"$bytes": base64}',
    )
    replay.add_argument("room")
    replay.add_argument("--out", type=Path, help="write to this file instead of stdout")
    player = sub.add_parser(
        "player",
        parents=[where],
        help="show a player; --disable/--enable bar or restore the name; --reset-password "
        "removes its password and prints a one-time code to sign in with",
    )
    player.add_argument("name")
    act = player.add_mutually_exclusive_group()
    act.add_argument(
        "--disable", action="store_true", help="bar the name: its connections closed (4002)"
    )
    act.add_argument("--enable", action="store_true", help="lift the bar")
    act.add_argument(
        "--reset-password",
        action="store_true",
        help="remove the password; print a one-time code that signs in once in its place",
    )
    health = sub.add_parser(
        "health",
        parents=[where],
        help="exit 0 when the server is ready to play games (/readyz), 1 when not: for container "
        "health checks, whatever ports the server was given",
    )
    health.add_argument(
        "--live", action="store_true", help="only whether the process serves (/healthz)"
    )
    a = p.parse_args(argv)
    if a.cmd == "health":
        return _health(a.url, a.data_dir, live=a.live)
    key = read_admin_key(a.data_dir)
    if key is None:
        print(
            f"no admin key in {a.data_dir / ADMIN_KEY}: give the server's --data-dir",
            file=sys.stderr,
        )
        return 2
    if a.url is not None:
        url, how = a.url, "given with --url"
    elif (found := find_server(a.data_dir)) is not None:
        url, how = found
    else:
        print(
            f"no server is running with the data directory {a.data_dir} (no {ADMIN_FILE}): "
            "give its --data-dir, or --url for one elsewhere",
            file=sys.stderr,
        )
        return 2
    base = url.rstrip("/").replace("ws://", "http://").replace("wss://", "https://")
    path = {
        "rooms": "rooms",
        "nodes": "nodes",
        "close": f"close/{getattr(a, 'room', '')}",
        "replay": f"replay/{getattr(a, 'room', '')}",
        "drain": f"drain/{getattr(a, 'node', '')}",
        "undrain": f"undrain/{getattr(a, 'node', '')}",
        "player": f"player/{quote(getattr(a, 'name', ''), safe='')}{_player_request(a)}",
    }[a.cmd]
    try:
        status, body = _get(f"{base}/admin/{path}", key)
    except OSError as exc:
        print(f"cannot reach {base} ({how}): {exc}", file=sys.stderr)
        return 2
    if status != 200:
        print(body.get("error", f"HTTP {status}"), file=sys.stderr)
        if status == 404 and "error" in body and body["error"].startswith("HTTP"):
            print(f"{base} is not an admin listener (--admin-port): {how}", file=sys.stderr)
        return 1
    if a.cmd == "rooms":
        for r in body["rooms"]:
            seats = ", ".join((s["name"] or "-") for s in r["seats"])
            node = f" node {r['node']}" if r.get("node") else ""
            seq = f"seq {r['seq']:<5}" if "seq" in r else "seq ?    "
            print(
                f"{r['room']:<18} {r['game']:<9} {r['status']:<8} {seq} "
                f"watchers {r['spectators']:<3}{node} {seats}"
            )
        return 0
    if a.cmd == "nodes":
        for n in body["nodes"]:
            state = "stopped" if n["stopped"] else "draining" if n["draining"] else "up"
            print(
                f"{n['node']:<16} {state:<9} rooms {n['rooms']:<5} lease {n['lease_left']:>6} s "
                f"{'on the bus' if n['on_bus'] else 'off the bus':<11} {n['url']}"
            )
        return 0
    if a.cmd == "player":
        _print_player(body)
        return 0
    text = json.dumps(body, indent=1)
    if a.cmd == "replay" and a.out:
        a.out.write_text(text)
    else:
        print(text)
    return 0
