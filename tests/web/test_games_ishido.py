"""The Ishido board in the real page against the real server: the legal squares it shows
are the view's, stones go down by mouse and by keyboard, help, undo, quit asked twice,
symbols mode."""

from __future__ import annotations

from playwright.async_api import Page
from tilehall.server.app import Server

from tests.helpers import Raw
from tests.web.games import (
    View,
    Watcher,
    cell_name,
    create,
    eventually,
    focus_board,
    labels,
    settle,
    square,
    take_seat,
    walk_to,
)


async def shown_legal(page: Page) -> set[str]:
    return {name for name, label in (await labels(page)).items() if "the stone fits" in label}


async def legal_shown(page: Page, view: View) -> None:
    """The squares the board marks as legal are exactly the view's ``legal``."""
    assert await shown_legal(page) == {cell_name(c) for c in view["legal"]}


async def test_ishido_by_mouse_and_keyboard(page: Page, server: Server, url: str):
    room = await create(url, "ishido")
    w = await Watcher.open(url, room)
    await take_seat(page, room)
    view = await w.until(lambda v: v["status"] == "playing")
    for n in range(1, 4):
        await eventually(lambda view=view: legal_shown(page, view))
        target = view["legal"][0]
        if n == 1:  # pointing at a legal square shows the stone there
            await square(page, target).hover()
            ghost = square(page, target).locator(".tb-ghost-stone")
            assert await ghost.evaluate("e => getComputedStyle(e).opacity") == "0.6"
        await square(page, target).click()
        view = await w.until(lambda v, n=n: v["placed"] == n)
        assert view["last"]["at"] == target
        assert view["board"][target[0]][target[1]] is not None

    # Keyboard alone: Tab to the board, arrows to a legal square, Enter.
    await settle(page)
    await focus_board(page)
    target = w.view["legal"][-1]
    await walk_to(page, target)
    await page.keyboard.press("Enter")
    view = await w.until(lambda v: v["placed"] == 4)
    assert view["last"]["at"] == target
    await eventually(lambda: legal_shown(page, view))

    # i asks for help: the best square is marked on the board.
    await page.keyboard.press("i")
    view = await w.until(lambda v: v["helps"] == 1)
    best = next(e for e in w.events if e.get("e") == "help")["at"]
    await square(page, best).and_(page.locator(".tb-hint")).wait_for()
    assert "best square" in (await labels(page))[cell_name(best)]

    # u takes the last stone back.
    await page.keyboard.press("u")
    view = await w.until(lambda v: v["undos"] == 1)
    assert view["placed"] == 3 and view["board"][target[0]][target[1]] is None

    # Quit asks twice: the first press changes nothing on the server.
    quit_button = page.get_by_role("button", name="Quit")
    await quit_button.click()
    assert (await w.drain(0.5))["status"] == "playing"
    await page.get_by_role("button", name="Quit: sure?").click()
    view = await w.until(lambda v: v["status"] == "over")
    assert view["result"]["reason"] == "quit"
    await page.get_by_text("Game over: you ended it").wait_for()
    await w.close()


async def test_ishido_symbols_mode_writes_each_stones_colour(page: Page, server: Server, url: str):
    room = await create(url, "ishido")
    w = await Watcher.open(url, room)
    await take_seat(page, room)
    view = await w.until(lambda v: v["status"] == "playing")
    board = page.locator("#board")
    placed = "[role=gridcell] .tb-stone:not(.tb-ghost-stone)"  # not the stone shown on hover
    stones = sum(1 for row in view["board"] for s in row if s)
    assert stones == 6
    assert await board.locator(f"{placed} .tb-stone-letter").count() == 0
    # every stone draws its symbol, whatever the preference
    assert await board.locator(f"{placed} svg[data-shape]").count() == stones
    await page.get_by_label("Symbols").check()
    await board.locator(f"{placed} .tb-stone-letter").first.wait_for()
    letters = await board.locator(f"{placed} .tb-stone-letter").all_inner_texts()
    assert len(letters) == stones
    expected = sorted("ROYGBP"[s[0]] for row in view["board"] for s in row if s)
    assert sorted(letters) == expected
    # The opening's six stones are all six colours and symbols: six different letters and shapes.
    assert len(set(letters)) == 6
    shapes = await board.locator(f"{placed} svg").evaluate_all(
        "els => els.map(e => e.dataset.shape)"
    )
    assert len(set(shapes)) == 6
    await w.close()


async def test_a_spectator_sees_the_board_and_sends_nothing(page: Page, server: Server, url: str):
    """Watching: the board, the stone and its legal squares, but no controls and no moves."""
    room = await create(url, "ishido")
    player = await Raw.open(url, "Player")
    joined = await player.call({"t": "join", "room": room})
    assert joined["seat"] == 0
    w = await Watcher.open(url, room)
    view = await w.until(lambda v: v["status"] == "playing")
    await page.goto(f"/r/{room}")
    await page.get_by_label("Your name").fill("Onlooker")
    await page.get_by_role("button", name="Play").click()
    await page.locator("#board [role=grid]").wait_for()
    await eventually(lambda: legal_shown(page, view))
    assert not await page.locator("#board .tb-controls").is_visible()
    await square(page, view["legal"][0]).click()
    await focus_board(page)
    await page.keyboard.press("Enter")
    await page.keyboard.press("u")
    assert (await w.drain(0.5))["placed"] == 0
    # The player's move shows on the spectator's board.
    action = {"do": "place", "at": view["legal"][0]}
    reply = await player.call({"t": "act", "room": room, "action": action})
    assert reply["t"] == "update", reply
    target = cell_name(view["legal"][0])

    async def shown() -> None:
        assert "empty" not in (await labels(page))[target]

    await eventually(shown)
    await player.close()
    await w.close()
