"""Keeping a name in the browser (issue 29): passwords, a second device, signing out.

Each test drives the page (Debian's Chromium through Playwright; the fixtures fail a
test on any console error) against a real server, and checks what the server holds
through a Python client over a real WebSocket: a password the page set signs in,
a token the page gave back no longer does, a signed-out connection was closed 4001.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from playwright.async_api import Browser, BrowserContext, Page, expect
from tilehall.protocol import CloseCode
from tilehall.server.app import Server

from tests.helpers import Raw
from tests.server.test_accounts import admin, close_code
from tests.web.conftest import watch
from tests.web.test_shell import ROOM_URL, lobby_ready, sign_in

PASSWORD = "correct horse battery"
NEW_PASSWORD = "a new one, longer"


async def device(browser: Browser, base_url: str, errors: list[str]) -> tuple[BrowserContext, Page]:
    """Another device: a context of its own, so an empty localStorage."""
    context = await browser.new_context(base_url=base_url)
    watch(context, errors)
    return context, await context.new_page()


async def stored(page: Page) -> list[dict[str, Any]]:
    """The names this browser remembers, as names.js keeps them."""
    names: list[dict[str, Any]] = await page.evaluate(
        "JSON.parse(localStorage.getItem('tilehall.names') || '[]')"
    )
    return names


async def sign_in_with_password(page: Page, name: str, password: str) -> None:
    """A name the server keeps with a password: it is asked for, then typed."""
    await sign_in(page, name)
    await expect(page.get_by_role("heading", name=f"Sign in as {name}")).to_be_visible()
    await page.get_by_label("Password", exact=True).fill(password)
    await page.get_by_role("button", name="Sign in").click()


def sockets(page: Page) -> list[str]:
    """Every WebSocket the page opens from now on, by its address."""
    opened: list[str] = []
    page.on("websocket", lambda ws: opened.append(ws.url))
    return opened


async def test_a_password_set_in_the_page_brings_the_name_to_a_second_device(
    browser: Browser, page: Page, base_url: str, url: str, console_errors: list[str]
):
    await sign_in(page, "Ada")
    await lobby_ready(page)
    await page.locator(".game-card[data-game=lines]").get_by_role("button", name="Play").click()
    await page.wait_for_url(ROOM_URL)
    match = ROOM_URL.search(page.url)
    assert match
    room = match.group(1)
    await expect(page.locator("section.room")).to_have_attribute("data-seat", "0")

    account = page.get_by_role("button", name="Account")
    await account.click()
    dialog = page.get_by_role("dialog", name="Account: Ada")
    await expect(dialog).to_be_visible()
    await dialog.get_by_label("New password").fill("too short")
    await dialog.get_by_role("button", name="Set password").click()
    await expect(dialog.get_by_role("alert")).to_contain_text("at least 10")
    await dialog.get_by_label("New password").fill(PASSWORD)
    await dialog.get_by_role("button", name="Set password").click()
    await expect(dialog.get_by_role("status")).to_contain_text("Password set")
    await expect(dialog.locator("form [role=alert]")).to_be_empty()  # the error is gone
    # Changing it needs the current one: without it, or with a wrong one, the server's word.
    await dialog.get_by_label("New password").fill(NEW_PASSWORD)
    await dialog.get_by_role("button", name="Set password").click()
    await expect(dialog.get_by_role("alert")).to_contain_text("old_password")
    await dialog.get_by_label("Current password").fill("not the password")
    await dialog.get_by_role("button", name="Set password").click()
    await expect(dialog.get_by_role("alert")).to_contain_text("not the password")
    await dialog.get_by_label("Current password").fill(PASSWORD)
    await dialog.get_by_role("button", name="Set password").click()
    await expect(dialog.get_by_role("status")).to_contain_text("Password set")
    assert await dialog.get_by_label("Current password").input_value() == ""  # not kept
    await page.keyboard.press("Escape")
    await expect(dialog).to_have_count(0)
    await expect(account).to_be_focused()

    # The server holds it: a hello by name and password is welcomed, with Ada's seat.
    probe = await Raw.open(url)
    old = await probe.call({"t": "hello", "v": 1, "name": "Ada", "password": PASSWORD})
    assert old["code"] == "bad_password", old
    await probe.close()
    probe = await Raw.open(url)
    welcome = await probe.call({"t": "hello", "v": 1, "name": "Ada", "password": NEW_PASSWORD})
    assert welcome["t"] == "welcome" and room in welcome["rooms"], welcome
    await probe.close()

    context, other = await device(browser, base_url, console_errors)
    try:
        await sign_in(other, "Ada")
        prompt = other.get_by_label("Password", exact=True)
        await expect(prompt).to_be_focused()
        assert await prompt.get_attribute("type") == "password"
        await prompt.fill("not the password")
        await other.get_by_role("button", name="Sign in").click()
        await expect(other.get_by_role("alert")).to_contain_text(re.compile("password", re.I))
        await other.get_by_label("Password", exact=True).fill(NEW_PASSWORD)
        await other.keyboard.press("Enter")
        await lobby_ready(other)
        await other.get_by_role("button", name=f"Resume room {room}").click()
        await expect(other.locator("section.room")).to_have_attribute("data-seat", "0")
        mine = await stored(other)
        first = await stored(page)
        assert [n["name"] for n in mine] == ["Ada"] and mine[0]["token"]
        assert mine[0]["token"] != first[0]["token"]  # a token of its own; the first keeps its
        assert not any("password" in str(n).lower() for n in mine)  # never the password
    finally:
        await context.close()
    await expect(page.locator("#status")).to_be_empty()  # the first device is still online


async def test_sign_out_everywhere_closes_the_other_devices_for_good(
    browser: Browser, page: Page, base_url: str, url: str, console_errors: list[str]
):
    bo = await Raw.open(url, "Bo")
    assert (await bo.call({"t": "set_password", "password": PASSWORD}))["t"] == "password_set"
    await sign_in_with_password(page, "Bo", PASSWORD)
    await lobby_ready(page)
    lines = page.locator(".game-card[data-game=lines]")
    await lines.get_by_role("button", name="Play").click()  # signed out while playing
    await expect(page.locator("section.room")).to_have_attribute("data-seat", "0")
    await page.get_by_role("button", name="Account").click()  # a dialog open at that moment
    await expect(page.get_by_role("dialog", name="Account: Bo")).to_be_visible()
    opened = sockets(page)
    context, other = await device(browser, base_url, console_errors)
    try:
        await sign_in_with_password(other, "Bo", PASSWORD)
        await lobby_ready(other)
        await other.get_by_role("button", name="Account").click()
        await other.get_by_role("button", name="Sign out everywhere").click()
        confirm = other.locator(".account-confirm")
        await expect(confirm).to_contain_text("Every device's key for Bo stops working")
        await other.get_by_role("button", name="Yes, sign out everywhere").click()
        await expect(other.get_by_role("status").filter(has_text="every device")).to_be_visible()
        assert [n.get("token") for n in await stored(other)] == [None]
    finally:
        await context.close()

    assert await close_code(bo) == CloseCode.SIGNED_OUT
    alert = page.get_by_role("alert")
    await expect(alert).to_contain_text("signed out on another device")
    await expect(page.get_by_label("Your name")).to_be_focused()
    await expect(page.get_by_role("dialog", name="Account: Bo")).to_have_count(0)
    assert [(n["name"], n.get("token")) for n in await stored(page)] == [("Bo", None)]
    await asyncio.sleep(2)  # longer than the first reconnect's back-off
    assert opened == [], opened  # no hello again with the dead token
    await expect(page.locator("#status")).to_be_empty()
    # The name is still offered; picking it asks for the password, which signs in again.
    await page.get_by_role("button", name="Bo", exact=True).click()
    await page.get_by_label("Password", exact=True).fill(PASSWORD)
    await page.get_by_role("button", name="Sign in").click()
    await lobby_ready(page)
    assert (await stored(page))[0]["token"]


async def test_sign_out_asks_first_and_a_name_without_a_password_is_offered_one(
    page: Page, url: str
):
    """Issue 37 (1): "Sign out here" lost a name without a password at once, and said
    its password would sign in again."""
    await sign_in(page, "Cy")
    await lobby_ready(page)
    token = (await stored(page))[0]["token"]
    other = await Raw.open(url, "Dee")  # someone else's connection is not touched
    await page.get_by_role("button", name="Account").click()
    dialog = page.get_by_role("dialog", name="Account: Cy")
    await expect(dialog.locator(".account-out")).to_contain_text("Cy has no password yet")
    await dialog.get_by_role("button", name="Sign out here").click()
    await expect(dialog.locator(".account-confirm")).to_contain_text("Cy has no password")
    assert await dialog.get_by_role("button", name=re.compile("^Yes")).count() == 0
    await dialog.get_by_role("button", name="Set a password first").click()
    await expect(dialog.get_by_label("New password")).to_be_focused()
    assert [(n["name"], n["token"]) for n in await stored(page)] == [("Cy", token)]
    await dialog.get_by_label("New password").fill(PASSWORD)
    await dialog.get_by_role("button", name="Set password").click()
    await expect(dialog.get_by_role("status")).to_contain_text("Password set")
    await dialog.get_by_role("button", name="Sign out here").click()
    await expect(dialog.locator(".account-confirm")).to_contain_text("Sign Cy out of this browser?")
    await dialog.get_by_role("button", name="Yes, sign out here").click()
    await expect(page.get_by_role("status").filter(has_text="signed out here")).to_be_visible()
    await expect(page.get_by_label("Your name")).to_be_focused()
    assert [(n["name"], n.get("token")) for n in await stored(page)] == [("Cy", None)]
    probe = await Raw.open(url)
    refused = await probe.call({"t": "hello", "v": 1, "token": token})
    assert refused["code"] == "bad_token", refused
    await probe.close()
    assert (await other.call({"t": "ping"}))["t"] == "pong"
    await other.close()
    # The password signs in again.
    await page.get_by_role("button", name="Cy", exact=True).click()
    await page.get_by_label("Password", exact=True).fill(PASSWORD)
    await page.get_by_role("button", name="Sign in").click()
    await lobby_ready(page)


async def test_forget_asks_first_keeps_a_name_without_a_password_and_signs_out_one_with(
    page: Page, url: str
):
    """Issue 37 (2): "forget" dropped the key at once, without a word, and left it alive on
    the server; typing the name again then said name_taken."""
    await sign_in(page, "Gil")
    await lobby_ready(page)
    gil = (await stored(page))[0]["token"]
    await page.get_by_role("button", name="Change name").click()
    await page.get_by_role("button", name="Forget").click()
    ask = page.get_by_role("dialog", name="Forget Gil?")
    await expect(ask).to_contain_text("Gil has no password")
    await expect(ask.get_by_role("button", name="Forget Gil")).to_have_count(0)
    await ask.get_by_role("button", name="Keep Gil").click()
    await expect(ask).to_have_count(0)
    assert [(n["name"], n["token"]) for n in await stored(page)] == [("Gil", gil)]
    probe = await Raw.open(url)
    back = await probe.call({"t": "hello", "v": 1, "token": gil})
    assert back["t"] == "welcome"
    assert (await probe.call({"t": "set_password", "password": PASSWORD}))["t"] == "password_set"
    await probe.close()
    # With a password, forgetting signs the name out here: its key stops working.
    await page.get_by_role("button", name="Forget").click()
    ask = page.get_by_role("dialog", name="Forget Gil?")
    await expect(ask).to_contain_text("signs Gil out")
    await ask.get_by_role("button", name="Forget Gil").click()
    await expect(page.get_by_role("status").filter(has_text="forgot Gil")).to_be_visible()
    assert await stored(page) == []
    probe = await Raw.open(url)
    dead = await probe.call({"t": "hello", "v": 1, "token": gil})
    assert dead["code"] == "bad_token"
    again = await probe.call({"t": "hello", "v": 1, "name": "Gil", "password": PASSWORD})
    assert again["t"] == "welcome"
    await probe.close()


async def test_too_many_wrong_passwords_make_the_page_wait(page: Page, url: str):
    eve = await Raw.open(url, "Eve")
    await eve.call({"t": "set_password", "password": PASSWORD})
    for _ in range(5):
        probe = await Raw.open(url)
        wrong = await probe.call({"t": "hello", "v": 1, "name": "Eve", "password": "x" * 12})
        assert wrong["code"] == "bad_password"
        await probe.close()
    opened = sockets(page)
    await sign_in_with_password(page, "Eve", PASSWORD)  # the right one waits too
    await expect(page.get_by_role("alert")).to_contain_text(re.compile(r"Try again in \d+ minutes"))
    await expect(page.get_by_role("button", name="Sign in")).to_be_disabled()
    await asyncio.sleep(1)
    assert len(opened) <= 2, opened  # the hello by name, the one with the password: no retries
    assert (await eve.call({"t": "ping"}))["t"] == "pong"  # the signed-in device is untouched
    await eve.close()


@pytest.mark.slow  # the host's admin command runs as a process
async def test_a_barred_name_is_said_and_not_reconnected(page: Page, server: Server, url: str):
    await sign_in(page, "Fay")
    await lobby_ready(page)
    opened = sockets(page)
    barred = await asyncio.to_thread(admin, server.config.data_dir, "player", "Fay", "--disable")
    assert "DISABLED" in barred.stdout, barred.stderr
    await expect(page.get_by_role("alert")).to_contain_text("barred")
    await asyncio.sleep(2)
    assert opened == [], opened
    # The token is kept (a bar can be lifted); with it the server says the name is barred.
    assert (await stored(page))[0]["token"]
    await page.get_by_role("button", name="Fay", exact=True).click()
    await expect(page.get_by_role("alert")).to_contain_text("barred the name Fay")
    await asyncio.sleep(1)  # Playwright may tell of the socket after the page showed its end
    assert len(opened) == 1, opened  # that one hello, no retries
    await server.lobby.accounts.bar("Fay", False)  # the bar lifted: the key kept plays on
    await page.get_by_role("button", name="Fay", exact=True).click()
    await lobby_ready(page)
