"""What every game screen shares: the header, the board, the side panel, keys, leaving.

A game screen is a thin renderer of its :class:`RoomModel`: each frame for its
room goes into the model, then the header, board, side panel and the line that
tells what just happened are redrawn from it. The only state a screen keeps of
its own is input state: the cursor, a selection, a highlighted path.

Keys follow CLines: arrows or ``h j k l`` move the cursor, space selects or
acts, ``q`` leaves the room (a player keeps the seat and may come back).
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any, ClassVar, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.events import Resize
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Static
from tilehall.clients.cli.chat import ChatScreen
from tilehall.clients.cli.help import HelpScreen, keys_of
from tilehall.clients.cli.host import Frame
from tilehall.clients.cli.share import share_when_over
from tilehall.clients.cli.widgets import Cell, Grid, Paint, StatusLine
from tilehall.clients.connection import ConnectionLost, ServerError
from tilehall.clients.model import RoomModel
from tilehall.clients.words import Tone, Words, error_text

if TYPE_CHECKING:
    from tilehall.clients.cli.host import Host

__all__ = ["GameScreen"]


class GameScreen(Screen[None]):
    """Base of the per-game screens; subclasses paint cells and fill the side panel."""

    LABEL: ClassVar[str] = "Game"
    ABOUT: ClassVar[str] = ""
    KEYS: ClassVar[str] = "arrows/hjkl move  space select  ? help  q leave"
    WATCH_KEYS: ClassVar[str] = "arrows/hjkl look around  ? help  q leave"
    """The status line's keys for a spectator: no player controls it could not use."""
    LABELS: ClassVar[bool] = False
    """Column letters and row numbers around the board (games whose log names squares)."""
    WIDTHS: ClassVar[tuple[int, ...]] = (4, 3, 2)
    HEIGHTS: ClassVar[tuple[int, ...]] = (1,)
    MARGIN: ClassVar[int] = 0
    SIDE: ClassVar[int] = 24
    """Columns kept for the side panel when choosing the board's cell width."""
    CHROME: ClassVar[int] = 4
    """Lines besides the board: header, two of messages, status line (subclasses add theirs)."""
    TOLD: ClassVar[int] = 2
    """How many updates the message lines recall."""

    BINDINGS = [
        Binding("up,k", "move(-1, 0)", "move the cursor"),
        Binding("down,j", "move(1, 0)", "move the cursor"),
        Binding("left,h", "move(0, -1)", "move the cursor"),
        Binding("right,l", "move(0, 1)", "move the cursor"),
        Binding("space,enter", "select", "select / act on the cursor's square"),
        Binding("question_mark", "help", "this help"),
        Binding("q", "leave", "leave the room (a player keeps the seat)"),
        Binding("c", "chat", "the room's chat: what was said, and say something"),
    ]

    def __init__(self, model: RoomModel) -> None:
        super().__init__()
        self.model = model
        rows, cols = self.shape()
        self.cursor: Cell = (rows // 2, cols // 2)
        self.note = ""
        """A one-off line from the client itself (why a key does nothing)."""
        self.told: deque[Text] = deque(maxlen=self.TOLD)
        """What the last few updates did, newest last (bot moves come one update each)."""
        self.shared = False
        """A game of today's deal that ended showed its result to share (once)."""

    @property
    def tapp(self) -> Host:
        return cast("Host", self.app)

    @property
    def mono(self) -> bool:
        return bool(getattr(self.app, "mono", False))

    @property
    def view(self) -> dict[str, Any]:
        return self.model.view

    # -- layout ---------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        rows, cols = self.shape()
        yield Static(id="header")
        with Horizontal(id="main"):
            yield Grid(
                rows,
                cols,
                self.paint,
                widths=self.WIDTHS,
                heights=self.HEIGHTS,
                margin=self.MARGIN,
                reserve=self.SIDE,
                chrome=self.CHROME + 2,
                labels=self.LABELS,
                id="grid",
            )
            yield Static(id="side")
        yield from self.compose_below()
        yield Static(id="msg")
        yield StatusLine(self.KEYS if self.model.seat is not None else self.WATCH_KEYS)

    def compose_below(self) -> ComposeResult:
        """Extra rows under the board (Mathable's rack)."""
        yield from ()

    @property
    def grid(self) -> Grid:
        return self.query_one("#grid", Grid)

    # Textual calls the on_* handler of every class in the MRO, so subclasses
    # override these hooks rather than the handlers.

    def on_mount(self) -> None:
        self.start()

    def on_resize(self, event: Resize) -> None:
        self.fit(event.size)

    def start(self) -> None:
        """The screen is up: draw it and start the clock redraws."""
        self.grid.cursor = self.cursor
        self.redraw()
        self.set_interval(1.0, self.every_second)

    def every_second(self) -> None:
        """The countdown of a quick-match room's bots, then the game's own clocks."""
        if self.model.bots_in() is not None and self.query("#side"):
            self.query_one("#side", Static).update(self.side())
        self.tick()

    def fit(self, size: Size) -> None:
        """Drop the board's frame when the board and its panel would not fit."""
        rows, cols = self.shape()
        left, top = (len(str(rows)) + 1, 1) if self.LABELS else (0, 0)
        span_r, span_c = rows + 2 * self.MARGIN, cols + 2 * self.MARGIN
        tight = (
            size.height < span_r + top + 2 + self.CHROME
            or size.width < span_c * self.WIDTHS[-1] + left + 2 + self.SIDE
        )
        self.set_class(tight, "-compact")

    def tick(self) -> None:
        """Once a second: redraw what shows a clock (subclasses with clocks override)."""

    # -- the model ------------------------------------------------------------------

    def shape(self) -> tuple[int, int]:
        """The board's (rows, cols) from the view."""
        board = self.view.get("board") or [[]]
        return len(board), max((len(r) for r in board), default=0)

    def on_frame(self, message: Frame) -> None:
        msg = message.msg
        if msg.get("room") != self.model.room:
            return
        if self.model.apply(msg):
            if msg["t"] == "chat":
                self.note = f"{msg['from']}: {msg['text']}"
                if isinstance(self.app.screen, ChatScreen) and self.app.screen.model is self.model:
                    self.app.screen.refresh_lines()
            if msg["t"] in ("update", "joined", "_rejoined"):
                self.note = ""
                self.took(msg)
                said = self.narrate() if self.model.events else Text()
                if not said.plain and self.model.event("started"):
                    said = Text("The game begins.", style="bold")
                if said.plain:
                    self.told.append(said)
            self.redraw()
            if self.model.over and not self.shared and self.model.summary:
                self.shared = True
                self.run_worker(share_when_over(self), group="daily-share")
        if self.model.rejoin_due():
            self.rejoin()

    @work(group="rejoin")
    async def rejoin(self) -> None:
        """Updates were skipped: join again with the last seq; the answer comes as a Frame."""
        conn = self.tapp.conn
        if conn is None:
            return
        try:
            await conn.rejoin(self.model.room)
        except ServerError as exc:
            self.tapp.refuse(
                error_text(
                    exc.code, exc.message, game=self.model.game, cells=exc.cells, tiles=exc.tiles
                )
            )
        except (ConnectionLost, TimeoutError):
            pass  # the reconnect rejoins every room anyway

    def took(self, msg: dict[str, Any]) -> None:
        """A new view arrived: subclasses reset selections or start an animation here."""

    def forget(self) -> None:
        """What the screen gathered from the updates before is no longer true (a replay
        jumped): subclasses drop it here."""

    def redraw(self) -> None:
        if not self.query("#grid"):
            return  # a frame for a screen that is closing
        grid = self.grid
        rows, cols = self.shape()
        grid.display = rows > 0 and cols > 0  # no board before play starts
        grid.resize_board(rows, cols)
        r, c = self.cursor
        m = self.MARGIN
        # A paused Match-It hides its board: the cursor waits where it was.
        if grid.display and not (-m <= r < rows + m and -m <= c < cols + m):
            self.set_cursor((rows // 2, cols // 2))
        grid.refresh()
        self.query_one("#header", Static).update(self.header())
        self.query_one("#side", Static).update(self.side())
        self.query_one("#msg", Static).update(self.messages())
        self.redraw_below()

    def messages(self) -> Text:
        """The message lines: what the last updates did, then the client's own note.

        They are :attr:`TOLD` rows high. A line that wraps takes two of them, and the
        older lines give way to it: at 80 columns the quit vote's question and how
        to answer it ("Press v again ...") wrap, and the answer was cut off.
        """
        lines = list(self.told)
        if self.note:
            lines.append(Text(self.note, style="italic"))
        shown = self.query("#msg")
        width = shown.first(Static).content_size.width if shown else 0  # 0: not laid out
        kept: list[Text] = []
        rows = 0
        for line in reversed(lines):
            need = len(line.wrap(self.app.console, width)) if width else 1
            if kept and rows + need > self.TOLD:
                break
            kept.append(line)
            rows += need
        return Text("\n").join(line.copy() for line in reversed(kept))

    def redraw_below(self) -> None:
        """Redraw the rows of :meth:`compose_below`."""

    def header(self) -> Text:
        m = self.model
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"{self.label()} ", style="bold")
        text.append(f"{m.room}  ")
        if m.seat is None:
            text.append("watching", style="italic")
        else:
            text.append(f"you: {self.tapp.player}")
        status = m.status
        if status == "playing" and m.paused:
            text.append(f"  PAUSED: {self.pause_words(m.paused)}", style="bold reverse")
        elif status == "playing" and m.my_turn and self.seats() > 1:
            text.append("  your turn", style="bold reverse")
        elif status != "playing":
            text.append(f"  {status}", style="bold")
        if m.spectators():
            n = m.spectators()
            text.append(f"  {n} spectator{'s' if n != 1 else ''}", style="dim")
        if m.code:
            text.append(f"  code {m.code}", style="dim")
        if m.chat:
            text.append(f"  chat {len(m.chat)} (c)", style="dim")
        return text

    def label(self) -> str:
        """The game's name in the header and help."""
        return self.LABEL

    def seats(self) -> int:
        return len(self.model.scores) or 1

    def side(self) -> Text:
        """The side panel; subclasses add their game's state below the waiting notice."""
        return self.waiting()

    def waiting(self) -> Text:
        text = Text()
        waiting = self.view.get("waiting_for")
        if self.model.status == "waiting" and waiting is not None:
            names = [self.model.name(i) for i in waiting]
            who = ", ".join(
                f"seat {i + 1}" if n.startswith("(free)") else n.strip("()?")
                for i, n in zip(waiting, names, strict=True)
            )
            text.append(f"Waiting for {who or 'players'}\n", style="bold")
            bots_in = self.model.bots_in()
            if self.model.code:
                text.append(f"Private: share the code\n{self.model.code}\n")
            elif bots_in is not None:
                text.append(f"COMP players join in {int(bots_in + 0.999)} s\n", style="bold")
                text.append("Others join by quick game.\n", style="dim")
            else:
                text.append("Others join from the lobby.\n", style="dim")
        return text

    def paused_text(self) -> Text:
        """The side panel's word on a game that stands still: why, and what resumes it."""
        why = self.model.paused if self.model.status == "playing" else None
        if why is None:
            return Text()
        text = Text(f"PAUSED: {self.pause_words(why)}\n", style="bold reverse")
        if why == "player" and self.model.seat is not None:
            text.append("p resumes\n", style="bold")
        return text

    def words(self) -> Words:
        """The room's sentences as this reader sees them (:mod:`tilehall.clients.words`)."""
        m = self.model
        return Words(game=m.game, name=m.name, seat=m.seat, seats=self.seats())

    def narrated(self) -> list[dict[str, Any]]:
        """The events the message line tells; a screen that plays them out later holds
        some back."""
        return self.model.events

    def narrate(self) -> Text:
        """One line on what the last update did (from its events), in the clients' words."""
        text = Text(no_wrap=True, overflow="ellipsis")
        for i, said in enumerate(self.words().events(self.narrated())):
            if i:
                text.append("; ")
            text.append(said.text, style=TONE_STYLE[said.tone])
        return text

    def pause_words(self, why: str) -> str:
        """Why the game stands still, in words."""
        return self.words().paused(why)

    def undos_text(self, text: Text) -> None:
        """The side panel's count of moves taken back, and what it costs."""
        undos = int(self.view.get("undos") or 0)
        if undos:
            text.append(f"Undos {undos}: not eligible for records\n", style="bold")

    def paint(self, r: int, c: int, width: int) -> Paint:
        return Paint(".", "dim")

    # -- input ----------------------------------------------------------------------

    def action_move(self, dr: int, dc: int) -> None:
        rows, cols = self.shape()
        m = self.MARGIN
        r = min(max(self.cursor[0] + dr, -m), rows - 1 + m)
        c = min(max(self.cursor[1] + dc, -m), cols - 1 + m)
        self.set_cursor((r, c))

    def set_cursor(self, cell: Cell) -> None:
        self.cursor = cell
        self.grid.cursor = cell
        self.moved()

    def moved(self) -> None:
        """The cursor moved: the side panel names the square under it."""
        self.query_one("#side", Static).update(self.side())

    def action_select(self) -> None:
        """Space: subclasses act on the cursor's square."""

    @on(Grid.Clicked, "#grid")
    def clicked(self, event: Grid.Clicked) -> None:
        self.set_cursor(event.cell)
        if event.button == 3:
            self.action_alternate()
        else:
            self.action_select()

    def action_alternate(self) -> None:
        """Right click: subclasses may give it a meaning."""

    def can_act(self) -> bool:
        """Whether an action from this client makes sense now; says why not."""
        m = self.model
        reason = None
        if m.seat is None:
            reason = "you are watching"
        elif m.status == "waiting":
            reason = "the game has not started"
        elif m.over:
            reason = "the game is over"
        elif m.paused:
            reason = f"the game is paused ({self.pause_words(m.paused)})"
            if m.paused == "player":
                reason += ": p resumes"
        elif not m.my_turn:
            reason = f"it is {m.name(m.to_move)}'s turn"
        if reason:
            self.say(reason)
        return reason is None

    def say(self, note: str) -> None:
        self.note = note
        self.query_one("#msg", Static).update(self.messages())

    def send(self, action: dict[str, Any]) -> None:
        self._send(action)

    @work(group="act")
    async def _send(self, action: dict[str, Any]) -> None:
        await self.tapp.act(self.model.room, action, game=self.model.game)

    def action_chat(self) -> None:
        """What the room said (kept by the server: a reload reads it again), and a line to
        say more."""
        self.app.push_screen(ChatScreen(self.model))

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.label(), keys_of(self), self.ABOUT))

    def action_undo(self) -> None:
        """Take back the last move (the solo games): the game leaves the record tables."""
        if self.can_act():
            self.send({"do": "undo"})

    def action_quit_game(self) -> None:
        """End the game where it stands; its score counts."""
        if self.can_act():
            self.send({"do": "quit"})

    def action_pause(self) -> None:
        """Stop the clock (the board is hidden meanwhile), or start it again."""
        if self.model.paused == "player" and self.model.seat is not None:
            self.send({"do": "resume"})
        elif self.can_act():
            self.send({"do": "pause"})

    @work(exclusive=True, group="leave")
    async def action_leave(self) -> None:
        conn = self.tapp.conn
        if conn is not None and conn.connected and self.model.room in conn.seats:
            await self.tapp.call({"t": "leave", "room": self.model.room})
        self.dismiss(None)

    # -- helpers for subclasses -------------------------------------------------------

    def scores_text(self, text: Text) -> None:
        """Each seat's name and score, the one to move marked with ``>``."""
        m = self.model
        for i, score in enumerate(m.scores):
            mark = ">" if m.to_move == i and m.status == "playing" else " "
            me = i == m.seat
            name = m.name(i) + ("~" if m.away(i) else "")
            text.append(f"{mark}{name[:12]:<12} {score:>5}\n", style="bold" if me else "")

    def seconds_left(self, deadline: float | None) -> int | None:
        """Whole seconds until the server's ``deadline``, on the server's clock (see
        :class:`~tilehall.clients.model.ServerClock`): right on a machine whose clock is off."""
        left = self.model.clock.left(deadline)
        return None if left is None else int(left + 0.999)


TONE_STYLE = {
    Tone.PLAIN: "",
    Tone.NOTE: "bold",
    Tone.GOOD: "bold",
    Tone.BAD: "bold",
    Tone.QUIET: "dim",
}
"""How the message line shows each :class:`~tilehall.clients.words.Tone`."""
