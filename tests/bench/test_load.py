"""A short run of the load harness: every figure is reported, and each is a sane number."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys

import pytest
from tilehall.clients.bot.app import main as bot_main

from bench.load import LoadConfig, parse_args, run_load, table
from tests.helpers import ROOT


def _number(x: object) -> float:
    assert isinstance(x, int | float) and not isinstance(x, bool), x
    assert math.isfinite(x)
    return float(x)


def _percentiles(s: dict[str, float]) -> None:
    p50, p95, p99, top = (_number(s[k]) for k in ("p50_ms", "p95_ms", "p99_ms", "max_ms"))
    assert 0 < p50 <= p95 <= p99 <= top < 30_000, s


@pytest.mark.slow  # a benchmark run
async def test_short_run_reports_every_figure() -> None:
    cfg = LoadConfig(
        connections=300,
        rooms=12,  # more than a player may create by default: the harness must lift it
        spectators=30,
        duration=1.0,
        journal_rooms=20,
        journal_actions=600,
        progress=False,
    )
    report = await run_load(cfg)
    json.dumps(report)  # the JSON report is JSON

    idle = report["idle"]
    assert idle["connections"] == 300 and not idle["errors"]
    assert 0 < _number(idle["kib_per_connection"]) < 1024
    assert 0 < _number(idle["baseline_kib_per_connection"]) < 1024

    rooms = report["rooms"]
    assert _number(rooms["moves"]) > 20 and _number(rooms["moves_per_s"]) > 10
    _percentiles(rooms["act_update_rtt"])
    assert rooms["act_update_rtt"]["n"] == rooms["moves"]
    assert 20 < _number(rooms["act_bytes"]) < _number(rooms["update_bytes"]) < 64 * 1024
    assert 20 < _number(rooms["update_bytes_median"]) < 64 * 1024
    assert _number(rooms["server_cpu_pct"]) > 0
    echo = rooms["baseline_echo"]
    assert _number(echo["round_trips_per_s"]) > 10
    _percentiles(echo["rtt"])
    assert 0 < _number(rooms["ratio_to_echo"]) < 10
    assert rooms["errors"] == {}
    # the server's collections over the phase, read from its /metrics: a move's allocations
    assert rooms["server_build"] in ("pure", "mypyc")
    assert len(rooms["server_collections"]) == 3 and min(rooms["server_collections"]) >= 0
    assert rooms["server_collections_per_1000_moves"] == pytest.approx(
        1000 * sum(rooms["server_collections"]) / rooms["moves"], abs=0.01
    )

    fan = report["fanout"]
    assert fan["spectators_lost"] == 0 and fan["errors"] == {}
    assert _number(fan["moves"]) > 0
    assert fan["frames_delivered"] == fan["expected_frames"] == fan["moves"] * 30
    assert fan["completeness"] == 1.0
    _percentiles(fan["lag"])
    bare = fan["baseline_broadcast"]
    assert _number(bare["delivery_per_s"]) > 0 and bare["completeness"] == 1.0
    _percentiles(bare["lag"])
    assert 0 < _number(fan["ratio_to_broadcast"]) < 10

    journal = report["journal"]
    assert journal["actions"] == 600 and _number(journal["committed_per_s"]) > 100
    _percentiles(journal["append_latency"])

    server = report["server"]
    assert _number(server["rss_mib"]) > 5 and server["peak_rss_mib"] >= server["rss_mib"]
    assert report["machine"]["nproc"] >= 1 and report["machine"]["websockets"]

    text = table(report)
    for label in ("KiB per connection", "moves/s", "act->update p99_ms", "spectators frames/s",
                  "spectator lag p99_ms", "committed actions/s", "server rss",
                  "server collections per 1,000 moves"):  # fmt: skip
        assert label in text


def test_arguments() -> None:
    cfg, _ = parse_args(["-N", "10", "-R", "2", "-S", "3", "--phases", "rooms,journal",
                         "--pace", "0.5"])  # fmt: skip
    assert (cfg.connections, cfg.rooms, cfg.spectators, cfg.pace) == (10, 2, 3, 0.5)
    assert cfg.phases == ("rooms", "journal")
    assert cfg.server_python is None
    cfg, _ = parse_args(["--server-python", "venv/bin/python"])
    assert cfg.server_python == "venv/bin/python"


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["off", "tuned"])
def test_the_harness_reports_its_own_collections(mode: str) -> None:
    """The harness's collector pauses are in its report, next to the tails they would inflate;
    with its collector off (the default), only its own before each phase."""
    extra = [] if mode == "off" else ["--client-gc", mode]
    done = subprocess.run(
        [sys.executable, "-m", "bench.load", "--phases", "journal", "--journal-rooms", "2",
         "--journal-actions", "40", "--no-baseline", "--quiet", "--json", *extra],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["journal"]["actions"] == 40
    gc = report["client_gc"]
    assert gc["mode"] == mode and _number(gc["client_rss_mib"]) > 0
    assert _number(gc["collections"]) >= 0 and _number(gc["total_ms"]) >= 0
    assert 0 <= _number(gc["over_5ms"]) <= _number(gc["collections"])
    if mode == "off":  # the one collection the harness makes before each phase, untimed
        assert gc["collections"] == 1


def test_the_harness_runs_from_a_checkout():
    done = subprocess.run(
        [sys.executable, "-m", "bench.load", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m bench.load")


def test_the_installed_client_carries_no_harness():
    for module in ("load", "baseline", "wire"):
        assert importlib.util.find_spec(f"tilehall.clients.bot.{module}") is None
    with pytest.raises(SystemExit) as exc:
        bot_main(["load", "--rooms", "5"])
    assert exc.value.code == 2
