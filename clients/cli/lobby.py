"""The lobby: who you are, the rooms, creating, joining, watching, high scores.

The room list is the server's: it is polled every ``app.poll`` seconds while
the lobby is on top, and ``room`` pushes update a row at once. The create form
is built from ``welcome.games[].options``, so a game added to the server shows
its options here without a client change.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, DataTable, Input, Label, Static
from tilehall.clients import words
from tilehall.clients.cli.daily import DailyScreen, daily_line
from tilehall.clients.cli.help import HelpScreen, keys_of
from tilehall.clients.cli.history import HistoryScreen
from tilehall.clients.cli.host import Frame
from tilehall.clients.cli.scores import detail_text
from tilehall.clients.cli.widgets import Choice, PagedScreen, StatusLine
from tilehall.clients.connection import ServerError
from tilehall.clients.model import LobbyModel, seat_label
from tilehall.clients.words import (
    option_label,
    quick_fields,
    quick_note,
    quick_request,
    rating_text,
    room_state,
)
from tilehall.protocol import ErrorCode

if TYPE_CHECKING:
    from tilehall.clients.cli.host import Host

__all__ = [
    "CodeScreen",
    "CreateScreen",
    "LeaderboardScreen",
    "LobbyScreen",
    "NameScreen",
    "QuickScreen",
    "ScoresScreen",
    "SetPasswordScreen",
    "SignOutScreen",
    "rating_text",
    "seats_text",
]


FIELD_KEYS = [
    Binding("down", "app.focus_next", "next field", show=False),
    Binding("up", "app.focus_previous", "previous field", show=False),
]
"""A form's fields one under the other: the arrows that point there move there (tab too)."""


def seats_text(room: dict[str, Any]) -> str:
    """The seats of a room summary in one short cell: names, bots, free seats, who is away."""
    out = []
    for i, seat in enumerate(room.get("seats") or []):
        label = seat_label(seat, i)
        if seat.get("taken") and not seat.get("bot") and not seat.get("connected"):
            label += "~"  # holds the seat but is away
        out.append(label)
    return ", ".join(out) or "-"


