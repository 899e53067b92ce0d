"""The padded bitboard the fast parts run on, and the questions it answers.

The board padded with the margin ring and a wall ring, one bit per cell,
row-major with stride ``cols + 4``. A straight run through empty cells is an
occluded ("Kogge-Stone") fill, a few big-integer shifts whatever its length,
which is what makes a full search affordable in Python. The solver and the
deal makers build on :class:`Position`, :class:`Reach` and :func:`joined`;
games ask :func:`playable_pairs` and :func:`margin_moves`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cache
from typing import Protocol

from tilehall.server.games.shisensho.board import Cell, MatchKey, Move, identity_key

__all__ = [
    "EMPTY_KEY",
    "WALL",
    "Geometry",
    "Position",
    "Reach",
    "Sliding",
    "bits",
    "clear_class",
    "connecting_pairs",
    "connecting_pairs_after",
    "geometry",
    "has_playable_pair",
    "joined",
    "margin_moves",
    "playable_pairs",
]


class Sliding(Protocol):
    """What a removal reads of a movement rule.

    ``shisensho.movement.Movement`` builds on this module's geometry, so the rule
    is named here by what it does rather than imported.
    """

    @property
    def static(self) -> bool:
        """No line longer than a cell: nothing ever slides."""

    def padded_line(self, i: int) -> tuple[int, ...]:
        """The padded indices of the line through ``i``, its target end first."""


class Geometry:
    """Index arithmetic and constant masks of one padded ``rows x cols`` board.

    Padded index ``(r + 2) * stride + (c + 2)`` holds board cell ``(r, c)``;
    the ring at distance one is the margin (always empty), the ring at
    distance two is wall, so a fill never wraps from one row to the next.
    """

    def __init__(self, rows: int, cols: int) -> None:
        self.rows = rows
        self.cols = cols
        self.stride = cols + 4
        self.size = (rows + 4) * self.stride
        self.cells: tuple[int, ...] = tuple(
            self.index(r, c) for r in range(rows) for c in range(cols)
        )
        self.board_mask = sum(1 << i for i in self.cells)
        self.margin_mask = sum(
            1 << self.index(r, c)
            for r in range(-1, rows + 1)
            for c in range(-1, cols + 1)
            if not (0 <= r < rows and 0 <= c < cols)
        )
        s = self.stride
        self._hsteps = _doubling_steps(1, cols + 2)
        self._vsteps = _doubling_steps(s, rows + 2)
        self.neighbours: tuple[int, ...] = (1, -1, s, -s)

    def index(self, r: int, c: int) -> int:
        """Padded index of ``(r, c)`` (margin points included)."""
        return (r + 2) * self.stride + c + 2

    def point(self, i: int) -> Cell:
        """The ``(row, col)`` of padded index ``i``."""
        r, c = divmod(i, self.stride)
        return (r - 2, c - 2)

    def rays(self, start: int, empty: int) -> int:
        """Cells reachable from the bits of ``start`` by one straight run through ``empty``.

        The result includes ``start``; callers mask it with ``empty`` when the
        starting tiles themselves must not count.
        """
        out = start
        for steps in (self._hsteps, self._vsteps):
            g, e = start, empty
            for k in steps:
                g |= e & (g << k)
                e &= e << k
            out |= g
            g, e = start, empty
            for k in steps:
                g |= e & (g >> k)
                e &= e >> k
            out |= g
        return out

    def hits(self, tile: int, empty: int, tiles: int) -> int:
        """The tiles (bits of ``tiles``) a path of at most three segments from ``tile`` ends on."""
        start = 1 << tile
        first = self.rays(start, empty) & empty
        src = start | (self.rays(first, empty) & empty) if first else start
        out = 0
        for steps in (self._hsteps, self._vsteps):
            unit = steps[0]
            g, e = src, empty
            for k in steps:
                g |= e & (g << k)
                e &= e << k
            out |= g << unit
            g, e = src, empty
            for k in steps:
                g |= e & (g >> k)
                e &= e >> k
            out |= g >> unit
        return out & tiles & ~start

    def reach(self, tile: int, empty: int, segments: int) -> int:
        """Empty cells a path of at most ``segments`` straight runs from ``tile`` reaches."""
        seen = self.rays(1 << tile, empty) & empty
        for _ in range(segments - 1):
            seen = self.rays(seen, empty) & empty
        return seen


def _doubling_steps(unit: int, length: int) -> tuple[int, ...]:
    """Shifts ``unit, 2unit, 4unit...`` until a run of ``length`` cells is covered."""
    steps = []
    span = 1
    while span < length:
        steps.append(unit * span)
        span *= 2
    return tuple(steps)


@cache
def geometry(rows: int, cols: int) -> Geometry:
    """The (cached, immutable in use) geometry of a ``rows x cols`` board."""
    return Geometry(rows, cols)


def bits(mask: int) -> Iterator[int]:
    """Indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


