"""The app against a real server: identity, lobby, create/join/watch, scores, reconnects."""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import DataTable, Input, Label, Static
from tilehall.clients import words
from tilehall.clients.cli.app import TilehallApp
from tilehall.clients.cli.games import GenericScreen
from tilehall.clients.cli.games.ishido import IshidoScreen
from tilehall.clients.cli.games.mathable import MathableScreen
from tilehall.clients.cli.lobby import (
    CodeScreen,
    LobbyScreen,
    NameScreen,
    PasswordScreen,
    ScoresScreen,
    SetPasswordScreen,
    SignOutScreen,
)
from tilehall.clients.cli.widgets import Choice, StatusLine
from tilehall.clients.config import known_names, load_identity, save_identity
from tilehall.clients.connection import Connection, ServerError
from tilehall.server.app import Server
from tilehall.server.config import Config, Limits

from tests.clients.cli.util import app_for, create_room, screen_of, text_of, until


async def test_name_is_remembered_and_the_next_start_resumes_the_player(url):
    async with app_for(url, "ada").run_test() as pilot:
        await screen_of(pilot, LobbyScreen)
        token = pilot.app.conn.token
    assert load_identity(url) == ("ada", token)
    async with app_for(url, None).run_test() as pilot:  # no --name: the saved one
        await screen_of(pilot, LobbyScreen)
        assert pilot.app.conn.player == "ada"
        assert pilot.app.conn.token == token


async def test_play_as_ada_then_as_bea_then_name_ada_resumes_adas_seat(url):
    """Each name keeps its own token: starting as bea never loses ada's (issue 29)."""
    async with app_for(url, "ada").run_test() as pilot:
        await create_room(pilot, "ishido")
        await screen_of(pilot, IshidoScreen)
        [room] = pilot.app.lobby.mine
        ada_token = pilot.app.conn.token
    async with app_for(url, "bea").run_test() as pilot:
        await screen_of(pilot, LobbyScreen)
        assert pilot.app.conn.player == "bea"
        assert pilot.app.lobby.mine == []
    async with app_for(url, "ADA").run_test() as pilot:  # --name ada, in any case
        await screen_of(pilot, LobbyScreen)
        assert (pilot.app.conn.player, pilot.app.conn.token) == ("ada", ada_token)
        assert pilot.app.lobby.mine == [room]
    assert known_names(url) == ["ada", "bea"]


@pytest.mark.slow
async def test_a_password_set_here_signs_in_on_another_device_and_sign_out_ends_both(
    url, tmp_path, monkeypatch
):
    """Set a password with p; another device (its own config) signs in with it; O signs out
    everywhere, and the first device is told and forgets the token."""
    secret = "correct horse battery"
    async with app_for(url, "ada").run_test() as pilot:
        await screen_of(pilot, LobbyScreen)
        await pilot.press("p")
        form = await screen_of(pilot, SetPasswordScreen)
        form.query_one("#new", Input).value = secret
        form.query_one("#new", Input).focus()
        await pilot.press("enter")
        await screen_of(pilot, LobbyScreen)
        async with Connection(url, name="ada", password=secret) as other:
            assert other.player == "ada"
    first = load_identity(url, "ada")
    monkeypatch.setenv("TILEHALL_CONFIG", str(tmp_path / "phone"))
    async with Connection(url, token=first[1]) as laptop:  # the first device, still signed in
        async with app_for(url, "ada").run_test() as pilot:
            ask = await screen_of(pilot, PasswordScreen)
            await pilot.press(*"not it at all", "enter")
            ask = await screen_of(pilot, PasswordScreen)
            assert "not right" in str(ask.problem) or "not the password" in str(ask.problem)
            await pilot.press(*secret, "enter")
            await screen_of(pilot, LobbyScreen)
            assert pilot.app.conn.player == "ada"
            assert load_identity(url, "ada")[1] not in (None, first[1])  # a token of its own
            await pilot.press("O")
            ask = await screen_of(pilot, SignOutScreen)
            assert "Every device" in text_of_label(ask, "#question")
            await pilot.press("enter")
            await until(pilot, lambda: pilot.app.signed_out is not None)
        assert load_identity(url, "ada") == ("ada", None)
        async with asyncio.timeout(5):
            async for msg in laptop.pushed():
                if msg["t"] == "_signed_out":
                    break
        assert msg["code"] == 4001 and laptop.token is None


