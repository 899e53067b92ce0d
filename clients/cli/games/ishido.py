"""Ishido: the 12x8 board, the stone to place, stones left, 4-ways, help.

The view lists every square where the current stone may go (``legal``); those
are marked ``+`` and ``tab`` jumps between them. Everything else the screen
shows is the view or the last update's events.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.binding import Binding
from tilehall.clients.cli.games.base import GameScreen
from tilehall.clients.cli.look import cell_name, stone
from tilehall.clients.cli.widgets import Cell, Paint

__all__ = ["IshidoScreen"]


def _stone_name(st: list[int] | None, mono: bool) -> str:
    return stone(st[0], st[1], mono)[0] if st else "-"


class IshidoScreen(GameScreen):
    LABEL = "Ishido"
    KEYS = "space place  tab next legal  i help  u undo  Q end  ? keys  q leave"
    WIDTHS = (5, 4, 3)
    HEIGHTS = (2, 1)
    ABOUT = (
        "Place the stone shown on the right next to stones it matches: 1 neighbour by colour "
        "or symbol; 2: one by colour, one by symbol; 3: two by one, one by the other; 4 (a "
        "4-way): two by colour, two by symbol. Stones read as colour letter + symbol number "
        "(R3 = red, symbol 3). + marks where the stone may go; : is the outer ring (no "
        "points). 'i' asks for the best square. 'u' takes the last stone back (the game then "
        "enters no record table); 'Q' ends the game where it stands."
    )

    BINDINGS = [
        Binding("tab", "next_legal(1)", "next square where the stone fits"),
        Binding("shift+tab", "next_legal(-1)", "previous square where the stone fits"),
        Binding("i", "hint", "help: the best square for this stone (counted)"),
        Binding("u", "undo", "take the last stone back (not eligible for records)"),
        Binding("Q", "quit_game", "end the game now (the score counts, no end bonus)"),
    ]

    def __init__(self, model: Any) -> None:
        super().__init__(model)
        self.hint: Cell | None = None
        self._legal: set[Cell] = set()
        self._legal_of = -1

    # -- model ----------------------------------------------------------------------

    def legal(self) -> set[Cell]:
        if self._legal_of != self.model.seq:
            self._legal = {(r, c) for r, c in self.view.get("legal") or []}
            self._legal_of = self.model.seq
        return self._legal

    def took(self, msg: dict[str, Any]) -> None:
        help_ev = self.model.event("help")
        if help_ev is not None:
            self.hint = (help_ev["at"][0], help_ev["at"][1])
            if self.model.seat is not None:
                self.set_cursor(self.hint)
        elif self.model.event("placed") is not None:
            self.hint = None

    # -- drawing --------------------------------------------------------------------

    def paint(self, r: int, c: int, width: int) -> Paint:
        board = self.view.get("board") or []
        cell = board[r][c] if 0 <= r < len(board) and 0 <= c < len(board[r]) else None
        last = (self.view.get("last") or {}).get("at")
        if cell is not None:
            label, style = stone(cell[0], cell[1], self.mono)
            if last is not None and (r, c) == (last[0], last[1]):
                style += " underline"
            return Paint(label, style)
        if (r, c) == self.hint:
            return Paint("**" if width >= 3 else "*", "bold yellow reverse")
        ring = r in (0, 7) or c in (0, 11)
        if (r, c) in self.legal():
            return Paint("+", "bold #50e050 on grey15" if ring else "bold #50e050")
        if ring:
            return Paint(":", "grey50 on grey15")
        return Paint(".", "grey42")

    def side(self) -> Text:
        v = self.view
        text = self.waiting()
        current = v.get("current")
        text.append("Stone  ")
        if current:
            label, style = stone(current[0], current[1], self.mono)
            text.append(f" {label} ", style=style)
        else:
            text.append("-")
        text.append("\n")
        text.append(f"Score  {self.model.scores[0] if self.model.scores else 0:>6}\n", style="bold")
        text.append(f"Left   {v.get('left', 0):>6}  (pouch {v.get('pouch', 0)})\n")
        text.append(f"Placed {v.get('placed', 0):>6}\n")
        text.append(f"4-ways {v.get('fourways', 0):>6}\n")
        text.append(f"Helps  {v.get('helps', 0):>6}\n")
        text.append(f"{v.get('scoring', '?')}, 4-way {v.get('four_way', '?')}\n", style="dim")
        self.undos_text(text)
        last = v.get("last")
        if last:
            text.append(
                f"Last   {_stone_name(last.get('stone'), self.mono)} on {cell_name(last['at'])}"
                f" +{last.get('points', 0) + last.get('bonus', 0)}\n"
            )
        if self.model.status == "playing":
            fits = len(self.legal())
            text.append(f"Fits on {fits} square{'s' if fits != 1 else ''}\n", style="dim")
        result = v.get("result")
        if result:
            over = "Game over: you ended it" if result.get("reason") == "quit" else "Game over"
            text.append("\nYOU WON!\n" if result.get("won") else f"\n{over}\n", style="bold")
            text.append(f"{result.get('left', 0)} left, end bonus {result.get('end_bonus', 0)}\n")
        text.append(f"\nCursor {cell_name(self.cursor)}", style="dim")
        return text

    # -- input ----------------------------------------------------------------------

    def action_select(self) -> None:
        if not self.can_act():
            return
        r, c = self.cursor
        if self.view.get("board", [[None]])[r][c] is not None:
            self.say(f"{cell_name(self.cursor)} already holds a stone")
            return
        self.send({"do": "place", "at": [r, c]})

    def action_hint(self) -> None:
        if self.can_act():
            self.send({"do": "help"})

    def action_next_legal(self, step: int) -> None:
        legal = sorted(self.legal())
        if not legal:
            self.say("the stone fits nowhere")
            return
        if step > 0:
            after = [cell for cell in legal if cell > self.cursor]
            self.set_cursor(after[0] if after else legal[0])
        else:
            before = [cell for cell in legal if cell < self.cursor]
            self.set_cursor(before[-1] if before else legal[-1])
