"""Movement rules: each stage's sliding as LinkSame's table says."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tilehall.server.games.shisensho import (
    movement,
)

from tests.games.shisensho.helpers import Grid, boards, parse, show

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
