"""Helpers to drive the terminal client with Textual's pilot against a real server."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, TypeVar

from rich.text import Text
from textual.message import Message
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Static
from tilehall.clients.cli.app import Frame, TilehallApp
from tilehall.clients.cli.games.base import GameScreen
from tilehall.clients.cli.lobby import CreateScreen, LobbyScreen
from tilehall.clients.cli.widgets import Choice
from tilehall.clients.connection import Connection
from tilehall.server.games import all_games

S = TypeVar("S", bound=Screen[Any])


async def until(pilot: Pilot[Any], cond: Callable[[], object], timeout: float = 8.0) -> None:
    """Let the app run until ``cond()`` is true; fail after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {cond}")
        await pilot.pause(0.02)


async def screen_of(pilot: Pilot[Any], kind: type[S], timeout: float = 8.0) -> S:
    """Wait until the top screen is a ``kind``, mounted with its widgets, and return it.

    A screen becomes the top one before its children are mounted; on a busy
    machine a query straight after would find nothing.
    """
    await until(
        pilot, lambda: isinstance(pilot.app.screen, kind) and pilot.app.screen.is_mounted, timeout
    )
    screen = pilot.app.screen
    assert isinstance(screen, kind)
    return screen


async def create_room(
    pilot: Pilot[Any], game: str, *, seats: list[str] | None = None, **fields: object
) -> None:
    """From the lobby, fill the create form (game, option fields, seats) and submit it."""
    await screen_of(pilot, LobbyScreen)
    await pilot.press("n")
    form = await screen_of(pilot, CreateScreen)
    choice = form.query_one("#game", Choice)
    if choice.value != game:
        choice.index = choice.values.index(game) - 1
        await pilot.press("right")  # the last step by key, as a player would
    assert choice.value == game
    wanted = [f"#opt-{name}" for name in fields] + (["#nseats"] if seats else [])
    await until(pilot, lambda: all(form.query(w) for w in wanted))
    await pilot.pause()
    for name, value in fields.items():
        widget = form.query_one(f"#opt-{name}")
        if isinstance(widget, Choice):
            widget.index = widget.values.index(value)
        else:
            widget.value = value  # type: ignore[attr-defined]
    if seats is not None:
        form.query_one("#nseats", Choice).index = len(seats) - form.game["min_seats"]
        for i, name in enumerate(seats):
            form.query_one(f"#seat-{i}").value = name  # type: ignore[attr-defined]
    form.action_submit()


async def go_to(pilot: Pilot[Any], screen: GameScreen, target: tuple[int, int]) -> None:
    """Move the cursor to ``target``; the last step or two by h/j/k/l, as a player would.

    Each key press waits for the app to settle, which on a busy machine costs
    ~0.1 s, so the rest of the way is a jump.
    """
    r, c = screen.cursor
    tr, tc = target
    near_r = tr - 1 if tr > r else tr + 1 if tr < r else tr
    near_c = tc - 1 if tc > c else tc + 1 if tc < c else tc
    screen.set_cursor((near_r, near_c))
    keys = ["j" if tr > near_r else "k"] * abs(tr - near_r)
    keys += ["l" if tc > near_c else "h"] * abs(tc - near_c)
    await pilot.press(*keys)
    assert screen.cursor == target


def grid_text(screen: GameScreen) -> list[str]:
    """The board as drawn: one string per cell row (first line of each cell)."""
    grid = screen.grid
    left, top = grid.label_size
    lines = grid.render().plain.split("\n")[top:]
    height = grid.cell_size[1]
    return [line[left:] for line in lines[::height]]


def cell_text(screen: GameScreen, cell: tuple[int, int]) -> str:
    """What the board shows in one cell."""
    w = screen.grid.cell_size[0]
    row = grid_text(screen)[cell[0] + screen.MARGIN]
    col = cell[1] + screen.MARGIN
    return row[col * w : (col + 1) * w].strip(" []")


def app_for(url: str, name: str | None = "ada", **kw: Any) -> TilehallApp:
    return TilehallApp(url, name=name, poll=0.2, **kw)


def text_of(screen: Screen[Any], selector: str) -> str:
    """The plain text a Static shows."""
    content = screen.query_one(selector, Static).content
    return content.plain if isinstance(content, Text) else str(content)


class Events:
    """Every game event the app received, in order (a message hook for ``run_test``).

    Screens keep only the last update's events; a test that acts while a bot is
    quick to answer looks here instead.
    """

    def __init__(self) -> None:
        self.seen: dict[tuple[str, int], list[dict[str, Any]]] = {}
        # The fields that events sent as [name, value, ...] carry, from the games' templates.
        self.given = {
            name: [f for f, path in template.items() if path is None]
            for game in all_games()
            for name, template in game.derived_events.items()
            if None in template.values()
        }

    def __call__(self, message: Message) -> None:
        if isinstance(message, Frame) and message.msg.get("t") == "update":
            msg = message.msg
            self.seen[(msg["room"], msg["seq"])] = [self._read(e) for e in msg["events"]]

    def _read(self, event: Any) -> dict[str, Any]:
        if isinstance(event, str):
            return {"e": event}
        if isinstance(event, list):
            return {"e": event[0], **dict(zip(self.given[event[0]], event[1:], strict=True))}
        return dict(event)

    def of(self, kind: str) -> list[dict[str, Any]]:
        """The events of ``kind`` as the frames carried them: one that a compact update
        sent by name (``joined.derived``) is ``{"e": kind}`` here, one sent as its values
        has those fields only; the screen's model holds them in full."""
        return [ev for key in sorted(self.seen) for ev in self.seen[key] if ev.get("e") == kind]


async def finish_game(conn: Connection, game: str, *, seats: int | None = None) -> str:
    """Quick-match ``game`` (COMP takes the other seats at once), quit it, and wait until
    the server has stored its result (``history`` lists it); the room id."""
    request: dict[str, Any] = {"t": "match", "game": game, "bots_after": 0}
    if seats is not None:
        request["seats"] = seats
    joined = await conn.request(request)
    room: str = joined["room"]
    view = joined["view"]
    while view["status"] != "playing":
        msg = await conn.next_pushed(5)
        if msg.get("room") == room and msg["t"] in ("update", "_rejoined"):
            view = msg["view"]
    # Mathable's quit is a vote; against COMP ours is every human seat's.
    await conn.act(room, {"do": "quit", "vote": True} if "quit_votes" in view else {"do": "quit"})
    for _ in range(200):
        page = await conn.request({"t": "history", "limit": 1})
        if page["rooms"] and page["rooms"][0]["room"] == room:
            return room
        await asyncio.sleep(0.02)
    raise AssertionError(f"room {room} never reached the history")
