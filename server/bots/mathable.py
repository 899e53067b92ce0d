"""Mathable COMP players, from a seat's view only.

* ``easy`` plays like a beginner: it places one of the three best-scoring single
  tiles, at random (seeded), takes the extra draws it earns, and ends its turn
  after at most three tiles. Both limits are deliberate: a random single tile a
  turn (its play until issue 32) lost 199 games in 200 to ``normal``, which made
  it useless as an opponent and impossible to rate; this one loses about 85 %,
  the ladder's step (see ``tests/perf/mathable_calibration.json``).
* ``normal`` places the best-scoring single tile again and again (taking every
  extra draw it earns), then ends its turn.
* ``hard`` searches whole turns: a beam search over sequences of placements
  (each placement opens new squares), bounded by ``budget`` seconds. Among the
  sequences found it prefers the one that scores most once the best reply it
  leaves to the next player is taken off (tip 2 of the rules text). It takes
  extra draws unless the bag is nearly empty and heavy with big tiles, and late
  in the game it exchanges big tiles that fit nowhere rather than be stuck with
  them at the end (tip 3).

Every bot, stuck at the start of its turn with tiles in the bag, exchanges
rather than passes: a table of bots that only passed could never end.

A bot returns one action per call; the room calls it again while the turn
lasts. ``hard`` keeps the plan of the turn and replays it while the views it
receives are the ones the plan predicted, and plans again otherwise (after an
extra draw, for instance). With hidden racks a bot sees only its own rack and
estimates the others' from the ``unseen`` tiles.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from tilehall.protocol import Status
from tilehall.server.bots.base import Bot
from tilehall.server.games.mathable import (
    FULL_TURN,
    FULL_TURN_BONUS,
    OPERATORS,
    SIZE,
    Placement,
    all_placements,
    operation_results,
    premium,
)

__all__ = [
    "BOTS",
    "EASY_CHOICES",
    "EASY_TILES",
    "EasyBot",
    "HardBot",
    "NormalBot",
    "Position",
    "ranked_placements",
    "search_turn",
]

# -- a padded board for fast search -------------------------------------------------
# Two sentinel rows/columns on each side let every "two squares in a line" lookup
# skip the bounds check: OFF is neither empty nor a number.

_W = SIZE + 4
_EMPTY = -1
_OFF = -2
_STEPS = (-_W, _W, -1, 1)
_CELLS = [(r, c) for r in range(SIZE) for c in range(SIZE)]


def _idx(r: int, c: int) -> int:
    return (r + 2) * _W + (c + 2)


def _cell(i: int) -> tuple[int, int]:
    return (i // _W - 2, i % _W - 2)


_OP_AT: list[str | None] = [None] * (_W * _W)
_PREM_AT: list[int] = [1] * (_W * _W)
for _r, _c in _CELLS:
    _OP_AT[_idx(_r, _c)] = OPERATORS.get((_r, _c))
    _PREM_AT[_idx(_r, _c)] = premium((_r, _c))
_ON_BOARD = [_idx(r, c) for r, c in _CELLS]

LATE_BAG = 12
"""A bag this small means the end is near: extra draws and big tiles become risky."""
THREAT_WEIGHT = 0.5
"""How much of the best reply a plan leaves to the next player counts against it."""


def _padded(board: Sequence[Sequence[int | None]]) -> list[int]:
    out = [_OFF] * (_W * _W)
    for r, c in _CELLS:
        v = board[r][c]
        out[_idx(r, c)] = _EMPTY if v is None else v
    return out


def _accepted(board: list[int], i: int) -> dict[int, int]:
    """Numbers the empty square ``i`` accepts, with their direction counts (engine rules)."""
    out: dict[int, int] = {}
    only = _OP_AT[i]
    for s in _STEPS:
        a = board[i + s]
        if a < 0:
            continue
        b = board[i + 2 * s]
        if b < 0:
            continue
        for v in operation_results(a, b, only):
            out[v] = out.get(v, 0) + 1
    return out


def _frontier(board: list[int]) -> dict[int, dict[int, int]]:
    """Every empty square that accepts something, with what it accepts."""
    out: dict[int, dict[int, int]] = {}
    for i in _ON_BOARD:
        if board[i] == _EMPTY:
            acc = _accepted(board, i)
            if acc:
                out[i] = acc
    return out


def _around(board: list[int], i: int) -> list[int]:
    """Empty squares whose equations may use square ``i`` (one or two steps away)."""
    out = []
    for s in _STEPS:
        for j in (i - s, i - 2 * s):
            if board[j] == _EMPTY:
                out.append(j)
    return out


@dataclass(slots=True)
class _Node:
    """A partial turn: the board after ``path`` and what it earned."""

    score: int
    board: list[int]
    rack: tuple[int, ...]
    moves: list[tuple[int, int, int]]
    """Legal ``(points, tile, square)`` from this node."""
    path: tuple[tuple[int, int], ...]
    """``(tile, square)`` placed so far, in order."""
    changed: frozenset[int] = field(default_factory=frozenset)
    """Squares whose equations this path may have changed (for the threat estimate)."""


def _moves(
    board: list[int], rack: Iterable[int], squares: Iterable[int]
) -> list[tuple[int, int, int]]:
    tiles = set(rack)
    out = []
    for i in squares:
        if board[i] != _EMPTY:
            continue
        for v, n in _accepted(board, i).items():
            if v in tiles:
                out.append((v * n * _PREM_AT[i], v, i))
    return out


def _child(node: _Node, move: tuple[int, int, int], already: int) -> _Node:
    points, tile, i = move
    board = node.board.copy()
    board[i] = tile
    rack = list(node.rack)
    rack.remove(tile)
    around = _around(board, i)
    redo = set(around)
    redo.add(i)
    left = set(rack)
    moves = [m for m in node.moves if m[2] not in redo and m[1] in left]
    moves += _moves(board, left, around)
    score = node.score + points
    path = (*node.path, (tile, i))
    if already + len(path) == FULL_TURN:
        score += FULL_TURN_BONUS
    return _Node(score, board, tuple(rack), moves, path, node.changed | redo)


@dataclass(frozen=True, slots=True)
class Position:
    """What a bot knows at its turn, read from the view."""

    seat: int
    seats: int
    board: tuple[tuple[int | None, ...], ...]
    rack: tuple[int, ...]
    next_rack: tuple[int, ...] | None
    """The next player's rack when racks are open."""
    next_rack_size: int
    unseen: tuple[int, ...]
    bag: int
    placed: int
    draws: int

    @classmethod
    def from_view(cls, view: dict[str, Any]) -> Position:
        """Read the bot's own seat, rack and the public state out of ``view``."""
        seat = view["seat"]
        seats = len(view["scores"])
        nxt = (seat + 1) % seats
        racks = view["racks"]
        other = racks[nxt]
        turn = view["turn"]
        return cls(
            seat=seat,
            seats=seats,
            board=tuple(tuple(row) for row in view["board"]),
            rack=tuple(sorted(racks[seat] or ())),
            next_rack=None if other is None else tuple(other),
            next_rack_size=view["rack_sizes"][nxt],
            unseen=tuple(view["unseen"]),
            bag=view["bag"],
            placed=len(turn["placed"]),
            draws=turn["draws"],
        )

    def key(self) -> tuple[Any, ...]:
        """What the plan of a turn depends on."""
        return (self.seat, self.board, self.rack, self.placed, self.draws)


