"""Match-It and LinkSame scenes: real engines' boards, pairs clicked, extraction paths drawn."""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from typing import Any

import pygame
from tilehall.clients.pygame.app import App
from tilehall.clients.pygame.scenes.linksame import LinkSameScene
from tilehall.clients.pygame.scenes.lobby import LobbyScene
from tilehall.clients.pygame.scenes.matchit import MatchItScene
from tilehall.clients.pygame.scenes.shisen import FELT, PATH_COLOUR, TILE_FACE, ShisenScene
from tilehall.server.games.matchit import match_key
from tilehall.server.games.shisensho import identity_key, playable_pairs

from tests.clients.pygame.helpers import click, colour_at, engine, run_until, shot, show


def faces_follow_the_board(app: App, scene: ShisenScene, board: list[list[Any]]) -> None:
    """Each tile's face is mostly tile-coloured; equal ids look alike, different ids differ;
    an empty cell shows the felt."""
    looks: dict[Any, set[bytes]] = defaultdict(set)
    for r, row in enumerate(board):
        for c, tile in enumerate(row):
            if tile is None:
                assert colour_at(app, scene.grid.centre(r, c)) == FELT, (r, c)
                continue
            face = scene.faces[(r, c)]
            pixels = Counter(
                colour_at(app, (x, y))
                for x in range(face.x, face.right)
                for y in range(face.y, face.bottom)
            )
            assert pixels.most_common(1)[0][0] == TILE_FACE, (r, c)
            looks[tile].add(pygame.image.tobytes(app.screen.subsurface(face), "RGB"))
    assert all(len(images) == 1 for images in looks.values())
    images = [next(iter(i)) for i in looks.values()]
    assert len(set(images)) == len(images)


def remove(app: App, scene: ShisenScene, e: Any, a: Any, b: Any) -> list[dict[str, Any]]:
    events = e.act(0, {"do": "pair", "a": list(a), "b": list(b)}, e.view(0)["now"] + 1.0)
    app.handle(
        {
            "t": "update",
            "room": scene.model.room,
            "seq": scene.model.seq + 1,
            "events": events,
            "view": e.view(0),
        }
    )
    app.step()
    return events


