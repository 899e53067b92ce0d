"""The terminal client: a Textual app over :class:`clients.connection.Connection`.

One network worker owns the connection: it says hello (by saved token, else by
name), then reads every pushed frame and hands it to the screens as a
:class:`Frame` message. Requests and actions are sent from short workers of
their own, so a slow server never freezes the keyboard, and every refusal
becomes a short notification rather than a crash.

Run ``tilehall --url ws://host:port --name ada`` (or ``python -m tilehall.clients.cli``).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.reactive import reactive
from textual.widgets import Static
from tilehall.clients.cli import games as boards
from tilehall.clients.cli.host import Frame
from tilehall.clients.cli.lobby import LobbyScreen, NameScreen, PasswordScreen
from tilehall.clients.cli.widgets import StatusLine
from tilehall.clients.config import DEFAULT_URL, forget, known_names, load_identity, save_identity
from tilehall.clients.connection import Connection, ConnectionLost, ServerError
from tilehall.clients.model import LobbyModel, RoomModel
from tilehall.clients.words import ENDED, error_text
from tilehall.protocol import CloseCode, ErrorCode

__all__ = ["Frame", "TilehallApp", "main", "parse_args"]

log = logging.getLogger(__name__)

NAME_PROBLEMS = {
    ErrorCode.BAD_NAME,
    ErrorCode.NAME_TAKEN,
    ErrorCode.NAME_RESERVED,
    ErrorCode.BAD_TOKEN,
    ErrorCode.PASSWORD_REQUIRED,
    ErrorCode.BAD_PASSWORD,
    ErrorCode.TOO_MANY_ATTEMPTS,
    ErrorCode.TOO_MANY_NAMES,
    ErrorCode.NAME_DISABLED,
}
"""Hello refusals that a different name (or a password) can fix, so the app asks for one."""

ASK_PASSWORD = {ErrorCode.PASSWORD_REQUIRED, ErrorCode.BAD_PASSWORD}
"""Hello refusals after which the app asks for the name's password (esc: another name)."""


