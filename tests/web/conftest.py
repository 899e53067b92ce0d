"""Browser fixtures: Debian's Chromium driven by Playwright, against a real server.

The server is the suite's own (tests/conftest.py ``server``: in this process, on
127.0.0.1, a free port, its own SQLite file), and Playwright's async API runs in
the same event loop as it, so a test can drive the page and a protocol client side
by side. The browser is the system's Chromium (tests/web/browser.py): without it a browser
test fails, and says how to install it.

One Chromium serves the whole session (a launch is seconds of a loaded machine's time,
a test's own context a tenth of that); each test still gets its own server, its own
contexts (cookies, storage, pages: nothing carries over) and every context it left
open is closed after it. So the web tests run in the session's event loop, which
Playwright's objects are bound to: :func:`pytest_pycollect_makeitem` marks them so, and the
async fixtures they use (``server`` too) run in that loop.

Every page records the console's errors and the page's uncaught exceptions, and a
test that leaves any fails at teardown. A test that provokes one on purpose takes
it out of ``console_errors`` (a list of strings) before it ends.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import pytest_asyncio
from tilehall.server.app import Server

from tests import helpers
from tests.web.browser import PHONE, chromium, launch

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Page


@pytest.fixture
def base_url(server: Server) -> str:
    """The page's address on the test server (the web client is on by default)."""
    return f"http://127.0.0.1:{server.port}"


def _is_async(obj: object) -> bool:
    inner = getattr(getattr(obj, "hypothesis", None), "inner_test", None)  # @given wraps it
    return inspect.iscoroutinefunction(obj) or inspect.iscoroutinefunction(inner)


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: object) -> None:
    """Run every async test of this folder in the session's event loop (see above).

    On the function itself, before pytest-asyncio reads its mark at collection.
    """
    here = Path(__file__).parent
    if Path(collector.path).parent == here and name.startswith("test") and _is_async(obj):
        pytest.mark.asyncio(loop_scope="session")(obj)


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that drives Chromium is ``slow`` (a browser process): the inner loop skips it."""
    here = Path(__file__).parent
    for item in items:
        if Path(item.path).parent == here and "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


@pytest_asyncio.fixture(loop_scope="session")
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    """tests/conftest.py's ``server``, in the session's loop: the page's tests drive it."""
    srv = Server(helpers.in_process_config(tmp_path))
    await srv.start()
    yield srv
    await srv.stop()


class _Chromium:
    """The session's browser, launched at first use and again if it ever went away."""

    def __init__(self, playwright: Any) -> None:
        self.playwright = playwright
        self.browser: Browser | None = None

    async def get(self) -> Browser:
        if self.browser is None or not self.browser.is_connected():
            self.browser = await launch(self.playwright)
        return self.browser


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def _chromium() -> AsyncIterator[_Chromium]:
    chromium()
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        pytest.fail("playwright is missing: pip install -e '.[dev]'", pytrace=False)
    async with async_playwright() as playwright:
        holder = _Chromium(playwright)
        try:
            yield holder
        finally:
            if holder.browser is not None and holder.browser.is_connected():
                await holder.browser.close()


@pytest_asyncio.fixture(loop_scope="session")
async def browser(_chromium: _Chromium) -> AsyncIterator[Browser]:
    """Headless Chromium: the session's one, with no context of an earlier test left."""
    chromium()
    b = await _chromium.get()
    try:
        yield b
    finally:
        for context in list(b.contexts):  # one the test made itself and left open
            with contextlib.suppress(Exception):
                await context.close()


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


@pytest_asyncio.fixture(loop_scope="session")
async def page(browser: Browser, base_url: str, console_errors: list[str]) -> AsyncIterator[Page]:
    """A desktop-sized page whose relative URLs go to the test server; fails on any error."""
    async for p in _page(browser, base_url, console_errors):
        yield p


@pytest_asyncio.fixture(loop_scope="session")
async def phone(browser: Browser, base_url: str, console_errors: list[str]) -> AsyncIterator[Page]:
    """A phone-sized page (:data:`PHONE`); fails on any error, as :func:`page` does."""
    async for p in _page(browser, base_url, console_errors, **PHONE):
        yield p