class NameScreen(ModalScreen[str]):
    """Ask for a player name (first start, a refused token, or a taken name)."""

    DEFAULT_CSS = """
    NameScreen { align: center middle; }
    NameScreen > Vertical {
        width: 60; max-width: 100%; height: auto; border: round $accent;
        padding: 0 1; background: $surface;
    }
    NameScreen #problem { color: $error; }
    NameScreen #problem, NameScreen #known { width: 100%; }
    """
    BINDINGS = [Binding("escape", "app.quit", "quit")]

    def __init__(
        self, problem: str | None = None, name: str | None = None, known: list[str] | None = None
    ) -> None:
        super().__init__()
        self.problem = problem
        self.suggested = name or ""
        self.known = known or []
        """The names played on this server before: typing one resumes it with its token."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Your player name (letters, digits, space _ . -):")
            yield Input(value=self.suggested, max_length=24, id="name")
            if self.known:
                yield Label("yours here: " + ", ".join(self.known), id="known", classes="dim")
            yield Label(self.problem or "", id="problem")
            yield Label("enter: go   esc: quit", classes="dim")

    @on(Input.Submitted, "#name")
    def submit(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        if name:
            self.dismiss(name)


class PasswordScreen(ModalScreen[str | None]):
    """Ask for the password of a protected name (signing in on this device)."""

    DEFAULT_CSS = """
    PasswordScreen { align: center middle; }
    PasswordScreen > Vertical {
        width: 60; max-width: 100%; height: auto; border: round $accent;
        padding: 0 1; background: $surface;
    }
    PasswordScreen #problem { color: $error; width: 100%; }
    """
    BINDINGS = [Binding("escape", "cancel", "another name")]

    def __init__(self, name: str, problem: str | None = None) -> None:
        super().__init__()
        self.player = name
        self.problem = problem

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"The password of {self.player}:")
            yield Input(password=True, max_length=256, id="password")
            yield Label(self.problem or "", id="problem")
            yield Label("enter: sign in   esc: another name", classes="dim")

    @on(Input.Submitted, "#password")
    def submit(self, event: Input.Submitted) -> None:
        if event.value:
            self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class SetPasswordScreen(ModalScreen[bool]):
    """Protect the name with a password, or change it; True once the server took it.

    It stays open on a refusal (too short, a wrong current password), saying
    why, so that nothing typed is lost; esc cancels (False).
    """

    DEFAULT_CSS = """
    SetPasswordScreen { align: center middle; }
    SetPasswordScreen > Vertical {
        width: 60; max-width: 100%; height: auto; border: round $accent;
        padding: 0 1; background: $surface;
    }
    SetPasswordScreen Label { width: 100%; }
    SetPasswordScreen #problem { color: $error; }
    """
    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, why: str | None = None) -> None:
        super().__init__()
        self.why = why
        """Why the password is asked for (before a sign-out, say); None: the player asked."""

    @property
    def tapp(self) -> Host:
        return cast("Host", self.app)

    def compose(self) -> ComposeResult:
        with Vertical():
            if self.why:
                yield Label(self.why, id="why")
            yield Label("A password keeps your name on other devices: 10 to 256 characters.")
            yield Label("Current password (empty if none yet):")
            yield Input(password=True, max_length=256, id="old")
            yield Label("New password:")
            yield Input(password=True, max_length=256, id="new")
            yield Label("", id="problem")
            yield Label("enter: save   esc: cancel", classes="dim")

    @on(Input.Submitted, "#old")
    def next_field(self) -> None:
        self.query_one("#new", Input).focus()

    @on(Input.Submitted, "#new")
    def submit(self, event: Input.Submitted) -> None:
        if event.value:
            self.save(event.value, self.query_one("#old", Input).value or None)

    @work(exclusive=True, group="set-password")
    async def save(self, new: str, old: str | None) -> None:
        problem = await self.tapp.set_password(new, old)
        if problem is None:
            self.dismiss(True)
            return
        self.query_one("#problem", Label).update(problem)

    def action_cancel(self) -> None:
        self.dismiss(False)


class SignOutScreen(ModalScreen[str | None]):
    """Ask before signing out: what will happen, what would be lost, and a way to a password.

    Dismisses with ``"out"`` (sign out), ``"password"`` (set a password first)
    or None (stay). A name without a password cannot be signed out (the server
    refuses it ``no_password``): only the password is offered.
    """

    DEFAULT_CSS = """
    SignOutScreen { align: center middle; }
    SignOutScreen > Vertical {
        width: 64; max-width: 100%; height: auto; border: round $warning;
        padding: 0 1; background: $surface;
    }
    SignOutScreen Label { width: 100%; }
    """
    BINDINGS = [
        Binding("escape", "stay", "stay signed in"),
        Binding("p", "password", "set a password"),
        Binding("enter", "out", "sign out"),
    ]

    def __init__(self, name: str, *, protected: bool, everywhere: bool) -> None:
        super().__init__()
        self.player = name
        self.protected = protected
        self.everywhere = everywhere

    def compose(self) -> ComposeResult:
        text = words.sign_out_words(
            self.player, protected=self.protected, everywhere=self.everywhere
        )
        keys = (
            "enter: sign out   p: change the password   esc: stay"
            if self.protected
            else "p: set a password   esc: stay signed in"
        )
        with Vertical():
            yield Label(text, id="question")
            yield Label(keys, classes="dim")

    def action_out(self) -> None:
        if self.protected:
            self.dismiss("out")

    def action_password(self) -> None:
        self.dismiss("password")

    def action_stay(self) -> None:
        self.dismiss(None)


class CodeScreen(ModalScreen[str | None]):
    """Ask for a private room's code."""

    DEFAULT_CSS = """
    CodeScreen { align: center middle; }
    CodeScreen > Vertical {
        width: 60; max-width: 100%; height: auto; border: round $accent;
        padding: 0 1; background: $surface;
    }
    """
    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Private room code:")
            yield Input(max_length=64, id="code")
            yield Label("enter: join   esc: cancel", classes="dim")

    @on(Input.Submitted, "#code")
    def submit(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


class CreateScreen(ModalScreen[dict[str, Any] | None]):
    """The create-room form: game, its options, seats (COMP = bot), private.

    Dismisses with the ``create`` request to send, or None.
    """

    BINDINGS = [
        Binding("escape", "cancel", "cancel"),
        Binding("enter", "submit", "create"),
        *FIELD_KEYS,
    ]

    def __init__(self, games: dict[str, dict[str, Any]], player: str) -> None:
        super().__init__()
        self.games = games
        self.player = player

    def compose(self) -> ComposeResult:
        names = list(self.games)
        with Vertical(id="create"):
            yield Label("New room", classes="title")
            with Horizontal(classes="row"):
                yield Label("game", classes="key")
                yield Choice(
                    names, labels=[self.games[n].get("title", n) for n in names], id="game"
                )
            yield Vertical(id="fields")
            with Horizontal(classes="row"):
                yield Label("private", classes="key")
                yield Choice([False, True], id="private")
            yield Label("", id="problem")
            with Horizontal(classes="buttons"):
                yield Button("Create", id="ok", variant="primary")
                yield Button("Cancel", id="cancel")

    async def on_mount(self) -> None:
        game = self.query_one("#game", Choice)
        await self._build(game.value)
        game.focus()

    @property
    def game(self) -> dict[str, Any]:
        return self.games[self.query_one("#game", Choice).value]

    async def _build(self, game_name: str) -> None:
        """Rebuild the option and seat rows for ``game_name``."""
        game = self.games[game_name]
        fields = self.query_one("#fields", Vertical)
        await fields.remove_children()
        rows: list[Horizontal] = []
        for opt in game.get("options", []):
            rows.append(Horizontal(Label(option_label(opt), classes="key"), self._widget(opt)))
        lo, hi = game.get("min_seats", 1), game.get("max_seats", 1)
        if hi > 1:
            rows.append(
                Horizontal(
                    Label("seats", classes="key"),
                    Choice(list(range(lo, hi + 1)), value=lo, id="nseats"),
                )
            )
            rows.append(
                Horizontal(
                    Label("", classes="key"),
                    Label("COMP or COMP:easy/hard is a bot; blank is open", classes="dim"),
                )
            )
            for i in range(hi):
                default = self.player if i == 0 else "COMP"
                seat = Input(value=default, max_length=30, id=f"seat-{i}", classes="seat")
                row = Horizontal(Label(f"  seat {i + 1}", classes="key"), seat, id=f"seatrow-{i}")
                row.display = i < lo
                rows.append(row)
        for row in rows:
            row.add_class("row")
        await fields.mount_all(rows)

    @staticmethod
    def _widget(opt: dict[str, Any]) -> Choice | Input:
        ident = f"opt-{opt['name']}"
        if opt["kind"] == "bool":
            return Choice([False, True], value=opt.get("default", False), id=ident)
        if opt["kind"] == "choice":
            return Choice(opt["choices"], value=opt.get("default"), id=ident)
        return Input(
            value=str(opt.get("default", "")),
            type="integer",
            placeholder=f"{opt.get('min')}..{opt.get('max')}",
            id=ident,
            tooltip=opt.get("doc") or None,
        )

    @on(Choice.Changed, "#game")
    async def game_changed(self, event: Choice.Changed) -> None:
        if self.is_mounted and self.query("#fields"):
            await self._build(event.value)

    @on(Choice.Changed, "#nseats")
    def seats_changed(self, event: Choice.Changed) -> None:
        for row in self.query(".row"):
            if row.id and row.id.startswith("seatrow-"):
                row.display = int(row.id.split("-")[1]) < event.value

    def request(self) -> dict[str, Any] | str:
        """The ``create`` request, or what is wrong with the form."""
        game = self.game
        options: dict[str, Any] = {}
        for opt in game.get("options", []):
            widget = self.query_one(f"#opt-{opt['name']}")
            if isinstance(widget, Choice):
                value = widget.value
            else:
                try:
                    value = int(cast(Input, widget).value)
                except ValueError:
                    return f"{option_label(opt)} must be a whole number"
                lo, hi = opt.get("min"), opt.get("max")
                if (lo is not None and value < lo) or (hi is not None and value > hi):
                    return f"{option_label(opt)} must be between {lo} and {hi}"
            if value != opt.get("default"):
                options[opt["name"]] = value
        msg: dict[str, Any] = {"t": "create", "game": game["name"]}
        if options:
            msg["options"] = options
        if game.get("max_seats", 1) > 1:
            count = self.query_one("#nseats", Choice).value
            msg["seats"] = [
                self.query_one(f"#seat-{i}", Input).value.strip() or None for i in range(count)
            ]
        if self.query_one("#private", Choice).value:
            msg["private"] = True
        return msg

    def action_submit(self) -> None:
        made = self.request()
        if isinstance(made, str):
            self.query_one("#problem", Label).update(made)
            return
        self.dismiss(made)

    @on(Input.Submitted)
    def input_submitted(self) -> None:
        self.action_submit()

    @on(Button.Pressed, "#ok")
    def ok(self) -> None:
        self.action_submit()

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


_QUICK_IDS = {"seats": "quick-seats", "level": "quick-level", "bots_after": "wait"}
"""The quick-game form's fields (:func:`~tilehall.clients.words.quick_fields`) by widget id."""


class QuickScreen(ModalScreen[dict[str, Any] | None]):
    """Quick game: pick a game (for a game of several seats, how many and the bots' level).

    Dismisses with the ``match`` request to send, or None. The server seats the
    player in an open quick-match room of that kind, or makes one; COMP players
    take the seats still open after ``bots_after`` seconds.
    """

    BINDINGS = [
        Binding("escape", "cancel", "cancel"),
        Binding("enter", "submit", "play"),
        *FIELD_KEYS,
    ]

    def __init__(self, games: dict[str, dict[str, Any]]) -> None:
        super().__init__()
        self.games = games

    def compose(self) -> ComposeResult:
        names = list(self.games)
        with Vertical(id="quick"):
            yield Label("Quick game", classes="title")
            with Horizontal(classes="row"):
                yield Label("game", classes="key")
                yield Choice(
                    names, labels=[self.games[n].get("title", n) for n in names], id="game"
                )
            yield Vertical(id="quick-fields")
            yield Label("", id="quick-note", classes="dim")
            with Horizontal(classes="buttons"):
                yield Button("Play", id="ok", variant="primary")
                yield Button("Cancel", id="cancel")

    async def on_mount(self) -> None:
        game = self.query_one("#game", Choice)
        await self._build(game.value)
        game.focus()

    @property
    def game(self) -> dict[str, Any]:
        return self.games[self.query_one("#game", Choice).value]

    async def _build(self, game_name: str) -> None:
        """The seat count, bot level and wait rows, for a game of several seats only."""
        game = self.games[game_name]
        fields = self.query_one("#quick-fields", Vertical)
        await fields.remove_children()
        rows = [
            Horizontal(
                Label(f.label, classes="key"),
                Choice(f.choices, labels=f.labels, value=f.default, id=_QUICK_IDS[f.key]),
                classes="row",
            )
            for f in quick_fields(game)
        ]
        await fields.mount_all(rows)
        self.query_one("#quick-note", Label).update(quick_note(game))

    @on(Choice.Changed, "#game")
    async def game_changed(self, event: Choice.Changed) -> None:
        if self.is_mounted and self.query("#quick-fields"):
            await self._build(event.value)

    def request(self) -> dict[str, Any]:
        """The ``match`` request the form says."""
        chosen = {
            f.key: self.query_one(f"#{_QUICK_IDS[f.key]}", Choice).value
            for f in quick_fields(self.game)
        }
        return quick_request(self.game, **chosen)

    def action_submit(self) -> None:
        self.dismiss(self.request())

    @on(Button.Pressed, "#ok")
    def ok(self) -> None:
        self.action_submit()

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class LobbyScreen(Screen[None]):
    """Rooms, live; create, play, watch, join by code, high scores."""

    BINDINGS = [
        Binding("n", "create", "new room"),
        Binding("m", "quick", "quick game: join an open room or start one; bots fill in"),
        Binding("enter,space", "play", "play the selected room (or resume your seat)"),
        Binding("w", "watch", "watch the selected room"),
        Binding("c", "code", "join a private room by its code"),
        Binding("d", "daily", "today's deal: the same deal for everyone, your result, its table"),
        Binding("s", "scores", "high scores"),
        Binding("h", "history", "your finished games, and their replays"),
        Binding("b", "leaderboard", "ratings: the leaderboard of a rated game"),
        Binding("r", "refresh", "refresh the list now"),
        Binding("p", "password", "set or change the password that keeps your name"),
        Binding("o", "sign_out", "sign out of this device"),
        Binding("O", "sign_out(True)", "sign out everywhere: every device's token taken back"),
        Binding("j", "cursor(1)", "", show=False),
        Binding("k", "cursor(-1)", "", show=False),
        Binding("question_mark", "help", "this help"),
        Binding("q", "app.quit", "quit"),
    ]

    ABOUT = (
        "Seats: a name, (free) for an open seat, (name?) for a seat kept for that player, "
        "name~ for a player who is away. Rooms where you hold a seat are marked *. Ratings "
        "(under the title) are Glicko-2: about 95% of the time a player's strength lies within "
        "two rd of their rating."
    )

    def __init__(self) -> None:
        super().__init__()
        self._shown: list[tuple[str, ...]] | None = None

    @property
    def tapp(self) -> Host:
        return cast("Host", self.app)

    @property
    def model(self) -> LobbyModel:
        """The app's: every frame feeds it, also while a game screen is on top."""
        return self.tapp.lobby

    def compose(self) -> ComposeResult:
        yield Static(id="lobby-title")
        yield Static(id="ratings")
        yield Static(id="daily")
        table: DataTable[str] = DataTable(id="rooms", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static("", id="empty")
        yield StatusLine("n new  m quick  enter play  w watch  c code  s scores  h history  ? q")

    def on_mount(self) -> None:
        table = self.query_one("#rooms", DataTable)
        table.add_column(" ", key="mine", width=1)
        table.add_column("room", key="room", width=10)
        table.add_column("game", key="game", width=9)
        table.add_column("seats", key="seats", width=22)
        table.add_column("watch", key="watch", width=5)
        table.add_column("status", key="status", width=20)
        title = Text.assemble(
            ("Tilehall", "bold"), "  ", (self.tapp.player, "bold"), f"  on {self.tapp.url}"
        )
        self.query_one("#lobby-title", Static).update(title)
        self.render_ratings()
        self.render_rooms()
        self.fetch_daily()
        self.action_refresh()
        self.set_interval(self.tapp.poll, self._poll)

    def on_screen_resume(self) -> None:
        self.action_refresh()
        self.fetch_ratings()
        self.fetch_daily()

    @work(exclusive=True, group="daily-line")
    async def fetch_daily(self) -> None:
        """Today's deal and the player's results of the day (:mod:`.daily`)."""
        line = await daily_line(self.tapp)
        if self.query("#daily"):
            self.query_one("#daily", Static).update(line)

    def render_ratings(self) -> None:
        """One line: the player's rating in each rated game (``welcome.ratings``, then each
        ``leaderboard`` reply's ``mine``)."""
        if not self.query("#ratings"):
            return
        ratings = self.model.ratings
        text = Text(no_wrap=True, overflow="ellipsis")
        if ratings:
            text.append("Rating  ", style="bold")
            for i, (game, rating) in enumerate(sorted(ratings.items())):
                text.append(("   " if i else "") + f"{self.model.title(game)} ")
                text.append(rating_text(rating))
            text.append("   b leaderboard", style="dim")
        widget = self.query_one("#ratings", Static)
        widget.display = bool(ratings)
        widget.update(text)

    @work(exclusive=True, group="ratings")
    async def fetch_ratings(self) -> None:
        """Back from a game: a rated one may have moved the player's ratings (the
        ``welcome`` said them as of the hello); a one-entry page brings ``mine``."""
        for game in list(self.model.ratings):
            reply = await self.tapp.call({"t": "leaderboard", "game": game, "limit": 1})
            if reply is None:
                return
            self.model.apply(reply)
        self.render_ratings()

    def _poll(self) -> None:
        if self.is_current:
            self.action_refresh()

    def action_refresh(self) -> None:
        self.fetch_rooms()

    @work(group="account")
    async def action_password(self) -> None:
        await self.app.push_screen_wait(SetPasswordScreen())

    @work(group="account")
    async def action_sign_out(self, everywhere: bool = False) -> None:
        """Ask first (:class:`SignOutScreen`); a name without a password is offered one."""
        ask = SignOutScreen(self.tapp.player, protected=self.tapp.protected, everywhere=everywhere)
        answer = await self.app.push_screen_wait(ask)
        if answer == "password":
            why = None if self.tapp.protected else "Set a password, then sign out if you wish."
            await self.app.push_screen_wait(SetPasswordScreen(why))
        elif answer == "out":
            await self.tapp.sign_out(everywhere=everywhere)

    @work(exclusive=True, group="rooms")
    async def fetch_rooms(self) -> None:
        conn = self.tapp.conn
        if conn is None or not conn.connected:
            return
        reply = await self.tapp.call({"t": "rooms", "limit": 200})
        if reply is not None:
            self.model.apply(reply)
            self.render_rooms()

    def on_frame(self, message: Frame) -> None:
        msg = message.msg
        if msg["t"] == "room" and not msg.get("private"):
            self.render_rooms()  # the app's model has it already
        elif msg["t"] == "_reconnected":
            self.action_refresh()

    def render_rooms(self) -> None:
        if not self.query("#rooms"):
            return  # a reply that arrives while the app closes
        rooms = self.model.ordered()
        rows: list[tuple[str, ...]] = [
            (
                "*" if room["room"] in self.model.mine else "",
                str(room["room"]),
                str(room.get("game", "?")),
                seats_text(room) if room.get("seats") else "(private)",
                str(room.get("spectators", 0)),
                room_state(room),
            )
            for room in rooms
        ]
        if rows == self._shown:
            return  # polled every few seconds: redraw only what changed
        self._shown = rows
        table = self.query_one("#rooms", DataTable)
        keep = self.selected_id()
        table.clear()
        for row in rows:
            table.add_row(*row, key=row[1])
        ids = [row[1] for row in rows]
        if keep in ids:
            table.move_cursor(row=ids.index(keep), animate=False)
        self.query_one("#empty", Static).update(
            "" if rows else "No rooms yet: press n to create one, c to join by code."
        )

    def selected_id(self) -> str | None:
        table = self.query_one("#rooms", DataTable)
        if not table.row_count:
            return None
        try:
            key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key
        except Exception:  # the cursor may point past a shrunk table
            return None
        return str(key.value) if key.value is not None else None

    def selected(self) -> dict[str, Any] | None:
        rid = self.selected_id()
        if rid is None:
            return None
        return self.model.rooms.get(rid) or {"room": rid, "seats": []}

    def action_cursor(self, delta: int) -> None:
        table = self.query_one("#rooms", DataTable)
        table.move_cursor(row=table.cursor_row + delta)

    @on(DataTable.RowSelected, "#rooms")
    def row_selected(self) -> None:
        self.action_play()

    def action_play(self) -> None:
        room = self.selected()
        if room is None:
            self.notify("No room selected: n creates one.")
            return
        mine = room["room"] in self.model.mine
        free = [s for s in room.get("seats", []) if not s.get("taken")]
        if not mine and room.get("seats") and not free:
            self.tapp.refuse("no free seat there; w watches it")
            return
        self.enter({"t": "join", "room": room["room"]}, room)

    def action_watch(self) -> None:
        room = self.selected()
        if room is not None:
            self.enter({"t": "watch", "room": room["room"]}, room)

    @work(group="enter")
    async def enter(self, request: dict[str, Any], summary: dict[str, Any] | None) -> None:
        rid = str(request["room"])
        joined = await self.tapp.call(request, refused=lambda refusal: self.gone(rid, refusal))
        if joined is not None:
            await self.tapp.enter_room(joined, summary)

    def gone(self, rid: str, refusal: ServerError) -> bool:
        """A room of the list is no more (``unknown_room``): take its row away, say why."""
        if refusal.code != ErrorCode.UNKNOWN_ROOM:
            return False
        self.model.forget(rid)
        self.render_rooms()
        self.tapp.refuse(words.ROOM_GONE)
        return True

    @work(group="enter")
    async def action_create(self) -> None:
        request = await self.app.push_screen_wait(CreateScreen(self.tapp.games, self.tapp.player))
        if request is None:
            return
        created = await self.tapp.call(request)
        if created is None:
            return
        code = created.get("code")
        if code:
            self.notify(f"Private room; its code is {code}", timeout=10)
        seats = request.get("seats")
        me = self.tapp.player.casefold()
        play = seats is None or any((s or "").casefold() == me for s in seats)
        verb = "join" if play else "watch"
        joined = await self.tapp.call({"t": verb, "room": created["room"]})
        if joined is not None:
            await self.tapp.enter_room(joined, None, code)

    @work(group="enter")
    async def action_code(self) -> None:
        code = await self.app.push_screen_wait(CodeScreen())
        if not code:
            return
        joined = await self.tapp.call({"t": "join", "code": code})
        if joined is not None:
            await self.tapp.enter_room(joined, None, code)

    @work(group="enter")
    async def action_quick(self) -> None:
        request = await self.app.push_screen_wait(QuickScreen(self.tapp.games))
        if request is None:
            return
        joined = await self.tapp.call(request)
        if joined is not None:
            await self.tapp.enter_room(joined)

    def action_daily(self) -> None:
        if not any(g.get("daily") for g in self.tapp.games.values()):
            self.notify("This server has no daily deal.")
            return
        self.app.push_screen(DailyScreen(self.tapp.games))

    def action_scores(self) -> None:
        self.app.push_screen(ScoresScreen(self.tapp.games))

    def action_history(self) -> None:
        self.app.push_screen(HistoryScreen())

    def action_leaderboard(self) -> None:
        rated = [name for name, game in self.tapp.games.items() if game.get("rated")]
        if not rated:
            self.notify("No game on this server is rated.")
            return
        self.app.push_screen(LeaderboardScreen(rated))

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen("Lobby", keys_of(self), self.ABOUT))


class ScoresScreen(Screen[None]):
    """High-score tables: pick a game and a table; your own bests below."""

    BINDINGS = [
        Binding("g", "game(1)", "next game"),
        Binding("t", "table(1)", "next table"),
        Binding("question_mark", "help", "this help"),
        Binding("q,escape", "back", "back to the lobby"),
    ]

    def __init__(self, games: dict[str, dict[str, Any]]) -> None:
        super().__init__()
        self.games = games
        self.tables: list[str] = []
        self.table_name: str | None = None

    @property
    def tapp(self) -> Host:
        return cast("Host", self.app)

    def compose(self) -> ComposeResult:
        names = list(self.games)
        yield Static(Text("High scores", style="bold"), id="scores-title")
        with Horizontal(classes="row"):
            yield Label("game", classes="key")
            yield Choice(names, labels=[self.games[n].get("title", n) for n in names], id="game")
        with Horizontal(classes="row"):
            yield Label("table", classes="key")
            yield Static("-", id="table")
        yield DataTable(id="entries", cursor_type="row", zebra_stripes=True)
        yield Static("", id="mine")
        yield StatusLine("g game  t table  q back")

    def on_mount(self) -> None:
        table = self.query_one("#entries", DataTable)
        for label, width in (("#", 3), ("name", 16), ("score", 8), ("date", 10), ("detail", 30)):
            table.add_column(label, width=width)
        self.load()

    @on(Choice.Changed, "#game")
    def game_changed(self) -> None:
        self.table_name = None
        if self.is_mounted:
            self.load()

    def action_game(self, delta: int) -> None:
        self.query_one("#game", Choice).action_step(delta)

    def action_table(self, delta: int) -> None:
        if self.tables:
            at = self.tables.index(self.table_name) if self.table_name in self.tables else -1
            self.table_name = self.tables[(at + delta) % len(self.tables)]
            self.load()

    @work(exclusive=True, group="scores")
    async def load(self) -> None:
        msg: dict[str, Any] = {"t": "scores", "game": self.query_one("#game", Choice).value}
        if self.table_name:
            msg["table"] = self.table_name
        reply = await self.tapp.call(msg)
        if reply is not None:
            self.show(reply)

    def show(self, reply: dict[str, Any]) -> None:
        if not self.query("#entries"):
            return  # the screen closed meanwhile
        self.tables = list(reply.get("tables") or [])
        self.table_name = reply.get("table")
        names = "  ".join(f"[{t}]" if t == self.table_name else t for t in self.tables)
        # A Text, not a str: "[top]" would be read as Rich markup and vanish.
        self.query_one("#table", Static).update(Text(names or "(no games recorded yet)"))
        table = self.query_one("#entries", DataTable)
        table.clear()
        for rank, entry in enumerate(reply.get("entries") or [], 1):
            table.add_row(
                str(rank),
                entry["name"],
                str(entry["score"]),
                _date(entry.get("at")),
                detail_text(entry.get("detail")),
            )
        mine = reply.get("mine") or []
        lines = [f"your best: {m['score']} in {m['table']} ({_date(m.get('at'))})" for m in mine]
        self.query_one("#mine", Static).update("\n".join(lines) or "you have no score here yet")

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen("High scores", keys_of(self)))

    def action_back(self) -> None:
        self.dismiss(None)


