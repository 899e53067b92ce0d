"""Game registry: every engine is found by its wire name, like python-chess variants."""

from __future__ import annotations

import importlib
from functools import cache

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
]

_REGISTRY: dict[str, str] = {
    "mathable": "tilehall.server.games.mathable:Mathable",
    "matchit": "tilehall.server.games.matchit:MatchIt",
    "linksame": "tilehall.server.games.linksame:LinkSame",
    "lines": "tilehall.server.games.lines:Lines",
    "ishido": "tilehall.server.games.ishido:Ishido",
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