def _threat_table(pos: Position) -> dict[int, float]:
    """How much the next player may expect from a tile of each number.

    Open racks: the number itself when their rack holds it, else nothing.
    Hidden: the number times the chance that their rack holds one, from the
    tiles this seat cannot see.
    """
    if pos.next_rack is not None:
        return {v: float(v) for v in set(pos.next_rack)}
    if not pos.unseen:
        return {}
    counts = Counter(pos.unseen)
    n = len(pos.unseen)
    k = min(pos.next_rack_size, n)
    table = {}
    for v, c in counts.items():
        miss = 1.0
        for j in range(k):  # chance that none of the k tiles is a v
            miss *= max(0.0, (n - c - j) / (n - j))
        table[v] = v * (1.0 - miss)
    return table


def _square_threat(acc: dict[int, int], prem: int, table: dict[int, float]) -> float:
    best = 0.0
    for v, n in acc.items():
        w = table.get(v)
        if w:
            best = max(best, w * n * prem)
    return best


@dataclass(frozen=True, slots=True)
class Plan:
    """The placements of a turn and the value the search gave them."""

    steps: tuple[tuple[int, tuple[int, int]], ...]
    score: int
    value: float
    options: int
    """Legal placements at the start of the search (0: nothing fits)."""


def search_turn(pos: Position, budget: float, *, width: int = 64, finalists: int = 32) -> Plan:
    """Find the best sequence of placements for this turn (possibly empty).

    A beam of ``width`` partial turns, each depth one more placement; partial
    turns that placed the same tiles on the same squares are merged (keeping the
    better score). The ``finalists`` best-scoring turns seen at any depth are then
    judged by score minus :data:`THREAT_WEIGHT` times the best single reply left
    to the next player. Stops early (keeping what it found) past ``budget``.
    """
    stop = time.perf_counter() + budget
    board = _padded(pos.board)
    front = _frontier(board)
    rack_set = set(pos.rack)
    root_moves = [
        (v * n * _PREM_AT[i], v, i)
        for i, acc in front.items()
        for v, n in acc.items()
        if v in rack_set
    ]
    root = _Node(0, board, pos.rack, root_moves, ())
    seen: list[_Node] = [root]
    beam = [root]
    already = pos.placed
    while beam and time.perf_counter() < stop:
        children: dict[frozenset[tuple[int, int]], _Node] = {}
        for node in beam:
            for move in node.moves:
                child = _child(node, move, already)
                key = frozenset(child.path)
                best = children.get(key)
                if best is None or child.score > best.score:
                    children[key] = child
            if time.perf_counter() >= stop:
                break
        beam = sorted(children.values(), key=lambda n: (-n.score, n.path))[:width]
        seen.extend(beam)
    table = _threat_table(pos)
    root_threat = {i: _square_threat(acc, _PREM_AT[i], table) for i, acc in front.items()}
    ranked = sorted(root_threat.items(), key=lambda kv: -kv[1])
    # Placing nothing is never chosen while something fits: a pass changes nothing,
    # and a table of bots that all passed would never end.
    top = sorted(seen[1:] or seen, key=lambda n: (-n.score, n.path))[:finalists]

    def threat(node: _Node) -> float:
        best = 0.0
        for i, t in ranked:
            if i not in node.changed:
                best = t
                break
        for i in node.changed:
            if node.board[i] == _EMPTY:
                best = max(best, _square_threat(_accepted(node.board, i), _PREM_AT[i], table))
        return best

    scored = [(n.score - THREAT_WEIGHT * threat(n), n) for n in top]
    value, chosen = max(scored, key=lambda vn: (vn[0], vn[1].score, [-x for x in _flat(vn[1])]))
    steps = tuple((tile, _cell(i)) for tile, i in chosen.path)
    return Plan(steps=steps, score=chosen.score, value=value, options=len(root_moves))


