"""``bench.load --guesses``: wrong passwords during the rooms phase, and what the server said."""

from __future__ import annotations

import pytest

from bench.load.cli import parse_args, run_load
from bench.load.config import LoadConfig


def test_the_guesses_option() -> None:
    cfg, _ = parse_args(["--phases", "rooms", "--guesses", "50"])
    assert cfg.guesses == 50


@pytest.mark.slow  # a server process and a short rooms phase
async def test_five_guesses_are_checked_and_the_rest_held_back() -> None:
    cfg = LoadConfig(
        rooms=4, duration=1.5, pace=0.2, phases=("rooms",), guesses=20, baseline=False,
        progress=False,
    )  # fmt: skip
    rooms = (await run_load(cfg))["rooms"]
    guesses = rooms["guesses"]
    assert guesses["sent"] >= 25
    assert guesses["answers"] == {
        "bad_password": 5,
        "too_many_attempts": guesses["sent"] - 5,
    }
    assert rooms["errors"] == {} and rooms["moves"] > 0
