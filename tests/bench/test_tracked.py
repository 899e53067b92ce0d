"""A short run of bench/tracked.py: both ways timed on the same moves, every audience."""

from __future__ import annotations

from bench.tracked import run


def test_both_ways_are_timed_on_a_game_of_hidden_racks() -> None:
    report = run("mathable", {"racks": "hidden"}, 3, games=1, moves=40)
    assert report["moves"] == 40
    assert report["tracked_us"] > 0 and report["diffed_us"] > 0, report
