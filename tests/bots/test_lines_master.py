"""Lines master: its kernels keep the engine's rules, and compiled they choose as plain.

The kernels (server/bots/lines_kernel.py) run as plain Python on numpy here,
with or without the ``[search]`` extra; the tests that need Numba's compiled
copy skip without it. Whether ``master`` is offered at all depends on Numba
importing, and both sides of that are checked: the one this venv has.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tilehall.server.bots import bot_levels, find_bot
from tilehall.server.bots import lines_master as lm
from tilehall.server.bots.lines import HardLinesBot
from tilehall.server.bots.lines import components as python_components
from tilehall.server.games.lines import Lines, find_path, lines_through

from tests.bots.test_lines import boards

np = pytest.importorskip("numpy")

KERNEL = lm.kernel(False)


def arr(values: list[int]) -> Any:
    return np.array(values, dtype=np.int64)


FEAT = arr(list(lm.MasterLinesBot.feat))


class Quick(lm.MasterLinesBot):
    """Playouts few enough for the plain kernels (the real count takes minutes there)."""

    finalists = 4
    stages = ((4, 2), (2, 3))
    depth = 4


def draw(cells: list[int], width: int, height: int, min_line: int, seed: int, table: Any) -> int:
    """One move of the playout policy on ``cells`` (plain kernels), ``src * size + dst`` or -1."""
    size = width * height
    colours = max(cells) if any(cells) else 1
    stride = colours + 1
    return int(
        KERNEL.heuristic_move(
            arr(cells),
            width,
            height,
            min_line,
            colours,
            FEAT,
            table,
            arr([seed + 1]),
            np.zeros(size, dtype=np.int64),
            np.zeros(size, dtype=np.int64),
            np.zeros(2 * size * stride + 2 * size + stride, dtype=np.int64),
            np.zeros(4 * size * size, dtype=np.int64),
        )
    )


def positions(count: int, seed: int) -> list[dict[str, Any]]:
    """Mid-game views of seeded Color Lines 98 games (preview on), reached by ``hard``."""
    options = {"width": 9, "height": 9, "colours": 7, "throw": 3, "min_line": 5, "preview": True}
    game = Lines(options=options, seats=1, rng=random.Random(seed), now=0.0)
    bot = HardLinesBot(rng=random.Random(seed), budget=10.0)
    views = []
    for _ in range(count):
        for _ in range(3):
            action = bot.choose(game.view(0))
            assert action is not None
            game.act(0, action, 0.0)
        views.append(game.view(0))
    return views


@settings(max_examples=80)
@given(boards, st.integers(0, 63))
def test_removing_lines_matches_the_engine(case, pick) -> None:
    width, height, min_line, cells = case
    index = pick % (width * height)
    board = arr(cells)
    expected = lines_through(list(cells), width, height, index, min_line)
    mark = np.zeros(width * height, dtype=np.int64)
    removed = KERNEL.remove_lines(board, width, height, min_line, arr([index]), 1, mark)
    assert removed == len(expected)
    for i, v in enumerate(cells):
        assert board[i] == (0 if i in expected else v)
    assert not mark.any()


@settings(max_examples=80)
@given(boards)
def test_components_partition_the_empty_cells_as_the_bots_do(case) -> None:
    width, height, _, cells = case
    size = width * height
    comp = np.empty(size, dtype=np.int64)
    stack = np.empty(size, dtype=np.int64)
    count = KERNEL.components(arr(cells), width, height, comp, stack)
    nbrs = [
        tuple(
            rr * width + cc
            for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if 0 <= rr < height and 0 <= cc < width
        )
        for r, c in (divmod(i, width) for i in range(size))
    ]
    theirs = python_components(list(cells), nbrs)
    assert count == len({x for x in theirs if x >= 0})
    pairs = {(a, b) for a, b in zip(comp.tolist(), theirs, strict=True)}
    assert len({a for a, _ in pairs}) == len({b for _, b in pairs}) == len(pairs)


@settings(max_examples=80)
@given(boards, st.integers(0, 2**20))
def test_the_playout_policy_draws_a_legal_move_or_none(case, seed) -> None:
    width, height, min_line, cells = case
    size = width * height
    table = arr(lm.MasterLinesBot.softmax_table())
    move = draw(list(cells), width, height, min_line, seed, table)
    legal = {
        (s, t)
        for s in range(size)
        if cells[s]
        for t in range(size)
        if not cells[t] and find_path(list(cells), width, height, s, t) is not None
    }
    if move < 0:
        assert not legal
    else:
        assert divmod(move, size) in legal


@settings(max_examples=40)
@given(st.integers(0, 8), st.integers(0, 2**20))
def test_at_its_coldest_the_policy_completes_a_line_it_can(row, seed) -> None:
    """Four chips in a row, a fifth of the colour free to come: the line is the best move."""
    cells = [0] * 81
    for c in range(4):
        cells[row * 9 + c] = 1
    other = (row + 4) % 9
    cells[other * 9 + 8] = 1  # the chip that can complete the line
    cells[(row + 2) % 9 * 9 + 6] = 2
    move = draw(cells, 9, 9, 5, seed, arr([1]))
    assert divmod(move, 81) == (other * 9 + 8, row * 9 + 4)


@settings(max_examples=60)
@given(boards, st.integers(1, 3), st.integers(0, 2**20))
def test_a_throw_lands_on_empty_cells_or_ends_the_game(case, throw, seed) -> None:
    width, height, min_line, cells = case
    size = width * height
    board = arr(cells)
    state = arr([seed + 1])
    scratch = [np.zeros(size, dtype=np.int64) for _ in range(3)]
    gone = KERNEL.throw_chips(
        board, width, height, min_line, 3, throw, arr([2]), 1, state, *scratch
    )
    free = cells.count(0)
    if free < throw:
        assert gone == -1
        return
    after = board.tolist()
    changed = [i for i in range(size) if after[i] != cells[i]]
    # Thrown chips land on empty cells; a chip that was there can only have gone in a line.
    assert all(cells[i] == 0 or after[i] == 0 for i in changed)
    if gone == -1:
        assert free == throw and all(after)
    else:
        assert after.count(0) == free - throw + gone


def test_playouts_are_seeded_and_leave_the_board_alone() -> None:
    view = positions(1, 3)[0]
    board = arr([v for row in view["board"] for v in row])
    before = board.tolist()
    dst = draw(before, 9, 9, 5, 0, arr([1])) % 81
    src = draw(before, 9, 9, 5, 0, arr([1])) // 81
    weights = arr(lm.MasterLinesBot.softmax_table())
    args = (9, 9, 5, 7, 3, arr(view["next"]), 0, src, dst, 0, 3, 5)

    def total(seed: int) -> int:
        return int(KERNEL.playouts(board, *args, seed, FEAT, weights, -5000, 0))

    assert total(11) == total(11)
    assert {total(seed) for seed in range(6)} != {total(11)}  # the seed matters
    assert board.tolist() == before


def test_later_playouts_add_to_earlier_ones() -> None:
    """Playouts are numbered: 0..1 then 2..4 sum to 0..4, so a round adds to the last."""
    view = positions(1, 4)[0]
    cells = [v for row in view["board"] for v in row]
    board = arr(cells)
    move = draw(cells, 9, 9, 5, 0, arr([1]))
    weights = arr(lm.MasterLinesBot.softmax_table())
    base = (9, 9, 5, 7, 3, arr(view["next"]), 0, move // 81, move % 81)

    def total(first: int, count: int) -> int:
        return int(KERNEL.playouts(board, *base, first, count, 4, 17, FEAT, weights, -5000, 0))

    assert total(0, 2) + total(2, 3) == total(0, 5)


def test_the_plain_search_plays_a_legal_move() -> None:
    for view in positions(2, 5):
        action = Quick(rng=random.Random(1), budget=60.0, compiled=False).choose(view)
        assert action is not None
        board = [v for row in view["board"] for v in row]
        src = action["from"][0] * 9 + action["from"][1]
        dst = action["to"][0] * 9 + action["to"][1]
        assert board[src] and find_path(board, 9, 9, src, dst) is not None


@pytest.mark.skipif(not lm.available(), reason="the [search] extra (Numba) is not installed")
def test_master_is_offered_with_numba() -> None:
    assert "master" in bot_levels("lines")
    assert find_bot("lines", "master") is lm.MasterLinesBot


@pytest.mark.skipif(lm.available(), reason="Numba is installed: master is offered")
def test_without_numba_master_is_refused_naming_the_extra() -> None:
    assert "master" not in bot_levels("lines")
    with pytest.raises(KeyError, match=r"\[search\]"):
        find_bot("lines", "master")


@pytest.mark.slow
@pytest.mark.skipif(not lm.available(), reason="the [search] extra (Numba) is not installed")
def test_compiled_and_plain_choose_the_same_moves(tmp_path) -> None:
    lm.warm(tmp_path / "numba")
    chosen = 0
    for seed in (1, 2, 3, 4):
        for view in positions(3, seed):
            plain = Quick(rng=random.Random(seed), budget=60.0, compiled=False).choose(view)
            compiled = Quick(rng=random.Random(seed), budget=60.0, compiled=True).choose(view)
            assert plain == compiled
            chosen += 1
    assert chosen == 12


def test_a_spent_budget_plays_hard_s_best_without_rollouts() -> None:
    """With no time left the finalists keep hard's values: its first choice is played."""
    for view in positions(2, 7):
        spent = lm.MasterLinesBot(rng=random.Random(3), budget=0.0, compiled=False)
        start = time.perf_counter()
        action = spent.choose(view)
        # The real schedule on the plain kernels would take minutes.
        assert time.perf_counter() - start < 5.0
        hard = HardLinesBot(rng=random.Random(3), budget=0.0).choose(view)
        assert action == hard
