"""Mathable played by key presses against a COMP seat on a real server."""

from __future__ import annotations

import random

from clients.cli.games import MathableScreen
from clients.cli.model import cell_name
from clients.connection import Connection
from server.bots.mathable import EasyBot
from tests.clients.cli.util import Events, app_for, cell_text, create_room, go_to, screen_of, until


async def test_pick_place_and_end_turn_by_keys(url):
    """The test asks a real bot which tile fits where, then plays it with the keys."""
    async with app_for(url).run_test() as pilot:
        await create_room(pilot, "mathable", seats=["ada", "COMP"])
        screen = await screen_of(pilot, MathableScreen)
        assert screen.model.seat == 0
        await until(pilot, lambda: screen.model.my_turn)
        assert "your turn" in screen.header().plain
        bot = EasyBot(rng=random.Random(1), budget=30)
        action = bot.choose(screen.view)
        for _ in range(10):  # a random deal may leave nothing to place: pass with the keys
            if action is None or action["do"] == "place":
                break
            seq = screen.model.seq
            await pilot.press("e")
            await until(pilot, lambda seq=seq: screen.model.seq > seq and screen.model.my_turn)
            action = bot.choose(screen.view)
        assert action is not None and action["do"] == "place", action
        rack = screen.view["racks"][0]
        r, c = action["at"]

        await pilot.press("space")  # nothing picked yet: said, not sent
        assert "pick a rack tile" in screen.note
        await pilot.press(str(rack.index(action["tile"]) + 1))
        assert screen.picked_tile() == action["tile"]
        await go_to(pilot, screen, (r, c))
        await pilot.press("space")
        await until(pilot, lambda: screen.view["board"][r][c] == action["tile"])
        assert cell_text(screen, (r, c)) == str(action["tile"])
        assert screen.view["turn"]["placed"] == [[r, c]]
        assert f"{action['tile']} on {cell_name((r, c))}" in screen.messages().plain
        assert len(screen.view["racks"][0]) == 6
        assert screen.pick is None

        await pilot.press("e")  # end the turn: the rack refills, COMP plays, back to me
        await until(pilot, lambda: screen.model.event("turn") is not None or screen.model.over)
        await until(pilot, lambda: screen.model.my_turn or screen.model.over)
        assert screen.view["tiles_placed"][0] == 1
        assert len(screen.view["racks"][0]) == 7 or screen.view["bag"] == 0


async def test_refusal_mouse_pick_and_exchange(url):
    """A refused placement is shown and changes nothing; then the same turn exchanges."""
    events = Events()
    async with app_for(url).run_test(message_hook=events) as pilot:
        await create_room(pilot, "mathable", seats=["ada", "COMP"])
        screen = await screen_of(pilot, MathableScreen)
        await until(pilot, lambda: screen.model.my_turn)
        await pilot.pause()  # the rack row appears when play starts
        rack = screen.query_one("#rack")
        width = rack.cell_size[0]
        await pilot.click(rack, offset=(2 * width + 1, 0))  # the mouse picks the third tile
        assert screen.pick == 2
        await pilot.click(rack, offset=(1, 0))
        assert screen.pick == 0
        await go_to(pilot, screen, (0, 0))  # a corner: no equation can form there
        await pilot.press("space")
        await until(pilot, lambda: pilot.app.last_error is not None)
        assert screen.view["board"][0][0] is None
        assert screen.is_current  # shown, not crashed

        rack_tiles = screen.view["racks"][0]
        await pilot.press("x", "1", "2", "2", "3")  # 2 marked twice: unmarked
        assert screen.marked == {0, 2}
        assert "exchange 2" in str(screen.query_one("#rack-note").content)
        await pilot.press("x")
        await until(pilot, lambda: events.of("exchanged"))
        exchanged = events.of("exchanged")[0]
        assert exchanged["seat"] == 0
        assert sorted(exchanged["tiles"]) == sorted([rack_tiles[0], rack_tiles[2]])  # open racks
        assert screen.marked is None


async def test_waits_for_a_player_then_starts(url):
    """An open seat: the screen says who it waits for, then shows the board once Bob sits."""
    async with app_for(url).run_test() as pilot:
        await create_room(pilot, "mathable", seats=["ada", ""])
        screen = await screen_of(pilot, MathableScreen)
        assert screen.model.status == "waiting"
        await until(pilot, lambda: "Waiting for seat 1" in screen.side().plain)
        await until(pilot, lambda: not screen.grid.display)  # no board yet
        async with Connection(url, name="bob") as bob:
            await bob.join(screen.model.room)
            await until(pilot, lambda: screen.model.status == "playing")
            await until(pilot, lambda: screen.model.names() == ["ada", "bob"])
            assert screen.grid.display
            assert "The game begins" in screen.messages().plain
