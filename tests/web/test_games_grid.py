"""What every board shares: the ARIA grid pattern (grid, rows, named cells, one of them in
the tab order), its keys shown by ``?``, and a board that fits a 390 px phone."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Page
from tilehall.server.app import Server

from tests.web.games import Watcher, cell_name, create, fits_phone, focus_board, take_seat

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


@pytest.mark.parametrize("game", list(ROOMS))
async def test_the_whole_board_fits_a_phone(phone: Page, server: Server, url: str, game: str):
    room = await create(url, game, **ROOMS[game])
    w = await Watcher.open(url, room)
    await take_seat(phone, room)
    view = await w.until(lambda v: v["status"] == "playing")
    rows, cols = shape(view)
    await phone.locator("#board [role=gridcell]").nth(rows * cols - 1).wait_for()
    await fits_phone(phone)
    # every square is big enough to hit with a finger's edge, and square-ish
    smallest = await phone.locator("#board [role=gridcell]").evaluate_all(
        "els => Math.min(...els.map(e => e.getBoundingClientRect().width))"
    )
    assert smallest >= 14, smallest
    await w.close()
