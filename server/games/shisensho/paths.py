"""The path a game draws between two tiles, found on the plain list board.

This is the slow, readable statement of the rule (every path of one to three
segments, then a stable choice among them); the bitboard answers "do they
connect" far faster but draws nothing.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from tilehall.server.games.shisensho.board import Cell, Path, Side

__all__ = ["find_path", "path_length", "path_sides"]


def _is_empty(board: Sequence[Sequence[int | None]], r: int, c: int) -> bool:
    rows, cols = len(board), len(board[0])
    if r < -1 or r > rows or c < -1 or c > cols:
        return False
    if r in (-1, rows) or c in (-1, cols):
        return True
    return board[r][c] is None


def _clear(board: Sequence[Sequence[int | None]], p: Cell, q: Cell) -> bool:
    """True if every cell strictly between aligned points ``p`` and ``q`` is empty."""
    (pr, pc), (qr, qc) = p, q
    if pr == qr:
        step = 1 if qc > pc else -1
        return all(_is_empty(board, pr, c) for c in range(pc + step, qc, step))
    step = 1 if qr > pr else -1
    return all(_is_empty(board, r, pc) for r in range(pr + step, qr, step))


def path_length(path: Sequence[Cell]) -> int:
    """Cells travelled along a path: the sum of its segments' lengths."""
    return sum(abs(a[0] - b[0]) + abs(a[1] - b[1]) for a, b in itertools.pairwise(path))


def path_sides(path: Sequence[Cell], rows: int, cols: int) -> set[Side]:
    """The margins a path runs through.

    A path of at most three segments between two board cells enters the margin
    only at its corners, and at most one side's margin, so looking at the
    corners is enough.
    """
    sides: set[Side] = set()
    for r, c in path:
        if r == -1:
            sides.add(Side.TOP)
        elif r == rows:
            sides.add(Side.BOTTOM)
        elif c == -1:
            sides.add(Side.LEFT)
        elif c == cols:
            sides.add(Side.RIGHT)
    return sides


def _candidate_paths(board: Sequence[Sequence[int | None]], a: Cell, b: Cell) -> list[Path]:
    """Every path of one to three segments joining ``a`` and ``b`` through empty cells."""
    rows, cols = len(board), len(board[0])
    found: list[Path] = []
    if (a[0] == b[0] or a[1] == b[1]) and _clear(board, a, b):
        found.append([a, b])
    for corner in ((a[0], b[1]), (b[0], a[1])):
        if (
            corner not in (a, b)
            and _is_empty(board, *corner)
            and _clear(board, a, corner)
            and _clear(board, corner, b)
        ):
            found.append([a, corner, b])
    if a[1] != b[1]:
        for x in range(-1, rows + 1):
            p, q = (x, a[1]), (x, b[1])
            if x in (a[0], b[0]) or not (_is_empty(board, *p) and _is_empty(board, *q)):
                continue
            if _clear(board, a, p) and _clear(board, p, q) and _clear(board, q, b):
                found.append([a, p, q, b])
    if a[0] != b[0]:
        for y in range(-1, cols + 1):
            p, q = (a[0], y), (b[0], y)
            if y in (a[1], b[1]) or not (_is_empty(board, *p) and _is_empty(board, *q)):
                continue
            if _clear(board, a, p) and _clear(board, p, q) and _clear(board, q, b):
                found.append([a, p, q, b])
    return found


def find_path(
    board: Sequence[Sequence[int | None]], a: Cell, b: Cell, *, avoid_margin: bool = False
) -> Path | None:
    """The path the game draws between tiles ``a`` and ``b``, or None if they do not connect.

    Of several legal paths the shortest wins (then the one with fewer turns,
    then the smallest list of points, so the choice is stable). With
    ``avoid_margin`` (Match-It, whose Internal bonus counts margin use) a path
    that stays on the board beats any path through the margin.
    Matching is not checked here: that is the game's business.
    """
    if a == b:
        return None
    rows, cols = len(board), len(board[0])

    def rank(path: Path) -> tuple[int, int, int, Path]:
        outside = int(bool(path_sides(path, rows, cols))) if avoid_margin else 0
        return (outside, path_length(path), len(path), path)

    paths = _candidate_paths(board, a, b)
    return min(paths, key=rank) if paths else None
