"""The Lines ``master`` bot: a rollout search compiled by Numba (the ``[search]`` extra).

Pure Python tops out near 350 points a game on the Color Lines 98 settings
(the ``hard`` bot); colorlines98ai's search, which plays each candidate move
out many times, reaches thousands on Color Lines 98, but only at compiled
speed. So this level is optional: its inner loops (:mod:`.lines_kernel`) are
written in the subset Numba compiles, and the level is offered only where
``pip install 'tilehall[search]'`` brought Numba. The same kernels run as
plain Python too (slowly), which is how the tests check that the compiled run
chooses the very moves the plain one does.

The search (``hybrid``, the default) is ``hard``'s, with one more judge:

1. ``hard`` prunes the legal moves, plays the best out exactly and averages
   its evaluation over sampled throws for its finalists.
2. Each finalist is then played out ``rollouts`` times by the kernels: the
   move, then ``depth`` moves of a softmax policy against random throws (the
   first throw with the previewed colours). A rollout is worth its points,
   the free room it leaves (and, with ``potential``, its chips' line worth),
   or a heavy loss if the game
   ended in it; every finalist faces the same throws (common random numbers).
3. The finalist with the best ``hard`` value plus ``rollout_weight`` times its
   mean rollout (in points) is played.

With ``hybrid`` off it is a pure rollout search as colorlines98ai's
"tournament": every legal move's one-move score (:func:`.lines_kernel.root_moves`),
then successive halving (``stages``: the best few get rollouts, the best of
those more). On seeded Color Lines 98 games that measured weaker than ``hard``
(180 to 260 points against about 350; ``docs/rules/lines.md``), so it is kept
for probes (``bench/lines_bot.py --set=hybrid=False``), not played.

Compiling takes seconds, so it happens once, at start-up or in the background
(:func:`warm`), with Numba's cache in the server's data directory; until it is
done a ``master`` seat plays as ``hard`` does rather than stall a turn. The
think time is capped by ``budget`` (the server's ``search_think``): finalists
not played out by then are left out of the comparison.
"""

from __future__ import annotations

import importlib.util
import logging
import math
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

from tilehall.protocol import Status
from tilehall.server.bots import level_missing
from tilehall.server.bots.base import Bot
from tilehall.server.bots.lines import BOTS as PLAIN_BOTS
from tilehall.server.bots.lines import Candidate, Geometry, HardLinesBot

__all__ = [
    "BOTS",
    "EXTRA_HINT",
    "MasterLinesBot",
    "available",
    "configure",
    "kernel",
    "numba_version",
    "ready",
    "warm",
    "warm_in_background",
]

log = logging.getLogger(__name__)

EXTRA_HINT = "the Lines master level needs the [search] extra: pip install 'tilehall[search]'"
"""What a host is told when ``master`` is asked for without Numba."""

_lock = threading.Lock()
_compiled: ModuleType | None = None
_plain: ModuleType | None = None


def numba_version() -> str | None:
    """Numba's version if it imports, else None (then ``master`` is not offered)."""
    try:
        import numba
    except Exception:  # a broken install is as good as none
        return None
    return str(numba.__version__)


def available() -> bool:
    """Whether the ``master`` level can be offered (Numba imports)."""
    return _numba() is not None


_numba_cache: list[str | None] = []


def _numba() -> str | None:
    if not _numba_cache:
        _numba_cache.append(numba_version())
    return _numba_cache[0]


def ready() -> bool:
    """Whether the compiled kernels are loaded (after :func:`warm`)."""
    return _compiled is not None


def kernel(compiled: bool) -> ModuleType:
    """The kernels: the plain module, or (``compiled``) the Numba copy :func:`warm` made.

    Asking for the compiled copy before :func:`warm` ran raises RuntimeError.
    """
    global _plain
    if not compiled:
        if _plain is None:
            from tilehall.server.bots import lines_kernel

            _plain = lines_kernel
        return _plain
    if _compiled is None:
        raise RuntimeError("the compiled Lines kernels are not built yet: call warm() first")
    return _compiled


