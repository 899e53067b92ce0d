"""The fault bench, briefly: a quick real run, and its checks shown to catch what they look for.

The quick run starts everything for real (a private PostgreSQL and Mosquitto,
two nodes) and breaks two things once; its report must say how many moves were
acknowledged and checked, and nothing may be lost, forked or moved. The second
test tampers with a real journal behind a real server's back: the checks must
then report the move as lost and the rooms as forked, or they prove nothing.
"""

from __future__ import annotations

import asyncio
import json
import math
import sqlite3
import subprocess
import sys

import msgpack
import pytest
from tilehall.server.store.sqlite import SQLiteStore

from bench.chaos import Ack, Settings, SoloBench, verify
from tests.helpers import ROOT
from tests.services import _pg_bin, require_mosquitto


@pytest.mark.slow  # a benchmark run
def test_a_quick_run_reports_real_figures(tmp_path):
    require_mosquitto()
    if _pg_bin() is None:
        pytest.skip("PostgreSQL's server programs (initdb, pg_ctl) are not installed")
    out = tmp_path / "chaos.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.chaos",
            "--quick",
            "--faults",
            "broker-kill,pg-terminate",
            "--json",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=170,
    )
    report = json.loads(out.read_text())
    assert done.returncode == (0 if report["verdict"]["ok"] else 1), done.stdout + done.stderr
    assert "broker-kill" in done.stdout and "pg-terminate" in done.stdout, done.stdout
    assert report["settings"]["rounds"] == 1 and not report["skipped"]
    for name in ("broker-kill", "pg-terminate"):
        fault = report["faults"][name]
        assert fault["rounds"] == 1
        assert fault["acked"] > 20, fault  # moves were made, acknowledged and checked
        assert 0 < fault["relayed"] < fault["acked"], fault  # through both nodes
        assert fault["views_checked"] > fault["acked"], fault
        assert fault["tables_measured"] == 3, fault
        wait = fault["playable_max_s"]
        assert isinstance(wait, float) and math.isfinite(wait) and wait >= 0, fault
        # what the issue demands, whatever the machine's speed
        assert fault["lost"] == 0, fault["notes"]
        assert fault["rooms_forked"] == 0 and fault["rooms_lost"] == 0, fault["notes"]
        assert fault["rooms_moved_wrongly"] == 0, fault["notes"]
        assert set(fault["goals"]) >= {"lost", "rooms_forked", "playable_max_s"}, fault
    assert any("backends terminated" in n for n in report["faults"]["pg-terminate"]["notes"])
    assert not report["verdict"]["ok"] or report["verdict"]["failed"] == []


async def test_the_checks_catch_a_lost_move_and_a_forked_room(tmp_path):
    settings = Settings(mathable=1, ishido=1, think=0.02)
    bench = SoloBench(settings, tmp_path)

    def placed(game: str) -> list[Ack]:
        # Mathable places a tile; Ishido places the stone it is given
        return [
            a
            for a in bench.ledger.acks
            if a.action["do"] == "place" and ("tile" in a.action) == (game == "mathable")
        ]

    try:
        await bench.start()
        for _ in range(300):
            if len(placed("mathable")) >= 5 and len(placed("ishido")) >= 5:
                break
            await asyncio.sleep(0.1)
    finally:
        await bench.close()
    acks, seen = list(bench.ledger.acks), bench.ledger.seen
    store = SQLiteStore(bench.db_path)
    await store.open()
    try:
        clean = await verify(store, acks, seen)
        assert clean.acks == len(acks) and clean.views > len(acks), clean
        assert clean.lost == [] and clean.forked == {}, clean
        # behind the server's back: one saved move disappears, another one changes
        gone, changed = placed("ishido")[-1], placed("mathable")[0]
        db = sqlite3.connect(bench.db_path)
        with db:
            db.execute("DELETE FROM journal WHERE room = ? AND seq = ?", (gone.room, gone.seq))
            db.execute(
                "UPDATE journal SET action = ? WHERE room = ? AND seq = ?",
                (msgpack.packb({"do": "end"}), changed.room, changed.seq),
            )
        db.close()
        found = await verify(store, acks, seen)
    finally:
        await store.close()
    assert found.acks == clean.acks
    assert [x.split(":")[0] for x in found.lost] == sorted(
        (f"{gone.room}#{gone.seq}", f"{changed.room}#{changed.seq}"),
        key=lambda x: [a.room + "#" + str(a.seq) for a in acks].index(x),
    ), found.lost
    assert set(found.forked) == {gone.room, changed.room}, found.forked
