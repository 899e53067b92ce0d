"""The Match-It and LinkSame boards in the real page against the real server: pairs by
mouse and by keyboard, the path drawn, pause hiding the board, help, hint, undo, quit."""

from __future__ import annotations

from playwright.async_api import Page
from tilehall.server.app import Server
from tilehall.server.games.matchit import match_key
from tilehall.server.games.shisensho.bitboard import playable_pairs

from tests.web.games import (
    Watcher,
    cell_name,
    create,
    eventually,
    focus_board,
    labels,
    occupied,
    settle,
    square,
    take_seat,
    walk_to,
)


async def test_matchit_by_mouse_and_keyboard(page: Page, server: Server, url: str):
    room = await create(url, "matchit")
    w = await Watcher.open(url, room)
    await take_seat(page, room)
    view = await w.until(lambda v: v["status"] == "playing")
    left = view["tiles_left"]
    for n in range(1, 4):
        await settle(page, 150)
        a, b = playable_pairs(view["board"], match_key)[0]
        await square(page, a).click()
        assert "selected" in (await labels(page))[cell_name(a)]
        await square(page, b).click()
        view = await w.until(lambda v, n=n: v["tiles_left"] == left - 2 * n)
        assert view["board"][a[0]][a[1]] is None and view["board"][b[0]][b[1]] is None
        # the path the server gave is drawn over the board for a moment
        removed = [e for e in w.events if e.get("e") == "removed"][-1]
        if n == 1:
            line = page.locator("#board svg.tb-path polyline")
            await line.wait_for(state="attached")
            points = await line.get_attribute("points")
            assert points == " ".join(f"{c + 0.5},{r + 0.5}" for r, c in removed["path"])
            assert "tb-traced" in (await line.get_attribute("class") or "")  # it is traced

    # Keyboard alone.
    await settle(page, 800)
    a, b = playable_pairs(w.view["board"], match_key)[-1]
    await focus_board(page)
    await walk_to(page, a)
    await page.keyboard.press("Enter")
    await walk_to(page, b)
    await page.keyboard.press("Enter")
    view = await w.until(lambda v: v["tiles_left"] == left - 8)
    assert view["board"][a[0]][a[1]] is None

    # m marks every tile matching the cursor's (-4)
    score = view["score"]
    r, c = min(occupied(view["board"]))
    await walk_to(page, (r, c))
    await page.keyboard.press("m")
    view = await w.until(lambda v: v["score"] == score - 4)
    marked = next(e for e in w.events if e.get("e") == "highlight")["cells"]

    async def marks_shown() -> None:
        shown = await labels(page)
        assert {n for n, lab in shown.items() if "marked" in lab} == {cell_name(x) for x in marked}

    await eventually(marks_shown)

    # Help removes a pair for us.
    await page.get_by_role("button", name="Help (3)").click()
    view = await w.until(lambda v: v["helps"] == 2)
    assert view["tiles_left"] == left - 10

    # p pauses: the server hides the board, and so does the page; p again resumes.
    await page.keyboard.press("p")
    await w.until(lambda v: v["paused"] == "player" and v["board"] is None)
    await page.get_by_text("You paused the game").wait_for()
    assert not await page.locator("#board [role=grid]").is_visible()
    await page.get_by_role("button", name="Resume").first.click()
    await w.until(lambda v: v["paused"] is None and v["board"] is not None)
    await page.locator("#board [role=grid]").wait_for(state="visible")

    # u takes the help's pair back.
    await page.get_by_role("button", name="Undo").click()
    view = await w.until(lambda v: v["undos"] == 1)
    assert view["tiles_left"] == left - 8

    # g gives the sheet up, asked twice: a life for a new sheet.
    await page.keyboard.press("g")
    assert (await w.drain(0.5))["lives"] == 3
    await page.keyboard.press("g")
    view = await w.until(lambda v: v["lives"] == 2)
    assert view["tiles_left"] == 96 and view["level"] == 1
    await page.get_by_role("log").get_by_text("A life lost: 2 lives left").wait_for()

    # Quit asks twice.
    await page.get_by_role("button", name="Quit").click()
    assert (await w.drain(0.5))["status"] == "playing"
    await page.get_by_role("button", name="Quit: sure?").click()
    view = await w.until(lambda v: v["status"] == "over")
    assert view["end"] == "quit"
    await w.close()