def text_of_label(screen, selector: str) -> str:
    return str(screen.query_one(selector, Label).content)


@pytest.mark.slow
async def test_o_on_a_name_without_a_password_asks_and_offers_one_and_loses_nothing(url):
    """Issue 37 (1): o signed a name without a password out at once, and lost it."""
    async with app_for(url, "dora").run_test(size=(80, 24)) as pilot:
        await screen_of(pilot, LobbyScreen)
        token = pilot.app.conn.token
        await pilot.press("o")
        ask = await screen_of(pilot, SignOutScreen)
        assert "dora has no password" in text_of_label(ask, "#question")
        await pilot.press("enter")  # no way out of the name from here
        await pilot.pause()
        assert isinstance(pilot.app.screen, SignOutScreen) and pilot.app.signed_out is None
        await pilot.press("escape")
        await screen_of(pilot, LobbyScreen)
        await pilot.press("O", "p")  # everywhere: the same question, and a password
        form = await screen_of(pilot, SetPasswordScreen)
        await pilot.pause()
        # issue 37 (8): its first line was cut at "(10-256 char" in an 80x24 terminal
        shown = pilot.app.export_screenshot().replace("&#160;", " ")
        assert "characters." in shown, "the dialog's first line is cut"
        form.query_one("#new", Input).value = "short"
        form.query_one("#new", Input).focus()
        await pilot.press("enter")
        await until(pilot, lambda: "at least 10" in text_of_label(form, "#problem"))
        assert pilot.app.screen is form  # still open, nothing typed lost
        assert form.query_one("#new", Input).value == "short"
        form.query_one("#new", Input).value = "a long enough password"
        await pilot.press("enter")
        await screen_of(pilot, LobbyScreen)
        assert pilot.app.protected
        await pilot.press("o")
        ask = await screen_of(pilot, SignOutScreen)
        assert "its password signs in again" in text_of_label(ask, "#question")
        await pilot.press("enter")
        await until(pilot, lambda: pilot.app.signed_out is not None)
    assert load_identity(url, "dora") == ("dora", None)
    assert load_identity(url) == (None, None)  # no other name became the default
    with pytest.raises(ServerError) as gone:  # the key was taken back
        await Connection(url, token=token, reconnect=False).open()
    assert gone.value.code == "bad_token"


async def test_a_refused_token_asks_for_a_name_again(url):
    save_identity(url, "ghost", "not-a-token-the-server-knows")
    async with app_for(url, None).run_test() as pilot:
        ask = await screen_of(pilot, NameScreen)
        assert "no longer knows you" in str(ask.problem)
        ask.query_one("#name", Input).value = ""
        await pilot.press(*"bea", "enter")
        await screen_of(pilot, LobbyScreen)
        assert pilot.app.conn.player == "bea"
    assert load_identity(url)[0] == "bea"


async def test_a_taken_name_asks_again(url):
    async with Connection(url, name="Cyrano de Bergerac"):
        pass
    async with app_for(url, "CYRANO DE BERGERAC").run_test(size=(80, 24)) as pilot:
        ask = await screen_of(pilot, NameScreen)
        assert "taken" in str(ask.problem)
        # the whole refusal is shown, wrapped within the dialog, at 80x24 (issue 30 item 4,
        # point 7: it was cut at the dialog's edge)
        await pilot.pause()
        shown = ask.query_one("#problem", Static).region
        box = ask.query_one("Vertical").content_region
        assert len(str(ask.problem)) > box.width and shown.height >= 2
        assert shown.x >= box.x and shown.right <= box.right
        ask.query_one("#name", Input).value = "cy2"
        await pilot.press("enter")
        await screen_of(pilot, LobbyScreen)
        assert pilot.app.conn.player == "cy2"


