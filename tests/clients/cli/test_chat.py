"""The room's chat in the terminal: what was said before arriving, new lines, saying one."""

from __future__ import annotations

from tilehall.clients.cli.chat import ChatScreen
from tilehall.clients.cli.games.mathable import MathableScreen
from tilehall.clients.cli.lobby import LobbyScreen
from tilehall.clients.connection import Connection

from tests.clients.cli.util import app_for, screen_of, text_of, until


async def test_a_spectator_reads_what_was_said_before_and_says_something(url):
    async with Connection(url, name="bob") as bob:
        room = (await bob.request({"t": "create", "game": "mathable", "seats": ["bob", None]}))[
            "room"
        ]
        await bob.join(room)
        for text in ("anyone here?", "waiting for a second player"):
            await bob.request({"t": "chat", "room": room, "text": text})
        async with app_for(url).run_test() as pilot:
            app = pilot.app
            await screen_of(pilot, LobbyScreen)
            await app.enter_room(await app.call({"t": "watch", "room": room}))
            screen = await screen_of(pilot, MathableScreen)
            assert "chat 2 (c)" in screen.header().plain
            await pilot.press("c")
            chat = await screen_of(pilot, ChatScreen)
            shown = text_of(chat, "#lines")
            assert shown == "bob: anyone here?\nbob: waiting for a second player"
            # a new line arrives while the chat is open, and on the game screen's note
            await bob.request({"t": "chat", "room": room, "text": "hello ada"})
            await until(pilot, lambda: "bob: hello ada" in text_of(chat, "#lines"))
            assert screen.note == "bob: hello ada"
            # ada says something: bob gets it, and it shows once in her chat
            await pilot.press(*"hi bob", "enter")
            said = await bob.next_pushed(timeout=8)
            while said["t"] != "chat" or said["from"] != "ada":
                said = await bob.next_pushed(timeout=8)
            assert said["text"] == "hi bob"
            await until(pilot, lambda: text_of(chat, "#lines").endswith("ada: hi bob"))
            assert text_of(chat, "#lines").count("ada: hi bob") == 1
            await pilot.press("escape")
            await screen_of(pilot, MathableScreen)
            assert "chat 4 (c)" in screen.header().plain
