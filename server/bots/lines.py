"""Lines bots: line potential, mobility and ready lines, plus sampled throws.

The bot sees what the player sees: the board, the options and (with ``preview``)
the colours of the next throw. It works on a flat board (row-major list of ints)
with precomputed geometry, because Python is slow and a decision may weigh some
1,500 legal moves:

1. Every legal move gets a cheap *static* score: the change in line potential of
   the windows (every ``min_line``-long segment in the four directions) that the
   move touches. A window holding chips of one colour only is worth ``W[c]``
   for ``c`` chips; a mixed window is worth nothing. The change is computed from
   per-cell tables (what a chip of colour k adds at t, what lifting the chip at
   s costs) plus an exact correction for windows holding both s and t.
2. The best ``candidates`` are played out exactly (lines removed, points) and
   valued: window potential, free cells (bit masks), free cells cut off from
   the largest empty region, and *ready* lines - windows one chip short whose
   gap a chip of their colour can reach, i.e. a score on the next move.
3. The best ``finalists`` are compared by their mean value over ``samples``
   sampled throws (colours known with preview, else drawn), stopping early
   when ``budget`` runs short. A scoring move faces no throw: its value stands.

Tuned on seeded games (7 colours for quick comparisons, then the defaults): the
ready-line term was worth about +50%; more samples or finalists did not help.

The hard bot (:class:`HardLinesBot`) adds *near* lines (two chips short, both
gaps reachable by chips of their colour) to the evaluation and searches wider:
40 candidates, 12 finalists, 32 throws. Under Color Lines 98 settings it
survives somewhat longer than the normal bot (about 200 moves and 330-350
points a game, against 160 and 275), not the thousands of moves of a good
player; ``tests/perf/RESULTS.md`` has the figures and what was tried (two
sessions: weights, ready and near lines, streaks, longer lines, a fitted
survival term; none lifted it measurably).
"""

from __future__ import annotations

import time
from functools import cache
from typing import Any, ClassVar, NamedTuple

from tilehall.protocol import Status
from tilehall.server.bots.base import Bot
from tilehall.server.games.lines import LINE_DIRECTIONS, line_points

__all__ = ["BOTS", "EasyLinesBot", "Geometry", "HardLinesBot", "LinesBot", "geometry"]