async def test_lobby_lists_rooms_live_and_plays_the_selected_one(url):
    async with app_for(url).run_test() as pilot:
        lobby = await screen_of(pilot, LobbyScreen)
        table = lobby.query_one("#rooms", DataTable)
        assert table.row_count == 0
        async with Connection(url, name="host") as other:
            room = (await other.request({"t": "create", "game": "ishido"}))["room"]
            await until(pilot, lambda: table.row_count == 1)  # polled, not pushed
            row = table.get_row(room)
            assert row[1:3] == [room, "ishido"]
            assert "(free)" in row[3] and row[5] == "waiting for players"
            await pilot.press("enter")
            screen = await screen_of(pilot, IshidoScreen)
            assert screen.model.seat == 0 and screen.model.status == "playing"
            await pilot.press("q")
            await screen_of(pilot, LobbyScreen)
            await until(pilot, lambda: "ada" in table.get_row(room)[3])
            assert table.get_row(room)[0] == "*"  # the seat is still mine


async def test_watch_a_room_of_bots_follows_the_game(url):
    """A Mathable room of two COMP seats, made with the form; the app watches it."""
    async with app_for(url).run_test() as pilot:
        await create_room(pilot, "mathable", seats=["COMP", "COMP:easy"])
        screen = await screen_of(pilot, MathableScreen)
        assert screen.model.seat is None
        assert "watching" in screen.header().plain
        seq = screen.model.seq
        await until(pilot, lambda: screen.model.seq >= seq + 6)
        tiles = sum(v is not None for row in screen.view["board"] for v in row)
        assert tiles > 4  # the bots placed tiles and the screen's model has them
        assert sum(screen.model.scores) > 0
        assert screen.model.names() == ["COMP1", "COMP2"]
        assert "COMP" in screen.side().plain
        screen.action_select()  # a spectator cannot act: said, not sent
        assert "watching" in screen.note
        assert pilot.app.last_error is None


@pytest.mark.slow
async def test_private_room_by_code(url):
    async with Connection(url, name="host") as other:
        created = await other.request({"t": "create", "game": "ishido", "private": True})
        async with app_for(url).run_test() as pilot:
            lobby = await screen_of(pilot, LobbyScreen)
            await pilot.pause(0.3)
            assert lobby.query_one("#rooms", DataTable).row_count == 0  # private: not listed
            await pilot.press("c")
            ask = await screen_of(pilot, CodeScreen)
            ask.query_one("#code", Input).value = created["code"]
            await pilot.press("enter")
            screen = await screen_of(pilot, IshidoScreen)
            assert screen.model.room == created["room"] and screen.model.seat == 0


async def test_errors_are_shown_not_raised(url):
    async with app_for(url).run_test() as pilot:
        await screen_of(pilot, LobbyScreen)
        app = pilot.app
        assert isinstance(app, TilehallApp)
        assert await app.call({"t": "join", "room": "nope"}) is None
        assert app.last_error is not None and "no room" in app.last_error
        await pilot.press("c")
        ask = await screen_of(pilot, CodeScreen)
        ask.query_one("#code", Input).value = "wrong-code"
        await pilot.press("enter")
        await screen_of(pilot, LobbyScreen)
        await until(pilot, lambda: app.last_error == "no room has that code")


@pytest.mark.slow
async def test_scores_show_tables_entries_and_mine(url):
    """Bea finishes an Ishido game over a plain connection; the app shows her score."""
    async with Connection(url, name="bea") as bea:
        room = (await bea.request({"t": "create", "game": "ishido"}))["room"]
        view = (await bea.join(room))["view"]
        while view["status"] == "playing":
            r, c = view["legal"][0]
            view = (await bea.act(room, {"do": "place", "at": [r, c]}))["view"]
        final = view["scores"][0]
        # The room records the result just after the last update is sent.
        for _ in range(100):
            if (await bea.request({"t": "scores", "game": "ishido"}))["entries"]:
                break
            await asyncio.sleep(0.02)
        save_identity(url, "bea", bea.token)  # the app comes back as her
    async with app_for(url, "bea").run_test() as pilot:
        await screen_of(pilot, LobbyScreen)
        await pilot.press("s")
        scores = await screen_of(pilot, ScoresScreen)
        choice = scores.query_one("#game", Choice)
        choice.index = choice.values.index("ishido") - 1
        await pilot.press("g")  # the next game: Ishido
        entries = scores.query_one("#entries", DataTable)
        await until(pilot, lambda: entries.row_count == 1)
        assert entries.get_row_at(0)[1:3] == ["bea", str(final)]
        detail = entries.get_row_at(0)[4]  # in words, not Python's repr of the record
        assert detail.split(", ")[0] in ("won", "lost") and "placed" in detail
        assert not any(raw in detail for raw in ("=", "True", "False"))
        assert text_of(scores, "#scores-title") == "High scores"
        assert "modern/touching" in text_of(scores, "#table")
        assert f"your best: {final}" in text_of(scores, "#mine")
        await pilot.press("q")
        await screen_of(pilot, LobbyScreen)


