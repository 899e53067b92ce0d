"""The fault bench of issue 14: players play across a cluster while its parts really fail.

A private PostgreSQL and a private Mosquitto (``tests.services``) and two (or
more) ``tilehall-server`` nodes run as real processes. Tables of players play
real games over real WebSockets: Mathable rooms whose two seats are held by
players connected to different nodes (so one of them is always relayed) and
watched by a spectator, and solo Ishido rooms. Every acknowledged move (an
``act`` answered by its ``update``) and every view a member was shown is
recorded. Meanwhile the bench breaks, several times each (``--rounds``):

``kill9``         SIGKILL of the node hosting most rooms, restarted once its rooms moved;
``broker-term``   the broker stopped with SIGTERM (it publishes every Will) for 5-30 s;
``broker-kill``   the broker killed with SIGKILL for 5-30 s;
``pg-stop``       PostgreSQL stopped (``pg_ctl stop -m fast``) for 5-30 s;
``pg-terminate``  a node's backend caught inside a journal write terminated
                  (``pg_terminate_backend``), then every node backend, in a few bursts;
``disk-full``     on a single SQLite node whose data directory is a small tmpfs: the
                  filesystem filled for 5-30 s, then freed.

After each fault it waits for every table to play again, then checks, reading
the journal from the store with the server's own store classes:

- every acknowledged move is in the journal, at its seq, with its seat and action;
- each room's journal, replayed by the pure engine, gives every view its members
  were shown at that seq (a view shown but not journaled, or different, is a fork);
- how long after the fault ended each table's next move was acknowledged;
- no room is hosted (live, not suspended) by two nodes at once (each node's
  ``/admin/rooms`` polled twice a second), and which rooms changed node in the store;
- after ``kill9``: how long until the store names a live node for each of the
  dead node's rooms (the takeover);
- members left behind (an update not delivered 5 s after the fault ended), refusals
  by code, ``room`` pushes saying a room is suspended, and the nodes' ERROR lines.

Prints one line per fault, the goals of issue 14 checked against them, and
optionally writes everything as JSON. The exit status is 1 when a goal is missed::

    python -m bench.chaos                       # every fault, 5 rounds, 5-30 s outages
    python -m bench.chaos --faults kill9,pg-stop --rounds 3 --json out.json
    python -m bench.chaos --quick --faults broker-kill,pg-terminate   # a smoke test

Needs the ``mosquitto`` binary, PostgreSQL's server programs (``initdb``,
``pg_ctl``) and, for ``disk-full``, the right to mount a tmpfs (root).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import itertools
import json
import math
import random
import signal
import statistics
import sys
import tempfile
import time
import urllib.request
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tilehall.protocol import SERVER_MESSAGES, check, decode, encode
from tilehall.server.bots import find_bot
from tilehall.server.bots.base import Bot
from tilehall.server.games import find_game
from tilehall.server.games.base import Game, step
from tilehall.server.ops.keys import read_admin_key
from tilehall.server.store.base import Store
from tilehall.server.store.errors import StoreUnavailable
from tilehall.server.store.records import JournalEntry, RoomRecord
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from tests.helpers import ServerProcess
from tests.services import Mosquitto, PrivatePostgres, SmallDisk, free_port

__all__ = [
    "CLUSTER_FAULTS",
    "FAULTS",
    "GOALS",
    "Ack",
    "Ledger",
    "Settings",
    "SoloBench",
    "Verdict",
    "main",
    "parse_args",
    "run",
    "verify",
]

CLUSTER_FAULTS = ("kill9", "broker-term", "broker-kill", "pg-stop", "pg-terminate")
FAULTS = (*CLUSTER_FAULTS, "disk-full")
BENCH_APP = "chaos-bench"
"""The ``application_name`` of the bench's own PostgreSQL connections: never terminated."""
GOALS = {
    "lost": 0,
    "rooms_forked": 0,
    "rooms_lost": 0,
    "playable_max_s": 5.0,
    "takeover_max_s": 3.0,
    "rooms_moved_wrongly": 0,
}
"""Issue 14's "done when": the most each figure may be, over every round of a fault."""
STALL_S = 5.0
"""A member still behind an update this long (counted from the fault's end at the earliest)
has stalled: it is asked to join again, and the stall is reported."""
GIVE_UP_S = 30.0
"""A member not shown an update this long after the bench began to wait (counted from the
fault's end at the earliest, as a stall) is reported as never caught up, and the bench goes
on."""
UNKNOWN_TRIES = 15
"""``unknown_room`` answers (0.2 s apart) before a room a player is in counts as gone."""


# -- settings ----------------------------------------------------------------------------------


@dataclass(slots=True)
class Settings:
    """What a run does; every duration configurable (``--quick`` shrinks them all)."""

    faults: tuple[str, ...] = FAULTS
    rounds: int = 5
    min_outage: float = 5.0
    max_outage: float = 30.0
    nodes: int = 2
    mathable: int = 6
    """Mathable tables: two seats on two different nodes, and a spectator."""
    ishido: int = 4
    """Ishido tables: one player."""
    think: float = 0.1
    """Seconds a player waits before each act (keeps the two cores for the servers)."""
    settle: float = 3.0
    """Seconds of undisturbed play before each fault."""
    playable_timeout: float = 30.0
    """Seconds after a fault ends before a table that has not played again counts as lost."""
    lease: float = 2.0
    """The nodes' ``--lease`` (their default)."""
    terminate_bursts: int = 3
    """``pg-terminate``: how many times, 0.4 s apart, every node backend is terminated."""
    disk_kib: int = 32768
    """``disk-full``: the size of the tmpfs under the SQLite node's data directory."""
    seed: int = 14
    quick: bool = False
    keep: str = ""
    """A folder to run in and leave behind (the nodes' logs, the SQLite file); '': a temporary."""

    def outages(self, rng: random.Random) -> list[float]:
        """One outage per round, spread evenly from the shortest to the longest, in random order."""
        if self.rounds == 1:
            return [round(rng.uniform(self.min_outage, self.max_outage), 1)]
        span = self.max_outage - self.min_outage
        out = [round(self.min_outage + span * i / (self.rounds - 1), 1) for i in range(self.rounds)]
        rng.shuffle(out)
        return out


# -- what the players saw ----------------------------------------------------------------------


def _normal(value: Any) -> str:
    """A canonical text of a view or an action: key order and tuple/list do not matter."""
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if k != "now"}  # a clock's reading, not state
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=list)


def _digest(value: Any) -> bytes:
    return hashlib.blake2b(_normal(value).encode(), digest_size=16).digest()


@dataclass(frozen=True, slots=True)
class Ack:
    """A move the server acknowledged: an ``act`` answered by its ``update``."""

    room: str
    seq: int
    seat: int | None
    action: dict[str, Any]
    at: float
    """``time.monotonic()`` when the update arrived."""
    relayed: bool
    """The player's node was not the room's host (as last sampled from the store)."""


@dataclass(slots=True)
class Seen:
    """A view a member was shown: in a ``joined`` or an ``update``."""

    seat: int | None
    seq: int
    view: dict[str, Any]
    who: str
    how: str
    """The frame (``joined``, ``update``, ``update re`` for an act's answer) and the node."""


