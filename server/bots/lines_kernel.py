"""The inner loops of the Lines ``master`` bot: rollouts on flat numpy boards.

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
the rollout policy reads its weights from a table computed once outside.

Boards are row-major ``int64`` arrays, 0 for an empty cell, ``1..colours`` for
a chip. The rules are the engine's (:mod:`tilehall.server.games.lines`): a
move goes through empty cells by horizontal and vertical steps, lines of
``min_line`` or more through the moved chip go and score
``n + n * (n - min_line) + streak**2``, a move that scores moves again, any
other move is followed by a throw of ``throw`` chips onto random empty cells,
whose lines go and score too (streak 0); the game ends when a throw finds too
little room or fills the board.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

__all__ = [
    "KERNELS",
    "LINE_BONUS",
    "LOST",
    "cell_gain",
    "components",
    "rollouts",
    "root_moves",
    "run_tables",
    "table_gain",
]

Array = npt.NDArray[np.int64]

MASK32 = 0xFFFFFFFF
LINE_BONUS = 10_000
"""What completing a line adds to a move's policy score (dominates every shape)."""
LOST = -1_000_000
"""A rollout's value when the game ended inside it (before its points are added)."""

STEP_R = (0, 1, 1, 1)
STEP_C = (1, 0, 1, -1)
"""The four line directions as (row, column) steps, in the engine's order."""
AROUND_R = (-1, -1, -1, 0, 0, 1, 1, 1)
AROUND_C = (-1, 0, 1, -1, 1, -1, 0, 1)
"""The eight cells around a cell (row and column steps): the lines through it start there."""

KERNELS = (
    "next_random",
    "cell_gain",
    "run_tables",
    "table_gain",
    "components",
    "remove_lines",
    "throw_chips",
    "policy_move",
    "rollout",
    "rollouts",
    "root_moves",
)
"""The functions :mod:`.lines_master` compiles, callees before their callers."""


def next_random(state: Array, bound: int) -> int:
    """A number in ``0..bound-1`` from the xorshift32 generator in ``state[0]``."""
    x = state[0]
    x ^= (x << 13) & MASK32
    x ^= x >> 17
    x ^= (x << 5) & MASK32
    state[0] = x
    return int(x % bound)


def cell_gain(
    board: Array, width: int, height: int, min_line: int, cell: int, colour: int, shape: Array
) -> int:
    """How much a chip of ``colour`` at ``cell`` is worth to the lines through it.

    In each of the four directions it counts the chips of ``colour`` touching
    the cell on both sides (the run) and how far chips of that colour or empty
    cells reach (the room). A run that makes a line scores :data:`LINE_BONUS`
    plus a little per extra chip; otherwise a run with room for a whole line is
    worth ``shape[chips]``, and a run without room nothing. The cell itself is
    not read, so this also values a chip where it stands (what moving it loses).
    """
    row = cell // width
    col = cell % width
    total = 0
    for d in range(4):
        dr = 0 if d == 0 else 1
        dc = 1 if d == 0 else (0 if d == 1 else (1 if d == 2 else -1))
        run = 1
        room = 1
        for sign in (1, -1):
            r = row + sign * dr
            c = col + sign * dc
            touching = True
            while 0 <= r < height and 0 <= c < width:
                v = board[r * width + c]
                if v == colour:
                    if touching:
                        run += 1
                    room += 1
                elif v == 0:
                    touching = False
                    room += 1
                else:
                    break
                if not touching and room >= min_line:
                    break
                r += sign * dr
                c += sign * dc
        if run >= min_line:
            total += LINE_BONUS + 100 * (run - min_line)
        elif room >= min_line:
            total += shape[run - 1]
    return total


