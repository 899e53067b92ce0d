"""The scenes: the lobby, and one per game, found by the game's wire name.

A game's window board registers in the entry-point group ``tilehall.window_boards``
under the game's wire name (``name = "package.module:Scene"``, a
:class:`~.base.GameScene`), as Tilehall's own do in its ``pyproject.toml``. A
game without one gets :class:`~.generic.GenericScene`, which says so and shows
the view and log as text, so a newly registered game can be watched at once.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import entry_points

from tilehall.clients.pygame.scenes.base import GameScene
from tilehall.clients.pygame.scenes.generic import GenericScene

__all__ = ["GROUP", "scene_for"]

GROUP = "tilehall.window_boards"
"""The entry-point group games' window boards register in."""


@cache
def scene_for(game: str) -> type[GameScene]:
    """The scene class that draws ``game`` (the generic one if it has none)."""
    for point in entry_points(group=GROUP, name=game):
        scene = point.load()
        if isinstance(scene, type) and issubclass(scene, GameScene):
            return scene
    return GenericScene