class Geometry:
    """Precomputed neighbours, windows and rays of one board shape."""

    __slots__ = (
        "bits",
        "cell_windows",
        "height",
        "min_line",
        "nbrs",
        "pair_windows",
        "rays",
        "size",
        "stride",
        "width",
        "win_masks",
        "windows",
    )

    def __init__(self, width: int, height: int, min_line: int) -> None:
        self.width = width
        self.height = height
        self.min_line = min_line
        self.size = size = width * height
        # Bit masks of cells, one spare column per row so that shifting a mask
        # left or right never wraps a cell onto the next row.
        self.stride = width + 1
        self.bits = [1 << (i // width * self.stride + i % width) for i in range(size)]
        self.nbrs: list[tuple[int, ...]] = []
        for i in range(size):
            r, c = divmod(i, width)
            around = [
                rr * width + cc
                for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                if 0 <= rr < height and 0 <= cc < width
            ]
            self.nbrs.append(tuple(around))
        windows: list[tuple[int, ...]] = []
        for dr, dc in LINE_DIRECTIONS:
            for r in range(height):
                for c in range(width):
                    er, ec = r + (min_line - 1) * dr, c + (min_line - 1) * dc
                    if 0 <= er < height and 0 <= ec < width:
                        windows.append(
                            tuple((r + k * dr) * width + c + k * dc for k in range(min_line))
                        )
        self.windows = windows
        self.win_masks = [0] * len(windows)
        cell_windows: list[list[int]] = [[] for _ in range(size)]
        pair_windows: dict[int, list[int]] = {}
        for wi, win in enumerate(windows):
            for a in win:
                cell_windows[a].append(wi)
                for b in win:
                    if a != b:
                        pair_windows.setdefault(a * size + b, []).append(wi)
        self.cell_windows = [tuple(ws) for ws in cell_windows]
        for wi, win in enumerate(windows):
            for i in win:
                self.win_masks[wi] |= self.bits[i]
        self.pair_windows = {k: tuple(v) for k, v in pair_windows.items()}
        # rays[i]: for each direction, the cells forward and the cells backward.
        self.rays: list[tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]] = []
        for i in range(size):
            r, c = divmod(i, width)
            per_dir = []
            for dr, dc in LINE_DIRECTIONS:
                halves = []
                for sign in (1, -1):
                    cells = []
                    rr, cc = r + sign * dr, c + sign * dc
                    while 0 <= rr < height and 0 <= cc < width:
                        cells.append(rr * width + cc)
                        rr, cc = rr + sign * dr, cc + sign * dc
                    halves.append(tuple(cells))
                per_dir.append((halves[0], halves[1]))
            self.rays.append(tuple(per_dir))

    def line_cells(self, board: list[int], index: int) -> list[int]:
        """Cells of every line of ``min_line`` or more through ``index`` (may repeat none)."""
        colour = board[index]
        found: list[int] = []
        for fwd, back in self.rays[index]:
            run: list[int] = []
            for cell in fwd:
                if board[cell] != colour:
                    break
                run.append(cell)
            for cell in back:
                if board[cell] != colour:
                    break
                run.append(cell)
            if len(run) + 1 >= self.min_line:
                found.extend(run)
        if found:
            found.append(index)
        return found


@cache
def geometry(width: int, height: int, min_line: int) -> Geometry:
    """The shared :class:`Geometry` of a board shape (boards are few; build each once)."""
    return Geometry(width, height, min_line)


class LinesBot(Bot):
    """The normal bot: static pruning, exact play-out, sampled throws within ``budget``."""

    game = "lines"
    level = "normal"

    # Value of a window holding c chips of one colour (index min_line: completed).
    window_base: ClassVar[tuple[float, ...]] = (0.0, 1.0, 4.0, 12.0, 30.0)
    empty_weight: ClassVar[float] = 6.0
    isolated_weight: ClassVar[float] = 3.0
    points_weight: ClassVar[float] = 60.0
    candidates: ClassVar[int] = 24
    finalists: ClassVar[int] = 6
    samples: ClassVar[int] = 16
    ready_weight: ClassVar[float] = 70.0
    ready_cap: ClassVar[int] = 2

    def __init__(self, *, rng: Any = None, budget: float = 0.15) -> None:
        super().__init__(rng=rng, budget=budget)

    # -- entry point -------------------------------------------------------------

    def choose(self, view: dict[str, Any]) -> dict[str, Any] | None:
        """Return the move this bot likes best, or None when it cannot move."""
        if view.get("status") != Status.PLAYING or view.get("to_move") != view.get("seat"):
            return None
        start = time.perf_counter()
        width, height = view["width"], view["height"]
        geo = geometry(width, height, view["min_line"])
        board = [v for row in view["board"] for v in row]
        move = self.pick(board, geo, view, start)
        if move is None:
            return None
        src, dst = move
        return {"do": "move", "from": list(divmod(src, width)), "to": list(divmod(dst, width))}

    # -- search ------------------------------------------------------------------

    def weights(self, min_line: int) -> list[float]:
        """``W[c]`` for c = 0..min_line; the completed line dominates."""
        base = list(self.window_base)
        while len(base) < min_line:
            base.append(base[-1] * 2.5)
        w = base[:min_line]
        w.append(w[-1] * 4.0)
        return w

    def pick(
        self, board: list[int], geo: Geometry, view: dict[str, Any], start: float
    ) -> tuple[int, int] | None:
        """Choose ``(src, dst)`` flat indices: prune, play out, then sample throws."""
        moves = self.static_moves(board, geo, view)
        if not moves:
            return None
        moves.sort(key=lambda m: -m[0])
        streak = view.get("streak", 0)
        w_val = self.weights(geo.min_line)
        root = window_values(board, geo, w_val)
        root_mask = empty_mask(board, geo)
        bits = geo.bits
        short = w_val[geo.min_line - 1]
        scored: list[Candidate] = []
        for _, src, dst in moves[: self.candidates]:
            after, removed = play(board, geo, src, dst)
            points = 0
            if removed:
                points = line_points(len(removed), geo.min_line, streak)
            vals = root[:]
            lines = update_windows(after, geo, w_val, vals, [src, dst, *removed])
            mask = root_mask ^ bits[src] ^ bits[dst]
            for i in removed:
                mask |= bits[i]
            ready = [wi for wi, v in enumerate(vals) if v == short]
            value = lines + self.mobility(mask, geo) + points * self.points_weight
            value += self.readiness(after, geo, mask, ready)
            scored.append(Candidate(value, src, dst, points, after, vals, lines, mask, ready))
        scored.sort(key=lambda m: -m.value)
        finalists = scored[: self.finalists]
        if len(finalists) == 1 or self.samples == 0 or all(f.points for f in finalists):
            return finalists[0].src, finalists[0].dst
        return self.lookahead(finalists, geo, view, w_val, start)

    def lookahead(
        self,
        finalists: list[Candidate],
        geo: Geometry,
        view: dict[str, Any],
        w_val: list[float],
        start: float,
    ) -> tuple[int, int]:
        """Compare finalists by their mean value after sampled throws.

        A scoring move faces no throw, so its value is exact. The samples use
        common random numbers: one cell order and one set of colours per sample
        serve every finalist, so the comparison is not drowned in throw noise.
        """
        totals, rounds = self.sampled(finalists, geo, view, w_val, start)
        if rounds == 0:
            return finalists[0].src, finalists[0].dst
        best = max(range(len(finalists)), key=lambda n: totals[n])
        return finalists[best].src, finalists[best].dst

    def sampled(
        self,
        finalists: list[Candidate],
        geo: Geometry,
        view: dict[str, Any],
        w_val: list[float],
        start: float,
    ) -> tuple[list[float], int]:
        """Each finalist's total value over the sampled throws, and how many were sampled
        within the budget (:meth:`lookahead`; ``master`` weighs them with its rollouts)."""
        throw = view["throw"]
        colours = view["colours"]
        known = view.get("next")
        order = list(range(geo.size))
        rng = self.rng
        deadline = start + self.budget * 0.8
        totals = [0.0] * len(finalists)
        rounds = 0
        while rounds < self.samples and time.perf_counter() < deadline:
            rng.shuffle(order)
            cols = list(known) if known else [rng.randint(1, colours) for _ in range(throw)]
            for n, cand in enumerate(finalists):
                if cand.points:
                    totals[n] += cand.value
                else:
                    totals[n] += self.after_throw(cand, geo, w_val, order, cols)
            rounds += 1
        return totals, rounds

    def after_throw(
        self,
        cand: Candidate,
        geo: Geometry,
        w_val: list[float],
        order: list[int],
        cols: list[int],
    ) -> float:
        """The value of the candidate's board after one sampled throw.

        The chips land on the first empty cells of ``order``; lines they make
        are removed and score, as in the engine.
        """
        board = cand.board[:]
        cells = landing_cells(board, order, len(cols))
        if cells is None:
            return LOST
        for i, k in zip(cells, cols, strict=True):
            board[i] = k
        removed: set[int] = set()
        for i in cells:
            removed.update(geo.line_cells(board, i))
        points = 0
        if removed:
            for i in removed:
                board[i] = 0
            points = line_points(len(removed), geo.min_line, 0)
        changed = [*cells, *removed]
        delta, ready = rescore(board, geo, w_val, cand.windows, cand.ready, changed)
        bits = geo.bits
        mask = cand.empty
        for i in cells:
            mask ^= bits[i]
        for i in removed:
            mask |= bits[i]
        value = cand.lines + delta + self.mobility(mask, geo) + points * self.points_weight
        return value + self.readiness(board, geo, mask, ready)

    def readiness(self, board: list[int], geo: Geometry, empty: int, ready: list[int]) -> float:
        """Credit for lines one chip short whose gap a chip of their colour can reach."""
        if not ready:
            return 0.0
        bits = geo.bits
        stride = geo.stride
        found = 0
        seen: set[int] = set()
        cmask = [0] * (max(board) + 1)
        for i, v in enumerate(board):
            if v:
                cmask[v] |= bits[i]
        for wi in ready:
            gap = -1
            colour = 0
            for i in geo.windows[wi]:
                if board[i]:
                    colour = board[i]
                else:
                    gap = i
            if gap in seen:
                continue
            region = grow(bits[gap], empty, stride)
            rim = region << 1 | region >> 1 | region << stride | region >> stride
            rim &= ~geo.win_masks[wi]
            if rim & cmask[colour]:
                seen.add(gap)
                found += 1
            if found >= self.ready_cap:
                break
        return self.ready_weight * found

    def static_moves(
        self, board: list[int], geo: Geometry, view: dict[str, Any]
    ) -> list[tuple[float, int, int]]:
        """Every legal move with its static score (change of window potential)."""
        size = geo.size
        nbrs = geo.nbrs
        comp = components(board, nbrs)
        colours = view["colours"]
        w_val = self.weights(geo.min_line)
        windows = geo.windows
        wcol = [0] * len(windows)
        wcnt = [0] * len(windows)
        for wi, win in enumerate(windows):
            col = 0
            cnt = 0
            for i in win:
                v = board[i]
                if v:
                    cnt += 1
                    if col == 0:
                        col = v
                    elif v != col:
                        col = -1
            wcol[wi] = col
            wcnt[wi] = cnt
        cell_windows = geo.cell_windows
        # reach[s]: the empty components next to chip s.
        comp_cells: dict[int, list[int]] = {}
        for i in range(size):
            if board[i] == 0:
                comp_cells.setdefault(comp[i], []).append(i)
        # gain[k][t] for colours the board may move.
        targets = [i for i in range(size) if board[i] == 0]
        gain: list[dict[int, float]] = [{} for _ in range(colours + 1)]
        d01 = w_val[1] - w_val[0]
        for t in targets:
            cw = cell_windows[t]
            for k in range(1, colours + 1):
                g = 0.0
                for wi in cw:
                    col = wcol[wi]
                    if col == 0:
                        g += d01
                    elif col == k:
                        c = wcnt[wi]
                        g += w_val[c + 1] - w_val[c]
                    elif col > 0:
                        g -= w_val[wcnt[wi]]
                gain[k][t] = g
        moves: list[tuple[float, int, int]] = []
        pair_windows = geo.pair_windows
        for s in range(size):
            k = board[s]
            if not k:
                continue
            reach = {comp[n] for n in nbrs[s] if board[n] == 0}
            if not reach:
                continue
            loss = 0.0
            for wi in cell_windows[s]:
                col = wcol[wi]
                if col == k:
                    c = wcnt[wi]
                    loss += w_val[c - 1] - w_val[c]
                elif col == -1:
                    rest = 0
                    cnt = 0
                    for i in windows[wi]:
                        if i != s:
                            v = board[i]
                            if v:
                                cnt += 1
                                if rest == 0:
                                    rest = v
                                elif v != rest:
                                    rest = -1
                                    break
                    if rest != -1:
                        loss += w_val[cnt]
            gk = gain[k]
            for cid in reach:
                for t in comp_cells[cid]:
                    value = gk[t] + loss
                    shared = pair_windows.get(s * size + t)
                    if shared:
                        value += correction(board, windows, shared, s, t, k, w_val, wcol, wcnt)
                    moves.append((value, s, t))
        return moves

    def mobility(self, empty_mask: int, geo: Geometry) -> float:
        """Free room, and how much of it lies outside the largest empty region."""
        empty = empty_mask.bit_count()
        if not empty:
            return LOST
        largest = largest_region(empty_mask, geo.stride)
        return self.empty_weight * empty - self.isolated_weight * (empty - largest)


class Candidate(NamedTuple):
    """A move played out: its value before any throw, and the board it leaves."""

    value: float
    src: int
    dst: int
    points: int
    board: list[int]
    windows: list[float]
    """The value of every window on ``board``."""
    lines: float
    """Their sum."""
    empty: int
    """Bit mask of the empty cells."""
    ready: list[int]
    """Windows one chip short of a line."""


LOST = -1e9
"""The value of a board where the game is over."""


def empty_mask(board: list[int], geo: Geometry) -> int:
    """The bit mask (see :attr:`Geometry.bits`) of the empty cells."""
    bits = geo.bits
    mask = 0
    for i, v in enumerate(board):
        if not v:
            mask |= bits[i]
    return mask


def grow(seed: int, mask: int, stride: int) -> int:
    """The 4-connected region of ``mask`` holding ``seed``."""
    region = seed
    while True:
        grown = region | region << 1 | region >> 1
        grown = (grown | region << stride | region >> stride) & mask
        if grown == region:
            return region
        region = grown


def largest_region(mask: int, stride: int) -> int:
    """Cells in the largest 4-connected region of ``mask``, by bit-parallel flood fill."""
    largest = 0
    rest = mask
    while rest:
        region = rest & -rest
        while True:
            grown = (
                region | region << 1 | region >> 1 | region << stride | region >> stride
            ) & rest
            if grown == region:
                break
            region = grown
        size = region.bit_count()
        if size > largest:
            largest = size
        rest ^= region
        if largest >= rest.bit_count():
            break
    return largest


def window_value(board: list[int], win: tuple[int, ...], w_val: list[float]) -> float:
    """``W[c]`` if the window's ``c`` chips share one colour, else 0."""
    col = 0
    cnt = 0
    for i in win:
        v = board[i]
        if v:
            if col == 0:
                col = v
            elif v != col:
                return 0.0
            cnt += 1
    return w_val[cnt]


def window_values(board: list[int], geo: Geometry, w_val: list[float]) -> list[float]:
    """The value of every window of ``geo``."""
    return [window_value(board, win, w_val) for win in geo.windows]


def update_windows(
    board: list[int], geo: Geometry, w_val: list[float], vals: list[float], cells: list[int]
) -> float:
    """Recompute in place the windows through ``cells``; return the new total."""
    windows = geo.windows
    touched: set[int] = set()
    for c in cells:
        touched.update(geo.cell_windows[c])
    for wi in touched:
        vals[wi] = window_value(board, windows[wi], w_val)
    return sum(vals)


def rescore(
    board: list[int],
    geo: Geometry,
    w_val: list[float],
    vals: list[float],
    ready: list[int],
    cells: list[int],
) -> tuple[float, list[int]]:
    """How the windows through ``cells`` changed from ``vals``, and the new ready windows.

    ``ready`` lists the windows one chip short before the change; the result
    drops the touched ones and adds those the change left one chip short.
    """
    touched: set[int] = set()
    cell_windows = geo.cell_windows
    for c in cells:
        touched.update(cell_windows[c])
    windows = geo.windows
    short = w_val[geo.min_line - 1]
    now_ready = [wi for wi in ready if wi not in touched]
    delta = 0.0
    for wi in touched:
        v = window_value(board, windows[wi], w_val)
        delta += v - vals[wi]
        if v == short:
            now_ready.append(wi)
    return delta, now_ready


def landing_cells(board: list[int], order: list[int], want: int) -> list[int] | None:
    """The first ``want`` empty cells of ``order`` (a sampled throw), or None if too few."""
    cells: list[int] = []
    for i in order:
        if not board[i]:
            cells.append(i)
            if len(cells) == want:
                return cells
    return None


def correction(
    board: list[int],
    windows: list[tuple[int, ...]],
    shared: tuple[int, ...],
    s: int,
    t: int,
    k: int,
    w_val: list[float],
    wcol: list[int],
    wcnt: list[int],
) -> float:
    """Exact value change of windows holding both s and t, minus what the tables assumed."""
    fix = 0.0
    for wi in shared:
        old = w_val[wcnt[wi]] if wcol[wi] >= 0 else 0.0
        # Without s, then with k at t: count chips and colours directly.
        col_without = 0
        cnt_without = 0
        for i in windows[wi]:
            if i == s:
                continue
            v = board[i]
            if v:
                cnt_without += 1
                if col_without == 0:
                    col_without = v
                elif v != col_without:
                    col_without = -1
        without = w_val[cnt_without] if col_without >= 0 else 0.0
        if col_without == -1:
            both = 0.0
        elif col_without in (0, k):
            both = w_val[cnt_without + 1]
        else:
            both = 0.0
        col = wcol[wi]
        if col == -1:
            with_t = 0.0
        elif col in (0, k):
            with_t = w_val[wcnt[wi] + 1]
        else:
            with_t = 0.0
        fix += both - old - ((without - old) + (with_t - old))
    return fix


def components(board: list[int], nbrs: list[tuple[int, ...]]) -> list[int]:
    """Label each empty cell with its 4-connected component id; chips get -1."""
    comp = [-1] * len(board)
    label = 0
    for i, v in enumerate(board):
        if v or comp[i] >= 0:
            continue
        comp[i] = label
        stack = [i]
        while stack:
            cell = stack.pop()
            for n in nbrs[cell]:
                if comp[n] < 0 and not board[n]:
                    comp[n] = label
                    stack.append(n)
        label += 1
    return comp


def play(board: list[int], geo: Geometry, src: int, dst: int) -> tuple[list[int], set[int]]:
    """The board after moving src to dst and removing lines, and the removed cells."""
    after = board[:]
    after[dst] = after[src]
    after[src] = 0
    removed = set(geo.line_cells(after, dst))
    for i in removed:
        after[i] = 0
    return after, removed


class EasyLinesBot(LinesBot):
    """A weaker bot: the best static move, no play-out and no look-ahead."""

    level = "easy"

    def pick(
        self, board: list[int], geo: Geometry, view: dict[str, Any], start: float
    ) -> tuple[int, int] | None:
        """The legal move with the best static score (ties by board order)."""
        moves = self.static_moves(board, geo, view)
        if not moves:
            return None
        best = max(moves, key=lambda m: m[0])
        return best[1], best[2]


def near_lines(
    board: list[int], geo: Geometry, empty: int, vals: list[float], near: float, cap: int
) -> int:
    """Windows two chips short (value ``near``) that two moves can complete.

    Each gap must lie in an empty region that a chip of the window's colour
    from outside the window borders, and there must be a chip for every gap.
    Counting stops at ``cap``.
    """
    bits = geo.bits
    stride = geo.stride
    windows = geo.windows
    cmask: list[int] = []
    found = 0
    for wi, v in enumerate(vals):
        if v != near:
            continue
        if not cmask:
            cmask = [0] * (max(board) + 1)
            for i, k in enumerate(board):
                if k:
                    cmask[k] |= bits[i]
        colour = 0
        gaps: list[int] = []
        for i in windows[wi]:
            if board[i]:
                colour = board[i]
            else:
                gaps.append(i)
        outside = cmask[colour] & ~geo.win_masks[wi]
        if outside.bit_count() < len(gaps):
            continue
        for gap in gaps:
            region = grow(bits[gap], empty, stride)
            rim = region << 1 | region >> 1 | region << stride | region >> stride
            if not rim & outside:
                break
        else:
            found += 1
            if found >= cap:
                break
    return found


class HardLinesBot(LinesBot):
    """The hard bot: a wider search, two-move lines, and the mean over many throws.

    It keeps the normal bot's evaluation (window potential, free room, the cells
    cut off, ready lines) and adds *near* lines: windows two chips short whose
    gaps chips of their colour can reach, a line two moves away. It plays out
    more candidates, and compares more finalists over more sampled throws, with
    the colours of the next throw when the preview shows them. The samples are
    a fixed number (the same seed gives the same move); ``budget`` only stops
    them early on a slow machine.
    """

    level = "hard"
    candidates: ClassVar[int] = 40
    finalists: ClassVar[int] = 12
    samples: ClassVar[int] = 32
    near_weight: ClassVar[float] = 15.0
    near_cap: ClassVar[int] = 4

    def evaluate(
        self,
        board: list[int],
        geo: Geometry,
        w_val: list[float],
        vals: list[float],
        mask: int,
    ) -> float:
        """The value of a position the player is to move in (before any throw)."""
        n = geo.min_line
        ready = [wi for wi, v in enumerate(vals) if v == w_val[n - 1]]
        value = sum(vals) + self.mobility(mask, geo) + self.readiness(board, geo, mask, ready)
        if self.near_weight and n >= 2:
            near = near_lines(board, geo, mask, vals, w_val[n - 2], self.near_cap)
            value += self.near_weight * near
        return value

    def pick(
        self, board: list[int], geo: Geometry, view: dict[str, Any], start: float
    ) -> tuple[int, int] | None:
        """Choose ``(src, dst)``: prune statically, play out, then average sampled throws."""
        moves = self.static_moves(board, geo, view)
        if not moves:
            return None
        moves.sort(key=lambda m: -m[0])
        streak = view.get("streak", 0)
        w_val = self.weights(geo.min_line)
        root = window_values(board, geo, w_val)
        root_mask = empty_mask(board, geo)
        bits = geo.bits
        scored: list[Candidate] = []
        for _, src, dst in moves[: self.candidates]:
            after, removed = play(board, geo, src, dst)
            points = 0
            if removed:
                points = line_points(len(removed), geo.min_line, streak)
            vals = root[:]
            update_windows(after, geo, w_val, vals, [src, dst, *removed])
            mask = root_mask ^ bits[src] ^ bits[dst]
            for i in removed:
                mask |= bits[i]
            value = self.evaluate(after, geo, w_val, vals, mask) + points * self.points_weight
            # ``lines`` and ``ready`` serve the normal bot's incremental throws; here
            # :meth:`evaluate` recounts them on every board, so they stay empty.
            scored.append(Candidate(value, src, dst, points, after, vals, 0.0, mask, []))
        scored.sort(key=lambda m: -m.value)
        finalists = scored[: self.finalists]
        if len(finalists) == 1 or all(f.points for f in finalists):
            return finalists[0].src, finalists[0].dst
        return self.lookahead(finalists, geo, view, w_val, start)

    def after_throw(
        self,
        cand: Candidate,
        geo: Geometry,
        w_val: list[float],
        order: list[int],
        cols: list[int],
    ) -> float:
        """The value of the candidate's board after one sampled throw (as the engine throws)."""
        board = cand.board[:]
        cells = landing_cells(board, order, len(cols))
        if cells is None:
            return LOST
        for i, k in zip(cells, cols, strict=True):
            board[i] = k
        removed: set[int] = set()
        for i in cells:
            removed.update(geo.line_cells(board, i))
        points = 0
        if removed:
            for i in removed:
                board[i] = 0
            points = line_points(len(removed), geo.min_line, 0)
        vals = cand.windows[:]
        update_windows(board, geo, w_val, vals, [*cells, *removed])
        bits = geo.bits
        mask = cand.empty
        for i in cells:
            mask ^= bits[i]
        for i in removed:
            mask |= bits[i]
        if not mask:
            return LOST
        return self.evaluate(board, geo, w_val, vals, mask) + points * self.points_weight


BOTS: dict[str, type[Bot]] = {"normal": LinesBot, "easy": EasyLinesBot, "hard": HardLinesBot}
