"""Lines scene: chips of a real engine's view, click-chip-then-cell, the path played back."""

from __future__ import annotations

from typing import Any

import pygame
from tilehall.clients.pygame import draw as d
from tilehall.clients.pygame.scenes.base import CONFIRM
from tilehall.clients.pygame.scenes.lines import CHIP_COLOURS, EMPTY_FILL, STEP, LinesScene

from tests.clients.pygame.helpers import click, colour_at, engine, shot, show


def first_move(e: Any) -> dict[str, Any]:
    """A legal move of the engine: some chip to the empty cell farthest from it."""
    board = e.view(0)["board"]
    chips = [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if v]
    empty = [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if not v]
    src = chips[0]
    dst = max(empty, key=lambda p: abs(p[0] - src[0]) + abs(p[1] - src[1]))
    return {"do": "move", "from": list(src), "to": list(dst)}


def test_chips_and_empty_cells_match_the_view(tmp_path):
    e = engine("lines", seed=2, initial=20, preview=True)
    view = e.view(0)
    app, _, scene = show(view, names=["ada"])
    assert isinstance(scene, LinesScene)
    shot(app, tmp_path, "lines")
    seen = 0
    for r, row in enumerate(view["board"]):
        for c, value in enumerate(row):
            want = CHIP_COLOURS[value] if value else EMPTY_FILL
            assert colour_at(app, scene.grid.centre(r, c)) == want, (r, c)
            seen += bool(value)
    assert seen >= 15


def test_click_a_chip_then_a_cell_moves_it():
    e = engine("lines", seed=2)
    view = e.view(0)
    app, net, scene = show(view)
    move = first_move(e)
    click(app, scene.grid.centre(*move["to"]))  # an empty cell first: nothing
    assert scene.selected is None
    click(app, scene.grid.centre(*move["from"]))
    assert scene.selected == tuple(move["from"])
    click(app, scene.grid.centre(*move["to"]))
    assert ("act", move) in net.sent
    click(app, scene.grid.centre(*move["from"]))
    click(app, scene.grid.centre(0, 0), button=3)
    assert scene.selected is None


def test_the_chip_travels_its_path_then_the_view_shows():
    e = engine("lines", seed=2)
    app, _, scene = show(e.view(0))
    move = first_move(e)
    colour = e.view(0)["board"][move["from"][0]][move["from"][1]]
    events = e.act(0, move, 0.0)
    moved = events[0]
    assert moved["e"] == "moved" and len(moved["path"]) >= 3
    app.handle(
        {"t": "update", "room": scene.model.room, "seq": 2, "events": events, "view": e.view(0)}
    )
    pb = scene.playback
    assert pb is not None
    # part-way: the chip stands on a middle cell of its path, and not yet at its end
    mid = len(moved["path"]) // 2
    pb.start -= STEP * mid
    app.step()
    r, c = moved["path"][mid]
    assert colour_at(app, scene.grid.centre(r, c)) == CHIP_COLOURS[colour]
    assert colour_at(app, scene.grid.centre(*move["to"])) == EMPTY_FILL
    assert colour_at(app, scene.grid.centre(*move["from"])) == EMPTY_FILL
    # once played back: exactly the new view
    pb.start -= 10
    app.step()
    assert scene.playback is None
    for r, row in enumerate(e.view(0)["board"]):
        for c, value in enumerate(row):
            want = CHIP_COLOURS[value] if value else EMPTY_FILL
            assert colour_at(app, scene.grid.centre(r, c)) == want, (r, c)


def panel_has(app, scene, colour) -> bool:
    """Whether any pixel of the side panel is ``colour``."""
    p = scene.panel_rect
    return any(
        colour_at(app, (x, y)) == colour
        for x in range(p.x, p.right, 2)
        for y in range(p.y, scene.buttons_top, 2)
    )


def test_undo_and_quit_buttons_and_the_undos_shown():
    e = engine("lines", seed=2)
    app, net, scene = show(e.view(0))
    assert not scene.undo_button.enabled  # no move yet: nothing to take back
    assert not panel_has(app, scene, d.BAD)
    move = first_move(e)
    e.apply_entry(0, move, 0.0)  # as a room applies it, keeping what undo needs
    app.handle({"t": "update", "room": scene.model.room, "seq": 2, "events": [], "view": e.view(0)})
    app.step()
    click(app, scene.undo_button.rect.center)
    assert ("act", {"do": "undo"}) in net.sent
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_u, mod=0))
    app.step()
    assert net.sent.count(("act", {"do": "undo"})) == 2
    events = e.apply_entry(0, {"do": "undo"}, 0.0)
    app.handle(
        {"t": "update", "room": scene.model.room, "seq": 3, "events": events, "view": e.view(0)}
    )
    app.step()
    assert scene.view["undos"] == 1 and "Took back" in scene.notice_text
    assert panel_has(app, scene, d.BAD)  # "not eligible for records"
    assert not scene.undo_button.enabled  # back at the deal
    click(app, scene.quit_button.rect.center)
    assert ("act", {"do": "quit"}) not in net.sent  # the first press only asks
    assert scene.quit_button.toggled and "Press Quit again" in scene.notice_text
    # Left past CONFIRM seconds, the arm lapses and the notice that asked goes with it:
    # the window never asks for a press it would not take (issue 30 item 4, point 14).
    assert scene.confirm is not None
    scene.confirm = ("quit", scene.confirm[1] - CONFIRM)
    app.step()
    assert not scene.quit_button.toggled and scene.notice_text == ""
    click(app, scene.quit_button.rect.center)  # asks again
    assert ("act", {"do": "quit"}) not in net.sent and scene.quit_button.toggled
    # a second press 5 s after the first (more than the old 3 s) still confirms
    scene.confirm = ("quit", scene.confirm[1] - 5)
    click(app, scene.quit_button.rect.center)
    assert ("act", {"do": "quit"}) in net.sent
