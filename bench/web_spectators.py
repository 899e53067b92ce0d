"""Spectators of one COMP game: does the web page's way cost the server more than the terminal's?

    .venv/bin/python -m bench.web_spectators [--spectators 200] [--rounds 3] [--seconds 20]

A real server process; in each run a new Mathable room whose four seats are all
``COMP:easy`` plays by itself while ``--spectators`` clients of one kind watch it:

- ``page``: what the web page does (clients/web/js/net.js, room.js): a bare
  WebSocket (offering permessage-deflate, as browsers do), msgpack, ``hello``
  with ``compact: true``, ``watch``, each update's patch applied to the view held
  (a gap in ``seq`` or a patch that does not fit: ``watch`` again), and a ``ping``
  after 15 s of quiet.
- ``terminal``: what the terminal client does: clients/connection.py's
  ``Connection`` (``compact=True``, as clients/cli/app.py opens it), ``watch``,
  and a clients/model.py ``RoomModel`` taking each pushed frame.
- ``base``: one page spectator: the game's own cost (its bots think in the server
  process), the floor that the others are measured above.

The kinds alternate (base, page, terminal, base, page, ...) so that a drift of
the machine falls on all of them. Each run measures, once every spectator watches
and a second has passed, the server's CPU time (utime + stime from
``/proc/PID/stat``) over ``--seconds`` and the updates the room made meanwhile.
Reported per kind (medians over the rounds): CPU milliseconds per update, and per
update per spectator above the base, in microseconds. Goal (issue 27): page <=
terminal.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tilehall.clients.connection import Connection
from tilehall.clients.model import RoomModel
from tilehall.protocol import SERVER_MESSAGES, decode, encode, patch
from websockets.asyncio.client import ClientConnection, connect

from tests.helpers import Raw, ServerProcess

KINDS = ("base", "page", "terminal")
QUIET_PING = 15.0
"""The page pings after this many seconds without a frame (net.js KEEPALIVE_MS)."""


def cpu_seconds(pid: int) -> float:
    """The process's user + system CPU time so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime: fields 14 and 15 of stat
    return ticks / os.sysconf("SC_CLK_TCK")


class Watcher:
    """One spectator; ``seq`` is the last update it holds, ``updates`` how many it took."""

    seq = 0
    updates = 0
    rewatches = 0

    async def start(self, url: str, name: str, room: str) -> None:
        raise NotImplementedError

    async def stop(self) -> None:
        raise NotImplementedError


class PageWatcher(Watcher):
    """A spectator as the web page is one: bare WebSocket, msgpack, compact patches."""

    def __init__(self) -> None:
        self.ws: ClientConnection | None = None
        self.view: dict[str, Any] = {}
        self.derived: dict[str, Any] = {}
        self.room = ""
        self.ids = 0
        self.task: asyncio.Task[None] | None = None

    async def _call(self, msg: dict[str, Any]) -> dict[str, Any]:
        assert self.ws is not None
        self.ids += 1
        await self.ws.send(encode({**msg, "id": self.ids}))
        while True:
            reply = decode(await self.ws.recv(), specs=SERVER_MESSAGES, max_size=2**22)
            if reply.get("re") == self.ids:
                if reply["t"] == "error":
                    raise RuntimeError(f"{msg['t']}: {reply}")
                return reply

    def _joined(self, joined: dict[str, Any]) -> None:
        self.seq, self.view = joined["seq"], joined["view"]
        self.derived = joined.get("derived") or {}

    async def start(self, url: str, name: str, room: str) -> None:
        self.ws = await connect(url, max_size=2**22)  # offers permessage-deflate, as browsers do
        await self._call({"t": "hello", "v": 1, "compact": True, "name": name})
        self.room = room
        self._joined(await self._call({"t": "watch", "room": room}))
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.ws is not None
        while True:
            try:
                async with asyncio.timeout(QUIET_PING):
                    frame = await self.ws.recv()
            except TimeoutError:
                self.ids += 1
                await self.ws.send(encode({"t": "ping", "id": self.ids}))
                continue
            msg = decode(frame, specs=SERVER_MESSAGES, max_size=2**22)
            if msg["t"] == "joined" and msg.get("room") == self.room:
                self._joined(msg)
            if msg["t"] != "update" or msg.get("room") != self.room or msg["seq"] <= self.seq:
                continue
            try:
                if "patch" not in msg:
                    view = msg["view"]
                elif msg["seq"] == self.seq + 1:
                    view = patch.apply(self.view, msg["patch"])
                else:
                    raise patch.PatchError("a gap in seq")
                patch.expand_events(msg["events"], view, self.derived)
            except patch.PatchError:
                self.rewatches += 1  # the page watches again: the answer brings the whole view
                self.ids += 1
                await self.ws.send(encode({"t": "watch", "room": self.room, "id": self.ids}))
                continue
            self.seq, self.view = msg["seq"], view
            self.updates += 1

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        if self.ws is not None:
            await self.ws.close()


