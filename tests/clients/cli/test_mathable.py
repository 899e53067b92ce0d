"""Mathable played by key presses against a COMP seat on a real server."""

from __future__ import annotations

import random
import re

import pytest
from rich.text import Text
from textual.widgets import Input, Label
from tilehall.clients.cli.games import GenericScreen, screen_for
from tilehall.clients.cli.games.mathable import RECENT, THIS_TURN, MathableScreen
from tilehall.clients.cli.help import HelpScreen
from tilehall.clients.cli.lobby import CreateScreen, LobbyScreen
from tilehall.clients.cli.look import cell_name
from tilehall.clients.cli.widgets import Choice, StatusLine, fit_keys
from tilehall.clients.connection import Connection
from tilehall.clients.words import Said, Tone
from tilehall.server.bots.mathable import EasyBot
from tilehall.server.games import all_games
from tilehall.server.games.mathable import legal_placements

from tests.clients.cli.util import (
    Events,
    app_for,
    cell_text,
    create_room,
    go_to,
    screen_of,
    text_of,
    until,
)


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
async def test_waits_for_a_player_then_starts(url):
    """An open seat: the screen says who it waits for, then shows the board once Bob sits."""
    async with app_for(url).run_test() as pilot:
        await create_room(pilot, "mathable", seats=["ada", ""])
        screen = await screen_of(pilot, MathableScreen)
        assert screen.model.status == "waiting"
        await until(pilot, lambda: "Waiting for seat 2" in screen.side().plain)
        await until(pilot, lambda: not screen.grid.display)  # no board yet
        async with Connection(url, name="bob") as bob:
            await bob.join(screen.model.room)
            await until(pilot, lambda: screen.model.status == "playing")
            await until(pilot, lambda: screen.model.names() == ["ada", "bob"])
            assert screen.grid.display
            assert "The game begins" in screen.messages().plain


EQUATION = re.compile(r"\b(\d+)=(\d+)([-+\u00d7\u00f7])(\d+)\b")  # as every client writes them


def equations_read_true(text: str) -> int:
    """Every ``t=x op y`` in ``text`` is true as written; how many there were."""
    found = EQUATION.findall(text)
    for tile, x, op, y in found:
        value = {"+": int(x) + int(y), "-": int(x) - int(y), "\u00d7": int(x) * int(y)}.get(op)
        if op == "\u00f7":
            assert int(y) != 0 and int(x) == int(tile) * int(y), (tile, x, op, y)
        else:
            assert value == int(tile), (tile, x, op, y)
    return len(found)


@pytest.mark.slow
async def test_watching_shows_the_last_turn_coordinates_and_no_player_keys(url):
    """Two COMP seats play; the spectator sees the last turn marked, listed and labelled."""
    async with app_for(url).run_test(size=(120, 40)) as pilot:
        await create_room(pilot, "mathable", seats=["COMP", "COMP:easy"])
        screen = await screen_of(pilot, MathableScreen)
        assert screen.model.seat is None
        keys = screen.query_one(StatusLine).keys
        assert keys == MathableScreen.WATCH_KEYS
        assert not any(k in keys for k in ("e end", "x exchange", "i hint", "v quit"))
        await until(pilot, lambda: any(t.placed for t in screen.recent()))
        [turn] = screen.recent()  # a spectator: the last turn alone
        side = screen.side().plain
        head = f"{screen.model.name(turn.seat)}: {len(turn.placed)} tile"
        assert head in side
        listed = side[side.index(head) :]
        for p in turn.placed:
            assert any(
                line.split()[:1] == [cell_name(p.at)] and line.split()[1].startswith(f"{p.tile}=")
                for line in listed.splitlines()
            )
            r, c = p.at
            if (r, c) not in {tuple(x) for x in screen.view["turn"]["placed"]}:
                assert screen.paint(r, c, 3).style == RECENT
        assert equations_read_true(listed) >= len(turn.placed)
        assert "tiles left" not in side and f"Bag {screen.view['bag']}\n" in side
        # column letters above the board, row numbers beside it, as the log names squares
        lines = screen.grid.render().plain.split("\n")
        assert lines[0].split() == list("abcdefghijklmn")
        assert [line.split()[0] for line in lines[1:]] == [str(i) for i in range(1, 15)]
        await until(pilot, lambda: screen.model.event("placed") is not None)
        assert equations_read_true(screen.narrate().plain) >= 1  # the log line reads true too


