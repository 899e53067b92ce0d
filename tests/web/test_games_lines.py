"""The Lines board in the real page against the real server: chips moved by mouse and by
keyboard, the next throw's preview, undo, quit asked twice, symbols mode."""

from __future__ import annotations

from playwright.async_api import Page
from tilehall.server.app import Server

from tests.web.games import (
    View,
    Watcher,
    create,
    eventually,
    focus_board,
    labels,
    settle,
    square,
    take_seat,
    walk_to,
)


def a_move(view: View) -> tuple[list[int], list[int]]:
    """A chip and the farthest empty square it can reach (worked out here, not by the page)."""
    board = view["board"]
    rows, cols = len(board), len(board[0])
    for r in range(rows):
        for c in range(cols):
            if not board[r][c]:
                continue
            seen, todo = {(r, c)}, [(r, c)]
            while todo:
                y, x = todo.pop()
                for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    q = (y + dy, x + dx)
                    inside = 0 <= q[0] < rows and 0 <= q[1] < cols
                    if inside and not board[q[0]][q[1]] and q not in seen:
                        seen.add(q)
                        todo.append(q)
            seen.discard((r, c))
            if seen:
                far = max(sorted(seen), key=lambda q: abs(q[0] - r) + abs(q[1] - c))
                return [r, c], list(far)
    raise AssertionError("no chip can move")


async def test_lines_by_mouse_and_keyboard(page: Page, server: Server, url: str):
    room = await create(url, "lines", options={"preview": True})
    w = await Watcher.open(url, room)
    await take_seat(page, room)
    view = await w.until(lambda v: v["status"] == "playing")
    # The preview of the next throw is shown, colour by colour.
    colours = ["", "red", "green", "blue", "yellow", "magenta"]
    preview = page.get_by_label("Next throw: " + ", ".join(colours[c] for c in view["next"]))
    await preview.wait_for()
    for n in range(1, 4):
        await settle(page, 150)
        src, dst = a_move(view)
        colour = view["board"][src[0]][src[1]]
        await square(page, src).click()
        assert "picked" in (await labels(page))[f"{chr(97 + src[1])}{src[0] + 1}"]
        await square(page, dst).click()
        view = await w.until(lambda v, n=n: v["moves"] == n)
        moved = [e for e in w.events if e.get("e") == "moved"][-1]
        assert moved["from"] == src and moved["to"] == dst and moved["colour"] == colour
        # The chip left its square, unless the throw after the move landed a new one there.
        since = w.events[w.events.index(moved) :]
        landed = any(e.get("e") == "thrown" and src in e["cells"] for e in since)
        assert view["board"][src[0]][src[1]] == 0 or landed

    # Keyboard alone: Tab to the board, walk to a chip, space, walk to its square, space.
    await settle(page, 600)
    src, dst = a_move(w.view)
    await focus_board(page)
    await walk_to(page, src)
    await page.keyboard.press(" ")
    await walk_to(page, dst)
    await page.keyboard.press(" ")
    view = await w.until(lambda v: v["moves"] == 4)
    moved = [e for e in w.events if e.get("e") == "moved"][-1]
    assert moved["from"] == src and moved["to"] == dst

    # u takes the move (and its throw) back; the board shows the server's board again.
    await page.keyboard.press("u")
    view = await w.until(lambda v: v["undos"] == 1)
    assert view["moves"] == 3 and view["board"][src[0]][src[1]] != 0

    async def shows_the_servers_board() -> None:
        shown = await labels(page)
        for r, row in enumerate(view["board"]):
            for c, chip in enumerate(row):
                name = f"{chr(97 + c)}{r + 1}"
                assert ("chip" in shown[name]) == bool(chip), (name, shown[name], chip)

    await eventually(shows_the_servers_board)

    # Q asks twice before it ends the game.
    await page.keyboard.press("Q")
    assert (await w.drain(0.5))["status"] == "playing"
    await page.keyboard.press("Q")
    view = await w.until(lambda v: v["status"] == "over")
    assert view["reason"] == "quit"
    await w.close()


async def test_lines_refused_move_keeps_the_servers_board(page: Page, server: Server, url: str):
    """A move the server refuses (a chip walled in) changes nothing, on the server or the page."""
    room = await create(url, "lines", options={"width": 3, "height": 3, "initial": 8, "throw": 1})
    w = await Watcher.open(url, room)
    await take_seat(page, room)
    view = await w.until(lambda v: v["status"] == "playing")
    board = view["board"]
    empty = next([r, c] for r in range(3) for c in range(3) if not board[r][c])
    # a chip that does not touch the empty square cannot reach it
    far = next(
        [r, c]
        for r in range(3)
        for c in range(3)
        if board[r][c] and abs(r - empty[0]) + abs(c - empty[1]) > 1
    )
    await square(page, far).click()
    await square(page, empty).click()
    await settle(page, 500)
    assert w.view["moves"] == 0
    shown = await labels(page)
    assert "empty" in shown[f"{chr(97 + empty[1])}{empty[0] + 1}"]
    assert "picked" not in " ".join(shown.values())
    await w.close()


async def test_lines_symbols_mode_gives_each_colour_a_shape(page: Page, server: Server, url: str):
    room = await create(url, "lines", options={"initial": 30, "colours": 7})
    w = await Watcher.open(url, room)
    await take_seat(page, room)
    view = await w.until(lambda v: v["status"] == "playing")
    board = page.locator("#board [role=grid]")
    chips = [c for row in view["board"] for c in row if c]
    assert await board.locator(".tb-chip").count() == len(chips)
    assert await board.locator(".tb-chip svg").count() == 0
    await page.get_by_label("Symbols").check()
    await board.locator(".tb-chip svg").first.wait_for()
    drawn = await board.locator(".tb-chip").evaluate_all(
        "els => els.map(e => [Number(e.className.match(/tb-chip-(\\d)/)[1]),"
        " e.querySelector('svg')?.dataset.shape])"
    )
    assert sorted(c for c, _ in drawn) == sorted(chips)
    by_colour: dict[int, set[str]] = {}
    for colour, shape in drawn:
        assert shape, colour
        by_colour.setdefault(colour, set()).add(shape)
    # one shape per colour, and no two colours share one
    assert all(len(s) == 1 for s in by_colour.values())
    assert len({next(iter(s)) for s in by_colour.values()}) == len(by_colour) >= 3
    await w.close()


TRAVELS = """() => {
    window.travelled = false;
    new MutationObserver((changes) => {
        for (const c of changes) {
            for (const n of c.addedNodes) {
                if (n.classList && n.classList.contains("tb-traveller")) window.travelled = true;
            }
        }
    }).observe(document.body, {childList: true, subtree: true});
}"""


async def test_lines_chip_travels_unless_less_motion(page: Page, server: Server, url: str):
    room = await create(url, "lines")
    w = await Watcher.open(url, room)
    await take_seat(page, room)
    await w.until(lambda v: v["status"] == "playing")
    motion = page.get_by_label("Less motion")
    if await motion.is_checked():
        await motion.uncheck()
    for n, less in ((1, False), (2, True)):
        if less:
            await motion.check()
        await page.locator("#board [role=grid]").wait_for()
        await settle(page, 300)
        await page.evaluate(TRAVELS)
        src, dst = a_move(w.view)
        await square(page, src).click()
        await square(page, dst).click()
        await w.until(lambda v, n=n: v["moves"] == n)
        await settle(page, 400)
        assert await page.evaluate("window.travelled") is not less
    await w.close()
