"""Short runs of bench/web_page.py and bench/web_spectators.py, so that they keep working.

Their figures are the benchmarks' to judge; here only what must hold at any speed:
the page reached its lobby, a second visit was all revalidations, every spectator
kept up with the game.
"""

from __future__ import annotations

import pytest

from bench import web_page, web_spectators

pytestmark = pytest.mark.slow  # a benchmark run: Chromium and a server process


async def test_web_page_reaches_the_lobby_and_a_second_visit_revalidates():
    report = await web_page.run(web_page.parse_args(["--runs", "1"]))
    assert 0 < report["cold_ms"]["median"] < 30_000
    assert 0 < report["warm_ms"]["median"] < 30_000
    first = {r["url"]: r for r in report["first_visit"]}
    assert first[""]["status"] == 200  # the page itself
    assert first["js/app.js"]["status"] == 200
    assert first["vendor/msgpack.min.js"]["status"] == 200
    assert all(r["status"] == 200 for r in report["first_visit"])
    # The page's own files revalidate. The icon is fetched by Chromium's favicon service,
    # not by the page: it does not go through the page's cache, and came whole (166 bytes).
    second = [r for r in report["second_visit"] if r["url"] and not r["url"].startswith("icons/")]
    assert second and all(r["status"] == 304 for r in second)
    assert 0 < report["second_visit_bytes"] < report["first_visit_bytes"]
    assert report["first_visit_bytes"] == sum(r["bytes"] for r in report["first_visit"])


async def test_web_spectators_measures_every_kind_and_every_spectator_keeps_up():
    report = await web_spectators.run(
        web_spectators.parse_args(["--spectators", "3", "--rounds", "1", "--seconds", "2"])
    )
    assert [r["kind"] for r in report["runs"]] == ["base", "page", "terminal"]
    for r in report["runs"]:
        assert r["updates"] > 0, r
        assert r["behind_at_end"] == 0, r
        assert r["cpu_s"] >= 0
    assert set(report["cpu_ms_per_update"]) == {"base", "page", "terminal"}
