"""``tilehall-server admin``: list rooms, close a room, export a game's replay.

The commands talk to a running server over HTTP on its own port, with the key
the server keeps in ``DATA_DIR/admin.key``; only someone who can read that
file (the host) can use them.
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

from server.config import default_data_dir
from server.games import Game, find_game
from server.ops import admin_key
from server.room import step

__all__ = ["load_export", "main", "replay_export"]


def replay_export(export: dict[str, Any]) -> tuple[int, Game | None]:
    """Rebuild the engine of an exported room (``admin replay``), as the room would.

    Returns:
        The last seq and the engine (None if the game never started).
    """
    game = find_game(export["game"])
    bots = frozenset(i for i, seat in enumerate(export["seats"]) if seat["bot"])
    engine: Game | None = None
    seq = 0
    for entry in export["journal"]:
        engine, _ = step(
            game,
            engine,
            options=export["options"],
            seats=len(export["seats"]),
            seed=export["seed"],
            bots=bots,
            seat=entry["seat"],
            action=entry["action"],
            now=entry["at"],
        )
        seq = entry["seq"]
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
        return exc.code, json.loads(exc.read() or b"{}")


def main(argv: list[str]) -> int:
    """Run one admin command; returns the exit status."""
    p = argparse.ArgumentParser(prog="tilehall-server admin", description=__doc__)
    p.add_argument(
        "--url", default="http://127.0.0.1:8765", help="the server (default %(default)s)"
    )
    p.add_argument(
        "--data-dir",
        type=Path,
        default=default_data_dir(),
        help="the server's data directory, for its admin key (default %(default)s)",
    )
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("rooms", help="list the rooms in the server's memory")
    close = sub.add_parser("close", help="end a room for good; its members are told")
    close.add_argument("room")
    replay = sub.add_parser(
        "replay",
        help="export a room's journal (options, seed, actions) as JSON; binary values "
        'appear as {"$bytes": base64}',
    )
    replay.add_argument("room")
    replay.add_argument("--out", type=Path, help="write to this file instead of stdout")
    a = p.parse_args(argv)
    key = admin_key(a.data_dir)
    base = a.url.rstrip("/").replace("ws://", "http://").replace("wss://", "https://")
    path = {
        "rooms": "rooms",
        "close": f"close/{getattr(a, 'room', '')}",
        "replay": f"replay/{getattr(a, 'room', '')}",
    }[a.cmd]
    try:
        status, body = _get(f"{base}/admin/{path}", key)
    except OSError as exc:
        print(f"cannot reach {base}: {exc}", file=sys.stderr)
        return 2
    if status != 200:
        print(body.get("error", f"HTTP {status}"), file=sys.stderr)
        return 1
    if a.cmd == "rooms":
        for r in body["rooms"]:
            seats = ", ".join((s["name"] or "-") for s in r["seats"])
            print(
                f"{r['room']:<18} {r['game']:<9} {r['status']:<8} seq {r['seq']:<5} "
                f"watchers {r['spectators']:<3} {seats}"
            )
        return 0
    text = json.dumps(body, indent=1)
    if a.cmd == "replay" and a.out:
        a.out.write_text(text)
    else:
        print(text)
    return 0
