"""``tilehall-bot``: headless bots that play on a Tilehall server.

Examples::

    tilehall-bot --game lines --games 10            # ten games of Lines, one after another
    tilehall-bot --game mathable --vs COMP:hard --vs COMP:easy
    tilehall-bot --game mathable --room r1a2b3c4 --seat 2   # take seat 2 in someone's room
    tilehall-bot --game mathable --match --seats 3      # quick-match: COMP fills in after 30 s

Each game prints one line as it ends, and a summary follows the last (or
Ctrl-C or SIGTERM: the games under way are then quit, or left where our quit does not end
them, a Mathable game with other players in it, and counted as interrupted);
every ``--progress`` seconds a status line on stderr says how the games under
way stand. ``--json`` prints one JSON object per game and a summary instead.
The exit status is 0 when every game reached its end or ``--max-moves``, 1 when
the bot gave one up, 2 when the server refused us, 130 after Ctrl-C, 143 after SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

from tilehall.clients.bot.player import GameResult
from tilehall.clients.bot.runner import level_bot, play_games, play_seat, random_name
from tilehall.clients.config import DEFAULT_URL, load_identity, save_identity
from tilehall.clients.connection import Connection, ConnectionLost, ServerError
from tilehall.server.bots import bot_levels

__all__ = ["main", "parse_args", "parse_option"]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="tilehall-bot",
        description="Let a COMP bot play Tilehall games on a server, as a remote player "
        "that sees only its own views.",
    )
    p.add_argument("--url", default=DEFAULT_URL, help="server address (default %(default)s)")
    p.add_argument(
        "--name",
        help="player name; its token is remembered, so the same name works again "
        "(default: a fresh bot-xxxxxx each run)",
    )
    p.add_argument("--game", help="the game to play, as the server names it (needed unless --room)")
    p.add_argument("--level", help="bot level (default: normal, or the game's first level)")
    p.add_argument("--budget", type=float, default=0.2, help="seconds of thinking per move")
    p.add_argument("--seed", type=int, default=0, help="seed of the bots' own randomness")
    p.add_argument("--games", type=int, default=1, help="games to play (default %(default)s)")
    p.add_argument("--parallel", type=int, default=1, help="games at once (default 1)")
    p.add_argument(
        "--max-moves",
        type=int,
        default=None,
        metavar="N",
        help="end each game after N of our moves (a strong Match-It bot never runs out of "
        "sheets): 'quit' it, which in Mathable is a vote that ends the game once every player "
        "has voted; a game that goes on is left (default: play to the end)",
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option for the rooms created, e.g. --option width=7 (repeatable)",
    )
    p.add_argument(
        "--vs",
        action="append",
        default=[],
        metavar="SEAT",
        help="another seat of a multi-seat game: COMP:LEVEL for a server bot, a player's "
        "name to keep the seat for them, or 'open' (repeatable; default one COMP at --level)",
    )
    p.add_argument(
        "--match",
        action="store_true",
        help="quick-match instead of creating rooms: join an open quick-match room of the "
        "game (same --seats and options) or open one; COMP players at --level take the seats "
        "still open after --bots-after seconds",
    )
    p.add_argument("--seats", type=int, help="with --match: the room's seats (default the least)")
    p.add_argument(
        "--bots-after",
        type=int,
        metavar="SECONDS",
        help="with --match: how long to wait for other players (the server's default: 30)",
    )
    p.add_argument("--room", help="join this existing room instead of creating rooms")
    p.add_argument("--seat", type=int, help="with --room: the seat to take (default: any free)")
    p.add_argument("--json", action="store_true", help="print JSON lines instead of text")
    p.add_argument(
        "--progress",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="a status line on stderr this often while games are under way (0: none; "
        "default %(default)s)",
    )
    a = p.parse_args(argv)
    if a.game is None and a.room is None:
        p.error("give --game, or --room to join someone's room")
    if a.seat is not None and a.room is None:
        p.error("--seat needs --room")
    if (a.seats is not None or a.bots_after is not None) and not a.match:
        p.error("--seats and --bots-after go with --match")
    if a.match and (a.room is not None or a.vs):
        p.error("--match finds its own room: not with --room or --vs (use --seats)")
    if a.match and a.parallel > 1:
        # Our connections are one player: each match would seat us in the same room.
        p.error("--match plays one game at a time: not with --parallel")
    try:
        a.options = dict(parse_option(o) for o in a.option)
    except ValueError as exc:
        p.error(str(exc))
    return a


def parse_option(text: str) -> tuple[str, Any]:
    """``key=value`` with the value read as an int, a bool, or else a string: a room's
    option as a command line gives it (the bot's ``--option``, ``bench.tracked``'s ``--set``)."""
    key, eq, raw = text.partition("=")
    if not eq or not key:
        raise ValueError(f"an option is KEY=VALUE, not {text!r}")
    value: Any = raw
    if raw.lower() in ("true", "false"):
        value = raw.lower() == "true"
    else:
        with contextlib.suppress(ValueError):
            value = int(raw)
    return key, value


def pick_level(game: str, level: str | None) -> str:
    """The level asked for, else ``normal``, else the game's first level."""
    levels = bot_levels(game)
    if level is not None:
        return level
    return "normal" if "normal" in levels else next(iter(levels))


