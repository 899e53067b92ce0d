"""Lines (CLines): chips, the selected chip, the path of the last move, score, preview.

Keys as in CLines: move the cursor, space on a chip selects it, space on an
empty cell moves the selected chip there. The path the chip took (from the
``moved`` event) and the chips a line removed stay marked for a moment.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.timer import Timer
from tilehall.clients.cli.games.base import GameScreen
from tilehall.clients.cli.look import cell_name, chip
from tilehall.clients.cli.widgets import Cell, Paint
from tilehall.clients.model import RoomModel

__all__ = ["LinesScreen"]

TRAIL_SECONDS = 1.5
"""How long the path of a move and the removed chips stay marked."""


class LinesScreen(GameScreen):
    LABEL = "Lines"
    KEYS = "arrows move  space select/move  u undo  Q end game  ? keys  q leave"
    WIDTHS = (4, 3, 2)
    HEIGHTS = (2, 1)
    ABOUT = (
        "Move a chip (space on it, then space on an empty cell it can reach through empty "
        "cells) to line up chips of one colour: a line as long as the minimum goes away and "
        "scores, and you move again. A move that scores nothing lets the computer throw new "
        "chips. Without colour, each colour is its own symbol. 'o' marks the path of the last "
        "move, 'x' chips just removed. 'u' takes a move back (and the throw after it): the "
        "game then no longer enters the record table. 'Q' ends the game; its score counts."
    )
    BINDINGS = [
        Binding("u", "undo", "take the last move back (not eligible for records)"),
        Binding("Q", "quit_game", "end the game now (the score counts)"),
    ]

    def __init__(self, model: RoomModel) -> None:
        super().__init__(model)
        self.selected: Cell | None = None
        self.trail: set[Cell] = set()
        self.gone: set[Cell] = set()
        self.thrown: set[Cell] = set()
        self._fade: Timer | None = None
        self.shown: list[dict[str, Any]] = []
        """The last update's events as narrated (see :meth:`took`)."""
        """The last move this client sent: names the move when the update lacks ``moved``."""

    # -- the model ------------------------------------------------------------------

    def board(self) -> list[list[int]]:
        return self.view.get("board") or []

    def chip_at(self, cell: Cell) -> int:
        board = self.board()
        r, c = cell
        return board[r][c] if 0 <= r < len(board) and 0 <= c < len(board[r]) else 0

    def took(self, msg: dict[str, Any]) -> None:
        self.trail, self.gone, self.thrown = set(), set(), set()
        events = list(self.model.events)
        self.shown = events
        for ev in events:
            kind = ev.get("e")
            if kind == "moved":
                self.trail |= {(r, c) for r, c in ev["path"][:-1]}
                self.selected = None
            elif kind == "removed":
                self.gone |= {(r, c) for r, c in ev["cells"]}
            elif kind == "thrown":
                self.thrown |= {(r, c) for r, c in ev["cells"]}
        if self.selected is not None and not self.chip_at(self.selected):
            self.selected = None
        if self.trail or self.gone:
            if self._fade is not None:
                self._fade.stop()
            self._fade = self.set_timer(TRAIL_SECONDS, self.fade)

    def fade(self) -> None:
        self.trail, self.gone = set(), set()
        self.grid.refresh()

    # -- drawing --------------------------------------------------------------------

    def paint(self, r: int, c: int, width: int) -> Paint:
        colour = self.chip_at((r, c))
        if colour:
            label, style = chip(colour, self.mono)
            if (r, c) == self.selected:
                label = f"<{label}>" if width >= 3 else label
                style += " reverse" if self.mono else " on grey30"
            elif (r, c) in self.thrown:
                style += " underline"
            return Paint(label, style)
        if (r, c) in self.gone:
            return Paint("x", "bold #f0e040")
        if (r, c) in self.trail:
            return Paint("o", "#f0e040")
        return Paint(".", "grey35")

    def side(self) -> Text:
        v = self.view
        text = self.waiting()
        text.append(f"Score  {v.get('score', 0):>6}\n", style="bold")
        text.append(f"Moves  {v.get('moves', 0):>6}\n")
        text.append(f"Streak {v.get('streak', 0):>6}\n")
        nxt = v.get("next")
        if nxt:
            text.append("Next   ")
            for colour in nxt:
                label, style = chip(colour, self.mono)
                text.append(label, style=style)
                text.append(" ")
            text.append("\n")
        text.append(
            f"{v.get('width')}x{v.get('height')}, {v.get('colours')} colours, "
            f"lines of {v.get('min_line')}, throws {v.get('throw')}\n",
            style="dim",
        )
        if v.get("undos"):
            self.undos_text(text)
        elif not v.get("eligible", True):
            text.append("not for the record table\n", style="dim")
        if v.get("warning"):
            text.append(f"{v['warning']}\n", style="bold")
        if self.mono:
            colours = v.get("colours") or 0
            text.append(
                "chips: " + " ".join(chip(i, True)[0] for i in range(1, colours + 1)) + "\n",
                style="dim",
            )
        if self.model.over:
            reason = {
                "no_room": "no room to throw",
                "board_full": "the board is full",
                "quit": "ended by the player",
            }.get(v.get("reason") or "", v.get("reason") or "")
            text.append(f"\nGame over: {reason}\n", style="bold")
        if self.selected is not None:
            text.append(f"\nSelected {cell_name(self.selected)}")
        text.append(f"\nCursor {cell_name(self.cursor)}", style="dim")
        return text

    def narrated(self) -> list[dict[str, Any]]:
        """What the board shows so far: the rest is told once the move is played out."""
        return self.shown

    # -- input ----------------------------------------------------------------------

    def action_select(self) -> None:
        if not self.can_act():
            return
        if self.chip_at(self.cursor):
            self.selected = None if self.selected == self.cursor else self.cursor
            self.redraw()
            return
        if self.selected is None:
            self.say("select a chip first (space on it)")
            return
        self.send({"do": "move", "from": list(self.selected), "to": list(self.cursor)})
