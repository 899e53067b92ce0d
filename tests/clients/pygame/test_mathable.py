"""Mathable scene: the board, squares and racks of a real engine's view; rack-then-square play."""

from __future__ import annotations

from typing import Any

from clients.pygame.scenes.mathable import SQUARE_FILLS, TILE_FACE, MathableScene
from server.bots.mathable import BOTS
from tests.clients.pygame.helpers import click, colour_at, engine, shot, show


def played(turns: int, seed: int = 5) -> Any:
    """A two-seat game after ``turns`` whole turns of the normal bot."""
    e = engine("mathable", seats=2, seed=seed)
    bot = BOTS["normal"]()
    ended = 0
    while ended < turns:
        action = bot.choose(e.view(e.to_move))
        assert action is not None
        e.act(e.to_move, action, 0.0)
        ended += action["do"] in ("end", "exchange")
    return e


def corner(scene: MathableScene, r: int, c: int) -> tuple[int, int]:
    """A point of a square (or a tile's face) clear of its label or number."""
    rect = scene.grid.cell_rect(r, c)
    return (rect.x + round(rect.w * 0.2), rect.y + round(rect.h * 0.2))


def test_board_squares_and_tiles_match_the_view(tmp_path):
    e = played(4)
    view = e.view(0)
    app, _, scene = show(view, names=["ada", "COMP1"])
    assert isinstance(scene, MathableScene)
    shot(app, tmp_path, "mathable")
    tiles = 0
    for r in range(14):
        for c in range(14):
            got = colour_at(app, corner(scene, r, c))
            if view["board"][r][c] is None:
                assert got == SQUARE_FILLS[view["squares"][r][c]], (r, c)
            else:
                tiles += 1
                assert got == TILE_FACE, (r, c)
    assert tiles == 4 + sum(view["tiles_placed"])
    # our rack is drawn under the board, one tile per value
    assert len(scene.rack_rects) == len(view["racks"][0])
    for rect in scene.rack_rects:
        assert colour_at(app, (rect.x + 6, rect.y + 6)) == TILE_FACE


def test_pick_a_rack_tile_then_a_square():
    e = engine("mathable", seats=2, seed=7)
    seat = e.to_move
    view = e.view(seat)
    app, net, scene = show(view, seat=seat)
    rack = view["racks"][seat]
    click(app, scene.rack_rects[2].center)
    assert scene.selected == 2
    click(app, scene.grid.centre(5, 6))
    assert ("act", {"do": "place", "tile": rack[2], "at": [5, 6]}) in net.sent
    # right click drops the tile; a square click then sends nothing
    click(app, scene.grid.centre(3, 3), button=3)
    assert scene.selected is None
    n = len(net.sent)
    click(app, scene.grid.centre(5, 7))
    assert len(net.sent) == n


def test_exchange_hint_end_and_quit_buttons():
    e = engine("mathable", seats=2, seed=7)
    seat = e.to_move
    view = e.view(seat)
    app, net, scene = show(view, seat=seat)
    rack = view["racks"][seat]
    click(app, scene.exchange_button.rect.center)
    click(app, scene.rack_rects[0].center)
    click(app, scene.rack_rects[6].center)
    assert scene.exchange_button.label == "Swap 2"
    click(app, scene.exchange_button.rect.center)
    assert ("act", {"do": "exchange", "tiles": [rack[0], rack[6]]}) in net.sent
    click(app, scene.hint_button.rect.center)
    click(app, scene.end_button.rect.center)
    click(app, scene.quit_button.rect.center)
    acts = [a for kind, a in net.sent if kind == "act"]
    assert acts[1:] == [{"do": "hint"}, {"do": "end"}, {"do": "quit"}]
    assert not scene.draw_button.enabled  # no extra draw earned


def test_not_our_turn_buttons_are_off_and_clicks_wait():
    e = engine("mathable", seats=2, seed=7)
    other = 1 - e.to_move
    view = e.view(other)
    app, net, scene = show(view, seat=other)
    assert not scene.end_button.enabled
    assert not scene.exchange_button.enabled
    assert scene.quit_button.enabled  # a quit vote is allowed at any time
    click(app, scene.rack_rects[0].center)
    click(app, scene.grid.centre(5, 6))
    assert not [a for kind, a in net.sent if kind == "act"]
    assert "turn" in scene.notice_text


def test_an_update_shows_the_new_tile_and_the_hint():
    e = engine("mathable", seats=2, seed=11)
    seat = e.to_move
    app, _, scene = show(e.view(seat), seat=seat)
    action = BOTS["normal"]().choose(e.view(seat))
    assert action is not None and action["do"] == "place"
    events = e.act(seat, action, 0.0)
    app.handle(
        {"t": "update", "room": scene.model.room, "seq": 2, "events": events, "view": e.view(seat)}
    )
    events = [ev for ev in e.act(seat, {"do": "hint"}, 0.0) if ev.get("to") in (None, seat)]
    app.handle(
        {"t": "update", "room": scene.model.room, "seq": 3, "events": events, "view": e.view(seat)}
    )
    scene.flash.clear()
    app.step()
    r, c = action["at"]
    assert colour_at(app, corner(scene, r, c)) == TILE_FACE
    hint = next(ev for ev in events if ev["e"] == "hint")
    assert scene.hinted_tile == hint["tile"]
    assert "Hint" in scene.notice_text