def warm(cache_dir: Path | None = None) -> float:
    """Compile the kernels (or load them from Numba's cache in ``cache_dir``); seconds taken.

    A second copy of :mod:`.lines_kernel` is loaded and each of its functions
    replaced by its Numba compilation (``nogil``: the thinking thread lets the
    event loop run), then every kernel is called once on a small board so no
    compile is left for a player's turn. Safe to call from several threads.
    """
    global _compiled
    start = time.perf_counter()
    with _lock:
        if _compiled is not None:
            return 0.0
        import numba

        if cache_dir is not None:
            cache_dir.mkdir(parents=True, exist_ok=True)
            # Read when a cached function is made (below), so set first.
            setattr(numba.config, "CACHE_DIR", str(cache_dir))  # noqa: B010 - untyped module
        plain = kernel(False)
        spec = importlib.util.spec_from_file_location(
            "tilehall.server.bots._lines_kernel_compiled", plain.__file__
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        # Registered, so that Numba's cache can name (and reload) the module its code is from.
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        for name in plain.KERNELS:
            jitted = numba.njit(cache=cache_dir is not None, nogil=True)(getattr(module, name))
            setattr(module, name, jitted)
        _exercise(module)
        _compiled = module
    return time.perf_counter() - start


_started: list[threading.Thread] = []
_cache_dir: list[Path] = []


def configure(cache_dir: Path, *, start: bool) -> None:
    """Where Numba's cache lives (a server's data directory); ``start``: compile now.

    Without ``start`` the compile begins when a ``master`` seat first thinks.
    """
    _cache_dir[:] = [cache_dir]
    if start:
        warm_in_background(cache_dir)


def warm_in_background(cache_dir: Path | None) -> threading.Thread:
    """Compile in a child process, then load the cache here, all off the caller's thread.

    Numba's compiler is Python code that holds the GIL for seconds at a time;
    in a child process it cannot slow the event loop. Loading the compiled
    code from the cache afterwards is quick. Started once; later calls return
    the same thread. Logs when it is done.
    """
    with _lock:
        if _started:
            return _started[0]

        def run() -> None:
            start = time.perf_counter()
            try:
                if cache_dir is not None:
                    subprocess.run(
                        [sys.executable, "-m", __name__, str(cache_dir)],
                        check=True,
                        capture_output=True,
                    )
                warm(cache_dir)
            except Exception:
                log.exception("lines master: the compile failed; master seats play as hard")
                return
            log.info("lines master: compiled search ready (%.1f s)", time.perf_counter() - start)

        thread = threading.Thread(target=run, name="lines-master-compile", daemon=True)
        _started.append(thread)
    thread.start()
    return thread


def _exercise(module: ModuleType) -> None:
    """Call every kernel once, so Numba compiles (or loads) them all now."""
    import numpy as np

    board = np.zeros(25, dtype=np.int64)
    board[:4] = 1
    board[10:12] = 2
    bot = MasterLinesBot
    out = np.empty(3 * 25 * 25, dtype=np.int64)
    shape = np.array(bot.shape_for(5), dtype=np.int64)
    module.root_moves(board, 5, 5, 5, shape, out)
    weights = np.array(bot.softmax_table(), dtype=np.int64)
    known = np.array([1, 2, 3], dtype=np.int64)
    module.rollouts(board, 5, 5, 5, 3, 3, known, 0, 0, 4, 2, 3, 1, shape, weights, 10, 10)


class MasterLinesBot(HardLinesBot):
    """The master bot: ``hard``'s search, its finalists weighed by compiled rollouts.

    ``compiled=False`` runs the plain kernels (tests; far too slow to play).
    Without the compiled kernels ready, and not asked for the plain ones, it
    plays as :class:`HardLinesBot`.
    """

    level = "master"
    think_setting: ClassVar[str] = "search_think"
    stages: ClassVar[tuple[tuple[int, int], ...]] = ((30, 10), (10, 40), (3, 150))
    """(candidates kept, rollouts each) per round of the successive halving."""
    depth: ClassVar[int] = 10
    """Policy moves per rollout after the candidate move."""
    shape: ClassVar[tuple[int, ...]] = (0, 20, 80, 400, 2000, 10000, 50000)
    """Policy worth of a run of 0, 1, 2... chips with room for a line (cut to min_line)."""
    cut: ClassVar[tuple[int, ...]] = (0, 2, 10, 50, 250, 1250, 6250)
    """Policy cost of cutting off a run of 0, 1, 2... chips of another colour."""
    temperature: ClassVar[float] = 4.0
    """Softmax temperature of the rollout policy, in the units of ``shape``."""
    empty_weight: ClassVar[int] = 150
    """Rollout worth of an empty cell at its end (a point is 100)."""
    potential: ClassVar[int] = 0
    """Per cent of the line worth of the chips left at a rollout's end added to its value."""
    static_weight: ClassVar[float] = 0.05
    """Weight of the one-move score beside the rollouts' mean (breaks near-ties)."""
    hybrid: ClassVar[bool] = True
    """Search as ``hard`` does, then weigh its finalists by rollouts (:meth:`lookahead`);
    False: the successive halving of :meth:`search` over every legal move."""
    rollouts: ClassVar[int] = 30
    """Rollouts per finalist (``hybrid``)."""
    rollout_weight: ClassVar[float] = 20.0
    """What a point of a finalist's mean rollout value adds to ``hard``'s value of it."""
    compiled: bool | None = None

    def __init__(
        self, *, rng: Any = None, budget: float = 0.35, compiled: bool | None = None
    ) -> None:
        super().__init__(rng=rng, budget=budget)
        self.compiled = compiled
        self._kern: ModuleType | None = None

    def lookahead(
        self,
        finalists: list[Candidate],
        geo: Geometry,
        view: dict[str, Any],
        w_val: list[float],
        start: float,
    ) -> tuple[int, int]:
        """``hard``'s mean over sampled throws, plus rollouts of every finalist.

        The rollouts see further than one throw: a finalist that often loses
        the game within ``depth`` moves, or scores less on the way, falls back.
        """
        import numpy as np

        kern = self._kern
        if kern is None:
            return super().lookahead(finalists, geo, view, w_val, start)
        throw = view["throw"]
        colours = view["colours"]
        known = view.get("next")
        rng = self.rng
        totals, rounds = self.sampled(finalists, geo, view, w_val, start)
        values = [t / rounds if rounds else f.value for t, f in zip(totals, finalists, strict=True)]
        width, height, min_line = view["width"], view["height"], view["min_line"]
        board = np.array([v for row in view["board"] for v in row], dtype=np.int64)
        shape = np.array(self.shape_for(min_line), dtype=np.int64)
        weights = np.array(self.softmax_table(), dtype=np.int64)
        seed = rng.randrange(1 << 28)
        deadline = start + self.budget
        for n, cand in enumerate(finalists):
            if time.perf_counter() > deadline:
                # Out of time: the finalists not played out keep hard's value alone,
                # so compare only those that were.
                values = values[:n] if n else values
                break
            total = kern.rollouts(
                board,
                width,
                height,
                min_line,
                colours,
                throw,
                np.array(known or [], dtype=np.int64),
                int(view.get("streak", 0)),
                cand.src,
                cand.dst,
                self.rollouts,
                self.depth,
                seed,
                shape,
                weights,
                self.empty_weight,
                self.potential,
            )
            values[n] += self.rollout_weight * int(total) / self.rollouts / 100
        best = max(range(len(values)), key=lambda n: values[n])
        return finalists[best].src, finalists[best].dst

    @classmethod
    def shape_for(cls, min_line: int) -> list[int]:
        """The kernels' ``shape``: ``min_line`` worths of runs, then as many costs of cuts.

        Both are ``shape`` and ``cut`` cut or stretched to ``min_line`` entries
        (a longer line: x3 a chip).
        """
        values = []
        for table in (cls.shape, cls.cut):
            row = list(table[:min_line])
            while len(row) < min_line:
                row.append(row[-1] * 3)
            values.extend(row)
        return values

    @classmethod
    def softmax_table(cls) -> list[int]:
        """Integer softmax weights by how far a move's score is below the best one's.

        Integers keep the plain and compiled runs identical; a move more than
        ``8 * temperature`` below the best weighs nothing.
        """
        span = max(1, int(8 * cls.temperature))
        return [max(1, round(1_000_000 * math.exp(-gap / cls.temperature))) for gap in range(span)]

    def choose(self, view: dict[str, Any]) -> dict[str, Any] | None:
        """The move the search likes best (as ``hard`` until the kernels are compiled)."""
        if view.get("status") != Status.PLAYING or view.get("to_move") != view.get("seat"):
            return None
        use_compiled = self.compiled
        if use_compiled is None:
            if not ready():
                warm_in_background(_cache_dir[0] if _cache_dir else None)
                return super().choose(view)
            use_compiled = True
        if self.hybrid:
            self._kern = kernel(use_compiled)
            try:
                return super().choose(view)
            finally:
                self._kern = None
        start = time.perf_counter()
        width = view["width"]
        move = self.search(view, kernel(use_compiled), start)
        if move is None:
            return None
        src, dst = move
        return {"do": "move", "from": list(divmod(src, width)), "to": list(divmod(dst, width))}

    def search(
        self, view: dict[str, Any], kern: ModuleType, start: float
    ) -> tuple[int, int] | None:
        """Successive halving over the legal moves; ``(src, dst)`` or None when none."""
        import numpy as np

        width, height, min_line = view["width"], view["height"], view["min_line"]
        size = width * height
        board = np.array([v for row in view["board"] for v in row], dtype=np.int64)
        shape = np.array(self.shape_for(min_line), dtype=np.int64)
        out = np.empty(3 * size * size, dtype=np.int64)
        count = int(kern.root_moves(board, width, height, min_line, shape, out))
        if count == 0:
            return None
        triples = out[: 3 * count].reshape(count, 3)
        # Best score first; ties by source then target, so every run orders alike.
        order = np.lexsort((triples[:, 2], triples[:, 1], -triples[:, 0]))
        ranked = [(int(triples[i, 0]), int(triples[i, 1]), int(triples[i, 2])) for i in order]
        if len(ranked) == 1:
            return ranked[0][1], ranked[0][2]
        known = np.array(view.get("next") or [], dtype=np.int64)
        weights = np.array(self.softmax_table(), dtype=np.int64)
        streak = int(view.get("streak", 0))
        seed = self.rng.randrange(1 << 28)
        deadline = start + self.budget
        pool = ranked
        best = (ranked[0][1], ranked[0][2])
        for stage, (keep, rollouts) in enumerate(self.stages):
            pool = pool[:keep]
            if len(pool) == 1:
                return pool[0][1], pool[0][2]
            scored: list[tuple[float, int, int, int]] = []
            for static, src, dst in pool:
                if scored and time.perf_counter() > deadline:
                    break
                total = kern.rollouts(
                    board,
                    width,
                    height,
                    min_line,
                    view["colours"],
                    view["throw"],
                    known,
                    streak,
                    src,
                    dst,
                    rollouts,
                    self.depth,
                    seed + stage * 1_000_003,
                    shape,
                    weights,
                    self.empty_weight,
                    self.potential,
                )
                value = int(total) / rollouts + self.static_weight * static
                scored.append((value, static, src, dst))
            # Stable sort: equal values keep the one-move order.
            scored.sort(key=lambda m: -m[0])
            best = (scored[0][2], scored[0][3])
            if len(scored) < len(pool):
                return best
            pool = [(static, src, dst) for _, static, src, dst in scored]
        return best


def _levels() -> dict[str, type[Bot]]:
    """Lines' levels: the pure-Python ones, and ``master`` where Numba imports."""
    levels = dict(PLAIN_BOTS)
    if available():
        levels["master"] = MasterLinesBot
    else:
        level_missing("lines", "master", EXTRA_HINT)
    return levels


BOTS: dict[str, type[Bot]] = _levels()
"""What the ``tilehall.bots`` entry point of ``lines`` names."""


if __name__ == "__main__":
    # The child process of :func:`warm_in_background`: compile into the cache and exit.
    warm(Path(sys.argv[1]))
