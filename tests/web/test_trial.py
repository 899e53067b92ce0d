"""What the trial of the web client found (issue 40, "What the trial found"), each kept fixed.

Each test drives Chromium (tests/web/conftest.py) against a real server, and reads
the server's state through a Python client of its own where it matters.
"""

from __future__ import annotations

import re

from playwright.async_api import Page, expect

from tests.helpers import Raw
from tests.web.games import Watcher, create, take_seat
from tests.web.test_shell import lobby_ready, play_solo, sign_in

CONTRAST = """(el) => {
  // WCAG 2 contrast between an element's text colour and the background it shows on
  const rgb = (s) => s.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => {
    const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  let bg = el;
  while (bg && getComputedStyle(bg).backgroundColor.endsWith(", 0)")) bg = bg.parentElement;
  const a = lum(rgb(getComputedStyle(el).color));
  const b = lum(rgb(getComputedStyle(bg || document.body).backgroundColor));
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""

SAID = "#announcer"


# -- medium -------------------------------------------------------------------------------


async def test_the_reconnect_button_is_readable(page: Page):
    await sign_in(page, "Ada")
    await lobby_ready(page)
    await page.evaluate("tilehall.setStatus('offline')")  # as the connection does
    button = page.get_by_role("button", name="Reconnect now")
    await expect(button).to_be_visible()
    ratio = await button.evaluate(CONTRAST)
    assert ratio >= 4.5, ratio  # it was white on white (1:1)
    await page.evaluate("tilehall.setStatus('online')")


async def test_a_long_name_keeps_its_own_score_in_sight_on_a_phone(phone: Page, url: str):
    room = await create(url, "mathable", seats=[None, "COMP:easy"])
    w = await Watcher.open(url, room)
    await take_seat(phone, room, name="W" * 24, seat=1)
    await w.until(lambda v: v["status"] == "playing")
    head = phone.locator(".tb-seat-head").first
    score = head.locator(".tb-seat-score")
    await expect(score).to_be_visible()
    box, score_box = await head.bounding_box(), await score.bounding_box()
    assert box and score_box and score_box["width"] > 5
    assert score_box["x"] + score_box["width"] <= box["x"] + box["width"] + 0.5
    assert score_box["x"] + score_box["width"] <= 390
    await w.close()


async def test_a_taken_name_offers_others_and_says_what_a_password_does(page: Page, url: str):
    ann = await Raw.open(url, "Ann")
    await sign_in(page, "Ann")
    await expect(page.get_by_role("alert")).to_contain_text("taken")
    await expect(page.locator(".taken")).to_contain_text("set a password")
    await page.get_by_role("button", name="Ann2", exact=True).click()
    await lobby_ready(page)
    await expect(page.locator(".who .me")).to_have_text("Ann2")
    await ann.close()


# -- low: the status line -------------------------------------------------------------------


async def test_your_turn_is_said_on_your_turn_only(page: Page, url: str):
    bob = await Raw.open(url, "Bob")
    room = (await bob.call({"t": "create", "game": "mathable", "seats": ["Bob", None]}))["room"]
    await bob.call({"t": "join", "room": room})
    w = await Watcher.open(url, room)
    await take_seat(page, room, name="Ada", seat=2)
    view = await w.until(lambda v: v["status"] == "playing")
    said = page.locator(SAID)
    if view["to_move"] == 0:
        await expect(said).not_to_contain_text("Your turn.")
        assert (await bob.call({"t": "act", "room": room, "action": {"do": "end"}}))[
            "t"
        ] == "update"
        await w.until(lambda v: v["to_move"] == 1)
    await expect(said).to_have_text("Your turn.")
    await page.get_by_role("button", name="End turn").click()
    await w.until(lambda v: v["to_move"] == 0)
    # the page has drawn the update the watcher has (its seq read once could be one behind)
    await expect(page.locator("section.room")).to_have_attribute("data-seq", str(w.seq))
    await expect(said).not_to_contain_text("Your turn.")  # Bob's turn: it was left there
    assert (await bob.call({"t": "act", "room": room, "action": {"do": "end"}}))["t"] == "update"
    await expect(said).to_have_text("Your turn.")
    await bob.close()
    await w.close()


async def test_a_solo_game_never_says_your_turn_and_quit_leaves_nothing_stale(page: Page):
    await sign_in(page, "Ada")
    await lobby_ready(page)
    await page.locator(".game-card[data-game=ishido]").get_by_role("button", name="Play").click()
    legal = page.locator("#board .tb-legal").first
    await legal.click()  # a stone placed
    await expect(page.locator("#board")).to_contain_text("Placed")
    await page.wait_for_timeout(200)
    await expect(page.locator(SAID)).not_to_contain_text("Your turn.")
    quit_button = page.locator("#board").get_by_role("button", name="Quit")
    await quit_button.click()
    await expect(page.locator(SAID)).to_contain_text("Press Quit again")
    await quit_button.click()
    over = page.locator("#board .tb-over")
    await expect(over).to_contain_text("Game over: you ended it. ")
    await expect(over).to_have_text(re.compile(r"\.$"))
    await expect(page.locator("#board .tb-current-label")).to_have_text("Stone left")
    await page.get_by_role("button", name="Replay this game").click()
    await expect(page.locator(".replay-pos")).to_have_text(re.compile(r"^Move 1 of"))
    await expect(page.locator(SAID)).not_to_contain_text("Press Quit again")


async def test_ishidos_keys_say_what_tab_does(page: Page, url: str):
    room = await create(url, "ishido")
    await take_seat(page, room, seat=1)
    await page.locator("#board [role=gridcell]").first.focus()
    await page.keyboard.press("?")
    keys = page.locator("#board .tb-keys")
    await expect(keys).to_be_visible()
    text = await keys.inner_text()
    assert "tab (on the board" not in text.lower()
    assert "Tab leaves the board" in text


async def test_a_spectator_clicking_mathables_board_is_not_told_to_pick_a_tile(
    page: Page, url: str
):
    bob = await Raw.open(url, "Bob")
    seats = ["COMP:easy", "COMP:normal"]
    room = (await bob.call({"t": "create", "game": "mathable", "seats": seats}))["room"]
    await sign_in(page, "Ada", f"/r/{room}")
    await expect(page.locator("section.room")).to_have_attribute("data-seat", "")
    await page.get_by_role("gridcell", name=re.compile(r"^a1,")).click()
    said = page.locator(SAID)
    await expect(said).to_contain_text("a1")
    assert "rack" not in (await said.inner_text()).lower()
    await bob.close()


async def test_you_vote_to_quit_in_words(page: Page):
    await page.goto("/")
    told = await page.evaluate(
        """async () => {
            const board = await import("/js/games/mathable.js");
            const view = {game: "mathable", seat: 0, status: "playing"};
            return [board.describe({e: "quit_vote", seat: 0, vote: true, votes: [0]}, view),
                    board.describe({e: "quit_vote", seat: 0, vote: false, votes: []}, view),
                    board.describe({e: "quit_vote", seat: 1, vote: true, votes: [0, 1]}, view)];
        }"""
    )
    assert told == [
        "You vote to quit (votes so far: you)",
        "You no longer vote to quit",
        "Seat 2 votes to quit (votes so far: you and seat 2)",
    ]


# -- low: names -----------------------------------------------------------------------------


async def test_names_of_spaces_too_long_doubly_spaced_or_starting_with_a_dot(page: Page):
    await page.goto("/")
    name = page.get_by_label("Your name")
    await name.fill("    ")
    await page.get_by_role("button", name="Play").click()
    await expect(page.get_by_role("alert")).to_have_text(
        "A name needs at least one letter or digit."
    )
    await name.fill("")
    await name.press_sequentially("A" * 30)
    assert await name.input_value() == "A" * 24
    await expect(page.locator("#name-limit")).to_have_text("A name has at most 24 characters.")
    await name.fill(".Ann")
    await page.get_by_role("button", name="Play").click()
    await expect(page.get_by_role("alert")).to_contain_text("starting with a letter or digit")
    await page.get_by_label("Your name").fill("Ann  Lee")  # two spaces: one is meant
    await page.get_by_role("button", name="Play").click()
    await lobby_ready(page)
    await expect(page.locator(".who .me")).to_have_text("Ann Lee")


async def test_a_room_link_with_one_remembered_name_goes_straight_in(page: Page, url: str):
    bob = await Raw.open(url, "Bob")
    room = (await bob.call({"t": "create", "game": "mathable", "seats": ["Bob", None]}))["room"]
    await sign_in(page, "Ada")
    await lobby_ready(page)
    await page.goto(f"/r/{room}")
    await expect(page.get_by_role("button", name="Take seat 2")).to_be_visible()
    await expect(page.get_by_role("heading", name="Who is playing?")).to_have_count(0)
    await expect(page.get_by_role("button", name="Change name")).to_be_visible()  # to switch
    await bob.close()


# -- low: lobby, replays, addresses -----------------------------------------------------------


async def test_one_game_is_one_game_and_finished_players_are_not_away(page: Page, url: str):
    room = await play_solo(url, "Bob", "ishido", 3)
    await sign_in(page, "Ada")
    await lobby_ready(page)
    await page.get_by_label("Status").select_option("over")
    row = page.locator(f'.room-row[data-room="{room}"]')
    await expect(row).to_contain_text("Bob")
    assert "(away)" not in await row.inner_text()
    # a rating after one rated game reads "1 game", as every client words it (words.json)
    await page.evaluate("tilehall.welcome.ratings = {mathable: {rating: 1510, rd: 200, games: 1}}")
    await page.evaluate("tilehall.screen.showMine()")
    await expect(page.locator(".my-rating")).to_contain_text("Mathable 1510 ± 400 (1 game)")


async def test_the_history_filter_says_one_thing_about_an_unknown_player(page: Page):
    await sign_in(page, "Ada")
    await lobby_ready(page)
    await page.get_by_role("button", name="My games").click()
    note = page.locator(".panel .note").first
    await expect(note).to_contain_text("no finished games")
    await page.get_by_label("Player").fill("Nobody Here")
    await page.get_by_role("button", name="Show").click()
    await expect(note).to_contain_text("Nobody Here")
    assert "no finished games" not in await note.inner_text()
    assert "Nobody Here" not in await page.locator(SAID).inner_text()  # said once


async def test_stepping_back_in_a_replay_takes_back_the_log(page: Page, url: str):
    room = await play_solo(url, "Bob", "ishido", 4)
    await sign_in(page, "Ada", f"/#replay={room}")
    pos = page.locator(".replay-pos")
    await expect(pos).to_have_text(re.compile(r"^Move 1 of"))
    for n in (2, 3, 4):
        await page.keyboard.press("ArrowRight")
        await expect(pos).to_have_text(re.compile(f"^Move {n} of"))
    steps = page.locator(".log .entry-step")
    await expect(steps).to_have_text(["— 1 —", "— 2 —", "— 3 —", "— 4 —"])
    await page.keyboard.press("ArrowLeft")
    await expect(pos).to_have_text(re.compile(r"^Move 3 of"))
    await expect(steps).to_have_text(["— 1 —", "— 2 —", "— 3 —"])
    await page.keyboard.press("Home")
    await expect(steps).to_have_text(["— 1 —"])


async def test_a_bad_address_gets_the_sites_own_404_with_a_way_back(
    page: Page, console_errors: list[str]
):
    for path in ("/r/", "/r/a/b", "/r/%3Cimg%20src=x%3E", "/nothing-here"):
        response = await page.goto(path)
        assert response is not None and response.status == 404, path
        assert response.headers["content-security-policy"].startswith("default-src 'self'")
        await expect(page.get_by_role("heading", name="There is no page here")).to_be_visible()
        assert await page.locator("img").count() == 0
    await page.get_by_role("link", name="Go to the lobby").click()
    await expect(page.get_by_label("Your name")).to_be_visible()
    # Chromium logs each 404 it was sent (the documents asked for): nothing else went wrong
    assert all("status of 404" in e for e in console_errors), console_errors
    console_errors.clear()
