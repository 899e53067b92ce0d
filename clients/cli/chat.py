"""A room's chat (``c``): every line the room kept, newest last, and a line to say more.

The lines are the room model's (:attr:`RoomModel.chat`): what ``joined.chat`` gave
when the screen's room was entered, then each ``chat`` frame, so a player who
reloads or comes back after a restart reads what was said before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static
from tilehall.clients.model import RoomModel

if TYPE_CHECKING:
    from tilehall.clients.cli.host import Host

__all__ = ["ChatScreen", "chat_lines"]

TEXT_MAX = 500
"""The longest line the server takes (PROTOCOL.md, chat)."""


def chat_lines(model: RoomModel) -> Text:
    """Every kept line, ``name: text``, oldest first (a note when nothing was said)."""
    text = Text()
    if not model.chat:
        text.append("Nothing said yet.", style="dim italic")
        return text
    for i, (who, said) in enumerate(model.chat):
        if i:
            text.append("\n")
        text.append(f"{who}: ", style="bold")
        text.append(said)
    return text


class ChatScreen(ModalScreen[None]):
    """The room's chat over its game; ``esc`` goes back to the board."""

    DEFAULT_CSS = """
    ChatScreen { align: center middle; }
    ChatScreen > Vertical {
        width: 76; max-width: 100%; height: auto; max-height: 22;
        border: round $accent; padding: 0 1; background: $surface;
    }
    ChatScreen VerticalScroll { height: auto; max-height: 16; }
    """
    BINDINGS = [Binding("escape", "close", "back to the board")]

    def __init__(self, model: RoomModel) -> None:
        super().__init__()
        self.model = model

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text("Chat", style="bold"))
            with VerticalScroll():
                yield Static(chat_lines(self.model), id="lines")
            yield Input(max_length=TEXT_MAX, placeholder="say something, enter sends", id="say")
            yield Label("enter: send   esc: back to the board", classes="dim")

    def on_mount(self) -> None:
        self.query_one("#say", Input).focus()
        self.query_one(VerticalScroll).scroll_end(animate=False)

    def refresh_lines(self) -> None:
        """The model took a line: show it."""
        if self.query("#lines"):
            self.query_one("#lines", Static).update(chat_lines(self.model))
            self.query_one(VerticalScroll).scroll_end(animate=False)

    @on(Input.Submitted, "#say")
    def submit(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if text:
            event.input.value = ""
            self._say(text)

    @work(group="chat")
    async def _say(self, text: str) -> None:
        app = cast("Host", self.app)
        await app.call({"t": "chat", "room": self.model.room, "text": text})

    def action_close(self) -> None:
        self.dismiss(None)