@dataclass(slots=True)
class Ledger:
    """Everything the players were told, for the checks, and counters (rounds take differences)."""

    acks: list[Ack] = field(default_factory=list)
    seen: dict[str, list[Seen]] = field(default_factory=lambda: defaultdict(list))
    """Views not yet checked against the journal, by room."""
    refusals: Counter[str] = field(default_factory=Counter)
    suspensions: int = 0
    """``room`` pushes saying ``suspended: true``."""
    reconnects: int = 0
    unanswered: int = 0
    """Requests whose connection closed, or that got no answer in time."""
    stalls: list[str] = field(default_factory=list)
    unknown_rooms: set[str] = field(default_factory=set)
    hosts: dict[str, str] = field(default_factory=dict)
    """The latest host of each room, as the sampler reads it from the store."""

    def saw(self, room: str, seq: int, view: dict[str, Any], who: str, how: str) -> None:
        if seq > 0:  # seq 0: a room waiting for players, before its journal starts
            self.seen[room].append(Seen(view.get("seat"), seq, view, who, how))


# -- a player's connection ---------------------------------------------------------------------


class Conn:
    """One WebSocket connection: requests by id; every frame handed to its player as it comes."""

    def __init__(self, ws: ClientConnection, node: str, player: Player) -> None:
        self.ws = ws
        self.node = node
        self.player = player
        self.ids = itertools.count(1)
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.closed = False
        self.reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, url: str, node: str, player: Player) -> Conn:
        async with asyncio.timeout(4):
            ws = await connect(url, max_size=2**22, open_timeout=3)
        return cls(ws, node, player)

    async def _read(self) -> None:
        try:
            async for data in self.ws:
                msg = decode(data, specs=SERVER_MESSAGES, max_size=2**22)
                check(msg)
                self.player.on_frame(msg, self.node)
                fut = self.waiting.pop(msg.get("re", -1), None)
                if fut is not None and not fut.done():
                    fut.set_result(msg)
        except ConnectionClosed:
            pass
        except Exception as exc:  # a frame the protocol's schema refuses: the server's fault
            self.player.ledger.refusals[f"bad frame: {exc!r:.60}"] += 1
            await self.ws.close()
        finally:
            self.closed = True
            for fut in self.waiting.values():
                if not fut.done():
                    fut.set_exception(ConnectionError("the connection closed"))
            self.waiting.clear()
            self.player.poke()

    async def call(self, msg: dict[str, Any], timeout: float = 12.0) -> dict[str, Any]:
        """Send a request; its reply. ConnectionError: closed first; TimeoutError: no answer."""
        if self.closed:
            raise ConnectionError("the connection is closed")
        rid = next(self.ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[rid] = fut
        try:
            await self.ws.send(encode({**msg, "id": rid}))
            async with asyncio.timeout(timeout):
                return await fut
        except ConnectionClosed as exc:
            raise ConnectionError("the connection closed") from exc
        finally:
            self.waiting.pop(rid, None)
            if not fut.done():
                fut.cancel()

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            async with asyncio.timeout(2):
                await self.ws.close()
        self.reader.cancel()


class Player:
    """A person at a table: a name, a token, a home node, and the rooms they are in.

    Connections come and go (a node dies, the bench sends them home); the
    player keeps the last seq and view of each room, so that every new
    connection resumes with ``join {room, seq}`` as a real client does.
    """

    def __init__(self, name: str, home: str, bench: Bench) -> None:
        self.name = name
        self.home = home
        self.bench = bench
        self.ledger = bench.ledger
        self.token: str | None = None
        self.conn: Conn | None = None
        self.rooms: dict[str, bool] = {}
        """Rooms to be in: True to hold a seat (join), False to watch."""
        self.latest: dict[str, tuple[int, dict[str, Any]]] = {}
        self._changed = asyncio.Event()
        self._connecting: asyncio.Lock = asyncio.Lock()

    # frames
    def on_frame(self, msg: dict[str, Any], node: str) -> None:
        kind = msg["t"]
        if kind in ("update", "joined"):
            room, seq, view = msg["room"], msg["seq"], msg["view"]
            how = f"{kind}{' re' if 're' in msg else ''} via {node}"
            self.ledger.saw(room, seq, view, self.name, how)
            if seq >= self.latest.get(room, (-1, {}))[0]:
                self.latest[room] = (seq, view)
        elif kind == "room" and msg.get("suspended") is True:
            self.ledger.suspensions += 1
        elif kind == "error" and msg["code"] == "room_closed":
            self.ledger.refusals["room_closed"] += 1
        self.poke()

    def poke(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def seq(self, room: str) -> int:
        return self.latest.get(room, (0, {}))[0]

    def view(self, room: str) -> dict[str, Any]:
        return self.latest.get(room, (0, {}))[1]

    async def wait_seq(self, room: str, seq: int, timeout: float) -> bool:
        """Wait until this player was shown ``seq`` of ``room`` (False: not in time, or cut off)."""
        deadline = time.monotonic() + timeout
        while self.seq(room) < seq:
            left = deadline - time.monotonic()
            if left <= 0 or self.conn is None or self.conn.closed:
                return False
            changed = self._changed
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(left):
                    await changed.wait()
        return True

    # connections
    async def connection(self) -> Conn:
        """A connection with every room joined: the current one, or a new one."""
        async with self._connecting:
            if self.conn is not None and not self.conn.closed:
                return self.conn
            if self.conn is not None:
                self.ledger.reconnects += 1
            self.conn = await self._connect()
            return self.conn

    async def move_home(self) -> None:
        """Back to the home node (after it was restarted): closes and reconnects."""
        async with self._connecting:
            if self.conn is None or self.conn.node == self.home or not self.bench.up(self.home):
                return
            await self.conn.close()
            self.conn = await self._connect()

    async def _connect(self) -> Conn:
        pause = 0.05
        while True:
            for node in self.bench.order(self.home):
                with contextlib.suppress(OSError, TimeoutError, InvalidHandshake, ConnectionError):
                    conn = await Conn.open(self.bench.url(node), node, self)
                    if await self._enter(conn):
                        return conn
                    await conn.close()
            await asyncio.sleep(pause)
            pause = min(1.0, pause * 2)

    async def _enter(self, conn: Conn) -> bool:
        """hello, then join or watch every room with its last seq; False: try elsewhere."""
        hello: dict[str, Any] = {"t": "hello", "v": 1}
        hello.update({"token": self.token} if self.token else {"name": self.name})
        welcome = await self._request(conn, hello)
        if welcome is None:
            return False
        self.token = welcome["token"]
        for room, seated in list(self.rooms.items()):
            if await self._request(conn, self.join_msg(room, seated)) is None:
                return False
        return True

    def join_msg(self, room: str, seated: bool) -> dict[str, Any]:
        msg: dict[str, Any] = {"t": "join" if seated else "watch", "room": room}
        if room in self.latest:
            msg["seq"] = self.seq(room)
        return msg

    async def _request(self, conn: Conn, msg: dict[str, Any]) -> dict[str, Any] | None:
        """A request that may have to wait out ``unavailable``; None when this connection fails."""
        deadline = time.monotonic() + 60
        unknown = 0
        while time.monotonic() < deadline:
            try:
                reply = await conn.call(msg)
            except (ConnectionError, TimeoutError):
                self.ledger.unanswered += 1
                return None
            if reply["t"] != "error":
                return reply
            code = reply["code"]
            self.ledger.refusals[f"{msg['t']}:{code}"] += 1
            if code == "unknown_room":
                unknown += 1
                if unknown > UNKNOWN_TRIES:  # not a moment's confusion: the room is gone
                    self.ledger.unknown_rooms.add(msg.get("room", "?"))
                    self.rooms.pop(msg.get("room", ""), None)  # the table moves on
                    return reply
            await asyncio.sleep(reply.get("retry_after") or 0.2)
        return None

    async def request(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send on whatever connection works, reconnecting as needed, until answered."""
        while True:
            conn = await self.connection()
            reply = await self._request(conn, msg)
            if reply is not None:
                return reply
            await conn.close()

    async def rejoin(self, room: str) -> None:
        """Ask for the room's view again (after a stall or a surprising refusal)."""
        if room in self.rooms:
            await self.request(self.join_msg(room, self.rooms[room]))

    async def close(self) -> None:
        if self.conn is not None:
            await self.conn.close()


# -- tables: players playing one room after another --------------------------------------------


class Table:
    """One game after another for a few players; the bench measures when it plays again."""

    game = ""

    def __init__(self, index: int, players: list[Player], bench: Bench) -> None:
        self.index = index
        self.players = players
        self.bench = bench
        self.ledger = bench.ledger
        self.rng = random.Random(bench.settings.seed * 1000 + index)
        self.room: str | None = None
        self.acks: list[float] = []
        """When each of this table's moves was acknowledged."""
        self.games = 0
        self.task: asyncio.Task[None] | None = None
        self.stopping = False

    def start(self) -> None:
        self.stopping = False
        self.task = asyncio.create_task(self._loop(), name=f"table-{self.index}")

    async def stop(self) -> None:
        """Stop the table's loop, however many cancellations that takes.

        A cancellation was seen lost (the task "cancelling", its loop playing on,
        the await of it never returning: 4 bench test runs in 25); Python 3.11's
        ``asyncio.wait_for``, which the connections' calls use, swallows one that
        comes as the future it waits for completes (fixed in 3.12). The flag ends
        the loop at its next turn whatever became of the cancellation.
        """
        task = self.task
        if task is None:
            return
        self.stopping = True
        while not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=0.5)
        with contextlib.suppress(BaseException):
            task.result()

    @property
    def members(self) -> list[Player]:
        return self.players

    async def _loop(self) -> None:
        while not self.stopping:
            try:
                if self.room is None:
                    await self.new_room()
                    continue
                await self.turn(self.room)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a defect of the bench: say it, and carry on
                print(f"table {self.index}: {exc!r}", file=sys.stderr)
                await asyncio.sleep(0.5)

    async def new_room(self) -> None:
        raise NotImplementedError

    async def turn(self, room: str) -> None:
        raise NotImplementedError

    def forget(self, room: str) -> None:
        for p in self.members:
            p.rooms.pop(room, None)
            p.latest.pop(room, None)
        self.room = None

    async def create(self, msg: dict[str, Any]) -> str:
        creator = self.players[0]
        while True:
            reply = await creator.request(msg)
            if reply["t"] == "created":
                return str(reply["room"])
            await asyncio.sleep(0.2)

    async def enter(self, room: str, who: Player, seated: bool) -> None:
        who.rooms[room] = seated
        while True:
            reply = await who.request(who.join_msg(room, seated))
            if reply["t"] == "joined":
                return
            if room not in who.rooms:  # unknown_room: the creation did not take
                raise LookupError(room)
            await asyncio.sleep(0.2)

    async def act(self, who: Player, room: str, action: dict[str, Any], seq: int) -> bool:
        """One move; True when acknowledged. Refusals are counted and waited out."""
        await asyncio.sleep(self.bench.settings.think)
        conn = await who.connection()
        msg = {"t": "act", "room": room, "action": action, "seq": seq}
        try:
            reply = await conn.call(msg)
        except (ConnectionError, TimeoutError):
            self.ledger.unanswered += 1
            await conn.close()
            return False
        if reply["t"] == "update":
            now = time.monotonic()
            self.acks.append(now)
            relayed = self.ledger.hosts.get(room, conn.node) != conn.node
            self.ledger.acks.append(
                Ack(room, reply["seq"], reply["view"].get("seat"), action, now, relayed)
            )
            return True
        code = reply["code"]
        self.ledger.refusals[code] += 1
        if code in ("unavailable", "rate_limited"):
            await asyncio.sleep(reply.get("retry_after") or 0.5)
        elif code == "stale":
            if not await who.wait_seq(room, seq + 1, 1.0):
                await who.rejoin(room)
        elif code == "unknown_room":
            await who.rejoin(room)
        else:  # not_in_room, not_your_turn...: the view was wrong; ask for it again
            await asyncio.sleep(0.2)
            await who.rejoin(room)
        return False

    async def caught_up(self, who: Player, room: str, seq: int) -> None:
        """Make sure ``who`` was shown ``seq``: wait, reconnect if cut off, rejoin if stalled.

        A stall is counted from the end of the fault at the earliest: while the
        broker is down, say, a relayed member cannot be told anything.
        """
        started = first = time.monotonic()
        while who.seq(room) < seq:
            if room not in who.rooms:
                return  # gone (unknown_room): counted as such where it was refused
            if time.monotonic() - max(first, self.bench.calm_since) > GIVE_UP_S:
                # Never caught up: a defect to report, not a reason for the bench to hang.
                self.ledger.stalls.append(f"{who.name} in {room} never shown seq {seq}")
                return
            await who.connection()
            if await who.wait_seq(room, seq, 1.0):
                return
            if time.monotonic() - max(started, self.bench.calm_since) >= STALL_S:
                self.ledger.stalls.append(f"{who.name} in {room} behind seq {seq}")
                await who.rejoin(room)
                started = time.monotonic()


class MathableTable(Table):
    """Two seats on two different nodes (one always relayed), and a spectator."""

    game = "mathable"

    def __init__(self, index: int, players: list[Player], bench: Bench) -> None:
        super().__init__(index, players[:2], bench)
        self.watcher = players[2]
        self.bots: list[Bot] = [
            find_bot("mathable", "easy")(rng=random.Random(self.rng.random()), budget=0.05)
            for _ in range(2)
        ]

    @property
    def members(self) -> list[Player]:
        return [*self.players, self.watcher]

    async def new_room(self) -> None:
        names = [p.name for p in self.players]
        msg = {"t": "create", "game": "mathable", "options": {"racks": "hidden"}, "seats": names}
        room = await self.create(msg)
        try:
            for p in self.players:
                await self.enter(room, p, True)
            await self.enter(room, self.watcher, False)
        except LookupError:
            self.forget(room)
            return
        self.room = room
        self.games += 1

    async def turn(self, room: str) -> None:
        if not all(room in p.rooms for p in self.players):  # unknown_room: it is gone
            self.forget(room)
            return
        for p in self.players:
            await p.connection()
        seq, view = max((p.latest.get(room, (0, {})) for p in self.players), key=lambda s: s[0])
        if view.get("status") == "over":
            self.forget(room)
            return
        if seq == 0 or view.get("status") != "playing":
            await asyncio.sleep(0.1)
            return
        mover = self.players[view["to_move"]]
        await self.caught_up(mover, room, seq)
        mine = mover.view(room)
        if mine.get("status") != "playing" or mine.get("to_move") != mine.get("seat"):
            await asyncio.sleep(0.05)  # a stand-in's move, say: the next update tells
            return
        action = self.bots[mine["seat"]].choose(mine) or {"do": "end"}
        await self.act(mover, room, action, mover.seq(room))


class IshidoTable(Table):
    """One player placing stones."""

    game = "ishido"

    async def new_room(self) -> None:
        room = await self.create({"t": "create", "game": "ishido"})
        try:
            await self.enter(room, self.players[0], True)
        except LookupError:
            self.forget(room)
            return
        self.room = room
        self.games += 1

    async def turn(self, room: str) -> None:
        who = self.players[0]
        if room not in who.rooms:  # unknown_room: it is gone
            self.forget(room)
            return
        await who.connection()
        view = who.view(room)
        if view.get("status") == "over":
            self.forget(room)
            return
        if view.get("status") != "playing" or not view.get("legal"):
            await asyncio.sleep(0.1)
            return
        action = {"do": "place", "at": self.rng.choice(view["legal"])}
        await self.act(who, room, action, who.seq(room))


# -- the checks --------------------------------------------------------------------------------


@dataclass(slots=True)
class Verdict:
    """What the journal says of what the players were told."""

    acks: int = 0
    """Acknowledged moves checked (all so far)."""
    lost: list[str] = field(default_factory=list)
    """Acknowledged moves missing from the journal, or journaled differently."""
    views: int = 0
    """Views checked against the replayed journal."""
    forked: dict[str, str] = field(default_factory=dict)
    """Rooms whose journal does not replay to a view a member was shown: why."""
    entries: int = 0
    """Journal entries read."""


async def _read_room(store: Store, room: str) -> tuple[RoomRecord | None, list[JournalEntry]]:
    """A room's record and journal; waits out a store that does not answer."""
    for _ in range(120):
        try:
            return await store.room(room), await store.journal(room)
        except StoreUnavailable:
            await asyncio.sleep(0.5)
    raise RuntimeError(f"the store did not answer for room {room}")


async def verify(store: Store, acks: Sequence[Ack], seen: dict[str, list[Seen]]) -> Verdict:
    """Check acknowledged moves and shown views against the journal as the store holds it.

    Every ack is looked up at its seq (same seat, same action). Every room with
    views to check is replayed from its ``_start`` with :func:`step`, as
    recovery does, and the view of each seat shown at each seq compared with the
    engine's view of that seat then. A view of a seq the journal does not have
    is a fork too: the room showed a move it never saved.
    """
    out = Verdict(acks=len(acks))
    rooms = {a.room for a in acks} | set(seen)
    journals: dict[str, tuple[RoomRecord | None, list[JournalEntry]]] = {}
    for room in sorted(rooms):
        journals[room] = await _read_room(store, room)
        out.entries += len(journals[room][1])
    by_seq = {room: {e.seq: e for e in entries} for room, (_, entries) in journals.items()}
    for a in acks:
        entry = by_seq[a.room].get(a.seq)
        if entry is None:
            out.lost.append(f"{a.room}#{a.seq}: not in the journal")
        elif entry.seat != a.seat or _normal(entry.action) != _normal(a.action):
            out.lost.append(f"{a.room}#{a.seq}: journaled as {entry.seat} {entry.action}")
    for room, views in seen.items():
        record, entries = journals[room]
        out.views += len(views)
        if record is None:
            out.forked[room] = "no such room in the store"
            continue
        why = _replay_check(record, entries, views)
        if why:
            out.forked[room] = why
    return out


def _replay_check(record: RoomRecord, entries: list[JournalEntry], views: list[Seen]) -> str:
    """Why the journal does not give ``views`` ('' if it does)."""
    wanted: dict[int, list[Seen]] = defaultdict(list)
    for v in views:
        wanted[v.seq].append(v)
    last = entries[-1].seq if entries else 0
    engine: Game | None = None
    seats: list[int | None] = [None, *range(len(record.seats))]
    states: list[tuple[int, dict[int | None, bytes]]] = []
    """(seq, the view digest of each seat) after each entry: to tell what a wrong view was."""
    wrong: list[tuple[Seen, list[str]]] = []
    for entry in entries:
        try:
            engine, _ = step(find_game(record.game), record, engine, entry)
        except Exception as exc:
            return f"entry {entry.seq} does not replay: {exc!r}"
        states.append((entry.seq, {s: _digest(engine.view(s)) for s in seats}))
        for v in wanted.pop(entry.seq, []):
            mine = engine.view(v.seat)
            if _digest(mine) != _digest(v.view):
                keys = [k for k in sorted(set(mine) | set(v.view)) if mine.get(k) != v.view.get(k)]
                wrong.append((v, keys))
    notes = [
        f"seq {v.seq} seat {v.seat} ({v.who}, {v.how}) differs in {keys}; the journal gives "
        f"that view at seqs {[q for q, d in states if d.get(v.seat) == _digest(v.view)] or 'none'}"
        for v, keys in wrong
    ]
    ahead = sorted({v.seq for vs in wanted.values() for v in vs})
    if ahead:
        notes.append(f"views of seqs {ahead} were shown; the journal ends at {last}")
    return f"{len(notes)} problems: " + " | ".join(notes[:3]) if notes else ""


# -- the processes -----------------------------------------------------------------------------


class Bench:
    """The servers, the players and the samplers of one phase (the cluster, or the SQLite node)."""

    def __init__(self, settings: Settings, work: Path) -> None:
        self.settings = settings
        self.work = work
        self.ledger = Ledger()
        self.nodes: dict[str, ServerProcess] = {}
        self.ports: dict[str, int] = {}
        self.tables: list[Table] = []
        self.players: list[Player] = []
        self.store: Store | None = None
        self.log_errors: Counter[str] = Counter()
        self.calm_since = 0.0
        """When the last fault ended (infinite while one lasts)."""

    # nodes
    def node_args(self, name: str) -> list[str]:
        raise NotImplementedError

    def data_dir(self, name: str) -> Path:
        return self.work / name

    async def start_node(self, name: str) -> None:
        port = self.ports.setdefault(name, free_port())
        data = self.data_dir(name)
        data.mkdir(exist_ok=True)
        proc = ServerProcess(
            data,
            "--port",
            str(port),
            "--admin-port",  # a free one: the default, the game port + 1, may be taken
            str(free_port()),
            "--max-rooms-per-player",
            "0",
            *self.node_args(name),
        )
        old = self.nodes.get(name)
        if old is not None:
            self._count_errors(old)
        self.nodes[name] = proc
        await asyncio.to_thread(proc.start, 60.0)

    def _count_errors(self, proc: ServerProcess) -> None:
        """Count the ERROR lines of a node's log, and keep the log in ``NAME.log``."""
        lines, proc.log[:] = list(proc.log), []
        name = next((n for n, p in self.nodes.items() if p is proc), "node")
        with (self.work / f"{name}.log").open("a") as f:
            f.writelines(lines)
        for line in lines:
            if " ERROR " in line:
                self.log_errors[line.split(" ERROR ", 1)[-1].strip()[:100]] += 1

    def up(self, name: str) -> bool:
        proc = self.nodes.get(name)
        return proc is not None and proc.proc is not None and proc.proc.poll() is None

    def url(self, name: str) -> str:
        return f"ws://127.0.0.1:{self.ports[name]}"

    def order(self, home: str) -> list[str]:
        """Where a player tries to connect: home first, then the others."""
        return [home, *(n for n in self.nodes if n != home)]

    def stop_nodes(self) -> None:
        for proc in self.nodes.values():
            proc.stop()
            self._count_errors(proc)

    # players
    def seat_players(self) -> None:
        names = list(self.nodes)
        s = self.settings
        for i in range(s.mathable):
            homes = [names[i % len(names)], names[(i + 1) % len(names)], names[i % len(names)]]
            people = [Player(f"m{i}{tag}", h, self) for tag, h in zip("abw", homes, strict=True)]
            self.players += people
            self.tables.append(MathableTable(i, people, self))
        for i in range(s.ishido):
            who = Player(f"i{i}", names[i % len(names)], self)
            self.players.append(who)
            self.tables.append(IshidoTable(s.mathable + i, [who], self))
        for t in self.tables:
            t.start()

    async def stop_players(self) -> None:
        for t in self.tables:
            await t.stop()
        await asyncio.gather(*(p.close() for p in self.players), return_exceptions=True)

    async def go_home(self) -> None:
        await asyncio.gather(*(p.move_home() for p in self.players))

    # measurements
    async def playing(self, wait: float = 5.0) -> list[Table]:
        """The tables in a game when the fault comes: each is measured after it.

        A table between two games (its last over, the next not yet created) has no
        room to measure, so the fault waits for every table to be in one, up to
        ``wait`` seconds: a round that caught a table between games measured one
        table fewer than it has (seen once in CI: 2 of the quick run's 3).
        """
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and any(t.room is None for t in self.tables):
            await asyncio.sleep(0.05)
        return [t for t in self.tables if t.room is not None]

    async def until_playable(self, since: float, tables: Iterable[Table]) -> list[float | None]:
        """Seconds from ``since`` to each table's first acknowledged move at or after it."""
        pending = list(tables)
        deadline = since + self.settings.playable_timeout
        while time.monotonic() < deadline and any(not _after(t.acks, since) for t in pending):
            await asyncio.sleep(0.05)
        return [
            (first - since) if (first := _after(t.acks, since)) is not None else None
            for t in pending
        ]

    async def spectators_caught_up(self) -> None:
        """Each watcher must get every update its table's players got (else: a stall)."""
        for t in self.tables:
            if isinstance(t, MathableTable) and t.room is not None:
                room = t.room
                seq = max(p.seq(room) for p in t.players)
                if t.watcher.seq(room) < seq and room in t.watcher.rooms:
                    await t.caught_up(t.watcher, room, seq)

    async def check(self) -> Verdict:
        assert self.store is not None
        seen, self.ledger.seen = self.ledger.seen, defaultdict(list)
        return await verify(self.store, list(self.ledger.acks), seen)

    async def admin_rooms(self, name: str) -> set[str]:
        """The unfinished rooms ``name`` runs itself now (live, not suspended)."""
        proc = self.nodes[name]
        key = read_admin_key(proc.data_dir)

        def get() -> dict[str, Any]:
            req = urllib.request.Request(
                f"{proc.admin_url}/admin/rooms", headers={"Authorization": f"Bearer {key}"}
            )
            with urllib.request.urlopen(req, timeout=2) as resp:
                body: dict[str, Any] = json.loads(resp.read())
                return body

        body = await asyncio.to_thread(get)
        return {
            r["room"]
            for r in body["rooms"]
            if "seq" in r and r["node"] == name and r["status"] != "over" and not r["suspended"]
        }


def _after(times: list[float], since: float) -> float | None:
    return next((t for t in times if t >= since), None)


# -- the cluster phase -------------------------------------------------------------------------


@dataclass(slots=True)
class Round:
    """One fault, once: what was done and what was measured."""

    fault: str
    outage_s: float
    acked: int = 0
    relayed: int = 0
    lost: int = 0
    forked: list[str] = field(default_factory=list)
    owned_twice: list[str] = field(default_factory=list)
    rooms_lost: list[str] = field(default_factory=list)
    playable_s: list[float | None] = field(default_factory=list)
    takeover_s: float | None = None
    taken_over: int = 0
    moved_wrongly: list[str] = field(default_factory=list)
    refusals: dict[str, int] = field(default_factory=dict)
    suspensions: int = 0
    reconnects: int = 0
    unanswered: int = 0
    stalls: int = 0
    views: int = 0
    notes: list[str] = field(default_factory=list)


class ClusterBench(Bench):
    """Two or more nodes sharing a private PostgreSQL and a private Mosquitto."""

    def __init__(self, settings: Settings, work: Path) -> None:
        super().__init__(settings, work)
        self.broker = Mosquitto(work)
        self.pg = PrivatePostgres()
        self.db: Any = None  # the bench's asyncpg connection (one query at a time: db_lock)
        self.db_lock = asyncio.Lock()
        self.owned_twice: set[str] = set()
        self.moves: list[tuple[float, str, str, str]] = []
        """(when, room, from, to): each change of a room's node seen by the sampler."""
        self._suspect: set[tuple[str, frozenset[str]]] = set()
        self._moves_mark = 0
        self._twice_mark: set[str] = set()
        """What the rounds before saw: a round reports what came after (its settling too)."""
        self._sampler: asyncio.Task[None] | None = None
        self._admin_sampler: asyncio.Task[None] | None = None

    def node_args(self, name: str) -> list[str]:
        port = self.ports[name]
        return [
            "--public-url",
            f"ws://127.0.0.1:{port}",
            "--db",
            self.pg.url,
            "--mqtt",
            self.broker.url,
            "--node",
            name,
            "--mqtt-keepalive",
            "5",
            "--lease",
            f"{self.settings.lease:g}",
        ]

    async def start(self) -> None:
        from tilehall.server.store.postgres import PostgresStore

        self.broker.start()
        self.pg.start()
        names = [f"n{i + 1}" for i in range(self.settings.nodes)]
        for n in names:
            self.ports[n] = free_port()
        await asyncio.gather(*(self.start_node(n) for n in names))
        url = f"{self.pg.url}?application_name={BENCH_APP}"
        self.store = PostgresStore(url, min_size=0, max_size=2)
        await self.store.open()
        self._sampler = asyncio.create_task(self._sample_hosts())
        self._admin_sampler = asyncio.create_task(self._sample_admin())
        self.seat_players()

    async def close(self) -> None:
        for task in (self._sampler, self._admin_sampler):
            if task is not None:
                task.cancel()
        await self.stop_players()
        if self.store is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(5):
                    await self.store.close()
        if self.db is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(2):
                    await self.db.close()
        self.stop_nodes()
        self.broker.stop()
        self.pg.close()

    # samplers
    async def _connect_db(self) -> Any:
        import asyncpg

        if self.db is None or self.db.is_closed():
            self.db = await asyncpg.connect(
                self.pg.url, timeout=2, server_settings={"application_name": BENCH_APP}
            )
        return self.db

    async def query(self, sql: str, *args: Any) -> list[Any]:
        """One statement on the bench's connection (made again after PostgreSQL restarts)."""
        async with self.db_lock:
            try:
                db = await self._connect_db()
                async with asyncio.timeout(5):
                    return list(await db.fetch(sql, *args))
            except Exception:
                if self.db is not None:
                    self.db.terminate()
                self.db = None
                raise

    async def owners(self, rooms: Sequence[str] | None = None) -> dict[str, str]:
        """The node the store names for each unfinished room (``rooms``: only those)."""
        if rooms is None:
            rows = await self.query("SELECT id, node FROM rooms WHERE status <> 'over'")
        else:
            rows = await self.query("SELECT id, node FROM rooms WHERE id = ANY($1::text[])", rooms)
        return {r[0]: r[1] for r in rows}

    async def owners_now(self) -> dict[str, str]:
        """:meth:`owners`, waiting for a database that is coming back."""
        for _ in range(60):
            with contextlib.suppress(Exception):
                return await self.owners()
            await asyncio.sleep(0.5)
        raise RuntimeError("PostgreSQL does not answer the bench")

    async def _sample_hosts(self) -> None:
        last: dict[str, str] = {}
        while True:
            try:
                now = await self.owners()
            except Exception:
                await asyncio.sleep(0.25)
                continue
            for room, node in now.items():
                if room in last and last[room] != node:
                    self.moves.append((time.monotonic(), room, last[room], node))
            last = now
            self.ledger.hosts.update(now)
            await asyncio.sleep(0.25)

    async def _sample_admin(self) -> None:
        """Rooms run by two nodes at once: seen so in two samples in a row."""
        while True:
            live = [n for n in self.nodes if self.up(n)]
            results = await asyncio.gather(
                *(self.admin_rooms(n) for n in live), return_exceptions=True
            )
            runs: dict[str, set[str]] = defaultdict(set)
            for n, got in zip(live, results, strict=True):
                if isinstance(got, set):
                    for room in got:
                        runs[room].add(n)
            now = {(room, frozenset(ns)) for room, ns in runs.items() if len(ns) > 1}
            self.owned_twice |= {room for room, _ in now & self._suspect}
            self._suspect = now
            await asyncio.sleep(0.5)

    # faults
    async def ready(self) -> None:
        """Everything up again before the next round: nodes, broker, database."""
        if self.broker.proc is None:
            self.broker.start()
        with contextlib.suppress(RuntimeError):
            self.pg.start()  # fails if it runs: fine
        for n in self.nodes:
            if not self.up(n):
                await self.start_node(n)

    async def round(self, fault: str, outage: float) -> Round:
        s = self.settings
        await self.ready()
        await self.go_home()
        await asyncio.sleep(s.settle)
        playing = await self.playing()
        before = await self.owners_now()
        rnd = Round(fault, outage)
        unknown = set(self.ledger.unknown_rooms)
        victims: dict[str, str] = {}
        self.calm_since = math.inf
        if fault == "kill9":
            rnd.outage_s = 0.0
            counts = Counter(before.values())
            victim = max(self.nodes, key=lambda n: (counts.get(n, 0), n))
            victims = {r: n for r, n in before.items() if n == victim}
            rnd.notes.append(f"killed {victim} hosting {len(victims)} rooms")
            self.nodes[victim].kill()
            ended = time.monotonic()
            rnd.takeover_s, rnd.taken_over = await self._takeover(victims, ended)
        elif fault in ("broker-term", "broker-kill"):
            self.broker.stop(signal.SIGTERM if fault == "broker-term" else signal.SIGKILL)
            await asyncio.sleep(outage)
            await asyncio.to_thread(self.broker.start)
            ended = time.monotonic()
        elif fault == "pg-stop":
            await asyncio.to_thread(self.pg.stop, "fast")
            await asyncio.sleep(outage)
            await asyncio.to_thread(self.pg.start)
            ended = time.monotonic()
        elif fault == "pg-terminate":
            rnd.outage_s = 0.0
            mid = killed = 0
            for _ in range(s.terminate_bursts):
                hit, rest = await self._terminate_mid_commit()
                mid, killed = mid + hit, killed + hit + rest
            ended = time.monotonic()
            rnd.notes.append(f"{killed} backends terminated, {mid} of them inside a journal write")
        else:
            raise ValueError(fault)
        self.calm_since = ended
        waits = await self.until_playable(ended, playing)
        rnd.playable_s = waits
        rnd.rooms_lost = [
            t.room or f"table {t.index}" for t, w in zip(playing, waits, strict=True) if w is None
        ]
        if fault == "kill9":
            for n in self.nodes:
                if not self.up(n):
                    await self.start_node(n)
                    rnd.notes.append(f"{n} restarted {time.monotonic() - ended:.1f} s after")
        await asyncio.sleep(1.0)
        await self.spectators_caught_up()
        after = await self.owners_now()
        gone = self.ledger.unknown_rooms - unknown
        rnd.rooms_lost += sorted(r for r in gone if r in after)  # unfinished, yet unknown
        moved = {room for _, room, _, _ in self.moves[self._moves_mark :]}
        moved |= {r for r in before if r in after and after[r] != before[r]}
        # A room made for the killed node after it died (its lease not yet run out, the
        # other node placed it there) is taken back by its maker: the kill's, not a wrong move.
        made_for_victim = {
            room
            for _, room, was, _ in self.moves[self._moves_mark :]
            if victims and room not in before and was in victims.values()
        }
        if made_for_victim:
            rnd.notes.append(
                f"{len(made_for_victim)} rooms made for the killed node after the round began"
                " were taken back by their maker"
            )
        rnd.moved_wrongly = sorted(moved - set(victims) - made_for_victim)
        for at, room, was, now_on in self.moves[self._moves_mark :]:
            if room in rnd.moved_wrongly:  # what moved it, for whoever reads the report
                rnd.notes.append(
                    f"{room} moved {was} -> {now_on} {at - ended:+.1f} s after the fault"
                    f" ({'owned by ' + before[room] if room in before else 'not yet made'}"
                    " when the round began)"
                )
        rnd.owned_twice = sorted(self.owned_twice - self._twice_mark)
        self._moves_mark, self._twice_mark = len(self.moves), set(self.owned_twice)
        return rnd

    async def _terminate_mid_commit(self) -> tuple[int, int]:
        """Terminate a node backend caught writing the journal (looked for up to 2 s), then
        every other node backend; how many of each."""
        hit = 0
        deadline = time.monotonic() + 2.0
        while not hit and time.monotonic() < deadline:
            rows = await self.query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE state = 'active' AND query LIKE 'INSERT INTO journal%'"
                " AND application_name <> $1",
                BENCH_APP,
            )
            hit = len(rows)
        rows = await self.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()"
            " AND application_name <> $1",
            BENCH_APP,
        )
        await asyncio.sleep(0.4)
        return hit, len(rows)

    async def _takeover(self, victims: dict[str, str], since: float) -> tuple[float | None, int]:
        """Seconds until the store names a live node for every room of the dead one."""
        pending = set(victims)
        moved_at: dict[str, float] = {}
        deadline = since + 30
        while pending and time.monotonic() < deadline:
            with contextlib.suppress(Exception):
                now = await self.owners(sorted(pending))
                t = time.monotonic()
                for room in list(pending):
                    if room not in now or now[room] != victims[room]:
                        moved_at[room] = t - since
                        pending.discard(room)
            await asyncio.sleep(0.05)
        if pending:
            return None, len(moved_at)
        return (max(moved_at.values()) if moved_at else 0.0), len(moved_at)


