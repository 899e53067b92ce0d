"""The shell in a real browser: names, lobby, rooms, watching, replays, resuming.

Each test drives the page (Debian's Chromium through Playwright, the fixtures of
tests/web/conftest.py, which fail a test on any console error) and checks what
the server holds through a Python client of its own, over a real WebSocket.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect
from tilehall.server.app import Server
from tilehall.server.bots import find_bot
from tilehall.server.config import Config, Limits
from tilehall.server.net.web import network_addresses

from tests.helpers import Raw
from tests.web.browser import until
from tests.web.conftest import watch

ROOM_URL = re.compile(r"/r/([^/#?]+)")


async def sign_in(page: Page, name: str, path: str = "/") -> None:
    """Open ``path`` and say who plays, as a person would."""
    await page.goto(path)
    await page.get_by_label("Your name").fill(name)
    await page.get_by_role("button", name="Play").click()


async def lobby_ready(page: Page) -> None:
    await expect(page.locator("#lobby")).to_have_attribute("data-ready", "1")


async def play_solo(url: str, name: str, game: str, moves: int) -> str:
    """A solo game played by a Python client with a bot's choices, then quit: its room."""
    me = await Raw.open(url, name)
    room = (await me.call({"t": "create", "game": game}))["room"]
    view = (await me.call({"t": "join", "room": room}))["view"]
    bot = find_bot(game)(budget=0.01)
    for _ in range(moves):
        action = bot.choose(view)
        if action is None:
            break
        reply = await me.call({"t": "act", "room": room, "action": action})
        assert reply["t"] == "update", reply
        view = reply["view"]
    if view["status"] == "playing":
        reply = await me.call({"t": "act", "room": room, "action": {"do": "quit"}})
        assert reply["t"] == "update", reply
    await me.close()
    return room


async def summary(client: Raw, room: str, game: str) -> dict[str, Any]:
    """The room's entry in the public list, as the server holds it now."""
    reply = await client.call({"t": "rooms", "game": game, "limit": 200})
    return next(r for r in reply["rooms"] if r["room"] == room)


async def test_names_are_remembered_and_offered(page: Page):
    await sign_in(page, "Ada")
    await lobby_ready(page)
    await expect(page.locator(".who")).to_contain_text("Ada")
    await page.reload()
    remembered = page.get_by_role("button", name="Ada", exact=True)
    await expect(remembered).to_be_visible()
    await remembered.click()  # the same player again, by its token
    await lobby_ready(page)
    stored = await page.evaluate("JSON.parse(localStorage.getItem('tilehall.names'))")
    assert [n["name"] for n in stored] == ["Ada"] and stored[0]["token"]
    await page.get_by_role("button", name="Change name").click()
    await page.get_by_label("Your name").fill("Bea")
    await page.keyboard.press("Enter")
    await lobby_ready(page)
    stored = await page.evaluate("JSON.parse(localStorage.getItem('tilehall.names'))")
    assert sorted(n["name"] for n in stored) == ["Ada", "Bea"]
    await page.reload()
    await (
        page.get_by_role("listitem")
        .filter(has_text="Ada")
        .get_by_role("button", name="forget")
        .click()
    )
    # Ada has no password: forgotten, it would be lost; the page asks and offers one
    # (tests/web/test_account.py forgets a name that has a password).
    ask = page.get_by_role("dialog", name="Forget Ada?")
    await expect(ask).to_contain_text("Ada has no password")
    await ask.get_by_role("button", name="Keep Ada").click()
    await expect(page.get_by_role("button", name="Ada", exact=True)).to_be_visible()
    await expect(page.get_by_role("button", name="Bea", exact=True)).to_be_visible()


async def test_a_name_the_server_refuses_is_said_and_asked_again(page: Page):
    await sign_in(page, "COMP7")
    await expect(page.get_by_role("alert")).to_contain_text("COMP")
    await page.get_by_label("Your name").fill("Cy")
    await page.get_by_role("button", name="Play").click()
    await lobby_ready(page)


