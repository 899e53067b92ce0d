"""The whole window against a real server: lobby, create, play with the mouse, identity."""

from __future__ import annotations

import os
import subprocess
import sys

import pygame
import pytest
from tilehall.clients.config import load_identity
from tilehall.clients.connection import Connection
from tilehall.clients.pygame.app import App
from tilehall.clients.pygame.scenes import lobby as lobby_mod
from tilehall.clients.pygame.scenes.ishido import STONE_COLOURS, IshidoScene
from tilehall.clients.pygame.scenes.lobby import (
    LobbyScene,
    NameScene,
    PasswordScene,
    SetPasswordScene,
    SignOutScene,
)
from tilehall.clients.pygame.scenes.mathable import RECENT_FACE, TILE_FACE, MathableScene
from tilehall.clients.words import stone_name
from tilehall.server.bots.mathable import BOTS

from tests.clients.pygame.helpers import click, close, colour_at, drag, run_until, shot

MAX_PASSES = 6
"""Turns the Mathable test may end without a tile before it gives up."""


def lobby_of(app: App) -> LobbyScene:
    assert isinstance(app.scene, LobbyScene)
    return app.scene


async def test_ishido_from_the_lobby_to_a_placed_stone(app, server, url, tmp_path):
    lobby = lobby_of(app)
    assert load_identity(url)[0] == "ada"
    click(app, lobby.game_buttons["ishido"].rect.center)
    assert lobby.game == "ishido"
    click(app, lobby.create_button.rect.center)
    await run_until(app, lambda: isinstance(app.scene, IshidoScene), what="the room")
    scene = app.scene
    assert isinstance(scene, IshidoScene)
    await run_until(app, lambda: scene.model.status == "playing", what="play to start")
    engine = server.lobby.rooms[scene.model.room].engine
    r, c = scene.view["legal"][0]
    stone = scene.view["current"]
    click(app, scene.grid.centre(r, c))
    await run_until(app, lambda: scene.model.seq >= 2, what="the update")
    # the server placed it, and the window shows what the server says
    assert engine.view(0)["board"][r][c] == stone
    assert scene.view["board"][r][c] == stone
    rect = scene.grid.cell_rect(r, c)
    assert colour_at(app, (rect.x + round(rect.w * 0.15), rect.centery)) == STONE_COLOURS[stone[0]]
    click(app, scene.help_button.rect.center)
    await run_until(app, lambda: scene.hint is not None, what="the help answer")
    assert engine.view(0)["helps"] == 1
    # refused: the server's reason is shown, nothing changes
    occupied = scene.grid.centre(0, 0)
    seq = scene.model.seq
    click(app, occupied)
    # in the clients' words: the square as the board names it, not [0, 0]
    await run_until(app, lambda: "square a1 already holds" in scene.notice_text, what="the refusal")
    # the stone there as it looks (the error frame's tiles, in the shared words), no raw list
    assert (
        scene.notice_text == f"square a1 already holds the {stone_name(scene.view['board'][0][0])}"
    )
    assert scene.model.seq == seq
    shot(app, tmp_path, "ishido-live", keep=False)
    click(app, scene.leave_button.rect.center)
    assert isinstance(app.scene, LobbyScene)


