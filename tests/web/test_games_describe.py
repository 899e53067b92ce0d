"""Each board's ``describe`` tells every event its game's protocol page shows, in a sentence
that names squares as the board does (``b1``, as the terminal client does too).

The events are the examples in protocol/games/<game>.md, read from the page itself, so an
event added there without words here fails this test.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.async_api import Page

from tests.helpers import ROOT
from tests.web.games import cell_name

GAMES = ["mathable", "matchit", "linksame", "lines", "ishido"]
CELL_FIELDS = ("at", "a", "b", "from", "to")


def examples(game: str) -> list[dict[str, Any]]:
    """Every event example (``{"e": ...}``) on the game's protocol page that is whole JSON."""
    text = (ROOT / "protocol" / "games" / f"{game}.md").read_text()
    decoder = json.JSONDecoder()
    found = []
    for m in re.finditer(r'\{"e": "', text):
        try:
            event, _ = decoder.raw_decode(text, m.start())
        except json.JSONDecodeError:
            continue  # an example shortened with "..."
        found.append(event)
    return found


def event_kinds(game: str) -> set[str]:
    """Every event the page names, in its tables and examples."""
    text = (ROOT / "protocol" / "games" / f"{game}.md").read_text()
    return set(re.findall(r'\{"e": "(\w+)"', text))


@pytest.mark.parametrize("game", GAMES)
async def test_every_event_of_the_protocol_page_is_told(page: Page, game: str):
    events = examples(game)
    kinds = {e["e"] for e in events}
    assert event_kinds(game) - kinds <= {"shuffled"}  # told below, with a board of its own
    await page.goto("/")
    told: list[tuple[str | None, bool]] = await page.evaluate(
        """async ([game, events]) => {
            const board = await import(`/js/games/${game}.js`);
            const words = await import("/js/words.js");
            const view = {game, seat: 0, status: "playing"};
            return events.map((e) => {
              const told = board.describe(e, view);
              const own = words.gameEvent(game, e, view);
              return [told, !!own && own.minor];
            });
        }""",
        [game, events],
    )
    for event, (sentence, minor) in zip(events, told, strict=True):
        if sentence is None and minor:
            continue  # housekeeping the shared words mark minor (a refill): the log skips it
        assert isinstance(sentence, str) and len(sentence) > 8, (event, sentence)
        assert sentence[0].isupper() or sentence[0].isdigit(), sentence
        for field in CELL_FIELDS:
            cell = event.get(field)
            if isinstance(cell, list) and len(cell) == 2 and all(isinstance(x, int) for x in cell):
                assert re.search(rf"\b{cell_name(cell)}\b", sentence), (field, event, sentence)


async def test_shuffled_and_unknown_events(page: Page):
    """The one example too long for the page (a whole board), and an event no page lists."""
    await page.goto("/")
    told = await page.evaluate(
        """async () => {
            const ls = await import("/js/games/linksame.js");
            const lines = await import("/js/games/lines.js");
            return [
                ls.describe({e: "shuffled", free: true, points: 0, board: [[0]]}, {seat: 0}),
                ls.describe({e: "shuffled", free: false, points: -20, board: [[0]]}, {seat: 0}),
                lines.describe({e: "no_such_event"}, {seat: 0}),
                lines.describe({e: "undone", action: {do: "move", from: [0, 3], to: [4, 4]},
                                undos: 1}, {seat: 0}),
            ];
        }"""
    )
    assert "free" in told[0]
    assert "-20" in told[1]
    assert told[2] is None
    assert "d1-e5" in told[3]


def test_the_pages_list_events():
    """The examples this test reads are there: a page rewritten in another form is noticed."""
    for game in GAMES:
        assert len(examples(game)) >= 4, game