def run_tables(board: Array, width: int, height: int, runs: Array) -> None:
    """Fill ``runs`` (``16 * size``) with run lengths through every cell, per direction.

    For direction ``d`` (horizontal, vertical, down-right, down-left) and cell
    ``i``: ``runs[d*size + i]`` counts the chips of ``board[i]``'s colour ending
    at ``i`` (``i`` and the cells behind it), ``runs[(4+d)*size + i]`` those
    starting at ``i`` (``i`` and the cells ahead); ``runs[(8+d)*size + i]`` and
    ``runs[(12+d)*size + i]`` the same for empty cells. Four scans a direction
    make every policy score a few lookups (:func:`table_gain`).
    """
    size = width * height
    for d in range(4):
        dr = STEP_R[d]
        dc = STEP_C[d]
        step = dr * width + dc
        ends = d * size
        starts = (4 + d) * size
        free_ends = (8 + d) * size
        free_starts = (12 + d) * size
        for r in range(height):
            for c in range(width):
                i = r * width + c
                v = board[i]
                pr = r - dr
                pc = c - dc
                if 0 <= pr < height and 0 <= pc < width:
                    p = i - step
                    if v == 0:
                        runs[ends + i] = 0
                        runs[free_ends + i] = runs[free_ends + p] + 1
                    else:
                        runs[ends + i] = runs[ends + p] + 1 if board[p] == v else 1
                        runs[free_ends + i] = 0
                else:
                    runs[ends + i] = 1 if v else 0
                    runs[free_ends + i] = 0 if v else 1
        for r in range(height - 1, -1, -1):
            for c in range(width - 1, -1, -1):
                i = r * width + c
                v = board[i]
                nr = r + dr
                nc = c + dc
                if 0 <= nr < height and 0 <= nc < width:
                    n = i + step
                    if v == 0:
                        runs[starts + i] = 0
                        runs[free_starts + i] = runs[free_starts + n] + 1
                    else:
                        runs[starts + i] = runs[starts + n] + 1 if board[n] == v else 1
                        runs[free_starts + i] = 0
                else:
                    runs[starts + i] = 1 if v else 0
                    runs[free_starts + i] = 0 if v else 1


def table_gain(
    board: Array,
    width: int,
    height: int,
    min_line: int,
    cell: int,
    colour: int,
    shape: Array,
    runs: Array,
) -> int:
    """:func:`cell_gain` from the :func:`run_tables` of ``board``, in a few lookups.

    The room counts the run and the empty cells just beyond it (not chips of
    the colour past those), so it can be a little smaller than
    :func:`cell_gain`'s. Unlike :func:`cell_gain` it also charges for the runs
    of other colours the chip would cut: ``shape[min_line + n]`` for a run of
    ``n`` such chips touching the cell (both sides' runs together when they
    are of one colour).
    """
    size = width * height
    row = cell // width
    col = cell % width
    total = 0
    for d in range(4):
        dr = STEP_R[d]
        dc = STEP_C[d]
        run = 1
        room = 1
        # Behind the cell: chips of the colour ending next to it, then empties.
        r = row - dr
        c = col - dc
        other = 0
        blocked = 0
        if 0 <= r < height and 0 <= c < width:
            p = r * width + c
            if board[p] != colour and board[p] != 0:
                other = board[p]
                blocked = runs[d * size + p]
                total -= shape[min_line + min(blocked, min_line - 1)]
            a = runs[d * size + p] if board[p] == colour else 0
            run += a
            room += a
            r -= a * dr
            c -= a * dc
            if 0 <= r < height and 0 <= c < width:
                room += runs[(8 + d) * size + r * width + c]
        r = row + dr
        c = col + dc
        if 0 <= r < height and 0 <= c < width:
            q = r * width + c
            if board[q] != colour and board[q] != 0:
                ahead = runs[(4 + d) * size + q]
                if board[q] == other:
                    # Between two runs of one other colour: their line is cut.
                    total += shape[min_line + min(blocked, min_line - 1)]
                    ahead += blocked
                total -= shape[min_line + min(ahead, min_line - 1)]
            b = runs[(4 + d) * size + q] if board[q] == colour else 0
            run += b
            room += b
            r += b * dr
            c += b * dc
            if 0 <= r < height and 0 <= c < width:
                room += runs[(12 + d) * size + r * width + c]
        if run >= min_line:
            total += LINE_BONUS + 100 * (run - min_line)
        elif room >= min_line:
            total += shape[run - 1]
    return total


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
            dr = 0 if d == 0 else 1
            dc = 1 if d == 0 else (0 if d == 1 else (1 if d == 2 else -1))
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


