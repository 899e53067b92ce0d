"""Lines bots over seeded games on the default options: score and think time.

Run: .venv/bin/python bench/lines_bot.py [games] [level]
         [--budget=0.15] [--first=0] [--max-moves=1500] [--quiet]

Game ``i`` uses engine seed ``first + i``; the bot gets its own RNG (seeded
apart from the engine's, so its sampled throws cannot mirror the real ones).
Each game's line is printed as it ends, then the figures: mean and median
score, and mean and 95th-percentile think time per move (wall time of
``choose``, measured around each call).

The normal bot rarely loses on the default options (in a trial all 20 games
were alive after 6,000 moves, about 12,600 points), so a game is stopped after
``--max-moves`` moves (0: never). A score only grows, so the score at the stop
is a lower bound of the game's final score, and so are the mean and median
printed; the number of games stopped that way is printed too.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tilehall.protocol import Status
from tilehall.server.bots.lines import BOTS
from tilehall.server.games.lines import Lines


def play(seed: int, level: str, budget: float, max_moves: int) -> tuple[int, bool, list[float]]:
    """One game: ``(score, stopped at max_moves, think times)``."""
    game = Lines(options={}, seats=1, rng=random.Random(seed), now=0.0)
    bot = BOTS[level](rng=random.Random(1_000_003 + seed), budget=budget)
    thinks: list[float] = []
    while game.status is Status.PLAYING:
        if max_moves and len(thinks) >= max_moves:
            return game.scores[0], True, thinks
        view = game.view(0)
        start = time.perf_counter()
        action = bot.choose(view)
        thinks.append(time.perf_counter() - start)
        if action is None:
            raise RuntimeError(f"seed {seed}: the bot passed in a live game")
        game.act(0, action, 0.0)
    return game.scores[0], False, thinks


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = {a[2:].partition("=")[0]: a.partition("=")[2] for a in sys.argv[1:] if a[:2] == "--"}
    games = int(args[0]) if args else 100
    level = args[1] if len(args) > 1 else "normal"
    budget = float(flags.get("budget") or 0.15)
    first = int(flags.get("first") or 0)
    max_moves = int(flags.get("max-moves") or 1500)
    quiet = "quiet" in flags
    print(
        f"{level} bot, budget {budget}s, {games} games on default options, "
        f"seeds {first}..{first + games - 1}, stop after {max_moves or 'no limit of'} moves"
    )
    scores: list[int] = []
    moves: list[int] = []
    thinks: list[float] = []
    stopped = 0
    wall = time.perf_counter()
    for seed in range(first, first + games):
        score, cut, times = play(seed, level, budget, max_moves)
        scores.append(score)
        moves.append(len(times))
        stopped += cut
        thinks += times
        if not quiet:
            print(
                f"  seed {seed}: score {score}, {len(times)} moves"
                f"{' (stopped, still alive)' if cut else ''}, "
                f"think mean {1000 * statistics.mean(times):.1f} ms",
                flush=True,
            )
    bound = " (lower bounds)" if stopped else ""
    print(
        f"score{bound}: mean {statistics.mean(scores):.1f}, "
        f"median {statistics.median(scores):.1f}, min {min(scores)}, max {max(scores)}"
    )
    print(f"games stopped alive at the move limit: {stopped} of {games}")
    print(f"moves per game: mean {statistics.mean(moves):.0f}")
    print(
        f"think per move: mean {1000 * statistics.mean(thinks):.1f} ms, "
        f"p95 {1000 * percentile(thinks, 0.95):.1f} ms, max {1000 * max(thinks):.1f} ms"
    )
    print(f"wall time {time.perf_counter() - wall:.0f} s")


if __name__ == "__main__":
    main()
