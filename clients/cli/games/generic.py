"""The fallback screen: any game's view and log as text, and actions typed as JSON.

A game this client has no board for (a plugin game the server has and this
client does not, or one whose board is still to be written) is still watched
and played here: the header says there is no board for it, the view is shown
as text and its log (the events of each update) below it.
"""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.widgets import Input, Static
from tilehall.clients.cli.games.base import GameScreen
from tilehall.clients.cli.widgets import StatusLine

__all__ = ["GenericScreen", "format_view"]


def _is_grid(value: Any) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(row, list) for row in value)
        and len(value) > 2
    )


def _cell(value: Any) -> str:
    if value is None:
        return "."
    if isinstance(value, list):
        return "".join(_cell(v) for v in value)
    return str(value)


def format_view(view: dict[str, Any]) -> str:
    """The view as lines: grids drawn row by row, everything else as compact JSON."""
    lines = []
    for key, value in view.items():
        if _is_grid(value):
            cells = [[_cell(v) for v in row] for row in value]
            width = max((len(c) for row in cells for c in row), default=1)
            lines.append(f"{key}:")
            lines += ["  " + " ".join(f"{c:>{width}}" for c in row) for row in cells]
        else:
            lines.append(f"{key}: {json.dumps(value, separators=(', ', ': '), default=str)}")
    return "\n".join(lines)


class GenericScreen(GameScreen):
    """Shows ``view`` and the last events; ``a`` (or clicking the box) to type an action."""

    LABEL = "Game"
    KEYS = "a type an action  esc stop typing  q leave  ? help"
    ABOUT = (
        "This client has no board for this game: its view is shown as text, and each update's "
        "events (its log) below it. Type an action as JSON, for example "
        '{"do": "place", "at": [4, 7]}, and press enter.'
    )

    BINDINGS = [
        Binding("a", "type", "type an action"),
        Binding("escape", "stop_typing", "stop typing", show=False),
    ]

    def compose(self) -> ComposeResult:
        yield Static(id="header")
        with VerticalScroll(id="generic"):
            yield Static(id="view-text")
        yield Static(id="msg")
        yield Input(placeholder='{"do": ...}   (a: type, enter: send)', id="action")
        yield StatusLine(self.KEYS)

    def start(self) -> None:
        self.redraw()

    def label(self) -> str:
        game = self.tapp.games.get(self.model.game) or {}
        return str(game.get("title") or self.model.game)

    def header(self) -> Text:
        text = super().header()
        text.append(f"  no board for {self.label()} in this client: view and log as text")
        return text

    def fit(self, size: Size) -> None:
        """Text wraps and scrolls by itself: nothing to fit."""

    def redraw(self) -> None:
        if not self.query("#view-text"):
            return
        self.query_one("#header", Static).update(self.header())
        self.query_one("#view-text", Static).update(Text(format_view(self.view)))
        self.query_one("#msg", Static).update(self.messages())

    def narrate(self) -> Text:
        events = self.model.events
        return Text(
            "; ".join(json.dumps(e, separators=(",", ":")) for e in events) or "", no_wrap=True
        )

    def action_type(self) -> None:
        self.query_one("#action", Input).focus()

    def action_stop_typing(self) -> None:
        self.set_focus(None)

    def action_move(self, dr: int, dc: int) -> None:
        self.query_one("#generic", VerticalScroll).scroll_relative(y=dr * 3, animate=False)

    @on(Input.Submitted, "#action")
    def submit(self, event: Input.Submitted) -> None:
        try:
            action = json.loads(event.value)
        except ValueError as exc:
            self.say(f"not JSON: {exc}")
            return
        if not isinstance(action, dict):
            self.say('an action is a map, e.g. {"do": "help"}')
            return
        event.input.value = ""
        self.send(action)