async def test_linksame_by_mouse_and_keyboard(page: Page, server: Server, url: str):
    room = await create(url, "linksame", options={"size": "easy"})
    w = await Watcher.open(url, room)
    await take_seat(page, room)
    view = await w.until(lambda v: v["status"] == "playing")
    left = view["tiles_left"]
    await page.get_by_label("Less motion").check()  # the path shows, but is not traced
    for n in range(1, 4):
        await settle(page, 150)
        a, b = playable_pairs(view["board"])[0]
        await square(page, a).click()
        await square(page, b).click()
        view = await w.until(lambda v, n=n: v["tiles_left"] == left - 2 * n)
        assert view["score"] > 0
        if n == 1:
            line = page.locator("#board svg.tb-path polyline.tb-path-line")
            await line.wait_for(state="attached")
            assert "tb-traced" not in (await line.get_attribute("class") or "")

    await settle(page, 800)
    a, b = playable_pairs(w.view["board"])[-1]
    await focus_board(page)
    await walk_to(page, a)
    await page.keyboard.press(" ")
    await walk_to(page, b)
    await page.keyboard.press(" ")
    view = await w.until(lambda v: v["tiles_left"] == left - 8)

    # i asks for a hint: its pair is named on the board, its path drawn.
    await page.keyboard.press("i")
    view = await w.until(lambda v: v["hint"] is not None)

    async def hint_shown() -> None:
        shown = await labels(page)
        hinted = {n for n, lab in shown.items() if "hinted" in lab}
        assert hinted == {cell_name(view["hint"]["a"]), cell_name(view["hint"]["b"])}

    await eventually(hint_shown)
    assert await page.locator("#board svg.tb-path polyline.tb-hint-line").count() == 1

    # s shuffles (the same tiles on the same squares), r restarts the stage.
    before = occupied(view["board"])
    await page.keyboard.press("s")
    view = await w.until(lambda v: any(e.get("e") == "shuffled" for e in w.events))
    assert occupied(view["board"]) == before
    await page.keyboard.press("r")
    view = await w.until(lambda v: v["tiles_left"] == left)

    # p pauses and hides the board; the same key resumes.
    await page.keyboard.press("p")
    await w.until(lambda v: v["paused"] == "player")
    await page.get_by_text("You paused the game").wait_for()
    await page.keyboard.press("p")
    await w.until(lambda v: v["paused"] is None)

    # Paused, the page reloaded: the board comes back hidden, and its Resume works.
    await page.get_by_role("button", name="Pause").click()
    await w.until(lambda v: v["paused"] == "player")
    await page.reload()
    # the page remembers the one name: a room's page goes straight in as it
    await page.get_by_text("You paused the game").wait_for()
    assert await page.locator("#board [role=gridcell]").count() == 0
    await page.get_by_role("button", name="Resume").first.click()
    await w.until(lambda v: v["paused"] is None)

    # A pair, then u takes it back.
    await page.locator("#board [role=grid]").wait_for(state="visible")
    a, b = playable_pairs(w.view["board"])[0]
    await square(page, a).click()
    await square(page, b).click()
    await w.until(lambda v: v["tiles_left"] == left - 2)
    await page.get_by_role("button", name="Undo").click()
    view = await w.until(lambda v: v["undos"] == 1)
    assert view["tiles_left"] == left

    await page.keyboard.press("Q")
    await page.keyboard.press("Q")
    view = await w.until(lambda v: v["status"] == "over")
    assert view["end"] == "quit"
    await w.close()
