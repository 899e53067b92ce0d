"""The result to share when a game of today's deal ends, in the terminal.

A game's screen calls :func:`share_when_over` once its game is over; the
screen is named here by what the call reads of it (:class:`Ended`), as the
screens name their app (:mod:`.host`): imports point one way.
"""

from __future__ import annotations

from typing import Any, Protocol

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static
from tilehall.clients.cli.host import Host
from tilehall.clients.connection import ConnectionLost, ServerError
from tilehall.clients.daily import day_table, room_day
from tilehall.clients.model import RoomModel

__all__ = ["Ended", "ShareScreen", "share_when_over"]


class Ended(Protocol):
    """What the result to share reads of a game's screen (``games.base.GameScreen``)."""

    model: RoomModel

    @property
    def tapp(self) -> Host:
        """The app, as screens use it."""

    @property
    def app(self) -> App[Any]:
        """Textual's app, to show the result over the board."""

    @property
    def is_attached(self) -> bool:
        """Whether the screen is still shown."""

    def say(self, note: str) -> None:
        """A note on the screen's status line."""


class ShareScreen(ModalScreen[None]):
    """A game of today's deal ended: the result to share, and ``c`` to copy it."""

    BINDINGS = [
        Binding("c", "copy", "copy it (where the terminal lets us)"),
        Binding("escape,enter,q", "close", "close"),
    ]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="share"):
            yield Static(Text("Your result to share", style="bold"))
            yield Static(Text(self.text), id="share-text")
            yield Static(Text("c copy  enter close", style="dim"))

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.text)
        self.notify("Copied (if your terminal passes it on)")

    def action_close(self) -> None:
        self.dismiss(None)


async def share_when_over(screen: Ended) -> None:
    """The game of ``screen``'s room, of today's deal, just ended: show what to share.

    Run as a worker of the game screen, once, when its model first says the game is over.

    A practice game is on no table: it is said so, with nothing to share.
    """
    model = screen.model
    day = room_day(model.summary)
    conn = screen.tapp.conn
    if day is None or conn is None or model.seat is None:
        return
    if (model.summary or {}).get("practice"):
        screen.say("Practice: this game is on no table.")
        return
    try:
        reply = await day_table(conn.request, model.game, day, result=True)
    except (ServerError, ConnectionLost, TimeoutError):
        return  # offline: the day's table (d in the lobby) shows it later
    text = reply.get("share")
    if text and screen.is_attached:
        await screen.app.push_screen(ShareScreen(str(text)))
