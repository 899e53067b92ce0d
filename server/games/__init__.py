"""Game registry: every engine is found by its wire name, like python-chess variants."""

from __future__ import annotations

import importlib
from functools import cache

from server.games.base import Game, IllegalMove, InvalidMove, Option, OptionError, Status

__all__ = [
    "Game",
    "IllegalMove",
    "InvalidMove",
    "Option",
    "OptionError",
    "Status",
    "all_games",
    "find_game",
]

_REGISTRY: dict[str, str] = {
    "mathable": "server.games.mathable:Mathable",
    "matchit": "server.games.matchit:MatchIt",
    "linksame": "server.games.linksame:LinkSame",
    "lines": "server.games.lines:Lines",
    "ishido": "server.games.ishido:Ishido",
}


@cache
def find_game(name: str) -> type[Game]:
    """Return the engine class registered as ``name``; raise KeyError if there is none."""
    module_name, _, class_name = _REGISTRY[name].partition(":")
    cls: type[Game] = getattr(importlib.import_module(module_name), class_name)
    return cls


def all_games() -> list[type[Game]]:
    """Every registered engine, in registry order."""
    return [find_game(name) for name in _REGISTRY]