def _flat(node: _Node) -> list[int]:
    return [x for step in node.path for x in step]


# -- the bots ---------------------------------------------------------------------


def _my_turn(view: dict[str, Any]) -> bool:
    return view.get("status") == Status.PLAYING and view.get("to_move") == view.get("seat")


def _place(tile: int, at: tuple[int, int]) -> dict[str, Any]:
    return {"do": "place", "tile": tile, "at": [at[0], at[1]]}


def _stuck(view: dict[str, Any], rack: Sequence[int]) -> dict[str, Any]:
    """Nothing to place at the start of a turn: swap the biggest tiles the bag allows, or end."""
    n = min(len(rack), view["bag"])
    if n and view["turn"]["can_exchange"]:
        return {"do": "exchange", "tiles": sorted(rack, reverse=True)[:n]}
    return {"do": "end"}


def _rack(view: dict[str, Any]) -> list[int]:
    return list(view["racks"][view["seat"]] or [])


EASY_CHOICES = 3
"""``easy`` picks among this many of the best-scoring placements (it misses the best)."""
EASY_TILES = 3
"""``easy`` ends its turn after this many placements (it never earns the seven-tile bonus)."""


def ranked_placements(
    board: Sequence[Sequence[int | None]], rack: Iterable[int]
) -> list[Placement]:
    """Every placement, best first (ties: bigger tile, then row-major square)."""
    options = all_placements(board, rack)
    options.sort(key=lambda p: (-p.points, -p.tile, p.at))
    return options


class EasyBot(Bot):
    """A beginner: one of the few best tiles at random, and a short turn."""

    game: ClassVar[str] = "mathable"
    level: ClassVar[str] = "easy"

    def choose(self, view: dict[str, Any]) -> dict[str, Any] | None:
        if not _my_turn(view):
            return None
        turn = view["turn"]
        if turn["draws"] > 0 and view["bag"] > 0:
            return {"do": "draw"}
        rack = _rack(view)
        if len(turn["placed"]) >= EASY_TILES:
            return {"do": "end"}
        options = ranked_placements(view["board"], rack)
        if not options:
            return {"do": "end"} if turn["placed"] else _stuck(view, rack)
        pick = self.rng.choice(options[:EASY_CHOICES])
        return _place(pick.tile, pick.at)


def best_placement(board: Sequence[Sequence[int | None]], rack: Iterable[int]) -> Placement | None:
    """The single placement that scores most (ties: bigger tile, then row-major square)."""
    options = all_placements(board, rack)
    if not options:
        return None
    return max(options, key=lambda p: (p.points, p.tile, -p.at[0], -p.at[1]))


