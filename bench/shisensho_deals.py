"""Shisen-Sho deal and solver timings for Match-It and LinkSame.

Run: ``.venv/bin/python bench/shisensho_deals.py [--count N] [--random N] [--seed S]``

Prints, per game and size, wall-clock and CPU milliseconds (the CPU figure is
what the code costs; wall time also counts waiting for a core on a busy
machine):

* deal generation (blank play + painting + solver confirmation), what a room
  waits for when a sheet or stage starts; goal p95 < 50 ms for Match-It and
  LinkSame Hard;
* the solver on the dealt boards (what a hint or a bot pays on a full board);
* the solver on shuffled Hard boards, which nothing promises can be cleared:
  the hard case for the search, with how often it solves, proves a board
  stuck, or gives up at its 20,000-node budget.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Any

from tilehall.server.games import linksame, matchit
from tilehall.server.games.shisensho import deal_random, identity_key, movement, solve


class Timings:
    """Wall and CPU milliseconds of repeated calls."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def run(self, fn: Callable[[], Any]) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        out = fn()
        self.cpu.append((time.process_time() - cpu) * 1000)
        self.wall.append((time.perf_counter() - wall) * 1000)
        return out

    def extend(self, other: Timings) -> None:
        self.wall += other.wall
        self.cpu += other.cpu

    def report(self, label: str, extra: str = "") -> None:
        w, c = self.wall, self.cpu
        print(
            f"  {label:<34} wall p50 {pct(w, 0.5):6.1f} p95 {pct(w, 0.95):6.1f} max {max(w):6.1f}"
            f" | cpu p50 {pct(c, 0.5):6.1f} p95 {pct(c, 0.95):6.1f} ms  {extra}"
        )


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def bench_matchit(count: int, seed: int) -> None:
    print(f"Match-It 16x6, {count} deals per level")
    rng = random.Random(seed)
    every = Timings()
    for level in (1, 5, 10, 15):
        deals, solves = Timings(), Timings()
        nodes, difficulty = [], []
        for _ in range(count):
            board, solution = deals.run(partial(matchit.deal_sheet, level, rng))
            difficulty.append(matchit.sheet_difficulty(board, solution).score)
            nodes.append(solves.run(partial(solve, board, matchit.match_key)).nodes)
        every.extend(deals)
        deals.report(f"deal, level {level}", f"difficulty mean {statistics.mean(difficulty):.1f}")
        solves.report(f"solve dealt, level {level}", f"nodes p95 {pct(nodes, 0.95):.0f}")
    every.report("deal, all levels")


def bench_linksame(count: int, seed: int) -> None:
    for size, (rows, cols) in linksame.SIZES.items():
        print(f"LinkSame {size} {cols}x{rows}, {count} deals per stage")
        rng = random.Random(seed)
        every = Timings()
        for stage in range(9):
            rule = movement(stage, rows, cols)
            deals, solves = Timings(), Timings()
            for _ in range(count):
                board = deals.run(partial(linksame.deal_stage, rows, cols, rule, rng))
                solves.run(partial(solve, board, identity_key, rule))
            every.extend(deals)
            deals.report(
                f"deal, stage {stage} {rule.name}",
                f"(solve dealt: cpu p95 {pct(solves.cpu, 0.95):.1f} ms)",
            )
        every.report("deal, all stages")


def bench_random_hard(count: int, seed: int) -> None:
    if count <= 0:
        return
    rows, cols = linksame.SIZES["hard"]
    tiles = [k for k in range(rows * cols // 4) for _ in range(4)]
    print(f"Solver on shuffled (not dealt) Hard boards, {count} per rule, budget 20,000 nodes")
    rng = random.Random(seed)
    for stage in (0, 1, 4, 8):
        rule = movement(stage, rows, cols)
        solves = Timings()
        outcomes: Counter[str] = Counter()
        for _ in range(count):
            board = deal_random(rows, cols, tiles, rng)
            outcomes[solves.run(partial(solve, board, identity_key, rule)).outcome.value] += 1
        solves.report(f"stage {stage} {rule.name}", str(dict(outcomes)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100, help="deals per level/stage")
    parser.add_argument("--random", type=int, default=10, help="shuffled Hard boards per rule")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    bench_matchit(args.count, args.seed)
    bench_linksame(args.count, args.seed)
    bench_random_hard(args.random, args.seed)


if __name__ == "__main__":
    main()