class SoloBench(Bench):
    """One SQLite node, everybody connected to it (the checks' own test uses it too)."""

    @property
    def db_path(self) -> Path:
        return self.data_dir("solo") / "tilehall.sqlite3"

    def node_args(self, name: str) -> list[str]:
        return []

    async def start(self) -> None:
        from tilehall.server.store.sqlite import SQLiteStore

        self.ports["solo"] = free_port()
        await self.start_node("solo")
        self.store = SQLiteStore(self.db_path)
        await self.store.open()
        self.seat_players()

    async def close(self) -> None:
        await self.stop_players()
        if self.store is not None:
            with contextlib.suppress(Exception):
                await self.store.close()
        self.stop_nodes()


class DiskBench(SoloBench):
    """One SQLite node whose data directory is a small filesystem the bench fills."""

    def __init__(self, settings: Settings, work: Path) -> None:
        super().__init__(settings, work)
        self.disk = SmallDisk(work / "disk", size_kib=settings.disk_kib)

    def data_dir(self, name: str) -> Path:
        return self.disk.path

    async def close(self) -> None:
        try:
            await super().close()
        finally:
            self.disk.free()
            self.disk.close()

    async def round(self, fault: str, outage: float) -> Round:
        await asyncio.sleep(self.settings.settle)
        rnd = Round(fault, outage)
        playing = await self.playing()
        refused = sum(self.ledger.refusals.values())
        self.calm_since = math.inf
        await asyncio.to_thread(self.disk.fill)
        await asyncio.sleep(outage)
        during = sum(self.ledger.refusals.values()) - refused
        self.disk.free()
        ended = self.calm_since = time.monotonic()
        rnd.notes.append(f"{during} requests refused while the disk was full")
        rnd.playable_s = await self.until_playable(ended, playing)
        rnd.rooms_lost = [
            t.room or f"table {t.index}"
            for t, w in zip(playing, rnd.playable_s, strict=True)
            if w is None
        ]
        await asyncio.sleep(1.0)
        await self.spectators_caught_up()
        return rnd