def policy_move(
    board: Array,
    width: int,
    height: int,
    min_line: int,
    colours: int,
    shape: Array,
    weights: Array,
    state: Array,
    comp: Array,
    stack: Array,
    best_gain: Array,
    best_cell: Array,
    opts: Array,
    runs: Array,
) -> int:
    """The rollout policy: a move sampled by a softmax over cheap move scores.

    For each empty region and colour it finds the cell where a chip of that
    colour gains most (:func:`cell_gain`); each chip next to a region may go
    there, scored by that gain minus what the chip is worth where it stands.
    A move is drawn with weight ``weights[best - score]`` (a softmax table;
    scores further below the best than the table weigh nothing). Returns
    ``src * size + dst``, or -1 when no chip can move.
    """
    size = width * height
    regions = components(board, width, height, comp, stack)
    run_tables(board, width, height, runs)
    for j in range(regions * (colours + 1)):
        best_gain[j] = -1
        best_cell[j] = -1
    for t in range(size):
        if board[t] != 0:
            continue
        base = comp[t] * (colours + 1)
        if best_cell[base] < 0:
            # Any cell of the region, for colours that gain nothing anywhere in it.
            for k in range(colours + 1):
                best_cell[base + k] = t
                best_gain[base + k] = 0
        row = t // width
        col = t % width
        # Only colours touching t along some line can gain there; each once.
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
            g = table_gain(board, width, height, min_line, t, k, shape, runs)
            if g > best_gain[base + k]:
                best_gain[base + k] = g
                best_cell[base + k] = t
    count = 0
    top = -(1 << 40)
    for s in range(size):
        k = board[s]
        if k == 0:
            continue
        r = s // width
        c = s % width
        loss = -1
        first = count
        for n in range(4):
            if n == 0:
                if r == 0:
                    continue
                nb = s - width
            elif n == 1:
                if r == height - 1:
                    continue
                nb = s + width
            elif n == 2:
                if c == 0:
                    continue
                nb = s - 1
            else:
                if c == width - 1:
                    continue
                nb = s + 1
            if board[nb] != 0:
                continue
            region = comp[nb]
            seen = False
            for j in range(first, count):
                if opts[3 * j + 2] == region:
                    seen = True
            if seen:
                continue
            if loss < 0:
                loss = table_gain(board, width, height, min_line, s, k, shape, runs)
            t = best_cell[region * (colours + 1) + k]
            gain = best_gain[region * (colours + 1) + k]
            tr = t // width
            tc = t % width
            near = abs(tr - r) < min_line and abs(tc - c) < min_line
            if near and (tr == r or tc == c or tr - tc == r - c or tr + tc == r + c):
                # s in the run the gain counted at t (chips of k all the way from t
                # to s): value t without s.
                sr = 1 if r > tr else (-1 if r < tr else 0)
                sc = 1 if c > tc else (-1 if c < tc else 0)
                wr = tr + sr
                wc = tc + sc
                while (wr != r or wc != c) and board[wr * width + wc] == k:
                    wr += sr
                    wc += sc
                if wr == r and wc == c:
                    board[s] = 0
                    gain = cell_gain(board, width, height, min_line, t, k, shape)
                    board[s] = k
            score = gain - loss
            opts[3 * count] = s
            opts[3 * count + 1] = score
            opts[3 * count + 2] = region
            count += 1
            if score > top:
                top = score
    if count == 0:
        return -1
    span = weights.shape[0]
    total = 0
    for j in range(count):
        gap = top - opts[3 * j + 1]
        if gap < span:
            total += weights[gap]
    pick = next_random(state, total)
    for j in range(count):
        gap = top - opts[3 * j + 1]
        if gap < span:
            pick -= weights[gap]
            if pick < 0:
                s = opts[3 * j]
                t = best_cell[opts[3 * j + 2] * (colours + 1) + board[s]]
                return int(s * size + t)
    return -1


