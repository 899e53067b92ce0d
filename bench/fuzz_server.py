"""Long fuzz run: a million hostile frames against a real server process.

    .venv/bin/python bench/fuzz_server.py [--frames 1000000] [--conns 4] [--seed 1]

Checks at the end: the server process is alive and answers, its log holds no
ERROR and no traceback, and every room is consistent (replaying its journal,
exported with the admin command, gives the view the server shows).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tilehall.server.ops.command import load_export, replay_export
from websockets.exceptions import ConnectionClosed

from tests.fuzzing import frame
from tests.helpers import ROOT, Raw, ServerProcess


async def worker(url: str, token: str, rooms: list[str], rng: random.Random, n: int) -> int:
    conn = await Raw.open(url)
    await conn.call({"t": "hello", "v": 1, "token": token})
    for room in rooms:
        await conn.call({"t": "join", "room": room})
    reconnects = sent = 0
    while sent < n:
        try:
            for _ in range(50):
                await conn.send(frame(rng, rooms))
                sent += 1
            await conn.call({"t": "ping"}, rid=2**31 - 1)
            conn.pushed.clear()
        except ConnectionClosed:
            reconnects += 1
            conn = await Raw.open(url)
            await conn.call({"t": "hello", "v": 1, "token": token})
    await conn.close()
    return reconnects


async def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--frames", type=int, default=1_000_000)
    p.add_argument("--conns", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    data = Path(tempfile.mkdtemp())
    server = ServerProcess(
        data, "--rate", "1000000", "--burst", "1000000", "--bot-delay", "0", "--send-queue", "4096"
    )
    url = server.start()
    t0 = time.time()
    try:
        owner = await Raw.open(url, "Owner")
        rooms = []
        for msg in (
            {"t": "create", "game": "ishido"},
            {"t": "create", "game": "mathable", "seats": ["Owner", "COMP:easy"]},
            {
                "t": "create",
                "game": "mathable",
                "seats": ["Owner", "COMP:hard"],
                "options": {"racks": "hidden"},
            },
        ):
            room = (await owner.call(msg))["room"]
            await owner.call({"t": "join", "room": room})
            rooms.append(room)
        per = a.frames // a.conns
        results = await asyncio.gather(
            *(
                worker(url, owner.token, rooms, random.Random(a.seed * 1000 + i), per)
                for i in range(a.conns)
            )
        )
        elapsed = time.time() - t0
        assert server.proc.poll() is None, "the server died"
        alive = await Raw.open(url, "Check")
        assert (await alive.call({"t": "ping"}))["t"] == "pong"
        consistent = 0
        for room in rooms:
            watched = await alive.call({"t": "watch", "room": room})
            out = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "tilehall.server.app",
                    "admin",
                    "--data-dir",
                    str(data),
                    "replay",
                    room,
                ],
                capture_output=True,
                text=True,
                cwd=ROOT,
                check=True,
            )
            seq, engine = replay_export(load_export(out.stdout))
            if engine and seq == watched["seq"] and engine.view(None) == watched["view"]:
                consistent += 1
        log = "".join(server.log)
        errors = sum(1 for line in server.log if " ERROR " in line or "Traceback" in line)
        metrics = subprocess.run(
            ["curl", "-s", f"{server.admin_url}/metrics"],
            capture_output=True,
            text=True,
        ).stdout
        accepted = sum(
            int(line.rsplit(" ", 1)[1])
            for line in metrics.splitlines()
            if line.startswith("tilehall_actions_total{")
        )
        print(
            json.dumps(
                {
                    "frames": per * a.conns,
                    "connections": a.conns,
                    "seconds": round(elapsed, 1),
                    "frames_per_s": round(per * a.conns / elapsed),
                    "reconnects": sum(results),
                    "server_alive": True,
                    "error_lines_in_log": errors,
                    "rooms_consistent": f"{consistent}/{len(rooms)}",
                    "accepted_actions": accepted,
                    "log_bytes": len(log),
                },
                indent=1,
            )
        )
    finally:
        server.stop()


if __name__ == "__main__":
    asyncio.run(main())
