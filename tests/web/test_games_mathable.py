"""The Mathable board in the real page against the real server: tiles placed by a click on
the rack then a square, by a mouse drag, by keyboard alone and by a touch drag on a phone;
a refused drop puts the board back; hint, end of turn, the quit vote."""

from __future__ import annotations

import re
from typing import Any

from playwright.async_api import Page
from tilehall.server.app import Server
from tilehall.server.games.mathable import legal_placements

from tests.helpers import Raw
from tests.web.browser import until
from tests.web.games import (
    View,
    Watcher,
    cell_name,
    create,
    fits_phone,
    focus_board,
    labels,
    settle,
    square,
    take_seat,
    walk_to,
)

SEATS = [None, "COMP:easy"]


def placements(view: View) -> list[tuple[int, int, tuple[int, int]]]:
    """Every (rack index, tile, square) that makes an equation, by the engine's own rule."""
    rack = view["racks"][0]
    return [(i, t, cell) for i, t in enumerate(rack) for cell in legal_placements(view["board"], t)]


async def my_placement(page: Page, w: Watcher) -> tuple[int, int, tuple[int, int]]:
    """A tile of ours that fits somewhere: while none does, the page gives the whole rack back
    for new tiles, as a player would (ending the turn alone left a rack that never fit for ten
    turns in one CI run: the board changes only by the computer's moves)."""
    for _ in range(10):
        view = await w.until(lambda v: v["to_move"] == 0)
        found = placements(view)
        if found:
            await settle(page, 150)
            return found[0]
        turns = len([e for e in w.events if e.get("e") == "turn_ended"])
        if view["turn"]["can_exchange"]:
            await page.get_by_role("button", name="Exchange").click()
            take = min(len(view["racks"][0]), view["bag"])
            for i in range(take):
                await rack_tile(page, i).click()
            await page.get_by_role("button", name=re.compile(r"^Swap")).click()
        else:
            await page.get_by_role("button", name="End turn").click()
        await w.until(
            lambda v, n=turns: len([e for e in w.events if e.get("e") == "turn_ended"]) > n
        )
    raise AssertionError("ten turns without a tile that fits, new tiles and all")


def rack_tile(page: Page, index: int) -> Any:
    return page.get_by_role("button", name=re.compile(f"^Rack tile {index + 1}: "))


async def drag(page: Page, source: Any, target: Any) -> None:
    """A mouse drag from one element's middle to another's, in small steps."""
    await source.scroll_into_view_if_needed()
    a = await source.bounding_box()
    b = await target.bounding_box()
    await page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
    await page.mouse.down()
    await page.mouse.move(a["x"] + a["width"] / 2 + 20, a["y"] - 20, steps=4)
    await page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=8)
    await page.mouse.up()


def placed_on(w: Watcher, cell: tuple[int, int], tile: int) -> bool:
    return w.view["board"][cell[0]][cell[1]] == tile


