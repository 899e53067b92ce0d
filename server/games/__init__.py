"""Games: every engine is a plugin, found by its wire name, like python-chess variants.

A game registers its engine class in the entry-point group ``tilehall.games``
of its distribution's ``pyproject.toml`` (``name = "package.module:Class"``),
as Tilehall's own five do in its own (see docs/writing-a-game.md). The server,
its bots, the schema generator and the clients all find games here, or in the
``welcome`` frame the server builds from here: no list of games is kept
anywhere else.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import entry_points

from tilehall.server.games.actions import ActionField, ActionSpec
from tilehall.server.games.base import (
    Game,
    GameError,
    IllegalMove,
    InvalidMove,
    Option,
    OptionError,
    PositionError,
    SoloGame,
    Status,
)

__all__ = [
    "GROUP",
    "ActionField",
    "ActionSpec",
    "Game",
    "GameError",
    "IllegalMove",
    "InvalidMove",
    "Option",
    "OptionError",
    "PositionError",
    "SoloGame",
    "Status",
    "all_games",
    "find_game",
    "listed_order",
]

GROUP = "tilehall.games"
"""The entry-point group games register their engine class in."""


def listed_order(game: type[Game]) -> tuple[bool, str]:
    """The order games are listed in (``welcome.games``, the clients' forms): the games of
    several players first, the ones people meet in, then by title."""
    return game.max_seats == 1, game.title.casefold()


@cache
def _registry() -> dict[str, type[Game]]:
    """Every installed game by its wire name, in :func:`listed_order`.

    Loaded once: a game is a class a process keeps. An entry whose name is not
    its class's ``name`` is refused, so that a game is never found under two names.
    """
    games: dict[str, type[Game]] = {}
    for point in entry_points(group=GROUP):
        cls = point.load()
        if not (isinstance(cls, type) and issubclass(cls, Game)):
            raise TypeError(f"entry point {point.name} = {point.value} is not a Game class")
        if cls.name != point.name:
            raise ValueError(f"entry point {point.name} names a game called {cls.name!r}")
        games.setdefault(point.name, cls)
    return {g.name: g for g in sorted(games.values(), key=listed_order)}


def find_game(name: str) -> type[Game]:
    """The engine class registered as ``name``; KeyError if there is none."""
    return _registry()[name]


def all_games() -> list[type[Game]]:
    """Every registered engine, in :func:`listed_order`."""
    return list(_registry().values())
