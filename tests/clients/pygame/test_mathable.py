"""Mathable scene: the board, squares and racks of a real engine's view; rack-then-square play."""

from __future__ import annotations

import random
import re
import time
from typing import Any

import pygame
from tilehall.clients.pygame import draw as d
from tilehall.clients.pygame.scenes.mathable import (
    RECENT_FACE,
    SQUARE_FILLS,
    TILE_FACE,
    MathableScene,
)
from tilehall.clients.words import square
from tilehall.server.bots.mathable import BOTS
from tilehall.server.games.mathable import legal_placements

from tests.clients.pygame.helpers import click, colour_at, drag, engine, game_class, shot, show
from tests.clients.test_mathable import holds


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
    shot(app, tmp_path, "mathable-board", keep=False)  # the README's is a live game's
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
    app, net, scene = show(view, seat=seat, names=["ada", "bea"])  # two people: one vote
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


def test_drag_a_rack_tile_onto_a_square():
    e = engine("mathable", seats=2, seed=7)
    seat = e.to_move
    view = e.view(seat)
    app, net, scene = show(view, seat=seat)
    rack = view["racks"][seat]
    start, target = scene.rack_rects[2].center, scene.grid.centre(5, 6)
    drag(app, start, target, drop=False)
    assert scene.held is not None and scene.held.moved
    # the tile follows the mouse; its rack slot is empty; the square under it is outlined
    side = int(scene.grid.cell * 0.8)
    assert colour_at(app, (target[0] - side // 2 + 3, target[1] - side // 2 + 3)) == TILE_FACE
    slot = scene.rack_rects[2]
    assert colour_at(app, (slot.x + 6, slot.y + 6)) != TILE_FACE
    cell = scene.grid.cell_rect(5, 6)
    assert colour_at(app, (cell.x + 2, cell.centery)) == d.ACCENT
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=target, button=1))
    app.step()
    assert net.sent[-1] == ("act", {"do": "place", "tile": rack[2], "at": [5, 6]})
    assert scene.held is None


def test_a_tile_dropped_off_the_board_goes_back_and_stays_picked():
    e = engine("mathable", seats=2, seed=7)
    seat = e.to_move
    app, net, scene = show(e.view(seat), seat=seat)
    drag(app, scene.rack_rects[4].center, scene.panel_rect.center)
    assert not [a for kind, a in net.sent if kind == "act"]
    assert scene.selected == 4 and scene.held is None
    click(app, scene.grid.centre(5, 6))  # then a click on a square still places it
    assert net.sent[-1][1]["at"] == [5, 6]
    click(app, scene.rack_rects[1].center)
    click(app, scene.rack_rects[1].center)  # a second click on the picked tile puts it back
    assert scene.selected is None


def test_dropping_out_of_turn_sends_nothing():
    e = engine("mathable", seats=2, seed=7)
    other = 1 - e.to_move
    app, net, scene = show(e.view(other), seat=other)
    drag(app, scene.rack_rects[0].center, scene.grid.centre(5, 6))
    assert not [a for kind, a in net.sent if kind == "act"]
    assert "turn" in scene.notice_text


def test_a_spectator_gets_no_controls_and_seats_keep_their_names():
    e = engine("mathable", seats=2, seed=7)
    app, net, scene = show(e.view(None), seat=None, names=["COMP", "COMP"])
    assert isinstance(scene, MathableScene)
    assert scene.buttons and not any(b.visible for b in scene.buttons)
    assert [scene.model.seat_name(i) for i in (0, 1)] == ["COMP1", "COMP2"]
    assert scene.turn_text()[0] == f"COMP{e.to_move + 1} to move"
    drag(app, scene.rack_rects[0].center, scene.grid.centre(5, 6))
    assert scene.held is None and scene.selected is None
    assert not [a for kind, a in net.sent if kind == "act"]


