"""Words players read, in the page: a refused move names its squares as the board does and
its tiles as they look (the shared words.json), never `[row, col]` or a tile's number."""

from __future__ import annotations

import re

from playwright.async_api import Page, expect

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