class TilehallApp(App[None]):
    """Lobby, create/join/watch, and one screen per game.

    Args:
        url: the server, ``ws://host:port``.
        name: the player name; without it the name saved for ``url`` is used,
            or the app asks.
        mono: draw with symbols only (also when ``NO_COLOR`` is set).
        poll: seconds between two ``rooms`` requests while the lobby shows.
    """

    CSS_PATH = "tilehall.tcss"
    TITLE = "Tilehall"
    BINDINGS = [Binding("ctrl+c", "quit", "Quit", show=False, priority=True)]
    ENABLE_COMMAND_PALETTE = False

    link: reactive[str] = reactive("connecting")
    """``connecting``, ``online``, ``reconnecting`` or ``offline``: shown by every StatusLine."""

    def __init__(
        self,
        url: str = DEFAULT_URL,
        *,
        name: str | None = None,
        mono: bool = False,
        poll: float = 2.0,
    ) -> None:
        super().__init__()
        self.url = url
        self.wanted_name = name
        self.mono = mono or self.no_color
        self.poll = poll
        self.conn: Connection | None = None
        self.lobby = LobbyModel()
        """Who we are, the games and the rooms: fed by every frame, drawn by the lobby."""
        self.last_error: str | None = None
        """The last refusal shown, kept so tests and the status line can read it."""
        self.signed_out: str | None = None
        """Why the session ended for good (signed out, name barred); None while it goes on."""

    # -- start-up -------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(f"Connecting to {self.url} ...", id="connecting")
        yield StatusLine("ctrl+c quits")

    def on_mount(self) -> None:
        self.run_network()

    @work(exclusive=True, group="network")
    async def run_network(self) -> None:
        """Connect, then route every pushed frame until the app ends."""
        conn = await self._open()
        self.conn = conn
        self.link = "online"
        await self.push_screen(LobbyScreen())
        async for msg in conn.pushed():
            self._route(msg)
        self.link = "offline"

    async def _open(self) -> Connection:
        """Say hello by saved token, else by name, asking for a name when refused."""
        saved_name, token = load_identity(self.url, self.wanted_name)
        name = saved_name  # --name X: X's own token, if X played here before
        password: str | None = None
        problem: str | None = None
        backoff = 0.5
        while True:
            if token is None and password is None and (name is None or problem is not None):
                ask = NameScreen(problem, name or saved_name, known_names(self.url))
                name = await self.push_screen_wait(ask)
                _, token = load_identity(self.url, name)  # a name played here: its token
            conn = Connection(self.url, name=name, token=token, password=password, compact=True)
            try:
                welcome = await conn.open()
            except ServerError as exc:
                if exc.code not in NAME_PROBLEMS:
                    raise
                if exc.code == ErrorCode.BAD_TOKEN and name is not None:
                    forget(self.url, name)  # taken back: a token that will never work again
                token = password = None
                problem = error_text(exc.code, exc.message)
                if exc.code in ASK_PASSWORD and name is not None:
                    password = await self.push_screen_wait(
                        PasswordScreen(name, None if exc.code == "password_required" else problem)
                    )
                continue
            except (OSError, TimeoutError) as exc:
                self.link = "offline"
                self.query_one("#connecting", Static).update(
                    f"Cannot reach {self.url} ({exc.__class__.__name__}); trying again ..."
                )
                await asyncio.sleep(backoff)
                backoff = min(5.0, backoff * 2)
                continue
            assert conn.player is not None and conn.token is not None
            save_identity(self.url, conn.player, conn.token)
            self.lobby.apply(welcome)
            return conn

    def _route(self, msg: dict[str, Any]) -> None:
        t = msg["t"]
        if t == "_signed_out":
            self._ended(msg["code"])
            return
        if t == "_reconnecting":
            self.link = "reconnecting"
            self.notify("Connection lost; reconnecting ...", severity="warning")
            return
        if t == "_reconnected":
            self.link = "online"
            self.notify("Reconnected.")
        self.lobby.apply(msg)
        for screen in self.screen_stack:
            screen.post_message(Frame(msg))

    async def on_unmount(self) -> None:
        if self.conn is not None:
            await self.conn.close()

    # -- talking to the server, for screens -----------------------------------------

    def refuse(self, message: str, *, title: str = "") -> None:
        """Show a refusal briefly; never raise."""
        self.last_error = message
        self.notify(message, title=title, severity="error", timeout=4)

    @property
    def protected(self) -> bool:
        """Whether this name has a password: without one, signing out would lose it."""
        return self.lobby.protected

    async def set_password(self, password: str, old: str | None) -> str | None:
        """Protect this name with ``password`` (``old``: its current one); None once done,
        else why not (the dialog shows it and stays open)."""
        if self.conn is None:
            return "not connected yet"
        try:
            await self.conn.set_password(password, old)
        except ServerError as exc:
            return error_text(exc.code, exc.message)
        except (ConnectionLost, TimeoutError):
            return "no answer from the server"
        self.lobby.apply({"t": "password_set"})
        self.notify("Password set: sign in with it on your other devices.")
        return None

    async def sign_out(self, *, everywhere: bool = False) -> None:
        """Sign this device (or every device) out, forget this name's token, and quit."""
        if self.conn is None:
            return
        try:
            await self.conn.sign_out(everywhere=everywhere)
        except ServerError as exc:
            self.refuse(error_text(exc.code, exc.message))
            return
        except (ConnectionLost, TimeoutError):
            self.refuse("no answer from the server")
            return
        self._ended(1000)

    def _ended(self, code: int) -> None:
        """The session is over for good: the app ends saying why.

        A token taken back is forgotten here; a barred name's is kept (4002): the
        host may lift the bar, and then this device plays on with it. Until then
        each start says the name is barred.
        """
        player = self.conn.player if self.conn is not None else None
        if player is not None and code != CloseCode.NAME_DISABLED:
            forget(self.url, player)
        why = ENDED.get(code, ENDED[1000])
        self.signed_out = why
        self.exit(message=f"{player}: {why}")

    async def call(
        self, msg: dict[str, Any], *, refused: Callable[[ServerError], bool] | None = None
    ) -> dict[str, Any] | None:
        """Send a request; its reply, or None after showing why there is none.

        ``refused``: a caller that handles some refusals itself; when it returns
        True for one, the generic message is not shown.
        """
        if self.conn is None:
            self.refuse("not connected yet")
            return None
        try:
            return await self.conn.request(msg)
        except ServerError as exc:
            if refused is not None and refused(exc):
                return None
            self.refuse(
                error_text(
                    exc.code, exc.message, game=msg.get("game"), cells=exc.cells, tiles=exc.tiles
                )
            )
        except (ConnectionLost, TimeoutError):
            self.refuse("no answer from the server")
        return None

    async def act(self, room: str, action: dict[str, Any], *, game: str | None = None) -> bool:
        """Send a game action; whether it was accepted. Its update arrives as a Frame.

        ``game``: the room's, so that a refusal names its squares and tiles as its board does.
        """
        if self.conn is None:
            self.refuse("not connected yet")
            return False
        try:
            await self.conn.act(room, action)
        except ServerError as exc:
            self.refuse(
                error_text(exc.code, exc.message, game=game, cells=exc.cells, tiles=exc.tiles)
            )
            return False
        except (ConnectionLost, TimeoutError):
            self.refuse("no answer from the server")
            return False
        return True

    @property
    def games(self) -> dict[str, dict[str, Any]]:
        """``welcome.games`` by name."""
        return {g["name"]: g for g in self.lobby.games}

    @property
    def player(self) -> str:
        return (self.conn.player if self.conn else None) or self.wanted_name or "?"

    async def enter_room(
        self, joined: dict[str, Any], summary: dict[str, Any] | None = None, code: str | None = None
    ) -> None:
        """Open the screen for a room just joined or watched."""
        self.lobby.apply(joined)
        model = RoomModel.from_joined(joined, summary)
        pushed = self.lobby.summaries.get(model.room)
        if pushed is not None:
            model.summary = pushed
        model.code = code
        await self.push_screen(boards.screen_for(model.game)(model))


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="tilehall", description="Play and watch Tilehall games in the terminal."
    )
    parser.add_argument("--url", default=DEFAULT_URL, help=f"server (default {DEFAULT_URL})")
    parser.add_argument("--name", help="player name (default: the one saved for this server)")
    parser.add_argument(
        "--mono", action="store_true", help="symbols instead of colours (also with NO_COLOR set)"
    )
    parser.add_argument("--log", type=Path, help="write a debug log to this file")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point (``tilehall``)."""
    args = parse_args(argv)
    if args.log:
        logging.basicConfig(filename=args.log, level=logging.DEBUG)
    if args.mono:
        # Textual then applies its monochrome filter, as for a colour-less terminal.
        os.environ["NO_COLOR"] = "1"
    TilehallApp(args.url, name=args.name, mono=args.mono).run()
