"""A first visit's bytes (issue 40): everything the page loads from a cold browser, to the
lobby's cards and its room list, fits in 100 KB as sent (headers and gzip included).

Measured as bench/web_page.py does (Chromium's Network.loadingFinished, WebSocket traffic
left out); the bench also times the first card (goals: 300 ms, and 1.0 s on a phone with a
4x slower CPU).
"""

from __future__ import annotations

from playwright.async_api import Browser

from bench.web_page import FIRST_VISIT_BUDGET, Traffic
from tests.web.browser import PHONE
from tests.web.conftest import watch
from tests.web.test_shell import lobby_ready, sign_in


async def test_a_first_visit_is_at_most_100_kb(
    browser: Browser, base_url: str, console_errors: list[str]
):
    for options in ({}, PHONE):
        context = await browser.new_context(base_url=base_url, **options)
        watch(context, console_errors)
        try:
            page = await context.new_page()
            traffic = Traffic()
            await traffic.attach(context, page)
            await sign_in(page, "Ada" if not options else "Bea")
            await lobby_ready(page)
            await page.wait_for_load_state("networkidle")
            listing = traffic.listing()
            assert any(item["url"].startswith("js/lobby.js") for item in listing), listing
            assert traffic.total <= FIRST_VISIT_BUDGET, (traffic.total, listing)
        finally:
            await context.close()