class TerminalWatcher(Watcher):
    """A spectator as the terminal client is one: Connection and RoomModel."""

    def __init__(self) -> None:
        self.conn: Connection | None = None
        self.model: RoomModel | None = None
        self.task: asyncio.Task[None] | None = None

    async def start(self, url: str, name: str, room: str) -> None:
        self.conn = Connection(url, name=name, compact=True, reconnect=False)
        await self.conn.open()
        self.model = RoomModel.from_joined(await self.conn.watch(room))
        self.seq = self.model.seq
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.conn is not None and self.model is not None
        async for msg in self.conn.pushed():
            if msg["t"] == "update" and self.model.apply(msg):
                self.seq = self.model.seq
                self.updates += 1
            elif msg["t"] != "update":
                self.model.apply(msg)
            if self.model.rejoin_due():
                self.rewatches += 1
                await self.conn.rejoin(self.model.room)

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        if self.conn is not None:
            await self.conn.close()


async def one_run(
    server: ServerProcess, kind: str, n: int, run: int, a: argparse.Namespace
) -> dict[str, Any]:
    """One room, ``n`` spectators of ``kind``: the server's CPU and the room's updates."""
    assert server.pid is not None
    host = await Raw.open(server.url, f"Host{run}")
    created = await host.call(
        {"t": "create", "game": "mathable", "seats": ["COMP:easy"] * 4}, rid=1
    )
    assert created["t"] == "created", created
    room = created["room"]
    await host.close()
    watchers: list[Watcher] = [PageWatcher() if kind != "terminal" else TerminalWatcher()]
    watchers += [PageWatcher() if kind != "terminal" else TerminalWatcher() for _ in range(n - 1)]
    for i in range(0, len(watchers), 50):  # connect in batches, as a crowd arrives
        await asyncio.gather(
            *(
                w.start(server.url, f"W{run}x{i + j}", room)
                for j, w in enumerate(watchers[i : i + 50])
            )
        )
    await asyncio.sleep(1.0)
    first = watchers[0]
    cpu0, seq0, t0 = cpu_seconds(server.pid), first.seq, time.monotonic()
    await asyncio.sleep(a.seconds)
    cpu1, seq1, t1 = cpu_seconds(server.pid), first.seq, time.monotonic()
    behind = sum(1 for w in watchers if w.seq < seq1 - 2)
    rewatches = sum(w.rewatches for w in watchers)
    await asyncio.gather(*(w.stop() for w in watchers))
    updates = seq1 - seq0
    return {
        "kind": kind,
        "spectators": n,
        "seconds": round(t1 - t0, 2),
        "updates": updates,
        "cpu_s": round(cpu1 - cpu0, 3),
        "cpu_ms_per_update": round((cpu1 - cpu0) * 1000 / updates, 3) if updates else None,
        "behind_at_end": behind,
        "rewatches": rewatches,
    }


async def run(a: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="tilehall-spectators-") as data:
        server = ServerProcess(  # logs at info: its start is read from the log
            Path(data),
            "--bot-delay",
            f"{a.bot_delay:g}",
            "--bot-think",
            f"{a.bot_think:g}",
            "--max-rooms-per-player",
            "100",
            ping_interval=20.0,  # the server's default keepalive, as deployed
        )
        server.max_log = 200  # a line per connection: keep the start only
        server.start()
        runs = []
        try:
            for r in range(a.rounds):
                for k, kind in enumerate(KINDS):
                    n = 1 if kind == "base" else a.spectators
                    runs.append(await one_run(server, kind, n, r * len(KINDS) + k, a))
                    print(json.dumps(runs[-1]), file=sys.stderr)
        finally:
            server.stop()
    per_update = {
        kind: statistics.median(
            r["cpu_ms_per_update"]
            for r in runs
            if r["kind"] == kind and r["cpu_ms_per_update"] is not None
        )
        for kind in KINDS
    }
    above = {
        kind: round((per_update[kind] - per_update["base"]) * 1000 / (a.spectators - 1), 2)
        for kind in ("page", "terminal")
    }
    return {
        "bench": "web_spectators",
        "spectators": a.spectators,
        "rounds": a.rounds,
        "seconds": a.seconds,
        "cpu_ms_per_update": {k: round(v, 3) for k, v in per_update.items()},
        "cpu_us_per_update_per_spectator_above_base": above,
        # A short run can see no CPU tick at all (/proc counts in 10 ms steps): no ratio then.
        "page_over_terminal": (
            round(per_update["page"] / per_update["terminal"], 3)
            if per_update["terminal"] > 0
            else None
        ),
        "goal_page_le_terminal": per_update["page"] <= per_update["terminal"],
        "runs": runs,
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.web_spectators", description=__doc__)
    p.add_argument("--spectators", type=int, default=200, help="per run (default 200)")
    p.add_argument("--rounds", type=int, default=3, help="runs of each kind (default 3)")
    p.add_argument("--seconds", type=float, default=20.0, help="measured per run (default 20)")
    p.add_argument(
        "--bot-delay",
        type=float,
        default=0.3,
        help="the server's pause before a COMP move (default 0.3, the server's own: at 0.1 the "
        "200 terminal clients, in one Python process, fall seconds behind on a busy machine)",
    )
    p.add_argument(
        "--bot-think", type=float, default=0.05, help="the server's COMP thinking budget"
    )
    a = p.parse_args(argv)
    if a.spectators < 2:
        p.error("--spectators must be at least 2 (the base run has one)")
    return a


def main(argv: list[str] | None = None) -> None:
    report = asyncio.run(run(parse_args(argv)))
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