async def test_a_table_name_is_shown_as_written(url):
    """Match-It's one table is called "top": as a Rich markup tag, "[top]" used to vanish."""
    async with Connection(url, name="bea") as bea:
        room = (await bea.request({"t": "create", "game": "matchit"}))["room"]
        await bea.join(room)
        await bea.act(room, {"do": "quit"})
        for _ in range(100):
            if (await bea.request({"t": "scores", "game": "matchit"}))["entries"]:
                break
            await asyncio.sleep(0.02)
    async with app_for(url).run_test() as pilot:
        await screen_of(pilot, LobbyScreen)
        await pilot.press("s")
        scores = await screen_of(pilot, ScoresScreen)
        scores.query_one("#game", Choice).index = scores.query_one("#game", Choice).values.index(
            "matchit"
        )
        shown = scores.query_one("#table", Static)
        await until(pilot, lambda: str(shown.render()) == "[top]")  # as drawn, not as stored


@pytest.mark.slow
async def test_reconnects_by_itself_and_says_so(url):
    async with app_for(url).run_test() as pilot:
        await create_room(pilot, "ishido")
        screen = await screen_of(pilot, IshidoScreen)
        app = pilot.app
        assert isinstance(app, TilehallApp) and app.conn is not None
        links: list[str] = []
        app.watch(app, "link", lambda link: links.append(link), init=False)
        assert app.conn._ws is not None
        await app.conn._ws.close()  # the network drops
        await until(pilot, lambda: links[-2:] == ["reconnecting", "online"])
        assert "online" in str(screen.query_one(StatusLine).render())
        await pilot.press("tab", "space")  # still plays, on the same seat
        await until(pilot, lambda: screen.view["placed"] == 1)


@pytest.mark.slow
async def test_unknown_game_gets_the_text_screen(url, monkeypatch):
    """A game without a screen of its own is shown as text; actions are typed as JSON."""
    import tilehall.clients.cli.games as games

    monkeypatch.setattr(games, "screen_for", lambda game: GenericScreen)
    async with app_for(url).run_test() as pilot:
        await create_room(pilot, "ishido")
        screen = await screen_of(pilot, GenericScreen)
        await until(pilot, lambda: "legal:" in text_of(screen, "#view-text"))
        assert "board:" in text_of(screen, "#view-text")
        await pilot.press("a", *'{"do": "help"}', "enter")
        await until(pilot, lambda: screen.model.event("help") is not None)
        assert '"e":"help"' in text_of(screen, "#msg")
        await pilot.press("escape", "q")
        await screen_of(pilot, LobbyScreen)


