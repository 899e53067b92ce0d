"""Lines played by key presses on a real server; compact and colour-less drawing."""

from __future__ import annotations

import pytest
from tilehall.clients.cli.games.lines import LinesScreen
from tilehall.clients.cli.look import CHIP_SYMBOLS, cell_name

from tests.clients.cli.util import app_for, cell_text, create_room, go_to, screen_of, until


def chip_and_free_neighbour(board: list[list[int]]) -> tuple[tuple[int, int], tuple[int, int]]:
    """A chip with an empty orthogonal neighbour: a move that is always reachable."""
    for r, row in enumerate(board):
        for c, colour in enumerate(row):
            if not colour:
                continue
            for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                rr, cc = r + dr, c + dc
                if 0 <= rr < len(board) and 0 <= cc < len(row) and not board[rr][cc]:
                    return (r, c), (rr, cc)
    raise AssertionError("no chip can move")


@pytest.mark.slow
async def test_select_a_chip_and_move_it(url):
    async with app_for(url).run_test() as pilot:
        await create_room(pilot, "lines")
        screen = await screen_of(pilot, LinesScreen)
        await until(pilot, lambda: screen.view.get("board"))
        src, dst = chip_and_free_neighbour(screen.view["board"])
        colour = screen.view["board"][src[0]][src[1]]

        await go_to(pilot, screen, dst)
        await pilot.press("space")  # an empty cell with nothing selected
        assert "select a chip" in screen.note
        await go_to(pilot, screen, src)
        await pilot.press("space")
        assert screen.selected == src
        assert cell_text(screen, src).startswith("<")
        await go_to(pilot, screen, dst)
        await pilot.press("space")
        await until(pilot, lambda: screen.view["moves"] == 1)
        board = screen.view["board"]
        events = screen.model.events
        thrown = {tuple(cell) for ev in events if ev["e"] == "thrown" for cell in ev["cells"]}
        removed = any(ev["e"] == "removed" for ev in events)
        assert board[src[0]][src[1]] == 0 or src in thrown  # a throw may land there
        assert board[dst[0]][dst[1]] == colour or removed  # unless it completed a line
        assert screen.selected is None
        said = f"chip moved from {cell_name(src)} to {cell_name(dst)}"  # words.json's
        assert said in screen.messages().plain


@pytest.mark.slow
async def test_big_board_fits_80x24_and_mono_chips_are_symbols(url):
    """A 20x20 board of nine colours, without colour: compact, and every chip its symbol."""
    async with app_for(url, mono=True).run_test(size=(80, 24)) as pilot:
        await create_room(
            pilot, "lines", width="20", height="20", colours="9", initial="60", preview=True
        )
        screen = await screen_of(pilot, LinesScreen)
        await until(pilot, lambda: screen.view.get("width") == 20)
        await pilot.pause()
        region = screen.grid.region
        assert screen.has_class("-compact")
        assert region.bottom <= 24 - 3  # messages and the status line stay visible
        assert region.right <= 80 - 20  # the side panel keeps its room
        assert screen.grid.cell_size == (2, 1)
        assert screen.query_one("#side").region.width >= 20

        chips = 0
        for r, row in enumerate(screen.view["board"]):
            for c, colour in enumerate(row):
                if colour:
                    assert cell_text(screen, (r, c)) == CHIP_SYMBOLS[colour]
                    chips += 1
                else:
                    assert cell_text(screen, (r, c)) == "."
        assert chips > 0
        assert len(set(CHIP_SYMBOLS[1:10])) == 9 and " " not in CHIP_SYMBOLS[1:]
        side = screen.side().plain
        assert "Next" in side and "chips: @ # % & * + = $ ^" in side
