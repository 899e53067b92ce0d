"""The lobby's create form is built from welcome.games[].options and stays within bounds."""

from __future__ import annotations

import pygame
import pytest
from tilehall.clients.pygame import draw as d
from tilehall.clients.pygame.scenes.generic import GenericScene
from tilehall.clients.pygame.scenes.history import HistoryScene
from tilehall.clients.pygame.scenes.lobby import JOIN_TONE, LobbyScene
from tilehall.clients.pygame.scenes.ratings import LeaderboardScene

from tests.clients.pygame.helpers import click, colour_at, engine, offline_app, shot, welcome


def lobby_for(game: str):
    app, net = offline_app()
    scene = app.scene
    assert isinstance(scene, LobbyScene)
    app.step()
    click(app, scene.game_buttons[game].rect.center)
    assert scene.game == game
    return app, net, scene


def control(scene: LobbyScene, name: str):
    return next(c for c in scene.controls if c.name == name)


def test_every_declared_option_gets_a_control():
    app, _, scene = lobby_for("lines")
    spec = app.lobby.game("lines")
    assert [c.name for c in scene.controls] == [o["name"] for o in spec["options"]]
    assert scene.create_request() == {"t": "create", "game": "lines"}  # defaults are not sent


def test_options_read_as_the_server_labels_them_and_an_older_servers_as_words(tmp_path):
    app, _, scene = lobby_for("mathable")
    labels = ["Opponents' racks", "Seconds per turn", "Stand-in after (s)"]
    assert [c.label for c in scene.controls] == labels
    shot(app, tmp_path, "lobby-form-labels", keep=False)
    room = {"game": "mathable", "options": {"racks": "hidden", "standin_after": 120}}
    assert scene.changed_options(room) == "Opponents' racks hidden, Stand-in after (s) 120"
    old = welcome()  # a server that predates labels
    for game in old["games"]:
        game["options"] = [{k: v for k, v in o.items() if k != "label"} for o in game["options"]]
    app.handle(old)
    app.step()
    click(app, scene.game_buttons["lines"].rect.center)
    click(app, scene.game_buttons["mathable"].rect.center)
    assert [c.label for c in scene.controls] == ["Racks", "Turn seconds", "Standin after"]
    room = {"game": "mathable", "options": {"racks": "hidden", "standin_after": 120}}
    assert scene.changed_options(room) == "Racks hidden, Standin after 120"


def test_steppers_switches_and_choices_build_the_request(tmp_path):
    app, net, scene = lobby_for("lines")
    width, preview = control(scene, "width"), control(scene, "preview")
    click(app, width.buttons[1].rect.center)
    click(app, width.buttons[1].rect.center)
    click(app, preview.buttons[0].rect.center)
    click(app, scene.private.rect.center)
    shot(app, tmp_path, "lobby-form", keep=False)
    click(app, scene.create_button.rect.center)
    assert (
        "request",
        {
            "t": "create",
            "game": "lines",
            "options": {"width": 11, "preview": True},
            "private": True,
        },
    ) in net.sent
    # a stepper stops at the option's bounds
    for _ in range(30):
        click(app, width.buttons[1].rect.center)
    assert width.value == app.lobby.game("lines")["options"][0]["max"]


def test_choices_cycle_and_seats_name_bots_or_open_places():
    app, _, scene = lobby_for("ishido")
    scoring = control(scene, "scoring")
    click(app, scoring.buttons[0].rect.center)
    assert scene.create_request()["options"] == {"scoring": "ancient"}
    app, _, scene = lobby_for("mathable")
    assert scene.create_request()["seats"] == ["ada", "COMP1:normal"]
    click(app, scene.players_buttons[1].rect.center)
    click(app, scene.seat_buttons[1].rect.center)  # COMP normal -> COMP hard
    click(app, scene.seat_buttons[0].rect.center)  # COMP normal -> COMP hard
    click(app, scene.seat_buttons[0].rect.center)  # -> open seat
    assert scene.create_request()["seats"] == ["ada", None, "COMP2:hard"]
    click(app, scene.players_buttons[0].rect.center)
    assert scene.create_request()["seats"] == ["ada", None]


