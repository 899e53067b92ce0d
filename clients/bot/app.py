"""``tilehall-bot``: headless bots that play on a Tilehall server, and its load harness.

Examples::

    tilehall-bot --game lines --games 10            # ten games of Lines, one after another
    tilehall-bot --game mathable --vs COMP:hard --vs COMP:easy
    tilehall-bot --game mathable --room r1a2b3c4 --seat 2   # take seat 2 in someone's room
    tilehall-bot load --rooms 100 --spectators 500  # measure a server (see ``load --help``)

Each game prints one line; ``--json`` prints one JSON object per game and a
summary instead. The exit status is 0 when every game reached its end, 1 when
the bot gave one up, 2 when the server refused us.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
from typing import Any

from clients.bot.player import GameResult
from clients.bot.runner import level_bot, play_games, play_seat, random_name
from clients.config import DEFAULT_URL, load_identity, save_identity
from clients.connection import Connection, ConnectionLost, ServerError
from server.bots import bot_levels
from server.games import all_games

__all__ = ["main", "parse_args"]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    games = [g.name for g in all_games()]
    p = argparse.ArgumentParser(
        prog="tilehall-bot",
        description="Let a COMP bot play Tilehall games on a server, as a remote player "
        "that sees only its own views. 'tilehall-bot load --help' measures a server.",
    )
    p.add_argument("--url", default=DEFAULT_URL, help="server address (default %(default)s)")
    p.add_argument(
        "--name",
        help="player name; its token is remembered, so the same name works again "
        "(default: a fresh bot-xxxxxx each run)",
    )
    p.add_argument("--game", choices=games, help="the game to play (needed unless --room)")
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
        help="end each game after N of our moves: 'quit' where the game has it (a strong "
        "Match-It bot never runs out of sheets), else leave the room (default: play to the end)",
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
    p.add_argument("--room", help="join this existing room instead of creating rooms")
    p.add_argument("--seat", type=int, help="with --room: the seat to take (default: any free)")
    p.add_argument("--json", action="store_true", help="print JSON lines instead of text")
    a = p.parse_args(argv)
    if a.game is None and a.room is None:
        p.error("give --game, or --room to join someone's room")
    if a.seat is not None and a.room is None:
        p.error("--seat needs --room")
    try:
        a.options = dict(_option(o) for o in a.option)
    except ValueError as exc:
        p.error(str(exc))
    return a


def _option(text: str) -> tuple[str, Any]:
    """``key=value`` with the value read as an int, a bool, or else a string."""
    key, eq, raw = text.partition("=")
    if not eq or not key:
        raise ValueError(f"--option wants KEY=VALUE, not {text!r}")
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


def _opponents(vs: list[str], game: str, level: str) -> list[str | None]:
    cls = next(g for g in all_games() if g.name == game)
    if not vs and cls.min_seats > 1:
        vs = [f"COMP:{level}"] * (cls.min_seats - 1)
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


async def _room_game(url: str, room: str, name: str | None, token: str | None) -> str:
    """The game of a public room, from the room list."""
    async with Connection(url, name=name or random_name(), token=token, reconnect=False) as conn:
        listed = await conn.request({"t": "rooms"})
    for r in listed["rooms"]:
        if r["room"] == room:
            game: str = r["game"]
            return game
    raise SystemExit(f"tilehall-bot: room {room} is not listed (private?): give --game too")


def _print_result(a: argparse.Namespace, n: int, r: GameResult) -> None:
    if a.json:
        print(json.dumps({"n": n, **r.as_json()}), flush=True)
        return
    end = "" if r.status == "over" else f"  GAVE UP ({', '.join(r.errors) or 'silent'})"
    print(
        f"game {n}/{a.games} {r.game} room {r.room} seat {r.seat}: score {r.score} "
        f"(scores {r.scores}), {r.moves} moves in {r.seconds:.1f} s "
        f"(thinking {r.think:.1f} s){end}",
        flush=True,
    )


def _announce(a: argparse.Namespace, room: str) -> None:
    if None in a.opponents:
        # Someone has to join the open seats: say where, at once.
        where = f"tilehall-bot --url {a.url} --room {room}"
        print(f"room {room} waits for players: {where} --seat N", file=sys.stderr, flush=True)


def _print_summary(a: argparse.Namespace, results: list[GameResult]) -> None:
    scores = [r.score for r in results]
    summary = {
        "games": len(results),
        "over": sum(r.status == "over" for r in results),
        "capped": sum(r.status == "capped" for r in results),
        "abandoned": sum(r.status == "abandoned" for r in results),
        "mean_score": round(statistics.fmean(scores), 2) if scores else None,
        "best_score": max(scores) if scores else None,
        "moves": sum(r.moves for r in results),
        "refused": sum(r.refused for r in results),
    }
    if a.json:
        print(json.dumps({"summary": summary}), flush=True)
    else:
        print(
            f"{summary['games']} games, {summary['over']} finished, "
            f"{summary['capped']} stopped at --max-moves, "
            f"{summary['abandoned']} given up; mean score {summary['mean_score']}, "
            f"best {summary['best_score']}; {summary['moves']} moves, "
            f"{summary['refused']} refused",
            flush=True,
        )


async def _play(a: argparse.Namespace) -> int:
    key = f"{a.url}#bot:{a.name}" if a.name else None
    name, token = (a.name, None)
    if key is not None:
        saved_name, token = load_identity(key)
        name = saved_name or a.name

    def remember(conn: Connection) -> None:
        if key is not None and conn.player and conn.token:
            save_identity(key, conn.player, conn.token)

    game = a.game or await _room_game(a.url, a.room, name, token)
    level = pick_level(game, a.level)
    a.opponents = _opponents(a.vs, game, level)
    make = level_bot(game, level, budget=a.budget, seed=a.seed)
    if a.room is not None:
        a.games = 1
        result = await play_seat(
            make(0), url=a.url, room=a.room, seat=a.seat, name=name, token=token,
            on_welcome=remember,
        )  # fmt: skip
        _print_result(a, 1, result)
        results = [result]
    else:
        done = 0

        def report(r: GameResult) -> None:
            nonlocal done
            done += 1
            _print_result(a, done, r)

        results = await play_games(
            make,
            url=a.url,
            name=name,
            token=token,
            games=a.games,
            options=a.options,
            opponents=a.opponents,
            parallel=a.parallel,
            on_result=report,
            on_welcome=remember,
            on_room=lambda room: _announce(a, room),
            max_moves=a.max_moves,
        )
        _print_summary(a, results)
    return 0 if all(r.status in ("over", "capped") for r in results) else 1


def main(argv: list[str] | None = None) -> None:
    """Console entry point ``tilehall-bot``."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["load"]:
        from clients.bot.load import main as load_main

        load_main(argv[1:])
        return
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
    sys.exit(code)


if __name__ == "__main__":
    main()
