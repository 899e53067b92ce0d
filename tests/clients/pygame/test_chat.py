"""The room's chat in the window: what was said before arriving, new lines, saying one."""

from __future__ import annotations

import pygame
from tilehall.clients.connection import Connection
from tilehall.clients.pygame.scenes.base import PAD, GameScene

from tests.clients.pygame.helpers import click, run_until, shot


async def test_a_spectator_reads_what_was_said_before_and_says_something(app, url, tmp_path):
    async with Connection(url, name="bob") as bob:
        made = await bob.request({"t": "create", "game": "mathable", "seats": ["bob", None]})
        room = made["room"]
        await bob.join(room)
        for text in ("anyone here?", "waiting for a second player"):
            await bob.request({"t": "chat", "room": room, "text": text})
        app.net.watch(room)
        await run_until(
            app,
            lambda: isinstance(app.scene, GameScene) and app.scene.model.room == room,
            what="the room",
        )
        scene = app.scene
        assert isinstance(scene, GameScene)
        assert scene.chat_button.label == "Chat 2"
        click(app, scene.chat_button.rect.center)
        assert scene.chat_open and scene.chat_field.focused
        width = scene.chat_rect.w - 2 * PAD
        assert scene.chat_shown(width, 10) == [
            "bob: anyone here?",
            "bob: waiting for a second player",
        ]
        assert scene.chat_shown(width, 1) == ["bob: waiting for a second player"]
        await bob.request({"t": "chat", "room": room, "text": "hello ada"})
        await run_until(app, lambda: len(scene.model.chat) == 3, what="bob's new line")
        assert scene.notice_text == "bob: hello ada"
        # ada types a line: keys go to the chat, not to the game's shortcuts
        for ch in "hi bob":
            pygame.event.post(pygame.event.Event(pygame.TEXTINPUT, text=ch))
        app.step()
        assert scene.chat_field.text == "hi bob"
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0))
        app.step()
        said = await bob.next_pushed(timeout=8)
        while said["t"] != "chat" or said["from"] != "ada":
            said = await bob.next_pushed(timeout=8)
        assert said["text"] == "hi bob"
        await run_until(app, lambda: len(scene.model.chat) == 4, what="ada's own line")
        assert scene.chat_shown(width, 10)[-1] == "ada: hi bob"
        assert scene.chat_field.text == ""
        shot(app, tmp_path, "chat", keep=False)
        # Escape puts the chat away; the room stays open
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0))
        app.step()
        assert not scene.chat_open and app.scene is scene
