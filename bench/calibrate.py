"""Calibrate the Mathable COMP levels' ratings: a seeded round robin, fitted by maximum likelihood.

Run from a checkout: ``python -m bench.calibrate [--games N] [--jobs N] [--out FILE]``.

Why: a COMP seat counts in a player's rating as an opponent at its level's
published rating (the game's ``bot_ratings``, ``server/games/<game>.py``). A number guessed for
a level credits every win against it with the wrong strength; this bench
measures the levels against each other instead, and the published numbers are
this bench's last fit (``tests/bench/test_calibrate.py`` fails when they differ).

What it does:

1. Every pair of distinct levels plays ``--games`` two-seat games in-process
   (open racks, the default), on seeds ``--seed`` .. ``--seed + games - 1``: the
   game's rng is ``Random(seed)``, each bot's ``Random(f"{seed}:{seat}")`` (as a
   room seeds them), and the first level of the pair sits in seat ``seed % 2``.
   A level against itself tells nothing about ratings and is not played.
2. The results are fitted by maximum likelihood to the Bradley-Terry model on
   the Elo logistic scale that Glicko-2 uses: level i beats level j with
   probability ``1 / (1 + 10 ** ((r_j - r_i) / 400))`` (400 / ln 10 rating
   points per unit of logit); a draw (equal final scores) counts half a win to
   each side. ``normal`` is fixed at 1500; the other levels' ratings are free.
3. The 95 % intervals are Wald intervals from the observed Fisher information
   (the negative Hessian of the log-likelihood at the fit, inverted): rating
   +- 1.96 standard errors. Goal: every half-width under 60 rating points.
4. The fit, the published numbers (the fit rounded to 10 points), the win
   counts, the seeds, the date, the run time and the load go to ``--out``
   (``tests/perf/mathable_calibration.json`` by default); ``-`` only prints.

``hard`` plays with an unbounded think budget by default, so that a run does
not depend on the machine's load: its search then ends by its own bounds (beam
width and depth). The slowest decision of each level is recorded (thread CPU
seconds): when it is under the server's ``--bot-think`` (0.25 s), the server's
``hard`` plays exactly these moves on a machine that gives it the CPU.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

from tilehall.protocol import Status
from tilehall.server.bots.base import Bot
from tilehall.server.bots.mathable import BOTS
from tilehall.server.games.mathable import Mathable

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "perf" / "mathable_calibration.json"
"""Where the last run is kept (checked in): the published ratings must be its fit."""

SCALE = 400.0 / math.log(10.0)
"""Rating points per unit of logit: Elo's and Glicko-2's scale (173.7178)."""
ANCHOR = ("normal", 1500.0)
"""The level whose rating is fixed, and at what: the scale needs one fixed point."""
Z95 = 1.959963984540054
"""The standard normal's 97.5th percentile: a two-sided 95 % interval."""
GOAL = 60.0
"""Every level's 95 % interval should be narrower than +- this many rating points."""
ROUND_TO = 10
"""Published ratings are the fit rounded to this many points (well inside the intervals)."""
SERVER_THINK = 0.25
"""The server's default ``--bot-think`` (seconds), to compare the slowest decision with."""
MAX_ACTIONS = 20_000
"""A game that has not ended after this many actions is a bug in a bot or the engine."""


# -- playing ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Game:
    """One finished game of a pairing, seen from the pairing's first level ``a``."""

    a: str
    b: str
    seed: int
    score_a: int
    score_b: int
    think_a: float
    """The slowest single decision of ``a`` (thread CPU seconds)."""
    think_b: float
    cpu: float
    """The game's thread CPU seconds, both bots and the engine."""

    @property
    def points_a(self) -> float:
        """``a``'s result: 1 for a win, 0.5 for a draw, 0 for a loss."""
        return 1.0 if self.score_a > self.score_b else 0.5 if self.score_a == self.score_b else 0.0


