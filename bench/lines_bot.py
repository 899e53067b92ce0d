"""Lines bots over seeded games: score, moves survived and think time.

Run: .venv/bin/python bench/lines_bot.py [games] [level]
         [--level=normal] [--cl98] [--preview | --no-preview] [--jobs=1] [--budget=0.25]
         [--first=0] [--max-moves=1500] [--set=name=value[,name=value...]] [--quiet]

``--cl98`` plays the classic Color Lines 98 settings (9x9, 7 colours, 3 chips
a throw, lines of 5) with the preview of the next colours on, as Color Lines
98 shows them; ``--preview`` turns the preview on (for the default options),
``--no-preview`` off (for ``--cl98``).
Color Lines 98 also shows where the next chips will land; Tilehall's preview
shows their colours only, the cells are drawn when the chips are thrown.

Game ``i`` uses engine seed ``first + i``; the bot gets its own RNG (seeded
apart from the engine's, so its sampled throws cannot mirror the real ones).
``--jobs N`` plays N games at once in worker processes; each game's line is
printed as it ends (so a run cut short still says what it saw), then the
figures (of the games done so far, if the run is interrupted with SIGINT): mean
score with a 95 % confidence interval (normal approximation,
``1.96 s / sqrt(n)``), median, moves per game, and think time per move, both
wall (``perf_counter``) and CPU of the thinking thread (``thread_time``)
around each ``choose``: wall time grows with the machine's load, CPU time
does not.

``--level=master`` (the ``[search]`` extra) compiles its kernels, or loads
them from Numba's cache in the data directory, before the first game, so no
move's think time includes a compile.

``--set`` plays a variant of the level: each ``name=value`` overrides one of
the bot class's tuning attributes (``--set=ready_cap=3,finalists=6``; values
are Python literals, so ``--set=window_base=(0.0,0.0,4.0,12.0,30.0)`` works
too). The level itself is unchanged; this is for probes.

A game is stopped after ``--max-moves`` moves (0: never). A score only grows,
so the score at the stop is a lower bound of the game's final score, and so
are the mean and median printed; the number of games stopped that way is
printed too.
"""

from __future__ import annotations

import ast
import math
import multiprocessing
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tilehall.protocol import Status
from tilehall.server.bots import lines_master
from tilehall.server.bots.lines_master import BOTS
from tilehall.server.config import default_data_dir
from tilehall.server.games.lines import Lines

CL98: dict[str, Any] = {
    "width": 9,
    "height": 9,
    "colours": 7,
    "throw": 3,
    "min_line": 5,
    "preview": True,
}
"""Color Lines 98: 9x9, seven colours, three a throw, lines of five, next colours shown."""


class Game(NamedTuple):
    """One finished (or stopped) game."""

    seed: int
    score: int
    stopped: bool
    wall: list[float]
    cpu: list[float]


def overrides(spec: str) -> dict[str, Any]:
    """``name=value,...`` (values Python literals) as a dict; commas inside brackets stay."""
    found: dict[str, Any] = {}
    depth = 0
    part = ""
    for ch in spec + ",":
        if ch == "," and depth == 0:
            if part:
                name, _, value = part.partition("=")
                found[name.strip()] = ast.literal_eval(value.strip())
            part = ""
            continue
        depth += ch in "([{"
        depth -= ch in ")]}"
        part += ch
    return found


def play(
    seed: int,
    level: str,
    budget: float,
    max_moves: int,
    options: dict[str, Any],
    tweaks: dict[str, Any] | None = None,
) -> Game:
    """One game, with the think time of every move."""
    if level == "master":
        # Compiled (or loaded from the cache) before the game, never in a move's time.
        lines_master.warm(default_data_dir() / "numba")
    game = Lines(options=options, seats=1, rng=random.Random(seed), now=0.0)
    cls = BOTS[level]
    if tweaks:
        cls = type(f"{cls.__name__}Variant", (cls,), dict(tweaks))
    bot = cls(rng=random.Random(1_000_003 + seed), budget=budget)
    wall: list[float] = []
    cpu: list[float] = []
    while game.status is Status.PLAYING:
        if max_moves and len(wall) >= max_moves:
            return Game(seed, game.scores[0], True, wall, cpu)
        view = game.view(0)
        start, start_cpu = time.perf_counter(), time.thread_time()
        action = bot.choose(view)
        cpu.append(time.thread_time() - start_cpu)
        wall.append(time.perf_counter() - start)
        if action is None:
            raise RuntimeError(f"seed {seed}: the bot passed in a live game")
        game.act(0, action, 0.0)
    return Game(seed, game.scores[0], False, wall, cpu)


