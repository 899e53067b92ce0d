"""Where one move's server time goes, step by step, without a network.

The load harness (:mod:`bench.load`) says how many moves a server makes per
second over real sockets, against a bare echo on the same transport. This
says where the part above the transport goes, so that a change to the server
can be judged by the step it is meant to cut, in microseconds, on a quiet run
of a few seconds::

    python -m bench.move                      # Ishido, greedy bot, compact updates
    python -m bench.move --full               # whole views instead of patches
    python -m bench.move --game lines --moves 20000
    python -m bench.move --room 200 --profile # the real lobby and rooms, with cProfile
    python -m bench.move --door 200           # the door: 200 rooms against 200 games' steps
    python -m bench.move --core 200           # the room's core alone, 200 rooms, no loop

``steps`` (the default) replays real games move by move and times each step the
room takes for a move, with ``time.perf_counter_ns``, exactly as
:mod:`tilehall.server.room` calls them: decoding and checking the ``act`` frame,
the action's schema, the engine, the journal row, the view, its patch, the
events by name, encoding the update, and the packed copy the room keeps.
Each step is wall time (``perf_counter_ns``); ``total`` is their sum, and
``cpu`` the thread's CPU over the same steps (``thread_time_ns``), which a
loaded machine does not inflate as it does wall time: the figure to hold
``--room`` against.

``--room N`` plays ``N`` rooms at once through the real lobby, rooms and
SQLite journal (in its own process, as the server runs it; members that keep
their frames for the client to read), and
reports the event loop's thread CPU per move with the client's work (the
bot's choice, its patch applied, its frames encoded and read) taken out: what
a move costs the server's one thread apart from its sockets. :func:`room_run`
says exactly what that holds. ``--profile`` adds the functions that took that
time. The door's cost is the one figure over the other, taken in the same
sitting (``python -m bench.move --full``, then ``--full --room 200``): the
machine's load changes between sittings more than the ratio does.

``--core N`` (:func:`core_run`) sits between the two: the room's core alone, ``N``
rooms taken in turn, each move the ``act`` frame decoded and the core's handling of
the act and of its commit, with no event loop, shell, lobby or journal. ``--door``
prints it too: the steps, the core, the rooms, so that the door's cost splits into
the core's bookkeeping and the loop's.

``--door N`` takes the three like for like, a move against a move:

- the same ``N`` games taken in turn, one move each, so that each finds its game's
  objects as cold as a room's move does;
- the bot of the steps and of the core chooses from a copy of the view it holds
  packed, as a room's client does, not from the engine: reading the engine just
  before the timed step would warm the game's objects for it (4-6 us a move);
- the rooms' figure holds each game's own work too (its create, join, start and
  end, with the result and scores kept), which the steps and the core deal outside
  their clocks: ``N`` rooms making games of one ``quit`` each measure it per game in
  the same sitting, and :func:`per_move` takes it out. Both figures are printed;
- the three hold the collector alike: the rooms' figure holds every pass on the
  loop's thread, also those set off in the client's bracket, so the steps and the
  core add the passes their bot's choice set off outside their clocks
  (``collector``, :class:`_Passes`).

Three switches of ``--room`` tell apart what the door's code costs from what
the rooms' interleaving and the journal cost (see tests/perf/RESULTS.md, "The
door: code or caches"):

- ``--journal thread``: SQLite on a thread of this process (the server's store
  before it had a process of its own), for the comparison in
  tests/perf/RESULTS.md; the door's figure is taken with ``sqlite``, as the
  server runs it;
- ``--journal settled``: the store's append hands back a future already
  settled, so a move never waits: no journal process, no task switch, and each
  room then plays its whole game move after move, its objects warm in the
  CPU's caches (as the steps are);
- ``--flush MB``: ``MB`` megabytes of memory are streamed before each move
  (with ``--room``, in the client's bracket, taken out; for the steps, outside
  the clock): the caches as cold as other rooms' work leaves them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import gc
import io
import pstats
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
from tilehall.protocol import decode, encode
from tilehall.protocol.patch import shorten_events
from tilehall.server.app import tune_gc
from tilehall.server.bots import find_bot
from tilehall.server.config import Config, Limits
from tilehall.server.games import find_game
from tilehall.server.games.base import START, step
from tilehall.server.lobby import Lobby
from tilehall.server.room.core import (
    RoomCore,
    places_of,
    template_fields,
    tracked_patch,
    view_patch,
    visible,
    with_fields,
)
from tilehall.server.room.events import Act, Append, Appended, Join, Write, Written
from tilehall.server.store import open_store
from tilehall.server.store.records import JournalEntry, PlayerRecord, RoomRecord, SeatRecord

from bench.load.measure import Proc

__all__ = ["cheapest_bot", "core_run", "main", "per_move", "room_run", "steps"]

STEPS = (
    "decode",
    "normalize",
    "engine",
    "journal_row",
    "view",
    "patch",
    "events",
    "encode",
    "recent",
)


class _Passes:
    """The collector's passes (thread CPU) made while the client's side of a move runs.

    The rooms' figure holds every pass of the collector on the loop's thread, also
    those that fall inside the client's bracket (its bot, its view unpacked and
    packed): a pass walks the server's objects whatever allocation set it off. The
    steps and the core time only the server's work of each move, so a pass set off
    by their bot's choice fell outside their clocks; this counts those, so that the
    three figures hold the collector alike. Passes while a game is dealt are not
    counted: the rooms' figure takes a game's own work out too (:func:`per_move`).
    """

    def __init__(self) -> None:
        self.on = False
        """Whether the client's side of a move runs now (:meth:`client`)."""
        self.ns = 0
        self._began = 0

    @contextlib.contextmanager
    def client(self) -> Iterator[None]:
        """Inside: the client's side of a move (its bot, its frames, its copy of the view)."""
        self.on = True
        try:
            yield
        finally:
            self.on = False

    def __enter__(self) -> _Passes:
        gc.callbacks.append(self._seen)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._seen)

    def _seen(self, phase: str, info: dict[str, int]) -> None:
        if not self.on:
            return  # a pass cannot span a change of ``on``: it runs inside one call
        if phase == "start":
            self._began = time.thread_time_ns()
        else:
            self.ns += time.thread_time_ns() - self._began