def play(task: tuple[str, str, int, float]) -> Game:
    """Play one seeded game of ``a`` against ``b`` to its end (a worker's job)."""
    a, b, seed, think = task
    start = time.thread_time()
    seat_a = seed % 2
    levels = [a, b] if seat_a == 0 else [b, a]
    players: list[Bot] = [
        BOTS[level](rng=random.Random(f"{seed}:{seat}"), budget=think)
        for seat, level in enumerate(levels)
    ]
    game = Mathable(options={}, seats=2, rng=random.Random(seed), now=0.0, bots=frozenset({0, 1}))
    slowest = [0.0, 0.0]
    for _ in range(MAX_ACTIONS):
        seat = game.to_move
        if seat is None:
            break
        view = game.view(seat)
        t = time.thread_time()
        action = players[seat].choose(view)
        slowest[seat] = max(slowest[seat], time.thread_time() - t)
        if action is None:
            raise RuntimeError(f"{levels[seat]} returned nothing on its turn (seed {seed})")
        game.act(seat, action, 0.0)
    if game.status is not Status.OVER:
        raise RuntimeError(f"{a} v {b}, seed {seed}: no end after {MAX_ACTIONS} actions")
    return Game(
        a=a,
        b=b,
        seed=seed,
        score_a=game.scores[seat_a],
        score_b=game.scores[1 - seat_a],
        think_a=slowest[seat_a],
        think_b=slowest[1 - seat_a],
        cpu=time.thread_time() - start,
    )


def tasks(
    levels: Sequence[str], games: int, first_seed: int, think: float
) -> list[tuple[str, str, int, float]]:
    """Every game of the round robin: each pair of distinct levels on the same seeds."""
    return [
        (a, b, seed, think)
        for a, b in combinations(levels, 2)
        for seed in range(first_seed, first_seed + games)
    ]


def play_all(work: Sequence[tuple[str, str, int, float]], jobs: int) -> list[Game]:
    """Play every game on ``jobs`` processes; the results do not depend on ``jobs``."""
    if jobs <= 1:
        return [play(t) for t in work]
    with multiprocessing.Pool(jobs) as pool:
        out = list(pool.imap_unordered(play, work, chunksize=16))
    return sorted(out, key=lambda g: (g.a, g.b, g.seed))


# -- fitting ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Estimate:
    """A level's fitted rating with its standard error and 95 % Wald interval."""

    rating: float
    se: float

    @property
    def low(self) -> float:
        """The 95 % interval's lower end."""
        return self.rating - Z95 * self.se

    @property
    def high(self) -> float:
        """The 95 % interval's upper end."""
        return self.rating + Z95 * self.se

    @property
    def half_width(self) -> float:
        """Half the 95 % interval's width, in rating points."""
        return Z95 * self.se


Results = Mapping[tuple[str, str], tuple[float, float]]
"""``(i, j) -> (points of i, points of j)`` over their games (a draw is half to each)."""


def expected(r_i: float, r_j: float) -> float:
    """The chance that a player rated ``r_i`` beats one rated ``r_j`` (Elo logistic)."""
    return 1.0 / (1.0 + math.exp((r_j - r_i) / SCALE))


def _log_sigmoid(d: float) -> float:
    """``log(1 / (1 + exp(-d)))``, without overflow for large ``|d|``."""
    return -math.log1p(math.exp(-d)) if d > 0 else d - math.log1p(math.exp(d))


