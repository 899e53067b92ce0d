"""Installable (issue 40): a web app manifest and icons, so that "add to home screen" gives a
Tilehall icon that opens the lobby on its own; all of it under the page's CSP as it is."""

from __future__ import annotations

import json
import struct
from typing import Any

from playwright.async_api import Page

from tests.web.test_shell import lobby_ready, sign_in
from tests.web.test_static import WEB


def png_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height, from its IHDR chunk."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


async def test_the_manifest_and_its_icons_are_served_and_chromium_can_install_the_page(
    page: Page,
):
    await sign_in(page, "Ada")
    await lobby_ready(page)  # the page loaded its manifest and icon: no CSP error said so
    href = await page.evaluate("document.querySelector('link[rel=manifest]').href")
    response = await page.request.get(href)
    assert response.status == 200
    assert response.headers["content-type"] == "application/manifest+json"
    manifest: dict[str, Any] = json.loads(await response.body())
    assert manifest["name"] == manifest["short_name"] == "Tilehall"
    assert manifest["start_url"] == "/" and manifest["display"] in ("standalone", "fullscreen")
    sizes = set()
    total = 0
    for icon in manifest["icons"]:
        got = await page.request.get(icon["src"])
        assert got.status == 200, icon
        assert got.headers["content-type"] == icon["type"], icon
        body = await got.body()
        total += len(body)
        if icon["type"] == "image/png":
            w, h = png_size(body)
            assert f"{w}x{h}" == icon["sizes"], icon
            sizes.add(icon["sizes"])
    assert {"192x192", "512x512"} <= sizes  # what an install asks for
    assert total < 20_000, total  # small pictures, no large binaries
    # Chromium reads the manifest as an installable app's, with nothing to object to.
    cdp = await page.context.new_cdp_session(page)
    read = await cdp.send("Page.getAppManifest")
    assert read["errors"] == [], read["errors"]
    assert json.loads(read["data"])["name"] == "Tilehall"
    found = await cdp.send("Page.getInstallabilityErrors")
    # Playwright's contexts are incognito, where nothing installs: the harness's, not the page's
    errors = [e for e in found["installabilityErrors"] if e["errorId"] != "in-incognito"]
    assert errors == [], found


def test_the_manifest_in_the_folder_names_only_files_of_the_folder():
    manifest = json.loads((WEB / "manifest.webmanifest").read_text())
    for icon in manifest["icons"]:
        assert (WEB / icon["src"].lstrip("/")).is_file(), icon
    index = (WEB / "index.html").read_text()
    assert '<link rel="manifest" href="/manifest.webmanifest">' in index