@pytest.mark.slow
async def test_a_hint_marks_the_tile_and_a_click_on_a_labelled_board_finds_its_square(url):
    async with app_for(url).run_test() as pilot:
        await create_room(pilot, "mathable", seats=["ada", "COMP"])
        screen = await screen_of(pilot, MathableScreen)
        await until(pilot, lambda: screen.model.my_turn)
        await pilot.pause()
        keys = screen.query_one(StatusLine).keys
        assert "e end" in keys  # a player's keys
        await pilot.press("i")
        await until(pilot, lambda: screen.model.event("hint") is not None)
        tile = screen.model.event("hint")["tile"]
        note = str(screen.query_one("#rack-note").content)
        if tile is None:
            assert "nothing on your rack fits" in screen.messages().plain
        else:
            assert f"hint: the {tile} fits somewhere" in note
            rack = screen.view["racks"][0]
            assert screen.paint_rack(0, rack.index(tile), 3).style == THIS_TURN
            assert "marked on your rack" in screen.messages().plain
            # placed, the hint is taken: the note no longer says it fits (issue 30 item 4,
            # point 8), while the turn goes on
            r, c = legal_placements(screen.view["board"], tile)[0]
            await pilot.press(str(rack.index(tile) + 1))
            await go_to(pilot, screen, (r, c))
            await pilot.press("space")
            await until(pilot, lambda: screen.view["board"][r][c] == tile)
            await pilot.pause()
            assert screen.model.my_turn and screen.hinted_tile is None
            assert "fits" not in str(screen.query_one("#rack-note").content)
        # the labels take a line and a few columns: a click still lands on its square
        grid = screen.grid
        left, top = grid.label_size
        w, _ = grid.cell_size
        await pilot.click(grid, offset=(1 + left + 2 * w + 1, 1 + top + 3))  # 1: the frame
        assert screen.cursor == (3, 2)


@pytest.mark.slow
async def test_help_lists_the_keys(url):
    """'?' lists the screen's own keys (none were listed once the package became tilehall.*)."""
    async with app_for(url).run_test() as pilot:
        await create_room(pilot, "mathable", seats=["ada", "COMP"])
        await screen_of(pilot, MathableScreen)
        await pilot.press("question_mark")
        help_screen = await screen_of(pilot, HelpScreen)
        text = text_of(help_screen, "#help-text")
        for what in ("end the turn (refills the rack)", "move the cursor", "leave the room"):
            assert what in text
        assert "1 2 3 4 5 6 7" in text  # the seven rack keys, merged into one line
        await pilot.press("x")
        await screen_of(pilot, MathableScreen)


@pytest.mark.slow
async def test_four_seats_keep_the_rack_and_messages_on_an_80x24_screen(url):
    """Long turns and three open racks are trimmed to the board's height, never pushing the
    rack and the message lines off the screen."""
    async with app_for(url).run_test(size=(80, 24)) as pilot:
        await create_room(pilot, "mathable", seats=["COMP"] * 4)
        screen = await screen_of(pilot, MathableScreen)
        # A spectator's panel lists the last turn alone, and a COMP's turn may be an
        # exchange ("exchanged 7 tiles"): waiting for 6 tiles placed in the game left
        # the panel listing that now and then. Wait for the panel itself to list a turn
        # of tiles (once the game is that far on), and check the very panel that did.
        shown: list[Text] = []

        def lists_a_turn_of_tiles() -> bool:
            shown[:] = [side := screen.side()]
            placed = sum(len(t.placed) for t in screen.turns.ended)
            return placed >= 6 and re.search(r": \d+ tiles?, [+-]?\d+", side.plain) is not None

        await until(pilot, lists_a_turn_of_tiles, 30)
        side = shown[0]
        assert screen.lines(side) <= screen.side_room() == screen.grid.outer_size.height
        for part in ("#below", "#msg"):
            region = screen.query_one(part).region
            assert region.height and region.bottom <= 23, (part, region)  # 23: the status line


