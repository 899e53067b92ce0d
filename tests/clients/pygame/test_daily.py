"""Today's deal in the window (SDL's dummy driver) against a real server: from the lobby's
button to the game-over banner with the result to share, then practice."""

from __future__ import annotations

from tilehall.clients.pygame.app import App
from tilehall.clients.pygame.scenes.base import GameScene
from tilehall.clients.pygame.scenes.daily import DailyScene
from tilehall.clients.pygame.scenes.lobby import LobbyScene
from tilehall.clients.pygame.scenes.replay import ReplayScene
from tilehall.server.app import Server
from tilehall.server.daily import day_of

from tests import helpers
from tests.clients.pygame.helpers import click, close, run_until, shot
from tests.helpers import Raw
from tests.server.test_daily import ShiftedClock


async def test_todays_deal_from_the_lobby_to_the_shared_result(app, server, tmp_path, capsys):
    await run_until(app, lambda: isinstance(app.scene, LobbyScene))
    lobby = app.scene
    assert isinstance(lobby, LobbyScene) and lobby.daily_button.visible
    click(app, lobby.daily_button.rect.center)
    daily = app.scene
    assert isinstance(daily, DailyScene)
    while daily.game != "ishido":
        daily.next_game()
    await run_until(app, lambda: daily.reply is not None, what="the day's table")
    assert daily.play_button.label == "Play today's deal"
    shot(app, tmp_path, "daily_lobby")
    click(app, daily.play_button.rect.center)
    await run_until(app, lambda: isinstance(app.scene, GameScene), what="the game")
    game = app.scene
    assert isinstance(game, GameScene)
    assert game.notice_text.startswith("The deal of "), "whether it counts, said first"
    await run_until(app, lambda: game.model.status == "playing")
    await run_until(app, lambda: (game.model.summary or {}).get("daily") is not None)
    for _ in range(3):
        seq = game.model.seq
        game.send({"do": "place", "at": game.view["legal"][0]})
        await run_until(app, lambda s=seq: game.model.seq > s, what="a stone placed")
    game.send({"do": "quit"})
    await run_until(app, lambda: game.daily.text is not None, what="the result to share")
    text = game.daily.text
    score = game.model.scores[0]
    lines = text.splitlines()
    assert lines[0].startswith("Tilehall · Ishido · deal of ")
    assert lines[1].startswith(f"Score {score} · ")
    assert lines[2] == f"http://127.0.0.1:{server.port}/#daily=ishido"
    assert text in capsys.readouterr().out, "printed where no clipboard is"
    app.step()
    path = shot(app, tmp_path, "daily_over")
    assert path.stat().st_size > 10_000
    # back, and a second try is practice, said before it starts
    game.leave()
    await run_until(app, lambda: isinstance(app.scene, LobbyScene))
    click(app, app.scene.daily_button.rect.center)
    daily = app.scene
    assert isinstance(daily, DailyScene)
    while daily.game != "ishido":
        daily.next_game()
    await run_until(app, lambda: daily.reply is not None and bool(daily.reply.get("mine")))
    assert daily.reply["mine"][0]["score"] == score
    assert daily.play_button.label == "Practice again"
    assert daily.reply["share"] == text
    click(app, daily.play_button.rect.center)
    await run_until(app, lambda: isinstance(app.scene, GameScene) and app.scene is not game)
    assert app.scene.notice_text.startswith("Practice:")


async def test_yesterdays_best_three_each_replay_from_the_window(tmp_path):
    """A server on a clock moved a day on: yesterday's deal is over, its best three replay."""
    clock = ShiftedClock(0.0)
    config = helpers.in_process_config(tmp_path)
    server = Server(config, clock=clock)
    await server.start()
    url = f"ws://127.0.0.1:{server.port}"
    window = None
    try:
        for name, moves in (("bo", 4), ("cy", 1), ("di", 2), ("ed", 3)):
            raw = await Raw.open(url, name)
            made = await raw.call({"t": "create", "game": "ishido", "daily": True})
            view = (await raw.call({"t": "join", "room": made["room"]}))["view"]
            for _ in range(moves):
                action = {"do": "place", "at": view["legal"][0]}
                view = (await raw.call({"t": "act", "room": made["room"], "action": action}))[
                    "view"
                ]
            await raw.call({"t": "act", "room": made["room"], "action": {"do": "quit"}})
            await raw.close()
        yesterday = day_of(clock.time())
        clock.offset += 86400
        window = App(url, "ada")
        await run_until(window, lambda: window.online and isinstance(window.scene, LobbyScene))
        click(window, window.scene.daily_button.rect.center)
        daily = window.scene
        assert isinstance(daily, DailyScene)
        while daily.game != "ishido":
            daily.next_game()
        await run_until(window, lambda: daily.reply is not None, what="today's table")
        click(window, daily.past_button.rect.center)
        await run_until(window, lambda: len(daily.replay_buttons) == 3, what="yesterday's")
        assert daily.past is not None and daily.past["day"] == yesterday
        shot(window, tmp_path, "daily_yesterday")
        first = daily.past["entries"][0]
        click(window, daily.replay_buttons[0].rect.center)
        replay = window.scene
        assert isinstance(replay, ReplayScene) and replay.replay.room == first["room"]
        await run_until(window, lambda: replay.board is not None, what="the replay's board")
    finally:
        if window is not None:
            await close(window)
        await server.stop()
