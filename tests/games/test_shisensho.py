"""Shisen-Sho engine: path vectors, movement rules, solver, and deals checked by a reference solver.

The reference solver at the bottom is written from the rules, not from the
engine: its own line-of-sight path test, its own sliding, a plain depth-first
search. Every dealt board of both games must pass it. The default run checks
a few deals per game and size; ``SHISENSHO_DEALS=1000`` runs the full count.
"""

from __future__ import annotations

import itertools
import os
import random
import time
from collections.abc import Callable, Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.games import linksame, matchit
from server.games.shisensho import (
    Movement,
    Outcome,
    Side,
    deal_by_play,
    find_path,
    has_playable_pair,
    identity_key,
    margin_moves,
    movement,
    path_length,
    path_sides,
    playable_pairs,
    remove_pair,
    solve,
)

Grid = list[list[int | None]]


def parse(*rows: str) -> Grid:
    """``.`` is empty, ``#`` a tile matching nothing here, a letter a tile (A = 0)."""
    out: Grid = []
    for row in rows:
        out.append([None if ch == "." else 99 if ch == "#" else ord(ch) - 65 for ch in row])
    return out


def show(board: Sequence[Sequence[int | None]]) -> list[str]:
    return ["".join("." if t is None else chr(65 + t) for t in row) for row in board]


# -- path vectors ----------------------------------------------------------------------


def test_neighbours_join_with_one_segment() -> None:
    assert find_path(parse("AA"), (0, 0), (0, 1)) == [(0, 0), (0, 1)]
    assert find_path(parse("A", "A"), (0, 0), (1, 0)) == [(0, 0), (1, 0)]


def test_straight_line_over_empty_cells() -> None:
    assert find_path(parse("A..A"), (0, 0), (0, 3)) == [(0, 0), (0, 3)]


def test_l_shape_uses_the_open_corner() -> None:
    board = parse("A..", "##.", "##A")
    assert find_path(board, (0, 0), (2, 2)) == [(0, 0), (0, 2), (2, 2)]


def test_blocked_l_shape_falls_back_to_three_segments() -> None:
    board = parse("A.#", "#.#", "#.A")  # both corners of the L are taken
    assert find_path(board, (0, 0), (2, 2)) == [(0, 0), (0, 1), (2, 1), (2, 2)]


def test_fully_blocked_tiles_do_not_connect() -> None:
    board = parse("A#B", "#C#", "B#A")
    assert find_path(board, (0, 0), (2, 2)) is None
    assert find_path(board, (0, 2), (2, 0)) is None


def test_four_segments_are_not_enough() -> None:
    # right, down, right, down would join them: one turn too many
    board = parse("A.#", "#.#", "#..", "##A")
    assert find_path(board, (0, 0), (3, 2)) is None


@pytest.mark.parametrize(
    ("rows", "a", "b", "path", "side"),
    [
        (("A##A", "####", "####"), (0, 0), (0, 3), [(0, 0), (-1, 0), (-1, 3), (0, 3)], Side.TOP),
        (("####", "####", "A##A"), (2, 0), (2, 3), [(2, 0), (3, 0), (3, 3), (2, 3)], Side.BOTTOM),
        (("A###", "####", "A###"), (0, 0), (2, 0), [(0, 0), (0, -1), (2, -1), (2, 0)], Side.LEFT),
        (("###A", "####", "###A"), (0, 3), (2, 3), [(0, 3), (0, 4), (2, 4), (2, 3)], Side.RIGHT),
    ],
)
def test_paths_through_each_margin(
    rows: tuple[str, ...], a: tuple[int, int], b: tuple[int, int], path: list, side: Side
) -> None:
    board = parse(*rows)
    got = find_path(board, a, b)
    assert got == path
    assert path_sides(path, len(board), len(board[0])) == {side}
    assert find_path(board, a, b, avoid_margin=True) == path  # the only way


def test_of_two_three_segment_paths_the_shorter_wins() -> None:
    board = parse("A...", "##.#", "#..A")
    # via column 2 (length 5) beats via the right margin (length 7)
    assert find_path(board, (0, 0), (2, 3)) == [(0, 0), (0, 2), (2, 2), (2, 3)]
    blocked = parse("A...", "####", "#..A")
    assert find_path(blocked, (0, 0), (2, 3)) == [(0, 0), (0, 4), (2, 4), (2, 3)]


def test_match_it_keeps_off_the_margin_even_when_longer() -> None:
    board = parse("A###A", ".###.", ".....")
    margin = [(0, 0), (-1, 0), (-1, 4), (0, 4)]
    inside = [(0, 0), (2, 0), (2, 4), (0, 4)]
    assert find_path(board, (0, 0), (0, 4)) == margin  # LinkSame: shortest
    assert path_length(margin) == 6 and path_length(inside) == 8
    assert find_path(board, (0, 0), (0, 4), avoid_margin=True) == inside


