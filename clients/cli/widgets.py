"""Widgets shared by every screen: the board grid, the status line, a one-line choice.

The grid knows nothing about any game: a screen hands it a *painter* that says
what each cell shows, and gets back clicks as cells. That keeps each game's
look in its own module and the cursor/mouse/compact-width logic in one place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import events, work
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static
from tilehall.clients.cli.look import cell_letter

if TYPE_CHECKING:
    from tilehall.clients.cli.host import Host

__all__ = ["Cell", "Choice", "Grid", "Paint", "StatusLine", "fit_keys"]

Cell = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Paint:
    """What one cell shows: a short label (centred in the cell) and a Rich style.

    ``fill`` pads the label with that character instead of spaces (path lines);
    ``under`` is the label of the cell's further lines when cells are taller than one.
    """

    label: str = ""
    style: str = ""
    fill: str = " "
    under: str = ""


Painter = Callable[[int, int, int], Paint]
"""``painter(row, col, cell_width)``; rows and columns may lie in the margin ring."""


class Grid(Widget, can_focus=True):
    """A board of cells, one text line per row, with a cursor and mouse clicks.

    Args:
        rows, cols: the board's size.
        painter: called for every cell at every refresh.
        widths: cell widths to try, widest first; the widest that fits is used,
            which is how a board stays whole in an 80x24 terminal.
        heights: cell heights to try, tallest first, the same way.
        margin: extra rings of cells drawn around the board (Shisen-Sho paths
            leave the board through a one-cell margin).
        reserve: columns to leave beside the board (for a side panel) when
            choosing the cell width.
        chrome: lines of the screen that are not the board, when choosing the height.
        labels: draw column letters above the board and row numbers left of it, as
            :func:`~tilehall.clients.cli.look.cell_name` names the squares (``h7``), for
            boards whose log and cursor speak in coordinates.
    """

    DEFAULT_CSS = """
    Grid { width: auto; height: auto; }
    """

    cursor: reactive[Cell | None] = reactive(None)

    class Clicked(Message):
        """A cell was clicked (``button`` 1 left, 3 right)."""

        def __init__(self, grid: Grid, cell: Cell, button: int) -> None:
            super().__init__()
            self.grid = grid
            self.cell = cell
            self.button = button

        @property
        def control(self) -> Grid:
            return self.grid

    def __init__(
        self,
        rows: int,
        cols: int,
        painter: Painter,
        *,
        widths: Sequence[int] = (4, 3, 2),
        heights: Sequence[int] = (1,),
        margin: int = 0,
        reserve: int = 0,
        chrome: int = 0,
        labels: bool = False,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.rows = rows
        self.cols = cols
        self.painter = painter
        self.widths = tuple(widths)
        self.heights = tuple(heights)
        self.margin = margin
        self.reserve = reserve
        self.chrome = chrome
        self.labels = labels
        self._width = self.widths[0]
        self._height = self.heights[-1]

    def resize_board(self, rows: int, cols: int) -> None:
        """The board changed shape (a new view with other options)."""
        if (rows, cols) != (self.rows, self.cols):
            self.rows, self.cols = rows, cols
            self.refresh(layout=True)

    @property
    def cell_size(self) -> tuple[int, int]:
        """The (width, height) of one cell as last laid out."""
        return self._width, self._height

    def _span(self) -> tuple[int, int]:
        return self.rows + 2 * self.margin, self.cols + 2 * self.margin

    @property
    def label_size(self) -> tuple[int, int]:
        """Columns taken by the row numbers and lines by the column letters (0 without labels)."""
        return (len(str(self.rows)) + 1, 1) if self.labels else (0, 0)

    @staticmethod
    def _fit(count: int, sizes: tuple[int, ...], available: int) -> int:
        for size in sizes:
            if count * size <= available:
                return size
        return sizes[-1]

    def get_content_width(self, container: Size, viewport: Size) -> int:
        left = self.label_size[0]
        self._width = self._fit(self._span()[1], self.widths, container.width - self.reserve - left)
        return self._span()[1] * self._width + left

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        rows, top = self._span()[0], self.label_size[1]
        self._height = self._fit(rows, self.heights, viewport.height - self.chrome - top)
        return rows * self._height + top

    def render(self) -> Text:
        w, h = self._width, self._height
        rows, cols = self._span()
        left, _ = self.label_size
        lines: list[Text] = []
        if self.labels:
            letters = (
                cell_letter(j - self.margin) if 0 <= j - self.margin < self.cols else ""
                for j in range(cols)
            )
            head = " " * left + "".join(self._cell(x, " ", w, False) for x in letters)
            lines.append(Text(head, style="dim", no_wrap=True, overflow="crop"))
        for i in range(rows):
            r = i - self.margin
            band = [Text(no_wrap=True, overflow="crop") for _ in range(h)]
            if self.labels:
                number = str(r + 1) if 0 <= r < self.rows else ""
                for k, line in enumerate(band):
                    line.append(f"{number if k == 0 else '':>{left - 1}} ", style="dim")
            for j in range(cols):
                c = j - self.margin
                p = self.painter(r, c, w)
                style = p.style
                cursor = self.cursor == (r, c)
                if cursor:
                    style = f"{style} reverse bold".strip()
                for k, line in enumerate(band):
                    label = p.label if k == 0 else p.under
                    line.append(
                        self._cell(label, p.fill, w, cursor and k == 0), style=style or None
                    )
            lines.extend(band)
        return Text("\n", no_wrap=True, overflow="crop").join(lines)

    @staticmethod
    def _cell(label: str, fill: str, width: int, bracket: bool) -> str:
        """``label`` centred in ``width``; bracketed for the cursor when there is room.

        Brackets show the cursor where neither colour nor reverse video does
        (a text capture, some monochrome terminals).
        """
        label = label[:width]
        left = (width - len(label)) // 2
        right = width - len(label) - left
        if bracket and left and right:
            return fill * (left - 1) + "[" + label + "]" + fill * (right - 1)
        return fill * left + label + fill * right

    def watch_cursor(self) -> None:
        self.refresh()

    def cell_at(self, x: int, y: int) -> Cell | None:
        """The board cell under content offset ``(x, y)``, or None outside it."""
        rows, cols = self._span()
        left, top = self.label_size
        x, y = x - left, y - top
        if x < 0 or y < 0:
            return None
        i, j = y // self._height, x // self._width
        if not (i < rows and j < cols):
            return None
        return i - self.margin, j - self.margin

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        cell = self.cell_at(offset.x, offset.y)
        if cell is not None:
            event.stop()
            self.post_message(self.Clicked(self, cell, event.button))


class StatusLine(Static):
    """The last line of every screen: the link to the server and a short note.

    It follows the app's ``link`` reactive, so every screen says at once when
    the connection drops and when it is back.
    """

    DEFAULT_CSS = """
    StatusLine { dock: bottom; height: 1; width: 100%; background: $panel; }
    """

    note: reactive[str] = reactive("")

    def __init__(self, keys: str = "", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.keys = keys

    def on_mount(self) -> None:
        self.watch(self.app, "link", self._relink, init=True)

    def _relink(self, _link: str) -> None:
        self.refresh()

    def watch_note(self) -> None:
        self.refresh()

    def render(self) -> Text:
        link = str(getattr(self.app, "link", ""))
        style = {"online": "green", "reconnecting": "bold yellow reverse"}.get(link, "bold red")
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f" {link} ", style=style)
        if self.note:
            text.append(f" {self.note}")
        elif self.keys:
            room = (self.size.width or 80) - text.cell_len - 1
            text.append(f" {fit_keys(self.keys, room)}", style="dim")
        return text


def fit_keys(keys: str, width: int) -> str:
    """``keys`` (groups two spaces apart) within ``width`` cells, dropping whole groups.

    The last group (``? q``: help and leave) always stays, for it tells where the rest
    are; the ones before it go from the end, so a key is never cut in half at 80
    columns or while the link says ``reconnecting``.
    """
    groups = keys.split("  ")
    while len(groups) > 1 and len("  ".join(groups)) > width:
        del groups[-2]
    return "  ".join(groups)


class Choice(Widget, can_focus=True):
    """One line that cycles through values with left/right or space: compact form input.

    Used for games, ``choice`` options, ``bool`` options and seat counts, so a
    create-room form stays within 24 lines.
    """

    DEFAULT_CSS = """
    Choice { height: 1; width: 1fr; padding: 0 1; }
    Choice:focus { background: $accent 30%; text-style: bold; }
    """

    BINDINGS = [
        Binding("left,h", "step(-1)", "previous", show=False),
        Binding("right,l,space", "step(1)", "next", show=False),
    ]

    index: reactive[int] = reactive(0)

    class Changed(Message):
        def __init__(self, choice: Choice, value: Any) -> None:
            super().__init__()
            self.choice = choice
            self.value = value

        @property
        def control(self) -> Choice:
            return self.choice

    def __init__(
        self,
        values: Sequence[Any],
        *,
        value: Any = None,
        labels: Sequence[str] | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.values = list(values)
        self.labels = list(labels) if labels is not None else [self._label(v) for v in values]
        self.set_reactive(Choice.index, self.values.index(value) if value in self.values else 0)

    @staticmethod
    def _label(value: Any) -> str:
        if isinstance(value, bool):
            return "yes" if value else "no"
        return str(value)

    @property
    def value(self) -> Any:
        return self.values[self.index]

    def action_step(self, delta: int) -> None:
        self.index = (self.index + delta) % len(self.values)

    def watch_index(self) -> None:
        self.post_message(self.Changed(self, self.value))

    def on_click(self) -> None:
        self.action_step(1)

    def render(self) -> Text:
        return Text.assemble(("< ", "dim"), self.labels[self.index], (" >", "dim"))


class PagedScreen(Screen[None]):
    """A list the server hands out a page at a time (``history``, ``leaderboard``).

    ``n`` follows the reply's ``next`` cursor; the cursors of the pages before are
    kept here, so ``p`` goes back without the server keeping anything per client.
    A subclass says what to ask (:meth:`request`) and how to draw a reply (:meth:`show`).
    """

    def __init__(self, *, page: int = 20) -> None:
        super().__init__()
        self.page_size = page
        self.cursors: list[str | None] = [None]
        """The cursor of each page up to the one shown (the first page's is None)."""
        self.next: str | None = None

    @property
    def tapp(self) -> Host:
        return cast("Host", self.app)

    def request(self) -> dict[str, Any]:
        """The request for the first page, without ``limit`` and ``cursor``."""
        raise NotImplementedError

    def show(self, reply: dict[str, Any]) -> None:
        raise NotImplementedError

    def restart(self) -> None:
        """Back to the first page, of a request that changed (another game)."""
        self.cursors = [None]
        self.load()

    def action_page(self, delta: int) -> None:
        if delta > 0 and self.next is not None:
            self.cursors.append(self.next)
        elif delta < 0 and len(self.cursors) > 1:
            self.cursors.pop()
        else:
            self.notify("No more pages that way.")
            return
        self.load()

    @work(exclusive=True, group="page")
    async def load(self) -> None:
        msg = self.request() | {"limit": self.page_size}
        if self.cursors[-1] is not None:
            msg["cursor"] = self.cursors[-1]
        reply = await self.tapp.call(msg)
        if reply is not None:
            self.tapp.lobby.apply(reply)
            self.show(reply)

    def action_back(self) -> None:
        self.dismiss(None)
