"""LinkSame: sizes, stages, every score rule on a fake clock, reshuffles, restarts, determinism."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tilehall.protocol import GameCode, Status
from tilehall.server.games.base import (
    IllegalMove,
    InvalidMove,
    OptionError,
    PositionError,
)
from tilehall.server.games.linksame import SIZES, LinkSame, deal_stage, speed_bonus
from tilehall.server.games.shisensho import find_path, identity_key, movement, solve


def new_game(
    size: str = "easy", stages: int = 9, mode: str = "timed", seed: int = 1, now: float = 0.0
) -> LinkSame:
    options = {"size": size, "stages": stages, "mode": mode}
    return LinkSame(options=options, seats=1, rng=random.Random(seed), now=now)


def parse(*rows: str) -> list[list[int | None]]:
    return [[None if ch == "." else ord(ch) - 65 for ch in row] for row in rows]


def staged(
    *rows: str, size: str = "easy", stages: int = 9, mode: str = "timed", **position: Any
) -> LinkSame:
    """A game in play whose board's top-left corner is ``rows``, the rest empty."""
    height, width = SIZES[size]
    board: list[list[int | None]] = [[None] * width for _ in range(height)]
    for r, row in enumerate(parse(*rows)):
        board[r][: len(row)] = row
    options = {"stages": stages, "mode": mode}
    return LinkSame.from_position(board, options=options, rng=random.Random(1), **position)


def pair(a: tuple[int, int], b: tuple[int, int]) -> dict[str, Any]:
    return {"do": "pair", "a": list(a), "b": list(b)}


def tiles_of(board: list[list[int | None]]) -> list[int]:
    return sorted(t for row in board for t in row if t is not None)


def cells_of(board: list[list[int | None]]) -> set[tuple[int, int]]:
    return {(r, c) for r, row in enumerate(board) for c, t in enumerate(row) if t is not None}


# -- options and deals ---------------------------------------------------------------------


def test_options_and_their_defaults() -> None:
    assert LinkSame.validate_options({}) == {"size": "normal", "stages": 9, "mode": "timed"}
    for bad in ({"size": "huge"}, {"stages": 0}, {"stages": 10}, {"mode": "relaxed"}, {"x": 1}):
        with pytest.raises(OptionError):
            LinkSame.validate_options(bad)