def cheapest_bot(game: str, level: str | None, rng: random.Random, budget: float = 0.001) -> Any:
    """A bot of ``game`` at ``level``, or (None) its quickest level: a bench times the
    server's work, not the thinking."""
    levels = ("greedy", "easy", "normal") if level is None else (level,)
    for name in levels:
        try:
            return find_bot(game, name)(rng=rng, budget=budget)
        except KeyError:
            continue
    raise SystemExit(f"no bot for {game} at {level}")


def _one_seat(game_name: str, room: str, seed: int, now: float) -> RoomRecord:
    """A room of one seat, as the load's rooms are: what the steps and the core both play."""
    return RoomRecord(
        id=room, game=game_name, options={}, seed=seed, seats=(SeatRecord(),),
        private_code=None, created_at=now,
    )  # fmt: skip


def steps(
    game_name: str,
    moves: int,
    *,
    compact: bool,
    level: str | None,
    seed: int,
    flush_mb: int = 0,
    games: int = 1,
) -> dict:
    """Time each step of ``moves`` moves of real games (one seat, as the load plays).

    ``games``: how many games are played at once, one move of each in turn, as
    that many rooms take turns on a server: each step then finds its game's
    objects as cold in the CPU's caches as a room's move does (1: one game
    played move after move, all of it warm). ``flush_mb``: stream that many
    megabytes of memory before each move, untimed (the ``--flush`` diagnostic
    of the module's docstring).
    """
    cold = bytearray(flush_mb << 20)
    game = find_game(game_name)
    rng = random.Random(seed)
    took = {s: 0 for s in STEPS}
    cpu = 0
    done = 0
    now = 1_800_000_000.0

    def deal() -> list[Any]:
        record = _one_seat(game_name, "r1a2b3c4", rng.randrange(2**31), now)
        start = JournalEntry(room=record.id, seq=1, seat=None, action=START, now=now)
        engine, _ = step(game, record, None, start)
        engine.take_changes()
        bot = cheapest_bot(game_name, level, random.Random(rng.randrange(2**31)))
        held = engine.view(0)
        seen = msgpack.packb(held)  # the bot's own copy, as a room's client holds it
        if compact and game.tracks_changes:
            return [record, engine, bot, places_of(held), 1, seen]
        return [record, engine, bot, held, 1, seen]

    tables = [deal() for _ in range(games)]
    wanted = template_fields(game.derived_events)
    passes = _Passes()
    with passes:
        while done < moves:
            for i, table in enumerate(tables):
                if done >= moves:
                    break
                record, engine, bot, before, seq, seen = table
                playing = engine.status.value == "playing"
                with passes.client():
                    action = bot.choose(msgpack.unpackb(seen)) if playing else None
                if action is None:
                    tables[i] = deal()
                    continue
                with passes.client():
                    request = {"t": "act", "room": "r1a2b3c4", "action": action, "id": done + 1}
                    frame = encode(request)
                now += 0.5
                seq += 1
                if cold:
                    bytes(cold)
                c0 = time.thread_time_ns()
                t0 = time.perf_counter_ns()
                msg = decode(frame)
                t1 = time.perf_counter_ns()
                act = game.normalize(msg["action"])
                t2 = time.perf_counter_ns()
                entry = JournalEntry(room="r1a2b3c4", seq=seq, seat=0, action=act, now=now)
                engine, events = step(game, record, engine, entry)
                changes = engine.take_changes()  # as the room does after each step
                t3 = time.perf_counter_ns()
                row = (entry.room, entry.seq, entry.seat, msgpack.packb(act), entry.now)
                t4 = time.perf_counter_ns()
                # A compact update of a game that tracks its changes is built from the record
                # (tracked_patch): no view. The held view's keys stand for what the client holds.
                tracks = compact and changes is not None
                view: Any = None if tracks else engine.view(0)
                t5 = time.perf_counter_ns()
                update: dict[str, Any] = {"t": "update", "room": "r1a2b3c4", "seq": seq}
                seen = visible(events, 0)
                tracked = tracked_patch(engine, 0, changes, before, now) if tracks else None
                if tracked is not None:
                    update["patch"], before, view = tracked
                    with_fields(engine, 0, view, wanted)
                elif tracks:  # the whole view (an undo)
                    update["view"] = view = engine.view(0)
                elif compact:
                    update["patch"] = view_patch(before, view)
                else:
                    update["view"] = view
                t6 = time.perf_counter_ns()
                if compact and game.derived_events:
                    seen = shorten_events(seen, view, game.derived_events)  # type: ignore[assignment]
                update["events"] = seen
                t7 = time.perf_counter_ns()
                data = encode({**update, "re": done + 1})
                t8 = time.perf_counter_ns()
                msgpack.packb(events, use_bin_type=True)
                t9 = time.perf_counter_ns()
                cpu += time.thread_time_ns() - c0
                for name, a, b in zip(
                    STEPS,
                    (t0, t1, t2, t3, t4, t5, t6, t7, t8),
                    (t1, t2, t3, t4, t5, t6, t7, t8, t9),
                    strict=True,
                ):
                    took[name] += b - a
                del row, data
                if tracked is None and tracks:
                    before = places_of(view)  # the whole view went: its keys are held
                elif tracked is None:
                    before = view
                with passes.client():  # the client's copy of its view, which its bot reads next
                    held = msgpack.packb(engine.view(0))
                tables[i] = [record, engine, bot, before, seq, held]
                done += 1
    out = {name: round(ns / done / 1000, 2) for name, ns in took.items()}
    out["total"] = round(sum(took.values()) / done / 1000, 2)
    out["cpu"] = round(cpu / done / 1000, 2)
    out["collector"] = round(passes.ns / done / 1000, 2)
    return {
        "game": game_name, "compact": compact, "flush_mb": flush_mb, "games": games,
        "moves": done, "us_per_move": out,
    }  # fmt: skip


