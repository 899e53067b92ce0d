"""What Match-It and LinkSame share on screen: tiles, a selection, the extraction path.

Select one tile (space), then its match: the pair goes to the server, which
answers with a ``removed`` event carrying the path (the corners, possibly in
the one-cell margin around the board). For a moment the screen shows the board
as it was with that path drawn across it, then the new board (in LinkSame the
tiles have slid by then). Any key ends the moment early.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any, ClassVar

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static
from tilehall.clients.cli.games.base import GameScreen
from tilehall.clients.cli.look import cell_name
from tilehall.clients.cli.widgets import Cell, Paint
from tilehall.clients.model import RoomModel

__all__ = ["ShisenScreen", "as_cell", "path_cells", "path_paint"]


UP, DOWN, LEFT, RIGHT = "U", "D", "L", "R"
_GLYPH = {
    frozenset({LEFT, RIGHT}): "\u2500",
    frozenset({UP, DOWN}): "\u2502",
    frozenset({DOWN, RIGHT}): "\u250c",
    frozenset({DOWN, LEFT}): "\u2510",
    frozenset({UP, RIGHT}): "\u2514",
    frozenset({UP, LEFT}): "\u2518",
}


def as_cell(value: list[int]) -> Cell:
    """A ``[row, col]`` from the wire as a hashable cell."""
    return value[0], value[1]


def path_cells(corners: list[list[int]]) -> dict[Cell, frozenset[str]]:
    """Every cell a path passes through, with the directions it leaves that cell in.

    ``corners`` are the path's ends and turns, as the server sends them.
    """
    links: dict[Cell, set[str]] = {}
    for (r0, c0), (r1, c1) in pairwise(corners):
        dr, dc = (r1 > r0) - (r1 < r0), (c1 > c0) - (c1 < c0)
        ahead, back = {(1, 0): (DOWN, UP), (-1, 0): (UP, DOWN), (0, 1): (RIGHT, LEFT)}.get(
            (dr, dc), (LEFT, RIGHT)
        )
        r, c = r0, c0
        while (r, c) != (r1, c1):
            links.setdefault((r, c), set()).add(ahead)
            r, c = r + dr, c + dc
            links.setdefault((r, c), set()).add(back)
    return {cell: frozenset(dirs) for cell, dirs in links.items()}


def path_paint(dirs: frozenset[str], width: int, style: str) -> Paint:
    """A cell of the path drawn with box lines, exactly ``width`` wide."""
    mid = (width - 1) // 2
    glyph = _GLYPH.get(dirs, "\u2500" if LEFT in dirs or RIGHT in dirs else "\u2502")
    left = ("\u2500" if LEFT in dirs else " ") * mid
    right = ("\u2500" if RIGHT in dirs else " ") * (width - mid - 1)
    under = " " * mid + ("\u2502" if DOWN in dirs else " ") + " " * (width - mid - 1)
    return Paint(left + glyph + right, style, under=under)


class ShisenScreen(GameScreen):
    """Selection, pairs, the path drawn after a removal, and a clock; subclasses name tiles."""

    MARGIN = 1
    WIDTHS = (4, 3, 2)
    HEIGHTS = (2, 1)
    SIDE = 24
    PATH_STYLE: ClassVar[str] = "bold #f0e040"
    path_seconds = 0.9
    """How long the extraction path stays drawn after a removal."""

    def __init__(self, model: RoomModel) -> None:
        super().__init__(model)
        self.selected: Cell | None = None
        self.path: dict[Cell, frozenset[str]] = {}
        self.ends: set[Cell] = set()
        self.before: list[list[Any]] | None = None
        """The board as it was when the path was made; shown while the path is."""
        self.marked: set[Cell] = set()
        """Cells to point out (a hint's pair, highlighted matches)."""
        self._fade: Timer | None = None
        self._board_was: list[list[Any]] = [row[:] for row in self.view.get("board") or []]

    # -- subclass hooks -------------------------------------------------------------

    def tile(self, kind: int, width: int) -> tuple[str, str]:
        """A tile's label and style."""
        return str(kind), "bold"

    # -- the model ------------------------------------------------------------------

    def board(self) -> list[list[Any]]:
        return self.before if self.before is not None else self.view.get("board") or []

    def took(self, msg: dict[str, Any]) -> None:
        removed = [ev for ev in self.model.events if ev.get("e") == "removed"]
        self.marked = self.marks()
        if removed and msg["t"] == "update":
            last = removed[-1]
            self.path = path_cells(last["path"])
            self.ends = {as_cell(last["a"]), as_cell(last["b"])}
            self.before = self._board_was if len(removed) == 1 else None
            if self._fade is not None:
                self._fade.stop()
            self._fade = self.set_timer(self.path_seconds, self.fade)
        if self.selected is not None and self.tile_at(self.selected) is None:
            self.selected = None
        self._board_was = [row[:] for row in self.view.get("board") or []]

    def marks(self) -> set[Cell]:
        """Cells the last update points out; subclasses read their events."""
        return set()

    def fade(self) -> None:
        if self.path or self.before is not None:
            self.path, self.ends, self.before = {}, set(), None
            if self._fade is not None:
                self._fade.stop()
                self._fade = None
            self.redraw()

    def tile_at(self, cell: Cell) -> int | None:
        board = self.view.get("board") or []
        r, c = cell
        if 0 <= r < len(board) and 0 <= c < len(board[r]):
            value = board[r][c]
            return value if isinstance(value, int) else None
        return None

    def seconds(self, deadline: str) -> int | None:
        """A clock of the view: until its ``deadline`` field on the server's clock; while
        paused (no deadline) the ``time_left`` that stands still; None once over."""
        if self.model.over:
            return None
        if self.view.get(deadline) is None:
            value = self.view.get("time_left")
            return None if value is None else int(value + 0.999)
        return self.seconds_left(self.view[deadline])

    def tick(self) -> None:
        if not self.model.over and self.query("#side"):
            self.query_one("#side", Static).update(self.side())

    # -- drawing --------------------------------------------------------------------

    def paint(self, r: int, c: int, width: int) -> Paint:
        board = self.board()
        inside = 0 <= r < len(board) and 0 <= c < len(board[r])
        value = board[r][c] if inside else None
        if value is not None:
            label, style = self.tile(value, width)
            if (r, c) in self.ends:
                style = f"{style} reverse"
            elif (r, c) == self.selected:
                label = f"<{label}>" if width >= len(label) + 2 else label
                style = "bold reverse" if self.mono else f"{style} reverse"
            elif (r, c) in self.marked:
                label = f"*{label}" if self.mono and width > len(label) else label
                style = f"{style} underline"
            return Paint(label, style)
        if (r, c) in self.path:
            return path_paint(self.path[(r, c)], width, self.PATH_STYLE)
        return Paint("." if inside else "", "grey35")

    # -- input ----------------------------------------------------------------------

    def action_move(self, dr: int, dc: int) -> None:
        self.fade()
        super().action_move(dr, dc)

    def action_select(self) -> None:
        self.fade()
        if not self.can_act():
            return
        if self.tile_at(self.cursor) is None:
            self.say("no tile there")
            return
        if self.selected is None or self.selected == self.cursor:
            self.selected = None if self.selected == self.cursor else self.cursor
            self.redraw()
            return
        a, b = self.selected, self.cursor
        self.selected = None
        self.redraw()
        self.send({"do": "pair", "a": list(a), "b": list(b)})

    def action_deselect(self) -> None:
        self.selected = None
        self.redraw()

    def status_text(self, text: Text) -> None:
        """The selection and cursor lines at the foot of the side panel."""
        self.undos_text(text)
        if self.selected is not None:
            text.append(f"Selected {cell_name(self.selected)}\n")
        text.append(f"Cursor {cell_name(self.cursor)}", style="dim")
