"""Sessions of games: connect, create or join rooms, and let a bot play them.

:func:`play_games` is the headless client's main loop (and what ``tilehall-bot``
runs); :func:`run` is the same for a script that is not async yet::

    from tilehall.clients.bot import Bot, run

    class FirstSquare(Bot):
        game = "ishido"

        def choose(self, view):
            if view["to_move"] == view["seat"] and view["legal"]:
                return {"do": "place", "at": view["legal"][0]}
            return None

    for game in run(FirstSquare(), url="ws://127.0.0.1:8765", games=3):
        print(game.room, game.score)
"""

from __future__ import annotations

import asyncio
import itertools
import random
import secrets
from collections.abc import Callable, Sequence
from typing import Any

from tilehall.clients.bot.player import GameResult, Think, play_room, think_in_thread
from tilehall.clients.config import DEFAULT_URL
from tilehall.clients.connection import Connection
from tilehall.server.bots import find_bot
from tilehall.server.bots.base import Bot

__all__ = ["BotFactory", "level_bot", "play_games", "play_seat", "random_name", "run"]

BotFactory = Callable[[int], Bot]
"""Makes the bot for the n-th game (0-based), so each game may get its own seed."""


def random_name(prefix: str = "bot") -> str:
    """A fresh player name such as ``bot-3f9a1c07e2``.

    Names are unique per server and stay registered for good, so the draw is 40
    bits: with 10,000 such names taken, a new one clashes about once in 100
    million starts (with the 24 bits it had, once in 1,700, and the bot stopped
    on ``name_taken``). ``bot-`` and 10 digits fit the 24 letters a name may have.
    """
    return f"{prefix}-{secrets.token_hex(5)}"


def level_bot(
    game: str, level: str = "normal", *, budget: float = 0.2, seed: int = 0
) -> BotFactory:
    """A factory of the server's own COMP bot for ``game`` at ``level``.

    Raises:
        KeyError: ``game`` has no bots, or none at ``level`` (the message names the levels).
    """
    cls = find_bot(game, level)
    return lambda n: cls(rng=random.Random(f"{seed}:{n}"), budget=budget)


def _factory(bot: Bot | type[Bot] | BotFactory) -> tuple[str, BotFactory]:
    if isinstance(bot, Bot):
        return bot.game, lambda n: bot
    if isinstance(bot, type):
        cls: type[Bot] = bot
        return cls.game, lambda n: cls(rng=random.Random(n))
    factory: BotFactory = bot
    return factory(0).game, factory


async def play_games(
    bot: Bot | type[Bot] | BotFactory,
    *,
    url: str = DEFAULT_URL,
    name: str | None = None,
    token: str | None = None,
    games: int = 1,
    options: dict[str, Any] | None = None,
    opponents: Sequence[str | None] = (),
    parallel: int = 1,
    think: Think = think_in_thread,
    on_result: Callable[[GameResult], None] | None = None,
    on_welcome: Callable[[Connection], None] | None = None,
    on_room: Callable[[str], None] | None = None,
    max_moves: int | None = None,
    on_start: Callable[[GameResult], None] | None = None,
    match: dict[str, Any] | None = None,
) -> list[GameResult]:
    """Create ``games`` rooms one after another and play our seat in each to the end.

    Args:
        bot: a bot, a bot class, or a factory called with the game's number.
        url: the server, ``ws://host:port``.
        name: the player name for a first visit (default: a fresh ``bot-xxxxxx``).
        token: the secret of a returning player (then ``name`` is not needed).
        games: how many games to play.
        options: the game's options for every room created.
        opponents: the other seats of a multi-seat game, as on the wire:
            ``"COMP:hard"`` is a server bot, a name keeps the seat for that player,
            None leaves it open for anyone (another ``tilehall-bot --room``).
        parallel: connections playing at once, each its own game.
        think: how the bot's ``choose`` is called (a worker thread by default).
        on_result: called after each game.
        on_welcome: called once with the first connection, after ``welcome``
            (e.g. to remember the token).
        on_room: called with each room id as soon as it is created (so that
            other players can be told where to join).
        max_moves: end each game after this many of our actions (see
            :func:`~clients.bot.player.play_room`); None plays to the end.
        on_start: called as each game starts with its result, kept up to date
            while it plays (for progress, and to report games cut short).
        match: quick-match instead of creating rooms: the ``match`` request's own
            fields (``seats``, ``bots_after``, ``level``; ``{}`` for the server's
            defaults). ``opponents`` is then not used: the seats are whoever comes,
            and COMP players when nobody does.

    Returns:
        One :class:`GameResult` per game, in the order they ended.
    """
    game, make = _factory(bot)
    counter = itertools.count()
    results: list[GameResult] = []
    first = Connection(url, name=name or random_name(), token=token, bot=True, compact=True)
    await first.open()
    if on_welcome is not None:
        on_welcome(first)

    async def worker(conn: Connection) -> None:
        try:
            while (n := next(counter)) < games:
                if match is not None:
                    room = await _match(conn, game, options, match)
                else:
                    room = await _create(conn, game, options, opponents)
                if on_room is not None:
                    on_room(room)
                result = await play_room(
                    conn, room, make(n), think=think, max_moves=max_moves, on_start=on_start
                )
                results.append(result)
                if on_result is not None:
                    on_result(result)
        finally:
            await conn.close()

    conns = [first]
    try:
        for _ in range(max(1, min(parallel, games)) - 1):
            other = Connection(url, token=first.token, bot=True, compact=True)
            await other.open()
            conns.append(other)
    except BaseException:
        for conn in conns:
            await conn.close()
        raise
    await asyncio.gather(*(worker(c) for c in conns))
    return results


async def _create(
    conn: Connection, game: str, options: dict[str, Any] | None, opponents: Sequence[str | None]
) -> str:
    msg: dict[str, Any] = {"t": "create", "game": game}
    if options:
        msg["options"] = options
    if opponents:
        # Our seat is the first, kept for our own name so that no one takes it.
        msg["seats"] = [conn.player, *opponents]
    created = await conn.request(msg)
    room: str = created["room"]
    return room


async def _match(
    conn: Connection, game: str, options: dict[str, Any] | None, fields: dict[str, Any]
) -> str:
    """Quick-match: the server seats us in an open quick-match room, or opens one."""
    msg: dict[str, Any] = {"t": "match", "game": game, **fields}
    if options:
        msg["options"] = options
    joined = await conn.request(msg)
    room: str = joined["room"]
    return room


async def play_seat(
    bot: Bot,
    *,
    url: str = DEFAULT_URL,
    room: str,
    seat: int | None = None,
    name: str | None = None,
    token: str | None = None,
    think: Think = think_in_thread,
    on_welcome: Callable[[Connection], None] | None = None,
    on_start: Callable[[GameResult], None] | None = None,
) -> GameResult:
    """Take ``seat`` (or any free one) in someone else's ``room`` and play it to the end."""
    async with Connection(
        url, name=name or random_name(), token=token, bot=True, compact=True
    ) as conn:
        if on_welcome is not None:
            on_welcome(conn)
        return await play_room(conn, room, bot, seat=seat, think=think, on_start=on_start)


def run(
    bot: Bot | type[Bot] | BotFactory,
    url: str = DEFAULT_URL,
    games: int = 1,
    **kwargs: Any,
) -> list[GameResult]:
    """:func:`play_games` for code that is not async: runs its own event loop."""
    return asyncio.run(play_games(bot, url=url, games=games, **kwargs))
