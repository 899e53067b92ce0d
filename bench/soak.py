"""Soak: bots play for a long time against one server process.

    .venv/bin/python bench/soak.py --minutes 30 [--rooms 12] [--spectators 3]

Keeps ``--rooms`` bot-only rooms playing (every registered game that has
bots, in turn), each watched by ``--spectators`` connections; a finished room
is replaced at once. A room still playing after ``--max-updates`` updates is
closed with ``tilehall-server admin close`` and replaced: Match-It has no end
while its bot clears every sheet, and without a cap the slots drift into
Match-It rooms. Every 30 s it samples the server's RSS and open file
descriptors. At the end it checks: no room stuck (a playing room whose seq did
not move for 60 s), every finished game's journal replays to the result the
server recorded, and every closed room's journal replays to the last view its
spectators saw. Prints the curve and a JSON summary.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tilehall.protocol import Status
from tilehall.server.bots import bot_levels
from tilehall.server.games import all_games
from tilehall.server.ops.command import load_export, replay_export

from tests.helpers import ROOT, Raw, ServerProcess


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def playable() -> list[tuple[str, int]]:
    out = []
    for game in all_games():
        try:
            bot_levels(game.name)
        except (KeyError, ImportError):
            continue
        out.append((game.name, game.min_seats))
    return out


async def run_room(
    url: str, game: str, seats: int, spectators: int, stats: dict, cap: int, admin_close
) -> None:
    owner = await Raw.open(url, f"S{random.randrange(10**9)}")
    names = [f"COMP{i}" for i in range(seats)]
    room = (await owner.call({"t": "create", "game": game, "seats": names}))["room"]
    watchers = [owner] + [
        await Raw.open(url, f"W{random.randrange(10**9)}") for _ in range(spectators - 1)
    ]
    for w in watchers:
        await w.call({"t": "watch", "room": room})
    last_seq, last_move, updates, last_view = 0, time.monotonic(), 0, None
    try:
        while True:
            msg = await owner.recv(timeout=120)
            if msg["t"] == "error" and msg.get("code") == "room_closed":
                stats["capped"].append({"room": room, "game": game, "view": last_view})
                return
            if msg["t"] != "update":
                continue
            stats["updates"] += 1
            updates += 1
            last_seq, last_move, last_view = msg["seq"], time.monotonic(), msg["view"]
            if msg["view"]["status"] == Status.OVER:
                stats["finished"].append(room)
                stats["by_game"][game] = stats["by_game"].get(game, 0) + 1
                return
            if updates == cap:
                # the room keeps playing until the close lands; the last update seen wins
                await asyncio.to_thread(admin_close, room)
    except TimeoutError:
        stats["stuck"].append(
            {
                "room": room,
                "game": game,
                "seq": last_seq,
                "idle": round(time.monotonic() - last_move),
            }
        )
    finally:
        for w in watchers:
            await w.close()


def admin(data_dir: Path, port: int, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "tilehall.server.app",
            "admin",
            "--data-dir",
            str(data_dir),
            *args,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )


def replay_view(data_dir: Path, port: int, room: str, view: dict) -> tuple[bool, str]:
    """A closed room: its journal, replayed, gives the last view its spectators saw."""
    out = admin(data_dir, port, "replay", room)
    if out.returncode != 0:
        return False, out.stderr
    _, engine = replay_export(load_export(out.stdout))
    assert engine is not None
    replayed = json.loads(json.dumps(engine.view(None)))
    same = replayed == json.loads(json.dumps(view))
    return same, "" if same else "replayed view differs from the last one broadcast"


def replay_result(data_dir: Path, port: int, room: str) -> tuple[bool, str]:
    out = admin(data_dir, port, "replay", room)
    if out.returncode != 0:
        return False, out.stderr
    _, engine = replay_export(load_export(out.stdout))
    assert engine is not None
    db = sqlite3.connect(data_dir / "tilehall.sqlite3")
    recorded = json.loads(db.execute("SELECT result FROM rooms WHERE id=?", (room,)).fetchone()[0])
    db.close()
    replayed = json.loads(json.dumps(engine.result()))
    return replayed == recorded, "" if replayed == recorded else f"{replayed} != {recorded}"


async def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--minutes", type=float, default=30)
    p.add_argument("--rooms", type=int, default=12)
    p.add_argument("--spectators", type=int, default=3)
    p.add_argument("--bot-delay", default="0.02")
    p.add_argument(
        "--max-updates", type=int, default=3000, help="close a room still playing after this many"
    )
    a = p.parse_args()
    data = Path(tempfile.mkdtemp())
    server = ServerProcess(
        data,
        "--bot-delay",
        a.bot_delay,
        "--bot-think",
        "0.05",
        "--finished-ttl",
        "5",
        # every spectator is a name of its own, all from this one address
        "--names-per-address",
        "0",
    )
    url = server.start()
    pid = server.proc.pid
    games = playable()
    stats: dict = {"updates": 0, "finished": [], "stuck": [], "capped": [], "by_game": {}}

    def admin_close(room: str) -> None:
        out = admin(data, server.port, "close", room)
        if out.returncode != 0:
            stats["stuck"].append({"room": room, "close_failed": out.stderr[:300]})

    curve = []
    t0 = time.monotonic()
    end = t0 + a.minutes * 60
    tasks: set[asyncio.Task] = set()
    next_sample = t0
    i = 0
    try:
        while time.monotonic() < end:
            while len(tasks) < a.rooms:
                game, seats = games[i % len(games)]
                seats = max(seats, 2) if game == "mathable" else seats
                i += 1
                tasks.add(
                    asyncio.create_task(
                        run_room(url, game, seats, a.spectators, stats, a.max_updates, admin_close)
                    )
                )
            done, tasks = await asyncio.wait(tasks, timeout=1, return_when=asyncio.FIRST_COMPLETED)
            for t in done:
                if t.exception():
                    stats["stuck"].append({"error": repr(t.exception())})
            if time.monotonic() >= next_sample:
                curve.append(
                    {
                        "t": round(time.monotonic() - t0),
                        "rss_kib": rss_kib(pid),
                        "fds": fds(pid),
                        "finished": len(stats["finished"]),
                        "updates": stats["updates"],
                    }
                )
                print(json.dumps(curve[-1]), flush=True)
                next_sample += 30
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        checked = bad = 0
        problems = []
        for room in stats["finished"]:
            ok, why = replay_result(data, server.port, room)
            checked += 1
            if not ok:
                bad += 1
                problems.append({"room": room, "why": why[:300]})
        for capped in stats["capped"]:
            ok, why = replay_view(data, server.port, capped["room"], capped["view"])
            checked += 1
            if not ok:
                bad += 1
                problems.append({"room": capped["room"], "why": why[:300]})
        errors = [line for line in server.log if " ERROR " in line or "Traceback" in line]
        first, last = curve[0], curve[-1]
        print(
            json.dumps(
                {
                    "minutes": a.minutes,
                    "games": [g for g, _ in games],
                    "finished_games": len(stats["finished"]),
                    "finished_by_game": stats["by_game"],
                    "capped_and_closed": len(stats["capped"]),
                    "capped_by_game": {
                        g: sum(c["game"] == g for c in stats["capped"]) for g, _ in games
                    },
                    "updates": stats["updates"],
                    "stuck_rooms": stats["stuck"],
                    "replays_checked": checked,
                    "replays_mismatched": bad,
                    "problems": problems[:5],
                    "error_lines": len(errors),
                    "rss_kib_first_last_max": [
                        first["rss_kib"],
                        last["rss_kib"],
                        max(c["rss_kib"] for c in curve),
                    ],
                    "fds_first_last_max": [first["fds"], last["fds"], max(c["fds"] for c in curve)],
                },
                indent=1,
            )
        )
    finally:
        server.stop()


if __name__ == "__main__":
    asyncio.run(main())