class _Up:
    """A store that answers (what the core reads of its health)."""

    up = True
    retry_after = 0.0


def core_run(game_name: str, moves: int, *, compact: bool, level: str | None, seed: int,
             games: int = 1) -> dict:  # fmt: skip
    """The room's core alone, ``games`` rooms taken in turn: a move's CPU without the loop.

    Each move is what a room's core does with an ``act`` and its commit: the frame
    decoded, :meth:`RoomCore.handle` of the :class:`Act` (who may act, the engine's step,
    the change in flight) and of the :class:`Appended` that answers its append (the
    committed state, each member's update, the timers after a change), one compact (or
    whole-view) member in each room, as the rooms of ``--room`` play. No event loop, no
    journal, no shell: between the steps and the rooms, it says how much of the door is
    the core's bookkeeping and how much the loop's. The bot and the act frame's encoding
    are outside the clock, as in :func:`steps`.
    """
    game = find_game(game_name)
    rng = random.Random(seed)
    now = 1_800_000_000.0
    made = 0

    class Member:
        def __init__(self, i: int) -> None:
            self.player = PlayerRecord(id=i, name=f"p{i}")
            self.rooms: dict[str, int | None] = {}
            self.compact = compact
            self.peer = f"p{i}"

        def push(self, data: bytes) -> None:
            pass

        send = push

    def deal() -> list[Any]:
        nonlocal made
        made += 1
        record = _one_seat(game_name, f"r{made:08x}", rng.randrange(2**31), now)
        core = RoomCore(record, game, health=_Up())
        member = Member(made)
        ticket = object()
        effects = core.handle(Join(member, made, f"p{made}", None, compact, None, ticket), now)
        while effects:  # the seat written, the start journaled: answered at once
            more: list[Any] = []
            for effect in effects:
                if type(effect) is Append:
                    more += core.handle(Appended(effect.entry.seq), now)
                elif type(effect) is Write and effect.status is None:
                    more += core.handle(Written(None), now)
            effects = more
        bot = cheapest_bot(game_name, level, random.Random(rng.randrange(2**31)))
        return [core, member, bot, _held(core)]

    tables = [deal() for _ in range(games)]
    cpu = done = 0
    passes = _Passes()
    with passes:
        while done < moves:
            for i, (core, member, bot, seen) in enumerate(tables):
                if done >= moves:
                    break
                engine = core.engine
                action = None
                if engine is not None and engine.status.value == "playing":
                    with passes.client():
                        action = bot.choose(msgpack.unpackb(seen))
                if action is None:
                    tables[i] = deal()
                    continue
                now += 0.5
                with passes.client():
                    frame = encode({"t": "act", "room": core.id, "action": action, "id": done + 1})
                c0 = time.thread_time_ns()
                msg = decode(frame)
                effects = core.handle(Act(member, msg["action"], None, msg["id"], object()), now)
                appends = [e.entry.seq for e in effects if type(e) is Append]
                if appends:
                    core.handle(Appended(appends[0]), now)
                cpu += time.thread_time_ns() - c0
                if not appends:  # a refused move would make the figure a refusal's
                    raise RuntimeError(f"room {core.id} refused {action}: {effects}")
                with passes.client():
                    tables[i][3] = _held(core)
                done += 1
    return {"game": game_name, "compact": compact, "games": games, "moves": done,
            "cpu_us_per_move": round(cpu / done / 1000, 2),
            "collector_us_per_move": round(passes.ns / done / 1000, 2)}  # fmt: skip


