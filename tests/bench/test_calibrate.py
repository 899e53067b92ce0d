"""The COMP calibration: its fit recovers known ratings, and what the server and the docs
publish is the fit of the calibration file that ``python -m bench.calibrate`` last wrote.

No game is timed here: the bench measures; these tests check its arithmetic and that
nobody publishes a number the bench did not measure.
"""

from __future__ import annotations

import json
import math
import random
import re

import pytest
from tilehall.server.ratings import BOT_RD, bot_ratings, describe

from bench.calibrate import (
    ANCHOR,
    GOAL,
    OUT,
    SCALE,
    Z95,
    expected,
    fit,
    play,
    published,
    results_of,
)
from tests.helpers import ROOT

LEVELS = ("easy", "normal", "hard")
TRUE = {"easy": 1180.0, "normal": 1500.0, "hard": 1870.0}


def test_the_fit_recovers_the_ratings_that_made_exact_expected_counts():
    n = 1000
    results = {
        (a, b): (n * expected(TRUE[a], TRUE[b]), n * expected(TRUE[b], TRUE[a]))
        for a, b in (("easy", "normal"), ("easy", "hard"), ("normal", "hard"))
    }
    est = fit(LEVELS, results)
    for lv in LEVELS:
        assert est[lv].rating == pytest.approx(TRUE[lv], abs=0.01)
    assert est["normal"].se == 0.0 and est["normal"].rating == ANCHOR[1]


def test_the_fit_recovers_sampled_results_within_its_intervals():
    rng = random.Random(32)
    n = 4000
    results = {}
    for a, b in (("easy", "normal"), ("easy", "hard"), ("normal", "hard")):
        p = expected(TRUE[a], TRUE[b])
        wins = sum(rng.random() < p for _ in range(n))
        results[(a, b)] = (float(wins), float(n - wins))
    est = fit(LEVELS, results)
    for lv in ("easy", "hard"):
        assert est[lv].low < TRUE[lv] < est[lv].high
        assert abs(est[lv].rating - TRUE[lv]) < 40


def test_two_levels_have_the_textbook_standard_error():
    """One pairing: the logit's standard error is 1 / sqrt(n p (1 - p))."""
    est = fit(("easy", "normal"), {("easy", "normal"): (200.0, 800.0)})
    p = 0.2
    assert est["easy"].rating == pytest.approx(1500 + SCALE * math.log(p / (1 - p)))
    assert est["easy"].se == pytest.approx(SCALE / math.sqrt(1000 * p * (1 - p)))
    assert est["easy"].half_width == pytest.approx(Z95 * est["easy"].se)


def test_a_draw_is_half_a_win_to_each_side():
    drawn = fit(("easy", "normal"), {("easy", "normal"): (0.0 + 100 / 2, 100.0 + 100 / 2)})
    won = fit(("easy", "normal"), {("easy", "normal"): (50.0, 150.0)})
    assert drawn["easy"].rating == pytest.approx(won["easy"].rating)


def test_a_level_that_lost_every_game_has_no_finite_rating():
    with pytest.raises(ValueError, match="no finite fit"):
        fit(("easy", "normal"), {("easy", "normal"): (0.0, 200.0)})


def test_a_bench_game_is_a_whole_seeded_game():
    """Played again on its seed, a game ends the same (only its CPU times differ)."""
    game, again = play(("easy", "normal", 7, math.inf)), play(("easy", "normal", 7, math.inf))
    assert (game.a, game.b, game.seed) == ("easy", "normal", 7)
    assert (game.score_a, game.score_b) == (again.score_a, again.score_b)
    assert game.score_a != game.score_b or game.points_a == 0.5
    # Seat swapped on the next seed: another game.
    other = play(("easy", "normal", 8, math.inf))
    assert (other.score_a, other.score_b) != (game.score_a, game.score_b)


# -- the published numbers are the last calibration's ----------------------------------------


@pytest.fixture(scope="module")
def calibration() -> dict:
    return json.loads(OUT.read_text())


def test_the_calibration_file_is_a_fit_of_its_own_counts(calibration):
    """Refit the file's win counts: the fit and intervals it records are theirs."""
    table = {
        (p["a"], p["b"]): {"wins_a": p["wins_a"], "wins_b": p["wins_b"], "draws": p["draws"]}
        for p in calibration["pairings"]
    }
    assert {p["games"] for p in calibration["pairings"]} == {calibration["games_per_pairing"]}
    est = fit(LEVELS, results_of(table))
    assert calibration["anchor"] == {"level": ANCHOR[0], "rating": ANCHOR[1]}
    for lv in LEVELS:
        rec = calibration["fit"][lv]
        assert rec["rating"] == pytest.approx(est[lv].rating, abs=0.06)
        assert rec["low"] == pytest.approx(est[lv].low, abs=0.06)
        assert rec["high"] == pytest.approx(est[lv].high, abs=0.06)
    assert calibration["published"] == published(est)


def test_every_level_is_calibrated_to_the_goal(calibration):
    for lv in LEVELS:
        assert calibration["fit"][lv]["half_width"] < GOAL, lv


def test_the_server_publishes_the_calibrated_ratings(calibration):
    pub = calibration["published"]
    assert dict(bot_ratings("mathable")) == pub
    for lv in LEVELS:
        assert calibration["fit"][lv]["low"] <= pub[lv] <= calibration["fit"][lv]["high"]
    assert describe("mathable")["bot_ratings"] == {
        lv: {"rating": pub[lv], "rd": BOT_RD} for lv in LEVELS
    }


def test_the_docs_publish_the_calibrated_ratings(calibration):
    pub = {lv: int(r) for lv, r in calibration["published"].items()}
    protocol = (ROOT / "protocol" / "PROTOCOL.md").read_text()
    example = ", ".join(f'"{lv}": {{"rating": {pub[lv]:.1f}, "rd": {BOT_RD:.1f}}}' for lv in LEVELS)
    assert example in " ".join(protocol.split())
    listed = ", ".join(f"`{lv}` {pub[lv]}" for lv in LEVELS)
    assert f"Mathable: {listed}" in " ".join(protocol.split())
    page = (ROOT / "protocol" / "games" / "mathable.md").read_text()
    table = dict(re.findall(r"^\| `(\w+)` +\| (\d+) +\| \d+ +\|", page, re.M))
    assert {lv: int(r) for lv, r in table.items()} == pub
    # The table's fit and intervals, and the results it quotes, are the file's too.
    fitted = calibration["fit"]
    for lv in ("easy", "hard"):
        row = re.search(rf"^\| `{lv}` .*\| (\d+) \((\d+)-(\d+)\) +\|", page, re.M)
        assert row is not None, lv
        assert [int(x) for x in row.groups()] == [
            round(fitted[lv][k]) for k in ("rating", "low", "high")
        ]
    # Each row's "loses N of M to `level`" against the file's counts.
    quoted = {}
    for lv in LEVELS:
        row = re.search(rf"^\| `{lv}` .*$", page, re.M)
        assert row is not None, lv
        for n, games, winner in re.findall(r"(\d+) of (\d+) to `(\w+)`", row.group()):
            quoted[(lv, winner)] = (int(n), int(games))
    counted = {}
    for p in calibration["pairings"]:
        counted[(p["a"], p["b"])] = (p["wins_b"], p["games"])
        counted[(p["b"], p["a"])] = (p["wins_a"], p["games"])
    assert quoted and all(counted[pair] == q for pair, q in quoted.items())
    beating = re.search(
        r"beating `hard` counts as beating an? (\d+) player", " ".join(page.split())
    )
    assert beating is not None and int(beating.group(1)) == pub["hard"]
