"""Mathable bot benchmark: search time of ``hard`` and playing strength of every level.

Run: ``.venv/bin/python bench/mathable_bots.py [--games N] [--positions N]``.

1. ``hard`` plans a full turn (``HardBot.plan``, its default budget) on random
   mid-game positions (2 seats, open racks, reached by two ``normal`` bots, bag
   between 20 and 70 tiles): p50 / p95 / max milliseconds. Goal: p95 < 100 ms.
2. Seeded 2-player games of each level against a greedy one-tile-per-turn
   player (the best-scoring single placement, then end; stuck: exchange all):
   win rate (ties count half) and mean scores. Goal for ``hard``: >= 75 %.
   The level sits in seat ``seed % 2`` so neither side always has seat 0 (the
   first player is drawn by the engine anyway).
3. For scale: ``hard`` against ``normal`` (the greedy whole-turn player) on the
   same seeds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tilehall.protocol import Status
from tilehall.server.bots.base import Bot
from tilehall.server.bots.mathable import BOTS, HardBot, best_placement
from tilehall.server.games.mathable import Mathable


class GreedyOneTile(Bot):
    """The baseline: one best-scoring tile a turn, never an extra draw."""

    game = "mathable"
    level = "greedy1"

    def choose(self, view: dict[str, Any]) -> dict[str, Any] | None:
        if view["status"] != Status.PLAYING or view["to_move"] != view["seat"]:
            return None
        rack = view["racks"][view["seat"]]
        if view["turn"]["placed"]:
            return {"do": "end"}
        best = best_placement(view["board"], rack)
        if best is not None:
            return {"do": "place", "tile": best.tile, "at": list(best.at)}
        n = min(len(rack), view["bag"])
        if n:
            return {"do": "exchange", "tiles": sorted(rack, reverse=True)[:n]}
        return {"do": "end"}


def play(players: list[Bot], seed: int, racks: str = "open") -> Mathable:
    """Play one game to its end; every seat is a bot."""
    game = Mathable(
        options={"racks": racks},
        seats=len(players),
        rng=random.Random(seed),
        now=0.0,
        bots=frozenset(range(len(players))),
    )
    for _ in range(20000):
        seat = game.to_move
        if seat is None:
            return game
        action = players[seat].choose(game.view(seat))
        assert action is not None
        game.act(seat, action, 0.0)
    raise RuntimeError(f"game {seed} did not end")


def midgame_views(n: int) -> list[dict[str, Any]]:
    """Views at the start of a turn, bag 20..70, from seeded normal-vs-normal games."""
    views: list[dict[str, Any]] = []
    seed = 0
    while len(views) < n:
        rng = random.Random(1000 + seed)
        target = rng.randint(20, 70)
        game = Mathable(options={}, seats=2, rng=rng, now=0.0, bots=frozenset({0, 1}))
        bots = [BOTS["normal"](rng=random.Random(seed * 7 + i)) for i in range(2)]
        seed += 1
        while game.to_move is not None:
            seat = game.to_move
            view = game.view(seat)
            if view["bag"] <= target and not view["turn"]["placed"]:
                views.append(view)
                break
            game.act(seat, bots[seat].choose(view), 0.0)
    return views


def bench_search(n: int) -> None:
    views = midgame_views(n)
    bot = HardBot()
    times = []
    for view in views:
        start = time.perf_counter()
        bot.plan(view)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    p50 = times[len(times) // 2]
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    verdict = "met" if p95 < 100 else f"MISSED by {p95 - 100:.1f} ms"
    print(f"hard full-turn search, {n} mid-game positions, budget {bot.budget * 1000:.0f} ms:")
    print(f"  p50 {p50:.1f} ms  p95 {p95:.1f} ms  max {times[-1]:.1f} ms")
    print(f"  goal p95 < 100 ms: {verdict}")


def bench_games(level: str, games: int, opponent: str = "greedy one-tile") -> float:
    wins = 0.0
    mine: list[int] = []
    theirs: list[int] = []
    start = time.perf_counter()
    for seed in range(games):
        seat = seed % 2
        players: list[Bot] = [
            GreedyOneTile() if opponent == "greedy one-tile" else BOTS[opponent]() for _ in range(2)
        ]
        players[seat] = BOTS[level](rng=random.Random(seed))
        game = play(players, seed)
        a, b = game.scores[seat], game.scores[1 - seat]
        mine.append(a)
        theirs.append(b)
        wins += 1.0 if a > b else 0.5 if a == b else 0.0
    rate = 100 * wins / games
    took = time.perf_counter() - start
    print(
        f"  {level:<6} vs {opponent}: win rate {rate:5.1f} %  mean score "
        f"{statistics.mean(mine):6.1f} vs {statistics.mean(theirs):6.1f}  ({took:.0f} s)"
    )
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--positions", type=int, default=200)
    args = parser.parse_args()
    bench_search(args.positions)
    print(f"{args.games} seeded 2-player games per level:")
    rates = {level: bench_games(level, args.games) for level in ("easy", "normal", "hard")}
    hard = rates["hard"]
    verdict = "met" if hard >= 75 else f"MISSED by {75 - hard:.1f} points"
    print(f"hard win rate goal >= 75 %: {verdict}")
    print("for scale, against the level below:")
    bench_games("hard", args.games, opponent="normal")


if __name__ == "__main__":
    main()
