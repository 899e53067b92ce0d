"""Ishido played by key presses and mouse clicks on a real server."""

from __future__ import annotations

import pytest
from tilehall.clients.cli.games.ishido import IshidoScreen
from tilehall.clients.cli.look import cell_name, stone

from tests.clients.cli.util import app_for, cell_text, create_room, go_to, screen_of, until


@pytest.mark.slow
async def test_place_by_keys_and_click_help_refusals_and_mono(url):
    async with app_for(url).run_test() as pilot:
        await create_room(pilot, "ishido")
        screen = await screen_of(pilot, IshidoScreen)
        await until(pilot, lambda: screen.view.get("legal"))
        legal = [tuple(cell) for cell in screen.view["legal"]]
        for r, c in legal:
            assert cell_text(screen, (r, c)) == "+"  # the view's legal squares are marked
        current = screen.view["current"]
        target = legal[0]
        await go_to(pilot, screen, target)
        await pilot.press("space")
        await until(pilot, lambda: screen.view["placed"] == 1)
        assert screen.view["board"][target[0]][target[1]] == current
        assert cell_text(screen, target) == stone(*current, mono=False)[0]
        assert f"on {cell_name(target)}" in screen.messages().plain

        # A mouse click on a legal square places there too.
        second = tuple(screen.view["legal"][-1])
        w, h = screen.grid.cell_size
        await pilot.click(screen.grid, offset=(1 + second[1] * w + 1, 1 + second[0] * h))
        await until(pilot, lambda: screen.view["placed"] == 2)
        assert screen.view["board"][second[0]][second[1]] is not None

        await pilot.press("i")
        await until(pilot, lambda: screen.view["helps"] == 1)
        best = screen.model.event("help")["at"]
        assert screen.cursor == tuple(best)  # the cursor jumps to the answer
        assert "Best square" in screen.messages().plain
        assert screen.paint(best[0], best[1], 4).label == "**"

        # An empty square with no neighbour: the server refuses, the app says why.
        board = screen.view["board"]
        lonely = next(
            (r, c)
            for r in range(1, 7)
            for c in range(1, 11)
            if all(
                board[rr][cc] is None
                for rr, cc in ((r, c), (r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            )
        )
        await go_to(pilot, screen, lonely)
        await pilot.press("space")
        await until(pilot, lambda: pilot.app.last_error is not None)
        assert "neighbour" in pilot.app.last_error
        # the error frame's cells, named as the board labels them (words.json), not [r, c]
        assert f"square {cell_name(lonely)} has no stone beside it" in pilot.app.last_error
        assert "[" not in pilot.app.last_error
        assert screen.view["placed"] == 2

        # An occupied square is caught before sending.
        await go_to(pilot, screen, (0, 0))
        await pilot.press("space")
        assert "already holds a stone" in screen.note

        # Without colour a stone reads as colour letter + symbol digit.
        pilot.app.mono = True
        colour, symbol = screen.view["board"][0][0]
        painted = screen.paint(0, 0, 4)
        assert painted.label == "ROYGBP"[colour] + str(symbol + 1)
        assert " on " not in painted.style  # no background colour carries meaning
