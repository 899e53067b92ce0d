"""Short runs of both modes of bench/move.py: each report holds its figures, taken as its
docstring says (speed is for the bench itself to measure, not for a test).

The door's figure is one CPU figure over another: a report whose steps lost their thread CPU,
or whose rooms stopped playing (a lobby that refuses the bench's client, a reply the client
no longer finds), would make that ratio say nothing.
"""

from __future__ import annotations

import gc

import pytest

from bench.move import STEPS, _Passes, core_run, per_move, room_run, steps


def test_steps_time_every_step_in_wall_and_thread_cpu() -> None:
    for compact in (False, True):
        report = steps("ishido", 60, compact=compact, level=None, seed=3, flush_mb=compact)
        assert report["moves"] == 60
        us = report["us_per_move"]
        assert set(us) == {*STEPS, "total", "cpu", "collector"}
        assert us["engine"] > 0 and us["cpu"] > 0 and us["collector"] >= 0
        assert us["total"] >= max(us[s] for s in STEPS)


def test_the_collectors_passes_outside_the_clocks_are_counted_and_only_those() -> None:
    """A pass set off while the client's side runs is counted, one in the server's
    clock or while a game is dealt is not; the hook is taken back."""
    callbacks = list(gc.callbacks)
    with _Passes() as passes:
        gc.collect()  # not the client's side: not counted
        assert passes.ns == 0
        with passes.client():
            junk = [[i] for i in range(200_000)]  # a pass with something to walk
            gc.collect()
        assert passes.ns > 0
        counted = passes.ns
        gc.collect()
        assert passes.ns == counted
        del junk
    assert gc.callbacks == callbacks
    core = core_run("ishido", 60, compact=True, level=None, seed=3, games=4)
    assert core["collector_us_per_move"] >= 0 and gc.callbacks == callbacks


def test_the_core_alone_plays_every_move_it_times() -> None:
    """Each timed move is one the core took (a refusal raises: its cost is no move's), in
    rooms dealt again as their games end."""
    for compact in (False, True):
        report = core_run("ishido", 150, compact=compact, level=None, seed=3, games=2)
        assert report["moves"] == 150 and report["cpu_us_per_move"] > 0, report


@pytest.mark.slow
async def test_rooms_play_and_the_client_is_taken_out() -> None:
    callbacks = list(gc.callbacks)
    for compact in (False, True):
        report = await room_run(
            "ishido", 4, 1.0, compact=compact, level=None, profile=False
        )  # fmt: skip
        assert report["moves"] > 0, report  # every room plays, through the real lobby
        assert report["loop_cpu_us_per_move"] > 0, report
        assert report["client_us_per_move"] > 0, report  # the bot's choice, at least
        assert report["gc_us_per_move"] >= 0, report
        assert report["games"] >= 0
    assert gc.callbacks == callbacks  # the bench's collector hook is taken back


@pytest.mark.slow
async def test_the_diagnostics_play_too_and_say_so() -> None:
    """``settled``: no move waits for its append; ``flush_mb``: the client's bracket holds the
    caches' flush. Both reports still count moves, and say which they are."""
    report = await room_run(
        "ishido", 3, 0.5, compact=False, level=None, profile=False, journal="settled", flush_mb=1
    )  # fmt: skip
    assert report["moves"] > 0 and report["client_us_per_move"] > 0, report
    assert (report["journal"], report["flush_mb"]) == ("settled", 1)


@pytest.mark.slow
async def test_games_of_one_quit_measure_a_games_own_work_and_per_move_takes_it_out() -> None:
    """Every "move" of ``games_only`` is a whole game (one quit each ends it), and a room's
    figure less those games' work is a move's, as the formula says."""
    report = await room_run(
        "ishido", 3, 0.5, compact=True, level=None, profile=False, games_only=True
    )  # fmt: skip
    assert report["moves"] > 0 and report["games"] >= report["moves"] - 3, report
    rooms = {"moves": 1000, "games": 10, "loop_cpu_us_per_move": 110.0}
    # 1,000 moves of 100 us and 10 games of 1,100 us (1,000 of their own work and a move)
    assert per_move(rooms, 1100.0) == pytest.approx(100.0)