async def test_the_lobby_lists_a_room_made_by_a_python_client(page: Page, url: str):
    bob = await Raw.open(url, "Bob")
    options = {"racks": "hidden", "standin_after": 120}
    create = {"t": "create", "game": "mathable", "seats": ["Bob", None], "options": options}
    room = (await bob.call(create))["room"]
    await sign_in(page, "Ada")
    await lobby_ready(page)
    row = page.locator(f'.room-row[data-room="{room}"]')
    await expect(row).to_contain_text("Mathable")
    await expect(row).to_contain_text("waiting for players")
    # the options it changed, by the labels the server sends ("standin after 120" before)
    await expect(row).to_contain_text("Opponents' racks hidden, Stand-in after (s) 120")
    await expect(row.get_by_role("button", name=re.compile("^Join"))).to_be_visible()
    await page.get_by_label("Game").select_option("ishido")  # a filter hides it
    await expect(row).to_have_count(0)
    await page.get_by_label("Game").select_option("mathable")
    await row.get_by_role("button", name=re.compile("^Join")).click()  # one click: seated
    await expect(page.locator("section.room")).to_have_attribute("data-seat", "1")
    assert (await summary(bob, room, "mathable"))["seats"][1]["name"] == "Ada"
    await bob.close()


async def test_a_room_made_with_options_from_the_form(page: Page, url: str):
    await sign_in(page, "Ada")
    await lobby_ready(page)
    await (
        page.locator(".game-card[data-game=lines]")
        .get_by_role("button", name="More options")
        .click()
    )
    # each field named by its option's label, not by its wire name ("Min line", "Preview")
    await page.get_by_label("Board width", exact=True).fill("12")
    await page.get_by_label("Chip colours", exact=True).fill("7")
    await expect(page.get_by_label("Shortest line", exact=True)).to_have_value("5")
    await page.get_by_label("Show next colours", exact=True).check()
    await page.get_by_role("button", name="Create").click()
    await page.wait_for_url(ROOM_URL)
    match = ROOM_URL.search(page.url)
    assert match
    room = match.group(1)
    await expect(page.locator("#board")).not_to_be_empty()
    probe = await Raw.open(url, "Probe")
    entry = await summary(probe, room, "lines")
    assert entry["options"]["width"] == 12
    assert entry["options"]["colours"] == 7
    assert entry["options"]["preview"] is True
    assert entry["seats"][0]["name"] == "Ada" and entry["seats"][0]["connected"]
    await probe.close()


async def test_a_comp_only_mathable_game_is_watched_and_told(page: Page, url: str):
    bob = await Raw.open(url, "Bob")
    seats = ["COMP:easy", "COMP:normal"]
    room = (await bob.call({"t": "create", "game": "mathable", "seats": seats}))["room"]
    await sign_in(page, "Ada", f"/r/{room}")
    section = page.locator("section.room")
    await expect(section).to_have_attribute("data-seat", "")  # watching
    log = page.get_by_role("log")
    await expect(log).to_have_attribute("aria-live", "polite")
    await expect(log.locator("p")).not_to_have_count(0)
    await until(page, "document.querySelectorAll('[role=log] p').length > 8")
    seq = int(await section.get_attribute("data-seq") or 0)
    assert seq > 3
    # The server agrees: the page is a spectator of that room, at a seq the room reached.
    watched = await bob.call({"t": "watch", "room": room})
    assert watched["seq"] >= seq
    entry = await summary(bob, room, "mathable")
    assert entry["spectators"] >= 1
    await expect(page.locator("#board")).not_to_have_text("")
    await bob.close()


