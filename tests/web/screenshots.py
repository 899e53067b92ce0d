"""Take the web client's README pictures again: ``clients/web/screenshots/*.png``.

Why: the pictures were once taken by hand, and went stale with every change to the page
(a wording, a button's place) with nothing able to make them again. This script sets up
what each picture shows over the real protocol, on a real server, and photographs the
real page, so that they are made again with one command after a change that shows.

How: ``python -m tests.web.screenshots [--out DIR] [NAME ...]`` (default DIR:
clients/web/screenshots; default NAME: every picture, see :data:`SHOTS`). It starts a
Tilehall server in this process on a free port of 127.0.0.1 with a temporary data
directory, one per picture, and drives Debian's Chromium (``/usr/bin/chromium``, as the
web tests do: tests/web/browser.py) with Playwright. Players are Ada, Bob, Cleo and Bea;
room ids and deals are the server's own random ones, so two runs differ in those only.
A page that logs a console error or throws stops the script: a picture of a broken page
is no picture for a README. tests/web/test_screenshots.py takes one picture so that this
script cannot rot unnoticed. Not a test itself (pytest collects ``test_*.py`` only).
"""

from __future__ import annotations

import argparse
import asyncio
import struct
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Page, async_playwright
from tilehall.server.app import Server
from tilehall.server.config import Config, Limits
from tilehall.server.games.matchit import match_key
from tilehall.server.games.shisensho.bitboard import identity_key, playable_pairs

from tests.helpers import Raw
from tests.web.browser import PHONE, launch, until
from tests.web.conftest import watch
from tests.web.games import View, Watcher, create, settle, square, take_seat
from tests.web.test_games_lines import a_move
from tests.web.test_games_mathable import my_placement, placed_on, rack_tile
from tests.web.test_shell import lobby_ready, sign_in

OUT = Path(__file__).resolve().parents[2] / "clients" / "web" / "screenshots"
"""Where the README's pictures live (clients/web/README.md, ``screenshots/``)."""

WIDE = {"width": 1280, "height": 900}
"""A game's picture: the board, its panel and the room's side column side by side."""

LOBBY = {"width": 1200, "height": 860}
"""The lobby's and a watched room's picture."""

Scene = Callable[[Page, str], Awaitable[None]]
"""Sets up a picture: the page (its base URL the server's) and the server's ws:// URL."""


@dataclass(frozen=True)
class Shot:
    """One picture: how the page is sized and what it shows when it is taken."""

    scene: Scene
    context: dict[str, Any]


def png_size(path: Path) -> tuple[int, int]:
    """A PNG's width and height in pixels, from its header (IHDR comes first)."""
    head = path.read_bytes()[:24]
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise ValueError(f"{path} is not a PNG")
    width, height = struct.unpack(">II", head[16:24])
    return width, height


async def symbols_on(page: Page) -> None:
    """Tick the header's Symbols box: a shape on each colour, as the README shows it."""
    box = page.get_by_label("Symbols")
    if not await box.is_checked():
        await box.check()


async def seated(
    page: Page, url: str, game: str, *, symbols: bool = False, **fields: Any
) -> tuple[Watcher, View]:
    """A room of ``game`` (``fields`` as ``create``'s) with Ada seated in the page, once it
    plays: the watcher that follows it and its first view."""
    room = await create(url, game, **fields)
    w = await Watcher.open(url, room)
    await take_seat(page, room, "Ada")
    if symbols:
        await symbols_on(page)
    return w, await w.until(lambda v: v["status"] == "playing")


async def to_top(page: Page) -> None:
    """Scroll back up and let the page draw: a click may have scrolled the board into view."""
    await page.evaluate("window.scrollTo(0, 0)")
    await page.mouse.move(0, 0)  # no hover left on a square or a button
    await settle(page, 400)


# -- the scenes ----------------------------------------------------------------------------


