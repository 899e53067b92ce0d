"""Chat that stays, in the page: what was said before arriving is in the log, once, also
after a reload, and a line said meanwhile comes after it."""

from __future__ import annotations

from playwright.async_api import Page, expect

from tests.helpers import Raw
from tests.web.test_shell import sign_in


async def chat_entries(page: Page) -> list[str]:
    return await page.locator(".log .entry-chat").all_inner_texts()


async def test_a_spectator_reads_the_rooms_chat_after_a_reload_each_line_once(page: Page, url: str):
    bob = await Raw.open(url, "Bob")
    room = (await bob.call({"t": "create", "game": "mathable", "seats": ["Bob", None]}))["room"]
    await bob.call({"t": "join", "room": room})
    for text in ("anyone here?", "<b>not bold</b>"):
        await bob.call({"t": "chat", "room": room, "text": text})
    await sign_in(page, "Ada", f"/r/{room}")
    log = page.get_by_role("log")
    await expect(log).to_contain_text("Bob: <b>not bold</b>")  # text, never markup
    assert await chat_entries(page) == ["Bob: anyone here?", "Bob: <b>not bold</b>"]
    await bob.call({"t": "chat", "room": room, "text": "hello Ada"})
    await expect(log).to_contain_text("Bob: hello Ada")
    await page.get_by_label("Message").fill("hi Bob")
    await page.get_by_role("button", name="Send").click()
    await expect(log).to_contain_text("Ada: hi Bob")

    await page.reload()  # one remembered name: the room's link goes straight in
    await expect(page.get_by_role("log")).to_contain_text("Ada: hi Bob")
    assert await chat_entries(page) == [
        "Bob: anyone here?",
        "Bob: <b>not bold</b>",
        "Bob: hello Ada",
        "Ada: hi Bob",
    ]
    assert await page.locator(".log b").count() == 0
    await bob.close()


DROP_NEXT_CHAT = """() => {
  // The page's debugging handle: lose the next chat frame, as a dropped connection would.
  const app = globalThis.tilehall;
  const deliver = app.onPush.bind(app);
  window.droppedChat = null;
  app.onPush = (frame, mine) => {
    if (window.droppedChat === null && frame.t === "chat") {
      window.droppedChat = frame.text;
      return;
    }
    deliver(frame, mine);
  };
}"""


async def test_joining_again_adds_the_lines_missed_and_repeats_none(page: Page, url: str):
    bob = await Raw.open(url, "Bob")
    room = (await bob.call({"t": "create", "game": "mathable", "seats": ["Bob", None]}))["room"]
    await bob.call({"t": "join", "room": room})
    await bob.call({"t": "chat", "room": room, "text": "one"})
    await sign_in(page, "Ada", f"/r/{room}")
    log = page.get_by_role("log")
    await expect(log).to_contain_text("Bob: one")
    await page.evaluate(DROP_NEXT_CHAT)
    await bob.call({"t": "chat", "room": room, "text": "two (lost on the way)"})
    await page.wait_for_function("window.droppedChat !== null")
    assert await chat_entries(page) == ["Bob: one"]
    await page.evaluate("tilehall.screen.resync()")  # what a reconnect does
    await expect(log).to_contain_text("Bob: two (lost on the way)")
    await bob.call({"t": "chat", "room": room, "text": "three"})
    await expect(log).to_contain_text("Bob: three")
    assert await chat_entries(page) == ["Bob: one", "Bob: two (lost on the way)", "Bob: three"]
    await bob.close()
