"""Words players read, in the page: a refused move names its squares as the board does and
its tiles as they look (the shared words.json), never `[row, col]` or a tile's number."""

from __future__ import annotations

import re

from playwright.async_api import Page, expect
from tilehall.clients.words import Words, error_text

from tests.clients import same_words
from tests.web.test_shell import lobby_ready, sign_in

RAW = re.compile(r"\[-?\d+, -?\d+\]|\btile \d+|\btiles? \d")


async def open_solo(page: Page, game: str) -> dict:
    """A solo room made by the page's own connection, entered by its link: its first view."""
    await page.evaluate(
        """async (g) => {
          const made = await tilehall.conn.request({t: "create", game: g});
          // joined as the lobby joins a room it made: the room screen takes this reply
          tilehall.pendingJoined = await tilehall.conn.request({t: "join", room: made.room});
          tilehall.go("/r/" + made.room);
        }""",
        game,
    )
    section = page.locator("section.room")
    await expect(section).to_have_attribute("data-seat", "0")
    await expect(section).to_have_attribute("data-seq", "1")
    return await page.evaluate("tilehall.screen.view")


async def refused(page: Page, action: dict) -> str:
    """The page acts through its board's ctx; what the status line says of the refusal."""
    await page.wait_for_function("() => tilehall.screen && tilehall.screen.ctx")  # board mounted
    reply = await page.evaluate(
        "(a) => tilehall.screen.ctx.act(a).then(() => null, (e) => e)", action
    )
    assert reply is not None and reply["code"], reply
    said = page.locator("#announcer .say-error")
    await expect(said).to_have_text(reply["message"])
    text = await said.inner_text()
    assert not RAW.search(text), text
    return text


async def test_refusals_name_squares_and_tiles_the_boards_way(page: Page):
    await sign_in(page, "Ada")
    await lobby_ready(page)
    view = await open_solo(page, "ishido")
    board = view["board"]
    r, c = next((r, c) for r, row in enumerate(board) for c, s in enumerate(row) if s)
    text = await refused(page, {"do": "place", "at": [r, c]})
    colour = ["red", "orange", "yellow", "green", "blue", "purple"][board[r][c][0]]
    assert text.startswith(f"square {'abcdefghijkl'[c]}{r + 1} already holds the {colour} ")

    view = await open_solo(page, "matchit")
    tiles = view["board"]
    cells = [(r, c) for r, row in enumerate(tiles) for c, t in enumerate(row) if t is not None]
    a, b = next(
        (a, b)
        for a in cells
        for b in cells
        if tiles[a[0]][a[1]] < 27
        and tiles[b[0]][b[1]] < 27
        and tiles[a[0]][a[1]] != tiles[b[0]][b[1]]
    )
    text = await refused(page, {"do": "pair", "a": list(a), "b": list(b)})
    suits = ("dots", "bamboo", "characters")
    named = [f"{t % 9 + 1} of {suits[t // 9]}" for t in (tiles[a[0]][a[1]], tiles[b[0]][b[1]])]
    a_name, b_name = (f"{'abcdefghijklmnopqrstuvwxyz'[x[1]]}{x[0] + 1}" for x in (a, b))
    assert text == f"the {named[0]} on {a_name} and the {named[1]} on {b_name} do not match"


COMMON = [
    {"e": "started"},
    {"e": "paused", "why": "away"},
    {"e": "paused", "why": "player"},
    {"e": "paused", "why": "unwatched"},
    {"e": "resumed", "paused_for": 185.4},
    {"e": "stand_in", "seat": 1},
    {"e": "stand_back", "seat": 1},
    {"e": "undone", "undos": 2, "action": {"do": "place", "at": [6, 7]}},
    {"e": "undone", "undos": 1, "action": {"do": "move", "from": [7, 0], "to": [5, 1]}},
    {"e": "undone", "undos": 3, "action": {"do": "pair", "a": [0, 0], "b": [2, 11]}},
]


async def test_the_rooms_events_and_refusals_read_the_same_in_the_page_and_in_python(page: Page):
    """The page and the Python clients word the same event, and the same refusal, alike:
    both from words.json, through js/words.js and clients/words.py."""
    await sign_in(page, "Ada")
    await lobby_ready(page)
    for game, seat, seats in (("ishido", 0, 1), ("lines", None, 1), ("mathable", 0, 2)):
        view = {"game": game, "seat": seat, "scores": [0] * seats}
        names = ["Ada", "Bob"][:seats]
        said = await page.evaluate(
            """([events, view, names]) => import("/js/words.js").then(
                (w) => events.map((ev) => w.commonEvent(ev, view, names)))""",
            [COMMON, view, names],
        )

        def name(s: int | None, names: list[str] = names) -> str:
            return "-" if s is None else names[s] if s < len(names) else f"seat {s + 1}"

        w = Words(game=game, name=name, seat=seat, seats=seats)
        expected = [w.event(ev) for ev in COMMON]
        assert said == [e.text if e else None for e in expected], game
        assert not any(RAW.search(s) for s in said)
    refusals = [
        ({"code": "no_match", "cells": [[2, 5], [4, 9]], "tiles": [5, 30]}, "matchit"),
        ({"code": "no_match", "cells": [[2, 5]], "tiles": [[0, 1], [2, 3], [1, 1]]}, "ishido"),
        ({"code": "no_path", "cells": [[0, 0], [7, 7]]}, "linksame"),
        ({"code": "not_in_rack", "tiles": [6, 12]}, "mathable"),
        ({"code": "stale", "message": "act.seq 4 is not the room's seq 5"}, "mathable"),
        ({"code": "occupied", "message": "square [0, 0] already holds [1, 2]"}, "ishido"),
    ]
    for frame, game in refusals:
        page_said = await page.evaluate(
            """([frame, game]) => import("/js/words.js").then((w) => w.errorText(frame, game))""",
            [frame, game],
        )
        python_said = error_text(
            frame["code"], frame.get("message", ""), game=game, cells=frame.get("cells"),
            tiles=frame.get("tiles"),
        )  # fmt: skip
        assert page_said == python_said, frame
        assert not RAW.search(page_said), page_said


async def test_every_event_of_real_games_reads_the_same_in_the_page_and_in_python(page: Page):
    """One source of wording: the same events of real games (every kind each engine sends),
    rendered by js/words.js in Chromium and by clients/words.py, give the same sentences,
    tones and housekeeping marks, for a player, a spectator and a reader with no name."""
    await page.goto("/")
    given = same_words.cases()
    said = await page.evaluate(
        f"(cases) => import('/js/words.js').then((w) => ({same_words.RENDER})(w, cases))", given
    )
    assert same_words.check(given, said) > 1000
    ratings = await page.evaluate(
        "(rs) => import('/js/words.js').then((w) => rs.map(w.ratingText))", same_words.RATINGS
    )
    same_words.check_ratings(ratings)
    states = await page.evaluate(
        "(rs) => import('/js/words.js').then((w) => rs.map(w.roomState))", same_words.ROOM_STATES
    )
    same_words.check_room_states(states)
