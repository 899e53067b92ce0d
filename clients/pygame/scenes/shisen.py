"""What Match-It and LinkSame share on screen: the Shisen-Sho board and its paths.

Tiles sit on a board with a one-cell margin all around (paths may run through
it). Left click selects a tile and a second left click on another tile asks the
server to remove the pair; the server decides whether a path exists and, if so,
sends it in the event, and the scene draws that path for a moment over the
tiles that just went. A hint's path stays until the next change.

Subclasses say how a tile looks (:meth:`ShisenScene.paint_face`), what a pair
action is (:meth:`ShisenScene.pair_action`) and what the panel shows.
"""

from __future__ import annotations

import time
from typing import Any

import pygame
from tilehall.clients.model import Change
from tilehall.clients.pygame import draw as d
from tilehall.clients.pygame.scenes.base import GameScene
from tilehall.clients.pygame.widgets import Button

__all__ = ["FELT", "PATH_COLOUR", "TILE_FACE", "ShisenScene", "find_path_event"]

FELT: d.Colour = (30, 70, 58)
"""The board under the tiles (an empty cell shows it)."""
TILE_FACE: d.Colour = (246, 240, 222)
SELECTED_FACE: d.Colour = (255, 226, 128)
PATH_COLOUR: d.Colour = (255, 90, 70)
SHOW_PATH = 0.6
"""Seconds an extraction path stays drawn."""

Cell = tuple[int, int]


