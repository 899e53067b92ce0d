"""The history screen and replays, against a real server."""

from __future__ import annotations

from typing import Any

import pytest
import tilehall.clients.cli.history as history
from textual.widgets import DataTable
from tilehall.clients.cli.games.lines import LinesScreen
from tilehall.clients.cli.games.mathable import MathableScreen
from tilehall.clients.cli.help import HelpScreen
from tilehall.clients.cli.history import HistoryScreen, Replaying
from tilehall.clients.cli.lobby import LobbyScreen
from tilehall.clients.config import save_identity
from tilehall.clients.connection import Connection

from tests.clients.cli.util import app_for, finish_game, screen_of, text_of, until


async def games_of_ada(url: str, *games: tuple[str, dict[str, Any]]) -> list[str]:
    """Ada plays and quits each game over a plain connection; the app then comes back as her."""
    rooms = []
    async with Connection(url, name="ada") as ada:
        for game, how in games:
            rooms.append(await finish_game(ada, game, **how))
        save_identity(url, "ada", str(ada.token))
    return rooms


def rows(table: DataTable[Any]) -> list[list[str]]:
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def test_history_lists_games_newest_first_and_pages(url):
    lines, ishido, mathable = await games_of_ada(
        url, ("lines", {}), ("ishido", {}), ("mathable", {"seats": 2})
    )
    async with app_for(url).run_test() as pilot:
        await screen_of(pilot, LobbyScreen)
        await pilot.press("h")
        screen = await screen_of(pilot, HistoryScreen)
        table = screen.query_one("#history", DataTable)
        await until(pilot, lambda: table.row_count == 3)
        got = rows(table)
        assert [row[1] for row in got] == ["mathable", "ishido", "lines"]
        assert got[0][2] in ("won", "lost", "drawn") and got[0][4].startswith("COMP ")
        assert got[1][2] == "played" and got[1][4] == "-"
        assert all(row[0][:4].isdigit() and row[0][10] == " " for row in got)  # when
        assert text_of(screen, "#history-title") == "History  ada  all games  page 1"
        await pilot.press("g")  # one game only: Mathable is the first of welcome.games
        await until(pilot, lambda: table.row_count == 1)
        assert rows(table)[0][1] == "mathable"
        await pilot.press("q")
        await screen_of(pilot, LobbyScreen)

        pilot.app.push_screen(HistoryScreen(page=2))
        screen = await screen_of(pilot, HistoryScreen)
        table = screen.query_one("#history", DataTable)
        await until(pilot, lambda: table.row_count == 2)
        assert "(n: older)" in text_of(screen, "#history-title")
        assert list(screen.rooms) == [mathable, ishido]
        await pilot.press("n")
        await until(pilot, lambda: list(screen.rooms) == [lines])
        assert "page 2" in text_of(screen, "#history-title")
        assert "(n: older)" not in text_of(screen, "#history-title")
        await pilot.press("p")
        await until(pilot, lambda: list(screen.rooms) == [mathable, ishido])


