"""Ishido bots over seeded games: score (mean with a 95 % interval), 4-ways, wins, think time.

Run: .venv/bin/python bench/ishido_bot.py [games] [levels...]
         [--level=hard] [--first=0] [--jobs=2] [--budget=0.25]
         [--scoring=ancient] [--four-way=original]

Game ``i`` of a level is seed ``first + i`` for the deal and for the bot's RNG, so
every level plays the same deals and the levels compare game by game: when
``normal`` is among the levels, each other level's mean is also given as a
ratio to normal's, with a paired bootstrap 95 % interval.

Think time is the time of ``choose`` alone (the engine's own work and the view
are not counted), per move, as wall time (``perf_counter``) and as the thinking
thread's CPU time (``thread_time``); on a shared machine the wall figure carries
the other processes' load, the CPU figure does not. ``--jobs`` splits the seeds
over that many processes (at most 2: the machine is shared); ``--budget`` is the
bot's think budget (the server's ``bot_think`` is 0.25 s).
"""

from __future__ import annotations

import math
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tilehall.server.bots.ishido import BOTS
from tilehall.server.games.ishido import Ishido

MAX_JOBS = 2


def play(level: str, seed: int, options: dict[str, str], budget: float) -> dict[str, Any]:
    """One seeded game of ``level``: its result and the think time of each move."""
    game = Ishido(options=options, seats=1, rng=random.Random(seed), now=0.0)
    bot = BOTS[level](rng=random.Random(seed), budget=budget)
    wall: list[float] = []
    cpu: list[float] = []
    while True:
        view = game.view(0)
        w0, c0 = time.perf_counter(), time.thread_time()
        action = bot.choose(view)
        cpu.append(time.thread_time() - c0)
        wall.append(time.perf_counter() - w0)
        if action is None:
            wall.pop()
            cpu.pop()
            break
        game.act(0, action, 0.0)
    return {
        "seed": seed,
        "score": game.scores[0],
        "placed": game.placed,
        "fourways": game.fourways,
        "won": game.won,
        "wall": wall,
        "cpu": cpu,
    }


def _play_many(args: tuple[str, list[int], dict[str, str], float]) -> list[dict[str, Any]]:
    level, seeds, options, budget = args
    return [play(level, seed, options, budget) for seed in seeds]


def run(
    level: str, seeds: list[int], options: dict[str, str], budget: float, jobs: int
) -> list[dict[str, Any]]:
    """Every game of ``level`` on ``seeds``, in seed order, over ``jobs`` processes."""
    if jobs <= 1:
        return _play_many((level, seeds, options, budget))
    chunks = [seeds[i::jobs] for i in range(jobs)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        parts = pool.map(_play_many, [(level, chunk, options, budget) for chunk in chunks])
        games = [g for part in parts for g in part]
    return sorted(games, key=lambda g: g["seed"])


def interval(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95 % interval (normal approximation)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.nan
    return mean, 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def ratio_interval(
    mine: list[float], base: list[float], resamples: int = 2000
) -> tuple[float, float, float]:
    """Ratio of the means over the same seeds, and its paired bootstrap 95 % interval."""
    pick = random.Random(0)
    n = len(mine)
    ratios = []
    for _ in range(resamples):
        idx = [pick.randrange(n) for _ in range(n)]
        ratios.append(sum(mine[i] for i in idx) / max(sum(base[i] for i in idx), 1))
    ratios.sort()
    point = sum(mine) / max(sum(base), 1)
    return point, ratios[int(0.025 * resamples)], ratios[int(0.975 * resamples) - 1]


def summary(level: str, games: list[dict[str, Any]]) -> str:
    scores = [float(g["score"]) for g in games]
    mean, half = interval(scores)
    four, four_half = interval([float(g["fourways"]) for g in games])
    wins = sum(g["won"] for g in games)
    p = wins / len(games)
    win_half = 1.96 * math.sqrt(p * (1 - p) / len(games))
    wall = [t for g in games for t in g["wall"]]
    cpu = [t for g in games for t in g["cpu"]]
    ms = 1000.0
    return (
        f"{level:>7}: score {mean:.0f} ± {half:.0f} (median {statistics.median(scores):.0f}), "
        f"4-ways {four:.2f} ± {four_half:.2f}, won {100 * p:.1f} ± {100 * win_half:.1f} %, "
        f"placed {statistics.fmean(g['placed'] for g in games):.1f}; "
        f"think over {len(wall)} moves: wall p50 {ms * percentile(wall, 0.5):.1f} "
        f"p95 {ms * percentile(wall, 0.95):.1f} max {ms * max(wall):.1f} ms, "
        f"CPU p50 {ms * percentile(cpu, 0.5):.1f} p95 {ms * percentile(cpu, 0.95):.1f} "
        f"max {ms * max(cpu):.1f} ms"
    )


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--"))
    options = {
        "scoring": flags.get("scoring", "modern"),
        "four_way": flags.get("four-way", "touching"),
    }
    games = int(args[0]) if args else 100
    levels = args[1:] or ([flags["level"]] if "level" in flags else sorted(BOTS))
    first = int(flags.get("first", "0"))
    jobs = min(MAX_JOBS, max(1, int(flags.get("jobs", "1"))))
    budget = float(flags.get("budget", "0.25"))
    seeds = list(range(first, first + games))
    print(
        f"{games} seeded games (seeds {first}..{first + games - 1}), options {options}, "
        f"budget {budget} s, {jobs} process(es)"
    )
    results: dict[str, list[dict[str, Any]]] = {}
    for level in levels:
        start = time.perf_counter()
        results[level] = run(level, seeds, options, budget, jobs)
        print(summary(level, results[level]) + f" [{time.perf_counter() - start:.0f} s]")
    if "normal" in results:
        base = [float(g["score"]) for g in results["normal"]]
        for level, played in results.items():
            if level != "normal":
                point, low, high = ratio_interval([float(g["score"]) for g in played], base)
                print(f"{level:>7} / normal: {point:.2f}x (95 % interval {low:.2f}-{high:.2f})")


if __name__ == "__main__":
    main()
