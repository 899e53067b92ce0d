"""Helpers of the Shisen-Sho tests: boards drawn as text, and replaying a clearing."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hypothesis import strategies as st
from tilehall.server.games.shisensho import (
    Movement,
    find_path,
    remove_pair,
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


boards = st.integers(2, 5).flatmap(
    lambda rows: st.integers(2, 6).flatmap(
        lambda cols: st.lists(
            st.lists(st.sampled_from([None, None, 0, 1, 2]), min_size=cols, max_size=cols),
            min_size=rows,
            max_size=rows,
        )
    )
)


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