async def test_a_finished_game_is_replayed_step_by_step(page: Page, url: str):
    room = await play_solo(url, "Bob", "ishido", 6)
    await sign_in(page, "Ada")
    await lobby_ready(page)
    await page.get_by_role("button", name="My games").click()
    await page.get_by_label("Player").fill("Bob")
    await page.get_by_role("button", name="Show").click()
    await page.get_by_role("button", name=f"Replay Ishido {room}").click()
    assert page.url.endswith(f"/#replay={room}")
    pos = page.locator(".replay-pos")
    await expect(pos).to_have_text(re.compile(r"^Move 1 of \d+$"))
    text = await pos.inner_text()
    last = int(text.rsplit(" ", 1)[1])
    assert last >= 7  # the deal, six stones, the quit
    await page.keyboard.press("ArrowRight")
    await expect(pos).to_have_text(f"Move 2 of {last}")
    await page.keyboard.press("End")
    await expect(pos).to_have_text(f"Move {last} of {last}")
    await page.keyboard.press("ArrowLeft")
    await expect(pos).to_have_text(f"Move {last - 1} of {last}")
    await page.keyboard.press("Home")
    await expect(pos).to_have_text(f"Move 1 of {last}")
    await page.keyboard.press(" ")  # plays to the end by itself
    await expect(pos).to_have_text(f"Move {last} of {last}", timeout=20000)
    await expect(page.get_by_role("button", name="Play", exact=True)).to_be_visible()  # stopped
    await expect(page.locator("#board")).not_to_be_empty()
    await expect(page.get_by_role("log")).to_contain_text("over")


async def test_a_quick_game_shows_its_countdown(page: Page, url: str):
    await sign_in(page, "Ada")
    await lobby_ready(page)
    mathable = page.locator(".game-card[data-game=mathable]")
    await mathable.get_by_role("button", name="More options").click()
    await page.get_by_label("Seats").select_option("3")
    await page.get_by_label("Computer players after (seconds)").fill("4")
    await page.get_by_role("button", name="Quick game").click()
    await page.wait_for_url(ROOM_URL)
    countdown = page.get_by_role("timer")
    await expect(countdown).to_have_text(re.compile(r"take the open seats in [1-4] s"))
    # Then the bots come and play starts, with the page in its seat.
    await expect(page.locator(".room-info")).to_contain_text("Playing", timeout=15000)
    await expect(countdown).to_be_hidden()
    room = ROOM_URL.search(page.url)
    assert room
    probe = await Raw.open(url, "Probe")
    entry = await summary(probe, room.group(1), "mathable")
    assert entry["seats"][0]["name"] == "Ada"
    assert [s["bot"] for s in entry["seats"]] == [False, True, True]
    await probe.close()


async def test_a_private_room_is_entered_by_its_link_with_the_code(page: Page, url: str):
    bob = await Raw.open(url, "Bob")
    made = await bob.call(
        {"t": "create", "game": "mathable", "seats": ["Bob", None], "private": True}
    )
    room, code = made["room"], made["code"]
    await bob.call({"t": "join", "room": room})
    await sign_in(page, "Ada", f"/r/{room}")  # without its code: not found
    await expect(page.locator(".room-info")).to_contain_text("no room")
    page = await page.context.new_page()  # the link opened afresh, as a person would
    await page.goto(f"/r/{room}#code={code}")  # one name remembered: straight in as Ada
    await page.get_by_role("button", name="Take seat 2").click()
    await expect(page.locator("section.room")).to_have_attribute("data-seat", "1")
    assert code not in (await page.evaluate("location.pathname + location.search"))
    # Bob sees the game start with Ada in seat 2.
    for _ in range(50):
        started = [f for f in bob.pushed if f["t"] == "update" and f["seq"] == 1]
        if started:
            break
        await asyncio.sleep(0.1)
        bob.pushed.extend([await bob.recv()] if not started else [])
    assert started and started[0]["view"]["status"] == "playing"
    await bob.close()


