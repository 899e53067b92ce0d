"""Undo, quit and pause in the solo games, by key presses on a real server."""

from __future__ import annotations

import time

import pytest
from tilehall.clients.cli.games.ishido import IshidoScreen
from tilehall.clients.cli.games.lines import LinesScreen
from tilehall.clients.cli.games.linksame import LinkSameScreen
from tilehall.clients.cli.games.matchit import MatchItScreen
from tilehall.clients.cli.look import cell_name
from tilehall.server.games.matchit import match_key
from tilehall.server.games.shisensho import identity_key

from tests.clients.cli.test_lines import chip_and_free_neighbour
from tests.clients.cli.test_shisen import play_a_pair
from tests.clients.cli.util import app_for, create_room, go_to, screen_of, until


@pytest.mark.slow
async def test_lines_undo_then_quit(url):
    async with app_for(url).run_test() as pilot:
        await create_room(pilot, "lines")
        screen = await screen_of(pilot, LinesScreen)
        await until(pilot, lambda: screen.view.get("board"))
        board = [row[:] for row in screen.view["board"]]
        assert "Undos" not in screen.side().plain
        src, dst = chip_and_free_neighbour(board)
        await go_to(pilot, screen, src)
        await pilot.press("space")
        await go_to(pilot, screen, dst)
        await pilot.press("space")
        await until(pilot, lambda: screen.view["moves"] == 1)

        await pilot.press("u")
        await until(pilot, lambda: screen.view["undos"] == 1)
        assert screen.view["board"] == board and screen.view["moves"] == 0
        assert "Undos 1: not eligible for records" in screen.side().plain
        said = screen.messages().plain
        assert f"Took back {cell_name(src)}-{cell_name(dst)} (undos: 1;" in said

        await pilot.press("u")  # nothing left to take back: the server's refusal is shown
        await until(pilot, lambda: pilot.app.last_error is not None)
        assert screen.view["undos"] == 1

        await pilot.press("Q")
        await until(pilot, lambda: screen.model.over)
        assert screen.view["reason"] == "quit"
        assert "Game over: ended by the player" in screen.side().plain
        assert "Game over (ended by the player): score" in screen.messages().plain


@pytest.mark.slow
async def test_ishido_undo_then_quit(url):
    async with app_for(url).run_test() as pilot:
        await create_room(pilot, "ishido")
        screen = await screen_of(pilot, IshidoScreen)
        await until(pilot, lambda: screen.view.get("legal"))
        await pilot.press("tab", "space")
        await until(pilot, lambda: screen.view["placed"] == 1)
        at = screen.view["last"]["at"]
        await pilot.press("u")
        await until(pilot, lambda: screen.view["undos"] == 1)
        assert screen.view["placed"] == 0
        assert f"Took back the stone on {cell_name(at)}" in screen.messages().plain
        assert "Undos 1: not eligible for records" in screen.side().plain
        await pilot.press("Q")
        await until(pilot, lambda: screen.model.over)
        assert f"Game ended: {screen.view['left']} stones left" in screen.messages().plain
        assert "Game over: you ended it" in screen.side().plain


@pytest.mark.slow
async def test_matchit_undo_pause_and_the_servers_clock(url):
    async with app_for(url).run_test() as pilot:
        await create_room(pilot, "matchit")
        screen = await screen_of(pilot, MatchItScreen)
        await until(pilot, lambda: screen.view.get("tiles_left") == 96)
        # This machine's clock is 1000 s behind the server's: the countdown must not care.
        screen.model.clock.wall = lambda: time.time() - 1000
        await play_a_pair(pilot, screen, match_key)
        await until(pilot, lambda: screen.view["tiles_left"] == 94)
        sheet = screen.view["sheet_time"]
        left = screen.seconds("deadline")
        assert left is not None and sheet - 60 < left <= sheet
        assert f"{left // 60}:{left % 60:02d}" in screen.side().plain
        screen.model.clock.skew += 100  # were the server's clock 100 s ahead, 100 s less
        later = screen.seconds("deadline")
        assert later is not None and left - 102 <= later <= left - 99
        screen.model.clock.skew -= 100

        await pilot.press("u")
        await until(pilot, lambda: screen.view["undos"] == 1)
        assert screen.view["tiles_left"] == 96
        assert "Took back the pair" in screen.messages().plain
        assert "Undos 1: not eligible for records" in screen.side().plain

        await pilot.press("p")
        await until(pilot, lambda: screen.model.paused == "player")
        assert not screen.grid.display  # the sheet is hidden while paused
        assert "PAUSED: you paused it" in screen.header().plain
        side = screen.side().plain
        assert "PAUSED: you paused it" in side and "p resumes" in side
        frozen = screen.seconds("deadline")
        assert frozen is not None and abs(frozen - screen.view["time_left"]) <= 1
        await pilot.press("m")  # nothing but resume while paused: said, not sent
        assert "paused" in screen.note and "p resumes" in screen.note
        await pilot.press("p")
        await until(pilot, lambda: screen.model.paused is None)
        assert screen.grid.display
        assert "The clock runs again, after" in screen.messages().plain


@pytest.mark.slow
async def test_linksame_undo(url):
    async with app_for(url).run_test() as pilot:
        await create_room(pilot, "linksame", size="easy")
        screen = await screen_of(pilot, LinkSameScreen)
        await until(pilot, lambda: screen.view.get("tiles_left") == 84)
        a, b = await play_a_pair(pilot, screen, identity_key)
        await until(pilot, lambda: screen.view["tiles_left"] == 82)
        await pilot.press("u")
        await until(pilot, lambda: screen.view["undos"] == 1)
        assert screen.view["tiles_left"] == 84
        assert f"Took back the pair {cell_name(a)}+{cell_name(b)}" in screen.messages().plain
        await go_to(pilot, screen, a)  # the pair is back on the board
        assert screen.tile_at(a) is not None and screen.tile_at(b) is not None
