"""A move's patches for every audience: from the engine's record, against views diffed.

A game that tracks its changes has its compact updates built from each step's
record (:func:`tilehall.server.room.core.tracked_patch`); one that does not has
each audience's whole view built and diffed against the one before
(:func:`~tilehall.server.room.core.view_patch`). This plays seeded games of one
game with its quickest bots (every seat) and times both ways on the same steps,
for every audience (each seat and the spectators), in CPU time::

    python -m bench.tracked                          # Mathable, 2 seats, open racks
    python -m bench.tracked --seats 4 --set racks=hidden
    python -m bench.tracked --game ishido --games 5

The engine's step, the bot and the record's taking are outside the clock.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Any

from tilehall.clients.bot.app import parse_option
from tilehall.server.games import find_game
from tilehall.server.games.base import START, step
from tilehall.server.room.core import places_of, timed, tracked_patch, view_patch
from tilehall.server.store.records import JournalEntry, RoomRecord, SeatRecord

from bench.move import cheapest_bot

__all__ = ["main", "run"]


def run(
    game_name: str, options: dict[str, Any], seats: int, games: int, moves: int
) -> dict[str, Any]:
    """Play ``games`` games (seeds 0, 1, ...) of up to ``moves`` entries; the CPU per move of
    the tracked patches and of the views diffed, each for all audiences."""
    game = find_game(game_name)
    if not game.tracks_changes:
        raise SystemExit(f"{game_name} does not track its changes: there is nothing to compare")
    tracked = diffed = n = 0
    for seed in range(games):
        rng = random.Random(seed)
        record = RoomRecord(
            id="r1", game=game_name, options=options, seed=seed,
            seats=tuple(SeatRecord() for _ in range(seats)), private_code=None, created_at=0.0,
        )  # fmt: skip
        now = 1000.0
        start = JournalEntry(room="r1", seq=1, seat=None, action=START, now=now)
        engine, _ = step(game, record, None, start)
        engine.take_changes()
        audiences: list[int | None] = [*range(seats), None]
        views = {a: timed(engine.view(a), now) for a in audiences}
        places = {a: places_of(views[a]) for a in audiences}
        bot = cheapest_bot(game_name, None, rng, budget=0.01)
        for seq in range(2, moves + 2):
            if engine.status.value != "playing":
                break
            seat = engine.to_move if engine.to_move is not None else 0
            action = bot.choose(engine.view(seat)) or {"do": "quit"}
            now += 1.0
            entry = JournalEntry(room="r1", seq=seq, seat=seat, action=action, now=now)
            engine, _ = step(game, record, engine, entry)
            changes = engine.take_changes()
            assert changes is not None
            t0 = time.thread_time_ns()
            for a in audiences:
                built = tracked_patch(engine, a, changes, places[a], now)
                if built is not None:
                    places[a] = built[1]
            t1 = time.thread_time_ns()
            for a in audiences:
                view = timed(engine.view(a), now)
                view_patch(views[a], view)
                views[a] = view
            t2 = time.thread_time_ns()
            tracked += t1 - t0
            diffed += t2 - t1
            n += 1
            if built is None:  # a whole view: the places start over
                places = {a: places_of(views[a]) for a in audiences}
    return {
        "game": game_name,
        "options": options,
        "seats": seats,
        "moves": n,
        "tracked_us": round(tracked / max(1, n) / 1000, 1),
        "diffed_us": round(diffed / max(1, n) / 1000, 1),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.tracked", description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="mathable")
    ap.add_argument("--seats", type=int, default=0, help="default: the game's fewest")
    ap.add_argument("--set", action="append", default=[], metavar="OPTION=VALUE")
    ap.add_argument("--games", type=int, default=12)
    ap.add_argument("--moves", type=int, default=400, help="entries a game at most")
    a = ap.parse_args(argv)
    try:
        options = dict(parse_option(item) for item in a.set)
    except ValueError as exc:
        ap.error(str(exc))
    seats = a.seats or find_game(a.game).min_seats
    res = run(a.game, options, seats, a.games, a.moves)
    print(f"{res['game']} {res['options'] or ''} {res['seats']} seats, {res['moves']} moves: "
          f"tracked {res['tracked_us']} us, views diffed {res['diffed_us']} us of CPU a move "
          f"(all {seats + 1} audiences)")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
