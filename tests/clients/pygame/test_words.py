"""A refused move in the window reads in the shared words: squares as the board names them,
tiles as they look, from the error frame's cells and tiles (a real server's)."""

from __future__ import annotations

import re

from tilehall.clients.pygame.scenes.base import GameScene
from tilehall.clients.pygame.scenes.lobby import LobbyScene
from tilehall.clients.words import square, tile_name

from tests.clients.pygame.helpers import click, run_until

RAW = re.compile(r"\[-?\d+, -?\d+\]|\btiles? \d")


async def test_a_match_it_refusal_names_its_tiles_and_squares(app):
    lobby = app.scene
    assert isinstance(lobby, LobbyScene)
    click(app, lobby.game_buttons["matchit"].rect.center)
    click(app, lobby.create_button.rect.center)
    await run_until(app, lambda: isinstance(app.scene, GameScene), what="the room")
    scene = app.scene
    assert isinstance(scene, GameScene)
    await run_until(app, lambda: scene.model.status == "playing", what="play to start")
    board = scene.view["board"]
    cells = [(r, c) for r, row in enumerate(board) for c, t in enumerate(row) if t is not None]
    kind = {cell: board[cell[0]][cell[1]] for cell in cells}
    a, b = next(
        (a, b) for a in cells for b in cells if kind[a] < 27 and kind[b] < 27 and kind[a] != kind[b]
    )
    scene.send({"do": "pair", "a": list(a), "b": list(b)})  # as two clicks would send it
    await run_until(app, lambda: "do not match" in scene.notice_text, what="the refusal")
    names = [tile_name("matchit", kind[a]), tile_name("matchit", kind[b])]
    assert scene.notice_text == (
        f"the {names[0]} on {square(a)} and the {names[1]} on {square(b)} do not match"
    )
    assert " of " in names[0] and not RAW.search(scene.notice_text)
