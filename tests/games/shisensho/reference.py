"""A reference solver written from the rules, not from the engine.

Its own line-of-sight path test, its own sliding (LinkSame's movement table
written out afresh), a plain depth-first search: the engine's solver and every
dealt board must agree with it."""

from __future__ import annotations

import random

from tests.games.shisensho.helpers import Grid


def ref_slide(board: Grid, stage: int) -> None:
    """LinkSame's movement table (protocol/games/linksame.md), written out afresh."""
    rows, cols = len(board), len(board[0])
    r, c = rows // 2, cols // 2

    def pack(cells: list[tuple[int, int]]) -> None:
        kept = [board[i][j] for i, j in cells if board[i][j] is not None]
        for n, (i, j) in enumerate(cells):
            board[i][j] = kept[n] if n < len(kept) else None

    down = [[(i, j) for i in reversed(range(rows))] for j in range(cols)]
    up = [[(i, j) for i in range(rows)] for j in range(cols)]
    right = [[(i, j) for j in reversed(range(cols))] for i in range(rows)]
    left = [[(i, j) for j in range(cols)] for i in range(rows)]
    groups: list[list[tuple[int, int]]] = []
    if stage == 1:
        groups = down
    elif stage == 2:
        groups = right
    elif stage == 3:
        groups = [[x for x in g if x[0] < r] for g in down] + [
            [x for x in g if x[0] >= r] for g in up
        ]
    elif stage == 4:
        groups = [[x for x in g if x[1] < c] for g in right] + [
            [x for x in g if x[1] >= c] for g in left
        ]
    elif stage == 5:
        groups = [[x for x in g if x[0] < r] for g in up] + [
            [x for x in g if x[0] >= r] for g in down
        ]
    elif stage == 6:
        groups = [[x for x in g if x[1] < c] for g in left] + [
            [x for x in g if x[1] >= c] for g in right
        ]
    elif stage == 7:
        groups = down[:c] + up[c:]
    elif stage == 8:
        groups = right[:r] + left[r:]
    for g in groups:
        pack(g)


def ref_sight(board: Grid, cell: tuple[int, int]) -> set[tuple[int, int]]:
    """Empty cells (margin included) seen from ``cell`` along its row and column."""
    rows, cols = len(board), len(board[0])
    seen = set()
    for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
        r, c = cell[0] + dr, cell[1] + dc
        while -1 <= r <= rows and -1 <= c <= cols:
            if 0 <= r < rows and 0 <= c < cols and board[r][c] is not None:
                break
            seen.add((r, c))
            r, c = r + dr, c + dc
    return seen


def ref_connect(board: Grid, a: tuple[int, int], b: tuple[int, int]) -> bool:
    if abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1:
        return True
    sa = ref_sight(board, a)
    if not sa:
        return False
    sb = ref_sight(board, b)
    if sa & sb:  # a straight line with a gap, or one turn
        return True
    return any(ref_sight(board, x) & sb for x in sa)


def ref_solve(board: Grid, same, stage: int, *, limit: int = 200_000) -> bool:
    """Plain depth-first search, kinds with fewer tiles left tried first, random restarts."""
    rng = random.Random(0)
    dead: set = set()
    nodes = 0

    def moves(b: Grid) -> list:
        cells = [(r, c) for r, row in enumerate(b) for c, t in enumerate(row) if t is not None]
        groups: dict = {}
        for cell in cells:
            groups.setdefault(same(b[cell[0]][cell[1]]), []).append(cell)
        order = sorted(groups.values(), key=lambda g: (len(g), rng.random()))
        for g in order:
            for i, x in enumerate(g):
                for y in g[i + 1 :]:
                    if ref_connect(b, x, y):
                        yield (x, y)

    def whole_kinds(b: Grid):
        groups: dict = {}
        for r, row in enumerate(b):
            for c, t in enumerate(row):
                if t is not None:
                    groups.setdefault(same(t), []).append((r, c))
        for g in groups.values():
            if len(g) == 2 and ref_connect(b, g[0], g[1]):
                yield [(g[0], g[1])]
            elif len(g) == 4:
                for x, y in ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)):
                    if ref_connect(b, g[x], g[y]):
                        s, t = (g[i] for i in range(4) if i not in (x, y))
                        nb = [row[:] for row in b]
                        nb[g[x][0]][g[x][1]] = nb[g[y][0]][g[y][1]] = None
                        if ref_connect(nb, s, t):
                            yield [(g[x], g[y]), (s, t)]
                            break

    def dfs(b: Grid, budget: int) -> bool:
        nonlocal nodes
        key = tuple(tuple(row) for row in b)
        if all(t is None for row in b for t in row):
            return True
        if key in dead:
            return False
        nodes += 1
        if nodes > budget:
            raise TimeoutError
        if stage == 0:
            # Nothing slides, so emptier boards only open paths: a kind whose
            # tiles (two or four) can all go right now may as well go, unbranched.
            for seq in whole_kinds(b):
                nb = [row[:] for row in b]
                for x, y in seq:
                    nb[x[0]][x[1]] = nb[y[0]][y[1]] = None
                ok = dfs(nb, budget)
                if not ok:
                    dead.add(key)
                return ok
        for x, y in moves(b):
            nb = [row[:] for row in b]
            nb[x[0]][x[1]] = nb[y[0]][y[1]] = None
            ref_slide(nb, stage)
            if dfs(nb, budget):
                return True
        dead.add(key)
        return False

    budget = 150
    while nodes < limit:
        try:
            return dfs(board, nodes + budget)
        except TimeoutError:
            budget = budget * 3 // 2
    raise AssertionError("reference solver ran out of nodes")


def mi_same(t: int) -> int:
    return 100 if 34 <= t <= 37 else 200 if 38 <= t <= 41 else t
