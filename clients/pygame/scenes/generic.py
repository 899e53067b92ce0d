"""The fallback scene: any game's view as plain text, with its scores.

It lets a game that has no scene of its own yet be watched (and shows which
fields its view carries), until a real scene is written for it.
"""

from __future__ import annotations

import json
from typing import Any

import pygame
from tilehall.clients.pygame import draw as d
from tilehall.clients.pygame.scenes.base import GameScene

__all__ = ["GenericScene"]

_COMMON = ("game", "status", "to_move", "scores", "seat", "result")


class GenericScene(GameScene):
    """Every field of the view, one per line, boards as rows of text."""

    def draw_board(self, surf: pygame.Surface, area: pygame.Rect) -> None:
        d.panel(surf, area, fill=(32, 37, 47))
        x, y = area.x + 16, area.y + 12
        d.text(
            surf,
            "No picture for this game yet: its view as the server sends it.",
            (x, y),
            size=20,
            colour=d.TEXT_DIM,
        )
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


def _lines(key: str, value: Any) -> list[str]:
    """``key: value``, with a list of lists (a board) spread over several lines."""
    if isinstance(value, list) and value and all(isinstance(r, list) for r in value):
        return [f"{key}:"] + ["   " + " ".join(_cell(c) for c in row) for row in value]
    return [f"{key}: {json.dumps(value, default=str)}"]


def _cell(c: Any) -> str:
    if c is None:
        return "  ."
    return f"{json.dumps(c, separators=(',', ':')):>3}"