def _opponents(vs: list[str], min_seats: int, level: str) -> list[str | None]:
    if not vs and min_seats > 1:
        vs = [f"COMP:{level}"] * (min_seats - 1)
    out: list[str | None] = []
    for i, seat in enumerate(vs, start=1):
        if seat.lower() == "open":
            out.append(None)
        elif seat.upper().startswith("COMP"):
            name, _, lvl = seat.partition(":")
            # Several COMP seats read better as COMP1, COMP2 ... in the room.
            out.append(f"{name if name.upper() != 'COMP' else f'COMP{i}'}:{lvl or level}")
        else:
            out.append(seat)
    return out


async def _look_around(
    a: argparse.Namespace,
    name: str | None,
    token: str | None,
    remember: Callable[[Connection], None],
) -> tuple[dict[str, Any], str, str]:
    """Say hello once before playing: the game's ``welcome.games`` entry, and who we are.

    The entry says how many seats the game needs (for the default ``--vs``); with
    ``--room`` and no ``--game``, the room list says which game the room plays.
    The player's name and token come back so that the games that follow come in
    as the same player (a new name is taken by this hello).

    Raises:
        KeyError: the server has no such game.
    """
    async with Connection(
        a.url, name=name or random_name(), token=token, reconnect=False, bot=True
    ) as conn:
        remember(conn)
        game = a.game or await _room_game(conn, a.room)
        spec = next((g for g in conn.games if g["name"] == game), None)
        assert conn.player is not None and conn.token is not None
        player, secret = conn.player, conn.token
    if spec is None:
        have = ", ".join(g["name"] for g in conn.games)
        raise KeyError(f"the server has no game {game!r}; it has {have}")
    return spec, player, secret


async def _room_game(conn: Connection, room: str) -> str:
    """The game of a public room, from the ``rooms`` pages (by id: the one that has it)."""
    cursor = ""
    while True:
        req: dict[str, Any] = {"t": "rooms", "limit": 200}
        if cursor:
            req["cursor"] = cursor
        page = await conn.request(req)
        for r in page["rooms"]:
            if r["room"] == room:
                game: str = r["game"]
                return game
        cursor = page["next"]
        if cursor is None or cursor >= room:
            raise SystemExit(f"tilehall-bot: room {room} is not listed (private?): give --game too")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _ending(r: GameResult) -> str:
    """How a game line ends when the game did not simply run to its end."""
    left = "left the room, which plays on without us (our quit did not end it)"
    if r.stopped is not None:
        why = "stopped at --max-moves" if r.stopped == "max_moves" else "interrupted"
        return f"  {why}: {'quit' if r.status == 'over' else left}"
    if r.status == "abandoned":
        return f"  GAVE UP ({r.why or ', '.join(r.errors) or 'no reason given'})"
    return ""


