"""The lobby and its rooms in memory: no sockets, no sleeps, a clock the test moves.

What is real here: the lobby, the rooms, the engines and bots, the SQLite store
(a file in the test's own folder), and the codec: every request is encoded and
decoded as on the wire and every frame a member is sent is decoded and checked
against the protocol's schema. What stands in: the connection (a
:class:`MemoryMember` keeps what it is sent) and the clock (a
:class:`FakeClock` that runs timers only when the test moves it).

As h11 and websockets test their cores: drive the logic directly, then prove
the real server end to end in a few tests that do open sockets.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tilehall.protocol import SERVER_MESSAGES, ProtocolError, check, decode, encode, unpack
from tilehall.server.config import Config, Limits
from tilehall.server.lobby import Lobby
from tilehall.server.store import open_store
from tilehall.server.store.base import Store
from tilehall.server.store.records import JournalEntry, PlayerRecord
from tilehall.server.store.sqlite import SQLiteStore

from tests import helpers

START = 1_800_000_000.0
"""Where fake time starts: epoch seconds, as the server's clock gives them."""


@dataclass(order=True)
class _Timer:
    when: float
    n: int
    callback: Callable[[], object] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """A :class:`tilehall.server.clock.Clock` whose time moves only in :meth:`advance`."""

    def __init__(self, now: float = START) -> None:
        self.now = now
        self._timers: list[_Timer] = []
        self._n = itertools.count()

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Callable[[], object]) -> _Timer:
        timer = _Timer(self.now + max(0.0, delay), next(self._n), callback)
        heapq.heappush(self._timers, timer)
        return timer

    async def sleep(self, delay: float) -> None:
        if delay <= 0:
            await asyncio.sleep(0)
            return
        done = asyncio.get_running_loop().create_future()
        self.call_later(delay, lambda: done.done() or done.set_result(None))
        await done

    def pending(self) -> list[float]:
        """When the timers still armed will fire."""
        return sorted(t.when for t in self._timers if not t.cancelled)

    def advance(self, seconds: float) -> None:
        """Move time on, firing every timer that falls due, in order, at its own time."""
        target = self.now + seconds
        while self._timers and self._timers[0].when <= target:
            timer = heapq.heappop(self._timers)
            if timer.cancelled:
                continue
            self.now = max(self.now, timer.when)
            timer.callback()
        self.now = target


class MemoryMember:
    """A :class:`tilehall.server.room.member.Member` that keeps every frame it is sent, decoded."""

    def __init__(self, peer: str = "memory") -> None:
        self.player: PlayerRecord | None = None
        self.rooms: dict[str, int | None] = {}
        self.compact = False
        self.frames: list[dict[str, Any]] = []
        self.closed: tuple[int, str] | None = None
        self._peer = peer
        self._arrived = asyncio.Event()
        self._ids = itertools.count(1)

    @property
    def peer(self) -> str:
        return self._peer

    def send(self, data: bytes) -> None:
        helpers.frame_received(data)
        msg = decode(data, specs=SERVER_MESSAGES, max_size=2**22)
        check(msg)
        self.frames.append(msg)
        self._arrived.set()

    push = send

    def send_msg(self, msg: dict[str, Any]) -> None:
        self.send(encode(msg))

    def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)

    # -- for tests

    def of(self, t: str, room: str | None = None) -> list[dict[str, Any]]:
        """The frames of type ``t`` received so far (about ``room``, if given)."""
        return [f for f in self.frames if f["t"] == t and (room is None or f.get("room") == room)]

    async def wait_for(
        self, probe: Callable[[dict[str, Any]], bool], *, after: int = 0, timeout: float = 30.0
    ) -> dict[str, Any]:
        """The first frame from index ``after`` on that ``probe`` accepts, waiting for it.

        The timeout only stops a broken test from hanging: nothing here waits on time.
        """

        async def find() -> dict[str, Any]:
            seen = after
            while True:
                for frame in self.frames[seen:]:
                    if probe(frame):
                        return frame
                seen = len(self.frames)
                self._arrived.clear()
                await self._arrived.wait()

        return await asyncio.wait_for(find(), timeout)

    async def update(self, room: str, seq: int, *, timeout: float = 30.0) -> dict[str, Any]:
        """The room's update ``seq``, waiting for it."""
        return await self.wait_for(
            lambda f: f["t"] == "update" and f["room"] == room and f["seq"] == seq,
            timeout=timeout,
        )


