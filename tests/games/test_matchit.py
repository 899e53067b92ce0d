"""Match-It: matching, every score rule on a fake clock, lives, helps, sheets, determinism."""

from __future__ import annotations

import random
import statistics
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tilehall.protocol import GameCode, Status
from tilehall.server.games.base import IllegalMove, InvalidMove, PositionError
from tilehall.server.games.matchit import (
    COLS,
    KIND_COUNTS,
    ROWS,
    MatchIt,
    deal_sheet,
    earns_help,
    match_key,
    sheet_seconds,
)
from tilehall.server.games.shisensho import board_from_cells, find_path, playable_pairs, solve

PLUM, ORCHID, CHRYS, BAMBOO_FLOWER = 34, 35, 36, 37
SPRING, SUMMER, AUTUMN, WINTER = 38, 39, 40, 41


def new_game(seed: int = 1, now: float = 0.0) -> MatchIt:
    return MatchIt(options={}, seats=1, rng=random.Random(seed), now=now)


def game_on(cells: dict[tuple[int, int], int], seed: int = 1, **position: Any) -> MatchIt:
    """A game in play on a sheet holding ``cells`` (cell to tile) and nothing else."""
    board = board_from_cells(ROWS, COLS, cells)
    return MatchIt.from_position(board, rng=random.Random(seed), **position)


def pair(a: tuple[int, int], b: tuple[int, int]) -> dict[str, Any]:
    return {"do": "pair", "a": list(a), "b": list(b)}


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["e"] for e in events]


# -- rules in brief ----------------------------------------------------------------------


def test_sheet_time_falls_by_twenty_to_two_hundred() -> None:
    assert [sheet_seconds(n) for n in (1, 2, 3, 10, 11, 12, 40)] == [
        400, 380, 360, 220, 200, 200, 200,
    ]  # fmt: skip


def test_a_help_every_third_level() -> None:
    assert [n for n in range(1, 13) if earns_help(n)] == [3, 6, 9, 12]


def test_tile_set() -> None:
    assert len(KIND_COUNTS) == 42 and sum(KIND_COUNTS.values()) == ROWS * COLS == 96
    assert sorted(k for k, n in KIND_COUNTS.items() if n == 4) == [27, 28, 30, 31, 32, 33]
    assert {match_key(t) for t in range(34, 38)} == {34}
    assert {match_key(t) for t in range(38, 42)} == {38}
    assert len({match_key(t) for t in range(42)}) == 36


def test_new_game_view() -> None:
    game = new_game(now=10.0)
    view = game.view(0)
    assert view["game"] == "matchit" and view["status"] == Status.PLAYING and view["to_move"] == 0
    assert (view["rows"], view["cols"]) == (6, 16)
    counts: dict[int, int] = {}
    for row in view["board"]:
        for t in row:
            counts[t] = counts.get(t, 0) + 1
    assert counts == KIND_COUNTS
    assert (view["level"], view["lives"], view["helps"], view["score"]) == (1, 3, 3, 0)
    assert view["deadline"] == 410.0 and view["time_left"] == 400.0 and view["now"] == 10.0
    assert view["pedigree"] is True and view["margins_used"] == []
    assert game.next_deadline() == 410.0
    assert solve(view["board"], match_key).solved


# -- matching ------------------------------------------------------------------------------


def test_any_flower_matches_any_flower_and_costs_the_pedigree() -> None:
    game = game_on({(0, 0): PLUM, (0, 1): ORCHID, (3, 0): SPRING, (3, 1): WINTER})
    events = game.act(0, pair((0, 0), (0, 1)), 5.0)
    assert events[0]["e"] == "removed" and events[0]["tiles"] == [PLUM, ORCHID]
    assert events[0]["points"] == 2 and game.view(0)["pedigree"] is False


def test_any_season_matches_any_season() -> None:
    game = game_on({(0, 0): SUMMER, (0, 5): AUTUMN, (4, 4): 3, (4, 5): 3})
    events = game.act(0, pair((0, 0), (0, 5)), 5.0)
    assert events[0]["e"] == "removed" and events[0]["path"] == [[0, 0], [0, 5]]


def test_identical_flowers_keep_the_pedigree() -> None:
    game = game_on({(0, 0): CHRYS, (0, 1): CHRYS, (3, 0): 7, (3, 1): 7})
    game.act(0, pair((0, 0), (0, 1)), 5.0)
    assert game.view(0)["pedigree"] is True


