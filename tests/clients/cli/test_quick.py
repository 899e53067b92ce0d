"""Quick games, ratings in the lobby and the leaderboard, against a real server."""

from __future__ import annotations

import re

import pytest
from textual.widgets import DataTable
from tilehall.clients import words
from tilehall.clients.cli.games.lines import LinesScreen
from tilehall.clients.cli.games.mathable import MathableScreen
from tilehall.clients.cli.lobby import LeaderboardScreen, LobbyScreen, QuickScreen
from tilehall.clients.cli.widgets import Choice
from tilehall.clients.config import save_identity
from tilehall.clients.connection import Connection
from tilehall.server.ratings import bot_ratings

from tests.clients.cli.util import app_for, finish_game, screen_of, text_of, until


async def quick(pilot, game: str, **fields: object) -> None:
    """From the lobby, fill the quick-game form by its choices and press enter."""
    await screen_of(pilot, LobbyScreen)
    await pilot.press("m")
    form = await screen_of(pilot, QuickScreen)
    choice = form.query_one("#game", Choice)
    choice.index = choice.values.index(game)
    await until(pilot, lambda: all(form.query(f"#{name}") for name in fields))
    await pilot.pause()
    for name, value in fields.items():
        widget = form.query_one(f"#{name}", Choice)
        widget.index = widget.values.index(value)
    await pilot.press("enter")


async def test_quick_game_waits_with_a_countdown_and_seats_the_next_player(url):
    """Mathable for two: the room waits, says when COMP comes; bob's match sits down in it."""
    async with app_for(url).run_test() as pilot:
        await quick(pilot, "mathable", **{"quick-seats": 2, "wait": 60})
        screen = await screen_of(pilot, MathableScreen)
        assert screen.model.status == "waiting" and screen.model.seat == 0
        await until(pilot, lambda: screen.model.bots_in() is not None)  # the room's push
        side = screen.side().plain
        said = re.search(r"COMP players join in (\d+) s", side)
        assert said is not None and 50 <= int(said.group(1)) <= 60, side
        assert "Waiting for seat 2\n" in side  # counted from 1, as pygame counts
        async with Connection(url, name="bob") as bob:
            request = {"t": "match", "game": "mathable", "seats": 2, "bots_after": 60}
            joined = await bob.request(request)
            assert joined["room"] == screen.model.room and joined["seat"] == 1
            await until(pilot, lambda: screen.model.status == "playing")
            assert screen.model.bots_in() is None and "join in" not in screen.side().plain
            await until(pilot, lambda: screen.model.names() == ["ada", "bob"])


@pytest.mark.slow
async def test_quick_game_bots_take_the_open_seats_in_time(url, monkeypatch):
    monkeypatch.setattr(words, "QUICK_WAITS", (1, 30))
    async with app_for(url).run_test() as pilot:
        await quick(pilot, "mathable", **{"quick-seats": 3, "quick-level": "easy", "wait": 1})
        screen = await screen_of(pilot, MathableScreen)
        await until(pilot, lambda: screen.model.status == "playing", timeout=10)
        assert screen.model.names() == ["ada", "COMP2", "COMP3"]


@pytest.mark.slow
async def test_quick_game_of_one_starts_at_once(url):
    async with app_for(url).run_test() as pilot:
        await quick(pilot, "lines")
        screen = await screen_of(pilot, LinesScreen)
        assert screen.model.status == "playing" and screen.model.seat == 0


@pytest.mark.slow
async def test_the_lobby_shows_ratings_and_follows_a_rated_game(url):
    """A new player's rating, then, back from a game lost to COMP, the rating it moved to."""
    async with app_for(url).run_test() as pilot:
        lobby = await screen_of(pilot, LobbyScreen)
        assert text_of(lobby, "#ratings") == (
            "Rating  Mathable 1500 ± 700 (no games yet)   b leaderboard"
        )
        await quick(pilot, "mathable", **{"quick-seats": 2, "wait": 60})
        screen = await screen_of(pilot, MathableScreen)
        async with Connection(url, name="bob") as bob:
            request = {"t": "match", "game": "mathable", "seats": 2, "bots_after": 60}
            room = (await bob.request(request))["room"]
            await until(pilot, lambda: screen.model.status == "playing")
            await pilot.press("v")  # both vote: the game ends, and is rated
            await bob.act(room, {"do": "quit", "vote": True})
            await until(pilot, lambda: screen.model.over)
        await pilot.press("q")
        await screen_of(pilot, LobbyScreen)
        await until(pilot, lambda: "1 game)" in text_of(lobby, "#ratings"))
        rating = pilot.app.lobby.ratings["mathable"]
        assert rating["games"] == 1 and rating["rd"] < 350
        assert f"Mathable {words.rating_text(rating)}" in text_of(lobby, "#ratings")