async def lobby(page: Page, url: str) -> None:
    """Ada's lobby: rooms waiting (options by their labels), a COMP game paused while nobody
    watches, and a finished game whose player went away."""
    bob = await Raw.open(url, "Bob")
    await bob.call({"t": "create", "game": "lines", "options": {"width": 12}})
    await bob.call({"t": "create", "game": "mathable", "seats": ["Bob", None, "COMP"]})
    await bob.call({"t": "create", "game": "mathable", "seats": ["COMP", "COMP"]})
    cleo = await Raw.open(url, "Cleo")
    room = (await cleo.call({"t": "create", "game": "ishido"}))["room"]
    view = (await cleo.call({"t": "join", "room": room}))["view"]
    for _ in range(4):
        reply = await cleo.call(
            {"t": "act", "room": room, "action": {"do": "place", "at": view["legal"][0]}}
        )
        view = reply["view"]
    await cleo.call({"t": "act", "room": room, "action": {"do": "quit"}})
    await cleo.close()  # Cleo (away)
    await sign_in(page, "Ada")
    await lobby_ready(page)
    await until(page, "document.querySelectorAll('#lobby li').length >= 4")
    # the live game to watch is drawn: the COMP game, woken by the lobby watching it
    await until(page, "/Scores [1-9]/.test(document.querySelector('.live-line')?.textContent)")
    await bob.close()
    await to_top(page)


async def mathable(page: Page, url: str) -> None:
    """Ada against a COMP, a few turns in, a tile of this turn just placed."""
    w, _ = await seated(page, url, "mathable", seats=[None, "COMP:easy"])
    for turn in range(4):
        i, tile, cell = await my_placement(page, w)
        await rack_tile(page, i).click()
        await square(page, cell).click()
        await w.until(lambda v, cell=cell, tile=tile: placed_on(w, cell, tile))
        if turn < 3:
            await settle(page, 200)
            await page.get_by_role("button", name="End turn").click()
            await w.until(lambda v: v["to_move"] == 1)
    await w.close()
    await to_top(page)


async def ishido(page: Page, url: str) -> None:
    """Ada's Ishido, five stones down, with symbols on."""
    w, view = await seated(page, url, "ishido", symbols=True)
    for n in range(1, 6):
        await settle(page, 150)
        await square(page, view["legal"][n % len(view["legal"])]).click()
        view = await w.until(lambda v, n=n: v["placed"] == n)
    await w.close()
    await to_top(page)


async def lines(page: Page, url: str) -> None:
    """Ada's Lines with the next throw shown, three moves in and a chip picked up."""
    w, view = await seated(page, url, "lines", symbols=True, options={"preview": True})
    for n in range(1, 4):
        await settle(page, 150)
        src, dst = a_move(view)
        await square(page, src).click()
        await square(page, dst).click()
        view = await w.until(lambda v, n=n: v["moves"] == n)
    await settle(page, 600)  # the chip's move is drawn
    src, _ = a_move(view)
    await square(page, src).click()  # picked up: the reachable squares show
    await w.close()
    await to_top(page)


async def pairs(page: Page, url: str, game: str, key: Any = identity_key) -> None:
    """A pairs game (Match-It, LinkSame) four pairs in, one tile selected."""
    w, view = await seated(page, url, game)
    left = view["tiles_left"]
    for n in range(1, 5):
        await settle(page, 150)
        a, b = playable_pairs(view["board"], key)[0]
        await square(page, a).click()
        await square(page, b).click()
        view = await w.until(lambda v, n=n: v["tiles_left"] == left - 2 * n)
    await settle(page, 1200)  # the last pair's path has faded
    a, _ = playable_pairs(view["board"], key)[-1]
    await square(page, a).click()
    await w.close()
    await to_top(page)


async def matchit(page: Page, url: str) -> None:
    await pairs(page, url, "matchit", match_key)


async def linksame(page: Page, url: str) -> None:
    await pairs(page, url, "linksame")


