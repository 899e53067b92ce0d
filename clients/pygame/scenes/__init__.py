"""The scenes: the lobby, and one per game, found by the game's wire name.

A game without a scene of its own gets :class:`GenericScene`, which shows the
view as text, so a newly registered game is playable-to-watch at once.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tilehall.clients.pygame.scenes.base import GameScene

__all__ = ["SCENES", "scene_for"]

SCENES: dict[str, str] = {
    "ishido": "tilehall.clients.pygame.scenes.ishido:IshidoScene",
    "mathable": "tilehall.clients.pygame.scenes.mathable:MathableScene",
    "lines": "tilehall.clients.pygame.scenes.lines:LinesScene",
    "matchit": "tilehall.clients.pygame.scenes.matchit:MatchItScene",
    "linksame": "tilehall.clients.pygame.scenes.linksame:LinkSameScene",
}


def scene_for(game: str) -> type[GameScene]:
    """The scene class that draws ``game`` (the generic one if it has none)."""
    target = SCENES.get(game, "tilehall.clients.pygame.scenes.generic:GenericScene")
    module_name, _, class_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise  # a real fault inside the scene, not a scene still to be written
        module = importlib.import_module("tilehall.clients.pygame.scenes.generic")
        class_name = "GenericScene"
    cls: type[GameScene] = getattr(module, class_name)
    return cls