class Session:
    """The games of one run: those under way (for progress) and those done (for the summary).

    Args:
        a: the parsed command line (``--games``, ``--json``, ``--progress``).
        out, err: where game lines and the summary go, and where progress goes.
    """

    def __init__(self, a: argparse.Namespace, out: TextIO, err: TextIO) -> None:
        self.a = a
        self.out = out
        self.err = err
        self.live: list[GameResult] = []
        self.done: list[GameResult] = []
        self.t0 = time.monotonic()

    def started(self, r: GameResult) -> None:
        self.live.append(r)

    def ended(self, r: GameResult) -> None:
        if r in self.live:
            self.live.remove(r)
        self.done.append(r)
        self.print_result(len(self.done), r)

    def print_result(self, n: int, r: GameResult) -> None:
        if self.a.json:
            print(json.dumps({"n": n, **r.as_json()}), file=self.out, flush=True)
            return
        print(
            f"game {n}/{self.a.games} {r.game} room {r.room} seat {r.seat}: score {r.score} "
            f"(scores {r.scores}), {r.moves} moves in {r.seconds:.1f} s "
            f"(thinking {r.think:.1f} s){_ending(r)}",
            file=self.out,
            flush=True,
        )

    def interrupted(self) -> None:
        """Ctrl-C: the games under way (stopped by now) are done too, as interrupted."""
        for r in list(self.live):
            r.stopped = r.stopped or "interrupted"
            if r.status == "playing":
                r.status = "interrupted"
            self.ended(r)

    async def report_progress(self) -> None:
        """Every ``--progress`` seconds, while games are under way: one line on stderr."""
        every = float(self.a.progress)
        if every <= 0:
            return
        while True:
            await asyncio.sleep(every)
            if not self.live:
                continue
            games = "; ".join(
                f"room {r.room} {_plural(r.moves, 'move')}, score {r.score}" for r in self.live
            )
            print(
                f"tilehall-bot: {time.monotonic() - self.t0:.0f} s, "
                f"{len(self.done)}/{self.a.games} done; playing {games}",
                file=self.err,
                flush=True,
            )

    def summary(self) -> dict[str, Any]:
        results = self.done
        scores = [r.score for r in results]
        return {
            "games": len(results),
            "finished": sum(r.status == "over" and r.stopped is None for r in results),
            "stopped": sum(r.stopped == "max_moves" for r in results),
            "interrupted": sum(r.stopped == "interrupted" for r in results),
            "over": sum(r.status == "over" for r in results),
            "capped": sum(r.status == "capped" for r in results),
            "abandoned": sum(r.status == "abandoned" for r in results),
            "left_open": [r.room for r in results if r.status in ("capped", "interrupted")],
            "mean_score": round(statistics.fmean(scores), 2) if scores else None,
            "best_score": max(scores) if scores else None,
            "moves": sum(r.moves for r in results),
            "refused": sum(r.refused for r in results),
        }

    def print_summary(self) -> None:
        s = self.summary()
        if self.a.json:
            print(json.dumps({"summary": s}), file=self.out, flush=True)
            return
        parts = [f"{s['finished']} played to the end"]
        if s["stopped"] or self.a.max_moves is not None:
            parts.append(f"{s['stopped']} stopped at --max-moves")
        if s["interrupted"]:
            parts.append(f"{s['interrupted']} interrupted")
        parts.append(f"{s['abandoned']} given up")
        games = _plural(s["games"], "game")
        if s["games"] < self.a.games:  # cut short: say how many were meant
            games = f"{s['games']} of {self.a.games} games"
        print(
            f"{games}: {', '.join(parts)}; mean score {s['mean_score']}, "
            f"best {s['best_score']}; {_plural(s['moves'], 'move')}, {s['refused']} refused",
            file=self.out,
            flush=True,
        )
        if s["left_open"]:
            print(
                f"{_plural(len(s['left_open']), 'room')} still playing without us (the other "
                f"players have not voted to quit): {' '.join(s['left_open'])}",
                file=self.out,
                flush=True,
            )


