"""Match-It and LinkSame by key presses on a real server; the extraction path."""

from __future__ import annotations

import pytest
from textual.widgets import Static
from tilehall.clients.cli.games.linksame import LinkSameScreen
from tilehall.clients.cli.games.matchit import MatchItScreen, tile_label
from tilehall.clients.cli.games.shisen import path_cells, path_paint
from tilehall.clients.cli.help import HelpScreen
from tilehall.server.games.matchit import match_key
from tilehall.server.games.shisensho import identity_key, playable_pairs

from tests.clients.cli.util import app_for, cell_text, create_room, go_to, screen_of, until


def test_path_cells_follow_the_corners_through_the_margin():
    # Up from [0, 6] into the top margin, right along it, down to [0, 9].
    cells = path_cells([[0, 6], [-1, 6], [-1, 9], [0, 9]])
    assert cells == {
        (0, 6): {"U"},
        (-1, 6): {"D", "R"},
        (-1, 7): {"L", "R"},
        (-1, 8): {"L", "R"},
        (-1, 9): {"L", "D"},
        (0, 9): {"U"},
    }
    assert path_paint(cells[(-1, 6)], 3, "").label == " \u250c\u2500"
    assert path_paint(cells[(-1, 6)], 3, "").under == " \u2502 "
    assert path_paint(cells[(-1, 7)], 3, "").label == "\u2500" * 3


async def play_a_pair(pilot, screen, key) -> tuple[tuple[int, int], tuple[int, int]]:
    (a, b) = playable_pairs(screen.view["board"], key)[0]
    await go_to(pilot, screen, tuple(a))
    await pilot.press("space")
    assert screen.selected == tuple(a)
    await go_to(pilot, screen, tuple(b))
    await pilot.press("space")
    return tuple(a), tuple(b)


@pytest.mark.slow
async def test_matchit_pair_path_and_highlight(url):
    async with app_for(url).run_test() as pilot:
        await create_room(pilot, "matchit")
        screen = await screen_of(pilot, MatchItScreen)
        await until(pilot, lambda: screen.view.get("tiles_left") == 96)
        first = screen.view["board"][0][0]
        assert cell_text(screen, (0, 0)) == tile_label(first)
        assert "Time" in screen.side().plain and "Lives" in screen.side().plain

        screen.path_seconds = 60  # keep the path drawn however slow this machine is
        a, b = await play_a_pair(pilot, screen, match_key)
        await until(pilot, lambda: screen.view["tiles_left"] == 94)
        assert screen.ends == {a, b}  # the path is drawn on the board as it was
        assert screen.board()[a[0]][a[1]] is not None
        assert screen.view["score"] == 2
        screen.fade()
        assert screen.board()[a[0]][a[1]] is None and cell_text(screen, a) == "."

        at = next(
            (r, c) for r, row in enumerate(screen.view["board"]) for c, t in enumerate(row) if t
        )
        await go_to(pilot, screen, at)
        await pilot.press("m")
        await until(pilot, lambda: screen.model.event("highlight") is not None)
        kind = match_key(screen.view["board"][at[0]][at[1]])
        board = screen.view["board"]
        assert screen.marked == {
            (r, c)
            for r, row in enumerate(board)
            for c, t in enumerate(row)
            if t is not None and match_key(t) == kind
        }
        assert screen.view["score"] == 2 - 4


@pytest.mark.slow
async def test_linksame_pair_and_hint(url):
    async with app_for(url).run_test() as pilot:
        await create_room(pilot, "linksame", size="easy")
        screen = await screen_of(pilot, LinkSameScreen)
        screen.path_seconds = 60  # keep the hint's path drawn however slow this machine is
        await until(pilot, lambda: screen.view.get("tiles_left") == 84)
        assert screen.view["cols"] == 12 and screen.view["rows"] == 7
        # The panel and the help count stages alike, from 1: stage 1 stays put,
        # the help says tiles slide from stage 2 (issue 30 item 4, point 4).
        side = screen.side().plain
        assert "Stage       1 of 9" in side and "tiles stay put" in side, side
        await pilot.press("question_mark")
        help_screen = await screen_of(pilot, HelpScreen)
        about = str(help_screen.query_one("#help-text", Static).render())
        assert "From stage 2 on, the tiles slide" in " ".join(about.split()), about
        await pilot.press("escape")
        await screen_of(pilot, LinkSameScreen)
        await play_a_pair(pilot, screen, identity_key)
        await until(pilot, lambda: screen.view["tiles_left"] == 82)
        assert "+1" in screen.messages().plain and screen.view["score"] == 1
        assert "Shot clock" in screen.side().plain  # started by the first pair

        await pilot.press("i")
        await until(pilot, lambda: screen.view.get("hint") is not None)
        hint = screen.view["hint"]
        assert screen.marked == {tuple(hint["a"]), tuple(hint["b"])}
        assert screen.path  # the hint's path is drawn
        assert screen.view["score"] == 1 - 10

        await pilot.press("Q")  # shift+q ends the game (q only leaves the room)
        await until(pilot, lambda: screen.model.over)
        assert screen.view["end"] == "quit"
        assert "Game over" in screen.side().plain
