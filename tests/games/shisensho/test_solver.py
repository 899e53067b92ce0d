"""The solver: backtracking, budgets, and agreement with the reference solver."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st
from tilehall.server.games.shisensho import (
    Outcome,
    identity_key,
    margin_moves,
    movement,
    playable_pairs,
    remove_pair,
    solve,
)

from tests.games.shisensho.helpers import Grid, parse, replay
from tests.games.shisensho.reference import ref_solve


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


def test_solver_budget_gives_unknown() -> None:
    rng = random.Random(3)
    rows, cols = 9, 16
    tiles = [k for k in range(36) for _ in range(4)]
    rng.shuffle(tiles)
    board = [tiles[r * cols : (r + 1) * cols] for r in range(rows)]
    assert solve(board, node_limit=1).outcome is Outcome.UNKNOWN


def test_margin_moves_counts_moves_without_an_inside_path() -> None:
    board = parse("A##A", "####", "B##B")
    sol = [((0, 0), (0, 3)), ((2, 0), (2, 3))]
    assert margin_moves(board, sol) == 2
    board = parse("AA", "BB")
    assert margin_moves(board, [((0, 0), (0, 1)), ((1, 0), (1, 1))]) == 0


def test_reference_solver_agrees_on_small_cases() -> None:
    assert not ref_solve(parse("AB", "BA"), lambda t: t, 0)
    assert ref_solve(parse("ABBA", "CDDC"), lambda t: t, 0)
    # the same crossing slid right each time: B-B on row 0 would meet A... still none to start
    assert not ref_solve(parse("AB", "BA"), lambda t: t, 2)