def rollout(
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
    shape: Array,
    weights: Array,
    empty_weight: int,
    potential: int,
    state: Array,
    scratch: Array,
) -> int:
    """Play ``src -> dst`` on ``board`` (changed in place), then ``depth`` policy moves.

    The value is the points scored on the way (100 a point), plus ``empty_weight``
    per empty cell at the end and ``potential`` % of what the chips left are
    worth to their lines (:func:`table_gain`), or :data:`LOST` plus the points
    when the game ended. The
    first throw has the ``known`` colours (the preview), later ones are drawn.
    """
    size = width * height
    comp = scratch[0:size]
    stack = scratch[size : 2 * size]
    empties = scratch[2 * size : 3 * size]
    cells = scratch[3 * size : 4 * size]
    mark = scratch[4 * size : 5 * size]
    opts = scratch[5 * size : 5 * size + 12 * size]
    best_gain = scratch[17 * size : 17 * size + size * (colours + 1)]
    best_cell = scratch[17 * size + size * (colours + 1) : 17 * size + 2 * size * (colours + 1)]
    runs = scratch[17 * size + 2 * size * (colours + 1) : 33 * size + 2 * size * (colours + 1)]
    points = 0
    first = True
    for step in range(depth + 1):
        if step > 0:
            move = policy_move(
                board,
                width,
                height,
                min_line,
                colours,
                shape,
                weights,
                state,
                comp,
                stack,
                best_gain,
                best_cell,
                opts,
                runs,
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
            points += removed + removed * (removed - min_line) + streak * streak
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
            return LOST + points * 100
        if gone:
            points += gone + gone * (gone - min_line)
    free = 0
    worth = 0
    if potential:
        run_tables(board, width, height, runs)
    for i in range(size):
        if board[i] == 0:
            free += 1
        elif potential:
            worth += table_gain(board, width, height, min_line, i, board[i], shape, runs)
    return points * 100 + empty_weight * free + potential * worth // 100


def rollouts(
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
    count: int,
    depth: int,
    seed: int,
    shape: Array,
    weights: Array,
    empty_weight: int,
    potential: int,
) -> int:
    """The sum of ``count`` rollout values of ``src -> dst``; rollout ``i`` seeds ``seed + i``.

    Seeding by the rollout's number gives every candidate move the same random
    throws (common random numbers), so candidates differ by their play, not by
    their luck. ``board`` is left as it was.
    """
    size = width * height
    work = np.empty(size, dtype=np.int64)
    scratch = np.zeros(33 * size + 2 * size * (colours + 1), dtype=np.int64)
    state = np.empty(1, dtype=np.int64)
    total = 0
    for i in range(count):
        for j in range(size):
            work[j] = board[j]
        state[0] = ((seed + i) * 2654435761 + 12345) & MASK32
        if state[0] == 0:
            state[0] = 1
        total += rollout(
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
            shape,
            weights,
            empty_weight,
            potential,
            state,
            scratch,
        )
    return total


def root_moves(
    board: Array, width: int, height: int, min_line: int, shape: Array, out: Array
) -> int:
    """Every legal move with its one-move score; ``out`` gets (score, src, dst) triples.

    The score is the gain at the target minus the chip's worth where it stands,
    as the rollout policy scores them (:func:`table_gain`), but with the target
    valued on the board without the chip. Returns the number of moves.
    """
    size = width * height
    comp = np.empty(size, dtype=np.int64)
    stack = np.empty(size, dtype=np.int64)
    runs = np.empty(16 * size, dtype=np.int64)
    without = np.empty(16 * size, dtype=np.int64)
    components(board, width, height, comp, stack)
    run_tables(board, width, height, runs)
    count = 0
    for s in range(size):
        k = board[s]
        if k == 0:
            continue
        r = s // width
        c = s % width
        regions = np.full(4, -1, dtype=np.int64)
        for n in range(4):
            if n == 0:
                if r == 0:
                    continue
                nb = s - width
            elif n == 1:
                if r == height - 1:
                    continue
                nb = s + width
            elif n == 2:
                if c == 0:
                    continue
                nb = s - 1
            else:
                if c == width - 1:
                    continue
                nb = s + 1
            if board[nb] == 0:
                regions[n] = comp[nb]
        if regions.max() < 0:
            continue
        loss = table_gain(board, width, height, min_line, s, k, shape, runs)
        board[s] = 0
        run_tables(board, width, height, without)
        for t in range(size):
            if board[t] != 0 or t == s:
                continue
            region = comp[t]
            if region not in (regions[0], regions[1], regions[2], regions[3]):
                continue
            gain = table_gain(board, width, height, min_line, t, k, shape, without)
            out[3 * count] = gain - loss
            out[3 * count + 1] = s
            out[3 * count + 2] = t
            count += 1
        board[s] = k
    return count
