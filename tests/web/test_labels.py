"""The web boards label tiles as the other clients do, read from the files themselves.

A player who switches between the terminal and the browser, or reads a message one
client words about a tile the other drew, must meet the same label for the same tile.
"""

import re
from pathlib import Path

from tilehall.clients import words

WEB_GAMES = Path(__file__).resolve().parents[2] / "clients" / "web" / "js" / "games"


def test_linksame_labels_are_the_words_layers_without_look_alikes() -> None:
    source = (WEB_GAMES / "linksame.js").read_text(encoding="utf-8")
    found = re.search(r'const LABELS = "([^"]+)";', source)
    assert found is not None, "linksame.js no longer declares its LABELS"
    labels = found.group(1)
    assert list(labels) == [words.tile_label("linksame", kind) for kind in range(len(labels))]
    assert words.tile_label("linksame", len(labels)) == str(len(labels)), "the web has fewer labels"
    assert not set(labels) & set("IO01")
