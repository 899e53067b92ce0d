"""Deals: every dealt board of both games clears, checked by the reference solver.

The default run checks a few deals per game and size; ``SHISENSHO_DEALS=1000``
runs the full count."""

from __future__ import annotations

import os
import random
import time

import pytest
from tilehall.server.games import linksame, matchit
from tilehall.server.games.shisensho import (
    deal_by_play,
    identity_key,
    movement,
    remove_pair,
    solve,
)

from tests.games.shisensho.helpers import replay, show
from tests.games.shisensho.reference import mi_same, ref_solve


def test_deal_by_play_fills_only_the_given_cells() -> None:
    rng = random.Random(1)
    cells = [(0, 0), (0, 3), (2, 1), (2, 2)]
    board = deal_by_play(3, 4, [(5, 5), (6, 6)], rng, cells=cells)
    assert board is not None
    assert sorted((r, c) for r in range(3) for c in range(4) if board[r][c] is not None) == cells
    assert sorted(t for row in board for t in row if t is not None) == [5, 5, 6, 6]


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


DEALS = int(os.environ.get("SHISENSHO_DEALS", "20"))


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


@pytest.mark.parametrize("size", ["easy", "normal", pytest.param("hard", marks=pytest.mark.slow)])
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
