"""Ishido: the 12x8 board, the current stone, click a square to place it, ask for help.

The view lists the squares where the current stone may go (``legal``): they are
drawn lighter, and hovering one shows the stone there. Any click on the board is
sent as is; the server's refusal (which neighbour does not match, and why) is
shown on the notice line.
"""

from __future__ import annotations

import math
import time
from typing import Any

import pygame
from tilehall.clients.model import Change
from tilehall.clients.pygame import draw as d
from tilehall.clients.pygame.scenes.base import GameScene
from tilehall.clients.pygame.widgets import Button

__all__ = ["INNER_FILL", "LEGAL_FILL", "RING_FILL", "STONE_COLOURS", "IshidoScene", "stone"]

ROWS, COLS = 8, 12

STONE_COLOURS: tuple[d.Colour, ...] = (
    (214, 66, 62),  # red
    (240, 146, 40),  # orange
    (236, 206, 62),  # yellow
    (74, 172, 82),  # green
    (62, 126, 232),  # blue
    (160, 92, 196),  # purple
)
INK: d.Colour = (28, 28, 34)
RING_FILL: d.Colour = (58, 74, 66)
"""An empty square of the outer ring (the Beyond, where stones score nothing)."""
INNER_FILL: d.Colour = (92, 118, 96)
LEGAL_FILL: d.Colour = (136, 170, 128)
"""An empty square where the current stone may go."""
BOARD_EDGE: d.Colour = (40, 52, 46)


def symbol(
    surf: pygame.Surface, kind: int, centre: tuple[float, float], size: float, face: d.Colour
) -> None:
    """Draw symbol ``kind`` (0..5) of half-width ``size`` centred on a stone of ``face``."""
    cx, cy = centre
    s = size
    if kind == 0:  # ring
        d.aa_circle(surf, centre, s, INK)
        d.aa_circle(surf, centre, s * 0.55, face)
    elif kind == 1:  # triangle
        d.aa_polygon(surf, [(cx, cy - s), (cx + s, cy + s * 0.8), (cx - s, cy + s * 0.8)], INK)
    elif kind == 2:  # square
        d.aa_polygon(
            surf,
            [
                (cx - s * 0.8, cy - s * 0.8),
                (cx + s * 0.8, cy - s * 0.8),
                (cx + s * 0.8, cy + s * 0.8),
                (cx - s * 0.8, cy + s * 0.8),
            ],
            INK,
        )
    elif kind == 3:  # diamond
        d.aa_polygon(surf, [(cx, cy - s), (cx + s, cy), (cx, cy + s), (cx - s, cy)], INK)
    elif kind == 4:  # star
        d.aa_polygon(surf, d.star_points(cx, cy + s * 0.08, s * 1.05, s * 0.45), INK)
    else:  # cross
        t = s * 0.34
        d.aa_polygon(
            surf,
            [
                (cx - t, cy - s),
                (cx + t, cy - s),
                (cx + t, cy - t),
                (cx + s, cy - t),
                (cx + s, cy + t),
                (cx + t, cy + t),
                (cx + t, cy + s),
                (cx - t, cy + s),
                (cx - t, cy + t),
                (cx - s, cy + t),
                (cx - s, cy - t),
                (cx - t, cy - t),
            ],
            INK,
        )


def stone(
    surf: pygame.Surface, rect: pygame.Rect, value: list[int] | None, *, alpha: int = 255
) -> None:
    """An Ishido stone ``[colour, symbol]`` filling ``rect``."""
    if value is None:
        return
    colour, kind = value
    target, at = surf, rect.topleft
    if alpha < 255:
        target = pygame.Surface(rect.size, pygame.SRCALPHA)
        rect = target.get_rect()
    fill = STONE_COLOURS[colour % 6]
    face = d.tile(target, rect, fill, depth=0.08, radius=0.18)
    symbol(target, kind, face.center, face.w * 0.27, fill)
    if alpha < 255:
        target.set_alpha(alpha)
        surf.blit(target, at)


