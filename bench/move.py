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

``steps`` (the default) replays real games move by move and times each step the
room takes for a move, with ``time.perf_counter_ns``, exactly as
:mod:`tilehall.server.room` calls them: decoding and checking the ``act`` frame,
the action's schema, the engine, the journal row, the view, its patch, the
events by name, encoding the update, and the packed copy the room keeps.

``--room N`` plays ``N`` rooms at once through the real lobby, rooms and
SQLite journal (members that keep nothing), and reports the event loop's
thread CPU per move with the bots' thinking taken out: what a move costs the
server's one thread apart from its sockets. ``--profile`` adds the functions
that took that time.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgpack
from tilehall.protocol import decode, encode
from tilehall.protocol.patch import shorten_events
from tilehall.server.bots import find_bot
from tilehall.server.config import Config, Limits
from tilehall.server.games import find_game
from tilehall.server.games.replay import START, step
from tilehall.server.lobby import Lobby
from tilehall.server.room import view_patch, visible
from tilehall.server.store import open_store
from tilehall.server.store.base import JournalEntry, PlayerRecord, RoomRecord, SeatRecord

__all__ = ["main", "room_run", "steps"]

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


def _bot(game: str, level: str | None, rng: random.Random) -> Any:
    levels = ("greedy", "easy", "normal") if level is None else (level,)
    for name in levels:
        try:
            return find_bot(game, name)(rng=rng, budget=0.001)
        except KeyError:
            continue
    raise SystemExit(f"no bot for {game} at {level}")


def steps(game_name: str, moves: int, *, compact: bool, level: str | None, seed: int) -> dict:
    """Time each step of ``moves`` moves of real games (one seat, as the load plays)."""
    game = find_game(game_name)
    rng = random.Random(seed)
    bot = _bot(game_name, level, rng)
    took = {s: 0 for s in STEPS}
    done = 0
    now = 1_800_000_000.0
    while done < moves:
        record = RoomRecord(
            id="r1a2b3c4", game=game_name, options={}, seed=rng.randrange(2**31),
            seats=(SeatRecord(),), private_code=None, created_at=now,
        )  # fmt: skip
        start = JournalEntry(room=record.id, seq=1, seat=None, action=START, now=now)
        engine, _ = step(record, None, start)
        before = engine.view(0)
        while done < moves and engine.status.value == "playing":
            action = bot.choose(engine.view(0))
            if action is None:
                break
            frame = encode({"t": "act", "room": "r1a2b3c4", "action": action, "id": done + 1})
            now += 0.5
            t0 = time.perf_counter_ns()
            msg = decode(frame)
            t1 = time.perf_counter_ns()
            act = game.normalize(msg["action"])
            t2 = time.perf_counter_ns()
            entry = JournalEntry(room="r1a2b3c4", seq=done + 2, seat=0, action=act, now=now)
            engine, events = step(record, engine, entry)
            t3 = time.perf_counter_ns()
            row = (entry.room, entry.seq, entry.seat, msgpack.packb(act), entry.now)
            t4 = time.perf_counter_ns()
            view = engine.view(0)
            t5 = time.perf_counter_ns()
            update: dict[str, Any] = {"t": "update", "room": "r1a2b3c4", "seq": done + 2}
            seen = visible(events, 0)
            if compact:
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
            for name, a, b in zip(
                STEPS,
                (t0, t1, t2, t3, t4, t5, t6, t7, t8),
                (t1, t2, t3, t4, t5, t6, t7, t8, t9),
                strict=True,
            ):
                took[name] += b - a
            del row, data
            before = view
            done += 1
    out = {name: round(ns / done / 1000, 2) for name, ns in took.items()}
    out["total"] = round(sum(took.values()) / done / 1000, 2)
    return {"game": game_name, "compact": compact, "moves": done, "us_per_move": out}


class _Quiet:
    """A member that takes its frames and keeps nothing but their count and size."""

    def __init__(self, name: str, compact: bool) -> None:
        self.player: PlayerRecord | None = None
        self.rooms: dict[str, int | None] = {}
        self.compact = compact
        self.frames = 0
        self.bytes = 0
        self.last: bytes = b""
        self.waiter: asyncio.Future[None] | None = None
        self._peer = name

    @property
    def peer(self) -> str:
        return self._peer

    def send(self, data: bytes) -> None:
        self.frames += 1
        self.bytes += len(data)
        self.last = data
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    push = send

    def send_msg(self, msg: dict[str, Any]) -> None:
        self.send(encode(msg))

    def close(self, code: int, reason: str) -> None:
        pass