def _held(core: RoomCore) -> bytes:
    """Seat 0's view packed: the copy a client holds between moves, which its bot reads.

    Not the engine itself: a bot that read the engine just before the timed step
    would bring the game's objects into the CPU's caches for it, which a room's
    client, holding its own copy, never does for the room.
    """
    assert core.engine is not None
    return msgpack.packb(core.engine.view(0))  # type: ignore[no-any-return]


class _Quiet:
    """A member that keeps the frames sent to it since its client last looked, unread.

    Reading them (unpacking, finding the reply) is the client's work: the
    bench does it inside the bracket it takes out of the loop's CPU.
    """

    def __init__(self, name: str, compact: bool) -> None:
        self.player: PlayerRecord | None = None
        self.rooms: dict[str, int | None] = {}
        self.compact = compact
        self.inbox: list[bytes] = []
        self.waiter: asyncio.Future[None] | None = None
        self._peer = name

    @property
    def peer(self) -> str:
        return self._peer

    def send(self, data: bytes) -> None:
        self.inbox.append(data)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    push = send

    def send_msg(self, msg: dict[str, Any]) -> None:
        self.send(encode(msg))

    def close(self, code: int, reason: str) -> None:
        pass

    def reply(self, rid: int) -> dict[str, Any] | None:
        """The client's side: the answer to request ``rid`` among the frames come, if any."""
        from tilehall.protocol import unpack

        frames, self.inbox = self.inbox, []
        for data in frames:
            msg = unpack(data)
            if msg.get("re") == rid:
                return msg  # type: ignore[no-any-return]
        return None


