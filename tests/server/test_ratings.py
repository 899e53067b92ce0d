"""Glicko-2 as tilehall.server.ratings computes it: the paper's example, then its properties.

The worked example is Glickman's "Example of the Glicko-2 system": a player at
1500/200/0.06 plays three games in one period. The paper rounds its
intermediate values to four places, so its results are met to that precision.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tilehall.server.bots import bot_levels
from tilehall.server.ratings import (
    BOT_RD,
    SCALE,
    RatedGame,
    Rating,
    Seat,
    _g,
    board_cursor,
    board_position,
    bot_rating,
    bot_ratings,
    describe,
    expected,
    is_rated,
    rate,
    rate_game,
    rated_games,
)

PLAYER = Rating(1500, 200, 0.06)
OPPONENTS = [Rating(1400, 30), Rating(1550, 100), Rating(1700, 300)]
OUTCOMES = [1.0, 0.0, 0.0]


def test_the_papers_example_step_by_step():
    # step 3's table: g(phi_j) and E(mu, mu_j, phi_j) of each opponent
    assert [round(_g(o.rd / SCALE), 4) for o in OPPONENTS] == [0.9955, 0.9531, 0.7242]
    assert [round(expected(PLAYER, o), 3) for o in OPPONENTS] == [0.639, 0.432, 0.303]
    after = rate(PLAYER, zip(OPPONENTS, OUTCOMES, strict=True))
    # step 8 on the Glicko-2 scale, then on the Glicko scale
    assert (after.rating - 1500) / SCALE == pytest.approx(-0.2069, abs=5e-5)
    assert after.rd / SCALE == pytest.approx(0.8722, abs=5e-5)
    assert after.vol == pytest.approx(0.05999, abs=1e-5)  # the paper truncates 0.059996
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.rd == pytest.approx(151.52, abs=0.01)


def test_a_new_player_starts_at_1500_350_006():
    assert Rating() == Rating(1500.0, 350.0, 0.06)


def test_nonsense_is_refused():
    with pytest.raises(ValueError):
        Rating(1500, 0, 0.06)
    with pytest.raises(ValueError):
        Rating(math.nan)
    with pytest.raises(ValueError):
        rate(Rating(), [(Rating(), 2.0)])


# -- properties ----------------------------------------------------------------------------

ratings = st.builds(
    Rating,
    st.floats(500, 2500),
    st.floats(30, 350),
    st.floats(0.01, 0.2),
)
outcomes = st.sampled_from([0.0, 0.5, 1.0])
periods = st.lists(st.tuples(ratings, outcomes), min_size=1, max_size=6)


@given(ratings, ratings)
def test_a_win_never_lowers_a_rating_and_a_loss_never_raises_it(player, opponent):
    assert rate(player, [(opponent, 1.0)]).rating > player.rating
    assert rate(player, [(opponent, 0.0)]).rating < player.rating


@given(ratings, periods, st.data())
def test_a_better_result_never_gives_a_lower_rating(player, games, data):
    i = data.draw(st.integers(0, len(games) - 1))
    opponent, outcome = games[i]
    if outcome == 1.0:
        return
    better = [*games[:i], (opponent, outcome + 0.5), *games[i + 1 :]]
    assert rate(player, better).rating >= rate(player, games).rating - 1e-9


@given(ratings, periods)
def test_games_never_leave_the_deviation_above_a_period_without_them(player, games):
    """Playing makes a rating surer than not playing, with the same volatility.

    Not "the deviation never grows": it may, a little, for a settled player whose
    opponents say little (see the next test).
    """
    after = rate(player, games)
    assert after.rd < math.hypot(player.rd, after.vol * SCALE)
    assert after.rd > 0 and after.vol > 0 and math.isfinite(after.rating)


def test_a_settled_player_against_an_unknown_one_grows_a_little_less_sure():
    """The volatility widens the deviation before the game narrows it: against an
    opponent of deviation 350 the game narrows it by less than that widening."""
    settled = Rating(1500, 30, 0.06)
    after = rate(settled, [(Rating(1500, 350), 0.5)])
    assert 30 < after.rd < rate(settled, []).rd


def test_with_one_game_a_period_the_deviation_settles_near_60():
    """Where one game's information balances one period's volatility: a new player's
    deviation falls to it, and one below it rises to it. A regular player is about as
    sure as a bot level's fixed 50, never much surer."""
    new, sure = Rating(), Rating(1500, 30)
    for _ in range(200):
        new = rate(new, [(Rating(1500, 50), 0.5)])
        sure = rate(sure, [(Rating(1500, 50), 0.5)])
    assert 55 < new.rd < 65
    assert sure.rd == pytest.approx(new.rd, abs=0.1)


@given(ratings)
def test_an_unplayed_period_raises_the_deviation_by_the_volatility(player):
    after = rate(player, [])
    assert after.rating == player.rating and after.vol == player.vol
    assert after.rd == pytest.approx(math.sqrt(player.rd**2 + (player.vol * SCALE) ** 2))


