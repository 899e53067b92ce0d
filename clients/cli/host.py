"""What the terminal client's screens need of the app that shows them.

The screens are the app's parts, and the app opens them; so the screens name
the app by what they use of it (:class:`Host`) rather than importing it, and
the imports point one way: app -> screens -> host.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from textual.message import Message
from tilehall.clients.connection import Connection, ServerError
from tilehall.clients.model import LobbyModel

__all__ = ["Frame", "Host"]


class Frame(Message, bubble=False):
    """A frame the server pushed (``update``, ``room``, ``chat``, ``_rejoined``...)."""

    def __init__(self, msg: dict[str, Any]) -> None:
        super().__init__()
        self.msg = msg


class Host(Protocol):
    """The app as its screens use it (:class:`tilehall.clients.cli.app.TilehallApp`)."""

    url: str
    poll: float
    conn: Connection | None
    lobby: LobbyModel

    @property
    def protected(self) -> bool:
        """Whether this name has a password: without one, signing out would lose it."""

    @property
    def games(self) -> dict[str, dict[str, Any]]:
        """``welcome.games`` by name."""

    @property
    def player(self) -> str:
        """The name this connection plays under."""

    def refuse(self, message: str, *, title: str = "") -> None:
        """Show a refusal."""

    async def set_password(self, password: str, old: str | None) -> str | None:
        """Set or change the name's password; the reason it failed, or None."""

    async def sign_out(self, *, everywhere: bool = False) -> None:
        """Give the name back on this device (or on every device)."""

    async def call(
        self, msg: dict[str, Any], *, refused: Callable[[ServerError], bool] | None = None
    ) -> dict[str, Any] | None:
        """Send a request and return its answer (None: refused, and said so)."""

    async def act(self, room: str, action: dict[str, Any], *, game: str | None = None) -> bool:
        """Send a game action; whether it was accepted."""

    async def enter_room(
        self, joined: dict[str, Any], summary: dict[str, Any] | None = None, code: str | None = None
    ) -> None:
        """Open the screen for a room just joined or watched."""