def test_ties_prefer_fewer_turns_then_the_smaller_points() -> None:
    # two L paths and a Z path, all of length 3
    board = parse("A..", "...", ".A.")
    assert find_path(board, (0, 0), (2, 1)) == [(0, 0), (0, 1), (2, 1)]


# -- paths against a brute-force search ------------------------------------------------------


def brute_paths(board: Grid, a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int] | None:
    """(shortest length, shortest length staying on the board) of a <= 2-turn path, by BFS."""
    rows, cols = len(board), len(board[0])

    def free(r: int, c: int) -> bool:
        if not (-1 <= r <= rows and -1 <= c <= cols):
            return False
        return not (0 <= r < rows and 0 <= c < cols) or board[r][c] is None

    best: dict[bool, int] = {}
    # state: cell, direction, turns, length, used margin
    frontier = [(a, d, 0, 0, False) for d in ((0, 1), (0, -1), (1, 0), (-1, 0))]
    seen: set = set()
    while frontier:
        nxt = []
        for (r, c), d, turns, length, out in frontier:
            nr, nc = r + d[0], c + d[1]
            if (nr, nc) == b:
                for inside_only in (False, True):
                    if inside_only and out:
                        continue
                    best[inside_only] = min(best.get(inside_only, 99), length + 1)
                continue
            if not free(nr, nc):
                continue
            margin = not (0 <= nr < rows and 0 <= nc < cols)
            for nd in ((0, 1), (0, -1), (1, 0), (-1, 0)):
                t = turns + (nd != d)
                if t > 2 or nd == (-d[0], -d[1]):
                    continue
                state = ((nr, nc), nd, t, out or margin)
                if state in seen:
                    continue
                seen.add(state)
                nxt.append(((nr, nc), nd, t, length + 1, out or margin))
        frontier = nxt
    if False not in best:
        return None
    return best[False], best.get(True, -1)


boards = st.integers(2, 5).flatmap(
    lambda rows: st.integers(2, 6).flatmap(
        lambda cols: st.lists(
            st.lists(st.sampled_from([None, None, 0, 1, 2]), min_size=cols, max_size=cols),
            min_size=rows,
            max_size=rows,
        )
    )
)


def valid_path(board: Grid, path: list[tuple[int, int]]) -> bool:
    rows, cols = len(board), len(board[0])
    if not 2 <= len(path) <= 4:
        return False
    cells = []
    for (r1, c1), (r2, c2) in itertools.pairwise(path):
        if r1 != r2 and c1 != c2:
            return False
        dr, dc = (r2 > r1) - (r2 < r1), (c2 > c1) - (c2 < c1)
        r, c = r1 + dr, c1 + dc
        while (r, c) != (r2, c2):
            cells.append((r, c))
            r, c = r + dr, c + dc
        cells.append((r2, c2))
    cells.pop()  # the far tile
    for r, c in cells:
        if not (-1 <= r <= rows and -1 <= c <= cols):
            return False
        if 0 <= r < rows and 0 <= c < cols and board[r][c] is not None:
            return False
    return True


@given(boards, st.data())
def test_find_path_agrees_with_brute_force(board: Grid, data: st.DataObject) -> None:
    tiles = [(r, c) for r, row in enumerate(board) for c, t in enumerate(row) if t is not None]
    if len(tiles) < 2:
        return
    a, b = data.draw(st.lists(st.sampled_from(tiles), min_size=2, max_size=2, unique=True))
    want = brute_paths(board, a, b)
    got = find_path(board, a, b)
    inside = find_path(board, a, b, avoid_margin=True)
    if want is None:
        assert got is None and inside is None
        return
    assert got is not None and inside is not None
    assert got[0] == a and got[-1] == b and valid_path(board, got)
    assert path_length(got) == want[0]
    rows, cols = len(board), len(board[0])
    if want[1] >= 0:
        assert not path_sides(inside, rows, cols) and path_length(inside) == want[1]
    else:
        assert path_sides(inside, rows, cols) and inside == got


@given(boards)
def test_playable_pairs_are_exactly_the_connected_matches(board: Grid) -> None:
    tiles = [(r, c) for r, row in enumerate(board) for c, t in enumerate(row) if t is not None]
    want = {
        (a, b)
        for i, a in enumerate(tiles)
        for b in tiles[i + 1 :]
        if board[a[0]][a[1]] == board[b[0]][b[1]] and brute_paths(board, a, b) is not None
    }
    assert set(playable_pairs(board)) == want
    assert has_playable_pair(board) == bool(want)


# -- movement rules --------------------------------------------------------------------