@pytest.mark.parametrize(
    ("size", "rows", "cols"), [("easy", 7, 12), ("normal", 8, 14), ("hard", 9, 16)]
)
def test_sizes_deal_full_boards_of_four_tiles_per_kind(size: str, rows: int, cols: int) -> None:
    game = new_game(size)
    view = game.view(0)
    assert (view["rows"], view["cols"], view["kinds"]) == (rows, cols, rows * cols // 4)
    assert tiles_of(view["board"]) == sorted(k for k in range(rows * cols // 4) for _ in range(4))
    assert view["stage"] == 0 and view["movement"] == "none" and view["score"] == 0
    assert view["shot_deadline"] is None and game.next_deadline() is None
    assert solve(view["board"]).solved


# -- the speed bonus and the shot clock -----------------------------------------------------


@pytest.mark.parametrize(
    ("dt", "bonus"), [(0.0, 15), (0.5, 11), (1, 10), (2, 8), (4, 5), (7, 2), (9.99, 0), (10, 0)]
)
def test_speed_bonus_values(dt: float, bonus: int) -> None:
    assert speed_bonus(dt) == bonus


ROW_PAIRS = ("AABBCCDDEEFF", "GGHHIIJJKKLL")


def test_speed_bonus_on_the_engine_clock() -> None:
    game = staged(*ROW_PAIRS)
    t = 100.0
    got = []
    moves = [((0, c), (0, c + 1)) for c in range(0, 12, 2)] + [((1, 0), (1, 1))]
    for (a, b), dt in zip(moves, [0, 0.5, 1, 2, 4, 7, 9.5], strict=True):
        t += dt
        (event,) = game.act(0, pair(a, b), t)
        got.append((event["bonus"], event["points"]))
    # the stage's first pair earns no bonus, whatever the time
    assert got == [(0, 1), (11, 12), (10, 11), (8, 9), (5, 6), (2, 3), (0, 1)]
    assert game.scores == [sum(p for _, p in got)]


def test_shot_clock_ticks_every_ten_seconds_after_the_first_pair() -> None:
    game = staged(*ROW_PAIRS)
    assert game.advance(50.0) == [] and game.next_deadline() is None  # not started
    game.act(0, pair((0, 0), (0, 1)), 100.0)
    assert game.scores == [1] and game.next_deadline() == 110.0
    assert game.advance(109.9) == []
    assert game.advance(110.0) == [{"e": "shot_clock", "ticks": 1, "points": -1, "score": 0}]
    assert game.next_deadline() == 120.0
    assert game.advance(135.0) == [{"e": "shot_clock", "ticks": 2, "points": -2, "score": -2}]
    view = game.view(0)
    assert view["shot_deadline"] == 140.0 and view["time_left"] == 5.0 and view["now"] == 135.0
    events = game.act(0, pair((0, 2), (0, 3)), 136.0)  # 36 s after the last pair: no bonus
    assert events[0]["bonus"] == 0 and game.scores == [-1]
    assert game.next_deadline() == 146.0


def test_an_action_pays_the_ticks_the_room_has_not_run_yet() -> None:
    game = staged(*ROW_PAIRS)
    game.act(0, pair((0, 0), (0, 1)), 100.0)
    events = game.act(0, pair((0, 2), (0, 3)), 125.0)
    assert [e["e"] for e in events] == ["shot_clock", "removed"]
    assert events[0]["ticks"] == 2 and game.scores == [1 - 2 + 1]


def test_a_pair_ten_seconds_later_pays_the_tick_and_gets_no_bonus() -> None:
    game = staged(*ROW_PAIRS)
    game.act(0, pair((0, 0), (0, 1)), 100.0)
    events = game.act(0, pair((0, 2), (0, 3)), 110.0)
    assert events[0] == {"e": "shot_clock", "ticks": 1, "points": -1, "score": 0}
    assert events[1]["bonus"] == 0 and game.scores == [1]


# -- hints, reshuffles, restarts ------------------------------------------------------------


def test_hint_costs_ten_and_shows_a_solver_pair() -> None:
    game = new_game()
    board = game.view(0)["board"]
    (event,) = game.act(0, {"do": "hint"}, 3.0)
    assert event["e"] == "hint" and event["points"] == -10 and game.scores == [-10]
    a, b = tuple(event["a"]), tuple(event["b"])
    assert board[a[0]][a[1]] == board[b[0]][b[1]]
    assert [list(p) for p in find_path(board, a, b) or []] == event["path"]
    assert game.view(0)["hint"] == {k: event[k] for k in ("a", "b", "path")}
    after = [row[:] for row in board]
    after[a[0]][a[1]] = after[b[0]][b[1]] = None
    assert solve(after).solved
    game.act(0, pair(a, b), 4.0)
    assert game.view(0)["hint"] is None


def test_reshuffle_costs_twenty_and_keeps_cells_and_tiles() -> None:
    game = new_game()
    board = game.view(0)["board"]
    (event,) = game.act(0, {"do": "shuffle"}, 3.0)
    assert event["e"] == "shuffled" and event["free"] is False and event["points"] == -20
    assert game.scores == [-20] and event["board"] == game.view(0)["board"]
    assert tiles_of(event["board"]) == tiles_of(board) and event["board"] != board
    assert solve(event["board"]).solved


CROSSED = ("AB", "BA")


def test_a_stuck_board_is_reshuffled_free_and_stays_solvable() -> None:
    game = staged(*CROSSED, "", "CC")
    events = game.act(0, pair((3, 0), (3, 1)), 5.0)
    assert [e["e"] for e in events] == ["removed", "shuffled"]
    assert events[1]["free"] is True and events[1]["points"] == 0
    board = game.view(0)["board"]
    assert cells_of(board) == {(0, 0), (0, 1), (1, 0), (1, 1)}
    assert tiles_of(board) == [0, 0, 1, 1] and solve(board).solved
    assert game.scores == [1]


@pytest.mark.parametrize("stage", range(1, 9))
def test_free_reshuffles_are_solvable_under_the_stage_rule(stage: int) -> None:
    rule = movement(stage, 7, 12)
    board = deal_stage(7, 12, rule, random.Random(stage))
    game = LinkSame.from_position(board, stage=stage, rng=random.Random(stage))
    for a, b in solve(board, identity_key, rule).moves[:30]:
        game.act(0, pair(a, b), 1.0)
    events = game.act(0, {"do": "shuffle"}, 2.0)
    assert solve(events[0]["board"], identity_key, rule).solved


def test_restart_puts_back_the_stage_board_and_score() -> None:
    deal = deal_stage(7, 12, movement(0, 7, 12), random.Random(1))
    game = LinkSame.from_position(deal, score=40)  # as if an earlier stage had scored
    start = game.view(0)["board"]
    for a, b in solve(start).moves[:5]:
        game.act(0, pair(a, b), 1.0)
    game.act(0, {"do": "hint"}, 2.0)
    assert game.scores != [40]
    assert game.act(0, {"do": "restart"}, 3.0) == [{"e": "restarted", "stage": 0, "score": 40}]
    view = game.view(0)
    assert view["board"] == start and view["score"] == 40 and view["hint"] is None
    assert game.next_deadline() is None
    (event,) = game.act(0, pair(*solve(start).moves[0]), 3.5)
    assert event["bonus"] == 0  # first pair of the stage again


# -- stages and the end -----------------------------------------------------------------------


def play_stage(game: LinkSame, t: float) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    stage = game.view(0)["stage"]
    while game.status is Status.PLAYING and game.view(0)["stage"] == stage:
        a, b = solve(game.view(0)["board"], identity_key, game.rule).moves[0]
        t += 1.0
        events += game.act(0, pair(a, b), t)
    return events


def test_clearing_a_stage_deals_the_next_with_its_movement() -> None:
    game = new_game(stages=2)
    events = play_stage(game, 0.0)
    assert [e["e"] for e in events[-2:]] == ["stage_clear", "stage"]
    assert events[-1] == {"e": "stage", "stage": 1, "movement": "down"}
    view = game.view(0)
    assert view["stage"] == 1 and view["movement"] == "down" and view["tiles_left"] == 84
    assert game.next_deadline() is None  # the new stage's clock waits for its first pair
    assert solve(view["board"], identity_key, movement(1, 7, 12)).solved


def test_completing_every_stage_claims_a_score() -> None:
    game = new_game(stages=1)
    events = play_stage(game, 0.0)
    assert events[-1] == {
        "e": "game_over",
        "reason": "completed",
        "score": game.scores[0],
        "stage": 0,
    }
    assert game.status is Status.OVER and game.next_deadline() is None
    (entry,) = game.score_entries()
    assert (entry.table, entry.seat, entry.score) == ("easy-1", 0, game.scores[0])
    assert game.result() == {
        "scores": game.scores,
        "winners": [0],
        "completed": True,
        "stages_cleared": 1,
        "mode": "timed",
    }
    with pytest.raises(IllegalMove) as err:
        game.act(0, {"do": "hint"}, 1000.0)
    assert err.value.code == GameCode.GAME_OVER


def test_hard_nine_table_name() -> None:
    game = staged("AA", size="hard", stages=9, stage=8)
    game.act(0, pair((0, 0), (0, 1)), 1.0)
    assert [e.table for e in game.score_entries()] == ["hard-9"]


def test_quitting_ends_without_a_score() -> None:
    game = new_game()
    assert game.act(0, {"do": "quit"}, 5.0) == [
        {"e": "game_over", "reason": "quit", "score": 0, "stage": 0}
    ]
    assert game.status is Status.OVER and game.score_entries() == []
    assert game.result()["completed"] is False  # type: ignore[index]


def test_practice_mode_has_no_clock_and_no_score() -> None:
    game = staged(*ROW_PAIRS, mode="practice", stages=1)
    events = game.act(0, pair((0, 0), (0, 1)), 1.0) + game.act(0, pair((0, 2), (0, 3)), 1.5)
    assert [(e["points"], e["bonus"]) for e in events] == [(0, 0), (0, 0)]
    assert game.next_deadline() is None and game.advance(99.0) == []
    assert game.act(0, {"do": "hint"}, 2.0)[0]["points"] == 0
    assert game.act(0, {"do": "shuffle"}, 2.0)[0]["points"] == 0
    assert game.scores == [0] and game.view(0)["shot_deadline"] is None
    play_stage(game, 3.0)
    assert game.status is Status.OVER and game.score_entries() == []


@pytest.mark.parametrize(
    ("stage", "before", "after", "moved"),
    [
        # column 0 holds A B A from row 4 down; A-A goes round by the left margin, B falls
        (1, {(4, 0): 0, (5, 0): 1, (6, 0): 0, (6, 1): 1},
         {(6, 0): 1, (6, 1): 1}, [[[5, 0], [6, 0]]]),
        # row 0: A B A C . . ; the A's go over the top, B and C slide right
        (2, {(0, 0): 0, (0, 1): 1, (0, 2): 0, (0, 3): 2, (1, 11): 1, (2, 11): 2},
         {(0, 10): 1, (0, 11): 2, (1, 11): 1, (2, 11): 2}, [[[0, 3], [0, 11]], [[0, 1], [0, 10]]]),
    ],
)  # fmt: skip
def test_the_engine_slides_by_the_stage_rule(
    stage: int, before: dict, after: dict, moved: list
) -> None:
    board = [[before.get((r, c)) for c in range(12)] for r in range(7)]
    game = LinkSame.from_position(board, stage=stage)
    a, b = [cell for cell, t in before.items() if t == 0]
    (event,) = game.act(0, pair(a, b), 1.0)
    assert event["moved"] == moved
    assert game.view(0)["board"] == [[after.get((r, c)) for c in range(12)] for r in range(7)]


# -- refusals and determinism -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seat", "action", "kind", "code"),
    [
        (1, {"do": "hint"}, IllegalMove, GameCode.NOT_YOUR_TURN),
        (0, {"do": "help"}, InvalidMove, GameCode.UNKNOWN_ACTION),
        (0, {"do": "pair", "b": [0, 0]}, InvalidMove, GameCode.MISSING_FIELD),
        (0, {"do": "pair", "a": [0, 0], "b": [7, 0]}, InvalidMove, GameCode.BAD_CELL),
        (0, {"do": "pair", "a": [0, 0], "b": [True, 0]}, InvalidMove, GameCode.BAD_FIELD),
        (0, {"do": "pair", "a": [0, 1], "b": [0, 1]}, IllegalMove, GameCode.SAME_CELL),
        (0, {"do": "pair", "a": [0, 0], "b": [0, 1]}, IllegalMove, GameCode.NO_MATCH),
        (0, {"do": "pair", "a": [0, 0], "b": [1, 1]}, IllegalMove, GameCode.NO_PATH),
        (0, {"do": "pair", "a": [0, 0], "b": [5, 5]}, IllegalMove, GameCode.EMPTY_CELL),
    ],
)
def test_refusals_change_nothing(seat: int, action: dict, kind: type, code: str) -> None:
    game = staged(*CROSSED, "", "CC")
    game.act(0, {"do": "hint"}, 1.0)
    before = (game.view(0), game.rng.getstate())
    with pytest.raises(kind) as err:
        game.act(seat, action, 50.0)
    assert err.value.code == code
    assert (game.view(0), game.rng.getstate()) == before


cells = st.tuples(st.integers(-1, 7), st.integers(-1, 12)).map(list)
actions = st.one_of(
    st.fixed_dictionaries({"do": st.just("pair"), "a": cells, "b": cells}),
    st.sampled_from([{"do": "hint"}, {"do": "shuffle"}, {"do": "restart"}, {"do": "quit"}]),
    st.just("solver"),  # a real pair from the solver, so boards actually empty
)


@settings(max_examples=30)
@given(
    st.integers(0, 5),
    st.sampled_from(["timed", "practice"]),
    st.lists(st.tuples(actions, st.floats(0, 25)), max_size=30),
)
def test_replays_agree_and_refusals_change_nothing(seed: int, mode: str, script: list) -> None:
    one, two = new_game(seed=seed, mode=mode, stages=2), new_game(seed=seed, mode=mode, stages=2)
    now = 0.0
    for action, dt in script:
        now += dt
        deadline = one.next_deadline()
        if deadline is not None and now >= deadline:
            assert one.advance(now) == two.advance(now)
        if action == "solver":
            if one.status is not Status.PLAYING:
                continue
            a, b = solve(one.view(0)["board"], identity_key, one.rule).moves[0]
            action = pair(a, b)
        before = (one.view(0), one.rng.getstate())
        try:
            events = one.act(0, action, now)
        except (IllegalMove, InvalidMove) as err:
            assert (one.view(0), one.rng.getstate()) == before
            with pytest.raises(type(err)):
                two.act(0, action, now)
        else:
            assert two.act(0, action, now) == events
        assert one.view(None) == two.view(None)


# -- positions -----------------------------------------------------------------------------------


def test_from_position_takes_up_a_game_where_it_stands() -> None:
    game = new_game(seed=4)
    rule = movement(0, 7, 12)
    t = 0.0
    for a, b in solve(game.view(0)["board"], identity_key, rule).moves[:6]:
        t += 4.0
        game.act(0, pair(a, b), t)
    game.advance(t + 25.0)
    view = game.view(0)
    ticks = round((view["shot_deadline"] - view["last_pair"]) / 10) - 1
    again = LinkSame.from_position(
        view["board"],
        score=view["score"],
        last_pair=view["last_pair"],
        ticks=ticks,
        options={"size": "easy"},
        now=view["now"],
    )
    assert ticks == 2 and again.view(0) == view
    a, b = solve(view["board"], identity_key, rule).moves[0]
    assert again.act(0, pair(a, b), t + 31.0) == game.act(0, pair(a, b), t + 31.0)
    assert again.view(0) == game.view(0)


@pytest.mark.parametrize(
    ("board", "extra"),
    [
        ([[0] * 13] * 7, {}),  # no size is 7x13
        ([[21] + [None] * 11] + [[None] * 12] * 6, {}),  # easy has kinds 0..20
        ([[None] * 12] * 7, {}),
        ([[0] + [None] * 11] + [[None] * 12] * 6, {"stage": 9}),
        ([[0] + [None] * 11] + [[None] * 12] * 6, {"options": {"size": "hard"}}),
        ([[0] + [None] * 11] + [[None] * 12] * 6, {"last_pair": 5.0, "now": 1.0}),
        ([[0] + [None] * 11] + [[None] * 12] * 6, {"ticks": 1}),  # ticks without a pair
    ],
)
def test_from_position_refuses_what_no_game_holds(board: list, extra: dict) -> None:
    with pytest.raises(PositionError):
        LinkSame.from_position(board, **extra)