def test_a_flower_does_not_match_a_season() -> None:
    game = game_on({(0, 0): PLUM, (0, 1): SPRING})
    with pytest.raises(IllegalMove) as err:
        game.act(0, pair((0, 0), (0, 1)), 5.0)
    assert err.value.code == GameCode.NO_MATCH


# -- every score rule -------------------------------------------------------------------------


CROSSED = {(2, 2): 5, (2, 3): 6, (3, 2): 6, (3, 3): 5}  # neither pair has a path


def test_a_pair_scores_two_and_draws_its_path() -> None:
    game = game_on({(0, 0): 7, (0, 5): 7, (5, 0): 8, (5, 1): 8})
    events = game.act(0, pair((0, 5), (0, 0)), 5.0)
    assert events == [
        {
            "e": "removed",
            "a": [0, 5],
            "b": [0, 0],
            "tiles": [7, 7],
            "path": [[0, 5], [0, 0]],
            "points": 2,
            "margins": [],
            "help": False,
        }
    ]
    assert game.scores == [2] and game.view(0)["tiles_left"] == 2


def test_a_pair_without_a_path_costs_one_and_stays() -> None:
    game = game_on(CROSSED)
    events = game.act(0, pair((2, 2), (3, 3)), 5.0)
    assert events == [{"e": "no_path", "a": [2, 2], "b": [3, 3], "points": -1}]
    assert game.scores == [-1] and game.view(0)["tiles_left"] == 4


def test_highlight_costs_four_and_lists_the_matching_tiles() -> None:
    game = new_game()
    board = game.view(0)["board"]
    flowers = sorted(
        [r, c] for r in range(ROWS) for c in range(COLS) if board[r][c] in range(34, 38)
    )
    at = flowers[0]
    events = game.act(0, {"do": "highlight", "at": at}, 5.0)
    assert events == [{"e": "highlight", "at": at, "cells": flowers, "points": -4}]
    assert len(flowers) == 8 and game.scores == [-4]


def test_help_removes_a_pair_that_keeps_the_sheet_clearable_for_no_points() -> None:
    game = new_game()
    before = game.view(0)["board"]
    events = game.act(0, {"do": "help"}, 5.0)
    assert events[0]["e"] == "removed" and events[0]["help"] is True
    assert events[0]["points"] == 0 and events[0]["helps"] == 2
    (ar, ac), (br, bc) = events[0]["a"], events[0]["b"]
    assert match_key(before[ar][ac]) == match_key(before[br][bc])
    assert find_path(before, (ar, ac), (br, bc), avoid_margin=True) == [
        tuple(p) for p in events[0]["path"]
    ]
    assert game.scores == [0] and game.view(0)["helps"] == 2
    assert solve(game.view(0)["board"], match_key).solved


def test_help_prefers_a_pair_that_keeps_the_pedigree() -> None:
    for seed in range(10):  # by chance alone: one seed in three
        cells = {(0, 0): PLUM, (0, 1): ORCHID, (2, 0): SPRING, (2, 1): SUMMER}
        game = game_on({**cells, (4, 0): 7, (4, 1): 7}, seed)
        (event,) = game.act(0, {"do": "help"}, 5.0)
        assert event["tiles"] == [7, 7] and game.view(0)["pedigree"] is True


def test_helps_run_out() -> None:
    game = new_game()
    for _ in range(3):
        game.act(0, {"do": "help"}, 5.0)
    with pytest.raises(IllegalMove) as err:
        game.act(0, {"do": "help"}, 5.0)
    assert err.value.code == GameCode.NO_HELPS


def test_help_says_when_no_pair_exists_and_keeps_the_help() -> None:
    game = game_on(CROSSED)
    assert game.act(0, {"do": "help"}, 5.0) == [{"e": "no_pairs", "helps": 3}]
    assert game.view(0)["helps"] == 3


# Removing (0,0)-(0,2) needs the top margin; then 9-9 touch; then 10-10 see each other.
SMALL_SHEET = {(0, 0): 4, (0, 1): 9, (0, 2): 4, (1, 0): 10, (1, 1): 9, (1, 2): 10}


def clear_small_sheet(game: MatchIt, now: float) -> list[dict[str, Any]]:
    events = game.act(0, pair((0, 0), (0, 2)), now)
    events += game.act(0, pair((0, 1), (1, 1)), now)
    return events + game.act(0, pair((1, 0), (1, 2)), now)


