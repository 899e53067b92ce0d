"""Deals that can be cleared: play a blank board, then paint the pairs it removed.

Connecting depends only on which cells are empty, never on the pictures, so a
board painted in the order a blank play removed its pairs can be cleared in
that order. The games confirm each deal with the solver on top.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from tilehall.server.games.shisensho.bitboard import EMPTY_KEY, Geometry, bits, geometry
from tilehall.server.games.shisensho.board import Board, Cell, MatchKey, identity_key
from tilehall.server.games.shisensho.movement import Movement

__all__ = ["deal_by_play", "deal_random"]


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
        candidates = list(bits(tiles))
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
            found = list(bits(partners))
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
    found = list(bits(partners))
    weights = []
    for q in found:
        if abs(q - p) in (1, geo.stride):
            weights.append(1.0 - 0.95 * hardness)
        elif not (inside >> q) & 1:
            weights.append(1.0 + 4.0 * hardness)
        else:
            weights.append(1.0)
    return rng.choices(found, weights)[0]