async def test_leaderboard_pages_and_shows_mine(url):
    """Four rated players, two a page: n and p walk the pages; the player's own is below."""
    token = ""
    for name in ("ann", "bob", "cy", "dee"):
        async with Connection(url, name=name) as conn:
            await finish_game(conn, "mathable", seats=2)
            if name == "cy":
                token = str(conn.token)
    save_identity(url, "cy", token)
    async with app_for(url, "cy").run_test() as pilot:
        await screen_of(pilot, LobbyScreen)
        pilot.app.push_screen(LeaderboardScreen(["mathable"], page=2))
        board = await screen_of(pilot, LeaderboardScreen)
        table = board.query_one("#board", DataTable)
        await until(pilot, lambda: table.row_count == 2)
        first = [table.get_row_at(i) for i in range(2)]
        assert [str(row[0]) for row in first] == ["1", "2"]
        assert "page 1" in text_of(board, "#board-title") and "(n: more)" in text_of(
            board, "#board-title"
        )
        mine = text_of(board, "#board-mine")
        assert mine.startswith("you: ") and "1 game)" in mine
        levels = ", ".join(f"{lv} {r:.0f}" for lv, r in bot_ratings("mathable").items())
        assert f"COMP counts at a fixed rating: {levels}" in mine
        await pilot.press("n")
        await until(pilot, lambda: "page 2" in text_of(board, "#board-title"))
        second = [table.get_row_at(i) for i in range(table.row_count)]
        assert [str(row[0]) for row in second] == ["3", "4"]
        names = {str(row[1]) for row in first + second}
        assert names == {"ann", "bob", "cy", "dee"}
        ratings = [float(str(row[2])) for row in first + second]
        assert ratings == sorted(ratings, reverse=True)
        assert "(n: more)" not in text_of(board, "#board-title")
        await pilot.press("n")  # no page after the last: said, nothing asked
        assert "page 2" in text_of(board, "#board-title")
        await pilot.press("p")
        await until(pilot, lambda: "page 1" in text_of(board, "#board-title"))
        assert [str(table.get_row_at(i)[1]) for i in range(2)] == [str(r[1]) for r in first]
        await pilot.press("q")
        await screen_of(pilot, LobbyScreen)


@pytest.mark.slow
async def test_the_quick_form_moves_by_arrows_and_steps_the_wait_in_order(url):
    """↑/↓ go from field to field; ←/→ step "bots after" from shortest to longest, from 30 s
    (issue 30 item 4, point 6: it went 30, 10, 60, 120 and ↑/↓ did nothing)."""
    async with app_for(url).run_test() as pilot:
        await screen_of(pilot, LobbyScreen)
        await pilot.press("m")
        form = await screen_of(pilot, QuickScreen)
        await until(pilot, lambda: bool(form.query("#wait")))
        await pilot.pause()
        assert form.focused is form.query_one("#game", Choice)
        for _ in range(3):
            await pilot.press("down")
        wait = form.query_one("#wait", Choice)
        assert form.focused is wait and wait.value == 30
        steps = []
        for key in ("right", "right", "right", "left", "left", "left"):
            await pilot.press(key)
            steps.append(wait.value)
        assert steps == [60, 120, 10, 120, 60, 30]  # in order, round at the ends
        await pilot.press("up")
        assert form.focused is form.query_one("#quick-level", Choice)
        await pilot.press("left")
        assert form.query_one("#quick-level", Choice).value != "normal"  # ← works there too
        assert form.request()["bots_after"] == 30
