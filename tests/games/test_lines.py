"""Rules of Lines (CLines): moves, paths, lines, scoring, throws, the end, options, records."""

from __future__ import annotations

import copy
import itertools
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tilehall.protocol import GameCode, Status
from tilehall.server.games.base import (
    IllegalMove,
    InvalidMove,
    OptionError,
    PositionError,
)
from tilehall.server.games.lines import EndReason, Lines, find_path, line_points, lines_through

# A 5x5 filler with colours 2..5 and no line of 5 in any direction: along a row
# the colour alternates between two values, along a column or diagonal it cycles
# through four.
FILL = 9


def pattern(r: int, c: int) -> int:
    return 2 + (r + 2 * c) % 4


def new(seed: int = 0, **options: Any) -> Lines:
    return Lines(options=options, seats=1, rng=random.Random(seed), now=0.0)


def setup(
    rows: list[str], seed: int = 0, nxt: list[int] | None = None, streak: int = 0, **options: Any
) -> Lines:
    """A game in the position drawn as text: '.' empty, a digit a colour, 'x' the filler."""
    board = [
        [0 if ch == "." else pattern(r, c) if ch == "x" else int(ch) for c, ch in enumerate(row)]
        for r, row in enumerate(rows)
    ]
    return Lines.from_position(
        board, streak=streak, next_colours=nxt, options=options, rng=random.Random(seed)
    )


def move(game: Lines, src: list[int], dst: list[int]) -> list[dict[str, Any]]:
    return game.act(0, {"do": "move", "from": src, "to": dst}, 0.0)


def chips(game: Lines) -> int:
    return sum(1 for row in game.view(0)["board"] for v in row if v)