async def test_mathable_against_a_bot_with_the_mouse(app, server, tmp_path):
    lobby = lobby_of(app)
    click(app, lobby.game_buttons["mathable"].rect.center)
    assert lobby.create_request()["seats"] == ["ada", "COMP1:normal"]
    click(app, lobby.create_button.rect.center)
    await run_until(app, lambda: isinstance(app.scene, MathableScene), what="the room")
    scene = app.scene
    assert isinstance(scene, MathableScene)
    await run_until(app, lambda: scene.model.my_turn, what="our turn")
    for _ in range(MAX_PASSES):
        action = BOTS["normal"]().choose(scene.view)
        assert action is not None
        if action["do"] == "place":
            break
        # Nothing of this rack fits (now and then at the start): end the turn with the
        # mouse, and try again once the bot has played.
        passed = scene.model.seq + 1
        click(app, scene.end_button.rect.center)
        await run_until(
            app, lambda n=passed: scene.model.my_turn and scene.model.seq > n, what="the bot"
        )
    else:
        pytest.fail(f"nothing to place in {MAX_PASSES} turns: {scene.view['racks']}")
    engine = server.lobby.rooms[scene.model.room].engine
    i = scene.rack.index(action["tile"])
    click(app, scene.rack_rects[i].center)
    r, c = action["at"]
    click(app, scene.grid.centre(r, c))
    await run_until(app, lambda: scene.view["board"][r][c] == action["tile"], what="the tile")
    assert engine.view(None)["board"][r][c] == action["tile"]
    scene.flash.clear()
    app.step()
    rect = scene.grid.cell_rect(r, c)
    assert colour_at(app, (rect.x + round(rect.w * 0.2), rect.y + round(rect.h * 0.2))) in (
        TILE_FACE,
    )
    action = BOTS["normal"]().choose(scene.view)
    if action is not None and action["do"] == "place":  # a second tile, dragged this time
        i = scene.rack.index(action["tile"])
        r, c = action["at"]
        drag(app, scene.rack_rects[i].center, scene.grid.centre(r, c))
        await run_until(app, lambda: scene.view["board"][r][c] == action["tile"], what="the drop")
    ended = scene.model.seq + 1  # our end's update; the bot's turn comes after it
    click(app, scene.end_button.rect.center)
    await run_until(
        app, lambda: scene.model.my_turn and scene.model.seq > max(3, ended), what="the bot"
    )
    assert engine.view(None)["tiles_placed"][1] >= 0
    [turn] = scene.recent()  # the bot's turn, marked on the board and listed in the panel
    assert turn.seat == 1
    scene.flash.clear()
    app.step()
    for p in turn.placed:
        rect = scene.grid.cell_rect(*p.at)
        assert colour_at(app, (rect.x + round(rect.w * 0.2), rect.y + round(rect.h * 0.2))) == (
            RECENT_FACE
        )
    shot(app, tmp_path, "mathable")


async def test_lobby_lists_rooms_live_and_shows_scores(app, url, tmp_path, monkeypatch):
    monkeypatch.setattr(lobby_mod, "ROOMS_EVERY", 0.1)
    lobby = lobby_of(app)
    async with Connection(url, name="bea") as other:
        created = await other.request({"t": "create", "game": "mathable", "seats": ["bea", None]})
        room = created["room"]
        await other.join(room)
        await run_until(app, lambda: room in app.lobby.rooms, what="the new room")
        row = next(rect for rect, r in lobby.room_rows if r["room"] == room)
        join, _ = lobby.room_buttons[room]
        assert join.enabled and row.contains(join.rect)
        click(app, lobby.game_buttons["ishido"].rect.center)
        await run_until(app, lambda: "ishido" in app.lobby.scores, what="scores")
        click(app, join.rect.center)
        await run_until(app, lambda: isinstance(app.scene, MathableScene), what="joining")
        scene = app.scene
        assert isinstance(scene, MathableScene)
        await run_until(app, lambda: scene.model.status == "playing", what="the start")
        assert scene.model.seat == 1
        await run_until(app, lambda: scene.model.seat_name(0) == "bea", what="seat names")


async def test_a_taken_name_asks_for_another(server, url):
    async with Connection(url, name="cy"):
        pass
    window = App(url, "cy")
    try:
        await run_until(window, lambda: isinstance(window.scene, NameScene), what="refusal")
        assert "'cy'" in window.scene.notice_text and "is taken" in window.scene.notice_text
        window.scene.field.text = "cy2"
        click(window, window.scene.ok.rect.center)
        await run_until(window, lambda: window.online, what="welcome as cy2")
        assert window.lobby.player == "cy2"
    finally:
        await close(window)


async def test_a_refused_name_change_leaves_no_playing_as_behind(app, url, tmp_path):
    """Change name to a taken one: while it asks and after the refusal the window plays as
    nobody (the header said "playing as ada" beside the refusal), and the refused name is
    not greeted as remembered (issue 30 item 4, point 9)."""
    async with Connection(url, name="cy"):
        pass
    click(app, lobby_of(app).rename.rect.center)
    assert isinstance(app.scene, NameScene)
    app.scene.field.text = "cy"
    click(app, app.scene.ok.rect.center)
    assert not app.online and app.lobby.player is None  # asking: nobody yet
    await run_until(app, lambda: isinstance(app.scene, NameScene), what="refusal")
    assert not app.online and app.lobby.player is None
    assert "is taken" in app.scene.notice_text and app.scene.remembered == ""
    shot(app, tmp_path, "name-refused")
    app.scene.field.text = "ada"  # back to the name whose token this window keeps
    click(app, app.scene.ok.rect.center)
    lobby = lobby_of(app)
    app.step()
    shot(app, tmp_path, "name-connecting")
    await run_until(app, lambda: app.online, what="welcome as ada again")
    assert app.lobby.player == "ada" and lobby is app.scene
    shot(app, tmp_path, "name-back")


