"""Your finished games, and a replay of any of them.

The history is the server's (``history``), a page at a time, newest first.
A replay is drawn by the game's own screen: :func:`replay_screen` puts
:class:`Replaying` in front of it, so a replay shows the board exactly as the
game screen does (a spectator's view, plus what the server ``revealed`` once
the game was over: every Mathable rack, the coming Lines colours), and only the
keys change. Positions already fetched are kept in a
:class:`~tilehall.clients.model.ReplayModel`: stepping back asks nothing.
"""

from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.timer import Timer
from textual.widgets import DataTable, Static
from tilehall.clients.cli.games import GameScreen, screen_for
from tilehall.clients.cli.help import HelpScreen, keys_of
from tilehall.clients.cli.host import Frame
from tilehall.clients.cli.widgets import PagedScreen, StatusLine
from tilehall.clients.model import ReplayModel, RoomModel, ServerClock

if TYPE_CHECKING:
    pass

__all__ = ["AUTOPLAY_SECONDS", "HistoryScreen", "Replaying", "history_row", "replay_screen"]

AUTOPLAY_SECONDS = 0.8
"""Time between two positions while a replay plays by itself."""

OUTCOME = {"won": "won", "lost": "lost", "drawn": "drawn", "finished": "played", "closed": "closed"}
"""``history`` outcomes as the list reads them (a game of one is ``finished``)."""

REVEALED = {
    "racks": "every rack",
    "next": "the next colours",
    "board": "the board",
    "hint": "the hint",
}
"""What a replay's ``revealed`` holds, in words: what the spectators did not see then."""


def _when(at: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(at)) if at else "-"


def _player(entry: dict[str, Any]) -> str:
    """A seat of a history entry: a person's name, or COMP with its level."""
    name = str(entry.get("name") or "?")
    level = entry.get("bot")
    return f"{name}({level})" if level and level != "normal" else name


def history_row(room: dict[str, Any]) -> tuple[str, str, str, str, str]:
    """One ``history`` entry as a row: when, game, outcome, your score, who else and theirs."""
    seat = room.get("seat")
    scores = room.get("scores")
    players = room.get("players") or []
    mine = str(scores[seat]) if scores and isinstance(seat, int) and seat < len(scores) else "-"
    others = [
        f"{_player(p)} {scores[i] if scores and i < len(scores) else '-'}"
        for i, p in enumerate(players)
        if i != seat
    ]
    return (
        _when(room.get("finished")),
        str(room.get("game", "?")),
        OUTCOME.get(str(room.get("outcome")), str(room.get("outcome"))),
        mine,
        ", ".join(others) or "-",
    )