async def test_a_dropped_connection_is_resumed_in_the_same_seat(
    browser: Browser, console_errors: list[str], tmp_path: Path
):
    # The admin listener on any free port: the restarted server keeps the game port, and
    # the port after it (its admin port by default) was never this test's to keep.
    limits = Limits(bot_delay=0, ping_interval=None)
    config = dict(data_dir=tmp_path, limits=limits, admin_port=0)
    first = Server(Config(showcase=False, port=0, **config))  # type: ignore[arg-type]
    await first.start()
    port = first.port
    url = f"ws://127.0.0.1:{port}"
    context = await browser.new_context(base_url=f"http://127.0.0.1:{port}")
    watch(context, console_errors)
    page = await context.new_page()
    second: Server | None = None
    try:
        bob = await Raw.open(url, "Bob")
        room = (await bob.call({"t": "create", "game": "mathable", "seats": ["Bob", None]}))["room"]
        await bob.call({"t": "join", "room": room})
        await sign_in(page, "Ada", f"/r/{room}")
        await page.get_by_role("button", name="Take seat 2").click()
        section = page.locator("section.room")
        await expect(section).to_have_attribute("data-seq", "1")
        await expect(section).to_have_attribute("data-seat", "1")
        token = bob.token
        await bob.close()

        await first.stop()  # every connection drops; the journal stays
        await expect(page.get_by_role("status").first).to_contain_text("Offline")
        second = Server(Config(showcase=False, port=port, **config))  # type: ignore[arg-type]
        await second.start()
        await expect(page.locator("#status")).to_be_empty(timeout=45000)

        bob = await Raw.open(url)
        await bob.call({"t": "hello", "v": 1, "token": token})
        joined = await bob.call({"t": "join", "room": room})
        assert joined["seq"] == 1
        await expect(section).to_have_attribute("data-seq", "1")
        await expect(section).to_have_attribute("data-seat", "1")
        # The page is back in its seat: connected, and it gets the next move.
        for _ in range(200):
            seats = (await bob.call({"t": "rooms", "game": "mathable"}))["rooms"][0]["seats"]
            if seats[1]["connected"]:
                break
            await asyncio.sleep(0.1)
        assert seats[1]["connected"]
        said = await bob.call({"t": "chat", "room": room, "text": "still there?"})
        assert said["t"] == "chat"
        await expect(page.get_by_role("log")).to_contain_text("Bob: still there?", timeout=15000)
        view = joined["view"]
        if view["to_move"] == 0:  # Bob's turn (the first seat is drawn): the page sees it
            action = find_bot("mathable", "easy")(budget=0.01).choose(view)
            assert action is not None
            reply = await bob.call({"t": "act", "room": room, "action": action})
            assert reply["t"] == "update"
            await expect(section).to_have_attribute("data-seq", str(reply["seq"]), timeout=15000)
        await bob.close()
    finally:
        await context.close()
        if second is not None:
            await second.stop()
    # Chromium logs each refused reconnection attempt while the server was down.
    console_errors[:] = [e for e in console_errors if "WebSocket connection" not in e]
    assert not console_errors, console_errors


async def test_a_phone_screen_needs_no_sideways_scrolling(phone: Page, url: str):
    await sign_in(phone, "Ada")
    await lobby_ready(phone)
    widths = "[document.documentElement.scrollWidth, innerWidth]"
    for tab in ("Rooms", "High scores", "Ratings", "My games"):
        await phone.get_by_role("button", name=tab).click()
        scroll, inner = await phone.evaluate(widths)
        assert scroll <= inner == 390, tab
    bob = await Raw.open(url, "Bob")
    room = (await bob.call({"t": "create", "game": "lines", "seats": ["COMP"]}))["room"]
    await phone.goto(f"/r/{room}")  # straight in as the one name remembered
    await expect(phone.get_by_role("log").locator("p")).not_to_have_count(0)
    scroll, inner = await phone.evaluate(widths)
    assert scroll <= inner
    await bob.close()