def path_midpoint(scene: ShisenScene, path: list[list[int]]) -> tuple[int, int]:
    (r0, c0), (r1, c1) = path[0], path[1]
    x0, y0 = scene.grid.centre(r0, c0)
    x1, y1 = scene.grid.centre(r1, c1)
    return ((x0 + x1) // 2, (y0 + y1) // 2)


def test_matchit_sheet_matches_the_view(tmp_path):
    e = engine("matchit", seed=4)
    a, b = playable_pairs(e.view(0)["board"], match_key)[0]
    e.act(0, {"do": "pair", "a": list(a), "b": list(b)}, 1.0)
    view = e.view(0)
    app, _, scene = show(view, names=["ada"])
    assert isinstance(scene, MatchItScene)
    shot(app, tmp_path, "matchit")
    faces_follow_the_board(app, scene, view["board"])


def test_matchit_mouse_pair_highlight_help_and_quit():
    e = engine("matchit", seed=4)
    view = e.view(0)
    app, net, scene = show(view)
    a, b = playable_pairs(view["board"], match_key)[0]
    click(app, scene.grid.centre(*a))
    assert scene.selected == a
    click(app, scene.grid.centre(*b))
    assert ("act", {"do": "pair", "a": list(a), "b": list(b)}) in net.sent
    # right click: with a tile selected it lets go; with none it highlights
    click(app, scene.grid.centre(*a))
    click(app, scene.grid.centre(*a), button=3)
    assert scene.selected is None
    click(app, scene.grid.centre(*b), button=3)
    assert ("act", {"do": "highlight", "at": list(b)}) in net.sent
    click(app, scene.help_button.rect.center)
    assert ("act", {"do": "help"}) in net.sent
    click(app, scene.quit_button.rect.center)
    assert ("act", {"do": "quit"}) not in net.sent  # the first press only asks
    click(app, scene.quit_button.rect.center)
    assert ("act", {"do": "quit"}) in net.sent


def test_matchit_path_is_drawn_for_a_moment_and_highlight_marks(tmp_path):
    e = engine("matchit", seed=4)
    app, _, scene = show(e.view(0))
    a, b = playable_pairs(e.view(0)["board"], match_key)[0]
    events = remove(app, scene, e, a, b)
    path = events[0]["path"]
    mid = path_midpoint(scene, path)
    assert colour_at(app, mid) == PATH_COLOUR
    shot(app, tmp_path, "matchit-path", keep=False)
    scene.path_at -= 10
    app.step()
    assert colour_at(app, mid) != PATH_COLOUR
    at = next(
        (r, c)
        for r, row in enumerate(e.view(0)["board"])
        for c, t in enumerate(row)
        if t is not None
    )
    events = e.act(0, {"do": "highlight", "at": list(at)}, 3.0)
    app.handle(
        {
            "t": "update",
            "room": scene.model.room,
            "seq": scene.model.seq + 1,
            "events": events,
            "view": e.view(0),
        }
    )
    app.step()
    assert scene.marked == {tuple(c) for c in events[0]["cells"]}
    assert at in scene.marked
    assert "-4" in scene.notice_text


def test_matchit_panel_shows_pedigree_and_margins():
    e = engine("matchit", seed=4)
    view = e.view(0)
    app, _, scene = show(view)
    assert scene.view["pedigree"] and scene.view["margins_used"] == []
    stars = [p for p in _gold_pixels(app, scene)]
    assert stars  # P and *I* lit at the start of a sheet


def _gold_pixels(app: App, scene: ShisenScene) -> list[tuple[int, int]]:
    from tilehall.clients.pygame import draw as d

    p = scene.panel_rect
    return [
        (x, y)
        for x in range(p.x, p.x + 140)
        for y in range(p.y, p.y + 80)
        if colour_at(app, (x, y)) == d.GOLD
    ]


def test_linksame_board_matches_the_view(tmp_path):
    e = engine("linksame", seed=2, size="hard")
    view = e.view(0)
    app, _, scene = show(view, names=["ada"])
    assert isinstance(scene, LinkSameScene)
    shot(app, tmp_path, "linksame")
    faces_follow_the_board(app, scene, view["board"])


def test_linksame_hint_path_stays_until_clicked_away():
    e = engine("linksame", seed=2, size="easy")
    app, net, scene = show(e.view(0))
    click(app, scene.hint_button.rect.center)
    assert ("act", {"do": "hint"}) in net.sent
    events = e.act(0, {"do": "hint"}, 1001.0)
    app.handle(
        {"t": "update", "room": scene.model.room, "seq": 2, "events": events, "view": e.view(0)}
    )
    app.step()
    hint = e.view(0)["hint"]
    mid = path_midpoint(scene, hint["path"])
    from tilehall.clients.pygame import draw as d

    assert colour_at(app, mid) == d.GOLD
    app.step()
    assert colour_at(app, mid) == d.GOLD  # still there: it waits to be dismissed
    click(app, scene.grid.centre(*hint["a"]))
    assert colour_at(app, mid) != d.GOLD
    assert scene.selected == tuple(hint["a"])
    click(app, scene.grid.centre(*hint["b"]))
    assert ("act", {"do": "pair", "a": hint["a"], "b": hint["b"]}) in net.sent


def test_linksame_removal_that_slides_shows_the_path_then_the_new_board():
    e = engine("linksame", seed=2, size="easy")
    # stage 1 slides columns down: play stage 0 out quickly by pairs
    while e.view(0)["stage"] == 0:
        a, b = playable_pairs(e.view(0)["board"], identity_key)[0]
        e.act(0, {"do": "pair", "a": list(a), "b": list(b)}, 1000.0)
    assert e.view(0)["movement"] != "none"
    app, _, scene = show(e.view(0))
    for _ in range(20):
        a, b = playable_pairs(e.view(0)["board"], identity_key)[0]
        events = remove(app, scene, e, a, b)
        if events[0]["moved"]:
            break
    else:
        raise AssertionError("no removal slid anything")
    assert scene.slid
    assert colour_at(app, path_midpoint(scene, events[0]["path"])) == PATH_COLOUR
    scene.path_at -= 10
    app.step()
    faces_follow_the_board(app, scene, e.view(0)["board"])


def test_matchit_counts_down_on_the_servers_clock_not_ours():
    e = engine("matchit", seed=4)
    view = e.view(0)
    server_now = time.time() + 5000.0  # this machine's clock is far behind the server's
    view.update(now=server_now, deadline=server_now + 100.0, time_left=100.0)
    app, _, scene = show(view)
    assert isinstance(scene, MatchItScene)
    left = scene.time_left()
    assert left is not None and 99.0 < left <= 100.0
    arrived = time.time()
    scene.model.clock.wall = lambda: arrived + 30.0  # half a minute on, no new view
    left = scene.time_left()
    assert left is not None and 69.0 < left <= 70.0
    view = {**view, "deadline": None, "time_left": 42.0, "paused": "player", "board": None}
    app.handle({"t": "update", "room": scene.model.room, "seq": 2, "events": [], "view": view})
    assert scene.time_left() == 42.0  # paused: the time the pause kept


async def test_linksame_pair_undo_pause_and_resume_against_the_server(app, server, tmp_path):
    lobby = app.scene
    assert isinstance(lobby, LobbyScene)
    click(app, lobby.game_buttons["linksame"].rect.center)
    click(app, lobby.create_button.rect.center)
    await run_until(app, lambda: isinstance(app.scene, LinkSameScene), what="the room")
    scene = app.scene
    await run_until(app, lambda: scene.model.status == "playing", what="play")
    tiles = scene.view["tiles_left"]
    a, b = playable_pairs(scene.view["board"], identity_key)[0]
    click(app, scene.grid.centre(*a))
    click(app, scene.grid.centre(*b))
    await run_until(app, lambda: scene.view["tiles_left"] == tiles - 2, what="the pair")
    click(app, scene.undo_button.rect.center)
    await run_until(app, lambda: scene.view["undos"] == 1, what="the undo")
    assert scene.view["tiles_left"] == tiles and scene.tile_at(a) is not None
    click(app, scene.pause_button.rect.center)
    await run_until(app, lambda: scene.model.paused == "player", what="the pause")
    assert scene.view["board"] is None and scene.turn_text()[0] == "paused"
    assert scene.pause_button.label == "Resume" and not scene.hint_button.enabled
    assert scene.notice_text == "The clock stops: you paused it"
    room = server.lobby.rooms[scene.model.room]
    assert room.engine.view(0)["paused"] == "player"
    shot(app, tmp_path, "linksame-paused", keep=False)
    click(app, scene.pause_button.rect.center)
    await run_until(app, lambda: scene.model.paused is None, what="the resume")
    assert scene.view["board"] is not None and scene.hint_button.enabled
