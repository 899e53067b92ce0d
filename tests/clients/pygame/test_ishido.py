"""Ishido scene: drawn from a real engine's view, clicked with real mouse events."""

from __future__ import annotations

from typing import Any

import pygame
from tilehall.clients.pygame.scenes.ishido import (
    INNER_FILL,
    LEGAL_FILL,
    RING_FILL,
    STONE_COLOURS,
    IshidoScene,
)
from tilehall.clients.pygame.scenes.lobby import LobbyScene
from tilehall.clients.words import square

from tests.clients.pygame.helpers import click, colour_at, engine, run_until, shot, show


def played(moves: int, seed: int = 3) -> Any:
    """An Ishido engine some placements into a game (each on a legal square)."""
    e = engine("ishido", seed=seed)
    for i in range(moves):
        legal = e.view(0)["legal"]
        e.act(0, {"do": "place", "at": legal[(i * 7) % len(legal)]}, 0.0)
    return e


def face_point(scene: IshidoScene, r: int, c: int) -> tuple[int, int]:
    """A point on a stone's face clear of its symbol (left of centre)."""
    rect = scene.grid.cell_rect(r, c)
    return (rect.x + round(rect.w * 0.15), rect.centery)


def test_board_shows_every_stone_and_square_of_the_view(tmp_path):
    view = played(12).view(0)
    app, _, scene = show(view, names=["ada"])
    assert isinstance(scene, IshidoScene)
    path = shot(app, tmp_path, "ishido")
    assert path.stat().st_size > 0
    legal = {tuple(x) for x in view["legal"]}
    stones = 0
    for r, row in enumerate(view["board"]):
        for c, value in enumerate(row):
            if value is not None:
                stones += 1
                assert colour_at(app, face_point(scene, r, c)) == STONE_COLOURS[value[0]], (r, c)
                continue
            centre = scene.grid.centre(r, c)
            ring = r in (0, 7) or c in (0, 11)
            want = LEGAL_FILL if (r, c) in legal else RING_FILL if ring else INNER_FILL
            assert colour_at(app, centre) == want, (r, c)
    assert stones == 6 + 12
    panel = scene.panel_rect
    # the current stone is shown big in the panel
    current = view["current"]
    found = {
        colour_at(app, (x, y))
        for x in range(panel.x, panel.right, 3)
        for y in range(panel.y, panel.y + 160, 3)
    }
    assert STONE_COLOURS[current[0]] in found


def test_a_click_on_a_square_places_there_and_help_asks():
    view = played(2).view(0)
    app, net, scene = show(view)
    r, c = view["legal"][0]
    click(app, scene.grid.centre(r, c))
    assert ("act", {"do": "place", "at": [r, c]}) in net.sent
    click(app, scene.help_button.rect.center)
    assert ("act", {"do": "help"}) in net.sent
    # a right click, or a click off the board, sends nothing
    before = len(net.sent)
    click(app, scene.grid.centre(r, c), button=3)
    click(app, (scene.grid.rect.right + 3, scene.grid.rect.bottom + 3))
    assert len(net.sent) == before


def test_an_update_redraws_the_placed_stone_and_shows_the_help_square():
    e = played(4)
    app, _, scene = show(e.view(0))
    events = e.act(0, {"do": "help"}, 0.0)
    app.handle(
        {"t": "update", "room": scene.model.room, "seq": 2, "events": events, "view": e.view(0)}
    )
    app.step()
    assert scene.hint == tuple(events[0]["at"])
    at = e.view(0)["legal"][-1]
    stone = e.view(0)["current"]
    events = e.act(0, {"do": "place", "at": at}, 0.0)
    app.handle(
        {"t": "update", "room": scene.model.room, "seq": 3, "events": events, "view": e.view(0)}
    )
    app.step()
    assert scene.hint is None
    assert colour_at(app, face_point(scene, *at)) == STONE_COLOURS[stone[0]]
    assert f" on {square(at)}: " in scene.notice_text and "neighbour" in scene.notice_text


def test_the_board_fits_a_resized_window():
    view = played(1).view(0)
    app, _, scene = show(view, size=(800, 540))
    small = scene.grid.cell
    assert scene.grid.rect.right <= scene.panel_rect.x
    assert scene.grid.rect.bottom <= 540
    app.screen = pygame.display.set_mode((1600, 1000), pygame.RESIZABLE)
    app.step()
    assert scene.grid.cell > small
    # the corner stone of the opening is still drawn where it belongs
    assert colour_at(app, face_point(scene, 0, 0)) == STONE_COLOURS[view["board"][0][0][0]]


def test_a_spectator_cannot_place():
    view = played(1).view(None)
    app, net, scene = show(view, seat=None)
    r, c = view["legal"][0]
    click(app, scene.grid.centre(r, c))
    assert not [s for s in net.sent if s[0] == "act"]
    assert colour_at(app, face_point(scene, 7, 11)) == STONE_COLOURS[view["board"][7][11][0]]


async def test_undo_takes_the_stone_back_and_quit_ends_the_game(app, server):
    lobby = app.scene
    assert isinstance(lobby, LobbyScene)
    click(app, lobby.game_buttons["ishido"].rect.center)
    click(app, lobby.create_button.rect.center)
    await run_until(app, lambda: isinstance(app.scene, IshidoScene), what="the room")
    scene = app.scene
    await run_until(app, lambda: scene.model.status == "playing", what="play")
    r, c = scene.view["legal"][0]
    click(app, scene.grid.centre(r, c))
    await run_until(app, lambda: scene.view["board"][r][c] is not None, what="the stone")
    click(app, scene.undo_button.rect.center)
    await run_until(app, lambda: scene.view["undos"] == 1, what="the undo")
    assert scene.view["board"][r][c] is None
    assert server.lobby.rooms[scene.model.room].engine.view(0)["undos"] == 1
    assert "Took back the stone on" in scene.notice_text
    click(app, scene.quit_button.rect.center)
    app.step()
    assert scene.model.status == "playing" and scene.quit_button.toggled
    click(app, scene.quit_button.rect.center)
    await run_until(app, lambda: scene.model.over, what="the end")
    assert scene.notice_text.startswith("Game ended:")