async def watched(page: Page, url: str, name: str) -> None:
    """``name`` watches two COMPs play Mathable, a dozen tiles down."""
    bob = await Raw.open(url, "Bob")
    room = (await bob.call({"t": "create", "game": "mathable", "seats": ["COMP", "COMP"]}))["room"]
    await bob.close()
    w = await Watcher.open(url, room, "Cleo")  # the COMPs play while anyone watches
    await sign_in(page, name, f"/r/{room}")
    await page.locator("#board [role=grid]").wait_for()

    def tiles(v: View) -> int:
        return sum(t is not None for row in v.get("board") or [] for t in row)

    await w.until(lambda v: tiles(v) >= 12 and v["to_move"] == 0, timeout=60)
    await w.close()  # one spectator fewer; the page's keeps the game going
    await settle(page, 200)
    await to_top(page)


async def room(page: Page, url: str) -> None:
    await watched(page, url, "Ada")


async def phone(page: Page, url: str) -> None:
    await watched(page, url, "Bea")


SHOTS: dict[str, Shot] = {
    "lobby": Shot(lobby, {"viewport": LOBBY}),
    "lobby-phone": Shot(lobby, PHONE),
    "room": Shot(room, {"viewport": LOBBY}),
    "mathable": Shot(mathable, {"viewport": WIDE}),
    "ishido": Shot(ishido, {"viewport": WIDE}),
    "lines": Shot(lines, {"viewport": WIDE}),
    "linksame": Shot(linksame, {"viewport": WIDE}),
    "matchit": Shot(matchit, {"viewport": WIDE}),
    "phone": Shot(phone, PHONE),
}
"""Every picture by file name (without ``.png``)."""


# -- taking them ---------------------------------------------------------------------------


async def take(browser: Browser, name: str, out: Path, bot_delay: float = 0.3) -> Path:
    """Set up and save one picture, ``out/NAME.png``, on a server of its own."""
    shot = SHOTS[name]
    with tempfile.TemporaryDirectory(prefix="tilehall-shots-") as data:
        limits = Limits(bot_delay=bot_delay, ping_interval=None)
        server = Server(
            Config(showcase=False, host="127.0.0.1", port=0, data_dir=Path(data), limits=limits)
        )
        await server.start()
        try:
            context = await browser.new_context(
                base_url=f"http://127.0.0.1:{server.port}", **shot.context
            )
            errors: list[str] = []
            watch(context, errors)
            try:
                page = await context.new_page()
                await shot.scene(page, f"ws://127.0.0.1:{server.port}")
                if errors:
                    raise RuntimeError(f"{name}: the page reported errors:\n" + "\n".join(errors))
                out.mkdir(parents=True, exist_ok=True)
                path = out / f"{name}.png"
                await page.screenshot(path=str(path), animations="disabled", caret="hide")
            finally:
                await context.close()
        finally:
            await server.stop()
    return path


async def take_all(names: list[str], out: Path) -> list[Path]:
    """Take ``names`` in one Chromium, one after another (a quiet page for each)."""
    async with async_playwright() as playwright:
        browser = await launch(playwright)
        try:
            return [await take(browser, name, out) for name in names]
        finally:
            await browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.web.screenshots", description=(__doc__ or "").split("\n\n")[0]
    )
    parser.add_argument("--out", type=Path, default=OUT, help=f"folder (default {OUT})")
    parser.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=f"pictures to take (default all: {', '.join(SHOTS)})",
    )
    args = parser.parse_args(argv)
    names = args.names or list(SHOTS)
    unknown = [n for n in names if n not in SHOTS]
    if unknown:
        parser.error(f"no picture named {', '.join(unknown)}: {', '.join(SHOTS)}")
    for path in asyncio.run(take_all(names, args.out)):
        width, height = png_size(path)
        print(f"{path}: {width}x{height}, {path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