async def room_run(
    game_name: str, rooms: int, seconds: float, *, compact: bool, level: str | None,
    profile: bool, journal: str = "sqlite", flush_mb: int = 0, games_only: bool = False,
) -> dict:  # fmt: skip
    """``rooms`` rooms played at once through the real lobby and journal for ``seconds``.

    What the loop's thread CPU per move (``loop_cpu_us_per_move``) holds, and
    what it does not:

    - it holds the server's whole door for an ``act``: the frame's decode and
      check, the lobby's routing, the room's lock, the engine's step, the
      journal row sent to the store's process and its answer read back (the
      group commit's own work is in that process, not counted),
      the commit, each member's update encoded, the member's send (a list
      append), the room's work after the change (clock, bots, stand-ins), and
      the asyncio task switch of the connection that waits for the append;
    - it holds each game's own door work, amortized over its moves: ``create``,
      ``join`` (the seat, the start), the result and scores at the end
      (``games`` says how many ended in the window);
    - it holds every pass of the cycle collector (``gc_us_per_move`` says how
      much), also those that fell inside the client's bracket; the clients hold
      their views packed between moves, so that what the collector walks is
      the server's objects, as in a server's own process;
    - it does not hold the client's work (``client_us_per_move``, taken out, each
      measured with ``time.thread_time`` in one bracket per move that never
      spans an ``await``): the bot's choice, the patch applied to its view,
      its view unpacked and packed again, the ``act`` frame encoded, the
      frames it got unpacked. The client's ``hello``, ``create`` and ``join``
      frames (three per game) are not taken out: a few microseconds per game,
      nor the part of the bracket's own clock reads that falls outside it
      (about one ``thread_time`` call a move: ~1 us);
    - sockets and WebSocket framing are not there at all (``bench.load`` has them).

    The window opens once every room's game is under way (each player made a
    move), so the start-up's burst of rooms is not in it. ``main`` tunes the
    collector as the server does (``tune_gc``), for the steps and the rooms alike.

    ``journal="settled"`` and ``flush_mb`` are the diagnostics of the module's
    docstring; the door's figure is taken without them.

    ``games_only``: each client quits its game at once, so every "move" is a whole
    game's own door work (``create``, ``join``, the start, a ``quit`` and the game's
    end: its result and scores kept), and ``loop_cpu_us_per_move`` is that per game.
    ``--door`` takes it out of the rooms' figure (:func:`per_move`).
    """
    from tilehall.protocol.patch import apply

    data = Path(tempfile.mkdtemp(prefix="tilehall-move-"))
    store = await open_store(str(data / "tilehall.sqlite3"), process=journal != "thread")
    store_pid: int | None = getattr(store, "pid", None)
    if journal == "settled":

        def settled(entry: JournalEntry) -> asyncio.Future[None]:
            done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            done.set_result(None)
            return done

        store.append = settled  # type: ignore[method-assign]
    elif journal not in ("sqlite", "thread"):
        raise ValueError(f"journal {journal!r}: sqlite, thread or settled")
    cold = bytearray(flush_mb << 20)
    config = Config(
        data_dir=data, limits=Limits(rate=1e9, burst=10**9, bot_delay=0, names_per_address=0)
    )
    lobby = Lobby(config, store)
    ids = iter(range(1, 10**9))

    async def call(member: _Quiet, msg: dict[str, Any]) -> dict[str, Any]:
        """A request outside the timed moves (hello, create, join): the client's side counted."""
        rid = next(ids)
        member.inbox.clear()
        await lobby.receive(member, decode(encode({**msg, "id": rid})))
        while (reply := member.reply(rid)) is None:
            member.waiter = asyncio.get_running_loop().create_future()
            await member.waiter
        return reply

    collected = [0.0]
    """The loop's thread CPU spent in the cycle collector so far."""
    began_gc = [0.0]

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began_gc[0] = time.thread_time()
        else:
            collected[0] += time.thread_time() - began_gc[0]

    gc.callbacks.append(on_gc)
    client = 0.0
    moves = 0
    games = 0
    playing = 0
    stop = False

    async def play(i: int) -> None:
        nonlocal client, moves, games, playing
        rng = random.Random(i)
        bot = cheapest_bot(game_name, level, rng)
        member = _Quiet(f"m{i}", compact)
        await call(member, {"t": "hello", "v": 1, "name": f"move{i}", "compact": compact})
        first = True
        while not stop:
            room = (await call(member, {"t": "create", "game": game_name}))["room"]
            view = (await call(member, {"t": "join", "room": room}))["view"]
            # The client's bracket, closed before every await; a collection inside it is
            # the server's as much as the client's, so it goes back to the loop's figure.
            t, g = time.thread_time(), collected[0]
            # Between moves the client holds its view packed: 200 clients' views alive as
            # lists and dicts would be objects for the loop's collector to walk at every
            # pass, which a server never has in its process.
            held = msgpack.packb(view)
            del view
            status = "playing"
            while not stop and status == "playing":
                if cold:
                    bytes(cold)  # streamed through the caches: what other rooms' work does
                view = msgpack.unpackb(held)
                action = {"do": "quit"} if games_only else bot.choose(view)
                if action is None:
                    break
                rid = next(ids)
                frame = encode({"t": "act", "room": room, "action": action, "id": rid})
                del view  # not held across the await: the packed copy is
                member.inbox.clear()
                client += time.thread_time() - t - (collected[0] - g)
                # the server's side: what a connection's handler does with a frame
                await lobby.receive(member, decode(frame))
                t, g = time.thread_time(), collected[0]
                while (reply := member.reply(rid)) is None:
                    client += time.thread_time() - t - (collected[0] - g)
                    member.waiter = asyncio.get_running_loop().create_future()
                    await member.waiter
                    t, g = time.thread_time(), collected[0]
                if reply["t"] != "update":
                    break
                moves += 1
                if first:
                    first, playing = False, playing + 1
                if "patch" in reply:
                    view = apply(msgpack.unpackb(held), reply["patch"], in_place=True)
                else:
                    view = reply["view"]
                status = view.get("status")
                held = msgpack.packb(view)
                del view, reply
            client += time.thread_time() - t - (collected[0] - g)
            if status == "over":
                games += 1

    tasks = [asyncio.create_task(play(i)) for i in range(rooms)]
    began = time.perf_counter()
    while playing < rooms and time.perf_counter() - began < 60:  # every game under way
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    prof = cProfile.Profile() if profile else None
    moves0, games0, client0, gc0 = moves, games, client, collected[0]
    cpu0, wall0 = time.thread_time(), time.perf_counter()
    store_proc = Proc(store_pid)  # its CPU is read from /proc, as bench.load reads a server's
    theirs0 = store_proc.cpu() or 0.0
    if prof is not None:
        prof.enable()
    await asyncio.sleep(seconds)
    if prof is not None:
        prof.disable()
    cpu, wall = time.thread_time() - cpu0, time.perf_counter() - wall0
    store_cpu = (store_proc.cpu() or 0.0) - theirs0
    n, theirs = moves - moves0, client - client0
    ended, in_gc = games - games0, collected[0] - gc0
    stop = True
    await asyncio.gather(*tasks, return_exceptions=True)
    for room in list(lobby.rooms.values()):
        room.close()
    await store.close()
    shutil.rmtree(data, ignore_errors=True)
    gc.callbacks.remove(on_gc)
    out: dict[str, Any] = {
        "game": game_name,
        "compact": compact,
        "rooms": rooms,
        "journal": journal,
        "flush_mb": flush_mb,
        "moves": n,
        "games": ended,
        "moves_per_s": round(n / wall, 1),
        "loop_cpu_us_per_move": round(1e6 * (cpu - theirs) / max(1, n), 1),
        "client_us_per_move": round(1e6 * theirs / max(1, n), 1),
        "gc_us_per_move": round(1e6 * in_gc / max(1, n), 1),
    }
    if store_pid is not None:  # not the loop's: what the store's own process spent
        out["store_process_us_per_move"] = round(1e6 * store_cpu / max(1, n), 1)
    if prof is not None:
        text = io.StringIO()
        pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(35)
        out["profile"] = text.getvalue()
    return out