def _play(args: tuple[int, str, float, int, dict[str, Any], dict[str, Any]]) -> Game:
    return play(*args)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def interval(values: list[int]) -> float:
    """Half the width of the 95 % confidence interval of the mean (0 for one game)."""
    if len(values) < 2:
        return 0.0
    return 1.96 * statistics.stdev(values) / math.sqrt(len(values))


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = {a[2:].partition("=")[0]: a.partition("=")[2] for a in sys.argv[1:] if a[:2] == "--"}
    games = int(args[0]) if args else 100
    level = flags.get("level") or (args[1] if len(args) > 1 else "normal")
    budget = float(flags.get("budget") or 0.25)
    first = int(flags.get("first") or 0)
    max_moves = int(flags.get("max-moves") or 1500)
    jobs = int(flags.get("jobs") or 1)
    quiet = "quiet" in flags
    tweaks = overrides(flags.get("set") or "")
    for name in tweaks:
        if not hasattr(BOTS[level], name):
            raise SystemExit(f"--set: the {level} bot has no attribute {name!r}")
    options: dict[str, Any] = dict(CL98) if "cl98" in flags else {}
    if "preview" in flags:
        options["preview"] = True
    if "no-preview" in flags:
        options["preview"] = False
    setting = f"options {options or 'default'}"
    if "cl98" in flags:
        setting = f"Color Lines 98 (preview {'on' if options['preview'] else 'off'})"
    print(
        f"{level} bot, budget {budget}s, {games} games, {setting}, "
        f"seeds {first}..{first + games - 1}, stop after {max_moves or 'no limit of'} moves, "
        f"{jobs} job(s){f', variant {tweaks}' if tweaks else ''}",
        flush=True,
    )
    if level == "master":
        # Once here, so that the workers find the compiled kernels in the cache.
        print(f"master: kernels ready in {lines_master.warm(default_data_dir() / 'numba'):.1f} s")
    tasks = [
        (seed, level, budget, max_moves, options, tweaks) for seed in range(first, first + games)
    ]
    done: list[Game] = []
    wall_start = time.perf_counter()
    with multiprocessing.Pool(jobs) as pool:
        try:
            for result in pool.imap_unordered(_play, tasks):
                done.append(result)
                if not quiet:
                    print(
                        f"  seed {result.seed}: score {result.score}, {len(result.wall)} moves"
                        f"{' (stopped, still alive)' if result.stopped else ''}, think mean "
                        f"{1000 * statistics.mean(result.cpu):.1f} ms CPU, "
                        f"{1000 * statistics.mean(result.wall):.1f} ms wall",
                        flush=True,
                    )
        except KeyboardInterrupt:
            # A long run cut short (Ctrl-C, or kill -INT): the figures of the games done.
            pool.terminate()
            print(f"interrupted: {len(done)} of {games} games done", flush=True)
            if not done:
                raise
    scores = [g.score for g in done]
    moves = [len(g.wall) for g in done]
    wall = [t for g in done for t in g.wall]
    cpu = [t for g in done for t in g.cpu]
    stopped = sum(g.stopped for g in done)
    bound = " (lower bounds)" if stopped else ""
    print(
        f"score{bound}: mean {statistics.mean(scores):.1f} ± {interval(scores):.1f} (95 % CI), "
        f"median {statistics.median(scores):.1f}, min {min(scores)}, max {max(scores)}"
    )
    print(f"games stopped alive at the move limit: {stopped} of {len(done)}")
    print(f"moves per game: mean {statistics.mean(moves):.0f}, median {statistics.median(moves)}")
    for name, times in (("CPU", cpu), ("wall", wall)):
        print(
            f"think per move ({name}): mean {1000 * statistics.mean(times):.1f} ms, "
            f"p95 {1000 * percentile(times, 0.95):.1f} ms, max {1000 * max(times):.1f} ms"
        )
    print(f"{len(wall)} moves, wall time {time.perf_counter() - wall_start:.0f} s")


if __name__ == "__main__":
    main()
