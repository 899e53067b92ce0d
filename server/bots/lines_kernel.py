"""The inner loops of the Lines ``master`` bot: heuristic playouts on flat numpy boards.

Everything here is written in the subset of Python that Numba compiles (loops,
integers, numpy arrays; no lists, dicts, objects or exceptions), so the same
source runs two ways: as plain Python, slowly, and compiled by Numba when the
``[search]`` extra is installed (:mod:`.lines_master` loads a second copy of
this module and compiles its functions). Tests play both on fixed seeds and
check they choose the same moves.

To keep the two runs identical bit for bit, the kernels use integers only:
scores are scaled integers, random numbers come from a 32-bit xorshift whose
state lives in a one-element array (no global RNG, no floating point
transcendental that a compiler might round differently), and the softmax of
the playout policy reads its weights from a table computed once outside.

Boards are row-major ``int64`` arrays, 0 for an empty cell, ``1..colours`` for
a chip. The rules are the engine's (:mod:`tilehall.server.games.lines`): a
move goes through empty cells by horizontal and vertical steps, lines of
``min_line`` or more through the moved chip go and score
``n + n * (n - min_line) + streak**2``, a move that scores moves again, any
other move is followed by a throw of ``throw`` chips onto random empty cells,
whose lines go and score too (streak 0); the game ends when a throw finds too
little room or fills the board.

The playout policy (:func:`heuristic_move`) is a one-move heuristic over every
legal move, drawn by a softmax rather than played greedily: colorlines98ai's
experiments found a cheap line-building heuristic, sampled that way, plays
out far better for a search than a greedy or a smarter but slower one, and
that the playouts' number matters more than their policy's finesse. So it
looks at lines only (what a chip adds to the runs through its new cell, what
lifting it breaks), and is written to be cheap: a chip's worth at a cell is
computed once per step for each colour touching the cell, and the many cells
worth nothing to a chip are weighed as one option.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from tilehall.server.games.lines import line_points

__all__ = [
    "KERNELS",
    "break_cost",
    "components",
    "heuristic_move",
    "line_gain",
    "playout",
    "playouts",
    "regions_beside",
    "remove_lines",
    "throw_chips",
]

Array = npt.NDArray[np.int64]

MASK32 = 0xFFFFFFFF

STEP_R = (0, 1, 1, 1)
STEP_C = (1, 0, 1, -1)
"""The four line directions as (row, column) steps, in the engine's order."""
AROUND_R = (-1, -1, -1, 0, 0, 1, 1, 1)
AROUND_C = (-1, 0, 1, -1, 1, -1, 0, 1)
"""The eight cells around a cell (row and column steps): the lines through it start there."""

KERNELS = (
    "line_points",
    "next_random",
    "components",
    "regions_beside",
    "remove_lines",
    "throw_chips",
    "line_gain",
    "break_cost",
    "heuristic_move",
    "playout",
    "playouts",
)
"""The functions :mod:`.lines_master` compiles, callees before their callers (the first is
the engine's, so a line's points are written once)."""


def next_random(state: Array, bound: int) -> int:
    """A number in ``0..bound-1`` from the xorshift32 generator in ``state[0]``."""
    x = state[0]
    x ^= (x << 13) & MASK32
    x ^= x >> 17
    x ^= (x << 5) & MASK32
    state[0] = x
    return int(x % bound)


def components(board: Array, width: int, height: int, comp: Array, stack: Array) -> int:
    """Label every empty cell with its 4-connected region (chips get -1); return the count."""
    size = width * height
    for i in range(size):
        comp[i] = -1
    label = 0
    for i in range(size):
        if board[i] != 0 or comp[i] >= 0:
            continue
        comp[i] = label
        top = 0
        stack[0] = i
        top = 1
        while top > 0:
            top -= 1
            cell = stack[top]
            r = cell // width
            c = cell % width
            for n in range(4):
                if n == 0:
                    if r == 0:
                        continue
                    nb = cell - width
                elif n == 1:
                    if r == height - 1:
                        continue
                    nb = cell + width
                elif n == 2:
                    if c == 0:
                        continue
                    nb = cell - 1
                else:
                    if c == width - 1:
                        continue
                    nb = cell + 1
                if board[nb] == 0 and comp[nb] < 0:
                    comp[nb] = label
                    stack[top] = nb
                    top += 1
        label += 1
    return label