# -- running it --------------------------------------------------------------------------------


async def _phase(
    bench: ClusterBench | DiskBench,
    faults: Sequence[str],
    rng: random.Random,
    report: Callable[[Round], None],
) -> None:
    try:
        await bench.start()  # inside: a node that fails to start must not leave the broker up
        lost_before = 0
        for fault in faults:
            for outage in bench.settings.outages(rng):
                mark = len(bench.ledger.acks)
                ledger = bench.ledger
                counters = (Counter(ledger.refusals), ledger.suspensions, ledger.reconnects)
                unanswered, stalls = ledger.unanswered, len(ledger.stalls)
                rnd = await bench.round(fault, outage)
                verdict = await bench.check()
                new = ledger.acks[mark:]
                rnd.acked = len(new)
                rnd.relayed = sum(1 for a in new if a.relayed)
                rnd.lost = len(verdict.lost) - lost_before
                lost_before = len(verdict.lost)
                rnd.forked = sorted(verdict.forked)
                rnd.views = verdict.views
                rnd.refusals = dict(ledger.refusals - counters[0])
                rnd.suspensions = ledger.suspensions - counters[1]
                rnd.reconnects = ledger.reconnects - counters[2]
                rnd.unanswered = ledger.unanswered - unanswered
                rnd.stalls = len(ledger.stalls) - stalls
                rnd.notes += [f"lost: {x}" for x in verdict.lost[-rnd.lost :]] if rnd.lost else []
                rnd.notes += [f"forked {r}: {why}" for r, why in verdict.forked.items()]
                rnd.notes += ledger.stalls[stalls:]
                report(rnd)
    finally:
        await bench.close()


