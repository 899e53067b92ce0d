"""The lobby's create form is built from welcome.games[].options and stays within bounds."""

from __future__ import annotations

from clients.pygame import draw as d
from clients.pygame.scenes.generic import GenericScene
from clients.pygame.scenes.lobby import LobbyScene
from tests.clients.pygame.helpers import click, colour_at, engine, offline_app, shot


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