async def test_the_keyboard_alone_reaches_the_lobby_and_a_game(page: Page):
    await page.goto("/")
    await page.keyboard.press("Tab")  # the skip link first
    focused = await page.evaluate("document.activeElement.id")
    if focused != "name":
        await page.get_by_label("Your name").focus()
    await page.keyboard.type("Ada")
    await page.keyboard.press("Enter")
    await lobby_ready(page)
    # Tab to the first card's "More options" and press it with Space: the form is there.
    for _ in range(30):
        await page.keyboard.press("Tab")
        if await page.evaluate("document.activeElement.textContent") == "More options":
            break
    outline = await page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"  # focus is visible
    await page.keyboard.press("Space")
    await expect(page.get_by_role("button", name="Create")).to_be_visible()
    await page.keyboard.press("Escape")
    await expect(page.get_by_role("button", name="Create")).to_have_count(0)
    # A dialog opens from the keyboard and Escape closes it, focus back where it was.
    await page.get_by_role("button", name="Help").focus()
    await page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Keys")
    await expect(dialog).to_be_visible()
    await page.keyboard.press("Escape")
    await expect(dialog).to_have_count(0)
    assert await page.evaluate("document.activeElement.textContent") == "Help"


async def test_high_scores_ratings_and_someones_games_are_listed(page: Page, url: str):
    room = await play_solo(url, "Bob", "ishido", 4)
    await sign_in(page, "Ada")
    await lobby_ready(page)
    await page.get_by_role("button", name="High scores").click()
    await page.get_by_label("Game").select_option("ishido")
    table = page.get_by_role("table")
    await expect(table).to_contain_text("Bob")
    await expect(page.get_by_label("Table")).to_have_value("modern/touching")
    await page.get_by_role("button", name="Ratings").click()
    await expect(page.locator(".panel")).to_contain_text("Your rating: 1500")
    await page.get_by_role("button", name="My games").click()
    await expect(page.locator(".panel")).to_contain_text("no finished games")
    await page.get_by_label("Player").fill("Bob")
    await page.keyboard.press("Enter")
    row = page.locator(".history-row")
    await expect(row).to_have_count(1)
    await expect(row).to_contain_text("finished")
    await expect(row.get_by_role("button", name=f"Replay Ishido {room}")).to_be_visible()


async def test_chat_in_a_room_and_leaving_it(page: Page, url: str):
    bob = await Raw.open(url, "Bob")
    room = (await bob.call({"t": "create", "game": "mathable", "seats": ["Bob", None]}))["room"]
    await bob.call({"t": "join", "room": room})
    await sign_in(page, "Ada", f"/r/{room}")
    await page.get_by_role("button", name="Take seat 2").click()
    await expect(page.locator("section.room")).to_have_attribute("data-seat", "1")
    await page.get_by_label("Message").fill("good luck")
    await page.get_by_role("button", name="Send").click()
    log = page.get_by_role("log")
    await expect(log).to_contain_text("Ada: good luck")
    await expect(page.get_by_label("Message")).to_have_value("")
    chat = None
    for _ in range(20):
        chat = next((f for f in bob.pushed if f["t"] == "chat"), None)
        if chat:
            break
        bob.pushed.append(await bob.recv())
    assert chat is not None and chat["from"] == "Ada" and chat["text"] == "good luck"
    await page.get_by_role("button", name="Leave").click()
    await lobby_ready(page)
    # Ada keeps her seat, away; the lobby offers it back.
    for _ in range(50):
        seats = (await summary(bob, room, "mathable"))["seats"]
        if not seats[1]["connected"]:
            break
        await asyncio.sleep(0.1)
    assert seats[1]["name"] == "Ada" and not seats[1]["connected"]
    await expect(page.get_by_role("button", name=f"Resume room {room}")).to_be_visible()
    await bob.close()


DROP_NEXT_UPDATE = """() => {
  // The page's debugging handle: lose the next update, as a bug or a lost frame would.
  const app = globalThis.tilehall;
  const deliver = app.onPush.bind(app);
  window.dropped = null;
  app.onPush = (frame, mine) => {
    if (window.dropped === null && frame.t === "update") {
      window.dropped = frame.seq;
      return;
    }
    deliver(frame, mine);
  };
}"""