def _inverse(m: list[list[float]]) -> list[list[float]]:
    """The inverse of a small positive definite matrix (Gauss-Jordan, partial pivoting)."""
    n = len(m)
    a = [[*row, *(1.0 if i == j else 0.0 for j in range(n))] for i, row in enumerate(m)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-300:
            raise ValueError("the information matrix is singular: some level played no one")
        a[col], a[pivot] = a[pivot], a[col]
        p = a[col][col]
        a[col] = [x / p for x in a[col]]
        for r in range(n):
            if r != col and a[r][col]:
                f = a[r][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
    return [row[n:] for row in a]


def fit(
    levels: Sequence[str], results: Results, anchor: tuple[str, float] = ANCHOR
) -> dict[str, Estimate]:
    """Maximum-likelihood Bradley-Terry ratings on the Elo scale, ``anchor`` held fixed.

    Newton-Raphson on the logits, halving a step that does not raise the
    likelihood. The standard errors come from the observed Fisher information
    at the fit (for this model it equals the expected one: the Hessian does not
    depend on the results). The anchor's standard error is 0 by definition.
    ValueError when no finite fit exists: a level that won (or lost) every
    point of all its games, or a level cut off from the anchor.
    """
    name, fixed = anchor
    free = [lv for lv in levels if lv != name]
    index = {lv: k for k, lv in enumerate(free)}
    pairs = [(i, j, w_i, w_j) for (i, j), (w_i, w_j) in results.items() if w_i + w_j > 0]
    theta = {lv: 0.0 for lv in levels}

    def loglik(th: Mapping[str, float]) -> float:
        total = 0.0
        for i, j, w_i, w_j in pairs:
            d = th[i] - th[j]
            total += w_i * _log_sigmoid(d) + w_j * _log_sigmoid(-d)
        return total

    def derivatives(th: Mapping[str, float]) -> tuple[list[float], list[list[float]]]:
        grad = [0.0] * len(free)
        info = [[0.0] * len(free) for _ in free]
        for i, j, w_i, w_j in pairs:
            p = 1.0 / (1.0 + math.exp(th[j] - th[i]))
            n = w_i + w_j
            g = w_i - n * p
            h = n * p * (1.0 - p)
            for lv, sign in ((i, 1.0), (j, -1.0)):
                if lv in index:
                    grad[index[lv]] += sign * g
            for x, y, sign in ((i, i, 1.0), (j, j, 1.0), (i, j, -1.0), (j, i, -1.0)):
                if x in index and y in index:
                    info[index[x]][index[y]] += sign * h
        return grad, info

    current = loglik(theta)
    for _ in range(200):
        grad, info = derivatives(theta)
        cov = _inverse(info)
        step = [sum(c * g for c, g in zip(row, grad, strict=True)) for row in cov]
        scale = 1.0
        while True:
            trial = dict(theta)
            for lv, k in index.items():
                trial[lv] = theta[lv] + scale * step[k]
            value = loglik(trial)
            if value >= current - 1e-12 or scale < 1e-6:
                break
            scale /= 2.0
        moved = max((abs(scale * s) for s in step), default=0.0)
        theta, current = trial, value
        if moved < 1e-10:
            break
        if max(abs(t) for t in theta.values()) > 50.0:
            raise ValueError("no finite fit: a level won or lost every point it played")
    else:
        raise ValueError("the fit did not converge")
    _, info = derivatives(theta)
    cov = _inverse(info)
    out = {name: Estimate(fixed, 0.0)}
    for lv, k in index.items():
        out[lv] = Estimate(fixed + SCALE * theta[lv], SCALE * math.sqrt(cov[k][k]))
    return {lv: out[lv] for lv in levels}


def published(estimates: Mapping[str, Estimate]) -> dict[str, float]:
    """The ratings to publish: each fit rounded to :data:`ROUND_TO` points."""
    return {lv: float(round(e.rating / ROUND_TO) * ROUND_TO) for lv, e in estimates.items()}


def tally(games: Iterable[Game]) -> dict[tuple[str, str], dict[str, Any]]:
    """Per pairing: games, wins of each side, draws, mean scores, slowest decisions."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for g in games:
        t = out.setdefault(
            (g.a, g.b),
            {"games": 0, "wins_a": 0, "wins_b": 0, "draws": 0, "sum_a": 0, "sum_b": 0,
             "think_a": 0.0, "think_b": 0.0},
        )  # fmt: skip
        t["games"] += 1
        t["wins_a"] += g.score_a > g.score_b
        t["wins_b"] += g.score_b > g.score_a
        t["draws"] += g.score_a == g.score_b
        t["sum_a"] += g.score_a
        t["sum_b"] += g.score_b
        t["think_a"] = max(t["think_a"], g.think_a)
        t["think_b"] = max(t["think_b"], g.think_b)
    return out


def results_of(
    table: Mapping[tuple[str, str], Mapping[str, Any]],
) -> dict[tuple[str, str], tuple[float, float]]:
    """The points of each side of each pairing, a draw half to each."""
    return {
        pair: (t["wins_a"] + t["draws"] / 2, t["wins_b"] + t["draws"] / 2)
        for pair, t in table.items()
    }


# -- the run ------------------------------------------------------------------------------


def report(
    levels: Sequence[str],
    games: Sequence[Game],
    *,
    per_pairing: int,
    first_seed: int,
    think: float,
    jobs: int,
    wall: float,
    load: tuple[tuple[float, ...], tuple[float, ...]],
    command: str,
) -> dict[str, Any]:
    """What the calibration file holds: the method, the counts, the fit and the run."""
    table = tally(games)
    estimates = fit(levels, results_of(table))
    slowest: dict[str, float] = {lv: 0.0 for lv in levels}
    for (a, b), t in table.items():
        slowest[a] = max(slowest[a], t["think_a"])
        slowest[b] = max(slowest[b], t["think_b"])
    return {
        "game": "mathable",
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(),
        "command": command,
        "model": (
            "Bradley-Terry maximum likelihood on the Elo logistic scale (400/ln 10 points per "
            "logit, as Glicko-2); a draw counts half a win to each side"
        ),
        "anchor": {"level": ANCHOR[0], "rating": ANCHOR[1]},
        "interval": "95 % Wald: fit +- 1.96 standard errors from the observed Fisher information",
        "goal_half_width": GOAL,
        "games_per_pairing": per_pairing,
        "seeds": {
            "first": first_seed,
            "last": first_seed + per_pairing - 1,
            "rule": (
                "game rng Random(seed); bot rng Random(f'{seed}:{seat}'); the pairing's first "
                "level sits in seat seed % 2; 2 seats, open racks"
            ),
        },
        "think_budget": None if math.isinf(think) or think >= 1e9 else think,
        "pairings": [
            {
                "a": a,
                "b": b,
                "games": t["games"],
                "wins_a": t["wins_a"],
                "wins_b": t["wins_b"],
                "draws": t["draws"],
                "mean_score_a": round(t["sum_a"] / t["games"], 1),
                "mean_score_b": round(t["sum_b"] / t["games"], 1),
            }
            for (a, b), t in sorted(table.items())
        ],
        "fit": {
            lv: {
                "rating": round(e.rating, 1),
                "se": round(e.se, 1),
                "low": round(e.low, 1),
                "high": round(e.high, 1),
                "half_width": round(e.half_width, 1),
            }
            for lv, e in estimates.items()
        },
        "published": published(estimates),
        "slowest_decision_cpu_s": {lv: round(s, 4) for lv, s in slowest.items()},
        "run": {
            "jobs": jobs,
            "games": len(games),
            "wall_s": round(wall, 1),
            "cpu_s": round(sum(g.cpu for g in games), 1),
            "load_before": [round(x, 2) for x in load[0]],
            "load_after": [round(x, 2) for x in load[1]],
        },
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Play, fit, print and (unless ``--out -``) write; 1 when an interval misses the goal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per pairing")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes")
    parser.add_argument("--seed", type=int, default=0, help="the first game seed")
    parser.add_argument(
        "--think", type=float, default=math.inf, help="hard's budget, seconds (default: none)"
    )
    parser.add_argument("--out", default=str(OUT), help="the calibration file ('-': print only)")
    args = parser.parse_args(argv)
    levels = tuple(BOTS)
    work = tasks(levels, args.games, args.seed, args.think)
    command = "python -m bench.calibrate " + " ".join(argv if argv is not None else sys.argv[1:])
    load_before = os.getloadavg()
    start = time.perf_counter()
    games = play_all(work, args.jobs)
    wall = time.perf_counter() - start
    data = report(
        levels,
        games,
        per_pairing=args.games,
        first_seed=args.seed,
        think=args.think,
        jobs=args.jobs,
        wall=wall,
        load=(load_before, os.getloadavg()),
        command=command.strip(),
    )
    text = json.dumps(data, indent=2) + "\n"
    for p in data["pairings"]:
        print(
            f"{p['a']:>6} v {p['b']:<6} {p['games']:5d} games: {p['wins_a']:5d}-{p['wins_b']:<5d}"
            f" ({p['draws']} drawn)  mean {p['mean_score_a']:.0f} v {p['mean_score_b']:.0f}"
        )
    worst = 0.0
    for lv, e in data["fit"].items():
        worst = max(worst, e["half_width"])
        print(
            f"{lv:>6}: {e['rating']:7.1f}  95 % [{e['low']:.0f}, {e['high']:.0f}]"
            f"  (+- {e['half_width']:.0f})  published {data['published'][lv]:.0f}"
        )
    run = data["run"]
    print(
        f"{run['games']} games in {run['wall_s']:.0f} s wall, {run['cpu_s']:.0f} s CPU, "
        f"{run['jobs']} jobs; load {run['load_before']} -> {run['load_after']}; slowest "
        f"decision {max(data['slowest_decision_cpu_s'].values()):.3f} s CPU "
        f"(server think {SERVER_THINK} s)"
    )
    met = worst < GOAL
    print(f"goal: every 95 % interval within +- {GOAL:.0f}: {'met' if met else 'MISSED'}")
    if args.out != "-":
        Path(args.out).write_text(text)
        print(f"written: {args.out}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
