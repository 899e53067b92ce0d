"""Clocks that stop: the time a game is paused never counts, and a replay pauses exactly.

Match-It's sheet deadline, LinkSame's shot clock and Mathable's turn clock,
each paused and resumed at random times, against the same game never paused:
every deadline moves on by exactly the time paused.
"""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tilehall.protocol import GameCode
from tilehall.server.games import find_game
from tilehall.server.games.base import RESUME, START, IllegalMove, Pause, away, step

from tests.tables import entry, table

T0 = 1_800_000_000.0


def new(game: str, seed: int = 3, **options):
    cls = find_game(game)
    seats = 2 if game == "mathable" else 1
    return cls(options=options, seats=seats, rng=random.Random(seed), now=T0)


@pytest.mark.slow
@given(st.floats(1, 300), st.floats(0.5, 5000))
def test_matchit_deadline_moves_on_by_the_time_paused(before, gap):
    game = new("matchit")
    deadline = game.next_deadline()
    events = game.pause(T0 + before, Pause.AWAY)
    assert events[-1] == {"e": "paused", "why": "away"}
    assert game.next_deadline() is None and game.advance(T0 + 10**6) == []
    view = game.view(None)
    assert view["paused"] == "away" and view["board"] is None and view["deadline"] is None
    assert view["time_left"] == pytest.approx(deadline - (T0 + before))
    assert game.resume(T0 + before + gap) == [{"e": "resumed", "paused_for": round(gap, 3)}]
    assert game.next_deadline() == pytest.approx(deadline + gap)
    assert game.view(0)["board"] is not None and game.view(0)["paused"] is None


def test_while_paused_only_resume_is_accepted():
    game = new("matchit")
    game.act(0, {"do": "pause"}, T0 + 1)
    assert game.paused is Pause.PLAYER
    for action in ({"do": "help"}, {"do": "pause"}, {"do": "quit"}):
        with pytest.raises(IllegalMove) as refused:
            game.act(0, action, T0 + 2)
        assert refused.value.code == GameCode.PAUSED
    game.act(0, {"do": "resume"}, T0 + 50)
    with pytest.raises(IllegalMove) as refused:
        game.act(0, {"do": "resume"}, T0 + 51)
    assert refused.value.code == GameCode.NOT_PAUSED


def test_a_pause_after_the_deadline_plays_the_time_out_first():
    game = new("matchit")
    lives = game.view(0)["lives"]
    events = game.pause(game.next_deadline() + 1, Pause.AWAY)
    assert [e["e"] for e in events][:2] == ["time_out", "life_lost"]
    assert events[-1]["e"] == "paused" and game.view(0)["lives"] == lives - 1


def test_linksame_charges_no_shot_clock_point_while_paused():
    game = new("linksame", size="easy")
    view = game.view(0)
    pair = next(
        (a, b)
        for a in ((r, c) for r in range(view["rows"]) for c in range(view["cols"]))
        for b in ((r, c) for r in range(view["rows"]) for c in range(view["cols"]))
        if a < b
        and view["board"][a[0]][a[1]] is not None
        and view["board"][a[0]][a[1]] == view["board"][b[0]][b[1]]
        and _connects(game, a, b)
    )
    game.act(0, {"do": "pair", "a": list(pair[0]), "b": list(pair[1])}, T0 + 1)
    score = game.scores[0]
    shot = game.next_deadline()
    game.act(0, {"do": "pause"}, T0 + 2)
    assert game.advance(T0 + 1000) == []  # a quarter of an hour away: nothing charged
    assert game.view(None)["board"] is None and game.view(None)["hint"] is None
    game.act(0, {"do": "resume"}, T0 + 1002)
    assert game.scores[0] == score
    assert game.next_deadline() == pytest.approx(shot + 1000)


def _connects(game, a, b) -> bool:
    """Whether the pair would be taken (tried on a copy)."""
    trial = copy.deepcopy(game)
    try:
        trial.act(0, {"do": "pair", "a": list(a), "b": list(b)}, T0 + 1)
    except IllegalMove:
        return False
    return True


@given(st.floats(1, 100), st.floats(1, 1000))
def test_mathable_turn_clock_stands_still_while_everyone_is_away(before, gap):
    game = new("mathable", turn_seconds=60)
    deadline = game.next_deadline()
    game.pause(T0 + before, Pause.AWAY)
    assert game.advance(T0 + 10**6) == [] and game.view(None)["deadline"] is None
    game.resume(T0 + before + gap)
    assert game.next_deadline() == pytest.approx(deadline + gap)


def test_games_without_a_clock_to_stop_say_so():
    for name in ("lines", "ishido"):
        game = new(name)
        with pytest.raises(IllegalMove) as refused:
            game.pause(T0 + 1, Pause.AWAY)
        assert refused.value.code == GameCode.NOT_PAUSABLE


def test_mathable_stand_ins_are_shown_and_kept_out_of_the_hall_of_fame():
    game = new("mathable")
    assert game.stand_in(1, T0 + 5) == [{"e": "stand_in", "seat": 1}]
    assert game.view(None)["standins"] == [1] and game.stood_in_seats == {1}
    assert game.stand_back(1, T0 + 9) == [{"e": "stand_back", "seat": 1}]
    assert game.view(None)["standins"] == []
    game.act(0, {"do": "quit", "vote": True}, T0 + 10)
    game.act(1, {"do": "quit", "vote": True}, T0 + 11)
    assert {e.seat for e in game.score_entries()} == {0}, "seat 1 was stood in for"


@pytest.mark.slow
@given(
    st.lists(st.tuples(st.sampled_from(["pause", "resume", "help"]), st.floats(0, 40)), max_size=12)
)
def test_pauses_in_the_journal_replay_exactly(script):
    """Whatever the order of pauses, resumes and moves, the journal rebuilds the same game."""
    live = None
    journal: list[tuple[int | None, dict, float]] = [(None, START, T0)]
    record = table("matchit", seed=9)
    live, _ = step(find_game(record.game), record, None, entry(None, START, T0))
    now = T0
    for kind, dt in script:
        now += dt
        done = (
            (None, away(), now)
            if kind == "pause"
            else (None, RESUME, now)
            if kind == "resume"
            else (0, {"do": "help"}, now)
        )
        try:
            step(find_game(record.game), record, live, entry(*done))
        except IllegalMove:
            continue  # refused: not journaled
        journal.append(done)
    copy = None
    for seat, action, at in journal:
        copy, _ = step(find_game(record.game), record, copy, entry(seat, action, at))
    assert copy.view(0) == live.view(0)
