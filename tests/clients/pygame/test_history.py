"""History, replays, leaderboards and quick games: the window against a real server."""

from __future__ import annotations

from typing import Any

import pygame
import pytest
from tilehall.clients.config import load_identity
from tilehall.clients.connection import Connection
from tilehall.clients.pygame.app import App
from tilehall.clients.pygame.scenes.history import HistoryScene
from tilehall.clients.pygame.scenes.lobby import LobbyScene
from tilehall.clients.pygame.scenes.mathable import TILE_FACE, MathableScene
from tilehall.clients.pygame.scenes.ratings import LeaderboardScene
from tilehall.clients.pygame.scenes.replay import ReplayScene
from tilehall.server.bots.mathable import BOTS

from tests.clients.pygame.helpers import click, colour_at, run_until, shot


def press(app: App, key: int) -> None:
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=0))
    app.step()


def spy(app: App) -> list[dict[str, Any]]:
    """Every request the window sends from now on (they still go to the server)."""
    sent: list[dict[str, Any]] = []
    real = app.net.request

    def request(msg: dict[str, Any], tag: str | None = None) -> None:
        sent.append(msg)
        real(msg, tag)

    app.net.request = request  # type: ignore[method-assign]
    return sent


async def mathable_played(conn: Connection, turns: int, **options: Any) -> str:
    """A Mathable game against a COMP: ``turns`` of ours (a greedy bot's moves), then quit."""
    created = await conn.request(
        {
            "t": "create",
            "game": "mathable",
            "seats": [conn.player, "COMP1:normal"],
            "options": options,
        }
    )
    room = created["room"]
    joined = await conn.join(room)
    view, seq = joined["view"], joined["seq"]
    bot = BOTS["normal"]()
    done = 0
    while done < turns and view["status"] == "playing":
        if view["to_move"] != 0:  # the COMP's turn: its updates come pushed
            msg = await conn.next_pushed(timeout=10)
            if msg.get("t") == "update" and msg.get("room") == room and msg["seq"] > seq:
                view, seq = msg["view"], msg["seq"]
            continue
        update = await conn.act(room, bot.choose(view) or {"do": "end"})
        assert update is not None
        view, seq = update["view"], update["seq"]
        done += view["to_move"] != 0
    await conn.act(room, {"do": "quit"})
    return str(room)


async def ishido_played(conn: Connection) -> str:
    """An Ishido game of a few stones, quit."""
    room = (await conn.request({"t": "create", "game": "ishido"}))["room"]
    view = (await conn.join(room))["view"]
    for _ in range(5):
        update = await conn.act(room, {"do": "place", "at": view["legal"][0]})
        assert update is not None
        view = update["view"]
    await conn.act(room, {"do": "quit"})
    return str(room)


async def lines_played(conn: Connection) -> str:
    """A Lines game of a few moves with one taken back, quit."""
    room = (await conn.request({"t": "create", "game": "lines"}))["room"]
    view = (await conn.join(room))["view"]
    for _ in range(3):
        board = view["board"]
        chips = [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if v]
        empty = [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if not v]
        for src in chips:  # a chip that can reach the first empty cell next to it
            near = [e for e in empty if abs(e[0] - src[0]) + abs(e[1] - src[1]) == 1]
            if near:
                update = await conn.act(room, {"do": "move", "from": src, "to": near[0]})
                assert update is not None
                view = update["view"]
                break
    await conn.act(room, {"do": "undo"})
    await conn.act(room, {"do": "quit"})
    return str(room)


async def as_ada(url: str) -> Connection:
    """A second connection of the window's player (by the token it remembered)."""
    conn = Connection(url, token=load_identity(url)[1])
    await conn.open()
    return conn


