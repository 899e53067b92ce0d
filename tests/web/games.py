"""What the board tests share: a room made over the protocol, its seat taken in the page,
and a spectator that reads the server's own state (never only the page's)."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import Locator, Page

from tests.helpers import Raw

View = dict[str, Any]


def cell_name(cell: list[int] | tuple[int, int]) -> str:
    """A square as the boards (and the terminal client) name it: ``[6, 7]`` -> ``h7``."""
    return f"{chr(ord('a') + cell[1])}{cell[0] + 1}"


class Watcher:
    """A spectator on the protocol: the server's view of a room, as updates bring it."""

    def __init__(self, raw: Raw, room: str, view: View, seq: int) -> None:
        self.raw = raw
        self.room = room
        self.view = view
        self.seq = seq
        """The seq of :attr:`view`: what a page that has caught up shows too."""
        self.events: list[dict[str, Any]] = []

    @classmethod
    async def open(cls, url: str, room: str, name: str = "Watcher") -> Watcher:
        raw = await Raw.open(url, name)
        joined = await raw.call({"t": "watch", "room": room})
        assert joined["t"] == "joined", joined
        return cls(raw, room, joined["view"], joined["seq"])

    async def until(self, test: Callable[[View], bool], timeout: float = 15.0) -> View:
        """The first view (the current one included) that passes ``test``."""
        deadline = time.monotonic() + timeout
        while not test(self.view):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"the server's view never got there: {self.view}")
            try:
                msg = await self.raw.recv(timeout=min(left, 1.0))
            except TimeoutError:
                continue
            if msg.get("t") == "update" and msg.get("room") == self.room:
                self.view, self.seq = msg["view"], msg["seq"]
                self.events.extend(msg.get("events") or [])
        return self.view

    async def drain(self, seconds: float = 0.5) -> View:
        """Read what the server sends for ``seconds``: the view as it then stands."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                msg = await self.raw.recv(timeout=left)
            except TimeoutError:
                break
            if msg.get("t") == "update" and msg.get("room") == self.room:
                self.view, self.seq = msg["view"], msg["seq"]
                self.events.extend(msg.get("events") or [])
        return self.view

    async def close(self) -> None:
        await self.raw.close()


async def create(url: str, game: str, **fields: Any) -> str:
    """A room made by another player over the protocol; its id."""
    maker = await Raw.open(url, "Maker")
    reply = await maker.call({"t": "create", "game": game, **fields})
    assert reply["t"] == "created", reply
    await maker.close()
    return str(reply["room"])


async def take_seat(page: Page, room: str, name: str = "Webby", seat: int = 1) -> None:
    """Open the room's link, give a name, take the seat: the board is then on the page."""
    await page.goto(f"/r/{room}")
    await page.get_by_label("Your name").fill(name)
    await page.get_by_role("button", name="Play").click()
    await page.get_by_role("button", name=f"Take seat {seat}").click()
    await page.locator("#board [role=grid]").wait_for()


def occupied(board: list[list[Any]]) -> set[tuple[int, int]]:
    """The squares of a Shisen-Sho board that hold a tile (tile 0 is a tile: only None is empty)."""
    return {(r, c) for r, row in enumerate(board) for c, t in enumerate(row) if t is not None}


def square(page: Page, cell: list[int] | tuple[int, int]) -> Locator:
    """The board's square by its accessible name (``e5, ...``)."""
    return page.get_by_role("gridcell", name=re.compile(f"^{cell_name(cell)},"))


async def labels(page: Page) -> dict[str, str]:
    """Every square's accessible name, by square name."""
    found: list[str] = await page.locator("#board [role=gridcell]").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))"
    )
    return {label.split(",")[0]: label for label in found}


async def focus_board(page: Page, limit: int = 60) -> None:
    """Tab through the page until the board's cursor square has the focus (keyboard only)."""
    for _ in range(limit):
        await page.keyboard.press("Tab")
        if await page.evaluate("document.activeElement?.getAttribute('role') === 'gridcell'"):
            return
    raise AssertionError("Tab never reached the board")


async def cursor(page: Page) -> tuple[int, int]:
    r, c = await page.evaluate(
        "[Number(document.activeElement.dataset.r), Number(document.activeElement.dataset.c)]"
    )
    return int(r), int(c)


async def walk_to(page: Page, cell: list[int] | tuple[int, int]) -> None:
    """Move the focused board's cursor to ``cell`` with the arrow keys."""
    r, c = await cursor(page)
    for _ in range(abs(cell[0] - r)):
        await page.keyboard.press("ArrowDown" if cell[0] > r else "ArrowUp")
    for _ in range(abs(cell[1] - c)):
        await page.keyboard.press("ArrowRight" if cell[1] > c else "ArrowLeft")
    assert await cursor(page) == (cell[0], cell[1])


async def eventually(check: Callable[[], Awaitable[None]], timeout: float = 5.0) -> None:
    """Run ``check`` (an async assertion) until it passes: the page draws an update a moment
    after the spectator hears of it."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            await check()
            return
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


async def settle(page: Page, ms: int = 100) -> None:
    """Let the page draw what it was just given."""
    await page.wait_for_timeout(ms)
    await asyncio.sleep(0)


async def fits_phone(page: Page) -> None:
    """The whole board is on the screen: no sideways scrolling, no square past the edge."""
    width, scroll, right = await page.evaluate(
        """[innerWidth, document.documentElement.scrollWidth,
            Math.max(...[...document.querySelectorAll('#board [role=gridcell]')]
                .map(e => e.getBoundingClientRect().right))]"""
    )
    assert scroll <= width, (scroll, width)
    assert right <= width, (right, width)