def regions_beside(
    board: Array, comp: Array, width: int, height: int, s: int
) -> tuple[int, int, int, int]:
    """The empty regions (:func:`components`' labels) above, below, left and right of
    cell ``s``, -1 where that side is a chip or the board's edge: where a chip there can go."""
    r = s // width
    c = s % width
    above = comp[s - width] if r > 0 and board[s - width] == 0 else -1
    below = comp[s + width] if r < height - 1 and board[s + width] == 0 else -1
    left = comp[s - 1] if c > 0 and board[s - 1] == 0 else -1
    right = comp[s + 1] if c < width - 1 and board[s + 1] == 0 else -1
    return above, below, left, right


def remove_lines(
    board: Array, width: int, height: int, min_line: int, cells: Array, count: int, mark: Array
) -> int:
    """Remove every line of ``min_line`` or more through ``cells[:count]``; return chips removed.

    A chip on two lines goes once (``mark`` flags it, and is left all zero).
    """
    removed = 0
    for j in range(count):
        cell = cells[j]
        colour = board[cell]
        if colour == 0:
            continue
        row = cell // width
        col = cell % width
        for d in range(4):
            dr = STEP_R[d]
            dc = STEP_C[d]
            fwd = 0
            r = row + dr
            c = col + dc
            while 0 <= r < height and 0 <= c < width and board[r * width + c] == colour:
                fwd += 1
                r += dr
                c += dc
            back = 0
            r = row - dr
            c = col - dc
            while 0 <= r < height and 0 <= c < width and board[r * width + c] == colour:
                back += 1
                r -= dr
                c -= dc
            if fwd + back + 1 >= min_line:
                for k in range(-back, fwd + 1):
                    idx = (row + k * dr) * width + col + k * dc
                    if mark[idx] == 0:
                        mark[idx] = 1
                        removed += 1
    if removed:
        for i in range(width * height):
            if mark[i]:
                mark[i] = 0
                board[i] = 0
    return removed


def throw_chips(
    board: Array,
    width: int,
    height: int,
    min_line: int,
    colours: int,
    throw: int,
    known: Array,
    nknown: int,
    state: Array,
    empties: Array,
    cells: Array,
    mark: Array,
) -> int:
    """The computer's throw: chips on random empty cells, their lines removed.

    Returns the chips removed, or -1 when the game ends (too little room, or the
    board full after the throw). ``known`` holds the colours of the throw when
    they are known (the preview), ``nknown`` of them; the rest are drawn.

    The cells come from a random order of the whole board (``empties`` holds
    it): the chips land on its first empty cells. The order, and so how many
    random numbers a throw takes, does not depend on the board, so two boards
    thrown on with the same seed get their chips on the same cells as far as
    both have them free (common random numbers for the candidates).
    """
    size = width * height
    free = 0
    for i in range(size):
        empties[i] = i
        if board[i] == 0:
            free += 1
    for i in range(size - 1, 0, -1):
        pick = next_random(state, i + 1)
        cell = empties[i]
        empties[i] = empties[pick]
        empties[pick] = cell
    if free < throw:
        return -1
    placed = 0
    for i in range(size):
        cell = empties[i]
        if board[cell] != 0:
            continue
        colour = known[placed] if placed < nknown else 1 + next_random(state, colours)
        board[cell] = colour
        cells[placed] = cell
        placed += 1
        if placed == throw:
            break
    free -= throw
    removed = remove_lines(board, width, height, min_line, cells, throw, mark)
    if removed == 0 and free == 0:
        return -1
    return removed


