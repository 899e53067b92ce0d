"""The result to share when a game of today's deal ends, in the pygame window.

A game scene keeps one :class:`Sharing` and hands it its frames, its ticks and
its game-over banner; it asks the server for the day's table once the game is
over (again while the table does not hold the result yet), and copies the
result when it comes. Given the model and the calls it needs rather than the
scene, so that scenes import it and it imports no scene.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pygame
from tilehall.clients.daily import room_day
from tilehall.clients.model import RoomModel
from tilehall.clients.pygame import draw as d

__all__ = ["RESULT_EVERY", "RESULT_TRIES", "Sharing", "copy_text"]

RESULT_TRIES = 40
"""Times a game scene asks for its day's table (every :data:`RESULT_EVERY` s) until the
result it just played is on it: it is kept just after the game's last update."""
RESULT_EVERY = 0.15

Request = Callable[..., None]
"""``net.request(msg, tag=...)``: a request whose answer comes back as a tagged frame."""
Notice = Callable[[str, d.Colour], None]
"""A scene's notice line."""


def copy_text(text: str) -> bool:
    """Put ``text`` on the clipboard where the window has one; print it either way (a
    terminal keeps what it printed). Whether it reached a clipboard."""
    print(text, flush=True)
    try:
        pygame.scrap.put_text(text)
    except (pygame.error, AttributeError, NotImplementedError):
        return False
    return True


class Sharing:
    """One game scene's result to share: asked for once the game is over, then kept."""

    def __init__(self) -> None:
        self.text: str | None = None
        """The result to share, once the server sent it."""
        self.tries = 0
        self.due: float | None = None
        """When to ask again (the table did not hold the result yet)."""
        self.asked = False

    def message(
        self, model: RoomModel, msg: dict[str, Any], request: Request, notice: Notice
    ) -> None:
        """A frame of the scene: once its game of today's deal is over, ask for the result
        (again, from :meth:`update`, while the table does not hold it), and copy it."""
        if room_day(model.summary) is None or model.seat is None:
            return
        if (model.summary or {}).get("practice"):
            return
        if msg.get("_tag") == "daily-share" and msg.get("t") == "scores":
            if msg.get("share"):
                self.text = str(msg["share"])
                copied = copy_text(self.text)
                notice("Your result is " + ("copied." if copied else "printed."), d.GOOD)
            elif self.tries < RESULT_TRIES:
                self.due = time.monotonic() + RESULT_EVERY
        elif model.status == "over" and not self.asked:
            self._ask(model, request)

    def update(self, model: RoomModel, now: float, request: Request) -> None:
        """Ask again for the result when it is due (:meth:`message`)."""
        if self.due is not None and now >= self.due:
            self.due = None
            self._ask(model, request)

    def _ask(self, model: RoomModel, request: Request) -> None:
        self.asked = True
        self.tries += 1
        table = f"daily-{room_day(model.summary)}"
        request({"t": "scores", "game": model.game, "table": table}, tag="daily-share")

    def over_lines(self, model: RoomModel) -> list[str]:
        """What the game-over banner adds for a game of today's deal: the result to share,
        or that a practice game is on no table."""
        summary = model.summary
        if room_day(summary) is None or model.seat is None:
            return []
        if (summary or {}).get("practice"):
            return ["Practice: on no table"]
        return self.text.splitlines() if self.text else ["Your result: asking the server..."]