class House:
    """A lobby on a real store and a :class:`FakeClock`, and its members."""

    def __init__(self, lobby: Lobby, store: Store, clock: FakeClock) -> None:
        self.lobby = lobby
        self.store = store
        self.clock = clock

    @classmethod
    async def open(cls, data_dir: Path, db: str | Store | None = None, **limits: Any) -> House:
        """A lobby on the store ``db`` (a URL, or a store not yet opened; default: a SQLite
        file in ``data_dir``).

        The default file commits with ``synchronous=NORMAL``, not the server's ``FULL``:
        nothing here cuts the power, and a test of the lobby that makes thousands of rooms
        spent most of its time waiting for their fsyncs. A test of durability passes a
        store of its own (or runs a server process, which keeps ``FULL``).
        """
        if db is None:
            db = SQLiteStore(data_dir / "tilehall.sqlite3", synchronous="NORMAL")
        if isinstance(db, Store):
            store = db
            await store.open()
        else:
            store = await open_store(db)
        clock = FakeClock()
        limits.setdefault("bot_delay", 0)
        # Every member is one address ("memory"): the budget of new names per address is
        # tested with servers (tests/server/test_accounts.py), not in the in-memory lobby.
        limits.setdefault("names_per_address", 0)
        config = Config(showcase=False, data_dir=data_dir, limits=Limits(**limits))
        return cls(Lobby(config, store, clock=clock), store, clock)

    async def close(self) -> None:
        self.check_summaries()
        for room in list(self.lobby.rooms.values()):
            room.close()
        await self.store.close()

    async def call(self, member: MemoryMember, msg: dict[str, Any]) -> dict[str, Any]:
        """Send one request as a connection would and return the frame answering it.

        The request goes through the codec; the answer is the frame carrying its
        ``re``: the reply, the refusal, or (for ``act``) the actor's update.
        """
        rid = next(member._ids)
        start = len(member.frames)
        try:
            request = decode(helpers.frame_sent(encode({**msg, "id": rid})))
        except ProtocolError as exc:  # refused by the codec, as the server's frame loop does
            self.lobby.refuse(member, exc.code, exc.message, rid)
        else:
            await self.lobby.receive(member, request)
        answer = await member.wait_for(lambda f: f.get("re") == rid, after=start)
        if len(self.lobby.rooms) <= 50:
            self.check_summaries()
        return answer

    def check_summaries(self) -> None:
        """Every room's kept packed summary is its summary now (``rooms`` pages send it).

        Run at every house's close and after each request while there are few
        rooms (which also keeps them packed), so each test that plays, pauses,
        suspends or leaves a room checks that nothing it did left a stale summary.
        """
        for room in self.lobby.rooms.values():
            assert unpack(room.packed_summary()) == room.summary(), room.id

    async def send(self, member: MemoryMember, msg: dict[str, Any]) -> None:
        """Send one request without an id (nothing will carry ``re``)."""
        await self.lobby.receive(member, decode(helpers.frame_sent(encode(msg))))

    async def player(self, name: str) -> MemoryMember:
        """A member that said hello as ``name``."""
        member = MemoryMember(name)
        welcome = await self.call(member, {"t": "hello", "v": 1, "name": name})
        assert welcome["t"] == "welcome", welcome
        member.token = welcome["token"]  # type: ignore[attr-defined]
        return member

    async def journal(self, room: str) -> list[JournalEntry]:
        """The room's journal as the store holds it."""
        return await self.store.journal(room)
