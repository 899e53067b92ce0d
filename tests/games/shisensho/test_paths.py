"""Paths: hand-made vectors, then every board against a brute-force search."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tilehall.server.games.shisensho import (
    Side,
    find_path,
    has_playable_pair,
    path_length,
    path_sides,
    playable_pairs,
)

from tests.games.shisensho.helpers import Grid, boards, parse


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
