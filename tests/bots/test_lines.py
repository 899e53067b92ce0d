"""Lines bots: legal from the wire view alone, exact incremental sums, sensible choices."""

from __future__ import annotations

import random
import time
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tilehall.protocol import Status
from tilehall.server.bots.base import Bot
from tilehall.server.bots.lines import (
    BOTS,
    EasyLinesBot,
    HardLinesBot,
    LinesBot,
    components,
    empty_mask,
    geometry,
    largest_region,
    window_values,
)
from tilehall.server.games.lines import EndReason, Lines, find_path, lines_through


def wire(view: dict[str, Any]) -> dict[str, Any]:
    """What a bot client really receives: the view after a msgpack round trip."""
    return msgpack.unpackb(msgpack.packb(view))


def new(seed: int = 0, **options: Any) -> Lines:
    return Lines(options=options, seats=1, rng=random.Random(seed), now=0.0)


def with_board(rows: list[str], **options: Any) -> Lines:
    board = [[0 if ch == "." else int(ch) for ch in row] for row in rows]
    return Lines.from_position(board, options=options)


boards = st.integers(3, 8).flatmap(
    lambda w: st.integers(3, 8).flatmap(
        lambda h: st.tuples(
            st.just(w),
            st.just(h),
            st.integers(2, 5),
            st.lists(st.integers(0, 3), min_size=w * h, max_size=w * h),
        )
    )
)


def test_levels() -> None:
    assert set(BOTS) == {"normal", "easy", "hard"}
    for level, cls in BOTS.items():
        assert issubclass(cls, Bot) and cls.game == "lines" and cls.level == level


def test_geometry_counts_every_window_once() -> None:
    geo = geometry(9, 9, 5)
    assert len(geo.windows) == 45 + 45 + 25 + 25
    assert len(set(geo.windows)) == len(geo.windows)
    assert len(geometry(6, 7, 8).windows) == 0
    assert max(len(ws) for ws in geo.cell_windows) == 20


@settings(max_examples=80, deadline=None)
@given(board=boards)
def test_line_cells_agree_with_the_engine(board: tuple[int, int, int, list[int]]) -> None:
    w, h, min_line, cells = board
    geo = geometry(w, h, min_line)
    for i, v in enumerate(cells):
        if v:
            assert set(geo.line_cells(cells, i)) == lines_through(cells, w, h, i, min_line)


@settings(max_examples=80, deadline=None)
@given(board=boards)
def test_regions_by_bit_masks_match_the_flood_fill(board: tuple[int, int, int, list[int]]) -> None:
    w, h, min_line, cells = board
    geo = geometry(w, h, min_line)
    labels = components(cells, geo.nbrs)
    sizes = [labels.count(c) for c in set(labels) if c >= 0]
    assert largest_region(empty_mask(cells, geo), geo.stride) == max(sizes, default=0)


@settings(max_examples=60, deadline=None)
@given(board=boards)
def test_static_moves_are_exactly_the_legal_moves_with_exact_window_changes(
    board: tuple[int, int, int, list[int]],
) -> None:
    """The per-cell tables plus the shared-window correction equal a full recount."""
    w, h, min_line, cells = board
    geo = geometry(w, h, min_line)
    bot = LinesBot()
    w_val = bot.weights(min_line)
    moves = bot.static_moves(cells, geo, {"colours": 3})
    legal = {
        (s, t)
        for s in range(w * h)
        for t in range(w * h)
        if cells[s] and not cells[t] and find_path(cells, w, h, s, t) is not None
    }
    assert {(s, t) for _, s, t in moves} == legal
    assert len(moves) == len(legal)
    before = sum(window_values(cells, geo, w_val))
    for value, s, t in moves:
        after = cells[:]
        after[t], after[s] = after[s], 0
        assert value == pytest.approx(sum(window_values(after, geo, w_val)) - before)


def flat(rows: list[str]) -> list[int]:
    return [0 if ch == "." else int(ch) for row in rows for ch in row]


@pytest.mark.parametrize(
    ("rows", "ready"),
    [
        (["1111.2...", ".........", "........1"], 1),  # the 1 at [2,8] can reach [0,4]
        (["1111.2...", "....2....", "........1"], 0),  # the gap is walled in by 2s
        (["1111.2...", "....1....", "........3"], 1),  # walled in, but a 1 is next to it
        (["1111.2...", "....2....", "111......"], 0),  # the other 1s are walled out
        ([".1111....", "2........", "........2"], 0),  # no 1 outside the line at all
        ([".1111.1..", ".........", "........2"], 2),  # gaps [0,0] and [0,5], both reachable
    ],
)
def test_ready_lines_need_a_chip_of_their_colour_that_can_reach_the_gap(
    rows: list[str], ready: int
) -> None:
    board = flat(rows)
    geo = geometry(9, 3, 5)
    bot = LinesBot()
    w_val = bot.weights(5)
    short = [wi for wi, v in enumerate(window_values(board, geo, w_val)) if v == w_val[4]]
    assert bot.readiness(board, geo, empty_mask(board, geo), short) == bot.ready_weight * ready


@pytest.mark.parametrize("cls", [LinesBot, EasyLinesBot, HardLinesBot])
def test_completes_an_open_line(cls: type[LinesBot]) -> None:
    game = with_board(
        [
            ".........",
            ".2..3....",
            ".........",
            ".1111....",
            ".........",
            ".........",
            ".....4...",
            ".........",
            "........1",
        ]
    )
    action = cls(rng=random.Random(1)).choose(wire(game.view(0)))
    assert action is not None
    events = game.act(0, action, 0.0)
    assert any(e["e"] == "removed" for e in events)


