"""Today's deal in the terminal client, driven by Textual's pilot against a real server."""

from __future__ import annotations

import random

import pytest
from textual.widgets import DataTable
from tilehall.clients.cli.daily import DailyScreen
from tilehall.clients.cli.games.ishido import IshidoScreen
from tilehall.clients.cli.history import Replaying
from tilehall.clients.cli.lobby import LobbyScreen
from tilehall.clients.cli.share import ShareScreen
from tilehall.clients.cli.widgets import Choice
from tilehall.clients.connection import Connection
from tilehall.server.app import Server
from tilehall.server.bots import find_bot
from tilehall.server.daily import day_of

from tests import helpers
from tests.clients.cli.util import app_for, screen_of, text_of, until
from tests.server.test_daily import ShiftedClock


@pytest.mark.slow
async def test_todays_deal_from_the_lobby_to_the_result_to_share_and_practice(url, server):
    app = app_for(url)
    async with app.run_test(size=(100, 30)) as pilot:
        lobby = await screen_of(pilot, LobbyScreen)
        await until(pilot, lambda: "Today's deal" in text_of(lobby, "#daily"))
        assert "one deal a day" in text_of(lobby, "#daily")
        await pilot.press("d")
        daily = await screen_of(pilot, DailyScreen)
        choice = daily.query_one("#game", Choice)
        assert set(choice.values) == {"matchit", "linksame", "lines", "ishido"}
        choice.index = choice.values.index("ishido")
        await until(pilot, lambda: "not played it yet" in text_of(daily, "#daily-mine"))
        await pilot.press("enter")
        game = await screen_of(pilot, IshidoScreen)
        await until(pilot, lambda: game.model.status == "playing")
        await until(pilot, lambda: (game.model.summary or {}).get("daily") is not None)
        for _ in range(2):
            seq = game.model.seq
            game.send({"do": "place", "at": game.model.view["legal"][0]})
            await until(pilot, lambda s=seq: game.model.seq > s)
        game.send({"do": "quit"})
        share = await screen_of(pilot, ShareScreen, timeout=15)
        lines = share.text.splitlines()
        score = game.model.scores[0]
        assert lines[0].startswith("Tilehall · Ishido · deal of ")
        assert lines[1].startswith(f"Score {score} · ")
        assert lines[2] == f"http://127.0.0.1:{server.port}/#daily=ishido"
        await pilot.press("c")  # copied where the terminal passes OSC 52 on
        assert app.clipboard == share.text
        await pilot.press("enter")
        await screen_of(pilot, IshidoScreen)
        await pilot.press("q")
        daily = await screen_of(pilot, DailyScreen)
        await until(pilot, lambda: f"your result {score}" in text_of(daily, "#daily-mine"))
        table = daily.query_one("#daily-entries", DataTable)
        assert table.row_count == 1 and table.get_row_at(0)[1:3] == ["ada", str(score)]
        assert text_of(daily, "#daily-share") == share.text
        # a second try is practice, and the player is told before it starts
        await pilot.press("enter")
        again = await screen_of(pilot, IshidoScreen)
        assert again is not game
        told = [n.message for n in app._notifications]
        assert any(m.startswith("Practice:") for m in told), told
        await until(pilot, lambda: (again.model.summary or {}).get("practice") is True)
        again.send({"do": "quit"})
        await until(pilot, lambda: again.model.over)
        await until(pilot, lambda: "on no table" in again.note)
        assert not isinstance(app.screen, ShareScreen)
        await pilot.press("q")
        await screen_of(pilot, DailyScreen)
        await pilot.press("q")
        lobby = await screen_of(pilot, LobbyScreen)
        await until(pilot, lambda: f"yours today: Ishido {score}" in text_of(lobby, "#daily"))


@pytest.mark.slow
async def test_yesterdays_best_three_are_each_a_replay_away(tmp_path):
    """A server on a clock moved a day on: yesterday's deal is over, its games replay."""
    clock = ShiftedClock(0.0)
    config = helpers.in_process_config(tmp_path)
    server = Server(config, clock=clock)
    await server.start()
    url = f"ws://127.0.0.1:{server.port}"
    try:
        rooms = {}
        for name, moves in (("bo", 4), ("cy", 1), ("di", 2), ("ed", 3)):
            async with Connection(url, name=name) as conn:
                made = await conn.request({"t": "create", "game": "lines", "daily": True})
                view = (await conn.request({"t": "join", "room": made["room"]}))["view"]
                bot = find_bot("lines", "normal")(rng=random.Random(moves), budget=0.02)
                for _ in range(moves):
                    update = await conn.act(made["room"], bot.choose(view))
                    assert update is not None
                    view = update["view"]
                await conn.act(made["room"], {"do": "quit"})
                rooms[name] = made["room"]
        yesterday = day_of(clock.time())
        clock.offset += 86400
        app = app_for(url)
        async with app.run_test(size=(100, 30)) as pilot:
            await screen_of(pilot, LobbyScreen)
            await pilot.press("d")
            daily = await screen_of(pilot, DailyScreen)
            choice = daily.query_one("#game", Choice)
            choice.index = choice.values.index("lines")
            await until(pilot, lambda: daily.today == day_of(clock.time()))
            await pilot.press("y")
            await until(pilot, lambda: daily.past is not None and len(daily.past) == 3)
            assert f"Yesterday's deal ({yesterday})" in text_of(daily, "#daily-mine")
            table = daily.query_one("#daily-entries", DataTable)
            assert table.row_count == 3
            first = daily.past[0]
            await pilot.press("enter")
            replay = await screen_of(pilot, Replaying)
            assert replay.model.room == first["room"] == rooms[first["name"]]
            await until(pilot, lambda: replay.model.seq >= 1)
            await pilot.press("q")
            await screen_of(pilot, DailyScreen)
            await pilot.press("y")  # today's again
            await until(pilot, lambda: daily.past is None)
    finally:
        await server.stop()