async def test_a_gap_in_seq_is_filled_by_joining_again(page: Page, url: str):
    bob = await Raw.open(url, "Bob")
    room = (await bob.call({"t": "create", "game": "mathable", "seats": ["Bob", None]}))["room"]
    await bob.call({"t": "join", "room": room})
    await sign_in(page, "Ada", f"/r/{room}")
    await page.get_by_role("button", name="Take seat 2").click()
    section = page.locator("section.room")
    await expect(section).to_have_attribute("data-seq", "1")
    await page.evaluate(DROP_NEXT_UPDATE)
    bot = find_bot("mathable", "easy")(budget=0.01)
    last = None
    for seq in (2, 3):  # two moves, by whoever is to move: the page's through its board's ctx
        view = (await bob.call({"t": "watch", "room": room}))["view"]  # racks are open
        mover = view["to_move"]
        action = bot.choose({**view, "seat": mover})
        if mover == 1:
            reply = await page.evaluate(
                "(a) => tilehall.screen.ctx.act(a).catch((e) => ({t: 'error', ...e}))", action
            )
        else:
            reply = await bob.call({"t": "act", "room": room, "action": action})
        assert reply["t"] == "update" and reply["seq"] == seq, reply
        last = reply
        if seq == 2:
            # The mover's reply can come before the page's copy of the update: wait for the drop.
            await until(page, "window.dropped === 2")
    assert last is not None
    await expect(section).to_have_attribute("data-seq", "3")
    held = await page.evaluate("tilehall.screen.view")
    mine = (await bob.call({"t": "join", "room": room}))["view"]
    assert held["board"] == mine["board"] and held["scores"] == mine["scores"]
    assert held["bag"] == mine["bag"] and held["to_move"] == mine["to_move"]
    await bob.close()


async def test_pages_of_rooms_and_a_private_room_by_its_code(page: Page, url: str):
    makers = [await Raw.open(url, f"Maker{i}") for i in range(6)]
    for i in range(52):
        made = await makers[i // 10].call(
            {"t": "create", "game": "mathable", "seats": [f"Maker{i // 10}", None]}
        )
        assert made["t"] == "created", made
    secret = await makers[5].call(
        {"t": "create", "game": "mathable", "seats": ["Maker5", None], "private": True}
    )
    await sign_in(page, "Ada")
    await lobby_ready(page)
    rows = page.locator(".room-row")
    await expect(rows).to_have_count(50)
    await page.get_by_role("button", name="More rooms").click()
    await expect(rows).to_have_count(52)
    await expect(page.get_by_role("button", name="More rooms")).to_be_hidden()
    await expect(page.locator(f'.room-row[data-room="{secret["room"]}"]')).to_have_count(0)
    await page.get_by_role("button", name="Join with a code").click()
    await page.get_by_label("Private room code").fill(secret["code"])
    await page.get_by_role("button", name="Join by code").click()
    await expect(page.locator("section.room")).to_have_attribute("data-seat", "1")
    assert page.url.endswith(f"/r/{secret['room']}#code={secret['code']}")
    for maker in makers:
        await maker.close()


async def test_symbols_and_reduced_motion_reach_the_board(
    browser: Browser, base_url: str, console_errors: list[str], url: str
):
    context = await browser.new_context(base_url=base_url, reduced_motion="reduce")
    watch(context, console_errors)
    page = await context.new_page()
    bob = await Raw.open(url, "Bob")
    room = (await bob.call({"t": "create", "game": "lines", "seats": ["COMP"]}))["room"]
    await sign_in(page, "Ada", f"/r/{room}")
    await expect(page.locator("#board")).not_to_be_empty()
    prefs = "tilehall.screen.ctx.prefs"
    assert await page.evaluate(prefs) == {"symbols": False, "reducedMotion": True}
    await expect(page.get_by_label("Less motion")).to_be_checked()
    await page.get_by_label("Symbols").check()
    await until(page, f"{prefs}.symbols === true")
    await page.reload()  # remembered, and straight in as Ada
    await until(page, f"!!(tilehall.screen && tilehall.screen.ctx && {prefs}.symbols)")
    await bob.close()
    await context.close()
    assert not console_errors, console_errors