@given(ratings, periods)
def test_outcomes_mirror(player, games):
    """Reflect every rating about 1500 and every outcome about a draw: the new rating
    is the reflection of the old one's result."""
    mirrored = [(Rating(3000 - o.rating, o.rd), 1 - s) for o, s in games]
    after = rate(player, games)
    reflected = rate(Rating(3000 - player.rating, player.rd, player.vol), mirrored)
    assert reflected.rating == pytest.approx(3000 - after.rating, abs=1e-6)
    assert reflected.rd == pytest.approx(after.rd, rel=1e-6)
    assert reflected.vol == pytest.approx(after.vol, rel=1e-6)


@given(ratings)
def test_between_equals_a_win_gains_what_the_loss_loses_and_a_draw_moves_nothing(player):
    won, lost = rate(player, [(player, 1.0)]), rate(player, [(player, 0.0)])
    assert won.rating - player.rating == pytest.approx(player.rating - lost.rating)
    assert rate(player, [(player, 0.5)]).rating == pytest.approx(player.rating)


@given(ratings, periods, st.randoms())
def test_the_order_of_a_periods_games_does_not_matter(player, games, rng):
    shuffled = list(games)
    rng.shuffle(shuffled)
    after, again = rate(player, games), rate(player, shuffled)
    assert again.rating == pytest.approx(after.rating)
    assert again.rd == pytest.approx(after.rd)


@pytest.mark.slow
@given(ratings, ratings)
def test_an_upset_moves_more_than_an_expected_result(player, opponent):
    """Beating a stronger opponent gains more than beating a weaker one of the same deviation."""
    stronger = Rating(player.rating + 200, opponent.rd)
    weaker = Rating(player.rating - 200, opponent.rd)
    assert rate(player, [(stronger, 1.0)]).rating > rate(player, [(weaker, 1.0)]).rating


# -- games ---------------------------------------------------------------------------------


def test_every_rated_game_publishes_a_rating_for_each_of_its_bot_levels():
    for game in rated_games():
        assert set(bot_ratings(game)) == set(bot_levels(game)), game
    # The numbers are the calibration's (tests/bench/test_calibrate.py); here only their
    # shape: normal is the anchor at 1500, and each level is stronger than the one before.
    easy, normal, hard = (bot_rating("mathable", lvl).rating for lvl in ("easy", "normal", "hard"))
    assert easy < normal == 1500 < hard
    assert bot_rating("mathable", "hard").rd == BOT_RD == 50
    assert is_rated("mathable") and not is_rated("ishido")
    assert describe("ishido") == {"rated": False}
    assert describe("mathable")["bot_ratings"]["easy"] == {"rating": easy, "rd": 50.0}


def game(*seats: Seat) -> RatedGame:
    return RatedGame(game="mathable", room="r1", seats=seats)


def test_two_people_rate_each_other_at_their_ratings_before_the_game():
    ada, bob = Rating(1600, 80, 0.06), Rating(1450, 200, 0.07)
    after = rate_game(
        game(Seat(score=120, player=1), Seat(score=90, player=2)), {1: ada, 2: bob}, set()
    )
    assert after == {1: rate(ada, [(bob, 1.0)]), 2: rate(bob, [(ada, 0.0)])}


def test_a_comp_seat_is_an_opponent_at_its_levels_fixed_rating_and_is_never_rated():
    after = rate_game(game(Seat(score=10, player=1), Seat(score=80, level="hard")), {}, set())
    hard = Rating(bot_ratings("mathable")["hard"], 50)
    assert after == {1: rate(Rating(), [(hard, 0.0)])}


def test_each_seat_meets_every_other_seat_pairwise_by_score():
    seats = game(
        Seat(score=50, player=1),
        Seat(score=50, player=2),
        Seat(score=70, level="easy"),
        Seat(score=20, player=3),
    )
    after = rate_game(seats, {}, set())
    new, easy = Rating(), bot_rating("mathable", "easy")
    assert after[1] == rate(new, [(new, 0.5), (easy, 0.0), (new, 1.0)])
    assert after[2] == after[1]
    assert after[3] == rate(new, [(new, 0.0), (new, 0.0), (easy, 0.0)])


def test_stood_in_seats_and_bot_programs_are_not_rated_but_still_count_as_opponents():
    seats = game(
        Seat(score=30, player=1, stood_in=True),
        Seat(score=20, player=2),
        Seat(score=10, player=3),
    )
    programs = {3}
    ada = Rating(1700, 60)
    after = rate_game(seats, {1: ada}, programs)
    assert set(after) == {2}
    assert after[2] == rate(Rating(), [(ada, 0.0), (Rating(), 1.0)])


def test_an_unknown_bot_level_is_an_error_not_a_guess():
    with pytest.raises(KeyError):
        rate_game(game(Seat(score=1, player=1), Seat(score=2, level="godlike")), {}, set())


# -- leaderboard cursors ----------------------------------------------------------------------


@given(st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=24))
def test_a_cursor_holds_its_position_exactly(rating, name):
    cursor = board_cursor(rating, name)
    assert board_position(cursor) == (rating, name)
    assert len(cursor) <= 256, "within the schema's bound for leaderboard.cursor"


@pytest.mark.parametrize(
    "cursor", ["", "!!", "bm9wZQ", board_cursor(1.0, "x")[:-2], "WyJhIiwiYiJd", "WzEsMiwzXQ"]
)
def test_a_cursor_no_reply_gave_is_refused(cursor):
    with pytest.raises(ValueError):
        board_position(cursor)