def test_sheet_bonus_with_the_top_margin_used() -> None:
    game = game_on(SMALL_SHEET)
    events = clear_small_sheet(game, 100.5)
    assert events[0]["path"] == [[0, 0], [-1, 0], [-1, 2], [0, 2]]
    assert events[0]["margins"] == ["top"]
    clear = next(e for e in events if e["e"] == "sheet_clear")
    assert clear["bonus"] == {
        "time": 299,  # 400 - 100.5, whole seconds
        "lives": 30,
        "level": 2,
        "helps": 6,
        "pedigree": 50,
        "internal": 40,  # left 10 + right 10 + bottom 20
    }
    assert clear["points"] == 299 + 30 + 2 + 6 + 50 + 40
    assert game.scores == [6 + clear["points"]]


def test_internal_bonus_is_four_hundred_when_no_margin_is_used() -> None:
    game = game_on({(2, 2): 4, (2, 3): 4, (3, 2): 5, (3, 3): 5})
    events = game.act(0, pair((2, 2), (2, 3)), 10.0) + game.act(0, pair((3, 2), (3, 3)), 10.0)
    clear = next(e for e in events if e["e"] == "sheet_clear")
    assert clear["bonus"]["internal"] == 400 and clear["bonus"]["pedigree"] == 50


def test_internal_bonus_per_side_and_pedigree_lost() -> None:
    # (0,0)-(2,0) only via the left margin; then two different flowers.
    game = game_on(
        {(0, 0): 3, (1, 0): 8, (2, 0): 3, (0, 1): 8, (1, 1): 8, (2, 1): 8, (5, 7): PLUM}
        | {(5, 8): BAMBOO_FLOWER}
    )
    events = game.act(0, pair((0, 0), (2, 0)), 50.0)
    assert events[0]["margins"] == ["left"]
    events = game.act(0, pair((5, 7), (5, 8)), 50.0)
    events += game.act(0, pair((1, 0), (0, 1)), 50.0)
    events += game.act(0, pair((1, 1), (2, 1)), 50.0)
    clear = next(e for e in events if e["e"] == "sheet_clear")
    assert clear["bonus"]["internal"] == 10 + 20 + 20  # right, top, bottom unused
    assert clear["bonus"]["pedigree"] == 0


def test_a_cleared_sheet_starts_the_next_level() -> None:
    game = game_on(SMALL_SHEET)
    events = clear_small_sheet(game, 100.0)
    sheet = events[-1]
    assert sheet["e"] == "sheet" and sheet["level"] == 2 and sheet["sheet_time"] == 380
    assert sheet["deadline"] == 480.0
    view = game.view(0)
    assert view["level"] == 2 and view["tiles_left"] == 96 and view["sheets"] == 1
    assert view["pedigree"] is True and view["margins_used"] == []


def test_reaching_every_third_level_adds_a_help_up_to_nine() -> None:
    game = game_on(SMALL_SHEET, level=2)
    clear_small_sheet(game, 1.0)
    assert game.view(0)["level"] == 3 and game.view(0)["helps"] == 4
    # The same game on a small sheet again, at the level and helps it reached.
    game = game_on(SMALL_SHEET, level=3, helps=4)
    clear_small_sheet(game, 2.0)
    assert game.view(0)["helps"] == 4  # level 4
    game = game_on(SMALL_SHEET, level=5, helps=9)
    clear_small_sheet(game, 3.0)
    assert game.view(0)["level"] == 6 and game.view(0)["helps"] == 9


# -- the clock, lives and the end ------------------------------------------------------------


def test_time_out_costs_a_life_and_replays_the_level() -> None:
    game = new_game(now=0.0)
    first = game.view(0)["board"]
    assert game.advance(399.9) == []
    events = game.advance(400.0)
    assert kinds(events) == ["time_out", "life_lost", "sheet"]
    assert events[1] == {"e": "life_lost", "reason": "time_out", "lives": 2}
    assert events[2]["level"] == 1 and events[2]["deadline"] == 800.0
    view = game.view(0)
    assert view["lives"] == 2 and view["level"] == 1 and view["board"] != first
    assert view["time_left"] == 400.0 and game.next_deadline() == 800.0


def test_losing_the_last_life_ends_the_game() -> None:
    game = new_game(now=0.0)
    game.advance(400.0)
    game.advance(800.0)
    events = game.advance(1200.0)
    assert kinds(events) == ["time_out", "life_lost", "game_over"]
    assert events[-1]["reason"] == "lives"
    assert game.status is Status.OVER and game.next_deadline() is None and game.to_move is None
    assert game.view(0)["time_left"] == 0.0
    (entry,) = game.score_entries()
    assert entry.table == "top" and entry.seat == 0 and entry.score == game.scores[0]
    assert game.result() == {
        "scores": game.scores,
        "winners": [0],
        "level": 1,
        "sheets": 0,
        "reason": "lives",
    }
    with pytest.raises(IllegalMove) as err:
        game.act(0, {"do": "help"}, 1201.0)
    assert err.value.code == GameCode.GAME_OVER