def events_named(events: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [e for e in events if e["e"] == name]


def no_lines(game: Lines) -> bool:
    board = [v for row in game.view(0)["board"] for v in row]
    w, h = game.width, game.height
    return all(not lines_through(board, w, h, i, game.min_line) for i in range(w * h))


# -- scoring -------------------------------------------------------------------


@pytest.mark.parametrize(("n", "points"), [(5, 5), (6, 12), (7, 21), (8, 32), (9, 45)])
def test_line_of_n_scores_the_table_without_streak(n: int, points: int) -> None:
    row = "1" * (n - 1) + "." * (10 - n)
    game = setup(["." * 8 + "2"] + ["." * 9] * 3 + [row] + ["." * 9] * 3 + ["1" + "." * 8])
    events = move(game, [8, 0], [4, n - 1])
    (removed,) = events_named(events, "removed")
    assert removed["n"] == n
    assert removed["points"] == points == line_points(n, 5, 0)
    assert removed["streak"] == 0
    assert sorted(removed["cells"]) == [[4, c] for c in range(n)]
    assert game.view(0)["score"] == points
    assert not events_named(events, "thrown")  # a scoring move earns a free move


def test_consecutive_scoring_moves_add_the_streak_squared() -> None:
    game = setup(
        [
            "1111.....",
            ".........",
            "2222.....",
            ".........",
            "3333.....",
            ".........",
            ".........",
            ".........",
            "123.....4",
        ],
        seed=3,
    )
    got = []
    for r, colour_col in ((0, 0), (2, 1), (4, 2)):
        events = move(game, [8, colour_col], [r, 4])
        (removed,) = events_named(events, "removed")
        got.append((removed["streak"], removed["points"]))
    assert got == [(0, 5), (1, 5 + 1), (2, 5 + 4)]
    assert game.view(0)["streak"] == 3
    assert game.view(0)["score"] == 5 + 6 + 9
    # A move that scores nothing lets the computer throw, which resets the streak.
    events = move(game, [8, 8], [7, 8])
    assert events_named(events, "thrown")
    assert game.view(0)["streak"] == 0


def test_streak_formula_beyond_the_table() -> None:
    assert line_points(5, 5, 3) == 5 + 9
    assert line_points(7, 5, 2) == 7 + 14 + 4
    assert line_points(4, 4, 0) == 4


def test_a_cross_of_two_lines_is_removed_and_counted_once() -> None:
    game = setup(
        [
            "....1....",
            "....1....",
            "....1....",
            "....1....",
            "1111.....",
            ".........",
            ".........",
            ".........",
            "........1",
        ]
    )
    events = move(game, [8, 8], [4, 4])
    (removed,) = events_named(events, "removed")
    assert removed["n"] == 9
    assert removed["points"] == 45
    assert len(removed["cells"]) == 9
    # The board was emptied, so the computer threw at once.
    assert [e["e"] for e in events] == ["moved", "removed", "thrown"]


@pytest.mark.parametrize(
    ("rows", "src", "dst"),
    [
        (
            ["1........", ".1.......", "..1......", "...1.....", ".........", "........1"],
            [5, 8],
            [4, 4],
        ),
        (
            ["........1", ".......1.", "......1..", ".....1...", ".........", "1........"],
            [5, 0],
            [4, 4],
        ),
    ],
    ids=["down-right", "down-left"],
)
def test_diagonal_lines_score(rows: list[str], src: list[int], dst: list[int]) -> None:
    game = setup(rows + ["." * 9] * 3)
    events = move(game, src, dst)
    (removed,) = events_named(events, "removed")
    assert removed["n"] == 5
    assert [4, 4] in removed["cells"]


def test_four_in_a_row_does_not_score() -> None:
    game = setup(["111......", "........1"] + ["." * 9] * 7)
    events = move(game, [1, 8], [0, 3])
    assert not events_named(events, "removed")
    assert events_named(events, "thrown")


def test_other_colours_do_not_join_a_line() -> None:
    game = setup(["1121.....", "........1"] + ["." * 9] * 7)
    events = move(game, [1, 8], [0, 4])
    assert not events_named(events, "removed")


# -- moves and paths --------------------------------------------------------------


def test_move_event_carries_a_four_connected_path_through_empty_cells() -> None:
    game = setup(
        [
            "1.x......",
            "..x......",
            "..x......",
            ".........",
            ".........",
        ]
    )
    before = copy.deepcopy(game.view(0)["board"])
    events = move(game, [0, 0], [0, 3])
    moved = events[0]
    assert moved["e"] == "moved"
    assert moved["from"] == [0, 0] and moved["to"] == [0, 3] and moved["colour"] == 1
    path = moved["path"]
    assert path[0] == [0, 0] and path[-1] == [0, 3]
    for (r1, c1), (r2, c2) in itertools.pairwise(path):
        assert abs(r1 - r2) + abs(c1 - c2) == 1
    assert all(before[r][c] == 0 for r, c in path[1:])
    assert len(path) == 10  # round the wall: down 3, right 3, up 3, plus the start


def test_unreachable_target_is_refused_and_nothing_changes() -> None:
    game = setup(
        [
            ".1.......",
            "1........",
            ".........",
            ".........",
            "....2....",
        ]
    )
    before = game.view(0)
    rng_state = game.rng.getstate()
    with pytest.raises(IllegalMove) as err:
        move(game, [4, 4], [0, 0])
    assert err.value.code == GameCode.UNREACHABLE
    assert "[4, 4]" in err.value.message and "[0, 0]" in err.value.message
    assert game.view(0) == before
    assert game.rng.getstate() == rng_state


@pytest.mark.parametrize(
    ("action", "kind", "code"),
    [
        ({"do": "move", "from": [0, 9], "to": [1, 1]}, InvalidMove, GameCode.BAD_CELL),
        ({"do": "move", "from": [0, 0], "to": "b2"}, InvalidMove, GameCode.BAD_FIELD),
        ({"do": "move", "from": [0, 0], "to": [True, 1]}, InvalidMove, GameCode.BAD_FIELD),
        ({"do": "move", "from": [0, 0]}, InvalidMove, GameCode.MISSING_FIELD),
        ({"do": "move", "from": [2, 2], "to": [1, 1]}, IllegalMove, GameCode.EMPTY_SOURCE),
        ({"do": "move", "from": [0, 0], "to": [0, 1]}, IllegalMove, GameCode.OCCUPIED),
        ({"do": "move", "from": [0, 0], "to": [0, 0]}, IllegalMove, GameCode.OCCUPIED),
        ({"do": "jump", "from": [0, 0], "to": [1, 1]}, InvalidMove, GameCode.UNKNOWN_ACTION),
        ({}, InvalidMove, GameCode.UNKNOWN_ACTION),
    ],
)
def test_refusals_have_stable_codes_and_change_nothing(
    action: dict[str, Any], kind: type[Exception], code: str
) -> None:
    game = setup(["12.......", "........."] + ["." * 9] * 7)
    before = game.view(0)
    with pytest.raises(kind) as err:
        game.act(0, action, 0.0)
    assert err.value.code == code  # type: ignore[attr-defined]
    assert game.view(0) == before


def test_only_seat_zero_plays() -> None:
    game = setup(["12.......", "........."] + ["." * 9] * 7)
    with pytest.raises(IllegalMove) as err:
        move_as(game, 1)
    assert err.value.code == GameCode.NOT_YOUR_TURN


def move_as(game: Lines, seat: int) -> None:
    game.act(seat, {"do": "move", "from": [0, 0], "to": [1, 0]}, 0.0)


def test_find_path_is_none_when_walled_in() -> None:
    board = [0, 1, 0, 1, 0, 0, 0, 0, 2]
    assert find_path(board, 3, 3, 8, 0) is None
    assert find_path(board, 3, 3, 8, 2) == [8, 5, 2]
    assert find_path(board, 3, 3, 1, 6) == [1, 4, 7, 6]


# -- the computer's throw and the end -----------------------------------------------


def test_a_throw_that_completes_a_line_removes_it_without_streak() -> None:
    # The move leaves exactly three empty cells, so the throw must fill them.
    game = setup(
        ["1111.", "xxxxx", "xxxxx", "xxxxx", "x..xx"],
        nxt=[1, 1, 1],
        streak=2,  # a throw resets it and scores with b = 0 anyway
    )
    events = move(game, [4, 3], [4, 2])
    (thrown,) = events_named(events, "thrown")
    assert sorted(thrown["cells"]) == [[0, 4], [4, 1], [4, 3]]
    assert thrown["colours"] == [1, 1, 1]
    (removed,) = events_named(events, "removed")
    assert removed["by"] == "throw"
    assert removed["streak"] == 0
    assert sorted(removed["cells"]) == [[0, c] for c in range(5)]
    assert removed["points"] == 5
    assert game.view(0)["score"] == 5
    assert game.status is Status.PLAYING


@pytest.mark.parametrize(
    ("empty", "over", "reason"), [(2, True, "no_room"), (3, True, "board_full"), (4, False, None)]
)
def test_game_over_exactly_when_the_throw_does_not_fit(
    empty: int, over: bool, reason: str | None
) -> None:
    # Empty cells at the end of the bottom row; one chip moves right by one.
    cells = ["x"] * 25
    for i in range(25 - empty, 25):
        cells[i] = "."
    rows = ["".join(cells[r * 5 : r * 5 + 5]) for r in range(5)]
    game = setup(rows, nxt=[1, 1, 1])
    src = 25 - empty - 1
    chips_before = chips(game)
    events = move(game, list(divmod(src, 5)), list(divmod(src + 1, 5)))
    assert (game.status is Status.OVER) is over
    if over:
        assert events[-1] == {"e": "game_over", "reason": reason, "score": 0}
        assert game.view(0)["reason"] == reason
        assert game.to_move is None
        with pytest.raises(IllegalMove) as err:
            move(game, [0, 0], [4, 4])
        assert err.value.code == GameCode.GAME_OVER
    if reason == "no_room":
        assert not events_named(events, "thrown")
        assert chips(game) == chips_before
    else:
        assert events_named(events, "thrown")


def test_a_scoring_move_that_empties_the_board_lets_the_computer_throw() -> None:
    game = setup(["1111.....", "........1"] + ["." * 9] * 7, seed=5, streak=1)
    events = move(game, [1, 8], [0, 4])
    names = [e["e"] for e in events]
    assert names == ["moved", "removed", "thrown"]
    assert chips(game) == 3
    assert game.view(0)["streak"] == 0
    assert game.status is Status.PLAYING


def test_a_throw_that_empties_the_board_is_followed_by_another() -> None:
    game = setup(["1..", "...", "..."], nxt=[1], min_line=2, throw=1, colours=2)
    events = move(game, [0, 0], [1, 1])  # alone: no line; every cell touches the centre
    assert [e["e"] for e in events] == ["moved", "thrown", "removed", "thrown"]
    assert events[2]["by"] == "throw" and events[2]["n"] == 2
    assert chips(game) == 1
    assert game.status is Status.PLAYING


def test_a_throw_clearing_an_empty_board_ends_the_game() -> None:
    game = setup(["1..", "...", "..1"], nxt=[1] * 9, min_line=2, throw=9, colours=2)
    events = move(game, [2, 2], [0, 1])
    assert [e["e"] for e in events] == ["moved", "removed", "thrown", "removed", "game_over"]
    assert events[-1]["reason"] == "board_empty"
    assert game.scores[0] == 2 + (9 + 9 * 7)


def test_initial_chips_filling_the_board_end_the_game_at_once() -> None:
    game = new(width=3, height=3, initial=9, min_line=9)
    assert game.status is Status.OVER
    assert game.view(0)["reason"] == "board_full"


def test_initial_throw_lays_the_initial_chips() -> None:
    for initial in (1, 3, 7):
        assert chips(new(4, initial=initial)) == initial


# -- options ---------------------------------------------------------------------------


def test_defaults_follow_the_man_page() -> None:
    view = new().view(0)
    assert (view["width"], view["height"], view["colours"]) == (9, 9, 5)
    assert (view["min_line"], view["throw"]) == (5, 3)
    assert chips(new()) == 3
    assert view["preview"] is False and view["next"] is None
    assert view["eligible"] is True and view["warning"] is None
    assert len(view["board"]) == 9 and all(len(row) == 9 for row in view["board"])


@pytest.mark.parametrize(
    "option", [o for o in Lines.options if o.kind == "int"], ids=lambda o: o.name
)
def test_each_option_out_of_bounds_is_refused_by_name(option: Any) -> None:
    for value in (option.min - 1, option.max + 1, "7", 2.5):
        with pytest.raises(OptionError) as err:
            new(**{option.name: value})
        assert err.value.option == option.name


def test_preview_must_be_a_bool_and_unknown_options_are_refused() -> None:
    with pytest.raises(OptionError) as err:
        new(preview=1)
    assert err.value.option == "preview"
    with pytest.raises(OptionError) as err:
        new(size=9)
    assert err.value.option == "size"


def test_more_initial_chips_than_cells_is_refused() -> None:
    with pytest.raises(OptionError) as err:
        new(width=4, height=4, initial=17)
    assert err.value.option == "initial"
    assert new(width=4, height=4, initial=16, min_line=10).status is Status.OVER


def test_a_minimum_line_longer_than_the_board_is_allowed_with_a_warning() -> None:
    view = new(width=6, height=7, min_line=8).view(0)
    assert "no line can score" in view["warning"]
    assert new(width=6, height=7, min_line=7).view(0)["warning"] is None


def test_preview_shows_the_colours_the_next_throw_brings() -> None:
    game = setup(["1........", "........."] + ["." * 9] * 7, preview=True)
    shown = game.view(0)["next"]
    assert len(shown) == 3 and all(1 <= k <= 5 for k in shown)
    events = move(game, [0, 0], [8, 8])
    assert events_named(events, "thrown")[0]["colours"] == shown


def test_preview_does_not_change_what_a_seed_plays() -> None:
    plain, shown = new(11), new(11, preview=True)
    for _ in range(5):
        v = plain.view(0)
        assert v["board"] == shown.view(0)["board"]
        src, dst = any_move(v["board"])
        assert move(plain, src, dst) == move(shown, src, dst)


# -- records ---------------------------------------------------------------------------


def finish(game: Lines) -> None:
    while game.status is Status.PLAYING:
        src, dst = any_move(game.view(0)["board"])
        move(game, src, dst)


def test_score_entries_only_for_finished_default_games() -> None:
    game = new(2)
    assert game.score_entries() == []
    finish(game)
    (entry,) = game.score_entries()
    assert (entry.table, entry.seat, entry.score) == ("default", 0, game.scores[0])
    result = game.result()
    assert result is not None and result["reason"] in ("no_room", "board_full")
    for options in ({"preview": True}, {"colours": 4}, {"initial": 4}):
        other = new(2, **options)
        assert other.view(0)["eligible"] is False
        finish(other)
        assert other.score_entries() == []


# -- properties -------------------------------------------------------------------------


def any_move(board: list[list[int]], pick: int = 0) -> tuple[list[int], list[int]]:
    """A legal move: the pick-th (chip, reachable empty cell) pair, cyclically.

    Reachability comes from labelling the empty regions, independently of the
    engine's path search.
    """
    h, w = len(board), len(board[0])
    region: dict[tuple[int, int], int] = {}
    for r in range(h):
        for c in range(w):
            if board[r][c] or (r, c) in region:
                continue
            stack = [(r, c)]
            region[(r, c)] = len(region)
            label = region[(r, c)]
            while stack:
                y, x = stack.pop()
                for yy, xx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                    inside = 0 <= yy < h and 0 <= xx < w
                    if inside and not board[yy][xx] and (yy, xx) not in region:
                        region[(yy, xx)] = label
                        stack.append((yy, xx))
    legal = []
    for r in range(h):
        for c in range(w):
            if not board[r][c]:
                continue
            near = {
                region[n] for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if n in region
            }
            legal += [((r, c), cell) for cell, label in region.items() if label in near]
    (sr, sc), (tr, tc) = legal[pick % len(legal)]
    return [sr, sc], [tr, tc]


small_options = st.fixed_dictionaries(
    {
        "width": st.integers(3, 6),
        "height": st.integers(3, 6),
        "colours": st.integers(2, 4),
        "min_line": st.integers(2, 4),
        "throw": st.integers(1, 4),
        "initial": st.integers(1, 6),
        "preview": st.booleans(),
    }
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    options=small_options,
    seed=st.integers(0, 2**16),
    picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=25),
)
def test_random_play_keeps_the_invariants_and_replays_identically(
    options: dict[str, Any], seed: int, picks: list[int]
) -> None:
    game = new(seed, **options)
    twin = new(seed, **options)
    assert no_lines(game)
    score = game.scores[0]
    for pick in picks:
        if game.status is Status.OVER:
            break
        src, dst = any_move(game.view(0)["board"], pick)
        before = chips(game)
        events = move(game, src, dst)
        assert move(twin, src, dst) == events
        assert twin.view(0) == game.view(0)
        thrown = sum(len(e["cells"]) for e in events_named(events, "thrown"))
        removed = sum(e["n"] for e in events_named(events, "removed"))
        assert chips(game) == before + thrown - removed
        score += sum(e["points"] for e in events_named(events, "removed"))
        assert game.scores[0] == score
        assert no_lines(game)
        if game.status is Status.PLAYING:
            assert 0 < chips(game) < game.width * game.height