# -- The heuristic rollout policy -----------------------------------------------------
#
# ``feat`` holds the policy's weights, integers in tenths of a unit:
# ``feat[0]`` per point a completed line scores, ``feat[1]`` for completing one at
# all, ``feat[2]`` times ``(run - 1)**2`` for a run with room for a whole line,
# ``feat[3]`` times ``run - 1`` for a run without, ``feat[4]`` times ``run - 1``
# for a run of three or more that lifting a chip breaks.


def line_gain(
    board: Array,
    width: int,
    height: int,
    min_line: int,
    cell: int,
    colour: int,
    skip: int,
    feat: Array,
) -> int:
    """The policy's worth of a chip of ``colour`` put on the empty ``cell``.

    ``skip`` is read as empty (the chip's own cell when it moves, else -1). A
    line made scores its points (``feat[0]``, every direction's run counted,
    the crossing chip once) plus ``feat[1]``; otherwise each direction's run
    through the cell is worth ``feat[2] * (run - 1)**2`` if the chips of the
    colour and empty cells around it leave room for a line, else
    ``feat[3] * (run - 1)``.
    """
    row = cell // width
    col = cell % width
    partial = 0
    removed = 1
    for d in range(4):
        dr = STEP_R[d]
        dc = STEP_C[d]
        # A direction adds only if a chip of the colour sits beside the cell along it (a
        # run of one is worth nothing): most directions are skipped here unscanned.
        beside = False
        for sign in (1, -1):
            r = row + sign * dr
            c = col + sign * dc
            if 0 <= r < height and 0 <= c < width:
                i = r * width + c
                if i != skip and board[i] == colour:
                    beside = True
        if not beside:
            continue
        run = 1
        room = 1
        for sign in (1, -1):
            r = row + sign * dr
            c = col + sign * dc
            touching = True
            while 0 <= r < height and 0 <= c < width and room < min_line + 4:
                i = r * width + c
                v = 0 if i == skip else board[i]
                if v == colour:
                    if touching:
                        run += 1
                    room += 1
                elif v == 0:
                    touching = False
                    room += 1
                    if room >= min_line and not touching:
                        break
                else:
                    break
                r += sign * dr
                c += sign * dc
        if run >= min_line:
            removed += run - 1
        elif run >= 2:
            if room >= min_line:
                partial += feat[2] * (run - 1) * (run - 1)
            else:
                partial += feat[3] * (run - 1)
    if removed >= min_line:
        return int(feat[0] * line_points(removed, min_line, 0) + feat[1])
    return partial


def break_cost(board: Array, width: int, height: int, cell: int, feat: Array) -> int:
    """What lifting the chip at ``cell`` costs: ``feat[4] * (run - 1)`` per run of 3+ it is in."""
    colour = board[cell]
    row = cell // width
    col = cell % width
    cost = 0
    for d in range(4):
        dr = STEP_R[d]
        dc = STEP_C[d]
        run = 1
        for sign in (1, -1):
            r = row + sign * dr
            c = col + sign * dc
            while 0 <= r < height and 0 <= c < width and board[r * width + c] == colour:
                run += 1
                r += sign * dr
                c += sign * dc
        if run >= 3:
            cost += feat[4] * (run - 1)
    return cost