EMPTY_KEY = -1
"""Class value of an empty padded cell inside the solver."""

WALL = -2
"""Class value of the wall ring outside the margin: paths never cross it."""


class Position:
    """A mutable position on the bitboard: a padded class grid plus its bitboards."""

    __slots__ = ("empty", "geo", "grid", "masks")

    def __init__(self, geo: Geometry, grid: list[int], empty: int, masks: dict[int, int]) -> None:
        self.geo = geo
        self.grid = grid
        self.empty = empty
        self.masks = masks

    @classmethod
    def from_board(cls, board: Sequence[Sequence[int | None]], key: MatchKey) -> Position:
        rows, cols = len(board), len(board[0])
        geo = geometry(rows, cols)
        grid = [WALL] * geo.size
        empty = geo.margin_mask
        for i in bits(geo.margin_mask):
            grid[i] = EMPTY_KEY
        masks: dict[int, int] = {}
        for r in range(rows):
            for c in range(cols):
                i = geo.index(r, c)
                t = board[r][c]
                if t is None:
                    grid[i] = EMPTY_KEY
                    empty |= 1 << i
                else:
                    k = key(t)
                    grid[i] = k
                    masks[k] = masks.get(k, 0) | (1 << i)
        return cls(geo, grid, empty, masks)

    def copy(self) -> Position:
        return Position(self.geo, self.grid[:], self.empty, dict(self.masks))

    def tiles_left(self) -> int:
        return self.geo.board_mask.bit_count() - (self.empty & self.geo.board_mask).bit_count()

    def remove(self, p: int, q: int, rule: Sliding | None) -> None:
        """Remove the tiles at ``p`` and ``q`` and slide their lines."""
        grid = self.grid
        for i in (p, q):
            k = grid[i]
            left = self.masks[k] & ~(1 << i)
            if left:
                self.masks[k] = left
            else:
                del self.masks[k]
            grid[i] = EMPTY_KEY
        self.empty |= (1 << p) | (1 << q)
        if rule is None or rule.static:
            return
        lines = {rule.padded_line(p), rule.padded_line(q)}
        for line in lines:
            tiles = [grid[i] for i in line if grid[i] != EMPTY_KEY]
            for n, i in enumerate(line):
                new = tiles[n] if n < len(tiles) else EMPTY_KEY
                old = grid[i]
                if new == old:
                    continue
                bit = 1 << i
                if old != EMPTY_KEY:
                    self.masks[old] &= ~bit
                else:
                    self.empty &= ~bit
                if new != EMPTY_KEY:
                    self.masks[new] |= bit
                else:
                    self.empty |= bit
                grid[i] = new

    def layout_key(self) -> tuple[int, ...]:
        """A hashable picture of where every class sits (for memoising sliding boards)."""
        return tuple(self.grid)


class Reach:
    """Lazily computed one- and two-segment reach of tiles, for one set of empty cells."""

    __slots__ = ("empty", "geo", "r1", "r2")

    def __init__(self, geo: Geometry, empty: int) -> None:
        self.geo = geo
        self.empty = empty
        self.r1: dict[int, int] = {}
        self.r2: dict[int, int] = {}

    def one(self, i: int) -> int:
        got = self.r1.get(i)
        if got is None:
            empty, s = self.empty, self.geo.stride
            if (empty >> (i - s)) & 1 or (empty >> (i - 1)) & 5 or (empty >> (i + s)) & 1:
                got = self.geo.rays(1 << i, empty) & empty
            else:
                got = 0  # no empty neighbour: the tile is walled in
            self.r1[i] = got
        return got

    def two(self, i: int) -> int:
        got = self.r2.get(i)
        if got is None:
            first = self.one(i)
            got = self.r2[i] = self.geo.rays(first, self.empty) & self.empty if first else 0
        return got

    def joined(self, p: int, q: int) -> bool:
        """Tiles ``p`` and ``q`` connect: neighbours, or a turn reached from both.

        Some empty cell reached from ``p`` in two segments and from ``q`` in
        one is the last turn of a path of at most three segments.
        """
        d = abs(q - p)
        if d == 1 or d == self.geo.stride:
            return True
        return bool(self.one(p) and self.one(q) and self.two(p) & self.one(q))


