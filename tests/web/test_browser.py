"""The page in a real browser: it loads from the server, under its CSP, with no errors.

The console-error check is the fixtures' (tests/web/conftest.py): any error or
uncaught exception fails a test at teardown.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page
from tilehall.server.app import Server
from tilehall.server.net.web import WebFiles

from tests.helpers import Raw
from tests.web.browser import chromium, until


async def test_the_page_loads_with_no_errors(page: Page, base_url: str):
    response = await page.goto("/")
    assert response is not None and response.status == 200
    assert "Tilehall" in await page.title()
    assert response.headers["content-security-policy"].startswith("default-src 'self'")
    await page.wait_for_load_state("load")


async def test_a_room_address_opens_the_page(page: Page, server: Server):
    a = await Raw.open(f"ws://127.0.0.1:{server.port}", "Ada")
    room = (await a.call({"t": "create", "game": "mathable"}))["room"]
    response = await page.goto(f"/r/{room}?seat=0")
    assert response is not None and response.status == 200
    assert "Tilehall" in await page.title()
    assert await page.evaluate("location.pathname") == f"/r/{room}"
    await page.wait_for_load_state("load")
    await a.close()


async def test_a_phone_sized_page_loads_with_no_errors(phone: Page):
    await phone.goto("/r/SOMEROOM")
    assert "Tilehall" in await phone.title()
    assert await phone.evaluate("[innerWidth, matchMedia('(pointer: coarse)').matches]") == [
        390,
        True,
    ]


async def test_the_csp_lets_the_page_reach_its_own_websocket_and_msgpack(page: Page):
    """What the shell needs: the vendored msgpack runs under the CSP, and a same-host socket opens.

    A hello sent by the page, msgpack-encoded, is answered with a welcome.
    """
    await page.goto("/")
    await page.add_script_tag(url="/vendor/msgpack.min.js")
    reply = await page.evaluate(
        """() => new Promise((resolve, reject) => {
            const ws = new WebSocket(`ws://${location.host}/`);
            ws.binaryType = "arraybuffer";
            ws.onopen = () => ws.send(MessagePack.encode({t: "hello", v: 1, name: "Page", id: 1}));
            ws.onmessage = (e) => {
                resolve(MessagePack.decode(new Uint8Array(e.data)));
                ws.close();
            };
            ws.onerror = () => reject(new Error("the WebSocket did not open"));
        })"""
    )
    assert reply["t"] == "welcome" and reply["re"] == 1


PROBE = """
const report = [];
const s = document.createElement("script");
s.textContent = "window.injected = true";
document.body.append(s);
report.push(window.injected === true ? "inline ran" : "inline blocked");
try { eval("1"); report.push("eval ran"); } catch (e) { report.push("eval blocked"); }
try { new Function("return 1")(); report.push("Function ran"); }
catch (e) { report.push("Function blocked"); }
document.title = report.join(", ");
"""


async def test_the_csp_blocks_inline_script_and_eval(
    page: Page, server: Server, tmp_path: Path, console_errors: list[str]
):
    """A script of the page's own that tries what an injected one would: all of it is refused."""
    (tmp_path / "index.html").write_text(
        '<!doctype html><title>probe</title><link rel="icon" href="data:,">'
        '<body onload="window.inline_handler = true"><script src="/probe.js" defer></script>'
    )
    (tmp_path / "probe.js").write_text(PROBE)
    server.web = WebFiles.load(tmp_path)
    await page.goto("/")
    await until(page, "document.title !== 'probe'")
    assert await page.title() == "inline blocked, eval blocked, Function blocked"
    assert await page.evaluate("window.inline_handler") is None
    blocked = [e for e in console_errors if "Content Security Policy" in e]
    assert blocked, console_errors  # Chromium says why, on the console
    console_errors.clear()  # provoked on purpose


def test_a_missing_chromium_fails_and_says_how_to_install_it(tmp_path: Path):
    with pytest.raises(pytest.fail.Exception, match="apt-get install -y chromium"):
        chromium(tmp_path / "chromium")
