"""The page's renderer of words.json, run by Node.js without a browser, says what Python
says (tests/clients/same_words.py): the inner loop's check of one source of wording; the
browser's is tests/web/test_words.py (slow). Skipped where Node.js is not installed."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.clients import same_words
from tests.helpers import ROOT

NODE = shutil.which("node")

SCRIPT = """
import { pathToFileURL } from "node:url";
const w = await import(pathToFileURL(process.argv[1]).href);
let input = "";
for await (const chunk of process.stdin) input += chunk;
const { cases, ratings, rooms } = JSON.parse(input);
process.stdout.write(JSON.stringify({
  said: (%s)(w, cases),
  ratings: ratings.map(w.ratingText),
  rooms: rooms.map(w.roomState),
}));
"""


def node(payload: dict[str, object]) -> dict[str, object]:
    """Run :data:`SCRIPT` on js/words.js: the page's plain ES modules, which Node (20.19 and
    later) reads as modules by their syntax, as a browser does."""
    assert NODE is not None
    words = ROOT / "clients" / "web" / "js" / "words.js"
    command = [
        NODE,
        "--no-warnings",
        "--input-type=module",
        "-e",
        SCRIPT % same_words.RENDER,
        str(words),
    ]
    done = subprocess.run(
        command, input=json.dumps(payload), capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    out: dict[str, object] = json.loads(done.stdout)
    return out


@pytest.mark.skipif(NODE is None, reason="no Node.js here: tests/web/test_words.py checks it")
def test_every_event_of_real_games_reads_the_same_under_node_and_in_python() -> None:
    given = same_words.cases()
    out = node({"cases": given, "ratings": same_words.RATINGS, "rooms": same_words.ROOM_STATES})
    assert same_words.check(given, out["said"]) > 1000  # type: ignore[arg-type]
    same_words.check_ratings(out["ratings"])  # type: ignore[arg-type]
    same_words.check_room_states(out["rooms"])  # type: ignore[arg-type]
