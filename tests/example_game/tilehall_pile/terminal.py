"""Pile's board in Tilehall's terminal client: the pile as a row of counters.

A board is a :class:`GameScreen`: it draws the room's model, which the client
keeps from the server's frames, and sends actions; the server judges them.
Space on a counter takes it and every one after it; the digit keys take that
many.
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from tilehall.clients.cli.games.base import GameScreen
from tilehall.clients.cli.widgets import Paint

__all__ = ["PileScreen"]


class PileScreen(GameScreen):
    LABEL = "Pile"
    KEYS = "left/right move  space take to the end  1-9 take  ? keys  q leave"
    ABOUT = (
        "Take one counter or more in turn, at most as many as the room says; whoever takes"
        " the last counter loses. Space on a counter takes it and every counter after it."
    )
    BINDINGS = [Binding(str(n), f"take({n})", f"take {n}", show=False) for n in range(1, 10)]

    def shape(self) -> tuple[int, int]:
        return 1, int(self.view.get("left") or 0) + sum(self.view.get("taken") or []) or 1

    def paint(self, r: int, c: int, width: int) -> Paint:
        left = int(self.view.get("left") or 0)
        return Paint("o", "bold") if c < left else Paint(".", "dim")

    def side(self) -> Text:
        text = Text()
        text.append(f"{self.view.get('left', 0)} left, at most {self.view.get('most', 0)}\n")
        self.scores_text(text)
        return text

    def action_select(self) -> None:
        left = int(self.view.get("left") or 0)
        if self.cursor[1] < left:
            self.action_take(left - self.cursor[1])

    def action_take(self, count: int) -> None:
        if self.can_act():
            self.send({"do": "take", "count": count})