def connecting_pairs(pos: Position) -> list[tuple[int, int]]:
    """Every connectable pair of equal-class tiles as padded indices, low index first.

    A tile with no empty neighbour can only pair with a neighbour, which the
    reach cache answers without a fill, so a full board costs little.
    """
    reach = Reach(pos.geo, pos.empty)
    out: list[tuple[int, int]] = []
    for mask in pos.masks.values():
        tiles = list(bits(mask))
        for n, p in enumerate(tiles):
            for q in tiles[n + 1 :]:
                if reach.joined(p, q):
                    out.append((p, q))
    out.sort()
    return out


def connecting_pairs_after(
    pos: Position, before: list[tuple[int, int]], played: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """The playable pairs of a static board after ``played``, from those before it.

    Emptying cells never breaks a path, so every old pair of tiles still on the
    board stays playable. A new pair's path runs through an emptied cell, so
    both its tiles lie within three segments of that cell: only those tiles are
    looked at again.
    """
    gone = 0
    for p, q in played:
        gone |= (1 << p) | (1 << q)
    kept = [m for m in before if not (gone >> m[0]) & 1 and not (gone >> m[1]) & 1]
    known = set(kept)
    geo, empty = pos.geo, pos.empty
    tiles = geo.board_mask & ~empty
    near = 0
    for cell in bits(gone):
        near |= geo.hits(cell, empty, tiles)
    reach = Reach(geo, empty)
    for mask in pos.masks.values():
        group = mask & near
        if group & (group - 1) == 0:  # fewer than two tiles
            continue
        found = list(bits(group))
        for n, p in enumerate(found):
            for q in found[n + 1 :]:
                if (p, q) not in known and reach.joined(p, q):
                    kept.append((p, q))
    kept.sort()
    return kept


def joined(geo: Geometry, empty: int, p: int, q: int) -> bool:
    """True if tiles ``p`` and ``q`` connect when the cells of ``empty`` are empty."""
    d = abs(q - p)
    if d == 1 or d == geo.stride:
        return True
    s = geo.stride
    for i in (p, q):
        if not ((empty >> (i - 1)) & 5 or (empty >> (i - s)) & 1 or (empty >> (i + s)) & 1):
            return False  # walled in
    first_q = geo.rays(1 << q, empty) & empty
    if not first_q:
        return False
    return bool(geo.reach(p, empty, 2) & first_q)


def clear_class(
    geo: Geometry, empty: int, mask: int, failed: set[int] | None = None
) -> list[tuple[int, int]] | None:
    """An order of pairs that removes every tile of ``mask`` now, or None if there is none.

    On a board where nothing slides, clearing a whole class at once is never a
    mistake: any solution removes those tiles sometime, and removing them
    earlier only empties cells sooner, which cannot break a later path.
    ``failed`` remembers the leftovers already known not to clear.
    """
    if not mask:
        return []
    if failed is None:
        failed = set()
    elif mask in failed:
        return None
    tiles = list(bits(mask))
    for n, p in enumerate(tiles):
        for q in tiles[n + 1 :]:
            if joined(geo, empty, p, q):
                both = (1 << p) | (1 << q)
                rest = clear_class(geo, empty | both, mask & ~both, failed)
                if rest is not None:
                    return [(p, q), *rest]
    failed.add(mask)
    return None


def playable_pairs(
    board: Sequence[Sequence[int | None]], key: MatchKey = identity_key
) -> list[Move]:
    """Every pair of matching tiles that connect now, in reading order of the first tile."""
    pos = Position.from_board(board, key)
    geo = pos.geo
    return [(geo.point(p), geo.point(q)) for p, q in connecting_pairs(pos)]


def has_playable_pair(board: Sequence[Sequence[int | None]], key: MatchKey = identity_key) -> bool:
    """True if at least one matching pair connects (a board without one is stuck)."""
    return bool(playable_pairs(board, key))


def margin_moves(
    board: Sequence[Sequence[int | None]], moves: Sequence[Move], rule: Sliding | None = None
) -> int:
    """How many of ``moves``, played in order from ``board``, have no path that stays on the board.

    A measure of how much a clearing leans on the margin (Match-It's
    difficulty); the moves are trusted to be playable.
    """
    pos = Position.from_board(board, identity_key)
    geo = pos.geo
    count = 0
    for a, b in moves:
        p, q = geo.index(*a), geo.index(*b)
        if not joined(geo, pos.empty & geo.board_mask, p, q):
            count += 1
        pos.remove(p, q, rule)
    return count
