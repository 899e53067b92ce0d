"""Shisen-Sho: the board, paths, sliding, solver and deals that Match-It and LinkSame share.

Two tiles connect when a path of at most three straight horizontal/vertical
segments joins them through empty cells; the path may leave the board through a
one-cell margin all around (rows ``-1`` and ``rows``, columns ``-1`` and
``cols``). The games differ only in what they configure here: which tiles match
(:data:`MatchKey`), which path is drawn (:func:`find_path`), how tiles slide
after a removal (:class:`Movement`) and how deals are made.

Everything here is pure: boards are plain ``list[list[int | None]]`` (``None``
is an empty cell, rows first), randomness comes only from the ``random.Random``
passed in, and the solver counts nodes rather than reading a clock, so every
answer is the same on every machine.

The solver and the deal makers work on a bitboard: the board padded with the
margin ring and a wall ring, one bit per cell, row-major with stride
``cols + 4``. A straight run through empty cells is an occluded ("Kogge-Stone")
fill, a few big-integer shifts whatever its length, which is what makes a full
search affordable in Python.
"""

from __future__ import annotations

import enum
import itertools
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache

__all__ = [
    "EMPTY_KEY",
    "Board",
    "Cell",
    "Geometry",
    "MatchKey",
    "Move",
    "Movement",
    "Outcome",
    "Path",
    "Side",
    "Solution",
    "board_from_cells",
    "count_tiles",
    "deal_by_play",
    "deal_random",
    "find_path",
    "geometry",
    "has_playable_pair",
    "identity_key",
    "margin_moves",
    "movement",
    "path_length",
    "path_sides",
    "playable_pairs",
    "remove_pair",
    "solve",
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

EMPTY_KEY = -1
"""Class value of an empty padded cell inside the solver."""

_WALL = -2
"""Class value of the wall ring outside the margin: paths never cross it."""


def identity_key(tile: int) -> int:
    """The match class of games where only identical tiles match (LinkSame)."""
    return tile


class Side(enum.StrEnum):
    """A margin of the board, as a path through it reports."""

    TOP = "top"
    BOTTOM = "bottom"
    LEFT = "left"
    RIGHT = "right"


# -- geometry ------------------------------------------------------------------------


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


def _bits(mask: int) -> Iterator[int]:
    """Indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


# -- paths ---------------------------------------------------------------------------


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


def playable_pairs(
    board: Sequence[Sequence[int | None]], key: MatchKey = identity_key
) -> list[Move]:
    """Every pair of matching tiles that connect now, in reading order of the first tile."""
    pos = _Position.from_board(board, key)
    geo = pos.geo
    return [(geo.point(p), geo.point(q)) for p, q in _moves(pos)]


def has_playable_pair(board: Sequence[Sequence[int | None]], key: MatchKey = identity_key) -> bool:
    """True if at least one matching pair connects (a board without one is stuck)."""
    return bool(playable_pairs(board, key))


def count_tiles(board: Sequence[Sequence[int | None]]) -> int:
    """Tiles left on the board."""
    return sum(t is not None for row in board for t in row)


def board_from_cells(rows: int, cols: int, tiles: dict[Cell, int]) -> Board:
    """A board holding ``tiles`` (cell to id) and nothing else; handy for fixed positions."""
    board: Board = [[None] * cols for _ in range(rows)]
    for (r, c), t in tiles.items():
        board[r][c] = t
    return board


def margin_moves(
    board: Sequence[Sequence[int | None]], moves: Sequence[Move], rule: Movement | None = None
) -> int:
    """How many of ``moves``, played in order from ``board``, have no path that stays on the board.

    A measure of how much a clearing leans on the margin (Match-It's
    difficulty); the moves are trusted to be playable.
    """
    pos = _Position.from_board(board, identity_key)
    geo = pos.geo
    count = 0
    for a, b in moves:
        p, q = geo.index(*a), geo.index(*b)
        if not _joined(geo, pos.empty & geo.board_mask, p, q):
            count += 1
        pos.remove(p, q, rule)
    return count


# -- movement ------------------------------------------------------------------------


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
    """LinkSame's movement rule of ``stage`` (0-8) on a ``rows x cols`` board (GAMES.md table).

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


# -- solver --------------------------------------------------------------------------


class _Position:
    """The solver's mutable position: a padded class grid plus its bitboards."""

    __slots__ = ("empty", "geo", "grid", "masks")

    def __init__(self, geo: Geometry, grid: list[int], empty: int, masks: dict[int, int]) -> None:
        self.geo = geo
        self.grid = grid
        self.empty = empty
        self.masks = masks

    @classmethod
    def from_board(cls, board: Sequence[Sequence[int | None]], key: MatchKey) -> _Position:
        rows, cols = len(board), len(board[0])
        geo = geometry(rows, cols)
        grid = [_WALL] * geo.size
        empty = geo.margin_mask
        for i in _bits(geo.margin_mask):
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

    def copy(self) -> _Position:
        return _Position(self.geo, self.grid[:], self.empty, dict(self.masks))

    def tiles_left(self) -> int:
        return self.geo.board_mask.bit_count() - (self.empty & self.geo.board_mask).bit_count()

    def remove(self, p: int, q: int, rule: Movement | None) -> None:
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


class _Reach:
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


def _moves(pos: _Position) -> list[tuple[int, int]]:
    """Every connectable pair of equal-class tiles as padded indices, low index first.

    A tile with no empty neighbour can only pair with a neighbour, which the
    reach cache answers without a fill, so a full board costs little.
    """
    reach = _Reach(pos.geo, pos.empty)
    out: list[tuple[int, int]] = []
    for mask in pos.masks.values():
        tiles = list(_bits(mask))
        for n, p in enumerate(tiles):
            for q in tiles[n + 1 :]:
                if reach.joined(p, q):
                    out.append((p, q))
    out.sort()
    return out


def _moves_after(
    pos: _Position, before: list[tuple[int, int]], played: list[tuple[int, int]]
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
    for cell in _bits(gone):
        near |= geo.hits(cell, empty, tiles)
    reach = _Reach(geo, empty)
    for mask in pos.masks.values():
        group = mask & near
        if group & (group - 1) == 0:  # fewer than two tiles
            continue
        found = list(_bits(group))
        for n, p in enumerate(found):
            for q in found[n + 1 :]:
                if (p, q) not in known and reach.joined(p, q):
                    kept.append((p, q))
    kept.sort()
    return kept


def _joined(geo: Geometry, empty: int, p: int, q: int) -> bool:
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


def _clear_class(
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
    tiles = list(_bits(mask))
    for n, p in enumerate(tiles):
        for q in tiles[n + 1 :]:
            if _joined(geo, empty, p, q):
                both = (1 << p) | (1 << q)
                rest = _clear_class(geo, empty | both, mask & ~both, failed)
                if rest is not None:
                    return [(p, q), *rest]
    failed.add(mask)
    return None


class Outcome(enum.StrEnum):
    """What the solver could tell about a board."""

    SOLVED = "solved"
    """``moves`` clears the board."""
    STUCK = "stuck"
    """Proved: no order of removals clears the board."""
    UNKNOWN = "unknown"
    """The node budget ran out first."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Solution:
    """The solver's answer: the outcome, a clearing sequence when solved, nodes spent."""

    outcome: Outcome
    moves: tuple[Move, ...] = ()
    nodes: int = 0

    @property
    def solved(self) -> bool:
        return self.outcome is Outcome.SOLVED


class _OutOfBudget(Exception):
    pass


class _Search:
    """Depth-first search with backtracking and a memo of positions known to be dead ends.

    On a static board (Match-It, LinkSame stage 0) whole classes that can be
    cleared at once are cleared without branching (see :func:`_clear_class`),
    the playable pairs are updated rather than recomputed after a removal, and
    a position is identified by its empty cells alone. On a sliding board no
    move is safe in that way: every pair is a branch, tried lazily (classes
    with fewer tiles left first) so that the usual straight run to the end
    looks at few pairs, and a position is its full layout.
    """

    def __init__(self, rule: Movement | None, rng: random.Random | None) -> None:
        self.rule = rule if rule is not None and not rule.static else None
        self.rng = rng
        self.nodes = 0
        self.limit = 0
        self.dead: set[object] = set()
        self.pairs_of: dict[int, list[tuple[int, int]]] = {}
        # pairs of tiles by class mask: sliding boards meet the same masks again and again

    def run(self, pos: _Position) -> list[tuple[int, int]] | None:
        """Clear ``pos``; None if no order of removals can."""
        return self._static(pos, None) if self.rule is None else self._sliding(pos)

    def _enter(self) -> None:
        self.nodes += 1
        if self.nodes > self.limit:
            raise _OutOfBudget

    def _static(
        self, pos: _Position, moves: list[tuple[int, int]] | None
    ) -> list[tuple[int, int]] | None:
        if not pos.masks:
            return []
        key = pos.empty
        if key in self.dead:
            return None
        self._enter()
        if moves is None:
            moves = _moves(pos)
        forced = self._forced(pos, moves)
        if forced:
            branches = [forced]
        else:
            branches = [[m] for m in moves]
            if self.rng is not None:
                self.rng.shuffle(branches)
        for play in branches:
            child = pos.copy()
            for p, q in play:
                child.remove(p, q, None)
            rest = self._static(child, _moves_after(child, moves, play))
            if rest is not None:
                return play + rest
        self.dead.add(key)
        return None

    def _sliding(self, pos: _Position) -> list[tuple[int, int]] | None:
        if not pos.masks:
            return []
        key = pos.layout_key()
        if key in self.dead:
            return None
        self._enter()
        for p, q in self._lazy_moves(pos):
            child = pos.copy()
            child.remove(p, q, self.rule)
            rest = self._sliding(child)
            if rest is not None:
                return [(p, q), *rest]
        self.dead.add(key)
        return None

    def _lazy_moves(self, pos: _Position) -> Iterator[tuple[int, int]]:
        """Playable pairs, found one at a time, classes with fewer tiles left first.

        Finishing a class keeps other classes' four tiles as spare partners;
        it cuts backtracking on sliding boards noticeably.
        """
        reach = _Reach(pos.geo, pos.empty)
        classes = list(pos.masks.values())
        if self.rng is not None:
            self.rng.shuffle(classes)
        classes.sort(key=int.bit_count)
        pairs_of = self.pairs_of
        for mask in classes:
            pairs = pairs_of.get(mask)
            if pairs is None:
                found = list(_bits(mask))
                pairs = pairs_of[mask] = [
                    (p, q) for n, p in enumerate(found) for q in found[n + 1 :]
                ]
            for p, q in pairs:
                if reach.joined(p, q):
                    yield (p, q)

    def _forced(self, pos: _Position, moves: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """Whole classes that can go at once (see :func:`_clear_class`), as pairs in order."""
        grid, geo, empty = pos.grid, pos.geo, pos.empty
        movable: dict[int, int] = {}
        moves_of: dict[int, list[tuple[int, int]]] = {}
        for p, q in moves:
            k = grid[p]
            movable[k] = movable.get(k, 0) | (1 << p) | (1 << q)
            moves_of.setdefault(k, []).append((p, q))
        forced: list[tuple[int, int]] = []
        for k, touched in movable.items():
            mask = pos.masks[k]
            # In a big class (Match-It's eight flowers) the search for an order
            # is costly, so it is only tried when every tile has a pair now.
            if touched != mask and mask.bit_count() > 4:
                continue
            cleared = self._clear_now(geo, empty, mask, moves_of[k])
            if cleared:
                forced.extend(cleared)
        return forced

    @staticmethod
    def _clear_now(
        geo: Geometry, empty: int, mask: int, moves: list[tuple[int, int]]
    ) -> list[tuple[int, int]] | None:
        """:func:`_clear_class`, with the common small classes answered from ``moves``."""
        size = mask.bit_count()
        if size == 2:
            return moves[:1]
        if size == 4:
            for p, q in moves:
                both = (1 << p) | (1 << q)
                s, t = _bits(mask & ~both)
                if _joined(geo, empty | both, s, t):
                    return [(p, q), (s, t)]
            return None
        return _clear_class(geo, empty, mask)


def _luby(i: int) -> int:
    """The ``i``-th term (from 1) of Luby's restart sequence 1, 1, 2, 1, 1, 2, 4, 1..."""
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    if i == (1 << k) - 1:
        return 1 << (k - 1)
    return _luby(i - (1 << (k - 1)) + 1)


def solve(
    board: Sequence[Sequence[int | None]],
    key: MatchKey = identity_key,
    rule: Movement | None = None,
    *,
    node_limit: int = 20_000,
    rng: random.Random | None = None,
) -> Solution:
    """Decide whether ``board`` can be cleared, removing pairs under ``rule``'s sliding.

    The search restarts with a fresh move order after ``u, u, 2u, u, u, 2u,
    4u...`` nodes (Luby's sequence; ``u`` is a little more than the pairs on
    the board), keeping what it learnt about dead ends: a search that took a
    wrong turn early can spend long below it, and a restart is usually the
    quickest way out. A restart that finishes its whole tree without a
    solution proves the board stuck.

    Args:
        board: the position (not modified).
        key: the game's match classes.
        rule: the sliding rule; None or a static rule for boards that never move.
        node_limit: positions to expand in all before giving up with ``UNKNOWN``.
        rng: orders the moves tried (a hint or a bot that should not always
            pick the first pair); None starts in reading order and reshuffles
            from a fixed seed on restarts, so the answer never varies.

    Returns:
        The outcome and, when solved, the moves in order as board cells
        (positions after each previous move's sliding).
    """
    pos = _Position.from_board(board, key)
    search = _Search(rule, rng)
    order = rng if rng is not None else random.Random(0)
    # One straight run to the end takes a node per pair; restarts get a few runs' worth.
    unit = pos.tiles_left() // 2 + 10
    found: list[tuple[int, int]] | None = None
    for attempt in itertools.count(1):
        search.limit = min(node_limit, search.nodes + unit * _luby(attempt))
        try:
            found = search.run(pos)
        except _OutOfBudget:
            if search.nodes >= node_limit:
                return Solution(outcome=Outcome.UNKNOWN, nodes=search.nodes)
            search.rng = order
            continue
        break
    if found is None:
        return Solution(outcome=Outcome.STUCK, nodes=search.nodes)
    geo = pos.geo
    moves = tuple((geo.point(p), geo.point(q)) for p, q in found)
    return Solution(outcome=Outcome.SOLVED, moves=moves, nodes=search.nodes)


# -- deals ---------------------------------------------------------------------------


def deal_random(rows: int, cols: int, tiles: Sequence[int], rng: random.Random) -> Board:
    """``tiles`` shuffled onto a full ``rows x cols`` board (no promise it can be cleared)."""
    bag: list[int | None] = list(tiles)
    rng.shuffle(bag)
    return [bag[r * cols : (r + 1) * cols] for r in range(rows)]


def deal_by_play(
    rows: int,
    cols: int,
    pairs: Sequence[tuple[int, int]],
    rng: random.Random,
    *,
    rule: Movement | None = None,
    cells: Sequence[Cell] | None = None,
    key: MatchKey = identity_key,
    hardness: float = 0.0,
) -> Board | None:
    """Deal ``pairs`` so that the board can be cleared: play a blank board, then paint it.

    The cells to fill (all of them unless ``cells`` is given) start as blank
    tiles. Pairs of blank tiles that connect are removed one after another,
    sliding under ``rule`` after each removal, as a game would; the ``n``-th
    removed pair is then painted with the ``n``-th of the shuffled ``pairs``
    at the cells those two tiles started from. Playing the painted board in
    the same order clears it, because connecting depends only on which cells
    are empty, never on the pictures.

    ``hardness`` (0..1) steers the blank play: at 0 the partner is any tile
    that connects; towards 1 side by side partners are avoided and, in the
    first third of the removals (on a crowded board), partners reached only
    through the margin are preferred. It also keeps matching tiles (``key`` classes) from being
    painted side by side, so fewer obvious pairs show on the dealt board.

    Returns:
        The board, or None if the blank play got stuck (rare: two blank tiles
        that touch always connect).
    """
    geo = geometry(rows, cols)
    todo = [geo.index(r, c) for r, c in cells] if cells is not None else list(geo.cells)
    if len(pairs) * 2 != len(todo):
        raise ValueError(f"{len(todo)} cells need {len(todo) // 2} pairs, not {len(pairs)}")
    order = _blank_play(geo, todo, rule, rng, hardness)
    if order is None:
        return None
    board: Board = [[None] * cols for _ in range(rows)]
    for (p, q), (tp, tq) in zip(order, _paint(geo, order, pairs, key, rng, hardness), strict=True):
        (pr, pc), (qr, qc) = geo.point(p), geo.point(q)
        board[pr][pc] = tp
        board[qr][qc] = tq
    return board


def _paint(
    geo: Geometry,
    order: Sequence[tuple[int, int]],
    pairs: Sequence[tuple[int, int]],
    key: MatchKey,
    rng: random.Random,
    hardness: float,
) -> list[tuple[int, int]]:
    """Which of ``pairs`` paints each blank pair of ``order`` (same order as ``order``).

    Shuffled, except that with probability ``hardness`` a pair avoids the
    classes already painted next to its two cells, so that matching tiles
    rarely touch by accident (touching matches are the easiest pairs to spot).
    """
    by_class: dict[int, list[tuple[int, int]]] = {}
    for pair in pairs:
        by_class.setdefault(key(pair[0]), []).append(pair)
    for group in by_class.values():
        rng.shuffle(group)
    painted: dict[int, int] = {}
    out: list[tuple[int, int]] = []
    visit = list(range(len(order)))
    rng.shuffle(visit)
    chosen: dict[int, tuple[int, int]] = {}
    for n in visit:
        p, q = order[n]
        classes = [k for k, group in by_class.items() if group]
        weights = [float(len(by_class[k])) for k in classes]
        if hardness > 0 and rng.random() < hardness:
            near = {painted.get(c + d) for c in (p, q) for d in geo.neighbours}
            calm = [i for i, k in enumerate(classes) if k not in near]
            if calm:
                classes = [classes[i] for i in calm]
                weights = [weights[i] for i in calm]
        k = rng.choices(classes, weights)[0]
        pair = by_class[k].pop()
        if rng.random() < 0.5:
            pair = (pair[1], pair[0])
        chosen[n] = pair
        painted[p] = painted[q] = k
    out = [chosen[n] for n in range(len(order))]
    return out


def _blank_play(
    geo: Geometry,
    todo: Sequence[int],
    rule: Movement | None,
    rng: random.Random,
    hardness: float,
) -> list[tuple[int, int]] | None:
    """Remove connecting pairs of blank tiles until none is left; return their starting cells."""
    grid = [EMPTY_KEY] * geo.size
    for i in todo:
        grid[i] = i  # each blank tile remembers the cell it started from
    tiles = sum(1 << i for i in todo)
    empty = (geo.board_mask & ~tiles) | geo.margin_mask
    sliding = rule is not None and not rule.static
    steer_until = len(todo) * 2 // 3
    order: list[tuple[int, int]] = []
    while tiles:
        candidates = list(_bits(tiles))
        while True:  # a random tile that has a partner (nearly always the first one drawn)
            if not candidates:
                return None
            n = rng.randrange(len(candidates))
            p = candidates[n]
            partners = geo.hits(p, empty, tiles)
            if partners:
                break
            candidates[n] = candidates[-1]
            candidates.pop()
        if hardness > 0:
            crowded = tiles.bit_count() > steer_until
            q = _steered_partner(geo, rng, p, partners, empty, tiles, hardness, crowded)
        else:
            found = list(_bits(partners))
            q = found[rng.randrange(len(found))]
        order.append((grid[p], grid[q]))
        both = (1 << p) | (1 << q)
        grid[p] = grid[q] = EMPTY_KEY
        tiles &= ~both
        empty |= both
        if sliding:
            assert rule is not None
            for line in {rule.padded_line(p), rule.padded_line(q)}:
                kept = [grid[i] for i in line if grid[i] != EMPTY_KEY]
                for n, i in enumerate(line):
                    grid[i] = kept[n] if n < len(kept) else EMPTY_KEY
                    bit = 1 << i
                    if n < len(kept):
                        tiles |= bit
                        empty &= ~bit
                    else:
                        tiles &= ~bit
                        empty |= bit
    return order


def _steered_partner(
    geo: Geometry,
    rng: random.Random,
    p: int,
    partners: int,
    empty: int,
    tiles: int,
    hardness: float,
    crowded: bool,
) -> int:
    """Pick ``p``'s partner, shunning neighbours and, while ``crowded``, favouring the margin."""
    inside = geo.hits(p, empty & geo.board_mask, tiles) if crowded else partners
    found = list(_bits(partners))
    weights = []
    for q in found:
        if abs(q - p) in (1, geo.stride):
            weights.append(1.0 - 0.95 * hardness)
        elif not (inside >> q) & 1:
            weights.append(1.0 + 4.0 * hardness)
        else:
            weights.append(1.0)
    return rng.choices(found, weights)[0]