@pytest.mark.slow
async def test_finished_rooms_the_server_dropped_leave_the_list(tmp_path):
    """A finished room is dropped by the server after ``finished_ttl``: its row goes too,
    by the next poll when it was listed, or on entering it when it was private (issue 30
    item 4, point 1: they used to pile up as ``? (private)`` rows answering unknown_room)."""
    limits = Limits(bot_delay=0, ping_interval=None, finished_ttl=3.0)
    server = Server(Config(showcase=False, port=0, data_dir=tmp_path, limits=limits))
    await server.start()
    url = f"ws://127.0.0.1:{server.port}"

    async def quit_and_leave(pilot) -> str:
        screen = await screen_of(pilot, IshidoScreen)
        assert await pilot.app.act(screen.model.room, {"do": "quit"})
        await until(pilot, lambda: screen.model.status == "over")
        await pilot.press("q")
        await screen_of(pilot, LobbyScreen)
        return screen.model.room

    try:
        async with Connection(url, name="host") as host:
            hidden = await host.request({"t": "create", "game": "ishido", "private": True})
            async with app_for(url).run_test() as pilot:
                app = pilot.app
                assert isinstance(app, TilehallApp)
                lobby = await screen_of(pilot, LobbyScreen)
                table = lobby.query_one("#rooms", DataTable)
                await create_room(pilot, "ishido")
                listed = await quit_and_leave(pilot)
                await until(pilot, lambda: listed in table.rows)
                assert table.get_row(listed)[5] == "over"
                await pilot.press("c")  # then the private one, by its code
                ask = await screen_of(pilot, CodeScreen)
                ask.query_one("#code", Input).value = hidden["code"]
                await pilot.press("enter")
                private = await quit_and_leave(pilot)
                assert private == hidden["room"]
                await until(pilot, lambda: private in table.rows)
                assert table.get_row(private)[3] == "(private)"
                # the listed one goes by itself once the server has dropped it
                await until(pilot, lambda: listed not in table.rows, timeout=15)
                assert listed not in lobby.model.mine and table.row_count == 1
                # the private one stays (nothing says it is gone) until it is entered
                await until(pilot, lambda: private not in server.lobby.rooms, timeout=15)
                await pilot.pause(0.3)
                assert private in table.rows
                await pilot.press("enter")  # the one row left
                await until(pilot, lambda: table.row_count == 0)
                assert app.last_error == words.ROOM_GONE
                assert lobby.model.mine == [] and isinstance(app.screen, LobbyScreen)
    finally:
        await server.stop()


async def test_a_barred_name_keeps_its_key_says_so_at_each_start_and_plays_on_when_restored(
    server, url
):
    """Issue 37 (3): close 4002 deleted the token: the name was lost, and said "taken"."""
    async with app_for(url, "ada").run_test() as pilot:
        await screen_of(pilot, LobbyScreen)
        token = pilot.app.conn.token
        await server.lobby.accounts.bar("ada", True)
        await until(pilot, lambda: pilot.app.signed_out is not None)
        assert "barred by the host" in pilot.app.signed_out
    assert load_identity(url) == ("ada", token)
    async with app_for(url, None).run_test() as pilot:  # a later start, still barred
        ask = await screen_of(pilot, NameScreen)
        assert "barred by the host" in str(ask.problem)
    assert load_identity(url) == ("ada", token)
    await server.lobby.accounts.bar("ada", False)
    async with app_for(url, None).run_test() as pilot:
        await screen_of(pilot, LobbyScreen)
        assert (pilot.app.conn.player, pilot.app.conn.token) == ("ada", token)


async def test_a_name_typed_in_fullwidth_letters_resumes_with_its_key(url):
    """Issue 37 (8): --name ADA in fullwidth letters, on a device holding ada's token, said
    hello by name and got name_taken."""
    async with app_for(url, "ada").run_test() as pilot:
        await screen_of(pilot, LobbyScreen)
        token = pilot.app.conn.token
    async with app_for(url, "\uff21\uff24\uff21").run_test() as pilot:
        await screen_of(pilot, LobbyScreen)
        assert (pilot.app.conn.player, pilot.app.conn.token) == ("ada", token)


@pytest.mark.slow
async def test_past_the_names_budget_the_app_asks_again_and_a_name_of_yours_plays(server, url):
    """A new name past --names-per-address is said, and the names already made sign in."""
    server.lobby.accounts.new_names.per_hour = 1
    async with app_for(url, "ada").run_test() as pilot:
        await screen_of(pilot, LobbyScreen)
    async with app_for(url, "bea").run_test(size=(80, 24)) as pilot:
        ask = await screen_of(pilot, NameScreen)
        assert "new names" in str(ask.problem)
        ask.query_one("#name", Input).value = "ada"
        await pilot.press("enter")
        await screen_of(pilot, LobbyScreen)
        assert pilot.app.conn.player == "ada"
