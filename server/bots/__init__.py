"""COMP players: bots that work from a seat's view.

Each game's bot module exports ``BOTS: dict[str, type[Bot]]`` keyed by level.
"""

from __future__ import annotations

import importlib

from tilehall.server.bots.base import Bot

__all__ = ["Bot", "bot_levels", "find_bot"]

_MODULES: dict[str, str] = {
    "mathable": "tilehall.server.bots.mathable",
    "matchit": "tilehall.server.bots.matchit",
    "linksame": "tilehall.server.bots.linksame",
    "lines": "tilehall.server.bots.lines",
    "ishido": "tilehall.server.bots.ishido",
}


def bot_levels(game: str) -> dict[str, type[Bot]]:
    """The bot classes of ``game`` by level; KeyError if the game has no bots."""
    module = importlib.import_module(_MODULES[game])
    levels: dict[str, type[Bot]] = module.BOTS
    return levels


def find_bot(game: str, level: str = "normal") -> type[Bot]:
    """The bot class for ``game`` at ``level``; KeyError names the levels there are."""
    levels = bot_levels(game)
    if level in levels:
        return levels[level]
    raise KeyError(f"{game} bots come in levels {', '.join(levels)}, not {level!r}")
