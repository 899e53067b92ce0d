"""Today's deal in the real page (Chromium, Playwright) against the real server: the shared
link opens the deal's panel, the game is played by mouse, its end shows the result to share
with a copy button, and the panel then offers practice."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio
from playwright.async_api import Page, expect
from tilehall.server.app import Server
from tilehall.server.daily import day_of

from tests import helpers
from tests.helpers import Raw
from tests.server.test_daily import ShiftedClock
from tests.web.games import settle
from tests.web.test_shell import lobby_ready, sign_in


@pytest_asyncio.fixture(loop_scope="session")
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    """The suite's server (tests/web/conftest.py), on a clock a test may move a day on."""
    config = helpers.in_process_config(tmp_path)
    srv = Server(config, clock=ShiftedClock(0.0))
    await srv.start()
    yield srv
    await srv.stop()


async def play_deal(url: str, name: str, moves: int) -> int:
    """``name`` plays today's Ishido deal over the protocol: ``moves`` stones, then quits."""
    me = await Raw.open(url, name)
    made = await me.call({"t": "create", "game": "ishido", "daily": True})
    view = (await me.call({"t": "join", "room": made["room"]}))["view"]
    for _ in range(moves):
        action = {"do": "place", "at": view["legal"][0]}
        view = (await me.call({"t": "act", "room": made["room"], "action": action}))["view"]
    over = await me.call({"t": "act", "room": made["room"], "action": {"do": "quit"}})
    await me.close()
    return int(over["view"]["scores"][0])


async def test_todays_deal_from_the_shared_link_to_the_result_to_share(
    page: Page, server: Server, tmp_path: Path
):
    url = f"ws://127.0.0.1:{server.port}"
    for name, moves in (("Bo", 4), ("Cy", 2)):
        await play_deal(url, name, moves)
    await page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    await sign_in(page, "Ada", "/#daily=ishido")
    await lobby_ready(page)
    panel = page.locator("section.daily")
    await expect(panel.get_by_label("Game")).to_have_value("ishido")
    await expect(panel.locator(".daily-mine")).to_contain_text("not played today's Ishido deal")
    await expect(panel.locator(".daily-table li")).to_have_count(2)
    assert await panel.get_by_role("button", name="Replay").count() == 0, "not before the day ends"
    await expect(panel.locator(".note").last).to_contain_text("once the day is over")
    await panel.get_by_role("button", name="Play today's deal").click()
    await page.locator("#board [role=grid]").wait_for()
    await expect(page.locator("#announcer")).to_contain_text("this game is your try")
    for _ in range(3):
        fits = page.locator("#board [aria-label*='the stone fits']").first
        placed = await page.locator("section.room").get_attribute("data-seq")
        await fits.click()
        await expect(page.locator("section.room")).not_to_have_attribute("data-seq", placed or "")
    await page.get_by_role("button", name="Quit").click()
    await page.get_by_role("button", name="Quit: sure?").click()
    share = page.locator("section.room .daily-share")
    await expect(share).to_be_visible()
    text = await share.locator(".share-text").inner_text()
    lines = text.splitlines()
    assert lines[0].startswith("Tilehall · Ishido · deal of ")
    assert lines[1].startswith("Score ") and "4-ways" in lines[1]
    assert lines[2] == f"http://127.0.0.1:{server.port}/#daily=ishido"
    await share.get_by_role("button", name="Copy result").click()
    await expect(page.locator("#announcer")).to_contain_text("Your result is copied")
    assert await page.evaluate("navigator.clipboard.readText()") == text
    await settle(page, 300)
    shot = tmp_path / "daily.png"
    await page.screenshot(path=str(shot))
    if os.environ.get("TILEHALL_SHOTS"):
        shutil.copy(shot, Path(os.environ["TILEHALL_SHOTS"]) / "web_daily_over.png")
    # back in the lobby, on the deal's tab: your result, practice offered, the same text
    await page.get_by_role("button", name="Leave").click()
    await lobby_ready(page)
    await expect(panel.locator(".daily-mine")).to_contain_text("Your result today:")
    await expect(panel.get_by_role("button", name="Practice again")).to_be_visible()
    await expect(panel.locator(".daily-table li")).to_have_count(3)
    assert await panel.locator(".share-text").inner_text() == text
    await panel.get_by_role("button", name="Practice again").click()
    await page.locator("#board [role=grid]").wait_for()
    await expect(page.locator("#announcer")).to_contain_text("Practice:")


async def test_once_the_day_is_over_its_best_three_are_a_tap_from_their_replay(
    page: Page, server: Server
):
    url = f"ws://127.0.0.1:{server.port}"
    scores = {
        name: await play_deal(url, name, moves)
        for name, moves in (("Bo", 5), ("Cy", 1), ("Di", 3), ("Ed", 2))
    }
    yesterday = await page.evaluate("new Date(Date.now()).toISOString().slice(0, 10)")
    clock = server.clock
    assert isinstance(clock, ShiftedClock)
    yesterday = day_of(clock.time())
    clock.offset += 86400  # the next UTC day
    await sign_in(page, "Ada", "/#daily=ishido")
    await lobby_ready(page)
    past = page.locator("section.daily .daily-past")
    await expect(past.get_by_role("heading")).to_have_text(
        f"Yesterday's deal ({yesterday}): the best three"
    )
    replays = past.get_by_role("button", name="Replay")
    await expect(replays).to_have_count(3)
    best = max(scores, key=lambda n: scores[n])
    await past.get_by_role("button", name=f"Replay {best}'s game of {yesterday}").click()
    await expect(page).to_have_url(re.compile(r"#replay="))
    await expect(page.locator("#main")).to_contain_text(best)


async def test_each_solo_game_card_opens_its_deal(page: Page, server: Server):
    """The lobby's cards offer today's deal on every game that has one, and only there."""
    await sign_in(page, "Dee")
    await lobby_ready(page)
    for card in await page.locator("li.game-card").all():
        game = await card.get_attribute("data-game")
        has_deal = game in ("ishido", "lines", "linksame", "matchit")
        assert await card.get_by_role("button", name="Today's deal").count() == int(has_deal), game
    await (
        page.locator("li.game-card[data-game=lines]")
        .get_by_role("button", name="Today's deal")
        .click()
    )
    panel = page.locator("section.daily")
    await expect(panel.get_by_label("Game")).to_have_value("lines")
    await expect(panel.locator(".daily-mine")).to_contain_text("not played today's Lines deal")
