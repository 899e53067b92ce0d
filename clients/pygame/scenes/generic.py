"""The fallback scene: any game's view as plain text, its scores and its log.

A game this client has no board for (a plugin game the server has and this
client does not, or one whose board is still to be written) can still be
watched: the scene says there is no board for it, shows the view's fields as
text and the last events (its log) in the panel.
"""

from __future__ import annotations

import json
from collections import deque
from typing import TYPE_CHECKING, Any

import pygame
from tilehall.clients.model import Change, RoomModel
from tilehall.clients.pygame import draw as d
from tilehall.clients.pygame.scenes.base import GameScene

if TYPE_CHECKING:
    from tilehall.clients.pygame.scenes.base import App

__all__ = ["GenericScene"]

_COMMON = ("game", "status", "to_move", "scores", "seat", "result")


LOG = 8
"""Events kept for the panel's log."""


class GenericScene(GameScene):
    """Every field of the view, one per line, boards as rows of text; the last events."""

    def __init__(self, app: App, model: RoomModel) -> None:
        super().__init__(app, model)
        self.log: deque[str] = deque(maxlen=LOG)

    def on_change(self, change: Change) -> None:
        super().on_change(change)
        for ev in change.events:
            self.log.append(json.dumps(ev, separators=(",", ":"), default=str))

    def draw_board(self, surf: pygame.Surface, area: pygame.Rect) -> None:
        d.panel(surf, area, fill=(32, 37, 47))
        x, y = area.x + 16, area.y + 12
        title = self.app.lobby.title(self.model.game)
        line = f"No board for {title} in this client: its view as the server sends it, its log."
        d.text(surf, line, (x, y), size=d.text_fit(line, area.w - 32, 20), colour=d.TEXT_DIM)
        y += 30
        for key, value in self.view.items():
            if key in _COMMON:
                continue
            for line in _lines(key, value):
                if y > area.bottom - 20:
                    return
                size = d.text_fit(line, area.w - 32, 18)
                d.text(surf, line, (x, y), size=size)
                y += 20

    def draw_panel(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        y = rect.y
        d.text(surf, "Scores", (rect.x, y), size=26, colour=d.GOLD)
        y += 32
        for i, s in enumerate(self.view.get("scores") or []):
            y = self.stat(surf, rect.x, y, rect.w, self.model.seat_name(i), s)
        y += 12
        d.text(surf, "Log", (rect.x, y), size=22, colour=d.GOLD)
        y += 28
        for line in reversed(self.log):
            d.text(surf, line, (rect.x, y), size=d.text_fit(line, rect.w, 16), colour=d.TEXT_DIM)
            y += 20


def _lines(key: str, value: Any) -> list[str]:
    """``key: value``, with a list of lists (a board) spread over several lines."""
    if isinstance(value, list) and value and all(isinstance(r, list) for r in value):
        return [f"{key}:"] + ["   " + " ".join(_cell(c) for c in row) for row in value]
    return [f"{key}: {json.dumps(value, default=str)}"]


def _cell(c: Any) -> str:
    if c is None:
        return "  ."
    return f"{json.dumps(c, separators=(',', ':')):>3}"
