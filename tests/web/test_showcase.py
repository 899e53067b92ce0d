"""The web lobby draws the server's own game (issue 40): on a server where nobody plays, the
live game is the all-COMP Mathable the server keeps going, drawn small and following its
moves, one tap to watch, and the next one once it is over.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Page, expect
from tilehall.server.app import Server
from tilehall.server.config import Config, Limits
from tilehall.server.lobby import showcase

from tests.helpers import Raw
from tests.web.browser import until
from tests.web.test_shell import lobby_ready, sign_in


@pytest_asyncio.fixture(loop_scope="session")
async def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Server]:
    """tests/web/conftest.py's server, keeping a showcase (as a host's does by default):
    a look every 0.1 s, the next one 0.5 s after one ends, its bots quick but followable."""
    monkeypatch.setattr(showcase, "LOOK_EVERY", 0.1)
    limits = Limits(bot_delay=0.03, ping_interval=None, showcase_pause=0.5)
    srv = Server(Config(port=0, data_dir=tmp_path, limits=limits))
    await srv.start()
    yield srv
    await srv.stop()


async def showcases(url: str, name: str) -> list[str]:
    """The showcases the server lists now, not over, as a client of its own reads them."""
    probe = await Raw.open(url, name)
    reply = await probe.call({"t": "rooms"})
    assert reply["t"] == "rooms", reply
    await probe.close()
    return [r["room"] for r in reply["rooms"] if r.get("showcase") and r["status"] != "over"]


async def test_the_lobby_shows_the_servers_own_game_live_and_the_next_when_it_ends(
    page: Page, url: str, server: Server
):
    await sign_in(page, "Ada")
    await lobby_ready(page)
    first = await showcases(url, "Probe1")
    assert len(first) == 1
    live = page.locator("section.live")
    await expect(live).to_be_visible()
    await expect(live.locator(".showcase-note")).to_have_text(
        "The computer against itself, while nobody plays."
    )
    await expect(live.get_by_role("button", name=f"Watch Mathable {first[0]}")).to_be_visible()
    await live.locator(".live-board [role=grid]").wait_for(state="attached")
    # Watched from the lobby, its bots play: the scores move, to the end.
    await until(page, "/Scores [1-9]/.test(document.querySelector('.live-line').textContent)")
    await expect(live.locator(".live-line")).to_have_text("Game over.", timeout=60_000)
    # The next one, made by the server after its pause, is the lobby's live game next.
    second_button = live.get_by_role("button", name=f"Watch Mathable {first[0]}")
    await expect(second_button).to_have_count(0, timeout=30_000)
    second = await showcases(url, "Probe2")
    assert len(second) == 1 and second != first
    watch = live.get_by_role("button", name=f"Watch Mathable {second[0]}")
    await watch.click()
    await page.wait_for_url(f"**/r/{second[0]}")
    await expect(page.locator("section.room")).to_have_attribute("data-seat", "")