def _announce(a: argparse.Namespace, room: str) -> None:
    if None in a.opponents:
        # Someone has to join the open seats: say where, at once.
        where = f"tilehall-bot --url {a.url} --room {room}"
        print(f"room {room} waits for players: {where} --seat N", file=sys.stderr, flush=True)


def _stop_on_sigterm() -> None:
    """SIGTERM (``kill``, a container stopping) stops us as Ctrl-C does.

    asyncio.run turns SIGINT into a cancel of the main task; SIGTERM's default
    would end the process at once, with no summary and its games left playing.
    Cancelling the same task runs the same path: games quit, summary printed.
    """
    task = asyncio.current_task()
    if task is None:
        return
    with contextlib.suppress(NotImplementedError, RuntimeError):  # no such signals (Windows)
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)


async def _play(a: argparse.Namespace) -> int:
    _stop_on_sigterm()
    key = f"{a.url}#bot:{a.name}" if a.name else None
    name, token = (a.name, None)
    if key is not None:
        saved_name, token = load_identity(key)
        name = saved_name or a.name

    def remember(conn: Connection) -> None:
        if key is not None and conn.player and conn.token:
            save_identity(key, conn.player, conn.token)

    spec, name, token = await _look_around(a, name, token, remember)
    game = spec["name"]
    level = pick_level(game, a.level)
    a.opponents = [] if a.match else _opponents(a.vs, int(spec.get("min_seats", 1)), level)
    match: dict[str, Any] | None = None
    if a.match:
        match = {"level": level} if int(spec.get("max_seats", 1)) > 1 else {}
        if a.seats is not None:
            match["seats"] = a.seats
        if a.bots_after is not None:
            match["bots_after"] = a.bots_after
    make = level_bot(game, level, budget=a.budget, seed=a.seed)
    session = Session(a, sys.stdout, sys.stderr)
    progress = asyncio.create_task(session.report_progress())
    try:
        if a.room is not None:
            a.games = 1
            result = await play_seat(
                make(0), url=a.url, room=a.room, seat=a.seat, name=name, token=token,
                on_welcome=remember, on_start=session.started,
            )  # fmt: skip
            session.ended(result)
        else:
            await play_games(
                make,
                url=a.url,
                name=name,
                token=token,
                games=a.games,
                options=a.options,
                opponents=a.opponents,
                parallel=a.parallel,
                on_result=session.ended,
                on_welcome=remember,
                on_room=lambda room: _announce(a, room),
                max_moves=a.max_moves,
                on_start=session.started,
                match=match,
            )
            session.print_summary()
    except asyncio.CancelledError:  # Ctrl-C or SIGTERM: asyncio.run cancels us
        session.interrupted()
        session.print_summary()
        raise
    finally:
        progress.cancel()
    return 0 if all(r.status != "abandoned" for r in session.done) else 1


def main(argv: list[str] | None = None) -> None:
    """Console entry point ``tilehall-bot``."""
    a = parse_args(argv)
    try:
        code = asyncio.run(_play(a))
    except KeyError as exc:  # a game without bots, or a level it does not have
        print(f"tilehall-bot: {exc.args[0]}", file=sys.stderr)
        code = 2
    except ServerError as exc:
        print(f"tilehall-bot: the server refused: {exc}", file=sys.stderr)
        code = 2
    except (ConnectionLost, OSError) as exc:
        print(f"tilehall-bot: cannot reach {a.url}: {exc}", file=sys.stderr)
        code = 2
    except KeyboardInterrupt:
        code = 130
    except asyncio.CancelledError:  # SIGTERM (see _stop_on_sigterm), as a shell counts it
        code = 128 + signal.SIGTERM
    sys.exit(code)


if __name__ == "__main__":
    main()