class LeaderboardScreen(PagedScreen):
    """A rated game's players, best rating first, a page at a time; the player's own below.

    Pages follow the reply's ``next`` cursor; the cursors of the pages before
    are kept, so ``p`` goes back without the server keeping anything.
    """

    BINDINGS = [
        Binding("g", "game(1)", "next rated game"),
        Binding("n,pagedown", "page(1)", "next page"),
        Binding("p,pageup", "page(-1)", "previous page"),
        Binding("question_mark", "help", "this help"),
        Binding("q,escape", "back", "back to the lobby"),
    ]

    def __init__(self, games: list[str], *, page: int = 20) -> None:
        super().__init__(page=page)
        self.games = games
        self.game = games[0]

    def compose(self) -> ComposeResult:
        yield Static(id="board-title")
        yield DataTable(id="board", cursor_type="row", zebra_stripes=True)
        yield Static("", id="board-mine")
        yield StatusLine("n next page  p previous  g game  q back")

    def on_mount(self) -> None:
        table = self.query_one("#board", DataTable)
        for label, width in (("#", 4), ("name", 24), ("rating", 7), ("±", 5), ("games", 6)):
            table.add_column(label, width=width)
        self.load()

    def action_game(self, delta: int) -> None:
        at = self.games.index(self.game)
        self.game = self.games[(at + delta) % len(self.games)]
        self.restart()

    def request(self) -> dict[str, Any]:
        return {"t": "leaderboard", "game": self.game}

    def show(self, reply: dict[str, Any]) -> None:
        if not self.query("#board"):
            return  # the screen closed meanwhile
        self.next = reply.get("next")
        page = len(self.cursors)
        title = Text.assemble(
            ("Ratings  ", "bold"), (self.tapp.lobby.title(self.game), "bold"), f"  page {page}"
        )
        if self.next is not None:
            title.append("  (n: more)", style="dim")
        self.query_one("#board-title", Static).update(title)
        table = self.query_one("#board", DataTable)
        table.clear()
        me = self.tapp.player.casefold()
        first = (page - 1) * self.page_size + 1
        for rank, entry in enumerate(reply.get("entries") or [], first):
            style = "bold reverse" if entry["name"].casefold() == me else ""
            table.add_row(
                *(
                    Text(cell, style=style)
                    for cell in (
                        str(rank),
                        entry["name"],
                        f"{entry['rating']:.0f}",
                        f"{2 * entry['rd']:.0f}",  # the margin of rating_text
                        str(entry["games"]),
                    )
                )
            )
        mine = reply.get("mine")
        words = "no one has played a rated game yet" if not table.row_count else ""
        if mine:
            words = f"you: {rating_text(mine)}"
            if not mine.get("games"):
                words += "; a rated game puts you on the board"
        bots = (self.tapp.games.get(self.game) or {}).get("bot_ratings") or {}
        if bots:
            levels = ", ".join(f"{level} {r['rating']:.0f}" for level, r in bots.items())
            words += f"\nCOMP counts at a fixed rating: {levels}"
        self.query_one("#board-mine", Static).update(words)

    def action_help(self) -> None:
        about = (
            "Glicko-2 ratings: a new player starts at 1500 with rd 350; about 95% of the time "
            "a player's strength lies within two rd of their rating. COMP players count at "
            "fixed ratings; games a stand-in played for you are not rated."
        )
        self.app.push_screen(HelpScreen("Ratings", keys_of(self), about))


def _date(at: float | None) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(at)) if at else "-"
