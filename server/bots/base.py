"""The bot contract: a COMP player works only from the view its seat receives.

The same bot runs inside a room (a seat whose player name starts with ``COMP``)
and inside the headless bot client, so it may use nothing the wire does not
carry. A bot is pure too: it is handed the view and a seeded RNG and returns
one action (or None when it has nothing to do, e.g. it is not its turn).
Heavy searches honour ``budget`` (seconds of thinking); the caller runs them
off the event loop.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import Any, ClassVar

__all__ = ["Bot"]


class Bot(ABC):
    """Base class of every bot; subclasses set ``game`` and ``level``."""

    game: ClassVar[str]
    level: ClassVar[str] = "normal"
    think_setting: ClassVar[str] = "bot_think"
    """The server setting (of ``Limits``) that is this bot's ``budget`` in a room."""

    def __init__(self, *, rng: random.Random | None = None, budget: float = 0.2) -> None:
        self.rng = rng or random.Random(0)
        self.budget = budget

    @abstractmethod
    def choose(self, view: dict[str, Any]) -> dict[str, Any] | None:
        """Return the next action for ``view['seat']``, or None to wait."""
