"""The web boards label and name tiles as the other clients do: every client reads the
same table, clients/web/words.json, and neither writes its own.

A player who switches between the terminal and the browser, or reads a message one
client words about a tile the other drew, must meet the same label for the same tile.
"""

import json
import re
from pathlib import Path

from tilehall.clients import words

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"
WEB_GAMES = WEB / "js" / "games"


def test_linksame_labels_are_the_shared_words_without_look_alikes() -> None:
    source = (WEB_GAMES / "linksame.js").read_text(encoding="utf-8")
    assert "const LABELS = WORDS.tiles.linksame.labels;" in source
    labels = json.loads((WEB / "words.json").read_text(encoding="utf-8"))["tiles"]["linksame"][
        "labels"
    ]
    assert list(labels) == [words.tile_label("linksame", kind) for kind in range(len(labels))]
    assert words.tile_label("linksame", len(labels)) == str(len(labels)), "the web has fewer labels"
    assert not set(labels) & set("IO01")


def test_no_board_writes_its_own_tile_or_stone_names() -> None:
    """The names of tiles and stones live in words.json only: a board module that spells
    one out (a suit, an honour, a stone's colour list) words it a second time."""
    spelt = {
        "ishido.js": ('"orange", "yellow"', '"triangle", "square"', '"ROYGBP"'),
        "matchit.js": ('"characters"', '"east wind"', '"winter season"'),
        "linksame.js": ('"ABCDEFGH',),
    }
    for name, words_there in spelt.items():
        source = (WEB_GAMES / name).read_text(encoding="utf-8")
        assert "../words.js" in source, name
        for word in words_there:
            assert word not in source, (name, word)
    python = Path(words.__file__).read_text(encoding="utf-8")
    assert '"characters"' not in python and '"ROYGBP"' not in python
    assert not re.search(r"ERRORS: dict\[str, str\] = \{", python), "error words are in words.json"