@pytest.mark.slow
async def test_history_lists_games_and_the_replay_steps_through_one(app, url, tmp_path):
    conn = await as_ada(url)
    try:
        ishido = await ishido_played(conn)
        lines = await lines_played(conn)
        mathable = await mathable_played(conn, 6, racks="hidden")
    finally:
        await conn.close()
    lobby = app.scene
    assert isinstance(lobby, LobbyScene)
    click(app, lobby.history_button.rect.center)
    history = app.scene
    assert isinstance(history, HistoryScene)
    await run_until(app, lambda: history.pages.reply is not None, what="the history page")
    rooms = [r["room"] for _, r in history.rows]
    assert rooms == [mathable, lines, ishido]  # newest first
    outcomes = [r["outcome"] for _, r in history.rows]
    assert outcomes[0] in ("won", "lost", "drawn") and outcomes[1:] == ["finished", "finished"]
    assert "(you)" in history.seats_line(history.rows[0][1])
    shot(app, tmp_path, "history")

    sent = spy(app)
    click(app, history.replay_buttons[mathable].rect.center)
    replay = app.scene
    assert isinstance(replay, ReplayScene)
    await run_until(app, lambda: replay.board is not None, what="the deal")
    assert replay.replay.seq == 1 and replay.replay.last is not None and replay.replay.last > 4
    board = replay.board
    assert isinstance(board, MathableScene)
    # hidden racks during play; the replay shows both, in the panel as the game's scene draws them
    racks = board.view["racks"]
    assert all(rack is not None and len(rack) == 7 for rack in racks)
    assert "every rack" in replay.lines()[0][0]
    app.step()
    panel = board.panel_rect.inflate(-24, -24)
    for seat, rack in enumerate(racks):
        box_y = panel.y + 62 * seat
        tx = panel.right - 8 - len(rack) * 18
        assert colour_at(app, (tx + 4, box_y + 34)) == TILE_FACE, seat

    for _ in range(3):
        seq = replay.replay.seq
        press(app, pygame.K_RIGHT)
        await run_until(app, lambda s=seq: replay.replay.seq == s + 1, what="a step forward")
    asked = len(sent)
    press(app, pygame.K_LEFT)
    press(app, pygame.K_HOME)
    assert replay.replay.seq == 1
    assert len(sent) == asked  # positions seen already: nothing asked again
    press(app, pygame.K_END)
    await run_until(app, lambda: replay.replay.at_end, what="the last position")
    assert replay.board is not None and replay.board.model.over
    assert replay.lines()[-1][0].startswith("game over")
    last = replay.replay.last
    bar = replay.bar
    click(app, (bar.x + bar.w * 2 // 3, bar.centery))  # the bar goes to that point of the game
    await run_until(app, lambda: replay.asked is None, what="the position")
    assert abs(replay.replay.seq - (1 + round((last - 1) * (bar.w * 2 // 3) / bar.w))) <= 1
    app.step()
    shot(app, tmp_path, "replay")
    press(app, pygame.K_END)
    click(app, replay.play_button.rect.center)  # at the end, Play starts from the deal
    assert replay.replay.seq == 1 and replay.autoplay
    replay.next_at = 0
    await run_until(app, lambda: replay.replay.seq >= 3, what="autoplay")
    press(app, pygame.K_SPACE)
    assert not replay.autoplay
    press(app, pygame.K_ESCAPE)
    assert app.scene is history  # the same page as before


async def test_a_replay_of_lines_shows_its_moves_and_the_undo(app, url, tmp_path):
    conn = await as_ada(url)
    try:
        room = await lines_played(conn)
    finally:
        await conn.close()
    app.scene = ReplayScene(app, room)
    replay = app.scene
    await run_until(app, lambda: replay.board is not None, what="the deal")
    assert replay.notice_text == "1: the deal"
    press(app, pygame.K_END)
    await run_until(app, lambda: replay.replay.at_end, what="the end")
    assert replay.board is not None and replay.board.view["undos"] == 1
    assert replay.board.view["next"]  # with preview off, the coming colours are revealed
    steps = [replay.replay.seq]
    while replay.replay.seq > 1:  # back through the game: the undo is one of its positions
        seq = replay.replay.seq
        press(app, pygame.K_LEFT)
        await run_until(app, lambda s=seq: replay.replay.seq == s - 1, what="a step back")
        steps.append(replay.replay.seq)
    events = [ev["e"] for f in replay.replay.frames.values() for ev in f["events"]]
    assert "undone" in events and "moved" in events
    assert steps == list(range(steps[0], 0, -1))


async def test_a_replay_of_a_room_still_playing_says_why_not(app, url):
    async with Connection(url, name="bea") as bea:
        room = (await bea.request({"t": "create", "game": "ishido"}))["room"]
        await bea.join(room)
        app.scene = ReplayScene(app, room)
        replay = app.scene
        await run_until(app, lambda: bool(replay.failed), what="the refusal")
        assert replay.failed.startswith("not_over")
        assert replay.board is None


async def test_leaderboard_pages_through_rated_players(app, url, tmp_path):
    for name in ("bea", "cy", "dee"):
        async with Connection(url, name=name) as conn:
            await mathable_played(conn, 0)
    conn = await as_ada(url)
    try:
        await mathable_played(conn, 0)
    finally:
        await conn.close()
    app.to_lobby()
    lobby = app.scene
    assert isinstance(lobby, LobbyScene)
    await run_until(
        app, lambda: app.lobby.ratings["mathable"]["games"] == 1, what="ada's rating refreshed"
    )
    click(app, lobby.game_buttons["mathable"].rect.center)
    assert lobby.leaderboard_button.visible
    app.scene = LeaderboardScene(app, "mathable", back=lobby, limit=3)
    board = app.scene
    await run_until(app, lambda: board.pages.reply is not None, what="page 1")
    first = [e["name"] for e in board.pages.reply["entries"]]
    assert len(first) == 3
    app.step()
    assert board.older_button.enabled and not board.newer_button.enabled
    click(app, board.older_button.rect.center)
    await run_until(
        app, lambda: board.pages.reply is not None and not board.pages.pending, what="page 2"
    )
    second = [e["name"] for e in board.pages.reply["entries"]]
    assert len(second) == 1 and not set(first) & set(second)
    assert {*first, *second} == {"ada", "bea", "cy", "dee"}
    app.step()
    assert board.newer_button.enabled and not board.older_button.enabled
    click(app, board.newer_button.rect.center)
    await run_until(app, lambda: not board.pages.pending, what="page 1 again")
    assert [e["name"] for e in board.pages.reply["entries"]] == first
    shot(app, tmp_path, "leaderboard", keep=False)
    press(app, pygame.K_ESCAPE)
    assert app.scene is lobby


async def test_quick_game_waits_with_a_countdown_and_seats_the_next_player(app, url, tmp_path):
    lobby = app.scene
    assert isinstance(lobby, LobbyScene)
    click(app, lobby.game_buttons["mathable"].rect.center)
    assert lobby.match_request() == {
        "t": "match",
        "game": "mathable",
        "seats": 2,
        "level": "normal",
        "bots_after": 30,
    }
    click(app, lobby.quick_button.rect.center)
    await run_until(app, lambda: isinstance(app.scene, MathableScene), what="the quick room")
    scene = app.scene
    assert isinstance(scene, MathableScene)
    await run_until(app, lambda: scene.model.bots_in() is not None, what="the bots' time")
    left = scene.model.bots_in()
    assert left is not None and 20 < left <= 30
    app.step()
    shot(app, tmp_path, "quickmatch")
    async with Connection(url, name="bea") as bea:
        joined = await bea.request({"t": "match", "game": "mathable"})
        assert joined["room"] == scene.model.room and joined["seat"] == 1
        await run_until(app, lambda: scene.model.status == "playing", what="the start")
        assert scene.model.bots_in() is None
        assert scene.model.seat_name(1) == "bea"
