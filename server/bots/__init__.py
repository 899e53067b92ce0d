"""COMP players: bots that work from a seat's view.

A game's bots register in the entry-point group ``tilehall.bots`` under the
game's wire name: a mapping ``{level: Bot class}`` (``name =
"package.module:BOTS"``), as Tilehall's own games' do in its ``pyproject.toml``.
A game without an entry has no bots (COMP seats of it are refused).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from importlib.metadata import entry_points

from tilehall.server.bots.base import Bot

__all__ = ["GROUP", "Bot", "bot_levels", "find_bot", "level_missing"]

GROUP = "tilehall.bots"
"""The entry-point group a game's bot levels register in."""


_missing: dict[tuple[str, str], str] = {}


def level_missing(game: str, level: str, why: str) -> None:
    """Note that ``game``'s ``level`` exists but is not installed here, and why.

    A game whose level needs an optional extra leaves it out of its levels and
    says so here, so a seat asking for it is told what to install rather than
    only which levels there are.
    """
    _missing[(game, level)] = why


@cache
def _registry() -> dict[str, str]:
    """Each game with bots, to where its levels are (loaded when first asked for)."""
    found: dict[str, str] = {}
    for point in entry_points(group=GROUP):
        found.setdefault(point.name, point.value)
    return found


@cache
def bot_levels(game: str) -> Mapping[str, type[Bot]]:
    """The bot classes of ``game`` by level; KeyError if the game has no bots."""
    target = _registry()[game]
    (point,) = entry_points(group=GROUP, name=game, value=target)
    levels: Mapping[str, type[Bot]] = point.load()
    return levels


def find_bot(game: str, level: str = "normal") -> type[Bot]:
    """The bot class for ``game`` at ``level``; KeyError names the levels there are."""
    levels = bot_levels(game)
    if level in levels:
        return levels[level]
    if (game, level) in _missing:
        raise KeyError(f"{game} bots: {_missing[game, level]}")
    raise KeyError(f"{game} bots come in levels {', '.join(levels)}, not {level!r}")
