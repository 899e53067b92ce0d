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

from clients.connection import Connection, ConnectionLost, ServerError
from server.bots.base import Bot

__all__ = ["BotStuck", "GameResult", "Think", "play_room", "think_in_thread"]

Think = Callable[[Bot, dict[str, Any]], Awaitable[dict[str, Any] | None]]
"""How a bot's ``choose`` is called: in a worker thread by default."""

MAX_REFUSALS = 3
"""Refused actions in a row (on one view) before the bot gives the game up."""

LATE = frozenset({"not_your_turn", "stale", "game_over"})
"""Refusals that mean our view is behind the room's, not that the bot is wrong."""


class BotStuck(Exception):
    """The bot has no acceptable move: refused too often, or silent on its own turn."""


@dataclass(slots=True, kw_only=True)
class GameResult:
    """How one game went for the seat this client played."""

    room: str
    game: str
    seat: int
    status: str
    """``over``; ``abandoned`` when the bot gave up; ``capped`` when ``max_moves`` was
    reached and the game has no ``quit`` that ends it."""
    scores: list[int]
    result: dict[str, Any] | None
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
            a Match-It or LinkSame game, where a strong bot never runs out of
            sheets) and leave the room if that did not end it. None: no limit.

    Returns:
        The game's end as this seat saw it (``status`` ``over``, ``capped`` or ``abandoned``).

    Raises:
        ServerError: the join was refused.
        ConnectionLost: the connection closed for good.
    """
    started = time.monotonic()
    joined = await conn.join(room, seat)
    state = _Seat(room=room, seat=joined["seat"], view=joined["view"], seq=joined["seq"])
    out = GameResult(
        room=room,
        game=state.view.get("game", bot.game),
        seat=state.seat,
        status="playing",
        scores=list(state.view.get("scores", [])),
        result=None,
    )
    try:
        while state.view.get("status") != "over":
            if max_moves is not None and out.moves >= max_moves:
                await _give_up(conn, state)
                break
            if state.my_turn() and await _take_turn(conn, bot, state, out, think):
                continue
            await _next_view(conn, state, idle_timeout, on_update)
        out.status = "over" if state.view.get("status") == "over" else "capped"
    except BotStuck:
        out.status = "abandoned"
    out.scores = list(state.view.get("scores", out.scores))
    out.result = state.view.get("result")
    out.seconds = time.monotonic() - started
    return out


@dataclass(slots=True, kw_only=True)
class _Seat:
    """What this client knows of the room: the latest view and its seq."""

    room: str
    seat: int
    view: dict[str, Any]
    seq: int
    refusals: int = 0
    silent_since: float | None = None

    def my_turn(self) -> bool:
        v = self.view
        return v.get("status") == "playing" and v.get("to_move") == self.seat

    def take(self, seq: int, view: dict[str, Any]) -> bool:
        """Adopt a newer view; False for one already seen (act() replies arrive twice)."""
        if seq <= self.seq:
            return False
        self.seq, self.view, self.refusals, self.silent_since = seq, view, 0, None
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
    state.take(update["seq"], update["view"])
    return True


async def _give_up(conn: Connection, state: _Seat) -> None:
    """The move cap: ``quit`` where the game has it, then leave the room if still playing."""
    try:
        update = await conn.act(state.room, {"do": "quit"})
    except ServerError:
        update = None  # no such action in this game, or not now
    except (ConnectionLost, TimeoutError):
        return
    if update is not None:
        state.take(update["seq"], update["view"])
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
    if msg.get("room") != state.room:
        return
    if t == "update" and state.take(msg["seq"], msg["view"]) and on_update is not None:
        on_update(msg)
    elif t == "_rejoined":
        state.seq = -1  # the rejoin's view is the truth, whatever seq we had
        state.take(msg["seq"], msg["view"])
