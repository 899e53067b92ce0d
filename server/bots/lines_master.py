"""The Lines ``master`` bot: a playout search compiled by Numba (the ``[search]`` extra).

Pure Python tops out near 350 points a game on the Color Lines 98 settings
(the ``hard`` bot); colorlines98ai's search, which plays each candidate move
out many times, reaches thousands on Color Lines 98, but only at compiled
speed. So this level is optional: its inner loops (:mod:`.lines_kernel`) are
written in the subset Numba compiles, and the level is offered only where
``pip install 'tilehall[search]'`` brought Numba. The same kernels run as
plain Python too (slowly), which is how the tests check that the compiled run
chooses the very moves the plain one does.

The search:

1. ``hard`` prunes the legal moves and plays its best ``candidates`` out
   exactly; its ``finalists`` best by its value of the move go on, each
   valued by ``hard``'s mean over its sampled throws.
2. Successive halving (``stages``): each round plays every surviving
   finalist out ``n`` more times (:func:`.lines_kernel.playouts`: the move,
   then ``depth`` moves of a softmax over a one-move line heuristic against
   random throws, the first throw with the previewed colours) and keeps the
   best few. A playout is worth its points, plus ``death`` if the game ended in
   it; every finalist faces the same throws (common random numbers).
3. A finalist's value is its mean playout in points plus ``static_weight``
   times ``hard``'s (colorlines98ai found such a one-move term beside the
   rollouts' mean decisive, 0.0 against 0.1 tripling its score).

Compiling takes seconds, so it happens once, at start-up or in the background
(:func:`warm`), with Numba's cache in the server's data directory; until it is
done a ``master`` seat plays as ``hard`` does rather than stall a turn. The
think time is capped by ``budget`` (the server's ``search_think``): a round
cut short by it ranks only the finalists it played out, and ends the search.
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
    weights = np.array(bot.softmax_table(), dtype=np.int64)
    known = np.array([1, 2, 3], dtype=np.int64)
    feat = np.array(bot.feat, dtype=np.int64)
    module.playouts(board, 5, 5, 5, 3, 3, known, 0, 0, 4, 0, 2, 3, 1, feat, weights, -10, 1)


class MasterLinesBot(HardLinesBot):
    """The master bot: ``hard``'s best moves, compared by compiled heuristic playouts.

    ``compiled=False`` runs the plain kernels (tests; far too slow to play).
    Without the compiled kernels ready, and not asked for the plain ones, it
    plays as :class:`HardLinesBot`.
    """

    level = "master"
    think_setting: ClassVar[str] = "search_think"
    finalists: ClassVar[int] = 8
    """``hard``'s best moves the playouts compare."""
    stages: ClassVar[tuple[tuple[int, int], ...]] = ((8, 16), (3, 48))
    """(finalists kept, playouts each) per round of the successive halving."""
    depth: ClassVar[int] = 14
    """Heuristic moves per playout after the finalist."""
    feat: ClassVar[tuple[int, ...]] = (146, 1094, 57, 14, 24)
    """The playout policy's weights (:mod:`.lines_kernel`, tenths)."""
    temperature: ClassVar[float] = 32.0
    """Softmax temperature of the playout policy, in the units of ``feat``."""
    death: ClassVar[int] = -5000
    """A playout's worth when the game ended in it, beside its points (100 a point)."""
    empty_weight: ClassVar[int] = 0
    """Playout worth of an empty cell at its end (a point is 100)."""
    static_weight: ClassVar[float] = 0.1
    """Weight of ``hard``'s value of a finalist beside the playouts' mean (in points)."""
    sampled_prior: ClassVar[bool] = True
    """Weigh ``hard``'s mean value over its sampled throws (its own final judgement) beside the
    playouts, not its value of the move alone: +100 points a game on ten paired seeds."""
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
        """Successive halving of ``hard``'s finalists by heuristic playouts.

        Every round plays each surviving finalist out ``n`` more times (the same
        throws for all, numbered on from the last round) and keeps the best
        few by mean playout value plus ``static_weight`` times ``hard``'s value
        (with ``sampled_prior``, its mean over the sampled throws).
        """
        import numpy as np

        kern = self._kern
        if kern is None:
            return super().lookahead(finalists, geo, view, w_val, start)
        width, height, min_line = view["width"], view["height"], view["min_line"]
        board = np.array([v for row in view["board"] for v in row], dtype=np.int64)
        known = np.array(view.get("next") or [], dtype=np.int64)
        feat = np.array(self.feat, dtype=np.int64)
        weights = np.array(self.softmax_table(), dtype=np.int64)
        seed = self.rng.randrange(1 << 28)
        streak = int(view.get("streak", 0))
        prior = [f.value for f in finalists]
        if self.sampled_prior:
            sums, rounds = self.sampled(finalists, geo, view, w_val, start)
            if rounds:
                prior = [t / rounds for t in sums]
        deadline = start + self.budget
        pool = list(range(len(finalists)))
        totals = [0] * len(finalists)
        played = 0
        for keep, count in self.stages:
            pool = pool[:keep]
            if len(pool) == 1:
                break
            done: list[int] = []
            for n in pool:
                if time.perf_counter() > deadline:
                    break
                cand = finalists[n]
                totals[n] += int(
                    kern.playouts(
                        board,
                        width,
                        height,
                        min_line,
                        view["colours"],
                        view["throw"],
                        known,
                        streak,
                        cand.src,
                        cand.dst,
                        played,
                        count,
                        self.depth,
                        seed,
                        feat,
                        weights,
                        self.death,
                        self.empty_weight,
                    )
                )
                done.append(n)
            if not done:
                break  # out of time: the last round's order (at first hard's) stands
            played += count
            cut_short = len(done) < len(pool)

            value = {n: totals[n] / played / 100 + self.static_weight * prior[n] for n in done}
            # Stable: equal values keep hard's order.
            pool = sorted(done, key=lambda n: -value[n])
            if cut_short:
                break
        best = finalists[pool[0]]
        return best.src, best.dst

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
        self._kern = kernel(use_compiled)
        try:
            return super().choose(view)
        finally:
            self._kern = None


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