class HistoryScreen(PagedScreen):
    """A player's finished games, newest first, a page at a time; enter replays one.

    Args:
        player: whose games (yours if None).
        page: games a page.
    """

    BINDINGS = [
        Binding("enter,space", "replay", "replay the selected game"),
        Binding("n,pagedown", "page(1)", "next page (older games)"),
        Binding("p,pageup", "page(-1)", "previous page (newer games)"),
        Binding("g", "game(1)", "show one game's only (each in turn, then all)"),
        Binding("j", "cursor(1)", "", show=False),
        Binding("k", "cursor(-1)", "", show=False),
        Binding("question_mark", "help", "this help"),
        Binding("q,escape", "back", "back to the lobby"),
    ]

    def __init__(self, *, player: str | None = None, page: int = 20) -> None:
        super().__init__(page=page)
        self.player = player
        self.game: str | None = None
        """Only this game's rooms; None for all."""
        self.rooms: dict[str, dict[str, Any]] = {}
        """The page shown, by room id."""

    def compose(self) -> ComposeResult:
        yield Static(id="history-title")
        yield DataTable(id="history", cursor_type="row", zebra_stripes=True)
        yield Static("", id="history-note")
        yield StatusLine("enter replay  n older  p newer  g game  ? help  q back")

    def on_mount(self) -> None:
        table = self.query_one("#history", DataTable)
        for label, width in (
            ("finished", 16),
            ("game", 9),
            ("result", 6),
            ("score", 6),
            ("against", 32),
        ):
            table.add_column(label, width=width)
        self.load()

    def action_game(self, delta: int) -> None:
        names: list[str | None] = [None, *self.tapp.games]
        self.game = names[(names.index(self.game) + delta) % len(names)]
        self.restart()

    def action_cursor(self, delta: int) -> None:
        table = self.query_one("#history", DataTable)
        table.move_cursor(row=table.cursor_row + delta)

    def request(self) -> dict[str, Any]:
        msg: dict[str, Any] = {"t": "history"}
        if self.player is not None:
            msg["player"] = self.player
        if self.game is not None:
            msg["game"] = self.game
        return msg

    def show(self, reply: dict[str, Any]) -> None:
        if not self.query("#history"):
            return  # the screen closed meanwhile
        self.next = reply.get("next")
        rooms = reply.get("rooms") or []
        self.rooms = {r["room"]: r for r in rooms}
        title = Text.assemble(("History  ", "bold"), (str(reply.get("player")), "bold"))
        title.append(f"  {self.tapp.lobby.title(self.game) if self.game else 'all games'}")
        title.append(f"  page {len(self.cursors)}")
        if self.next is not None:
            title.append("  (n: older)", style="dim")
        self.query_one("#history-title", Static).update(title)
        table = self.query_one("#history", DataTable)
        table.clear()
        for room in rooms:
            table.add_row(*history_row(room), key=room["room"])
        note = "" if rooms else "No finished games yet: they are listed here once played."
        self.query_one("#history-note", Static).update(note)

    def selected(self) -> dict[str, Any] | None:
        table = self.query_one("#history", DataTable)
        if not table.row_count:
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        except Exception:  # the cursor may point past a shrunk table
            return None
        return self.rooms.get(str(key.value))

    @on(DataTable.RowSelected, "#history")
    def row_selected(self) -> None:
        self.action_replay()

    def action_replay(self) -> None:
        room = self.selected()
        if room is None:
            self.notify("No game selected.")
            return
        self.app.push_screen(replay_screen(room["game"], room["room"]))

    def action_help(self) -> None:
        about = (
            "Results: won, lost or drawn against the others' scores; played for a game of "
            "one; closed when an administrator closed the room. A replay shows the game as "
            "its spectators saw it, and what they could not see then (every rack, the next "
            "colours)."
        )
        self.app.push_screen(HelpScreen("History", keys_of(self), about))