def test_the_other_seats_turn_stays_marked_and_listed():
    """The bot's whole turn arrives update by update, as the server sends it."""
    e = played(3, seed=5)
    me = e.to_move
    app, _, scene = show(e.view(me), seat=me, names=["ada", "COMP"] if me == 0 else ["COMP", "ada"])
    seq = 2
    bot = BOTS["normal"]()
    notices = []
    for actor in (me, 1 - me):  # we pass, then the bot plays its turn
        while True:
            action = bot.choose(e.view(actor)) if actor != me else {"do": "end"}
            assert action is not None
            events = [ev for ev in e.act(actor, action, 0.0) if ev.get("_to", me) == me]
            app.handle(
                {"t": "update", "room": scene.model.room, "seq": seq, "events": events,
                 "view": e.view(me)}
            )  # fmt: skip
            seq += 1
            notices.append(scene.notice_text)
            if action["do"] in ("end", "exchange"):
                break
    [turn] = scene.recent()
    assert turn.seat == 1 - me and turn.placed
    scene.flash.clear()
    app.step()
    for p in turn.placed:
        assert colour_at(app, corner(scene, *p.at)) == RECENT_FACE
        assert all(holds(p.tile, *eq) for eq in p.equations)
    said = [n for n in notices if n.startswith("COMP placed ")]
    assert len(said) == len(turn.placed)
    for p, notice in zip(turn.placed, said, strict=True):  # "COMP placed 7 on h8 (7=3+4): +7"
        found = re.match(r"COMP placed (\d+) on (\w+) \((\d+)=(\d+)([-+\u00d7\u00f7])(\d+)", notice)
        assert found is not None, notice
        tile, where, made, x, op, y = found.groups()
        assert int(tile) == int(made) == p.tile and where == square(p.at)
        assert holds(p.tile, int(x), {"\u00d7": "*", "\u00f7": "/"}.get(op, op), int(y))


def test_a_stand_in_seat_is_marked_and_its_comings_and_goings_told():
    e = played(1)
    view = {**e.view(0), "standins": [1], "to_move": 1}
    app, _, scene = show(view, names=["ada", "bea"])
    assert isinstance(scene, MathableScene)
    assert scene.turn_text()[0] == "bea to move (a COMP stands in)"
    panel = scene.panel_rect.inflate(-24, -24)
    bea = pygame.Rect(panel.x, panel.y + 62, panel.w, 56)
    assert colour_at(app, (bea.x, bea.centery)) == d.GOLD  # the stand-in's seat is framed
    ada = pygame.Rect(panel.x, panel.y, panel.w, 56)
    assert colour_at(app, (ada.x, ada.centery)) != d.GOLD
    room = scene.model.room
    update = {"t": "update", "room": room, "seq": 2, "view": view}
    app.handle({**update, "events": [{"e": "stand_in", "seat": 1}]})
    assert scene.notice_text == "COMP plays for bea, who is away"
    back = {**view, "standins": []}
    app.handle({**update, "seq": 3, "view": back, "events": [{"e": "stand_back", "seat": 1}]})
    app.step()
    assert scene.notice_text == "bea is back and plays again"
    assert colour_at(app, (bea.x, bea.centery)) != d.GOLD


def test_a_game_whose_players_are_all_away_shows_paused_to_a_spectator():
    e = played(1)
    view = {**e.view(None), "paused": "away", "deadline": None}
    app, _, scene = show(view, seat=None, names=["ada", "bea"])
    assert scene.turn_text() == ("paused", d.GOLD)
    spot = (scene.board_area.centerx - 150, scene.board_area.centery)
    assert sum(colour_at(app, spot)) < 180  # under the dark "Paused" banner
    app.handle(
        {
            "t": "update",
            "room": scene.model.room,
            "seq": 2,
            "view": {**view, "paused": None},
            "events": [{"e": "resumed", "paused_for": 42.5}],
        }
    )
    assert "43 s" in scene.notice_text  # halves up, as the page rounds
    app.step()
    assert scene.turn_text()[0] != "paused"
    assert sum(colour_at(app, spot)) > 180  # the banner went with the pause: the board shows


def test_the_turn_clock_runs_on_the_servers_clock():
    e = engine("mathable", seats=2, seed=5, turn_seconds=120)
    view = e.view(0)
    server_now = time.time() - 3000.0  # this machine's clock is ahead of the server's
    view.update(now=server_now, deadline=server_now + 75.0)
    _, _, scene = show(view)
    assert isinstance(scene, MathableScene)
    left = scene.turn_left()
    assert left is not None and 74.0 < left <= 75.0


