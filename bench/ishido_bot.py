"""Ishido bots over seeded games: mean score, stones placed, wins and 4-ways.

Run: .venv/bin/python bench/ishido_bot.py [games] [levels...]
         [--scoring=ancient] [--four-way=original]
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tilehall.server.bots.ishido import BOTS
from tilehall.server.games.ishido import Ishido


def run(level: str, games: int, options: dict[str, str]) -> dict[str, float]:
    scores, placed, fourways, wins, moves = [], [], [], 0, 0
    start = time.perf_counter()
    for seed in range(games):
        game = Ishido(options=options, seats=1, rng=random.Random(seed), now=0.0)
        bot = BOTS[level](rng=random.Random(seed))
        while (action := bot.choose(game.view(0))) is not None:
            game.act(0, action, 0.0)
            moves += 1
        scores.append(game.scores[0])
        placed.append(game.placed)
        fourways.append(game.fourways)
        wins += game.won
    elapsed = time.perf_counter() - start
    return {
        "mean score": statistics.mean(scores),
        "median score": statistics.median(scores),
        "mean placed": statistics.mean(placed),
        "wins %": 100 * wins / games,
        "mean 4-ways": statistics.mean(fourways),
        "ms/move": 1000 * elapsed / max(moves, 1),
    }


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--"))
    options = {
        "scoring": flags.get("scoring", "modern"),
        "four_way": flags.get("four-way", "touching"),
    }
    games = int(args[0]) if args else 100
    levels = args[1:] or sorted(BOTS)
    print(f"{games} seeded games (seeds 0..{games - 1}), options {options}")
    for level in levels:
        figures = run(level, games, options)
        print(f"{level:>8}: " + ", ".join(f"{k} {v:.1f}" for k, v in figures.items()))


if __name__ == "__main__":
    main()