def test_a_game_without_its_own_scene_is_shown_as_text():
    app, _ = offline_app()
    view = engine("ishido").view(0)
    view["game"] = "newgame"
    scene = app.open_room({"t": "joined", "room": "r9", "seat": 0, "seq": 1, "view": view})
    assert isinstance(scene, GenericScene)
    app.step()
    area = scene.board_area
    text = {
        colour_at(app, (x, y))
        for x in range(area.x, area.right, 2)
        for y in range(area.y, area.y + 200, 2)
    }
    assert d.TEXT in text  # the view's fields, written out


@pytest.mark.parametrize("size", [(1180, 780), (760, 520)])
def test_every_option_label_is_drawn_whole_left_of_its_control(size):
    """A label such as "Stand-in after (s)" shrinks rather than run under the control's
    buttons in a narrow window."""
    app, _ = offline_app(size)
    scene = app.scene
    assert isinstance(scene, LobbyScene)
    app.step()
    for game in [g["name"] for g in app.lobby.games]:
        click(app, scene.game_buttons[game].rect.center)
        app.step()
        for c in scene.controls:
            assert c.label_rect.w > 0 and c.label_rect.right < c.buttons[0].rect.x, (game, c.label)
            assert c.label_rect.h >= 12, (game, c.label)  # shrunk, but still legible


@pytest.mark.parametrize("size", [(1200, 760), (1180, 780), (760, 520)])
def test_every_form_row_stays_above_the_private_switch(size):
    """At 1200x760 the Lines form's last row (preview) used to slide under 'private'."""
    app, _ = offline_app(size)
    scene = app.scene
    assert isinstance(scene, LobbyScene)
    app.step()
    checked = []
    for game in [g["name"] for g in app.lobby.games]:
        click(app, scene.game_buttons[game].rect.center)
        while scene.players_buttons and scene.players < len(scene.seat_buttons) + 1:
            click(app, scene.players_buttons[1].rect.center)  # every seat row shown
        rows = [b.rect for c in scene.controls for b in c.buttons]
        rows += [b.rect for b in scene.players_buttons]
        rows += [b.rect for b in scene.seat_buttons[: scene.players - 1]]
        if rows:  # a game with no options and one seat has a bare form
            assert max(r.bottom for r in rows) <= scene.private.rect.top, (game, size)
            checked.append(game)
    assert {"lines", "mathable"} <= set(checked)


@pytest.mark.parametrize("size", [(1180, 780), (760, 520)])
def test_the_games_list_stays_above_the_private_room(size):
    """At 760x520 the last game buttons used to cover the 'Private room' title."""
    app, _ = offline_app(size)
    scene = app.scene
    assert isinstance(scene, LobbyScene)
    app.step()
    bottom = max(b.rect.bottom for b in scene.game_buttons.values())
    title_top = scene.code_field.rect.y - 30
    assert bottom <= title_top, size
    assert min(b.rect.h for b in scene.game_buttons.values()) >= 22


def test_quick_game_sends_the_game_and_the_seat_count():
    app, net, scene = lobby_for("lines")
    click(app, scene.quick_button.rect.center)
    assert ("request", {"t": "match", "game": "lines"}) in net.sent
    app, net, scene = lobby_for("mathable")
    click(app, scene.players_buttons[1].rect.center)
    control(scene, "racks").cycle()  # the form's options stay the form's
    click(app, scene.quick_button.rect.center)
    # the quick-game form's every field, as the terminal client sends them (clients/words.py)
    match = {"t": "match", "game": "mathable", "seats": 3, "level": "normal", "bots_after": 30}
    assert ("request", match) in net.sent


