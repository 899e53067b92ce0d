"""Play one seat of one room from the views the server sends, like any remote player.

The loop is deliberately dumb: wait until the latest view says it is our seat's
turn, ask the bot for an action (off the event loop, since a search may take a
while), send it, and take the next view from the ``update`` that answers it.
It knows no rules: a refused action is counted and the bot is asked again on
the same view; a bot that keeps failing, or stays silent on its own turn, makes
the game be abandoned rather than hang.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from tilehall.clients.connection import Connection, ConnectionLost, ServerError
from tilehall.clients.model import RoomModel
from tilehall.server.bots.base import Bot

__all__ = ["BotStuck", "GameResult", "Think", "play_room", "think_in_thread"]

Think = Callable[[Bot, dict[str, Any]], Awaitable[dict[str, Any] | None]]
"""How a bot's ``choose`` is called: in a worker thread by default."""

MAX_REFUSALS = 3
"""Refused actions in a row (on one view) before the bot gives the game up."""

LATE = frozenset({"not_your_turn", "stale", "game_over"})
"""Refusals that mean our view is behind the room's, not that the bot is wrong."""

GIVE_UP_SECONDS = 3.0
"""How long an interrupted game may take to quit and leave its room."""


class BotStuck(Exception):
    """The bot has no acceptable move: refused too often, or silent on its own turn."""


@dataclass(slots=True, kw_only=True)
class GameResult:
    """How one game went for the seat this client played."""

    room: str
    game: str
    seat: int
    status: str
    """Where the room stands for us: ``playing`` while we play it, ``over`` once it ended
    on the server; ``abandoned`` when the bot gave up, ``capped`` when we stopped at
    ``max_moves`` and ``interrupted`` when we were stopped (Ctrl-C), and the game
    plays on without us (it has no ``quit``, or a quit vote did not end it)."""
    scores: list[int]
    result: dict[str, Any] | None
    stopped: str | None = None
    """Why we stopped before the game's own end: ``max_moves`` or ``interrupted`` (then
    ``status`` says whether our quit ended it); None when we played until it ended."""
    why: str = ""
    """Why the bot gave up (``abandoned``)."""
    moves: int = 0
    """Actions sent and accepted."""
    refused: int = 0
    """Actions the server refused (each with its code in ``errors``)."""
    errors: dict[str, int] = field(default_factory=dict)
    think: float = 0.0
    """Seconds spent in ``choose``."""
    seconds: float = 0.0

    @property
    def score(self) -> int:
        """This seat's final (or last known) score."""
        return self.scores[self.seat] if self.seat < len(self.scores) else 0

    def as_json(self) -> dict[str, Any]:
        return {
            "room": self.room,
            "game": self.game,
            "seat": self.seat,
            "status": self.status,
            "stopped": self.stopped,
            "why": self.why or None,
            "score": self.score,
            "scores": self.scores,
            "moves": self.moves,
            "refused": self.refused,
            "errors": self.errors,
            "think_s": round(self.think, 4),
            "seconds": round(self.seconds, 3),
            "result": self.result,
        }


async def think_in_thread(bot: Bot, view: dict[str, Any]) -> dict[str, Any] | None:
    """Run ``bot.choose`` in a worker thread so the connection keeps being served."""
    return await asyncio.to_thread(bot.choose, view)


async def play_room(
    conn: Connection,
    room: str,
    bot: Bot,
    *,
    seat: int | None = None,
    think: Think = think_in_thread,
    idle_timeout: float = 120.0,
    on_update: Callable[[dict[str, Any]], None] | None = None,
    max_moves: int | None = None,
    on_start: Callable[[GameResult], None] | None = None,
) -> GameResult:
    """Join ``room`` (at ``seat``, or any free seat) and play it to the end.

    This must be the only reader of ``conn``'s pushed frames while it runs.

    Args:
        conn: an open connection.
        room: the room id.
        bot: decides every action of our seat from its view.
        seat: the seat to take; None lets the server pick (or resumes ours).
        think: how ``bot.choose`` is run (a worker thread by default).
        idle_timeout: seconds without any update, while waiting for others or
            with a bot that has nothing to say, before the game is given up.
        on_update: called with every new ``update`` (for progress output).
        max_moves: stop after this many accepted actions: send ``quit`` (which ends
            a game of one seat, Lines and Ishido included, where the score stands;
            in Mathable it is our vote, which ends the game once every other human
            seat has voted too) and leave the room if that did not end it. None: no
            limit.
        on_start: called once joined, with the result this game will return,
            which is kept up to date while it plays (moves, scores): for progress.

    Returns:
        The game's end as this seat saw it (``status`` ``over``, ``capped`` or ``abandoned``).

    Raises:
        ServerError: the join was refused.
        ConnectionLost: the connection closed for good.
        asyncio.CancelledError: we were cancelled (Ctrl-C); the game was first
            stopped as at ``max_moves``, and ``on_start``'s result says so.
    """
    started = time.monotonic()
    joined = await conn.join(room, seat)
    state = _Seat(RoomModel.from_joined(joined), seat=joined["seat"])
    out = GameResult(
        room=room,
        game=state.view.get("game", bot.game),
        seat=state.seat,
        status="playing",
        scores=list(state.view.get("scores", [])),
        result=None,
    )
    if on_start is not None:
        on_start(out)
    try:
        while state.view.get("status") != "over":
            out.scores = list(state.view.get("scores", out.scores))
            if max_moves is not None and out.moves >= max_moves:
                out.stopped = "max_moves"
                await _give_up(conn, state)
                break
            if state.my_turn() and await _take_turn(conn, bot, state, out, think):
                continue
            await _next_view(conn, state, idle_timeout, on_update)
        out.status = "over" if state.view.get("status") == "over" else "capped"
    except BotStuck as exc:
        out.status, out.why = "abandoned", str(exc)
    except asyncio.CancelledError:
        # Stopped from outside: end the game as the move cap would rather than
        # leave it waiting for us for good; a second interrupt cuts this short.
        out.stopped = "interrupted"
        with contextlib.suppress(Exception):
            async with asyncio.timeout(GIVE_UP_SECONDS):
                await _give_up(conn, state)
        _finish(out, state, started, "interrupted")
        raise
    _finish(out, state, started, out.status)
    return out