@pytest.mark.slow
async def test_replay_steps_reveals_the_racks_and_asks_nothing_twice(url, monkeypatch):
    """A Mathable game with hidden racks: the replay shows every rack, a step back costs
    no request, autoplay runs to the end and stops."""
    monkeypatch.setattr(history, "AUTOPLAY_SECONDS", 0.05)
    async with Connection(url, name="ada") as ada:
        request = {"t": "match", "game": "mathable", "seats": 2, "bots_after": 0}
        request["options"] = {"racks": "hidden"}
        room = (await ada.request(request))["room"]
        view: dict[str, Any] = {}
        while view.get("to_move") != 0:  # play begins; our turn comes
            msg = await ada.next_pushed(5)
            if msg.get("room") == room and msg["t"] == "update":
                view = msg["view"]
        await ada.act(room, {"do": "end"})  # a turn without a tile: COMP plays one
        while view.get("to_move") != 0 or view.get("status") != "playing":
            msg = await ada.next_pushed(5)
            if msg.get("room") == room and msg["t"] == "update":
                view = msg["view"]
        await ada.act(room, {"do": "quit", "vote": True})
        for _ in range(200):
            if (await ada.request({"t": "history"}))["rooms"]:
                break
        save_identity(url, "ada", str(ada.token))

    async with app_for(url).run_test(size=(100, 32)) as pilot:
        app = pilot.app
        await screen_of(pilot, LobbyScreen)
        sent: list[dict[str, Any]] = []
        real = app.conn.request

        async def spy(msg: dict[str, Any]) -> dict[str, Any]:
            sent.append(msg)
            return await real(msg)

        app.conn.request = spy
        await pilot.press("h")
        listing = await screen_of(pilot, HistoryScreen)
        await until(pilot, lambda: listing.query_one("#history", DataTable).row_count == 1)
        await pilot.press("enter")
        screen = await screen_of(pilot, MathableScreen)
        assert isinstance(screen, Replaying)
        await until(pilot, lambda: screen.replay.seq == 1)
        last = screen.replay.last
        assert last is not None and last >= 4
        asked = [m["seq"] for m in sent if m["t"] == "replay"]
        assert asked == [1]
        header = screen.header().plain
        assert f"Replay  Mathable {room}  1/{last}" in header
        assert "ada vs COMP" in header and "shown: every rack" in header
        frame = screen.replay.current
        assert frame is not None and frame["view"]["seat"] is None
        racks = frame["revealed"]["racks"]
        assert all(rack for rack in racks)  # the spectators' view hid them; the replay not
        owner = screen.rack_owner()
        assert owner is not None and screen.rack() == racks[owner]
        other = 1 - owner
        assert f"{screen.model.name(other)[:8]}: {' '.join(map(str, racks[other]))}" in (
            screen.side().plain
        )
        assert "The game begins." in screen.messages().plain

        await pilot.press("right", "right")
        await until(pilot, lambda: screen.replay.seq == 3)
        assert f"3/{last}" in screen.header().plain
        assert screen.model.events == screen.replay.frames[3]["events"]
        await pilot.press("left")
        await until(pilot, lambda: screen.replay.seq == 2)
        await pilot.press("home")
        await until(pilot, lambda: screen.replay.seq == 1)
        assert [m["seq"] for m in sent if m["t"] == "replay"] == [1, 2, 3]  # back: cached
        await pilot.press("left")  # before the deal: nothing to ask
        assert screen.note == "the start of the game"
        await pilot.press("end")
        await until(pilot, lambda: screen.replay.seq == last)
        assert screen.model.over and "end" in screen.header().plain
        await pilot.press("right")
        assert screen.note == "the end of the game"
        assert [m["seq"] for m in sent if m["t"] == "replay"] == [1, 2, 3, last]

        shown: list[int] = []
        show = screen.show

        def showing(*, forward: bool) -> None:
            show(forward=forward)
            shown.append(screen.replay.seq)

        screen.show = showing
        await pilot.press("home", "space")  # autoplay from the deal to the end
        await until(pilot, lambda: screen.replay.at_end and not screen.playing)
        assert shown[-last:] == list(range(1, last + 1))  # every position in turn, then stop
        asked = [m["seq"] for m in sent if m["t"] == "replay"]
        assert sorted(set(asked)) == list(range(1, last + 1)) and len(asked) == len(set(asked))

        await pilot.press("e")  # a game key does nothing in a replay
        assert screen.replay.at_end and not any(m["t"] == "act" for m in sent)
        await pilot.press("question_mark")
        helping = await screen_of(pilot, HelpScreen)
        keys = [what for _, what in helping.keys]
        assert "one step forward" in keys and "end the turn (refills the rack)" not in keys
        await pilot.press("x")
        await pilot.press("q")
        await screen_of(pilot, HistoryScreen)


async def test_replay_of_lines_shows_the_colours_that_were_hidden(url):
    """Lines without preview: the spectators never saw the next colours; the replay does."""
    [room] = await games_of_ada(url, ("lines", {}))
    async with app_for(url).run_test() as pilot:
        await screen_of(pilot, LobbyScreen)
        pilot.app.push_screen(history.replay_screen("lines", room))
        screen = await screen_of(pilot, LinesScreen)
        await until(pilot, lambda: screen.replay.seq == 1)  # type: ignore[attr-defined]
        assert screen.view["next"] and "Next" in screen.side().plain
        assert "shown: the next colours" in screen.header().plain
