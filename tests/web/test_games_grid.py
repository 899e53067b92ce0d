"""What every board shares: the ARIA grid pattern (grid, rows, named cells, one of them in
the tab order), its keys shown by ``?``, and a board that fits a 390 px phone."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Page
from tilehall.server.app import Server

from tests.web.games import Watcher, cell_name, create, focus_board, take_seat

ROOMS: dict[str, dict[str, Any]] = {
    "mathable": {"seats": [None, "COMP:easy"]},
    "matchit": {},
    "linksame": {"options": {"size": "hard"}},
    "lines": {"options": {"width": 20, "height": 20}},
    "ishido": {},
}
"""Each game at its largest board, where there is a choice."""


def shape(view: dict[str, Any]) -> tuple[int, int]:
    board = view["board"]
    return len(board), len(board[0])


@pytest.mark.parametrize("game", list(ROOMS))
async def test_the_board_is_an_aria_grid_with_one_roving_cursor(
    page: Page, server: Server, url: str, game: str
):
    room = await create(url, game, **ROOMS[game])
    w = await Watcher.open(url, room)
    await take_seat(page, room)
    view = await w.until(lambda v: v["status"] == "playing")
    rows, cols = shape(view)
    grid = page.locator("#board [role=grid]")
    assert await grid.count() == 1
    assert await grid.get_attribute("aria-label")
    assert await grid.locator("> [role=row]").count() == rows
    cells = grid.locator("> [role=row] > [role=gridcell]")
    assert await cells.count() == rows * cols
    names: list[str] = await cells.evaluate_all("els => els.map(e => e.getAttribute('aria-label'))")
    expected = [cell_name((r, c)) for r in range(rows) for c in range(cols)]
    assert [n.split(",")[0] for n in names] == expected
    assert all(re.fullmatch(r"[a-t]\d+, \S.*", n) for n in names), names[:5]
    assert await grid.locator("[tabindex='0']").count() == 1

    # The arrows move the one cell in the tab order; the focus follows it.
    await focus_board(page)
    first = await page.evaluate("document.activeElement.dataset.name")
    await page.keyboard.press("ArrowRight")
    await page.keyboard.press("ArrowDown")
    second = await page.evaluate("document.activeElement.dataset.name")
    assert second != first
    assert await grid.locator("[tabindex='0']").count() == 1
    assert await grid.locator("[tabindex='0']").get_attribute("data-name") == second

    # ? shows the board's keys, Escape hides them.
    keys = page.locator("#board .tb-keys")
    assert not await keys.is_visible()
    await page.keyboard.press("?")
    await keys.wait_for(state="visible")
    assert await keys.locator("dt").count() >= 4
    await page.keyboard.press("Escape")
    await keys.wait_for(state="hidden")
    await w.close()


SMALLEST = """els => {
  const boxes = els.map(e => e.getBoundingClientRect());
  return [Math.min(...boxes.map(b => b.width)), Math.min(...boxes.map(b => b.height))];
}"""
"""The smallest width and the smallest height of the board's squares, in CSS px."""


@pytest.mark.parametrize("game", list(ROOMS))
async def test_every_square_is_at_least_24px_on_a_phone(
    phone: Page, server: Server, url: str, game: str
):
    """WCAG 2.2, 2.5.8 (target size): every square at least 24x24 CSS px on a 390 px phone.

    A board too wide for the phone at that size scrolls sideways inside its own frame:
    the page itself never does, and every square can be scrolled to and tapped.
    """
    room = await create(url, game, **ROOMS[game])
    w = await Watcher.open(url, room)
    await take_seat(phone, room)
    view = await w.until(lambda v: v["status"] == "playing")
    rows, cols = shape(view)
    cells = phone.locator("#board [role=gridcell]")
    await cells.nth(rows * cols - 1).wait_for()
    width, height = await cells.evaluate_all(SMALLEST)
    print(f"{game}: smallest square {width:.1f}x{height:.1f} px at 390 px")
    assert width >= 24 and height >= 24, (game, width, height)
    page_scroll, inner = await phone.evaluate("[document.documentElement.scrollWidth, innerWidth]")
    assert page_scroll <= inner == 390, (game, page_scroll)
    # the last square (bottom right) can be brought into view and tapped inside the frame
    last = cells.nth(rows * cols - 1)
    await last.scroll_into_view_if_needed()
    box = await last.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= inner, (game, box)
    assert await phone.evaluate("scrollX") == 0
    await w.close()


@pytest.mark.parametrize("game", ["matchit", "linksame"])
async def test_match_it_and_linksame_boards_fill_their_frame(
    page: Page, server: Server, url: str, game: str
):
    """The tiles take the board's width, beside the panel: no wide empty band (1280x800)."""
    room = await create(url, game, **ROOMS[game])
    w = await Watcher.open(url, room)
    await take_seat(page, room)
    await w.until(lambda v: v["status"] == "playing")
    wrap, frame = await page.evaluate(
        """[document.querySelector('#board .tb-shisen-wrap').getBoundingClientRect().width,
            document.querySelector('#board .tb-body').getBoundingClientRect().width]"""
    )
    side = await page.evaluate(
        "document.querySelector('#board .tb-side').getBoundingClientRect().width"
    )
    assert wrap + side + 12 >= frame - 2, (wrap, side, frame)  # 12: the gap between them
    width, _ = await page.locator("#board [role=gridcell]").evaluate_all(SMALLEST)
    assert width >= 28, width
    await w.close()


@pytest.mark.parametrize("game", ["mathable", "matchit"])
async def test_a_message_never_moves_the_board(phone: Page, server: Server, url: str, game: str):
    """The page's message line keeps its height: a long message lies over what is below."""
    room = await create(url, game, **ROOMS[game])
    w = await Watcher.open(url, room)
    await take_seat(phone, room)
    await w.until(lambda v: v["status"] == "playing")
    grid = phone.locator("#board [role=grid]")
    before = await grid.bounding_box()
    long = "A message long enough to need three lines on a phone, " * 3
    for text in ("Short.", long, ""):
        await phone.evaluate("(t) => tilehall.say(t, 'error')", text)
        await phone.wait_for_timeout(50)
        after = await grid.bounding_box()
        assert before and after and after["y"] == before["y"], (text, before, after)
    await w.close()
