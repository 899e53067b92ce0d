"""Debian's Chromium as the web tests and bench/web_*.py drive it (Playwright, no download).

The browser is the system's (``/usr/bin/chromium``, Debian's ``chromium`` package,
which .ci/run installs when it is missing); Playwright never downloads one. Without
it, :func:`chromium` fails the test (or stops the benchmark) and says how to
install it: a skipped browser test would make a green run out of a missing step.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page

CHROMIUM = Path("/usr/bin/chromium")
"""Debian's Chromium (apt package ``chromium``)."""

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",  # CI runs as root, where Chromium's sandbox will not start
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""Headless, and quiet: nothing but the page may open a connection."""

PHONE: dict[str, Any] = {
    "viewport": {"width": 390, "height": 844},
    "has_touch": True,
    "is_mobile": True,
}
"""A phone-sized page: 390x844 CSS pixels, touch, a mobile viewport."""

MISSING = (
    "no Chromium at {path}: the browser tests need Debian's chromium package "
    "(apt-get update && apt-get install -y chromium; .ci/run does this when it is "
    "missing). Playwright's own browser download is not used."
)


def chromium(path: Path = CHROMIUM) -> Path:
    """The browser to drive, or a test failure that says how to install it."""
    if not path.exists():
        pytest.fail(MISSING.format(path=path), pytrace=False)
    return path


async def launch(playwright: Any, path: Path = CHROMIUM) -> Browser:
    """Start headless Chromium from ``path`` with :data:`CHROMIUM_ARGS`."""
    browser: Browser = await playwright.chromium.launch(
        executable_path=str(chromium(path)), args=CHROMIUM_ARGS, headless=True
    )
    return browser


async def until(page: Page, expression: str, timeout: float = 20.0) -> None:
    """Wait until the JavaScript ``expression`` is true in the page.

    The one way the web tests wait on a page condition. Not ``page.wait_for_function``:
    Playwright compiles a string given to it with eval inside the page, which the page's
    CSP refuses, so it fails at random (whenever the first try is not already true).
    ``page.evaluate`` goes through the DevTools protocol, which the CSP does not govern.
    A navigation in between (the page's context replaced) is waited out, not an error.
    """
    from playwright.async_api import Error

    async with asyncio.timeout(timeout):
        while True:
            try:
                if await page.evaluate(expression):
                    return
            except Error as err:
                if "context was destroyed" not in str(err) and "navigat" not in str(err):
                    raise
            await asyncio.sleep(0.05)