def summarize(rounds: Sequence[Round]) -> dict[str, Any]:
    """One fault's figures over its rounds, and whether each goal of issue 14 holds."""
    waits = [w for r in rounds for w in r.playable_s]
    known = [w for w in waits if w is not None]
    takeovers = [r.takeover_s for r in rounds if r.fault == "kill9"]
    out: dict[str, Any] = {
        "rounds": len(rounds),
        "outages_s": [r.outage_s for r in rounds],
        "acked": sum(r.acked for r in rounds),
        "relayed": sum(r.relayed for r in rounds),
        "lost": sum(r.lost for r in rounds),
        "rooms_forked": len({x for r in rounds for x in (*r.forked, *r.owned_twice)}),
        "rooms_owned_twice": len({x for r in rounds for x in r.owned_twice}),
        "rooms_lost": sum(len(r.rooms_lost) for r in rounds),
        "playable_max_s": _worst(waits),
        "playable_median_s": statistics.median(known) if known else None,
        "tables_measured": len(waits),
        "takeover_s": takeovers,
        "takeover_max_s": _worst(takeovers),
        "rooms_taken_over": sum(r.taken_over for r in rounds),
        "rooms_moved_wrongly": len({x for r in rounds for x in r.moved_wrongly}),
        "refusals": dict(sum((Counter(r.refusals) for r in rounds), Counter())),
        "suspensions": sum(r.suspensions for r in rounds),
        "reconnects": sum(r.reconnects for r in rounds),
        "unanswered": sum(r.unanswered for r in rounds),
        "stalls": sum(r.stalls for r in rounds),
        "views_checked": sum(r.views for r in rounds),
        "notes": [f"round {i + 1}: {n}" for i, r in enumerate(rounds) for n in r.notes],
        "per_round": [
            {
                "outage_s": r.outage_s,
                "acked": r.acked,
                "playable_max_s": _worst(r.playable_s),
                "takeover_s": r.takeover_s,
                "suspensions": r.suspensions,
                "refusals": r.refusals,
            }
            for r in rounds
        ],
    }
    goals = {}
    for key, most in GOALS.items():
        if key == "takeover_max_s" and not takeovers:
            continue
        goals[key] = out[key] <= most
    out["goals"] = goals
    return out


