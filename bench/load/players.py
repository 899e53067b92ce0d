"""The harness's clients: requests by id over a :class:`~bench.load.wire.Wire`, bots playing.

Not :class:`tilehall.clients.connection.Connection`: the harness must cost far
less per frame than the server it measures (see :mod:`bench.load.wire`), and
its latencies are made of each frame's arrival time, taken as it is read.
Frames are built and read with the protocol's codec, but replies are not
validated against the schema: that costs ten times the unpacking, on every
update of every room, in the process that times them.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from dataclasses import dataclass, field
from typing import Any

from tilehall.protocol import VERSION, encode, patch, unpack
from tilehall.server.bots import bot_levels
from tilehall.server.bots.base import Bot

from bench.load.config import LoadConfig
from bench.load.measure import MAX_FRAME, Reservoir
from bench.load.wire import Wire, open_wire

__all__ = ["Client", "Player", "Stats", "cheapest_level"]


@dataclass(slots=True)
class Stats:
    """Counters shared by one phase's clients."""

    moves: int = 0
    games: int = 0
    act_bytes: int = 0
    update_bytes: int = 0
    updates: int = 0
    update_sizes: dict[int, int] = field(default_factory=dict)
    """How many updates came in each frame size: the median is the goal's figure."""
    think: float = 0.0
    errors: dict[str, int] = field(default_factory=dict)
    latency: Reservoir = field(default_factory=Reservoir)
    bytes_out: int = 0

    def error(self, code: str) -> None:
        self.errors[code] = self.errors.get(code, 0) + 1

    def sent_bytes(self, n: int) -> None:
        self.bytes_out += n

    def took_update(self, n: int) -> None:
        """One update of ``n`` bytes arrived."""
        self.updates += 1
        self.update_bytes += n
        self.update_sizes[n] = self.update_sizes.get(n, 0) + 1

    def median_update_bytes(self) -> int:
        """The median size of the updates taken (0 before any)."""
        half, seen = self.updates // 2, 0
        for size in sorted(self.update_sizes):
            seen += self.update_sizes[size]
            if seen > half:
                return size
        return 0


Reply = tuple[dict[str, Any], float]
"""A reply and ``time.monotonic()`` at its arrival."""


class Client:
    """One connection: requests by id, their replies resolve futures with their arrival time."""

    def __init__(self, stats: Stats) -> None:
        self.wire: Wire | None = None
        self.stats = stats
        self.ids = itertools.count(1)
        self.waiting: dict[int, asyncio.Future[Reply]] = {}
        self.player: str | None = None
        self.token: str | None = None
        self.last_sent = 0

    async def open(self, host: str, port: int) -> None:
        self.wire = await open_wire(host, port, self.on_frame)

    def on_frame(self, payload: bytes, now: float) -> None:
        msg = unpack(payload, max_size=MAX_FRAME)
        msg["_bytes"] = len(payload)
        re_ = msg.get("re")
        fut = self.waiting.pop(re_, None) if re_ is not None else None
        if msg.get("t") == "error":
            self.stats.error(msg.get("code", "?"))
        if fut is not None and not fut.done():
            fut.set_result((msg, now))

    def send(self, msg: dict[str, Any]) -> tuple[int, float]:
        """Send ``msg`` with a fresh id; returns the id and when it left."""
        assert self.wire is not None
        rid = next(self.ids)
        data = encode({**msg, "id": rid})
        self.stats.sent_bytes(len(data))
        self.last_sent = len(data)
        t0 = time.monotonic()
        self.wire.send(data)
        return rid, t0

    def expect(self, rid: int) -> asyncio.Future[Reply]:
        """The future of the reply to request ``rid``."""
        fut: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self.waiting[rid] = fut
        return fut

    async def request(self, msg: dict[str, Any], timeout: float = 60.0) -> Reply:
        rid, _ = self.send(msg)
        try:
            async with asyncio.timeout(timeout):
                return await self.expect(rid)
        finally:
            self.waiting.pop(rid, None)

    async def hello(
        self, name: str | None = None, token: str | None = None, *, compact: bool = False
    ) -> None:
        msg: dict[str, Any] = {"t": "hello", "v": VERSION}
        msg.update({"token": token} if token else {"name": name})
        if compact:
            msg["compact"] = True
        reply, _ = await self.request(msg)
        if reply["t"] != "welcome":
            raise RuntimeError(f"hello refused: {reply}")
        self.player, self.token = reply["player"], reply["token"]

    def close(self) -> None:
        if self.wire is not None:
            self.wire.close()


def cheapest_level(game: str) -> str:
    levels = bot_levels(game)
    for level in ("easy", "greedy", "normal"):
        if level in levels:
            return level
    return next(iter(levels))


class Player:
    """One connection playing rooms of a solo game with a bot, one after another."""

    def __init__(self, client: Client, cfg: LoadConfig, bot: Bot, stats: Stats) -> None:
        self.c = client
        self.cfg = cfg
        self.bot = bot
        self.stats = stats
        self.room: str | None = None
        self.view: dict[str, Any] = {}
        self.seq = 0
        self.sent_at: dict[int, float] = {}
        """When the act that made each seq was sent (for spectator lag)."""

    async def new_room(self) -> str:
        msg: dict[str, Any] = {"t": "create", "game": self.cfg.game}
        if self.cfg.options:
            msg["options"] = self.cfg.options
        created, _ = await self.c.request(msg)
        if created["t"] != "created":
            raise RuntimeError(f"create refused: {created}")
        joined, _ = await self.c.request({"t": "join", "room": created["room"]})
        if joined["t"] != "joined":
            raise RuntimeError(f"join refused: {joined}")
        self.room, self.view, self.seq = created["room"], joined["view"], joined["seq"]
        return self.room

    def my_turn(self) -> bool:
        v = self.view
        return v.get("status") == "playing" and v.get("to_move") == v.get("seat")

    async def move(self) -> bool:
        """Think, act, wait for the update; False when the game is over (or stuck)."""
        if not self.my_turn():
            return False
        t = time.monotonic()
        action = self.bot.choose(self.view)
        self.stats.think += time.monotonic() - t
        if action is None:
            return False
        rid, t0 = self.c.send({"t": "act", "room": self.room, "action": action})
        self.stats.act_bytes += self.c.last_sent
        fut = self.c.expect(rid)
        self.sent_at[self.seq + 1] = t0
        async with asyncio.timeout(30.0):
            reply, t1 = await fut
        if reply["t"] != "update":
            return False  # an error, counted by the client
        self.stats.latency.add(t1 - t0)
        self.stats.moves += 1
        if "patch" in reply:  # compact: what changed since the view we hold
            self.view = patch.apply(self.view, reply["patch"], in_place=True)
        else:
            self.view = reply["view"]
        self.seq = reply["seq"]
        self.stats.took_update(reply["_bytes"])
        return True