async def room_run(
    game_name: str, rooms: int, seconds: float, *, compact: bool, level: str | None,
    profile: bool,
) -> dict:  # fmt: skip
    """``rooms`` rooms played at once through the real lobby and journal for ``seconds``."""
    from tilehall.protocol import unpack
    from tilehall.protocol.patch import apply

    data = Path(tempfile.mkdtemp(prefix="tilehall-move-"))
    store = await open_store(str(data / "tilehall.sqlite3"))
    config = Config(data_dir=data, limits=Limits(rate=1e9, burst=10**9, bot_delay=0))
    lobby = Lobby(config, store)
    ids = iter(range(1, 10**9))

    async def call(member: _Quiet, msg: dict[str, Any]) -> dict[str, Any]:
        rid = next(ids)
        member.waiter = asyncio.get_running_loop().create_future()
        await lobby.receive(member, decode(encode({**msg, "id": rid})))
        while True:
            reply = unpack(member.last)
            if reply.get("re") == rid:
                return reply
            member.waiter = asyncio.get_running_loop().create_future()
            await member.waiter

    think = 0.0
    moves = 0
    stop = False

    async def play(i: int) -> None:
        nonlocal think, moves
        rng = random.Random(i)
        bot = _bot(game_name, level, rng)
        member = _Quiet(f"m{i}", compact)
        await call(member, {"t": "hello", "v": 1, "name": f"move{i}", "compact": compact})
        while not stop:
            room = (await call(member, {"t": "create", "game": game_name}))["room"]
            view = (await call(member, {"t": "join", "room": room}))["view"]
            while not stop and view.get("status") == "playing":
                t = time.thread_time()
                action = bot.choose(view)
                think += time.thread_time() - t
                if action is None:
                    break
                reply = await call(member, {"t": "act", "room": room, "action": action})
                if reply["t"] != "update":
                    break
                moves += 1
                t = time.thread_time()
                view = (
                    apply(view, reply["patch"], in_place=True)
                    if "patch" in reply
                    else reply["view"]
                )
                think += time.thread_time() - t

    tasks = [asyncio.create_task(play(i)) for i in range(rooms)]
    await asyncio.sleep(min(2.0, seconds / 4))  # rooms made, games under way
    prof = cProfile.Profile() if profile else None
    moves0, think0, cpu0, wall0 = moves, think, time.thread_time(), time.perf_counter()
    if prof is not None:
        prof.enable()
    await asyncio.sleep(seconds)
    if prof is not None:
        prof.disable()
    cpu, wall = time.thread_time() - cpu0, time.perf_counter() - wall0
    n, bots = moves - moves0, think - think0
    stop = True
    await asyncio.gather(*tasks, return_exceptions=True)
    for room in list(lobby.rooms.values()):
        room.close()
    await store.close()
    out: dict[str, Any] = {
        "game": game_name,
        "compact": compact,
        "rooms": rooms,
        "moves": n,
        "moves_per_s": round(n / wall, 1),
        "loop_cpu_us_per_move": round(1e6 * (cpu - bots) / max(1, n), 1),
        "bot_us_per_move": round(1e6 * bots / max(1, n), 1),
    }
    if prof is not None:
        text = io.StringIO()
        pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(35)
        out["profile"] = text.getvalue()
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.move", description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="ishido")
    ap.add_argument("--level", default=None, help="bot level (default: the cheapest)")
    ap.add_argument("--moves", type=int, default=20000, help="moves timed step by step")
    ap.add_argument("--full", action="store_true", help="whole views, not compact updates")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="step runs; each step shows its least")
    ap.add_argument("--room", type=int, default=0, metavar="N", help="play N rooms at once")
    ap.add_argument("--seconds", type=float, default=10.0, help="with --room")
    ap.add_argument("--profile", action="store_true", help="with --room: cProfile")
    a = ap.parse_args(argv)
    compact = not a.full
    if a.room:
        res = asyncio.run(
            room_run(a.game, a.room, a.seconds, compact=compact, level=a.level, profile=a.profile)
        )
        profile = res.pop("profile", None)
        print(res)
        if profile:
            print(profile)
        return
    runs = [
        steps(a.game, a.moves, compact=compact, level=a.level, seed=a.seed) for _ in range(a.repeat)
    ]
    med: dict[str, float] = {k: min(r["us_per_move"][k] for r in runs) for k in (*STEPS, "total")}
    print(f"{a.game}, {'compact' if compact else 'whole views'}, {runs[0]['moves']} moves x "
          f"{a.repeat}: us per move (the least of the runs: the one least disturbed)")  # fmt: skip
    for k, v in med.items():
        print(f"  {k:12} {v:8.2f}")


if __name__ == "__main__":
    sys.exit(main())