# -- positions ---------------------------------------------------------------------------


def test_from_position_takes_up_a_game_where_it_stands() -> None:
    game = new(4, preview=True)
    for pick in range(12):
        src, dst = any_move(game.view(0)["board"], pick)
        move(game, src, dst)
    assert game.status is Status.PLAYING
    view = game.view(0)
    state = random.Random()
    state.setstate(game.rng.getstate())
    again = Lines.from_position(
        view["board"],
        score=view["score"],
        streak=view["streak"],
        moves=view["moves"],
        next_colours=view["next"],
        options={"preview": True},
        rng=state,
    )
    assert again.view(0) == view
    for pick in range(12):
        if game.status is Status.OVER:
            break
        src, dst = any_move(game.view(0)["board"], pick)
        assert move(again, src, dst) == move(game, src, dst)
    assert again.view(0) == game.view(0)


def test_from_position_ends_where_it_is_told() -> None:
    over = Lines.from_position([[1, 2, 3]] * 3, end=EndReason.BOARD_FULL, score=7)
    assert over.status is Status.OVER and over.to_move is None
    assert over.result() == {"scores": [7], "winners": [0], "reason": "board_full", "moves": 0}


@pytest.mark.parametrize(
    ("board", "extra"),
    [
        ([[0, 1, 0], [0, 0], [0, 0, 0]], {}),  # ragged
        ([[0, 6, 0]] * 3, {}),  # colour 6 of 5
        ([[0, True, 0]] * 3, {}),
        ([[1, 1, 1]] * 3, {}),  # full, yet in play
        ([[0, 0, 0]] * 3, {}),  # empty, yet in play
        ([[0, 1, 0]] * 3, {"options": {"width": 4}}),
        ([[0, 1, 0]] * 3, {"next_colours": [1, 2]}),  # a throw is 3
        ([[0, 1, 0]] * 3, {"next_colours": [1, 2, 9]}),
        ([[0, 1, 0]] * 3, {"streak": -1}),
    ],
)
def test_from_position_refuses_what_no_game_holds(
    board: list[list[int]], extra: dict[str, Any]
) -> None:
    with pytest.raises(PositionError):
        Lines.from_position(board, **extra)


def test_from_position_checks_the_options() -> None:
    with pytest.raises(OptionError) as err:
        Lines.from_position([[0, 1, 0]] * 3, options={"colours": 1})
    assert err.value.option == "colours"
