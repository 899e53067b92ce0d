"""A refused move in the terminal reads in the shared words: squares as the board names them,
tiles as they look, from the error frame's cells and tiles (a real server's)."""

from __future__ import annotations

import re

import pytest
from tilehall.clients.cli.games.matchit import MatchItScreen
from tilehall.clients.words import square, tile_name

from tests.clients.cli.util import app_for, create_room, screen_of, until

RAW = re.compile(r"\[-?\d+, -?\d+\]|\btiles? \d")


@pytest.mark.slow
async def test_a_match_it_refusal_names_its_tiles_and_squares(url):
    async with app_for(url).run_test() as pilot:
        await create_room(pilot, "matchit")
        screen = await screen_of(pilot, MatchItScreen)
        await until(pilot, lambda: screen.model.status == "playing")
        board = screen.view["board"]
        cells = [(r, c) for r, row in enumerate(board) for c, t in enumerate(row) if t is not None]
        kind = {cell: board[cell[0]][cell[1]] for cell in cells}
        a, b = next(
            (a, b)
            for a in cells
            for b in cells
            if kind[a] < 27 and kind[b] < 27 and kind[a] != kind[b]
        )
        screen.send({"do": "pair", "a": list(a), "b": list(b)})  # as two presses would
        await until(pilot, lambda: pilot.app.last_error is not None)
        names = [tile_name("matchit", kind[a]), tile_name("matchit", kind[b])]
        assert pilot.app.last_error == (
            f"the {names[0]} on {square(a)} and the {names[1]} on {square(b)} do not match"
        )
        assert not RAW.search(pilot.app.last_error)
