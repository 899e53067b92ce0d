"""Browser fixtures: Debian's Chromium driven by Playwright, against a real server.

The server is the suite's own (tests/conftest.py ``server``: in this process, on
127.0.0.1, a free port, its own SQLite file), and Playwright's async API runs in
the same event loop as it, so a test can drive the page and a protocol client side
by side. The browser is the system's Chromium (tests/web/browser.py): without it a browser
test fails, and says how to install it.

Every page records the console's errors and the page's uncaught exceptions, and a
test that leaves any fails at teardown. A test that provokes one on purpose takes
it out of ``console_errors`` (a list of strings) before it ends.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import pytest
from tilehall.server.app import Server

from tests.web.browser import PHONE, chromium, launch

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Page


@pytest.fixture
def base_url(server: Server) -> str:
    """The page's address on the test server (the web client is on by default)."""
    return f"http://127.0.0.1:{server.port}"


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    """Headless Chromium, one per test (a launch costs well under a second)."""
    chromium()
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        pytest.fail("playwright is missing: pip install -e '.[dev]'", pytrace=False)
    async with async_playwright() as playwright:
        b = await launch(playwright)
        try:
            yield b
        finally:
            await b.close()


@pytest.fixture
def console_errors() -> list[str]:
    """The console errors and uncaught exceptions of this test's pages, as they come."""
    return []


def watch(context: BrowserContext, errors: list[str]) -> None:
    """Record every page of ``context``'s console errors and uncaught exceptions."""

    def on_page(page: Page) -> None:
        page.on(
            "console",
            lambda msg: (
                errors.append(f"console.error at {page.url}: {msg.text} ({msg.location})")
                if msg.type == "error"
                else None
            ),
        )
        page.on("pageerror", lambda exc: errors.append(f"uncaught at {page.url}: {exc}"))

    context.on("page", on_page)


async def _page(
    browser: Browser, base_url: str, errors: list[str], **options: Any
) -> AsyncIterator[Page]:
    context = await browser.new_context(base_url=base_url, **options)
    watch(context, errors)
    page = await context.new_page()
    try:
        yield page
    finally:
        await context.close()
    if errors:
        pytest.fail(
            "the browser reported errors:\n" + "\n".join(f"  {e}" for e in errors), pytrace=False
        )


@pytest.fixture
async def page(browser: Browser, base_url: str, console_errors: list[str]) -> AsyncIterator[Page]:
    """A desktop-sized page whose relative URLs go to the test server; fails on any error."""
    async for p in _page(browser, base_url, console_errors):
        yield p


@pytest.fixture
async def phone(browser: Browser, base_url: str, console_errors: list[str]) -> AsyncIterator[Page]:
    """A phone-sized page (:data:`PHONE`); fails on any error, as :func:`page` does."""
    async for p in _page(browser, base_url, console_errors, **PHONE):
        yield p
