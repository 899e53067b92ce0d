"""Chat that stays: a room keeps its latest 100 lines in its store, and whoever joins,
watches, reloads or comes back after a restart gets them in ``joined.chat``."""

from __future__ import annotations

import asyncio

import pytest
from tilehall.server.store.errors import StoreUnavailable
from tilehall.server.store.records import CHAT_KEPT, ChatLine
from tilehall.server.store.sqlite import SQLiteStore

from tests.helpers import Raw, ServerProcess
from tests.memory import House


def said(lines: list[dict]) -> list[tuple[str, str]]:
    return [(line["from"], line["text"]) for line in lines]


async def test_a_newcomer_gets_what_was_said_each_line_once(house):
    ada = await house.player("Ada")
    room = (await house.call(ada, {"t": "create", "game": "mathable", "seats": [None, None]}))[
        "room"
    ]
    first = await house.call(ada, {"t": "join", "room": room})
    assert "chat" not in first, "nothing said yet: no field"
    await house.call(ada, {"t": "chat", "room": room, "text": "hello\nthere"})
    bob = await house.player("Bob")
    watched = await house.call(bob, {"t": "watch", "room": room})
    assert said(watched["chat"]) == [("Ada", "hello there")], "as the room got it, cleaned"
    assert isinstance(watched["chat"][0]["at"], float)
    await house.call(bob, {"t": "chat", "room": room, "text": "a spectator speaks"})
    await house.call(ada, {"t": "chat", "room": room, "text": "so it does"})
    # Bob got the lines after his watch as frames, and the one before only in joined.chat
    assert [f["text"] for f in bob.of("chat")] == ["a spectator speaks", "so it does"]
    cy = await house.player("Cy")
    seated = await house.call(cy, {"t": "join", "room": room})
    assert seated["seat"] == 1
    assert said(seated["chat"]) == [
        ("Ada", "hello there"),
        ("Bob", "a spectator speaks"),
        ("Ada", "so it does"),
    ]
    # a reload: the same player enters again and reads the same lines, no more
    again = await house.call(ada, {"t": "join", "room": room})
    assert again["chat"] == seated["chat"]


async def test_only_the_latest_hundred_lines_are_kept(house):
    ada = await house.player("Ada")
    room = (await house.call(ada, {"t": "create", "game": "ishido"}))["room"]
    await house.call(ada, {"t": "join", "room": room})
    for i in range(CHAT_KEPT + 5):
        await house.call(ada, {"t": "chat", "room": room, "text": f"line {i}"})
    back = await house.call(ada, {"t": "join", "room": room})
    assert [line["text"] for line in back["chat"]] == [f"line {i}" for i in range(5, 105)]
    assert len(await house.store.chat(room, 1000)) == CHAT_KEPT, "the store trims as it keeps"


class ChatFailsOnce(SQLiteStore):
    """A real SQLite store whose next chat line cannot be written (as when its disk is full)."""

    fail = False

    async def add_chat(self, line: ChatLine, keep: int = CHAT_KEPT) -> None:
        if self.fail:
            self.fail = False
            raise StoreUnavailable("SQLite: database or disk is full")
        await super().add_chat(line, keep)


async def test_a_line_the_store_cannot_keep_is_refused_and_nobody_gets_it(tmp_path):
    store = ChatFailsOnce(tmp_path / "chat.sqlite3", synchronous="NORMAL")
    house = await House.open(tmp_path, db=store)
    try:
        ada = await house.player("Ada")
        room = (await house.call(ada, {"t": "create", "game": "ishido"}))["room"]
        await house.call(ada, {"t": "join", "room": room})
        bob = await house.player("Bob")
        await house.call(bob, {"t": "watch", "room": room})
        store.fail = True
        refused = await house.call(ada, {"t": "chat", "room": room, "text": "lost?"})
        assert refused["t"] == "error" and refused["code"] == "unavailable"
        assert refused["retry_after"] > 0
        assert bob.of("chat") == [], "a line is sent only once it is kept"
        again = await house.call(ada, {"t": "chat", "room": room, "text": "still down?"})
        assert again["code"] == "unavailable", "refused at once while the store is known down"
        for _ in range(50):  # the probe's back-off runs on the house's clock
            if house.lobby.health.up:
                break
            house.clock.advance(1.0)
            await asyncio.sleep(0.01)
        assert house.lobby.health.up
        await house.call(ada, {"t": "chat", "room": room, "text": "kept"})
        cy = await house.player("Cy")
        assert said((await house.call(cy, {"t": "watch", "room": room}))["chat"]) == [
            ("Ada", "kept")
        ]
    finally:
        await house.close()


@pytest.mark.slow  # a server process killed and restarted
async def test_chat_survives_sigkill_and_restart(tmp_path):
    proc = ServerProcess(tmp_path)
    try:
        proc.start()
        ada = await Raw.open(proc.url, "Ada")
        room = (await ada.call({"t": "create", "game": "mathable", "seats": ["Ada", None]}))["room"]
        await ada.call({"t": "join", "room": room})
        bob = await Raw.open(proc.url, "Bob")
        await bob.call({"t": "watch", "room": room})
        for text in ("first", "second"):
            await ada.call({"t": "chat", "room": room, "text": text})
        await bob.call({"t": "chat", "room": room, "text": "from the stands"})
        proc.kill()  # no goodbye, no flush

        proc.start()
        back = await Raw.open(proc.url)
        assert (await back.call({"t": "hello", "v": 1, "token": ada.token}))["t"] == "welcome"
        joined = await back.call({"t": "join", "room": room})
        assert said(joined["chat"]) == [
            ("Ada", "first"),
            ("Ada", "second"),
            ("Bob", "from the stands"),
        ]
        eve = await Raw.open(proc.url, "Eve")
        watched = await eve.call({"t": "watch", "room": room})
        assert watched["chat"] == joined["chat"]
        for raw in (back, eve):
            await raw.close()
    finally:
        proc.stop()
