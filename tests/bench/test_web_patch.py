"""A short run of bench/web_patch.py, so that it keeps working (its figures are its own)."""

from __future__ import annotations

import pytest

from bench import web_patch

pytestmark = pytest.mark.slow  # a benchmark run: Chromium replaying a recorded game


async def test_web_patch_times_every_update_of_a_recorded_mathable_game():
    report = await web_patch.run(games=1, passes=1)
    total, script, layout = (
        report["apply_update_layout"],
        report["script_only"],
        report["layout_only"],
    )
    assert total["updates"] == script["updates"] == layout["updates"] > 20
    assert 0 < script["median_ms"] <= total["max_ms"]
    assert total["median_ms"] >= script["median_ms"]