def heuristic_move(
    board: Array,
    width: int,
    height: int,
    min_line: int,
    colours: int,
    feat: Array,
    weights: Array,
    state: Array,
    comp: Array,
    stack: Array,
    gain: Array,
    opts: Array,
) -> int:
    """A move drawn by a softmax over the policy's scores, ``src * size + dst``, or -1.

    A move scores its target's :func:`line_gain` minus the source's
    :func:`break_cost` and weighs ``weights[best - score]``. The worth of each
    empty cell is computed once per colour that touches it along a line; only
    the few cells worth something are listed move by move (a move along the
    chip's own run, which the cached worth counts the chip into, is valued
    again without it). The cells worth nothing to a chip go as one option per
    chip, weighed by their number, and a cell is drawn among them only if that
    option is drawn.
    """
    size = width * height
    stride = colours + 1
    regions = components(board, width, height, comp, stack)
    if regions == 0:
        return -1
    # gain: worth per (cell, colour); then cells of each region; positive cells per colour.
    region_size = gain[size * stride : size * stride + size]
    for j in range(regions):
        region_size[j] = 0
    positive = gain[size * stride + size : size * stride + size + stride * size]
    npos = gain[
        size * stride + size + stride * size : size * stride + 2 * size + stride * size + stride
    ]
    for k in range(stride):
        npos[k] = 0
    for t in range(size):
        base = t * stride
        for k in range(stride):
            gain[base + k] = 0
        if board[t] != 0:
            continue
        region_size[comp[t]] += 1
        row = t // width
        col = t % width
        seen = 0
        for d in range(8):
            r = row + AROUND_R[d]
            c = col + AROUND_C[d]
            if not (0 <= r < height and 0 <= c < width):
                continue
            k = board[r * width + c]
            if k == 0 or seen & (1 << k):
                continue
            seen |= 1 << k
            g = line_gain(board, width, height, min_line, t, k, -1, feat)
            if g > 0:
                gain[base + k] = g
                positive[k * size + npos[k]] = t
                npos[k] += 1
    # opts: (source, target or -1 for the worthless cells, score, count) per option.
    count = 0
    top = -(1 << 40)
    for s in range(size):
        k = board[s]
        if k == 0:
            continue
        r = s // width
        c = s % width
        ra, rb, re, rf = regions_beside(board, comp, width, height, s)
        if ra < 0 and rb < 0 and re < 0 and rf < 0:
            continue
        free = 0
        # Empty cells the chip reaches (each region once).
        if ra >= 0:
            free += region_size[ra]
        if rb >= 0 and rb != ra:
            free += region_size[rb]
        if re >= 0 and re != ra and re != rb:
            free += region_size[re]
        if rf >= 0 and rf != ra and rf != rb and rf != re:
            free += region_size[rf]
        loss = break_cost(board, width, height, s, feat)
        for j in range(npos[k]):
            t = positive[k * size + j]
            q = comp[t]
            if q != ra and q != rb and q != re and q != rf:
                continue
            free -= 1
            g = gain[t * stride + k]
            tr = t // width
            tc = t % width
            dr = r - tr
            dc = c - tc
            if dr == 0 or dc == 0 or dr == dc or dr == -dc:
                # The chip on one of t's lines: if the run the worth counted reaches
                # it, value t without it.
                sr = 1 if dr > 0 else (-1 if dr < 0 else 0)
                sc = 1 if dc > 0 else (-1 if dc < 0 else 0)
                wr = tr + sr
                wc = tc + sc
                while (wr != r or wc != c) and board[wr * width + wc] == k:
                    wr += sr
                    wc += sc
                if wr == r and wc == c:
                    g = line_gain(board, width, height, min_line, t, k, s, feat)
            opts[4 * count] = s
            opts[4 * count + 1] = t
            opts[4 * count + 2] = g - loss
            opts[4 * count + 3] = 1
            if g - loss > top:
                top = g - loss
            count += 1
        if free > 0:
            opts[4 * count] = s
            opts[4 * count + 1] = -1
            opts[4 * count + 2] = -loss
            opts[4 * count + 3] = free
            if -loss > top:
                top = -loss
            count += 1
    if count == 0:
        return -1
    span = weights.shape[0]
    total = 0
    for j in range(count):
        gap = top - opts[4 * j + 2]
        if gap < span:
            total += weights[gap] * opts[4 * j + 3]
    pick = next_random(state, total)
    for j in range(count):
        gap = top - opts[4 * j + 2]
        if gap >= span:
            continue
        w = weights[gap] * opts[4 * j + 3]
        if pick >= w:
            pick -= w
            continue
        s = opts[4 * j]
        t = opts[4 * j + 1]
        if t >= 0:
            return int(s * size + t)
        # One of the worthless cells the chip reaches, the pick-th of them.
        k = board[s]
        ra, rb, re, rf = regions_beside(board, comp, width, height, s)
        nth = pick // weights[gap]
        for t in range(size):
            if board[t] != 0 or gain[t * stride + k] > 0:
                continue
            q = comp[t]
            if q != ra and q != rb and q != re and q != rf:
                continue
            if nth == 0:
                return int(s * size + t)
            nth -= 1
        return -1
    return -1