def _worst(waits: Sequence[float | None]) -> float:
    """The longest wait of a round (infinite if a table never played again)."""
    return math.inf if None in waits else max((w for w in waits if w is not None), default=0.0)


def render(summary: dict[str, dict[str, Any]]) -> str:
    """The table of the run, one line per fault."""

    def secs(x: float | None) -> str:
        return "-" if x is None else "never" if math.isinf(x) else f"{x:.2f}"

    head = (
        f"{'fault':<13} {'rounds':>6} {'acked':>7} {'relayed':>7} {'lost':>4} {'forked':>6} "
        f"{'rooms lost':>10} {'playable max s':>14} {'takeover s':>24} {'moved':>5} {'susp':>5} "
        f"{'goals':>5}"
    )
    lines = [head, "-" * len(head)]
    for fault, f in summary.items():
        takeover = ", ".join(secs(t) for t in f["takeover_s"]) or "-"
        ok = "met" if all(f["goals"].values()) else "MISS"
        lines.append(
            f"{fault:<13} {f['rounds']:>6} {f['acked']:>7} {f['relayed']:>7} {f['lost']:>4} "
            f"{f['rooms_forked']:>6} {f['rooms_lost']:>10} {secs(f['playable_max_s']):>14} "
            f"{takeover:>24} {f['rooms_moved_wrongly']:>5} {f['suspensions']:>5} {ok:>5}"
        )
    return "\n".join(lines)


