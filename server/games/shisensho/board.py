"""The types every Shisen-Sho module speaks: cells, boards, moves, match classes, margins."""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence

__all__ = [
    "Board",
    "Cell",
    "MatchKey",
    "Move",
    "Path",
    "Side",
    "board_from_cells",
    "count_tiles",
    "identity_key",
]

Cell = tuple[int, int]
"""``(row, col)``; margin points have row ``-1``/``rows`` or column ``-1``/``cols``."""

Path = list[Cell]
"""The corners of a path: both tiles and the one or two turns between them, in order."""

Board = list[list[int | None]]
"""Rows of tile ids; ``None`` is an empty cell."""

Move = tuple[Cell, Cell]
"""A pair of tiles to remove, as two cells."""

MatchKey = Callable[[int], int]
"""Maps a tile id to its match class: two tiles match when their classes are equal."""


def identity_key(tile: int) -> int:
    """The match class of games where only identical tiles match (LinkSame)."""
    return tile


class Side(enum.StrEnum):
    """A margin of the board, as a path through it reports."""

    TOP = "top"
    BOTTOM = "bottom"
    LEFT = "left"
    RIGHT = "right"


def count_tiles(board: Sequence[Sequence[int | None]]) -> int:
    """Tiles left on the board."""
    return sum(t is not None for row in board for t in row)


def board_from_cells(rows: int, cols: int, tiles: dict[Cell, int]) -> Board:
    """A board holding ``tiles`` (cell to id) and nothing else; handy for fixed positions."""
    board: Board = [[None] * cols for _ in range(rows)]
    for (r, c), t in tiles.items():
        board[r][c] = t
    return board
