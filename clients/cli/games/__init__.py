"""One screen per game, found by the game's wire name; any other game gets the text screen.

A game's terminal board registers in the entry-point group
``tilehall.terminal_boards`` under the game's wire name (``name =
"package.module:Screen"``, a :class:`GameScreen`), as Tilehall's own do in its
``pyproject.toml``. A game without one is shown by :class:`GenericScreen`,
which says so and shows the game's view and log as text.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import entry_points

from tilehall.clients.cli.games.base import GameScreen
from tilehall.clients.cli.games.generic import GenericScreen

__all__ = ["GROUP", "GameScreen", "GenericScreen", "screen_for"]

GROUP = "tilehall.terminal_boards"
"""The entry-point group games' terminal boards register in."""


@cache
def screen_for(game: str) -> type[GameScreen]:
    """The screen class for ``game``: its own, else the generic text screen."""
    for point in entry_points(group=GROUP, name=game):
        screen = point.load()
        if isinstance(screen, type) and issubclass(screen, GameScreen):
            return screen
    return GenericScreen
