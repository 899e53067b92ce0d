"""How tiles slide after a removal: LinkSame's nine movement rules.

Match-It and LinkSame's first stage never slide; the other stages compact lines
of cells toward one end after every pair (the table in ``protocol/games/linksame.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from tilehall.server.games.shisensho.bitboard import geometry
from tilehall.server.games.shisensho.board import Board, Cell, Move

__all__ = ["MOVEMENT_NAMES", "Movement", "movement", "remove_pair"]


class Movement:
    """How tiles slide after a removal: lines of cells compacted toward their first cell.

    Every stage of LinkSame partitions the board into lines (whole or half rows
    or columns); after a pair is removed each line's tiles keep their order and
    move toward the line's first cell. Stage 0 (and Match-It) has one-cell
    lines, so nothing moves. ``lines`` lists board cells from the target end
    outward.
    """

    def __init__(self, name: str, rows: int, cols: int, lines: Sequence[Sequence[Cell]]) -> None:
        self.name = name
        self.rows = rows
        self.cols = cols
        self.lines: tuple[tuple[Cell, ...], ...] = tuple(tuple(line) for line in lines)
        self.static = all(len(line) == 1 for line in self.lines)
        geo = geometry(rows, cols)
        self._line_index: dict[int, tuple[int, ...]] = {}
        for line in self.lines:
            idx = tuple(geo.index(r, c) for r, c in line)
            for i in idx:
                self._line_index[i] = idx

    def slide(self, board: Board) -> list[tuple[Cell, Cell]]:
        """Compact every line of ``board`` in place; return each moved tile as ``(from, to)``."""
        moved: list[tuple[Cell, Cell]] = []
        if self.static:
            return moved
        for line in self.lines:
            occupied = [cell for cell in line if board[cell[0]][cell[1]] is not None]
            tiles = [board[r][c] for r, c in occupied]
            for (r, c), t in zip(line, tiles, strict=False):
                board[r][c] = t
            for r, c in line[len(tiles) :]:
                board[r][c] = None
            moved.extend((src, dst) for src, dst in zip(occupied, line, strict=False) if src != dst)
        return moved

    def padded_line(self, i: int) -> tuple[int, ...]:
        """The padded indices of the line through padded index ``i``, target end first."""
        return self._line_index[i]


MOVEMENT_NAMES: tuple[str, ...] = (
    "none",
    "down",
    "right",
    "rows_to_middle",
    "cols_to_middle",
    "rows_to_edges",
    "cols_to_edges",
    "left_down_right_up",
    "top_right_bottom_left",
)
"""Wire names of LinkSame's nine movement rules, by stage."""


@cache
def movement(stage: int, rows: int, cols: int) -> Movement:
    """LinkSame's movement rule of ``stage`` (0-8) on a ``rows x cols`` board (the game's page).

    ``r = rows // 2`` and ``c = cols // 2``: "above r" is rows ``0..r-1``,
    "from r" is rows ``r..rows-1``; likewise for columns.
    """
    mid_r, mid_c = rows // 2, cols // 2
    col = [[(r, c) for r in range(rows)] for c in range(cols)]  # top to bottom
    row = [[(r, c) for c in range(cols)] for r in range(rows)]  # left to right
    lines: list[list[Cell]]
    match stage:
        case 0:
            lines = [[(r, c)] for r in range(rows) for c in range(cols)]
        case 1:
            lines = [line[::-1] for line in col]
        case 2:
            lines = [line[::-1] for line in row]
        case 3:
            lines = [line[:mid_r][::-1] for line in col] + [line[mid_r:] for line in col]
        case 4:
            lines = [line[:mid_c][::-1] for line in row] + [line[mid_c:] for line in row]
        case 5:
            lines = [line[:mid_r] for line in col] + [line[mid_r:][::-1] for line in col]
        case 6:
            lines = [line[:mid_c] for line in row] + [line[mid_c:][::-1] for line in row]
        case 7:
            lines = [col[c][::-1] for c in range(mid_c)] + [col[c] for c in range(mid_c, cols)]
        case 8:
            lines = [row[r][::-1] for r in range(mid_r)] + [row[r] for r in range(mid_r, rows)]
        case _:
            raise ValueError(f"no movement rule for stage {stage}")
    return Movement(MOVEMENT_NAMES[stage], rows, cols, [line for line in lines if line])


def remove_pair(board: Board, move: Move, rule: Movement | None = None) -> list[tuple[Cell, Cell]]:
    """Empty both cells of ``move`` and slide the board by ``rule``; return the moved tiles."""
    for r, c in move:
        board[r][c] = None
    return rule.slide(board) if rule is not None else []
