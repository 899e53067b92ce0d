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

One module per job; this package's face is the list below.

* :mod:`.board` - the types every module speaks (cells, boards, moves, margins);
* :mod:`.paths` - the path a game draws between two tiles, on the plain board;
* :mod:`.bitboard` - the padded bitboard the fast parts run on, and the
  questions answered with it (which pairs connect now);
* :mod:`.movement` - how tiles slide after a removal (LinkSame's nine stages);
* :mod:`.solver` - whether a board can be cleared, and how;
* :mod:`.deals` - boards that can be cleared, made by playing a blank board.
"""

from tilehall.server.games.shisensho.bitboard import (
    EMPTY_KEY,
    Geometry,
    geometry,
    has_playable_pair,
    margin_moves,
    playable_pairs,
)
from tilehall.server.games.shisensho.board import (
    Board,
    Cell,
    MatchKey,
    Move,
    Path,
    Side,
    board_from_cells,
    count_tiles,
    identity_key,
)
from tilehall.server.games.shisensho.deals import deal_by_play, deal_random
from tilehall.server.games.shisensho.movement import (
    MOVEMENT_NAMES,
    Movement,
    movement,
    remove_pair,
)
from tilehall.server.games.shisensho.paths import find_path, path_length, path_sides
from tilehall.server.games.shisensho.solver import Outcome, Solution, solve

__all__ = [
    "EMPTY_KEY",
    "MOVEMENT_NAMES",
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