def test_acting_after_the_deadline_is_refused_until_the_clock_runs() -> None:
    game = new_game(now=0.0)
    with pytest.raises(IllegalMove) as err:
        game.act(0, {"do": "help"}, 400.0)
    assert err.value.code == GameCode.TIME_UP
    assert game.view(0)["helps"] == 3


def test_a_stuck_sheet_costs_a_life_at_once() -> None:
    game = game_on({**CROSSED, (0, 0): 7, (0, 1): 7})
    events = game.act(0, pair((0, 0), (0, 1)), 30.0)
    assert kinds(events) == ["removed", "stuck", "life_lost", "sheet"]
    assert events[2]["reason"] == "stuck"
    assert events[3]["deadline"] == 430.0
    assert game.view(0)["lives"] == 2 and game.view(0)["tiles_left"] == 96


def test_giving_up_costs_a_life_and_deals_again() -> None:
    game = new_game()
    events = game.act(0, {"do": "giveup"}, 20.0)
    assert kinds(events) == ["giveup", "life_lost", "sheet"]
    assert game.view(0)["lives"] == 2 and game.view(0)["level"] == 1


def test_quit_ends_the_game_and_keeps_the_score() -> None:
    game = game_on({(0, 0): 7, (0, 1): 7, (3, 3): 8, (3, 4): 8})
    game.act(0, pair((0, 0), (0, 1)), 1.0)
    events = game.act(0, {"do": "quit"}, 2.0)
    assert events == [{"e": "game_over", "reason": "quit", "score": 2, "level": 1, "sheets": 0}]
    assert game.status is Status.OVER
    assert [(e.table, e.score) for e in game.score_entries()] == [("top", 2)]


def test_no_score_entry_while_playing() -> None:
    assert new_game().score_entries() == []


# -- refusals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seat", "action", "kind", "code"),
    [
        (1, {"do": "help"}, IllegalMove, GameCode.NOT_YOUR_TURN),
        (0, {"do": "fly"}, InvalidMove, GameCode.UNKNOWN_ACTION),
        (0, {"x": 1}, InvalidMove, GameCode.MISSING_FIELD),
        (0, {"do": "pair", "a": [0, 0]}, InvalidMove, GameCode.MISSING_FIELD),
        (0, {"do": "pair", "a": [0, 0], "b": [6, 0]}, InvalidMove, GameCode.BAD_CELL),
        (0, {"do": "pair", "a": [0, 0], "b": "x"}, InvalidMove, GameCode.BAD_FIELD),
        (0, {"do": "pair", "a": [0, 0], "b": [0, 0]}, IllegalMove, GameCode.SAME_CELL),
        (0, {"do": "highlight", "at": [0, 16]}, InvalidMove, GameCode.BAD_CELL),
    ],
)
def test_refusals(seat: int, action: dict, kind: type, code: str) -> None:
    game = new_game()
    before = game.view(0)
    with pytest.raises(kind) as err:
        game.act(seat, action, 5.0)
    assert err.value.code == code
    assert game.view(0) == before


def test_empty_cells_are_refused() -> None:
    game = game_on({(0, 0): 7, (0, 3): 7})
    for action in (pair((0, 0), (0, 1)), {"do": "highlight", "at": [4, 4]}):
        with pytest.raises(IllegalMove) as err:
            game.act(0, action, 5.0)
        assert err.value.code == GameCode.EMPTY_CELL


def snapshot(game: MatchIt) -> tuple:
    return (game.view(0), game.rng.getstate(), game.next_deadline())


cells = st.lists(st.integers(0, 20), min_size=2, max_size=2).map(lambda x: [x[0] - 2, x[1] - 2])
actions = st.one_of(
    st.fixed_dictionaries({"do": st.just("pair"), "a": cells, "b": cells}),
    st.fixed_dictionaries({"do": st.just("highlight"), "at": cells}),
    st.just({"do": "help"}),
    st.just({"do": "giveup"}),
    st.just({"do": "quit"}),
    st.fixed_dictionaries({"do": st.sampled_from(["pair", "jump", 3])}),
)