async def play_ishido_out(conn: Connection) -> int:
    """A whole Ishido game through the server (first legal square each time); its score."""
    room = (await conn.request({"t": "create", "game": "ishido"}))["room"]
    view = (await conn.join(room))["view"]
    while view["status"] == "playing":
        update = await conn.act(room, {"do": "place", "at": view["legal"][0]})
        assert update is not None
        view = update["view"]
    return int(view["scores"][0])


async def test_lobby_shows_rooms_of_every_kind_and_the_high_scores(app, url, tmp_path, monkeypatch):
    monkeypatch.setattr(lobby_mod, "ROOMS_EVERY", 0.1)
    lobby = lobby_of(app)
    async with Connection(url, name="bea") as bea, Connection(url, name="cy") as cy:
        score = await play_ishido_out(bea)
        waiting = (
            await bea.request(
                {"t": "create", "game": "mathable", "seats": ["bea", None, "COMP2:hard"]}
            )
        )["room"]
        await bea.join(waiting)
        playing = (
            await cy.request({"t": "create", "game": "mathable", "seats": ["cy", "COMP1:easy"]})
        )["room"]
        await cy.join(playing)
        ancient = (
            await cy.request({"t": "create", "game": "ishido", "options": {"scoring": "ancient"}})
        )["room"]
        click(app, lobby.game_buttons["ishido"].rect.center)
        await run_until(app, lambda: len(app.lobby.rooms) >= 4, what="the rooms")
        await run_until(
            app,
            lambda: bool((app.lobby.scores.get("ishido") or {}).get("entries")),
            what="the scores",
        )
        entry = app.lobby.scores["ishido"]["entries"][0]
        assert (entry["name"], entry["score"]) == ("bea", score)
        statuses = {r["room"]: r["status"] for _, r in lobby.room_rows}
        assert statuses[waiting] == "waiting" and statuses[playing] == "playing"
        join_waiting, _ = lobby.room_buttons[waiting]
        join_playing, _ = lobby.room_buttons[playing]
        assert join_waiting.enabled and not join_playing.enabled
        # a room's row says the options it changed, by the labels the server sends
        shown = {r["room"]: lobby.changed_options(r) for _, r in lobby.room_rows}
        assert shown[ancient] == "Scoring rules ancient" and shown[playing] == ""
        shot(app, tmp_path, "lobby")


async def test_a_private_room_is_made_and_entered_by_its_code(app, url):
    lobby = lobby_of(app)
    click(app, lobby.game_buttons["ishido"].rect.center)
    click(app, lobby.private.rect.center)
    click(app, lobby.create_button.rect.center)
    await run_until(app, lambda: isinstance(app.scene, IshidoScene), what="the private room")
    scene = app.scene
    assert isinstance(scene, IshidoScene)
    assert scene.model.room in app.codes  # shown in the top bar, to pass on
    click(app, scene.leave_button.rect.center)
    # someone else's private room, entered by typing its code
    async with Connection(url, name="bea") as bea:
        made = await bea.request(
            {"t": "create", "game": "mathable", "seats": ["bea", None], "private": True}
        )
        await bea.request({"t": "join", "code": made["code"]})
        lobby = lobby_of(app)
        app.step()
        click(app, lobby.code_field.rect.center)
        lobby.code_field.text = made["code"]
        click(app, lobby.code_join.rect.center)
        await run_until(app, lambda: isinstance(app.scene, MathableScene), what="joining by code")
        assert app.scene.model.room == made["room"]
        assert all(r["room"] != made["room"] for r in app.lobby.rooms.values())


async def test_without_a_name_it_asks_and_offers_the_remembered_one(server, url):
    first = App(url)  # nothing remembered: an empty field, and no connection yet
    try:
        assert isinstance(first.scene, NameScene)
        assert first.scene.field.text == ""
        first.step()
        assert not first.online
        first.scene.field.text = "dee"
        click(first, first.scene.ok.rect.center)
        await run_until(first, lambda: first.online, what="welcome as dee")
        assert first.lobby.player == "dee"
    finally:
        await close(first)
    name, token = load_identity(url)
    assert name == "dee" and token
    again = App(url)  # the remembered name is offered; Enter resumes the same player
    try:
        assert isinstance(again.scene, NameScene)
        assert again.scene.field.text == "dee"
        again.step()
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0))
        again.step()
        await run_until(again, lambda: again.online, what="welcome back")
        assert again.lobby.player == "dee"
        assert load_identity(url) == ("dee", token)  # by its token, not a new name
    finally:
        await close(again)