CROSS = [
    "....1..2.",
    "....1..2.",
    "....1..2.",
    "....1..2.",
    "1111.....",
    ".........",
    ".........",
    ".........",
    "2.......1",
]
"""[4,4] completes a row and a column of 1s (9 chips, 45 points); [4,7] a column of 2s."""


def test_normal_prefers_the_cross_to_a_plain_line() -> None:
    game = with_board(CROSS)
    action = LinesBot(rng=random.Random(2)).choose(wire(game.view(0)))
    assert action == {"do": "move", "from": [8, 8], "to": [4, 4]}


def test_hard_prefers_the_cross_to_a_plain_line() -> None:
    game = with_board(
        CROSS,
        colours=7,
        preview=True,
    )
    action = HardLinesBot(rng=random.Random(2), budget=5.0).choose(wire(game.view(0)))
    assert action == {"do": "move", "from": [8, 8], "to": [4, 4]}


def test_hard_does_not_wall_off_the_board() -> None:
    """Column 4 is a wall with one door at [4,4]; a 1 there would make four in a row,
    but would cut the board in two. The hard bot keeps the door open."""
    game = with_board(
        [
            "....3....",
            "....5....",
            "....6....",
            "....2....",
            "111......",
            "....7....",
            "....3....",
            "....6....",
            "..1.5...1",
        ],
        colours=7,
        preview=True,
    )
    action = HardLinesBot(rng=random.Random(4), budget=5.0).choose(wire(game.view(0)))
    assert action is not None
    geo = geometry(9, 9, 5)
    board = [v for row in game.view(0)["board"] for v in row]
    src, dst = action["from"][0] * 9 + action["from"][1], action["to"][0] * 9 + action["to"][1]
    board[dst], board[src] = board[src], 0
    mask = empty_mask(board, geo)
    assert largest_region(mask, geo.stride) == mask.bit_count()
    game.act(0, action, 0.0)  # and the move is legal


def test_hard_same_seed_same_choice_and_legal() -> None:
    game = new(6, colours=7, preview=True)
    for _ in range(20):
        game.act(0, EasyLinesBot().choose(game.view(0)), 0.0)  # type: ignore[arg-type]
    view = wire(game.view(0))
    picks = {str(HardLinesBot(rng=random.Random(9), budget=5.0).choose(view)) for _ in range(3)}
    assert len(picks) == 1
    action = HardLinesBot(rng=random.Random(9), budget=5.0).choose(view)
    assert action is not None
    game.act(0, action, 0.0)  # raises if the move is illegal


def test_passes_when_it_is_not_its_turn_or_the_game_is_over() -> None:
    game = new(3)
    bot = LinesBot()
    assert bot.choose(wire(game.view(None))) is None
    over = Lines.from_position(game.view(0)["board"], end=EndReason.NO_ROOM)
    assert over.status is Status.OVER
    assert bot.choose(wire(over.view(0))) is None


def test_same_seed_same_choice() -> None:
    game = new(5)
    for _ in range(15):
        game.act(0, EasyLinesBot().choose(game.view(0)), 0.0)  # type: ignore[arg-type]
    view = wire(game.view(0))
    picks = {str(LinesBot(rng=random.Random(9)).choose(view)) for _ in range(3)}
    assert len(picks) == 1


small_options = st.fixed_dictionaries(
    {
        "width": st.integers(3, 7),
        "height": st.integers(3, 7),
        "colours": st.integers(2, 5),
        "min_line": st.integers(2, 9),
        "throw": st.integers(1, 4),
        "initial": st.integers(1, 5),
        "preview": st.booleans(),
    }
)


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(options=small_options, seed=st.integers(0, 2**16), level=st.sampled_from(sorted(BOTS)))
def test_bots_play_whole_games_legally_from_the_wire_view(
    options: dict[str, Any], seed: int, level: str
) -> None:
    game = new(seed, **options)
    bot = BOTS[level](rng=random.Random(seed), budget=0.01)
    for _ in range(150):
        if game.status is Status.OVER:
            break
        action = bot.choose(wire(game.view(0)))
        assert action is not None
        game.act(0, action, 0.0)  # raises if the bot chose an illegal move


def test_a_line_longer_than_the_board_still_gets_legal_moves() -> None:
    game = new(1, width=5, height=5, min_line=7, initial=6)
    bot = LinesBot(budget=0.01)
    for _ in range(5):
        if game.status is Status.OVER:
            break
        game.act(0, bot.choose(wire(game.view(0))), 0.0)  # type: ignore[arg-type]


def test_thinking_stays_within_the_budget_on_a_crowded_board() -> None:
    game = new(8)
    easy = EasyLinesBot()
    while (
        game.status is Status.PLAYING
        and sum(v > 0 for row in game.view(0)["board"] for v in row) < 55
    ):
        game.act(0, easy.choose(game.view(0)), 0.0)  # type: ignore[arg-type]
    if game.status is Status.OVER:
        pytest.skip("the warm-up game ended early")
    view = wire(game.view(0))
    bot = LinesBot(rng=random.Random(3), budget=0.05)
    start = time.perf_counter()
    assert bot.choose(view) is not None
    # Generous slack: the machine is shared, but a search ignoring its budget would take far longer.
    assert time.perf_counter() - start < 0.05 + 0.5
    assert LinesBot(budget=0.0).choose(view) is not None
