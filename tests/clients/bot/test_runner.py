"""The bot client plays whole games against a real server, only from the views it receives."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from tilehall.clients.bot import (
    Bot,
    GameResult,
    level_bot,
    play_games,
    play_seat,
    random_name,
    run,
)
from tilehall.clients.connection import Connection
from tilehall.server.app import Server
from tilehall.server.bots import bot_levels
from tilehall.server.games import all_games
from tilehall.server.names import MAX_NAME, is_bot_name, validate_name

SMALL: dict[str, dict[str, Any]] = {
    # Small boards where a game has them, so that a whole game takes seconds.
    "lines": {"width": 5, "height": 5, "min_line": 6},  # no line fits: the board fills up
    "linksame": {"size": "easy", "stages": 1},
}

ENDLESS: dict[str, int] = {
    # Games a good bot never loses: play this many moves, then end it with "quit".
    "matchit": 40,
}


class QuitAfter(Bot):
    """Plays ``inner``'s moves, then quits: the game still ends through the server."""

    def __init__(self, inner: Bot, moves: int) -> None:
        super().__init__()
        self.game = inner.game  # type: ignore[misc]
        self.inner, self.left = inner, moves

    def choose(self, view: dict[str, Any]) -> dict[str, Any] | None:
        if self.left <= 0:
            return {"do": "quit"}
        self.left -= 1
        return self.inner.choose(view)


def _solo_games() -> list[str]:
    names = []
    for game in all_games():
        if game.min_seats != 1:
            continue
        try:
            bot_levels(game.name)
        except KeyError:
            continue  # an engine whose bots are not registered yet
        names.append(game.name)
    return names


@pytest.fixture(autouse=True)
def _own_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TILEHALL_CONFIG", str(tmp_path / "config"))


def test_every_solo_game_has_bots() -> None:
    # The bot client can only play what has bots: a registered game without
    # them is a gap to close (and would be skipped silently below).
    assert "ishido" in _solo_games()
    for game in all_games():
        if game.min_seats == 1:
            assert bot_levels(game.name), game.name


@pytest.mark.slow
@pytest.mark.parametrize("game", _solo_games())
async def test_plays_a_full_solo_game(url: str, server: Server, game: str) -> None:
    levels = bot_levels(game)
    level = "normal" if "normal" in levels else next(iter(levels))
    bot = level_bot(game, level, budget=0.05)(0)
    if game in ENDLESS:
        bot = QuitAfter(bot, ENDLESS[game])
    [result] = await play_games(bot, url=url, games=1, options=SMALL.get(game))
    assert result.status == "over", result
    assert result.game == game
    assert result.moves > 0 and result.refused == 0
    assert result.result is not None
    assert server.store is not None
    # The server agrees: the journal holds the start and every one of our moves.
    journal = await server.store.journal(result.room)
    assert len(journal) >= result.moves + 1


async def test_three_seat_mathable_with_two_joining_clients(url: str) -> None:
    created: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    owner = asyncio.create_task(
        play_games(
            level_bot("mathable", "easy"),
            url=url,
            name="owner",
            opponents=[None, None],
            on_room=created.set_result,
        )
    )
    room = await created
    guests = [
        play_seat(level_bot("mathable", level)(seat), url=url, room=room, seat=seat)
        for seat, level in ((1, "normal"), (2, "hard"))
    ]
    *seats, ([mine]) = await asyncio.gather(*guests, owner)
    results: list[GameResult] = [mine, *seats]
    assert [r.seat for r in results] == [0, 1, 2]
    assert {r.room for r in results} == {room}
    assert all(r.status == "over" for r in results)
    # All three saw the same final scores, and every seat moved.
    assert len({tuple(r.scores) for r in results}) == 1
    assert len(results[0].scores) == 3
    assert all(r.moves > 0 for r in results)


async def _no_sessions_left(server: Server) -> bool:
    for _ in range(50):
        if not server.sessions:
            return True
        await asyncio.sleep(0.02)
    return False


@pytest.mark.slow
async def test_against_server_bots_and_in_parallel(url: str, server: Server) -> None:
    results = await play_games(
        level_bot("mathable", "easy"),
        url=url,
        games=2,
        parallel=2,
        opponents=["COMP:easy"],
    )
    assert len(results) == 2 and len({r.room for r in results}) == 2
    assert all(r.status == "over" and r.seat == 0 for r in results)
    assert await _no_sessions_left(server)  # every connection was closed


class Stubborn(Bot):
    """Always asks for a square that is off the board."""

    game = "ishido"

    def choose(self, view: dict[str, Any]) -> dict[str, Any] | None:
        return {"do": "place", "at": [99, 99]}


async def test_a_bot_that_keeps_being_refused_gives_up(url: str) -> None:
    [result] = await play_games(Stubborn(), url=url)
    assert result.status == "abandoned"
    assert result.moves == 0 and result.refused == 3
    assert set(result.errors) == {"bad_cell"}


# The README example, verbatim but for the url: it must really run.
class FirstSquare(Bot):
    game = "ishido"

    def choose(self, view):  # type: ignore[no-untyped-def]
        if view["to_move"] == view["seat"] and view["legal"]:
            return {"do": "place", "at": view["legal"][0]}
        return None


@pytest.mark.slow
async def test_readme_example_runs(url: str, server: Server) -> None:
    def example() -> list[GameResult]:
        return run(FirstSquare(), url=url, games=2)

    results = await asyncio.to_thread(example)
    assert [r.status for r in results] == ["over", "over"]
    assert all(r.moves >= 1 for r in results)
    assert await _no_sessions_left(server)


async def test_works_only_from_views(url: str) -> None:
    # A watcher in the room sees exactly the moves the bot client made.
    seen: list[dict[str, Any]] = []

    class Recording(Bot):
        game = "ishido"
        inner = level_bot("ishido", "greedy")(0)

        def choose(self, view: dict[str, Any]) -> dict[str, Any] | None:
            seen.append(view)
            return self.inner.choose(view)

    [result] = await play_games(Recording(), url=url)
    assert result.status == "over"
    assert len(seen) == result.moves
    assert all(v["seat"] == 0 and v["game"] == "ishido" for v in seen)
    async with Connection(url, name="checker") as conn:
        joined = await conn.watch(result.room)
    assert joined["seq"] == result.moves + 1  # the start, then each of our moves


def test_a_bots_random_name_is_a_valid_name_drawn_from_40_bits():
    names = {random_name() for _ in range(1000)}
    assert len(names) == 1000
    for name in names:
        assert validate_name(name) == name and len(name) <= MAX_NAME
        assert not is_bot_name(name)  # COMP names are the server's own bots'
        assert name.startswith("bot-") and len(name) == len("bot-") + 10
        int(name[4:], 16)