def find_path_event(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The event of a removal: the first one that carries a ``path``."""
    return next((ev for ev in events if ev.get("path")), None)


class ShisenScene(GameScene):
    """A Shisen-Sho board: select two tiles, see the extraction path, hint paths.

    Both games take back a pair (Undo) and stop their clock on request (Pause,
    then Resume): the buttons are made here, and each game puts them among its own.
    """

    def __init__(self, app: Any, model: Any) -> None:
        super().__init__(app, model)
        self.undo_button = Button("Undo", self.undo, key=pygame.K_u)
        self.pause_button = Button("Pause", self.toggle_pause, key=pygame.K_p)
        self.selected: Cell | None = None
        self.grid = d.Grid(pygame.Rect(0, 0, 1, 1), 1, 1, margin=1.0)
        self.path: list[Cell] = []
        self.path_at = 0.0
        self.gone: dict[Cell, Any] = {}
        """Tiles just removed (drawn fading under the path), by cell."""
        self.before: list[list[Any]] = []
        """The board before the last removal, without the pair: shown while the path is,
        when the removal made tiles slide (so the path runs where it ran)."""
        self.slid = False
        self.faces: dict[Cell, pygame.Rect] = {}
        """Where each tile's face was drawn in the last frame."""
        self.hint_path: list[Cell] = []
        """A path the server suggested, drawn until the next change (or dismissed)."""
        self.marked: set[Cell] = set()
        """Tiles the server pointed at (a highlight, a hint's pair)."""

    # -- what the view holds -----------------------------------------------------------

    @property
    def board(self) -> list[list[Any]]:
        return list(self.view.get("board") or [])

    def tile_at(self, cell: Cell) -> Any:
        r, c = cell
        board = self.board
        if 0 <= r < len(board) and 0 <= c < len(board[r]):
            return board[r][c]
        return None

    # -- what subclasses decide ---------------------------------------------------------

    def pair_action(self, a: Cell, b: Cell) -> dict[str, Any]:
        """The action that asks to remove the tiles on ``a`` and ``b``."""
        return {"do": "pair", "a": list(a), "b": list(b)}

    def paint_face(self, surf: pygame.Surface, face: pygame.Rect, tile: Any) -> None:
        """Draw what is on a tile (its picture) inside ``face``."""
        d.text(surf, str(tile), face.center, size=face.h // 2, colour=(40, 40, 40), anchor="center")

    def right_click(self, cell: Cell | None) -> None:
        """A right click: let go of the selection."""
        self.selected = None

    # -- input -------------------------------------------------------------------------

    def toggle_pause(self) -> None:
        """Pause the clock, or resume a pause (only the player's own pause can be resumed)."""
        self.send({"do": "resume" if self.model.paused else "pause"})

    def update_buttons(self) -> None:
        paused = self.model.paused
        self.undo_button.enabled = self.active
        self.pause_button.label = "Resume" if paused else "Pause"
        self.pause_button.toggled = bool(paused)
        self.pause_button.enabled = self.playing and paused in (None, "player")

    def click(self, pos: tuple[int, int], button: int) -> None:
        cell = self.grid.at(pos)
        if button == 3:
            self.right_click(cell)
            return
        if cell is None or not self.active or self.tile_at(cell) is None:
            return
        if self.selected is None:
            self.selected = cell
        elif self.selected == cell:
            self.selected = None
        else:
            self.send(self.pair_action(self.selected, cell))
            self.selected = None

    def on_change(self, change: Change) -> None:
        super().on_change(change)
        self.marked = set()
        ev = find_path_event(change.events)
        if ev is None or ev.get("e") != "removed":
            return
        path = [(p[0], p[1]) for p in ev["path"]]
        self.path, self.path_at = path, change.at
        before = change.before.get("board") or []
        self.before = [list(row) for row in before]
        self.slid = bool(ev.get("moved"))
        self.gone = {}
        for r, c in (path[0], path[-1]):
            if 0 <= r < len(before) and 0 <= c < len(before[r]):
                self.gone[(r, c)] = before[r][c]
                self.before[r][c] = None
        if self.selected in self.gone:
            self.selected = None

    # -- drawing ------------------------------------------------------------------------

    def draw_board(self, surf: pygame.Surface, area: pygame.Rect) -> None:
        board = self.board
        rows = int(self.view.get("rows") or len(board))
        cols = int(self.view.get("cols") or (len(board[0]) if rows else 1))
        self.grid = g = d.Grid(area, max(1, rows), cols, margin=0.75)
        felt = g.rect.inflate(g.cell, g.cell)
        pygame.draw.rect(surf, FELT, felt, border_radius=max(6, g.cell // 4))
        pygame.draw.rect(
            surf, d.lighten(FELT, 0.12), felt, width=2, border_radius=max(6, g.cell // 4)
        )
        now = time.monotonic()
        self.faces = {}
        fresh = now - self.path_at < SHOW_PATH
        if fresh and self.slid:
            board = self.before
        for r, row in enumerate(board):
            for c, tile in enumerate(row):
                if tile is not None:
                    self.draw_tile(surf, (r, c), tile)
                elif fresh and (r, c) in self.gone and self.gone[(r, c)] is not None:
                    self.draw_tile(
                        surf, (r, c), self.gone[(r, c)], fade=(now - self.path_at) / SHOW_PATH
                    )
        if fresh:
            self.draw_path(surf, self.path, PATH_COLOUR)
        if self.hint_path:
            self.draw_path(surf, self.hint_path, d.GOLD)

    def draw_tile(self, surf: pygame.Surface, cell: Cell, tile: Any, fade: float = 0.0) -> None:
        rect = self.grid.cell_rect(*cell)
        # tiles are a little taller than wide, as real ones are: fit a 3:4 face
        w = round(rect.w * 0.94)
        rect = pygame.Rect(rect.x + (rect.w - w) // 2, rect.y + 1, w, rect.h - 2)
        if fade > 0:
            layer = pygame.Surface(rect.size, pygame.SRCALPHA)
            self._tile(layer, layer.get_rect(), cell, tile)
            layer.set_alpha(round(255 * max(0.0, 1 - fade)))
            surf.blit(layer, rect)
            return
        self._tile(surf, rect, cell, tile)

    def _tile(self, surf: pygame.Surface, rect: pygame.Rect, cell: Cell, tile: Any) -> None:
        face_colour = SELECTED_FACE if cell == self.selected else TILE_FACE
        edge = d.GOLD if cell in self.marked else None
        face = d.tile(surf, rect, face_colour, depth=0.1, radius=0.12, edge=edge)
        if surf is self.app.screen:
            self.faces[cell] = face
        if edge is not None:
            pygame.draw.rect(surf, edge, face, width=3, border_radius=4)
        self.paint_face(surf, face.inflate(-4, -4), tile)

    def draw_path(self, surf: pygame.Surface, path: list[Cell], colour: d.Colour) -> None:
        if len(path) < 2:
            return
        points = [self.grid.centre(r, c) for r, c in path]
        width = max(3, self.grid.cell // 10)
        pygame.draw.lines(surf, d.shade(colour, 0.4), False, points, width + 2)
        pygame.draw.lines(surf, colour, False, points, width)
        for p in (points[0], points[-1]):
            d.aa_circle(surf, p, width * 1.6, colour)