class Replaying(GameScreen):
    """A finished room stepped through, drawn by its game's screen (see :func:`replay_screen`).

    It comes before the game's screen class in the MRO: its keys replace the
    game's, its :meth:`header` says where in the game it stands, and nothing it
    does reaches the room. Each position is the server's ``replayed`` reply: the
    view a spectator had then, with ``revealed`` laid over it.
    """

    WATCH_KEYS = "left/right step  home/end first/last  space autoplay  ? help  q back"
    ABOUT = (
        "A replay of a finished game: each step is one entry of the room's journal, a move "
        "or a clock step, as the spectators saw it, plus what they could not see then (every "
        "rack, the next colours). Steps already seen are kept: going back costs nothing."
    )

    def __init__(self, room: str, game: str) -> None:
        # Countdowns read the server's clock; frozen at each position's own ``now``,
        # they show the time that was left then.
        model = RoomModel(
            room=room,
            seat=None,
            seq=0,
            view={"game": game, "status": "playing"},
            clock=ServerClock(wall=lambda: 0.0),
        )
        super().__init__(model)
        self.replay = ReplayModel(room)
        self.steps: deque[str] = deque()
        """Steps asked for and not taken yet (keys pressed while a position loads)."""
        self._stepping = False
        self._autoplay: Timer | None = None
        self.revealed: list[str] = []

    # -- keys -------------------------------------------------------------------------

    def start(self) -> None:
        super().start()
        self.action_step("first")

    def action_step(self, step: str) -> None:
        """``first``, ``back``, ``forward`` or ``last``; taken in order, one at a time."""
        self.steps.append(step)
        if not self._stepping:
            self._stepping = True
            self._take_steps()

    @work(group="replay")
    async def _take_steps(self) -> None:
        try:
            while self.steps:
                await self.go(self.replay.target(self.steps.popleft()))
        finally:
            self._stepping = False

    async def go(self, seq: int) -> None:
        """Show position ``seq``: from the cache, else asked of the server."""
        before = self.replay.seq
        if seq == before:
            if self.replay.at_end:
                self.stop_autoplay()
                self.say("the end of the game")
            elif seq == 1:
                self.say("the start of the game")
            return
        if not self.replay.cached(seq):
            reply = await self.tapp.call({"t": "replay", "room": self.model.room, "seq": seq})
            if reply is None:
                self.steps.clear()
                self.stop_autoplay()
                return
            self.replay.take(reply)
        self.show(forward=self.replay.seq == before + 1)

    def action_walk(self, step: str) -> None:
        """A step key: it takes over from autoplay."""
        self.stop_autoplay()
        self.action_step(step)

    def action_autoplay(self) -> None:
        """Step forward by itself every :data:`AUTOPLAY_SECONDS`, until the end or a key."""
        if self._autoplay is not None:
            self.stop_autoplay()
            return
        if self.replay.at_end:
            self.action_step("first")  # from the end, play it again from the start
        self._autoplay = self.set_interval(AUTOPLAY_SECONDS, self._autostep)
        self.redraw()

    def _autostep(self) -> None:
        if self.replay.at_end:
            self.stop_autoplay()
        elif not self._stepping:
            self.action_step("forward")

    def stop_autoplay(self) -> None:
        if self._autoplay is not None:
            self._autoplay.stop()
            self._autoplay = None
            self.redraw()

    @property
    def playing(self) -> bool:
        """Whether autoplay is on."""
        return self._autoplay is not None

    def action_leave(self) -> None:  # type: ignore[override]
        self.stop_autoplay()
        self.dismiss(None)

    # -- drawing ------------------------------------------------------------------------

    def show(self, *, forward: bool) -> None:
        """Put the current position into the model and draw it as the game screen would."""
        frame = self.replay.current
        if frame is None:
            return
        m = self.model
        revealed = frame.get("revealed") or {}
        m.seq, m.events = frame["seq"], list(frame.get("events") or [])
        m.view = {**frame["view"], **revealed}
        m.clock.saw(m.view)
        self.revealed = [REVEALED.get(key, key) for key in revealed]
        if m.summary is None:
            m.summary = {
                "seats": [
                    {
                        "name": name,
                        "taken": True,
                        "bot": str(name).upper().startswith("COMP"),
                        "connected": True,
                    }
                    for name in frame.get("players") or []
                ]
            }
        if not forward:
            self.forget()
            self.told.clear()
        self.note = ""
        self.took({"t": "update" if forward else "joined", "room": m.room})
        said = self.narrate() if m.events else Text()
        if not said.plain and m.event("started"):
            said = Text("The game begins.", style="bold")
        if said.plain:
            self.told.append(said)
        self.redraw()

    def header(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append("Replay ", style="bold reverse")
        text.append(f" {self.label()} ", style="bold")
        text.append(f"{self.model.room}  ")
        last = self.replay.last
        text.append(f"{self.replay.seq}/{last if last is not None else '?'}", style="bold")
        if self.playing:
            text.append("  autoplay", style="bold reverse")
        elif self.replay.at_end:
            text.append("  end", style="bold")
        names = self.model.names()
        if len(names) > 1:
            text.append("  " + " vs ".join(names), style="dim")
        if self.revealed:
            text.append(f"  shown: {', '.join(self.revealed)}", style="italic")
        return text

    def on_frame(self, message: Frame) -> None:
        """A replay is no live room: frames of the room (none should come) change nothing."""
        message.prevent_default()

    def can_act(self) -> bool:
        self.say("a replay: left/right step through it, q goes back")
        return False

    def send(self, action: dict[str, Any]) -> None:
        self.can_act()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(f"Replay: {self.label()}", keys_of(self), Replaying.ABOUT))


REPLAY_BINDINGS = [
    Binding("right,l,f", "walk('forward')", "one step forward"),
    Binding("left,h,b", "walk('back')", "one step back"),
    Binding("home,g", "walk('first')", "the deal (the first position)"),
    Binding("end,G", "walk('last')", "the end of the game"),
    Binding("space,a", "autoplay", "autoplay: step forward by itself (any step key stops it)"),
    Binding("up,k", "move(-1, 0)", "move the cursor (the side panel names its square)"),
    Binding("down,j", "move(1, 0)", "move the cursor (the side panel names its square)"),
    Binding("question_mark", "help", "this help"),
    Binding("q,escape", "leave", "back to the history"),
]
"""A replay's keys: only these (the game's own act on a live room)."""

_CLASSES: dict[type[GameScreen], type[GameScreen]] = {}


def replay_screen(game: str, room: str) -> GameScreen:
    """The replay of ``room``, drawn by ``game``'s screen."""
    base = screen_for(game)
    cls = _CLASSES.get(base)
    if cls is None:
        # The game's class after Replaying: its drawing, Replaying's keys and header.
        cls = cast(
            "type[GameScreen]",
            type(
                f"{base.__name__}Replay",
                (Replaying, base),
                {"BINDINGS": REPLAY_BINDINGS, "__module__": __name__},
                inherit_bindings=False,
            ),
        )
        _CLASSES[base] = cls
    return cast("type[Replaying]", cls)(room, game)
