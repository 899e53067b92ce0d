"""Today's deal in the terminal: the day's table and your result (``d`` in the lobby), and
the result to share when a game of the deal ends.

Kept in one module beside the lobby: the lobby gains a key and a line, and a game
screen a call when its game ends (:mod:`.share`), and nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Label, Static
from tilehall.clients.cli.help import HelpScreen, keys_of
from tilehall.clients.cli.history import replay_screen
from tilehall.clients.cli.scores import detail_text
from tilehall.clients.cli.widgets import Choice, StatusLine
from tilehall.clients.connection import ConnectionLost, ServerError
from tilehall.clients.daily import daily_games, day_before, day_table, try_words

if TYPE_CHECKING:
    from tilehall.clients.cli.host import Host

__all__ = ["DailyScreen", "daily_line"]


class DailyScreen(Screen[None]):
    """Today's deal: a game's table of the day, your result, and ``enter`` to play it."""

    BINDINGS = [
        Binding(
            "enter,space",
            "play",
            "play today's deal (your try, then practice); replay from yesterday's",
        ),
        Binding("g", "game(1)", "next game"),
        Binding("y", "yesterday", "yesterday's best three (enter replays one), or today's again"),
        Binding("c", "copy", "copy your result to share (where the terminal lets us)"),
        Binding("question_mark", "help", "this help"),
        Binding("q,escape", "back", "back to the lobby"),
    ]

    ABOUT = (
        "One deal a day for each solo game, the same for every player of this server (UTC "
        "days). Your first game of the day's deal is the one on its table; later ones are "
        "practice. Others' games of the day can be replayed once the day is over."
    )

    def __init__(self, games: dict[str, dict[str, Any]]) -> None:
        super().__init__()
        self.games = games
        self.share = ""
        self.today = ""
        """Today's day (UTC), as the server last said it."""
        self.past: list[dict[str, Any]] | None = None
        """Yesterday's best three while shown (``y``), whose games enter replays."""

    @property
    def tapp(self) -> Host:
        return cast("Host", self.app)

    def compose(self) -> ComposeResult:
        names = daily_games(self.games)
        yield Static(Text("Today's deal", style="bold"), id="daily-title")
        with Horizontal(classes="row"):
            yield Label("game", classes="key")
            yield Choice(names, labels=[self.games[n].get("title", n) for n in names], id="game")
        yield Static("", id="daily-mine")
        yield DataTable(id="daily-entries", cursor_type="row", zebra_stripes=True)
        yield Static("", id="daily-share")
        yield StatusLine("enter play  g game  y yesterday  c copy  q back")

    def on_mount(self) -> None:
        table = self.query_one("#daily-entries", DataTable)
        for label, width in (("#", 3), ("name", 16), ("score", 8), ("detail", 30)):
            table.add_column(label, width=width)
        self.load()

    def on_screen_resume(self) -> None:
        if self.past is None:  # back from a replay of yesterday's: still yesterday's
            self.load()  # back from a game of the deal: its result is on the table now

    @property
    def game(self) -> str:
        return str(self.query_one("#game", Choice).value)

    @on(Choice.Changed, "#game")
    def game_changed(self) -> None:
        if self.is_mounted:
            self.load()

    def action_game(self, delta: int) -> None:
        self.query_one("#game", Choice).action_step(delta)

    @work(exclusive=True, group="daily")
    async def load(self) -> None:
        conn = self.tapp.conn
        if conn is None:
            return
        self.past = None
        try:
            reply = await day_table(conn.request, self.game)
        except (ServerError, ConnectionLost, TimeoutError) as exc:
            self.notify(f"Today's deal: {exc}", severity="warning")
            return
        self.show(reply)

    def show(self, reply: dict[str, Any]) -> None:
        if not self.query("#daily-entries"):
            return  # the screen closed meanwhile
        table = self.query_one("#daily-entries", DataTable)
        table.clear()
        for rank, entry in enumerate(reply.get("entries") or [], 1):
            table.add_row(
                str(rank), entry["name"], str(entry["score"]), detail_text(entry["detail"])
            )
        title = self.games[self.game].get("title", self.game)
        mine = reply.get("mine") or []
        day = reply.get("day", "today")
        self.today = str(reply.get("day") or "")
        words = (
            f"{title}, deal of {day}: your result {mine[0]['score']}; enter plays it again as "
            "practice"
            if mine
            else f"{title}, deal of {day}: you have not played it yet; enter plays your try"
        )
        self.query_one("#daily-mine", Static).update(Text(words))
        self.share = str(reply.get("share") or "")
        self.query_one("#daily-share", Static).update(Text(self.share, style="italic"))

    @work(exclusive=True, group="daily")
    async def action_yesterday(self) -> None:
        """Yesterday's best three, a replay each (that day is over); ``y`` again: today's."""
        conn = self.tapp.conn
        if self.past is not None or conn is None or not self.today:
            self.load()
            return
        day = day_before(self.today)
        try:
            reply = await day_table(conn.request, self.game, day)
        except (ServerError, ConnectionLost, TimeoutError) as exc:
            self.notify(f"No table of {day}: {exc}", severity="warning")
            return
        self.past = (reply.get("entries") or [])[:3] if reply.get("replays") else []
        table = self.query_one("#daily-entries", DataTable)
        table.clear()
        for rank, entry in enumerate(self.past, 1):
            table.add_row(
                str(rank), entry["name"], str(entry["score"]), detail_text(entry["detail"])
            )
        words = f"Yesterday's deal ({day}): " + (
            "the best three; enter replays the one selected, y shows today's"
            if self.past
            else "nobody played it"
        )
        self.query_one("#daily-mine", Static).update(Text(words))
        self.query_one("#daily-share", Static).update("")

    @work(group="enter")
    async def action_play(self) -> None:
        if self.past is not None:  # yesterday's shown: enter replays the game selected
            if self.past:
                row = self.query_one("#daily-entries", DataTable).cursor_row
                room = self.past[min(max(row, 0), len(self.past) - 1)]["room"]
                await self.app.push_screen(replay_screen(self.game, room))
            return
        created = await self.tapp.call({"t": "create", "game": self.game, "daily": True})
        if created is None:
            return
        self.notify(try_words(created), timeout=8)  # said before the game starts
        joined = await self.tapp.call({"t": "join", "room": created["room"]})
        if joined is not None:
            await self.tapp.enter_room(joined, None, created.get("code"))

    def action_copy(self) -> None:
        if self.share:
            self.app.copy_to_clipboard(self.share)
            self.notify("Copied (if your terminal passes it on):\n" + self.share)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen("Today's deal", keys_of(self), self.ABOUT))

    def action_back(self) -> None:
        self.dismiss(None)


async def daily_line(app: Host) -> Text:
    """The lobby's line on today's deal: the key, and your results of the day so far."""
    conn = app.conn
    names = daily_games(app.games)
    if conn is None or not names:
        return Text()
    done = []
    for name in names:
        try:
            mine = (await day_table(conn.request, name)).get("mine") or []
        except (ServerError, ConnectionLost, TimeoutError):
            return Text()  # a lobby line is not worth a message: the next visit asks again
        if mine:
            done.append(f"{app.games[name].get('title', name)} {mine[0]['score']}")
    line = Text.assemble(("Today's deal", "bold"), "  d  ")
    line.append("yours today: " + ", ".join(done) if done else "one deal a day for each solo game")
    return line