async def test_mathable_by_mouse_and_keyboard(page: Page, server: Server, url: str):
    await page.set_viewport_size({"width": 1280, "height": 1000})  # the rack and the board in view
    room = await create(url, "mathable", seats=SEATS)
    w = await Watcher.open(url, room)
    await take_seat(page, room)
    # The computer may move first: the squares are read on our turn, once the page has
    # drawn it (no tile placed this turn), so that no tile lands between view and labels.
    await w.until(lambda v: v["status"] == "playing" and v["to_move"] == 0)
    await until(
        page,
        "!document.querySelector('#board [aria-label*=\"placed this turn\"]')"
        " && !!document.querySelector('#board [role=gridcell]')",
    )
    squares = w.view["squares"]
    # The special squares are drawn and named.
    shown = await labels(page)
    for r, row in enumerate(squares):
        for c, kind in enumerate(row):
            if kind and w.view["board"][r][c] is None:
                assert shown[cell_name((r, c))].endswith(" square"), shown[cell_name((r, c))]
    assert shown["a1"] == "a1, empty, 3x: triple square"

    # 1. a click on a rack tile, then on its square
    i, tile, cell = await my_placement(page, w)
    await rack_tile(page, i).click()
    await square(page, cell).click()
    await w.until(lambda v: placed_on(w, cell, tile))
    await settle(page)
    assert (await labels(page))[cell_name(cell)].startswith(f"{cell_name(cell)}, {tile}")

    # 2. a mouse drag from the rack to the square
    i, tile, cell = await my_placement(page, w)
    await drag(page, rack_tile(page, i), square(page, cell))
    await w.until(lambda v: placed_on(w, cell, tile))

    # 3. a drop the server refuses: nothing changes there, and the page shows its board again
    await settle(page)
    view = w.view
    lonely = next(
        (r, c)
        for r in range(14)
        for c in range(14)
        if all(
            view["board"][y][x] is None
            for y in range(max(0, r - 2), min(14, r + 3))
            for x in range(max(0, c - 2), min(14, c + 3))
        )
    )
    before = await labels(page)
    await drag(page, rack_tile(page, 0), square(page, lonely))
    # the server's refusal, in the clients' shared words (the shell says it): its square named
    refusal = f"on {cell_name(lonely)} makes no equation"
    await page.locator(".say-error").get_by_text(refusal).wait_for()
    await settle(page, 200)
    assert w.view["board"][lonely[0]][lonely[1]] is None
    assert await labels(page) == before
    assert await page.locator("#board .tb-pending").count() == 0

    # 4. keyboard alone: Tab to the board, a digit picks the tile, arrows, Enter
    i, tile, cell = await my_placement(page, w)
    await focus_board(page)
    await page.keyboard.press(str(i + 1))
    await walk_to(page, cell)
    await page.keyboard.press("Enter")
    await w.until(lambda v: placed_on(w, cell, tile))

    # i: the hint, public as a flag on the seat, private as the tile marked on the rack
    await page.keyboard.press("i")
    view = await w.until(lambda v: 0 in v["hinted"])
    told = page.locator(".tb-rack-note").get_by_text(re.compile(r"^Hint: the \d+ fits somewhere"))
    # no tile fits: the log says so in the shared words (words.json's Mathable "hint")
    nothing = page.get_by_role("log").get_by_text("Hint: nothing on your rack fits")
    await told.or_(nothing).first.wait_for()
    if await told.count():
        hinted = int(re.findall(r"\d+", await told.inner_text())[0])
        await page.get_by_role(
            "button", name=re.compile(f": {hinted}, fits somewhere")
        ).first.wait_for()

    # e ends the turn: the rack refills to 7 (or what the bag holds)
    turns = len([e for e in w.events if e.get("e") == "turn_ended"])
    await page.keyboard.press("e")
    await w.until(lambda v: len([e for e in w.events if e.get("e") == "turn_ended"]) > turns)
    assert len(w.view["racks"][0]) == 7

    # What the other seat placed since is listed, each tile with its square.
    await w.until(lambda v: v["to_move"] == 0)
    mine = max(i for i, e in enumerate(w.events) if e.get("e") == "turn_ended" and e["seat"] == 0)
    theirs = [e for e in w.events[mine:] if e.get("e") == "placed" and e["seat"] == 1]
    for ev in theirs:
        told = page.locator(".tb-told li", has_text=f"on {cell_name(ev['at'])} +{ev['points']}")
        await told.first.wait_for()

    # The quit vote, asked twice: the only person's vote ends the game.
    await page.get_by_role("button", name="Vote to quit").click()
    assert (await w.drain(0.5))["quit_votes"] == []
    await page.get_by_role("button", name="Vote to quit: sure?").click()
    view = await w.until(lambda v: v["status"] == "over")
    assert view["result"]["reason"] == "quit"
    over = page.locator("#board .tb-over")
    await over.get_by_text("Game over (ended by a quit vote)").wait_for()
    await w.close()


