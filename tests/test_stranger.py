"""A stranger's client, written from PROTOCOL.md with only websockets and msgpack."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ServerProcess

SCRIPT = Path(__file__).parent / "stranger" / "ishido_client.py"


def test_the_stranger_imports_nothing_of_tilehall():
    tree = ast.parse(SCRIPT.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add((node.module or "").split(".")[0])
    assert names <= {"asyncio", "json", "sys", "msgpack", "websockets"}, names


@pytest.mark.slow
def test_a_stranger_plays_ishido_to_the_end_while_another_watches(tmp_path):
    server = ServerProcess(tmp_path)
    url = server.start()
    try:
        out = subprocess.run(
            [sys.executable, str(SCRIPT), url], capture_output=True, text=True, timeout=120
        )
    finally:
        server.stop()
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["moves"] >= 1
    # the watcher saw every update from the start, in order, with no gap
    assert summary["watched_seqs"] == list(
        range(summary["watched_from"] + 1, summary["final_seq"] + 1)
    )
    assert summary["watcher_final_view_status"] == "over"
    assert summary["watcher_final_scores"] == [summary["score"]]
    assert summary["result"]["scores"] == [summary["score"]]


@pytest.mark.slow
def test_the_strangers_scenarios_find_the_server_as_the_pages_say(tmp_path):
    """Issue 30: the points an outside client found, asked again from the new pages."""
    server = ServerProcess(tmp_path)
    url = server.start()
    try:
        out = subprocess.run(
            [sys.executable, str(SCRIPT), url, "--scenarios"],
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        server.stop()
    assert out.returncode == 0, out.stderr
    said = json.loads(out.stdout)
    assert len(said) >= 25 and "scores table modern/touching" in said
    differ = {name: case for name, case in said.items() if case["promised"] != case["got"]}
    assert differ == {}