class IshidoScene(GameScene):
    """The board on the left, the current stone and the score on the right."""

    TOLD = GameScene.TOLD | {"help", "placed"}
    """The events told on the notice line (see :mod:`tilehall.clients.words`)."""

    def __init__(self, app: Any, model: Any) -> None:
        super().__init__(app, model)
        self.help_button = Button("Help", self.ask_help, key=pygame.K_h)
        self.undo_button = Button("Undo", self.undo, key=pygame.K_u)
        self.quit_button = Button("Quit", self.quit, tone=(88, 62, 66))
        self.buttons = [self.help_button, self.undo_button, self.quit_button]
        self.grid = d.Grid(pygame.Rect(0, 0, 1, 1), ROWS, COLS)
        self.hint: tuple[int, int] | None = None
        self.hover_cell: tuple[int, int] | None = None
        self.placed_at = 0.0

    # -- input -------------------------------------------------------------------------

    def ask_help(self) -> None:
        self.send({"do": "help"})

    def quit(self) -> None:
        if self.confirmed("quit", "Press Quit again to end the game here (no end bonus)."):
            self.send({"do": "quit"})

    def click(self, pos: tuple[int, int], button: int) -> None:
        cell = self.grid.at(pos)
        if cell is None or button != 1 or not self.playing:
            return
        self.send({"do": "place", "at": list(cell)})

    def hover(self, pos: tuple[int, int]) -> None:
        self.hover_cell = self.grid.at(pos)

    def on_change(self, change: Change) -> None:
        super().on_change(change)
        for ev in change.events:
            e = ev.get("e")
            if e == "help":
                self.hint = (ev["at"][0], ev["at"][1])
            elif e == "placed":
                self.hint = None
                self.placed_at = change.at
            elif e == "undone":
                self.hint = None

    def update_buttons(self) -> None:
        self.help_button.enabled = self.undo_button.enabled = self.playing
        self.quit_button.enabled = self.playing
        self.quit_button.toggled = self.confirming("quit")

    # -- drawing ------------------------------------------------------------------------

    def draw_board(self, surf: pygame.Surface, area: pygame.Rect) -> None:
        self.grid = d.Grid(area, ROWS, COLS, margin=0.15)
        g = self.grid
        frame = g.rect.inflate(g.cell // 4, g.cell // 4)
        pygame.draw.rect(surf, BOARD_EDGE, frame, border_radius=max(4, g.cell // 6))
        board = self.view.get("board") or []
        legal = {(r, c) for r, c in self.view.get("legal") or []}
        for r in range(ROWS):
            for c in range(COLS):
                rect = g.cell_rect(r, c)
                ring = r in (0, ROWS - 1) or c in (0, COLS - 1)
                fill = LEGAL_FILL if (r, c) in legal else RING_FILL if ring else INNER_FILL
                pygame.draw.rect(surf, fill, rect.inflate(-2, -2), border_radius=3)
        for r, row in enumerate(board):
            for c, value in enumerate(row):
                if value is not None:
                    stone(surf, g.cell_rect(r, c).inflate(-4, -4), value)
        self.draw_marks(surf, legal)

    def draw_marks(self, surf: pygame.Surface, legal: set[tuple[int, int]]) -> None:
        g = self.grid
        last = self.view.get("last")
        if last:
            rect = g.cell_rect(*last["at"]).inflate(-1, -1)
            fresh = time.monotonic() - self.placed_at < 0.6
            pygame.draw.rect(surf, d.GOLD if fresh else d.TEXT, rect, width=2, border_radius=4)
        if self.hint is not None:
            pulse = 0.5 + 0.5 * math.sin(time.monotonic() * 6)
            rect = g.cell_rect(*self.hint).inflate(-2, -2)
            pygame.draw.rect(
                surf, d.blend(d.GOLD, (255, 255, 255), pulse), rect, width=4, border_radius=5
            )
        current = self.view.get("current")
        if self.playing and self.hover_cell in legal and current is not None:
            stone(surf, g.cell_rect(*self.hover_cell).inflate(-4, -4), current, alpha=150)

    def draw_panel(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        x, y, w = rect.x, rect.y, rect.w
        d.text(surf, "Current stone", (x, y), size=24, colour=d.GOLD)
        y += 32
        # The stone gives way first when the window is short: the numbers under it must show.
        room = self.buttons_top - y - 8 * 26 - 22 * 3 - 16
        side = max(40, min(110, w // 2, room))
        box = pygame.Rect(x + (w - side) // 2, y, side, side)
        current = self.view.get("current")
        if current is not None:
            stone(surf, box, current)
        else:
            d.text(surf, "none", box.center, size=24, colour=d.TEXT_DIM, anchor="center")
        y += side + 16
        v = self.view
        score = (v.get("scores") or [0])[0]
        y = self.stat(surf, x, y, w, "score", score, d.GOLD)
        y = self.stat(surf, x, y, w, "4-ways", v.get("fourways", 0))
        y = self.stat(surf, x, y, w, "placed", v.get("placed", 0))
        y = self.stat(surf, x, y, w, "in the pouch", v.get("pouch", 0))
        y = self.stat(surf, x, y, w, "stones left", v.get("left", 0))
        y = self.stat(surf, x, y, w, "helps used", v.get("helps", 0))
        y = self.stat(surf, x, y, w, "squares open", len(v.get("legal") or []))
        y = self.draw_undos(surf, x, y, w)
        y += 6
        d.text(
            surf,
            f"{v.get('scoring', '')} scoring, {v.get('four_way', '')} 4-ways",
            (x, y),
            size=18,
            colour=d.TEXT_DIM,
        )

    def over_title(self) -> str:
        result = self.view.get("result") or {}
        return "All stones placed!" if result.get("won") else "Game over"
