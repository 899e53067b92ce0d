"""The lobby that starts games (issue 40): a card per game from the server's ``welcome``, one
tap to play, every option one tap away, a live game to watch, a code as a small link.

Each test drives Chromium (tests/web/conftest.py) and checks what the server holds
through a Python client of its own, over a real WebSocket.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.async_api import Page, expect
from tilehall.server.app import Server

from tests.helpers import Raw
from tests.web.browser import until
from tests.web.test_shell import ROOM_URL, lobby_ready, sign_in, summary


def room_of(page: Page) -> str:
    match = ROOM_URL.search(page.url)
    assert match, page.url
    return match.group(1)


async def welcome_games(url: str) -> list[dict[str, Any]]:
    """The games the server lists in its welcome, as a client of its own reads them."""
    probe = await Raw.open(url)
    welcome = await probe.call({"t": "hello", "v": 1, "name": "Probe"})
    await probe.close()
    games: list[dict[str, Any]] = welcome["games"]
    return games


@pytest.mark.parametrize("size", ["desktop", "phone"])
async def test_a_card_for_every_game_the_server_offers_and_the_cards_first(
    page: Page, phone: Page, url: str, size: str
):
    tab = page if size == "desktop" else phone
    games = await welcome_games(url)
    await sign_in(tab, "Ada")
    await lobby_ready(tab)
    cards = tab.locator(".game-card")
    # one card per game of welcome.games, in its order, titled and described by the server
    assert await cards.evaluate_all("cs => cs.map(c => c.dataset.game)") == [
        g["name"] for g in games
    ]
    for g in games:
        card = tab.locator(f".game-card[data-game={g['name']}]")
        await expect(card.get_by_role("heading")).to_have_text(g["title"])
        assert g["summary"], g["name"]
        await expect(card).to_contain_text(g["summary"])
        assert await card.locator("svg.thumb").count() == 1
        buttons = await card.get_by_role("button").all_inner_texts()
        if g["max_seats"] == 1:  # and today's deal where the game has one (tests/web/test_daily.py)
            deal = ["Today's deal"] if g.get("daily") else []
            assert buttons == ["Play", *deal, "More options"], g["name"]
        else:
            assert buttons == [
                "Play the computer",
                "Quick match",
                "Play with a friend",
                "More options",
            ]
    # The first card is on the first screen, above the rooms list; the code is a small link.
    first = await cards.first.bounding_box()
    rooms = await tab.get_by_role("button", name="Rooms").bounding_box()
    assert first and rooms and first["y"] < rooms["y"]
    assert first["y"] + 100 < (tab.viewport_size or {"height": 0})["height"]
    await expect(tab.get_by_label("Private room code")).to_be_hidden()
    code = tab.get_by_role("button", name="Join with a code")
    assert await code.get_attribute("class") == "link"
    code_box = await code.bounding_box()
    assert code_box and code_box["y"] > rooms["y"]
    await code.click()
    await expect(tab.get_by_label("Private room code")).to_be_focused()
    scroll, inner = await tab.evaluate("[document.documentElement.scrollWidth, innerWidth]")
    assert scroll <= inner


async def test_a_solo_game_starts_at_once_with_its_defaults(page: Page, url: str):
    await sign_in(page, "Ada")
    await lobby_ready(page)
    card = page.locator(".game-card[data-game=ishido]")
    await card.get_by_role("button", name="Play").click()
    await page.wait_for_url(ROOM_URL)
    await expect(page.locator("section.room")).to_have_attribute("data-seat", "0")
    await expect(page.locator("#board [role=grid]")).to_have_count(1)
    ishido = next(g for g in await welcome_games(url) if g["name"] == "ishido")
    probe = await Raw.open(url, "Probe2")
    entry = await summary(probe, room_of(page), "ishido")
    assert entry["status"] == "playing"
    assert [s["name"] for s in entry["seats"]] == ["Ada"]
    defaults = {o["name"]: o["default"] for o in ishido["options"]}
    assert {k: entry["options"][k] for k in defaults} == defaults
    await probe.close()


async def test_mathable_against_the_computer_in_one_tap(phone: Page, url: str):
    await sign_in(phone, "Ada")
    await lobby_ready(phone)
    card = phone.locator(".game-card[data-game=mathable]")
    await card.get_by_role("button", name="Play the computer").tap()
    await phone.wait_for_url(ROOM_URL)
    await expect(phone.locator("section.room")).to_have_attribute("data-seat", "0")
    await expect(phone.locator("#board [role=grid]")).to_have_count(1)
    probe = await Raw.open(url, "Probe")
    entry = await summary(probe, room_of(phone), "mathable")
    assert entry["status"] == "playing"
    assert entry["seats"][0]["name"] == "Ada" and not entry["seats"][0]["bot"]
    assert entry["seats"][1]["bot"]
    await probe.close()


async def test_mathable_with_a_friend_makes_a_private_room_and_its_link(
    page: Page, phone: Page, url: str
):
    await sign_in(page, "Ada")
    await lobby_ready(page)
    card = page.locator(".game-card[data-game=mathable]")
    await card.get_by_role("button", name="Play with a friend").click()
    await page.wait_for_url(re.compile(r"/r/[^/#?]+#code="))
    link = page.url
    await expect(page.locator("#board")).to_contain_text("Send the room's link")
    await expect(page.get_by_role("button", name="Copy link")).to_be_visible()
    room = room_of(page)
    probe = await Raw.open(url, "Probe")
    listed = await probe.call({"t": "rooms", "game": "mathable"})
    assert room not in [r["room"] for r in listed["rooms"]]  # private: not listed
    # The friend opens the link on a phone and takes the other seat: play starts.
    await phone.goto(link)
    await phone.get_by_label("Your name").fill("Bea")
    await phone.get_by_role("button", name="Play").click()
    await phone.get_by_role("button", name="Take seat 2").tap()
    await expect(phone.locator("section.room")).to_have_attribute("data-seat", "1")
    await expect(page.locator(".room-info")).to_contain_text("Playing")
    await probe.close()


async def test_quick_match_pairs_two_players(page: Page, phone: Page, url: str):
    await sign_in(page, "Ada")
    await sign_in(phone, "Bea")
    await lobby_ready(page)
    await lobby_ready(phone)
    await (
        page.locator(".game-card[data-game=mathable]")
        .get_by_role("button", name="Quick match")
        .click()
    )
    await page.wait_for_url(ROOM_URL)
    await (
        phone.locator(".game-card[data-game=mathable]")
        .get_by_role("button", name="Quick match")
        .tap()
    )
    await phone.wait_for_url(ROOM_URL)
    assert room_of(page) == room_of(phone)
    await expect(page.locator(".room-info")).to_contain_text("Playing")
    probe = await Raw.open(url, "Probe")
    entry = await summary(probe, room_of(page), "mathable")
    assert sorted(s["name"] for s in entry["seats"]) == ["Ada", "Bea"]
    await probe.close()


async def test_more_options_shows_only_the_options_that_apply(page: Page, url: str):
    await sign_in(page, "Ada")
    await lobby_ready(page)
    await (
        page.locator(".game-card[data-game=ishido]")
        .get_by_role("button", name="More options")
        .click()
    )
    dialog = page.get_by_role("dialog", name="Ishido: more options")
    await expect(dialog.get_by_label("Scoring rules")).to_be_visible()
    for absent in ("Private", "Computer players after (seconds)", "Seats"):
        await expect(dialog.get_by_label(re.compile(re.escape(absent)))).to_have_count(0)
    await expect(dialog.get_by_role("button", name="Quick game")).to_have_count(0)
    await dialog.get_by_label("Scoring rules").select_option("ancient")
    await dialog.get_by_role("button", name="Create").click()
    await page.wait_for_url(ROOM_URL)
    await expect(page.get_by_role("dialog")).to_have_count(0)  # gone with the lobby
    probe = await Raw.open(url, "Probe")
    assert (await summary(probe, room_of(page), "ishido"))["options"]["scoring"] == "ancient"
    await page.go_back()
    await lobby_ready(page)
    await (
        page.locator(".game-card[data-game=mathable]")
        .get_by_role("button", name="More options")
        .click()
    )
    dialog = page.get_by_role("dialog", name="Mathable: more options")
    for present in ("Private", "Computer players after (seconds)", "Seats"):
        await expect(dialog.get_by_label(re.compile(re.escape(present)))).to_have_count(1)
    await probe.close()


async def test_a_live_game_is_drawn_small_and_one_tap_watches_it(
    phone: Page, url: str, server: Server
):
    bob = await Raw.open(url, "Bob")
    seats = ["COMP:easy", "COMP:normal"]
    room = (await bob.call({"t": "create", "game": "mathable", "seats": seats}))["room"]
    await sign_in(phone, "Ada")
    await lobby_ready(phone)
    live = phone.locator("section.live")
    await expect(live).to_be_visible()
    await expect(live.get_by_role("heading", name="Watch a game")).to_be_visible()
    board = live.locator(".live-board")
    await board.locator("[role=grid]").wait_for(state="attached")
    box = await board.bounding_box()
    assert box and box["width"] <= 320 and box["height"] <= 240  # drawn small
    # It follows the game: the scores the page shows move as the bots play (bots with no
    # delay may end it between two looks: its end is followed too).
    await until(
        phone,
        "/Scores [1-9]|Game over/.test(document.querySelector('.live-line').textContent)",
    )
    await live.get_by_role("button", name=f"Watch Mathable {room}").tap()
    await phone.wait_for_url(f"**/r/{room}")
    await expect(phone.locator("section.room")).to_have_attribute("data-seat", "")
    await bob.close()


async def test_my_own_game_is_not_offered_to_watch(page: Page):
    await sign_in(page, "Ada")
    await lobby_ready(page)
    await expect(page.locator("section.live")).to_be_hidden()  # nothing played yet
    card = page.locator(".game-card[data-game=mathable]")
    await card.get_by_role("button", name="Play the computer").click()
    await expect(page.locator("#board [role=grid]")).to_have_count(1)
    await page.get_by_role("button", name="Leave").click()
    await lobby_ready(page)
    # the one game being played is Ada's own: the lobby offers to resume it, not to watch it
    await expect(page.get_by_role("button", name=re.compile("^Resume room"))).to_be_visible()
    await page.wait_for_timeout(500)
    await expect(page.locator("section.live")).to_be_hidden()