def test_ratings_show_on_rated_games_and_open_the_leaderboard():
    app, net, scene = lobby_for("lines")
    assert ("request", {"t": "leaderboard", "game": "mathable", "limit": 1}) in net.sent
    assert not scene.leaderboard_button.visible
    badge = scene.game_buttons["mathable"].rect
    right = pygame.Rect(badge.right - 50, badge.y, 44, badge.h)
    assert any(
        colour_at(app, (x, y)) == d.GOLD
        for x in range(right.x, right.right)
        for y in range(right.y, right.bottom)
    )
    assert not any(  # an unrated game has no rating to show
        colour_at(app, (x, y)) == d.GOLD
        for b in (scene.game_buttons["ishido"].rect,)
        for x in range(b.right - 50, b.right - 6)
        for y in range(b.y, b.bottom)
    )
    click(app, scene.game_buttons["mathable"].rect.center)
    assert scene.leaderboard_button.visible
    app.handle(
        {
            "t": "leaderboard",
            "game": "mathable",
            "entries": [],
            "next": None,
            "mine": {"rating": 1700.0, "rd": 60.0, "games": 19},
            "_tag": "rating",
        }
    )
    assert app.lobby.ratings["mathable"]["games"] == 19
    click(app, scene.leaderboard_button.rect.center)
    board = app.scene
    assert isinstance(board, LeaderboardScene)
    assert ("request", {"t": "leaderboard", "game": "mathable", "limit": board.limit}) in net.sent
    app.handle(
        {
            "t": "leaderboard",
            "game": "mathable",
            "entries": [{"name": "ada", "rating": 1700.0, "rd": 60.0, "games": 19}],
            "next": None,
            "mine": {"rating": 1700.0, "rd": 60.0, "games": 19},
            "_tag": "leaderboard",
        }
    )
    assert board.pages.reply is not None and not board.pages.pending
    app.step()
    click(app, board.back_button.rect.center)
    assert isinstance(app.scene, LobbyScene)


def test_my_games_opens_the_history():
    app, net, scene = lobby_for("lines")
    click(app, scene.history_button.rect.center)
    history = app.scene
    assert isinstance(history, HistoryScene)
    assert ("request", {"t": "history", "limit": history.limit}) in net.sent
    app.handle({"t": "history", "player": "ada", "rooms": [], "next": None, "_tag": "history"})
    app.step()
    assert history.pages.reply is not None and not history.older_button.enabled
    click(app, history.filter_button.rect.center)
    first = app.lobby.games[0]["name"]
    assert ("request", {"t": "history", "limit": history.limit, "game": first}) in net.sent


def test_finished_rooms_offer_no_green_resume(tmp_path):
    """Green means "play here": a finished room of mine opens on its result in a plain
    button, and someone else's finished room shows only Watch (issue 30 item 4, point 11)."""
    app, _ = offline_app()
    app.handle({**welcome(), "rooms": ["r0000done", "r0000live"]})
    seats = [{"name": "ada", "bot": False, "taken": True, "connected": True}]

    def room(rid: str, status: str) -> dict[str, object]:
        return {"room": rid, "game": "ishido", "options": {}, "seats": seats, "spectators": 0,
                "status": status, "private": False, "paused": None}  # fmt: skip

    rooms = [room("r0000done", "over"), room("r0000live", "playing"), room("r0000gone", "over")]
    app.handle({"t": "rooms", "rooms": rooms, "next": None})
    app.step()
    scene = app.scene
    assert isinstance(scene, LobbyScene)
    done, _ = scene.room_buttons["r0000done"]
    live, _ = scene.room_buttons["r0000live"]
    other, watch = scene.room_buttons["r0000gone"]
    assert (live.label, live.tone, live.visible) == ("Resume", JOIN_TONE, True)
    assert (done.label, done.visible, done.enabled) == ("Result", True, True)
    assert done.tone != JOIN_TONE and colour_at(app, done.rect.center) != colour_at(
        app, live.rect.center
    )
    assert not other.visible and watch.visible
    shot(app, tmp_path, "lobby-finished")