async def test_mathable_seat_taken_on_a_phone_and_a_tile_dragged_by_touch(
    phone: Page, server: Server, url: str
):
    room = await create(url, "mathable", seats=SEATS)
    w = await Watcher.open(url, room)
    await take_seat(phone, room)
    await w.until(lambda v: v["status"] == "playing")
    await fits_phone(phone)
    cdp = await phone.context.new_cdp_session(phone)

    async def touch_drag(source: Any, target: Any) -> None:
        a = await source.bounding_box()
        b = await target.bounding_box()
        x0, y0 = a["x"] + a["width"] / 2, a["y"] + a["height"] / 2
        x1, y1 = b["x"] + b["width"] / 2, b["y"] + b["height"] / 2
        await cdp.send(
            "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]}
        )
        for k in range(1, 11):
            x, y = x0 + (x1 - x0) * k / 10, y0 + (y1 - y0) * k / 10
            await cdp.send(
                "Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]}
            )
        await cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    for _ in range(2):
        i, tile, cell = await my_placement(phone, w)
        await square(phone, cell).scroll_into_view_if_needed()
        await touch_drag(rack_tile(phone, i), square(phone, cell))
        await w.until(lambda v, cell=cell, tile=tile: placed_on(w, cell, tile))
    # A tap on a tile, then a tap on its square, works as well.
    i, tile, cell = await my_placement(phone, w)
    await rack_tile(phone, i).tap()
    await square(phone, cell).tap()
    await w.until(lambda v: placed_on(w, cell, tile))
    await fits_phone(phone)
    await w.close()


async def test_mathable_hidden_racks_clock_and_exchange_by_keyboard(
    page: Page, server: Server, url: str
):
    room = await create(
        url, "mathable", seats=SEATS, options={"racks": "hidden", "turn_seconds": 120}
    )
    w = await Watcher.open(url, room)
    await take_seat(page, room)
    view = await w.until(lambda v: v["status"] == "playing" and v["to_move"] == 0)
    assert view["racks"] == [None, None]  # a spectator sees no rack at all
    # The other seat's rack shows as face-down tiles, so many, under its player's name (here
    # the COMP's); ours as numbers.
    other = page.get_by_label(re.compile(r"^COMP: .*7 hidden tiles$"))
    await other.wait_for()
    assert await other.locator(".tb-mini-back").count() == 7
    assert await page.locator(".tb-rack-tile").count() == view["rack_sizes"][0] == 7
    # The turn clock counts down on the server's time.
    clock = page.locator(".tb-stat", has_text="Turn clock").locator(".tb-stat-value")
    minutes, seconds = (await clock.inner_text()).split(":")
    assert 60 < int(minutes) * 60 + int(seconds) <= 120

    # Exchange by keyboard alone: x, mark two tiles (1, 2), x again.
    await focus_board(page)
    await page.keyboard.press("x")
    await page.keyboard.press("1")
    await page.keyboard.press("2")
    assert await page.locator(".tb-rack-tile.tb-marked").count() == 2
    seen = len(w.events)  # my_placement may have exchanged before
    await page.keyboard.press("x")
    await w.until(lambda v: any(e.get("e") == "exchanged" for e in w.events[seen:]))
    exchanged = next(e for e in w.events[seen:] if e.get("e") == "exchanged")
    assert exchanged["seat"] == 0 and exchanged["count"] == 2 and "tiles" not in exchanged
    await w.until(
        lambda v: any(e.get("e") == "turn_ended" and e["seat"] == 0 for e in w.events[seen:])
    )
    ended = next(e for e in w.events[seen:] if e.get("e") == "turn_ended" and e["seat"] == 0)
    assert ended["reason"] == "exchange"
    await w.close()


async def test_mathable_quit_vote_among_people_is_sent_at_once(page: Page, url: str):
    """With another person at the table, one vote does not end the game: no second press."""
    room = await create(url, "mathable", seats=[None, None])
    w = await Watcher.open(url, room)
    other = await Raw.open(url, "Other")
    assert (await other.call({"t": "join", "room": room, "seat": 1}))["t"] == "joined"
    await take_seat(page, room, seat=1)  # the page's is the last seat taken: play starts
    await w.until(lambda v: v["status"] == "playing")
    # the shell knows the seats (and so which are computers) from the room's summary
    await page.locator(".seats").get_by_text("Other").wait_for()
    await page.get_by_role("button", name="Vote to quit").click()
    view = await w.until(lambda v: v["quit_votes"] == [0])
    assert view["status"] == "playing"
    await page.get_by_role("button", name="Withdraw quit vote").click()
    await w.until(lambda v: v["quit_votes"] == [])
    await other.close()
    await w.close()