def playout(
    board: Array,
    width: int,
    height: int,
    min_line: int,
    colours: int,
    throw: int,
    known: Array,
    nknown: int,
    streak: int,
    src: int,
    dst: int,
    depth: int,
    feat: Array,
    weights: Array,
    death: int,
    empty_weight: int,
    state: Array,
    scratch: Array,
) -> int:
    """Play ``src -> dst`` on ``board`` (changed in place), then ``depth`` heuristic moves.

    Worth 100 a point scored on the way, plus ``empty_weight`` per empty cell
    at the end; ``death`` (a negative number) replaces the empty cells when the
    game ended. The first throw has the ``known`` colours, later ones are drawn.
    """
    size = width * height
    stride = colours + 1
    comp = scratch[0:size]
    stack = scratch[size : 2 * size]
    empties = scratch[2 * size : 3 * size]
    cells = scratch[3 * size : 4 * size]
    mark = scratch[4 * size : 5 * size]
    opts = scratch[5 * size : 5 * size + 4 * size * size]
    gain = scratch[
        5 * size + 4 * size * size : 7 * size + 4 * size * size + 2 * size * stride + stride
    ]
    points = 0
    first = True
    for step in range(depth + 1):
        if step > 0:
            move = heuristic_move(
                board,
                width,
                height,
                min_line,
                colours,
                feat,
                weights,
                state,
                comp,
                stack,
                gain,
                opts,
            )
            if move < 0:
                src = -1
            else:
                src = move // size
                dst = move % size
        removed = 0
        if src >= 0:
            board[dst] = board[src]
            board[src] = 0
            cells[0] = dst
            removed = remove_lines(board, width, height, min_line, cells, 1, mark)
        if removed:
            points += line_points(removed, min_line, streak)
            streak += 1
            continue
        streak = 0
        gone = throw_chips(
            board,
            width,
            height,
            min_line,
            colours,
            throw,
            known,
            nknown if first else 0,
            state,
            empties,
            cells,
            mark,
        )
        first = False
        if gone < 0:
            return points * 100 + death
        if gone:
            points += line_points(gone, min_line, 0)
    free = 0
    for i in range(size):
        if board[i] == 0:
            free += 1
    return points * 100 + empty_weight * free


def playouts(
    board: Array,
    width: int,
    height: int,
    min_line: int,
    colours: int,
    throw: int,
    known: Array,
    streak: int,
    src: int,
    dst: int,
    first: int,
    count: int,
    depth: int,
    seed: int,
    feat: Array,
    weights: Array,
    death: int,
    empty_weight: int,
) -> int:
    """The sum of the :func:`playout` values of ``src -> dst`` numbered ``first..first+count-1``.

    Playout ``i`` is seeded by ``seed`` and ``i``, so every candidate move meets
    the same random throws (common random numbers) and a later round can add
    playouts to an earlier one's. ``board`` is left as it was.
    """
    size = width * height
    work = np.empty(size, dtype=np.int64)
    scratch = np.zeros(
        7 * size + 4 * size * size + 2 * size * (colours + 1) + colours + 1, dtype=np.int64
    )
    state = np.empty(1, dtype=np.int64)
    total = 0
    for i in range(first, first + count):
        for j in range(size):
            work[j] = board[j]
        state[0] = ((seed + i * 7919) * 2654435761 + 12345) & MASK32
        if state[0] == 0:
            state[0] = 1
        total += playout(
            work,
            width,
            height,
            min_line,
            colours,
            throw,
            known,
            known.shape[0],
            streak,
            src,
            dst,
            depth,
            feat,
            weights,
            death,
            empty_weight,
            state,
            scratch,
        )
    return total