def per_move(rooms: dict[str, Any], game_cpu: float) -> float:
    """The loop's CPU for a move alone: the rooms' figure without each game's own work.

    A room's window holds ``moves`` moves and, for each of the ``games`` games that
    ended in it, that game's create, join, start and end (and, with as many games
    begun as ended, about as many of those). ``game_cpu`` is a game of one ``quit``
    measured apart (``room_run(games_only=True)``): a game's own work and one move.
    So ``C = n x + g (G - x)``, and a move's ``x = (C - g G) / (n - g)``, where the
    steps, which deal their games outside the clock, hold none of it.
    """
    n, g = rooms["moves"], rooms["games"]
    total = rooms["loop_cpu_us_per_move"] * n
    return (total - g * game_cpu) / (n - g)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.move", description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="ishido")
    ap.add_argument("--level", default=None, help="bot level (default: the cheapest)")
    ap.add_argument("--moves", type=int, default=20000, help="moves timed step by step")
    ap.add_argument("--full", action="store_true", help="whole views, not compact updates")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="step runs; each step shows its least")
    ap.add_argument("--room", type=int, default=0, metavar="N", help="play N rooms at once")
    ap.add_argument(
        "--games", type=int, default=1, metavar="N",
        help="steps: play N games in turn, one move each (as N rooms take turns)",
    )  # fmt: skip
    ap.add_argument(
        "--door", type=int, default=0, metavar="N",
        help="the door's cost like for like: the steps of N games in turn, then N rooms, "
        "in one sitting, and the one's CPU per move over the other's",
    )  # fmt: skip
    ap.add_argument(
        "--core", type=int, default=0, metavar="N",
        help="the room's core alone, N rooms in turn, no event loop (a diagnostic of the door)",
    )  # fmt: skip
    ap.add_argument("--seconds", type=float, default=10.0, help="with --room")
    ap.add_argument("--profile", action="store_true", help="with --room: cProfile")
    ap.add_argument(
        "--journal", choices=("sqlite", "thread", "settled"), default="sqlite",
        help="with --room: sqlite = in its own process, as the server runs it; thread = on a "
        "thread of this process; settled = appends never wait (diagnostics)",
    )  # fmt: skip
    ap.add_argument(
        "--flush", type=int, default=0, metavar="MB",
        help="stream MB of memory before each move, untimed (a diagnostic)",
    )  # fmt: skip
    a = ap.parse_args(argv)
    compact = not a.full
    tune_gc()  # the collector as the server runs it, for the steps and the rooms alike
    if a.room:
        res = asyncio.run(
            room_run(
                a.game, a.room, a.seconds, compact=compact, level=a.level, profile=a.profile,
                journal=a.journal, flush_mb=a.flush,
            )
        )  # fmt: skip
        profile = res.pop("profile", None)
        print(res)
        if profile:
            print(profile)
        return
    if a.core:
        cores = [
            core_run(a.game, a.moves, compact=compact, level=a.level, seed=a.seed, games=a.core)
            for _ in range(a.repeat)
        ]
        least = min(r["cpu_us_per_move"] for r in cores)
        print(f"the core alone, {a.core} rooms in turn, {a.moves} moves x {a.repeat}: "
              f"{least:.1f} us CPU per move (the least of the runs)")  # fmt: skip
        return
    games = a.door or a.games
    runs = [
        steps(
            a.game, a.moves, compact=compact, level=a.level, seed=a.seed, flush_mb=a.flush,
            games=games,
        )
        for _ in range(a.repeat)
    ]  # fmt: skip
    med: dict[str, float] = {
        k: min(r["us_per_move"][k] for r in runs) for k in (*STEPS, "total", "cpu", "collector")
    }
    print(f"{a.game}, {'compact' if compact else 'whole views'}, {runs[0]['moves']} moves x "
          f"{a.repeat}, {games} games in turn: us per move (the least of the runs: the one "
          "least disturbed)")  # fmt: skip
    for k, v in med.items():
        print(f"  {k:12} {v:8.2f}")
    if a.door:
        # Like the rooms' figure, the steps' and the core's hold every pass of the collector,
        # also those their bot's choice set off outside their clocks (_Passes).
        steps_cpu = min(r["us_per_move"]["cpu"] + r["us_per_move"]["collector"] for r in runs)
        print(f"the steps with every pass of the collector: {steps_cpu:.1f} us")
        core_cpu = min(
            r["cpu_us_per_move"] + r["collector_us_per_move"]
            for r in (
                core_run(a.game, a.moves, compact=compact, level=a.level, seed=a.seed,
                         games=a.door)
                for _ in range(a.repeat)
            )
        )  # fmt: skip
        print(f"the core alone, {a.door} rooms in turn: {core_cpu:.1f} us "
              f"({core_cpu / steps_cpu:.2f}x the steps)")  # fmt: skip
        rooms = [
            asyncio.run(
                room_run(a.game, a.door, a.seconds, compact=compact, level=a.level,
                         profile=False, journal=a.journal)
            )
            for _ in range(a.repeat)
        ]  # fmt: skip
        room_cpu = min(r["loop_cpu_us_per_move"] for r in rooms)
        print(f"{a.door} rooms: the loop's CPU per move, the least of {a.repeat} runs of "
              f"{a.seconds:g} s: {room_cpu:.1f} us, with each game's own work "
              f"({sum(r['moves'] for r in rooms) / sum(r['games'] for r in rooms):.0f} "
              "moves a game)")  # fmt: skip
        if "store_process_us_per_move" in rooms[0]:
            theirs = min(r["store_process_us_per_move"] for r in rooms)
            print(f"  and the store's own process (not the loop's): {theirs:.1f} us a move")
        game_cpu = min(
            asyncio.run(
                room_run(a.game, a.door, a.seconds, compact=compact, level=a.level,
                         profile=False, games_only=True, journal=a.journal)
            )["loop_cpu_us_per_move"]
            for _ in range(a.repeat)
        )  # fmt: skip
        move_cpu = min(per_move(r, game_cpu) for r in rooms)
        print(f"{a.door} rooms making games of one quit: {game_cpu:.0f} us a game (create, "
              f"join, start, quit, end); so a move alone: {move_cpu:.1f} us")  # fmt: skip
        print(f"the door: {move_cpu / steps_cpu:.2f}x its steps (a move's CPU), "
              f"{room_cpu / steps_cpu:.2f}x with each game's own work; "
              f"the rooms over the core alone: {move_cpu / core_cpu:.2f}x")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
