"""One screen per game, found by the game's wire name; any other game gets the text screen."""

from __future__ import annotations

from tilehall.clients.cli.games.base import GameScreen
from tilehall.clients.cli.games.generic import GenericScreen
from tilehall.clients.cli.games.ishido import IshidoScreen
from tilehall.clients.cli.games.lines import LinesScreen
from tilehall.clients.cli.games.linksame import LinkSameScreen
from tilehall.clients.cli.games.matchit import MatchItScreen
from tilehall.clients.cli.games.mathable import MathableScreen

__all__ = [
    "SCREENS",
    "GameScreen",
    "GenericScreen",
    "IshidoScreen",
    "LinesScreen",
    "LinkSameScreen",
    "MatchItScreen",
    "MathableScreen",
    "screen_for",
]

SCREENS: dict[str, type[GameScreen]] = {
    "ishido": IshidoScreen,
    "mathable": MathableScreen,
    "lines": LinesScreen,
    "matchit": MatchItScreen,
    "linksame": LinkSameScreen,
}


def screen_for(game: str) -> type[GameScreen]:
    """The screen class for ``game``: its own, else the generic text screen."""
    return SCREENS.get(game, GenericScreen)