@pytest.mark.slow
async def test_the_create_form_names_the_options_as_the_server_labels_them(url):
    """Labels, not wire names ("Stand-in after (s)", not "standin_after"): each key whole in its
    column, a refusal in the same words, and the request still by the options' wire names."""
    async with app_for(url).run_test() as pilot:
        await screen_of(pilot, LobbyScreen)
        await pilot.press("n")
        form = await screen_of(pilot, CreateScreen)
        choice = form.query_one("#game", Choice)
        choice.index = choice.values.index("mathable")
        await until(pilot, lambda: bool(form.query("#opt-standin_after")))
        await pilot.pause()
        keys = list(form.query("#fields .key").results(Label))[:3]
        shown = [str(k.content) for k in keys]
        assert shown == ["Opponents' racks", "Seconds per turn", "Stand-in after (s)"]
        for key, text in zip(keys, shown, strict=True):
            assert key.region.width > len(text), text  # whole, with a space before the field
        standin = form.query_one("#opt-standin_after", Input)
        standin.value = "4000"
        form.action_submit()
        await pilot.pause()
        problem = form.query_one("#problem", Label)
        assert str(problem.content) == "Stand-in after (s) must be between 0 and 3600"
        standin.value = "120"
        assert form.request() == {
            "t": "create",
            "game": "mathable",
            "options": {"standin_after": 120},
            "seats": ["ada", "COMP"],
        }


@pytest.mark.slow
async def test_a_stand_in_plays_for_an_away_player_until_they_are_back(url):
    """Bob is away on his turn: a COMP stand-in plays his seat, and the screen says so."""
    async with Connection(url, name="bob") as bob:
        request = {"t": "create", "game": "mathable", "seats": ["bob", "ada"]}
        request["options"] = {"standin_after": 1}
        room = (await bob.request(request))["room"]
        await bob.join(room)
        token = bob.token
    events = Events()
    async with app_for(url).run_test(message_hook=events) as pilot:
        app = pilot.app
        await screen_of(pilot, LobbyScreen)
        await app.enter_room(await app.call({"t": "join", "room": room}))
        screen = await screen_of(pilot, MathableScreen)
        await until(pilot, lambda: screen.model.status == "playing")
        if screen.model.my_turn:
            await pilot.press("e")  # bob's turn next
        await until(pilot, lambda: events.of("stand_in"), timeout=10)
        [stand_in] = events.of("stand_in")
        assert screen.words().event(stand_in) == Said("COMP plays for bob, who is away", Tone.NOTE)
        await until(pilot, lambda: screen.model.stood_in(0))
        side = screen.side().plain
        assert "C = COMP plays for bob (away)" in side
        assert re.search(r"bob~? +-?\d+ \d+t C", side), side

        async with Connection(url, token=token) as back:
            await back.join(room)
            await until(pilot, lambda: events.of("stand_back"), timeout=10)
            [stand_back] = events.of("stand_back")
            back = Said("bob is back and plays again", Tone.GOOD)
            assert screen.words().event(stand_back) == back
            await until(pilot, lambda: not screen.model.stood_in(0))
            assert "C = COMP" not in screen.side().plain