@pytest.mark.slow
@settings(max_examples=40)
@given(st.integers(0, 3), st.lists(st.tuples(actions, st.floats(0, 150)), max_size=25))
def test_refused_actions_change_nothing_and_replays_agree(seed: int, script: list) -> None:
    one, two = new_game(seed), new_game(seed)
    now = 0.0
    for action, dt in script:
        now += dt
        for game in (one, two):
            deadline = game.next_deadline()
            if deadline is not None and now >= deadline:
                game.advance(now)
        before = snapshot(one)
        try:
            events = one.act(0, action, now)
        except (IllegalMove, InvalidMove) as err:
            assert snapshot(one) == before
            with pytest.raises(type(err)):
                two.act(0, action, now)
        else:
            assert two.act(0, action, now) == events
        assert one.view(None) == two.view(None)
        assert one.rng.getstate() == two.rng.getstate()


def test_a_whole_sheet_played_from_the_solver_replays_identically() -> None:
    def play(seed: int) -> list:
        game = new_game(seed)
        log = []
        t = 0.0
        for a, b in solve(game.view(0)["board"], match_key).moves:
            t += 1.5
            log += game.act(0, pair(a, b), t)
        return [log, game.view(0)]

    assert play(9) == play(9)


# -- difficulty -------------------------------------------------------------------------------


def test_higher_levels_deal_harder_sheets_on_average() -> None:
    rng = random.Random(77)

    def mean_difficulty(level: int) -> float:
        from tilehall.server.games.matchit import sheet_difficulty

        scores = []
        for _ in range(25):
            board, solution = deal_sheet(level, rng)
            scores.append(sheet_difficulty(board, solution).score)
        return statistics.mean(scores)

    easy, middle, hard = mean_difficulty(1), mean_difficulty(5), mean_difficulty(10)
    assert easy < middle < hard
    assert hard - easy > 4  # about two standard deviations of one sheet


def test_the_view_reports_the_sheets_difficulty() -> None:
    game = new_game()
    assert isinstance(game.view(0)["difficulty"], int)
    assert playable_pairs(game.view(0)["board"], match_key)


# -- positions ---------------------------------------------------------------------------------


def test_from_position_takes_up_a_game_where_it_stands() -> None:
    game = new_game(3, now=10.0)
    for a, b in solve(game.view(0)["board"], match_key).moves[:10]:
        game.act(0, pair(a, b), 20.0)
    board = game.view(0)["board"]
    at = next([r, c] for r in range(ROWS) for c in range(COLS) if board[r][c] is not None)
    game.act(0, {"do": "highlight", "at": at}, 21.0)
    view = game.view(0)
    again = MatchIt.from_position(
        view["board"],
        level=view["level"],
        lives=view["lives"],
        helps=view["helps"],
        score=view["score"],
        sheets=view["sheets"],
        deadline=view["deadline"],
        pedigree=view["pedigree"],
        margins=view["margins_used"],
        now=view["now"],
    )
    # The difficulty measures a dealt sheet; a position is measured as it stands.
    assert {**again.view(0), "difficulty": 0} == {**view, "difficulty": 0}
    for a, b in solve(view["board"], match_key).moves[:5]:
        assert again.act(0, pair(a, b), 30.0) == game.act(0, pair(a, b), 30.0)
    assert again.advance(1000.0)[:2] == game.advance(1000.0)[:2]


@pytest.mark.parametrize(
    ("board", "counters"),
    [
        (board_from_cells(ROWS - 1, COLS, {(0, 0): 7}), {}),
        (board_from_cells(ROWS, COLS + 1, {(0, 0): 7}), {}),
        (board_from_cells(ROWS, COLS, {(0, 0): 42}), {}),
        # by hand: compiled (the mypyc build), board_from_cells stores True as the int 1
        ([[True, *[None] * (COLS - 1)], *[[None] * COLS for _ in range(ROWS - 1)]], {}),
        (board_from_cells(ROWS, COLS, {}), {}),  # a cleared sheet is never in play
        (board_from_cells(ROWS, COLS, {(0, 0): 7}), {"lives": 0}),
        (board_from_cells(ROWS, COLS, {(0, 0): 7}), {"level": 0}),
        (board_from_cells(ROWS, COLS, {(0, 0): 7}), {"helps": 10}),
        (board_from_cells(ROWS, COLS, {(0, 0): 7}), {"deadline": 5.0, "now": 5.0}),
    ],
)
def test_from_position_refuses_what_no_game_holds(board: list, counters: dict) -> None:
    with pytest.raises(PositionError):
        MatchIt.from_position(board, **counters)