def test_help_prints_no_pygame_banner():
    out = subprocess.run(
        [sys.executable, "-m", "tilehall.clients.pygame", "--help"],
        capture_output=True,
        text=True,
        check=True,
        env={k: v for k, v in os.environ.items() if k != "PYGAME_HIDE_SUPPORT_PROMPT"},
    ).stdout
    assert out.startswith("usage: tilehall-gui"), out[:200]


async def test_a_password_signs_in_on_another_device_and_sign_out_goes_back_to_names(
    app, url, tmp_path, monkeypatch
):
    """P sets a password; a second window (its own config) is asked for it, signs in with
    it, and Shift+O signs every device out: both windows are back at the name screen."""
    lobby_of(app)
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_p, mod=0))
    app.step()
    form = app.scene
    assert isinstance(form, SetPasswordScene)
    form.new.text = "correct horse battery"
    click(app, form.ok.rect.center)
    await run_until(app, lambda: "Password set" in app.scene.notice_text, what="password_set")
    monkeypatch.setenv("TILEHALL_CONFIG", str(tmp_path / "phone"))
    phone = App(url, "ada")
    try:
        await run_until(phone, lambda: isinstance(phone.scene, PasswordScene), what="asked")
        phone.scene.field.text = "not the password"
        click(phone, phone.scene.ok.rect.center)
        await run_until(
            phone,
            lambda: (
                isinstance(phone.scene, PasswordScene)
                and "not the password" in phone.scene.notice_text
            ),
            what="bad_password",
        )
        phone.scene.field.text = "correct horse battery"
        click(phone, phone.scene.ok.rect.center)
        await run_until(phone, lambda: phone.online, what="welcome on the phone")
        assert phone.lobby.player == "ada"
        pygame.event.post(
            pygame.event.Event(pygame.KEYDOWN, key=pygame.K_o, mod=pygame.KMOD_LSHIFT)
        )
        phone.step()
        ask = phone.scene
        assert isinstance(ask, SignOutScene) and ask.everywhere
        assert "Every device's key for ada" in ask.question
        click(phone, ask.go.rect.center)
        await run_until(phone, lambda: isinstance(phone.scene, NameScene), what="signed out")
        await run_until(app, lambda: isinstance(app.scene, NameScene), what="told elsewhere")
        assert "another device" in app.scene.notice_text
        assert load_identity(url, "ada") == ("ada", None)
    finally:
        await close(phone)


async def test_o_on_a_name_without_a_password_asks_offers_one_and_loses_nothing(app, url, tmp_path):
    """Issue 37 (1): O signed a name without a password out at once, and lost it."""
    lobby_of(app)
    token = load_identity(url, "ada")[1]
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_o, mod=0))
    app.step()
    ask = app.scene
    assert isinstance(ask, SignOutScene) and not ask.protected
    assert "ada has no password" in ask.question
    assert ask.go.label == "Set a password"
    shot(app, tmp_path, "sign-out-no-password", keep=False)
    click(app, ask.go.rect.center)
    form = app.scene
    assert isinstance(form, SetPasswordScene)
    form.new.text = "short"
    click(app, form.ok.rect.center)
    await run_until(app, lambda: "at least 10" in form.notice_text, what="the refusal")
    assert app.scene is form and form.new.text == "short"  # still open, nothing lost
    form.new.text = "a long enough password"
    click(app, form.ok.rect.center)
    await run_until(app, lambda: isinstance(app.scene, LobbyScene), what="password_set")
    assert app.lobby.protected
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_o, mod=0))
    app.step()
    ask = app.scene
    assert isinstance(ask, SignOutScene) and ask.protected
    click(app, ask.go.rect.center)
    await run_until(app, lambda: isinstance(app.scene, NameScene), what="signed out")
    assert load_identity(url, "ada") == ("ada", None)
    assert token is not None


async def test_a_barred_name_keeps_its_key_and_plays_on_when_the_bar_is_lifted(app, server, url):
    """Issue 37 (3): close 4002 deleted the token, and the name was lost for good."""
    token = load_identity(url, "ada")[1]
    await server.lobby.accounts.bar("ada", True)
    await run_until(app, lambda: isinstance(app.scene, NameScene), what="barred")
    assert "barred by the host" in app.scene.notice_text
    assert load_identity(url, "ada") == ("ada", token)
    app.scene.go("ada")  # Enter as ada again: still barred, and said so
    await run_until(
        app,
        lambda: isinstance(app.scene, NameScene) and "barred" in app.scene.notice_text,
        what="barred again",
    )
    await server.lobby.accounts.bar("ada", False)
    app.scene.go("ada")
    await run_until(app, lambda: app.online and isinstance(app.scene, LobbyScene), what="back")
    assert load_identity(url, "ada") == ("ada", token)