async def test_a_game_whose_players_are_all_away_shows_as_paused(url):
    async with Connection(url, name="bob") as bob, Connection(url, name="cy") as cy:
        request = {"t": "create", "game": "mathable", "seats": ["bob", "cy"]}
        request["options"] = {"turn_seconds": 60}
        room = (await bob.request(request))["room"]
        await bob.join(room)
        await cy.join(room)
        token = bob.token
    async with app_for(url).run_test() as pilot:
        app = pilot.app
        await screen_of(pilot, LobbyScreen)
        await app.enter_room(await app.call({"t": "watch", "room": room}))
        screen = await screen_of(pilot, MathableScreen)
        await until(pilot, lambda: screen.model.paused == "away")
        assert "PAUSED: every player is away" in screen.header().plain
        assert "PAUSED: every player is away" in screen.side().plain
        assert "Clock" not in screen.side().plain  # no turn clock runs meanwhile
        async with Connection(url, token=token) as back:
            await back.join(room)
            await until(pilot, lambda: screen.model.paused is None)
            assert "The clock runs again, after" in screen.messages().plain
            assert "PAUSED" not in screen.header().plain
            await until(pilot, lambda: "Clock" in screen.side().plain)


@pytest.mark.slow
async def test_the_quit_vote_that_ends_the_game_asks_first(url):
    """Against COMP one vote is every human vote: 'v' asks, a second 'v' ends the game
    (issue 30 item 4, point 5: one press ended a rated game at once)."""
    async with app_for(url).run_test() as pilot:
        await create_room(pilot, "mathable", seats=["ada", "COMP"])
        screen = await screen_of(pilot, MathableScreen)
        # The vote asks because the room's seats say the other is COMP: wait for them, not
        # only for play.
        await until(
            pilot,
            lambda: screen.model.status == "playing" and (screen.model.summary or {}).get("seats"),
        )
        await pilot.press("v")
        # The question is armed. Its words are not read here: the next update (a COMP move)
        # clears the note line, and may come before this line runs.
        assert screen.vote_asked > 0
        await pilot.pause(0.3)
        assert screen.model.status == "playing" and not screen.view["quit_votes"]
        await pilot.press("v")
        await until(pilot, lambda: screen.model.over)
        assert screen.view["quit_votes"] == [0]


async def test_a_long_note_is_read_whole_on_80_columns(url):
    """At 80 columns the vote's question and "Press v again ..." wrap onto a second row:
    the message lines are two rows, so the older line gives way rather than the answer."""
    async with app_for(url).run_test(size=(80, 24)) as pilot:
        await create_room(pilot, "mathable", seats=["ada", "bea"])
        screen = await screen_of(pilot, MathableScreen)
        screen.told.append(Text("an update the room told"))
        screen.say(
            "Your vote would end the game now: the other players are COMP or have voted."
            " Press v again to end it, within 10 s."
        )
        await pilot.pause()
        shown = screen.messages()
        assert "Press v again to end it, within 10 s." in shown.plain
        assert "an update the room told" not in shown.plain  # two rows: the note's
        width = screen.query_one("#msg").content_size.width
        assert len(shown.wrap(screen.app.console, width)) <= screen.TOLD
        screen.say("short")
        assert screen.messages().plain == "an update the room told\nshort"


def test_every_screens_keys_fit_80_columns_and_keep_help_when_squeezed():
    """Issue 30 item 4, point 7: Mathable's footer was cut at 80 columns. Every game's
    keys fit beside " online " there; squeezed further, whole keys go and "? q" stays."""
    for screen in (*(screen_for(g.name) for g in all_games()), GenericScreen):
        line = f" online  {screen.KEYS}"
        assert len(line) <= 80, (screen.__name__, len(line))
    keys = MathableScreen.KEYS
    squeezed = fit_keys(keys, 80 - len(" reconnecting  "))
    assert squeezed.endswith("  ? q") and len(squeezed) <= 80 - len(" reconnecting  ")
    assert all(group in keys.split("  ") for group in squeezed.split("  "))


@pytest.mark.slow
async def test_the_footer_is_whole_at_80x24(url):
    async with app_for(url).run_test(size=(80, 24)) as pilot:
        await create_room(pilot, "mathable", seats=["ada", "COMP"])
        screen = await screen_of(pilot, MathableScreen)
        await until(pilot, lambda: screen.model.status == "playing")
        await pilot.pause()
        footer = screen.query_one(StatusLine)
        text = footer.render()
        assert text.cell_len <= 80 and text.plain.rstrip().endswith("v quit  ? q"), text.plain