def test_the_vote_that_ends_the_game_asks_first_and_the_end_leaves_no_live_buttons(tmp_path):
    """Against COMP one quit vote is every human vote: it asks for a second press, as solo
    games' quit does; after the end the buttons read as a finished game's (issue 30 item 4,
    point 5: it ended a rated game at once, then read "Unvote quit" beside a live Hint)."""
    e = game_class("mathable")(options={}, seats=2, rng=random.Random(7), now=0.0, bots={1})
    seat = 0
    app, net, scene = show(e.view(seat), seat=seat, names=["ada", "COMP"])
    assert isinstance(scene, MathableScene) and scene.model.vote_ends_game()
    click(app, scene.quit_button.rect.center)
    assert ("act", {"do": "quit"}) not in net.sent  # the first press asks why
    assert "would end the game now" in scene.notice_text and scene.quit_button.toggled
    shot(app, tmp_path, "mathable-vote-asks", keep=False)
    click(app, scene.quit_button.rect.center)
    assert ("act", {"do": "quit"}) in net.sent
    events = e.act(seat, {"do": "quit"}, 0.0)
    over = e.view(seat)
    assert over["status"] == "over" and over["quit_votes"] == [seat]
    app.handle({"t": "update", "room": scene.model.room, "seq": 2, "events": events, "view": over})
    app.step()
    assert scene.quit_button.label == "Vote quit" and not scene.quit_button.toggled
    assert not scene.quit_button.enabled and not scene.hint_button.enabled
    assert not scene.end_button.enabled and not scene.draw_button.enabled
    shot(app, tmp_path, "mathable-over-buttons", keep=False)


def test_a_vote_among_people_is_sent_at_once():
    e = engine("mathable", seats=2, seed=7)
    app, net, scene = show(e.view(0), seat=0, names=["ada", "bea"])
    click(app, scene.quit_button.rect.center)  # bea has not voted: nothing ends yet
    assert ("act", {"do": "quit"}) in net.sent


def test_a_vote_before_the_room_says_who_plays_comp_asks_first():
    """Which seats are COMP comes in the room's summary; a vote cast before it came was
    sent at once, and against COMP it ended the game unasked. It asks now, saying why."""
    e = game_class("mathable")(options={}, seats=2, rng=random.Random(7), now=0.0, bots={1})
    app, net, scene = show(e.view(0), seat=0)  # no summary yet
    assert isinstance(scene, MathableScene) and scene.model.vote_ends_game() is None
    click(app, scene.quit_button.rect.center)
    assert ("act", {"do": "quit"}) not in net.sent
    assert "has not said yet who plays COMP" in scene.notice_text
    click(app, scene.quit_button.rect.center)
    assert ("act", {"do": "quit"}) in net.sent


def test_the_hinted_tile_placed_is_no_longer_marked():
    """The hint names a tile until it is placed, not to the end of the turn (issue 30
    item 4, point 8: "the 8 fits somewhere" stayed after the 8 went down)."""
    e = engine("mathable", seats=2, seed=7)
    seat = e.to_move
    app, _, scene = show(e.view(seat), seat=seat)
    events = [ev for ev in e.act(seat, {"do": "hint"}, 0.0) if ev.get("_to") in (None, seat)]
    tile = next(ev for ev in events if ev["e"] == "hint")["tile"]
    assert tile is not None  # this deal has a tile that fits
    app.handle({"t": "update", "room": scene.model.room, "seq": 2, "events": events,
                "view": e.view(seat)})  # fmt: skip
    app.step()
    assert scene.hinted_tile == tile
    at = legal_placements(e.view(seat)["board"], tile)[0]
    events = e.act(seat, {"do": "place", "tile": tile, "at": list(at)}, 0.0)
    app.handle({"t": "update", "room": scene.model.room, "seq": 3, "events": events,
                "view": e.view(seat)})  # fmt: skip
    app.step()
    assert scene.hinted_tile is None and scene.model.my_turn  # the turn goes on, the hint not