async def run(settings: Settings, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run every fault asked for; the report (as ``--json`` writes it)."""
    rng = random.Random(settings.seed)
    rounds: dict[str, list[Round]] = defaultdict(list)
    say = progress or (lambda _: None)
    log_errors: Counter[str] = Counter()
    skipped: dict[str, str] = {}

    def report(rnd: Round) -> None:
        rounds[rnd.fault].append(rnd)
        waits = [w for w in rnd.playable_s if w is not None]
        say(
            f"{rnd.fault} round {len(rounds[rnd.fault])}: outage {rnd.outage_s:g} s, "
            f"{rnd.acked} acked ({rnd.relayed} relayed), lost {rnd.lost}, "
            f"forked {len(rnd.forked)}, twice {len(rnd.owned_twice)}, "
            f"playable max {max(waits, default=0):.2f} s of {len(rnd.playable_s)} tables"
            f"{' (' + str(len(rnd.rooms_lost)) + ' never)' if rnd.rooms_lost else ''}, "
            f"takeover {rnd.takeover_s}, moved {len(rnd.moved_wrongly)}, "
            f"refusals {rnd.refusals}; {'; '.join(rnd.notes[:4])}"
        )

    started = time.monotonic()
    with contextlib.ExitStack() as stack:
        if settings.keep:
            work = Path(settings.keep)
            work.mkdir(parents=True, exist_ok=True)
        else:
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tilehall-chaos-")))
        cluster_faults = [f for f in settings.faults if f in CLUSTER_FAULTS]
        if cluster_faults:
            (work / "cluster").mkdir()
            bench = ClusterBench(settings, work / "cluster")
            try:
                await _phase(bench, cluster_faults, rng, report)
            finally:
                log_errors += bench.log_errors
        if "disk-full" in settings.faults:
            (work / "solo").mkdir()
            try:
                disk = DiskBench(settings, work / "solo")
            except BaseException as exc:  # SmallDisk skips (pytest) where it cannot mount
                if type(exc).__name__ != "Skipped":
                    raise
                skipped["disk-full"] = str(exc)
            else:
                try:
                    await _phase(disk, ["disk-full"], rng, report)
                finally:
                    log_errors += disk.log_errors
    summary = {f: summarize(rounds[f]) for f in settings.faults if rounds[f]}
    failed = [f"{f}: {k}" for f, s in summary.items() for k, ok in s["goals"].items() if not ok]
    return {
        "settings": {**asdict(settings), "faults": list(settings.faults)},
        "seconds": round(time.monotonic() - started, 1),
        "faults": summary,
        "skipped": skipped,
        "log_errors": dict(log_errors.most_common(20)),
        "verdict": {"ok": not failed and not skipped, "failed": failed},
    }


def parse_args(argv: Sequence[str] | None = None) -> tuple[Settings, Path | None]:
    p = argparse.ArgumentParser(
        prog="python -m bench.chaos",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    d = Settings()
    p.add_argument("--faults", default=",".join(FAULTS), help=f"of {', '.join(FAULTS)}")
    p.add_argument("--rounds", type=int, default=None, help=f"rounds of each fault ({d.rounds})")
    p.add_argument("--min-outage", type=float, default=None, help=f"seconds ({d.min_outage:g})")
    p.add_argument("--max-outage", type=float, default=None, help=f"seconds ({d.max_outage:g})")
    p.add_argument("--nodes", type=int, default=d.nodes)
    p.add_argument("--mathable", type=int, default=None, help=f"tables ({d.mathable})")
    p.add_argument("--ishido", type=int, default=None, help=f"tables ({d.ishido})")
    p.add_argument("--think", type=float, default=d.think, help="seconds before each act")
    p.add_argument("--settle", type=float, default=None, help=f"seconds of play ({d.settle:g})")
    p.add_argument("--playable-timeout", type=float, default=d.playable_timeout)
    p.add_argument("--lease", type=float, default=d.lease, help="the nodes' --lease")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--quick", action="store_true", help="1 round, 1-2 s outages, fewer tables")
    p.add_argument("--json", type=Path, default=None, help="write the whole report there")
    p.add_argument("--keep", default="", help="run in this folder and leave it (logs, files)")
    a = p.parse_args(argv)
    faults = tuple(f.strip() for f in a.faults.split(",") if f.strip())
    unknown = [f for f in faults if f not in FAULTS]
    if unknown:
        p.error(f"unknown faults {unknown}: choose from {', '.join(FAULTS)}")
    quick = {"rounds": 1, "min_outage": 1.0, "max_outage": 2.0, "mathable": 2, "ishido": 1}
    quick["settle"] = 1.0
    chosen: dict[str, Any] = {}
    for key in ("rounds", "min_outage", "max_outage", "mathable", "ishido", "settle"):
        given = getattr(a, key)
        chosen[key] = given if given is not None else quick[key] if a.quick else getattr(d, key)
    settings = Settings(
        faults=faults,
        nodes=a.nodes,
        think=a.think,
        playable_timeout=a.playable_timeout,
        lease=a.lease,
        seed=a.seed,
        quick=a.quick,
        keep=a.keep,
        **chosen,
    )
    if settings.nodes < 2 or settings.rounds < 1 or settings.min_outage > settings.max_outage:
        p.error("need --nodes >= 2, --rounds >= 1 and --min-outage <= --max-outage")
    return settings, a.json


def _finite(value: Any) -> Any:
    """JSON as every reader takes it: an infinite wait (never played again) becomes null."""
    if isinstance(value, float) and math.isinf(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def main(argv: Sequence[str] | None = None) -> int:
    settings, json_path = parse_args(argv)

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    async def guarded() -> dict[str, Any]:
        task = asyncio.current_task()
        assert task is not None
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
        return await run(settings, progress)

    report = asyncio.run(guarded())  # Ctrl-C and SIGTERM cancel it: every process is stopped
    print(render(report["faults"]))
    for fault, why in report["skipped"].items():
        print(f"{fault}: skipped ({why})")
    if report["log_errors"]:
        print("error lines in the nodes' logs:")
        for line, n in report["log_errors"].items():
            print(f"  {n:>4} x {line}")
    verdict = report["verdict"]
    print("goals met" if verdict["ok"] else f"goals missed: {', '.join(verdict['failed'])}")
    if json_path is not None:
        json_path.write_text(json.dumps(_finite(report), indent=1, default=str))
    return 0 if verdict["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