BEFORE = ("AB.C", ".D.E", "F..G", ".HI.")  # 4x4: r = 2, c = 2


@pytest.mark.parametrize(
    ("stage", "after"),
    [
        (0, BEFORE),
        (1, ("....", ".B.C", "AD.E", "FHIG")),  # columns compact downward
        (2, (".ABC", "..DE", "..FG", "..HI")),  # rows compact rightward
        (3, (".B.C", "AD.E", "FHIG", "....")),  # halves of columns toward the middle rows
        (4, ("ABC.", ".DE.", ".FG.", ".HI.")),  # halves of rows toward the middle columns
        (5, ("AB.C", ".D.E", "....", "FHIG")),  # halves of columns to the top and bottom edges
        (6, ("AB.C", "D..E", "F..G", "H..I")),  # halves of rows to the left and right edges
        (7, ("..IC", ".B.E", "AD.G", "FH..")),  # left columns fall, right columns rise
        (8, (".ABC", "..DE", "FG..", "HI..")),  # top rows right, bottom rows left
    ],
)
def test_each_stage_slides_as_the_table_says(stage: int, after: tuple[str, ...]) -> None:
    board = parse(*BEFORE)
    moved = movement(stage, 4, 4).slide(board)
    assert show(board) == list(after)

    def where(rows: Sequence[str]) -> dict[str, tuple[int, int]]:
        return {ch: (r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != "."}

    old, new = where(BEFORE), where(after)
    assert sorted(moved) == sorted((old[ch], new[ch]) for ch in old if old[ch] != new[ch])


def test_odd_sizes_split_at_integer_half() -> None:
    rule = movement(3, 7, 12)  # r = 3: rows 0-2 move down to row 2, rows 3-6 up to row 3
    board = [[None] * 12 for _ in range(7)]
    board[0][5] = 1
    board[6][5] = 2
    rule.slide(board)
    assert board[2][5] == 1 and board[3][5] == 2


@given(st.integers(0, 8), boards)
def test_sliding_keeps_tiles_and_is_idempotent(stage: int, board: Grid) -> None:
    rule = movement(stage, len(board), len(board[0]))
    tiles = sorted(t for row in board for t in row if t is not None)
    rule.slide(board)
    assert sorted(t for row in board for t in row if t is not None) == tiles
    again = [row[:] for row in board]
    assert rule.slide(again) == [] and again == board


# -- solver ----------------------------------------------------------------------------


def test_crossed_pairs_are_stuck() -> None:
    assert solve(parse("AB", "BA")).outcome is Outcome.STUCK


def greedy_clears(board: Grid) -> bool:
    """Always take the first playable pair in reading order: no search at all."""
    board = [row[:] for row in board]
    while pairs := playable_pairs(board):
        remove_pair(board, pairs[0])
    return all(t is None for row in board for t in row)


def test_solver_backtracks_where_greedy_play_gets_stuck() -> None:
    rng = random.Random(11)
    found = 0
    for _ in range(400):
        tiles = [k for k in range(3) for _ in range(4)]
        rng.shuffle(tiles)
        board: Grid = [tiles[r * 4 : (r + 1) * 4] for r in range(3)]
        if not greedy_clears(board) and solve(board).solved:
            found += 1
            replay(board, solve(board).moves, identity_key, None)
    assert found > 0


@given(st.integers(0, 8), st.data())
def test_solver_decides_like_the_reference_on_small_boards(stage: int, data: st.DataObject) -> None:
    rows, cols = data.draw(st.sampled_from([(2, 4), (3, 4), (4, 3), (4, 4)]))
    kinds = rows * cols // 4
    tiles = data.draw(st.permutations([k for k in range(kinds) for _ in range(4)]))
    board: Grid = [list(tiles[r * cols : (r + 1) * cols]) for r in range(rows)]
    rule = movement(stage, rows, cols)
    sol = solve(board, identity_key, rule)
    assert sol.outcome is not Outcome.UNKNOWN
    assert sol.solved == ref_solve(board, lambda t: t, stage)
    if sol.solved:
        replay(board, sol.moves, identity_key, rule)


def replay(
    board: Grid,
    moves: Sequence,
    key: Callable[[int], int],
    rule: Movement | None,
    *,
    avoid: bool = False,
) -> None:
    """Play ``moves`` with the engine's rules and check each is legal and the board ends empty."""
    board = [row[:] for row in board]
    for a, b in moves:
        ta, tb = board[a[0]][a[1]], board[b[0]][b[1]]
        assert ta is not None and tb is not None
        assert key(ta) == key(tb)
        assert find_path(board, a, b, avoid_margin=avoid) is not None
        remove_pair(board, (a, b), rule)
    assert all(t is None for row in board for t in row)


def test_solver_budget_gives_unknown() -> None:
    rng = random.Random(3)
    rows, cols = 9, 16
    tiles = [k for k in range(36) for _ in range(4)]
    rng.shuffle(tiles)
    board = [tiles[r * cols : (r + 1) * cols] for r in range(rows)]
    assert solve(board, node_limit=1).outcome is Outcome.UNKNOWN


@pytest.mark.parametrize("stage", range(9))
def test_solver_clears_by_play_deals_under_each_rule(stage: int) -> None:
    rng = random.Random(stage)
    rule = movement(stage, 7, 12)
    pairs = [(k, k) for k in range(21) for _ in range(2)]
    board = deal_by_play(7, 12, pairs, rng, rule=rule)
    assert board is not None
    sol = solve(board, identity_key, rule)
    assert sol.solved
    replay(board, sol.moves, identity_key, rule)


def test_margin_moves_counts_moves_without_an_inside_path() -> None:
    board = parse("A##A", "####", "B##B")
    sol = [((0, 0), (0, 3)), ((2, 0), (2, 3))]
    assert margin_moves(board, sol) == 2
    board = parse("AA", "BB")
    assert margin_moves(board, [((0, 0), (0, 1)), ((1, 0), (1, 1))]) == 0


def test_deal_by_play_fills_only_the_given_cells() -> None:
    rng = random.Random(1)
    cells = [(0, 0), (0, 3), (2, 1), (2, 2)]
    board = deal_by_play(3, 4, [(5, 5), (6, 6)], rng, cells=cells)
    assert board is not None
    assert sorted((r, c) for r in range(3) for c in range(4) if board[r][c] is not None) == cells
    assert sorted(t for row in board for t in row if t is not None) == [5, 5, 6, 6]


# -- the reference solver --------------------------------------------------------------------


def ref_slide(board: Grid, stage: int) -> None:
    """GAMES.md's movement table, written out afresh."""
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


DEALS = int(os.environ.get("SHISENSHO_DEALS", "20"))


def test_reference_solver_agrees_on_small_cases() -> None:
    assert not ref_solve(parse("AB", "BA"), lambda t: t, 0)
    assert ref_solve(parse("ABBA", "CDDC"), lambda t: t, 0)
    # the same crossing slid right each time: B-B on row 0 would meet A... still none to start
    assert not ref_solve(parse("AB", "BA"), lambda t: t, 2)


def test_match_it_deals_clear_with_the_reference_solver() -> None:
    rng = random.Random(2024)
    start = time.perf_counter()
    for n in range(DEALS):
        level = 1 + n % 12
        board, solution = matchit.deal_sheet(level, rng)
        assert len(board) == matchit.ROWS and all(len(row) == matchit.COLS for row in board)
        counts: dict[int, int] = {}
        for row in board:
            for t in row:
                assert t is not None
                counts[t] = counts.get(t, 0) + 1
        assert counts == matchit.KIND_COUNTS
        replay(board, solution.moves, matchit.match_key, None)
        assert ref_solve(board, mi_same, 0)
    print(f"{DEALS} Match-It deals in {time.perf_counter() - start:.1f}s")


@pytest.mark.parametrize("size", ["easy", "normal", "hard"])
def test_link_same_deals_clear_with_the_reference_solver(size: str) -> None:
    rows, cols = linksame.SIZES[size]
    rng = random.Random(size)
    start = time.perf_counter()
    for n in range(DEALS):
        stage = n % 9
        board = linksame.deal_stage(rows, cols, movement(stage, rows, cols), rng)
        kinds = rows * cols // 4
        flat = sorted(t for row in board for t in row if t is not None)
        assert flat == sorted(k for k in range(kinds) for _ in range(4))
        assert ref_solve(board, lambda t: t, stage), (size, stage, show(board))
    print(f"{DEALS} LinkSame {size} deals in {time.perf_counter() - start:.1f}s")


def test_link_same_reshuffles_clear_with_the_reference_solver() -> None:
    rng = random.Random(7)
    rows, cols = linksame.SIZES["easy"]
    for stage in range(9):
        rule = movement(stage, rows, cols)
        board = linksame.deal_stage(rows, cols, rule, rng)
        sol = solve(board, identity_key, rule)
        for move in sol.moves[:15]:  # part of the way, then shuffle what is left
            remove_pair(board, move, rule)
        shuffled = linksame.reshuffle(board, rule, rng)
        cells = {(r, c) for r in range(rows) for c in range(cols) if board[r][c] is not None}
        assert cells == {
            (r, c) for r in range(rows) for c in range(cols) if shuffled[r][c] is not None
        }
        assert sorted(t for row in board for t in row if t is not None) == sorted(
            t for row in shuffled for t in row if t is not None
        )
        assert ref_solve(shuffled, lambda t: t, stage)