def _finish(out: GameResult, state: _Seat, started: float, status: str) -> None:
    over = state.view.get("status") == "over"
    out.status = "over" if over else status
    out.scores = list(state.view.get("scores", out.scores))
    out.result = state.view.get("result")
    out.seconds = time.monotonic() - started


@dataclass(slots=True)
class _Seat:
    """What this client knows of the room (the shared model), and how the bot fares on it."""

    model: RoomModel
    seat: int
    refusals: int = 0
    silent_since: float | None = None

    @property
    def room(self) -> str:
        return self.model.room

    @property
    def view(self) -> dict[str, Any]:
        return self.model.view

    def my_turn(self) -> bool:
        return self.model.my_turn

    def take(self, msg: dict[str, Any]) -> bool:
        """Take an ``update`` or ``_rejoined`` by the model's rule; True for a new view.

        A new view gives the bot a fresh start: its refusals and silence were about the old one.
        """
        if not self.model.apply(msg):
            return False
        self.refusals, self.silent_since = 0, None
        return True


async def _take_turn(
    conn: Connection, bot: Bot, state: _Seat, out: GameResult, think: Think
) -> bool:
    """Ask the bot and send its action; True when the view changed (ask again)."""
    t0 = time.monotonic()
    action = await think(bot, state.view)
    out.think += time.monotonic() - t0
    if action is None:
        # A bot may wait for a clock on its own turn; it may not wait forever.
        state.silent_since = state.silent_since or time.monotonic()
        return False
    try:
        update = await conn.act(state.room, action)
    except ServerError as exc:
        out.refused += 1
        out.errors[exc.code] = out.errors.get(exc.code, 0) + 1
        state.refusals += 1
        if state.refusals >= MAX_REFUSALS:
            raise BotStuck(f"{exc.code}: {exc.message}") from None
        # Out of turn or stale: our view is behind, and the update that says so
        # is on its way. Anything else: ask again, the bot may pick otherwise.
        return exc.code not in LATE
    except (ConnectionLost, TimeoutError):
        return False  # the rejoin brings the view back
    assert update is not None
    out.moves += 1
    state.take(update)
    return True


async def _give_up(conn: Connection, state: _Seat) -> None:
    """The move cap: ``quit`` where the game has it, then leave the room if still playing.

    A game whose view counts ``quit_votes`` (Mathable) toggles a vote with a bare
    ``quit``: ours is set, never withdrawn.
    """
    action: dict[str, Any] = {"do": "quit"}
    if "quit_votes" in state.view:
        action["vote"] = True
    try:
        update = await conn.act(state.room, action)
    except ServerError:
        update = None  # no such action in this game, or not now
    except (ConnectionLost, TimeoutError):
        return
    if update is not None and not state.take(update):
        # Compact updates: the reply patches a view we reach once the updates before
        # it, already queued, are taken.
        with contextlib.suppress(TimeoutError, BotStuck, ConnectionLost):
            while state.model.seq < update["seq"]:
                await _next_view(conn, state, 2.0, None)
    if state.view.get("status") != "over":
        with contextlib.suppress(ServerError, ConnectionLost, TimeoutError):
            await conn.request({"t": "leave", "room": state.room})


async def _next_view(
    conn: Connection,
    state: _Seat,
    idle_timeout: float,
    on_update: Callable[[dict[str, Any]], None] | None,
) -> None:
    """Wait for the next frame that changes our view of the room."""
    if state.silent_since is not None and time.monotonic() - state.silent_since > idle_timeout:
        raise BotStuck("the bot had nothing to play on its own turn")
    timeout = 1.0 if state.silent_since is not None else idle_timeout
    try:
        msg = await conn.next_pushed(timeout)
    except TimeoutError:
        if state.silent_since is not None:
            return
        raise BotStuck(f"nothing happened in room {state.room} for {idle_timeout:.0f} s") from None
    t = msg["t"]
    if t == "_closed":
        raise ConnectionLost("the connection closed")
    if msg.get("room") != state.room or t not in ("update", "_rejoined"):
        return
    if state.take(msg) and t == "update" and on_update is not None:
        on_update(msg)
    if state.model.rejoin_due():
        with contextlib.suppress(ServerError, ConnectionLost, TimeoutError):
            await conn.rejoin(state.room)