async def test_a_waiting_room_offers_only_its_open_seats_then_draws_the_game(page: Page, url: str):
    bob, cy = await Raw.open(url, "Bob"), await Raw.open(url, "Cy")
    seats = ["Bob", None, "Cy"]
    room = (await bob.call({"t": "create", "game": "mathable", "seats": seats}))["room"]
    await sign_in(page, "Ada", f"/r/{room}")
    choice = page.locator(".seat-choice")
    await expect(choice.get_by_role("button")).to_have_text(["Take seat 2", "Watch"])
    board = page.locator("#board")
    await expect(board).to_contain_text("The game starts when every seat is taken")
    await expect(page.locator(".seats")).to_contain_text("Cy (reserved, not here yet)")
    await choice.get_by_role("button", name="Take seat 2").click()
    await expect(page.locator("section.room")).to_have_attribute("data-seat", "1")
    await expect(board).to_contain_text("Open: seats 1, 3.")
    await bob.call({"t": "join", "room": room})
    await cy.call({"t": "join", "room": room})
    await expect(page.locator("section.room")).to_have_attribute("data-seq", "1")
    await expect(board.get_by_role("grid")).to_have_count(1)  # the Mathable board, drawn
    await expect(page.get_by_role("log")).to_contain_text("You play seat 2.")
    await bob.close()
    await cy.close()


async def test_a_room_link_from_a_loopback_page_says_it_opens_here_only(page: Page, url: str):
    """The page at 127.0.0.1 (the server's default) makes links that open nowhere else."""
    bob = await Raw.open(url, "Bob")
    room = (await bob.call({"t": "create", "game": "mathable", "seats": ["Bob", None]}))["room"]
    await sign_in(page, "Ada", f"/r/{room}")
    note = page.locator("#board .note")
    await expect(note).to_contain_text("It opens on this computer only")
    await expect(note.locator("code")).to_have_text("--host 0.0.0.0")
    await page.get_by_role("button", name="Copy link").click()
    said = page.locator("#announcer")
    await expect(said).to_contain_text("this computer only")
    await expect(said).to_contain_text("--host 0.0.0.0")
    await bob.close()


async def test_a_room_link_from_a_network_address_says_nothing_more(
    browser: Browser, console_errors: list[str], tmp_path: Path
):
    found = network_addresses()
    if not found:
        pytest.skip("this computer has no network address but loopback")
    srv = Server(
        Config(
            showcase=False, host="0.0.0.0", port=0, data_dir=tmp_path, limits=Limits(bot_delay=0)
        )
    )
    await srv.start()
    context = await browser.new_context(base_url=f"http://{found[0]}:{srv.port}")
    watch(context, console_errors)
    try:
        bob = await Raw.open(f"ws://127.0.0.1:{srv.port}", "Bob")
        seats = ["Bob", None]
        room = (await bob.call({"t": "create", "game": "mathable", "seats": seats}))["room"]
        page = await context.new_page()
        await sign_in(page, "Ada", f"/r/{room}")
        board = page.locator("#board")
        await expect(board).to_contain_text("Send the room's link to whoever you are waiting for")
        await page.get_by_role("button", name="Copy link").click()
        said = page.locator("#announcer")
        await expect(said).to_contain_text("link")
        assert "this computer only" not in await board.inner_text()
        assert "this computer only" not in await said.inner_text()
        await bob.close()
    finally:
        await context.close()
        await srv.stop()
    assert not console_errors, console_errors


async def test_refreshing_the_room_list_keeps_the_keyboards_place(page: Page, url: str):
    bob = await Raw.open(url, "Bob")
    room = (await bob.call({"t": "create", "game": "mathable", "seats": ["Bob", None]}))["room"]
    await sign_in(page, "Ada")
    await lobby_ready(page)
    watch_button = page.get_by_role("button", name=f"Watch Mathable {room}")
    await watch_button.focus()
    await page.evaluate("window.before = document.activeElement")
    await page.get_by_role("button", name="Refresh").dispatch_event("click")  # as the timer
    await until(page, "!window.before.isConnected")  # the list was drawn anew
    label = await page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert label == f"Watch Mathable {room}"
    await bob.close()
