"""Short runs of every mode of bench/flood.py: each report holds its figures, and the goals
that are not about speed hold (speed is for the bench itself to measure, not for a test).

Every check here fails when the server misbehaves: a ``rooms`` page over 64 KiB (600
rooms with the longest names fill a Mathable page of 200 to twice that), a junk action
journaled, a bot refused for its rate.
"""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from bench.flood import (
    FRAME_GOAL,
    GAMES,
    JUNK_GOAL,
    parse_args,
    run_act,
    run_bots,
    run_junk,
    run_listing,
)
from tests.helpers import ROOT


def _bystander(report: dict) -> None:
    """Both round trips measured in both phases, as finite positive milliseconds."""
    by = report["bystander"]
    assert by["samples"] > 0
    for kind in ("act", "ping"):
        for phase in ("unloaded_ms", "flooded_ms"):
            p50, p99 = by[kind][phase]["p50"], by[kind][phase]["p99"]
            assert math.isfinite(p99) and 0 < p50 <= p99 < 30_000, by[kind]
        assert by[kind]["p99_ratio"] > 0
    assert by["server_act"]["unloaded"]["actions"] == by["samples"]
    assert by["server_act"]["flooded"]["actions"] >= by["samples"]


@pytest.mark.slow  # a benchmark run
async def test_listing_flood_walks_every_room_and_no_page_passes_64_kib() -> None:
    fill = ["--rooms", "600", "--wide-names"]
    report = await run_listing(
        parse_args(["--mode", "listing", *fill, "--samples", "20", "--flooders", "2"])
    )
    assert report["made"]["rooms"] == 600
    assert report["made"]["by_game"] == dict.fromkeys(GAMES, 120)
    assert sum(report["rooms_held_before"].values()) == 600
    walks = {(tuple(w["filter"].items()), w["limit"]): w for w in report["sweep"]}
    assert walks[((), 200)]["rooms"] == walks[((), "default")]["rooms"] == 600
    for game in GAMES:
        assert walks[((("game", game),), 200)]["rooms"] == 120
    assert walks[((("status", "playing"),), 200)]["rooms"] == 240  # one solo room in two
    assert walks[((("status", "over"),), 200)]["rooms"] == 0
    largest = max(w["largest_bytes"] for w in report["sweep"])
    assert report["largest_rooms_reply_bytes"] == largest
    assert 10_000 < largest <= FRAME_GOAL, largest
    flood = report["flood"]
    assert flood["pages_received"] > 10 and flood["errors"] == {}
    assert 0 < flood["largest_reply_bytes"] <= FRAME_GOAL
    assert report["limits"]["rate_limited"] == 0 and report["limits"]["bans"] == 0
    _bystander(report)


@pytest.mark.slow  # a benchmark run
async def test_junk_actions_change_nothing_and_grow_nothing() -> None:
    report = await run_junk(
        parse_args(["--mode", "junk", "--junk", "150", "--flooders", "2", "--samples", "20"])
    )
    assert report["junk_sent"] == 150
    assert report["accepted"] == 0
    answers = report["answers"]
    assert sum(answers.values()) == 150 and all(k.startswith("refused:") for k in answers)
    for code in ("bad_field", "action_too_large", "unknown_action", "missing_field"):
        assert answers.get(f"refused:{code}", 0) > 0, answers
    assert report["rooms_checked"] == 10 and report["rooms_changed"] == []
    assert report["journal_rows_checked"] >= 10  # every room's start, at least
    assert 0 <= report["data_dir_growth_bytes"] < JUNK_GOAL
    assert report["control_growth_bytes"] > 0, "100 accepted actions are seen to write"
    flood = report["flood"]
    assert flood["junk_sent"] > 0 and "ACCEPTED" not in flood["answers"]
    assert flood["junk_sent"] == sum(flood["answers"].values())
    _bystander(report)


@pytest.mark.slow  # a benchmark run
async def test_bots_of_every_game_are_never_refused_for_their_rate() -> None:
    report = await run_bots(parse_args(["--mode", "bots", "--seconds", "8"]))
    assert report["rate_limited"] == 0 and report["bans"] == 0
    assert set(report["bots"]) == set(GAMES)
    for game, bot in report["bots"].items():
        assert bot["exit"] == 130, (game, bot)  # stopped by Ctrl-C, as a person would
        assert bot["moves"] > 0 and bot["refused"] == 0, (game, bot)
        assert report["server_actions_by_game"][game] >= bot["moves"]
    assert report["moves_played"] == sum(b["moves"] for b in report["bots"].values())


@pytest.mark.slow  # a benchmark run
async def test_the_act_flood_is_cut_off_and_barred() -> None:
    report = await run_act(parse_args(["--samples", "20", "--flooders", "1"]))
    assert report["close_codes"].get("1008", 0) >= 1
    assert report["handshakes_refused"].get("429", 0) >= 1
    assert report["limits"]["rate_limited"] > 0 and report["limits"]["bans"] >= 1
    _bystander(report)


def test_the_script_runs_from_a_checkout() -> None:
    done = subprocess.run(
        [sys.executable, "bench/flood.py", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "--mode {act,listing,junk,bots}" in done.stdout