class NormalBot(Bot):
    """Greedy: the best single placement again and again, every extra draw taken."""

    game: ClassVar[str] = "mathable"
    level: ClassVar[str] = "normal"

    def choose(self, view: dict[str, Any]) -> dict[str, Any] | None:
        if not _my_turn(view):
            return None
        turn = view["turn"]
        if turn["draws"] > 0 and view["bag"] > 0:
            return {"do": "draw"}
        rack = _rack(view)
        best = best_placement(view["board"], rack)
        if best is not None:
            return _place(best.tile, best.at)
        if not turn["placed"]:
            return _stuck(view, rack)
        return {"do": "end"}


class HardBot(Bot):
    """Whole-turn beam search, with a care for the reply it leaves and for the end game."""

    game: ClassVar[str] = "mathable"
    level: ClassVar[str] = "hard"

    def __init__(self, *, rng: random.Random | None = None, budget: float = 0.08) -> None:
        super().__init__(rng=rng, budget=budget)
        self._expect: tuple[Any, ...] | None = None
        self._steps: list[tuple[int, tuple[int, int]]] = []
        self._swapped_at: int | None = None
        """The bag's size at this bot's last exchange made by choice (it could have placed)."""

    def plan(self, view: dict[str, Any]) -> Plan:
        """Search the rest of this turn from ``view`` (the benchmark times this)."""
        return search_turn(Position.from_view(view), self.budget)

    def choose(self, view: dict[str, Any]) -> dict[str, Any] | None:
        if not _my_turn(view):
            return None
        pos = Position.from_view(view)
        if pos.draws > 0 and pos.bag > 0 and self._want_draw(pos):
            self._expect = None
            return {"do": "draw"}
        if self._expect != pos.key() or not self._steps:
            plan = search_turn(pos, self.budget)
            self._steps = list(plan.steps)
            if pos.placed == 0 and view["turn"]["can_exchange"]:
                if not plan.options:
                    swap = _stuck_late(pos)
                elif self._swapped_at == pos.bag:
                    # Nobody has drawn since its last exchange by choice: the big tiles it
                    # sent back may be all the bag holds, and swapping them round and round
                    # (as two hard bots once did, for ever) ends nothing. Play instead.
                    swap = []
                else:
                    swap = self._exchange(pos, plan)
                    if swap:
                        self._swapped_at = pos.bag
                if swap:
                    self._expect = None
                    self._steps = []
                    return {"do": "exchange", "tiles": swap}
        if not self._steps:
            self._expect = None
            return {"do": "end"}
        tile, at = self._steps.pop(0)
        self._expect = _after(pos, tile, at)
        return _place(tile, at)

    def _want_draw(self, pos: Position) -> bool:
        """An extra tile is more choice; late in the game it may be a big one stuck on the rack."""
        if pos.bag > LATE_BAG or not pos.unseen:
            return True
        return sum(pos.unseen) / len(pos.unseen) <= 12

    def _exchange(self, pos: Position, plan: Plan) -> list[int]:
        """Late in the game, send back big tiles that fit nowhere when that beats playing."""
        if pos.bag == 0 or pos.bag > LATE_BAG or not plan.steps:
            return []
        fits = _fitting(pos.board)
        big = sorted((t for t in pos.rack if t >= 20 and t not in fits), reverse=True)[: pos.bag]
        if not big:
            return []
        mean = sum(pos.unseen) / len(pos.unseen) if pos.unseen else 0.0
        saved = sum(big) - mean * len(big)
        return big if saved > plan.score else []


def _fitting(board: Sequence[Sequence[int | None]]) -> set[int]:
    padded = _padded(board)
    out: set[int] = set()
    for acc in _frontier(padded).values():
        out.update(acc)
    return out


def _stuck_late(pos: Position) -> list[int]:
    """Nothing fits: exchange; late in the game only the tiles worse than an average draw."""
    tiles = sorted(pos.rack, reverse=True)
    if pos.bag <= LATE_BAG and pos.unseen:
        mean = sum(pos.unseen) / len(pos.unseen)
        # Always send back at least one: passing would leave a stuck table stuck.
        tiles = [t for t in tiles if t > mean] or tiles[:1]
    return tiles[: pos.bag]


def _after(pos: Position, tile: int, at: tuple[int, int]) -> tuple[Any, ...]:
    """The key of the position the placement leads to, to recognise it next call."""
    r, c = at
    board = tuple(
        tuple(tile if (rr, cc) == (r, c) else v for cc, v in enumerate(row)) if rr == r else row
        for rr, row in enumerate(pos.board)
    )
    rack = list(pos.rack)
    rack.remove(tile)
    draws = pos.draws + (at in OPERATORS)
    return (pos.seat, board, tuple(rack), pos.placed + 1, draws)


BOTS: dict[str, type[Bot]] = {"easy": EasyBot, "normal": NormalBot, "hard": HardBot}
