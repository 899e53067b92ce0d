"""Lines (CLines): click a chip, then an empty cell; the chip travels the server's path.

The server says everything: the path the chip took (``moved``), the lines that
went (``removed``) and where the computer threw (``thrown``). The scene plays
those events back over the view as it was before the update - the chip
travels, the removed chips shrink, the thrown ones grow - then shows the new view.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import pygame
from tilehall.clients.model import Change
from tilehall.clients.pygame import draw as d
from tilehall.clients.pygame.scenes.base import GameScene
from tilehall.clients.pygame.widgets import Button

__all__ = ["CHIP_COLOURS", "EMPTY_FILL", "LinesScene", "chip"]

CHIP_COLOURS: dict[int, d.Colour] = {
    1: (226, 72, 66),  # red
    2: (72, 182, 88),  # green
    3: (70, 124, 236),  # blue
    4: (240, 206, 60),  # yellow
    5: (190, 88, 200),  # magenta
    6: (62, 200, 206),  # cyan
    7: (244, 140, 48),  # orange
    8: (236, 236, 240),  # white
    9: (150, 104, 72),  # brown
}
EMPTY_FILL: d.Colour = (46, 53, 67)
BOARD_EDGE: d.Colour = (34, 39, 50)
STEP = 0.045
"""Seconds the travelling chip takes per cell of its path."""
POP = 0.3
"""Seconds removed chips take to vanish and thrown chips to appear."""


def chip(surf: pygame.Surface, centre: tuple[float, float], radius: float, value: int) -> None:
    """A shiny chip: a rim, the body, and a highlight kept clear of the centre."""
    if radius < 1:
        return
    base = CHIP_COLOURS.get(value, (200, 200, 200))
    cx, cy = centre
    d.aa_circle(surf, (cx + radius * 0.06, cy + radius * 0.1), radius, d.shade(base, 0.55))
    d.aa_circle(surf, centre, radius, d.shade(base, 0.2))
    d.aa_circle(surf, centre, radius * 0.86, base)
    d.aa_circle(surf, (cx - radius * 0.36, cy - radius * 0.36), radius * 0.22, d.lighten(base, 0.6))


@dataclass(slots=True)
class Playback:
    """One update being played back: the travelling chip, then the pops."""

    change: Change
    start: float
    path: list[tuple[int, int]]
    colour: int
    removed: dict[tuple[int, int], int]
    thrown: dict[tuple[int, int], int]

    @property
    def travel(self) -> float:
        return STEP * max(0, len(self.path) - 1)

    def done(self, now: float) -> bool:
        return now - self.start > self.travel + POP


class LinesScene(GameScene):
    """The board on the left; score, streak, moves and the next chips on the right."""

    def __init__(self, app: Any, model: Any) -> None:
        super().__init__(app, model)
        self.selected: tuple[int, int] | None = None
        self.grid = d.Grid(pygame.Rect(0, 0, 1, 1), 9, 9)
        self.playback: Playback | None = None
        self.undo_button = Button("Undo", self.undo, key=pygame.K_u)
        self.quit_button = Button("Quit", self.quit, tone=(88, 62, 66))
        self.buttons = [self.undo_button, self.quit_button]

    def quit(self) -> None:
        if self.confirmed("quit", "Press Quit again to end the game here (its score counts)."):
            self.send({"do": "quit"})

    def update_buttons(self) -> None:
        self.undo_button.enabled = self.playing and int(self.view.get("moves") or 0) > 0
        self.quit_button.enabled = self.playing
        self.quit_button.toggled = self.confirming("quit")

    @property
    def board(self) -> list[list[int]]:
        return list(self.view.get("board") or [])

    # -- input -------------------------------------------------------------------------

    def click(self, pos: tuple[int, int], button: int) -> None:
        if button == 3:
            self.selected = None
            return
        cell = self.grid.at(pos)
        if cell is None or not self.playing:
            return
        r, c = cell
        if self.board[r][c]:
            self.selected = None if self.selected == cell else cell
        elif self.selected is not None:
            self.send({"do": "move", "from": list(self.selected), "to": [r, c]})
            self.selected = None

    def on_change(self, change: Change) -> None:
        super().on_change(change)
        path: list[tuple[int, int]] = []
        colour = 0
        removed: dict[tuple[int, int], int] = {}
        thrown: dict[tuple[int, int], int] = {}
        before = change.before.get("board") or []
        points = 0
        for ev in change.events:
            e = ev.get("e")
            if e == "moved":
                path = [(p[0], p[1]) for p in ev["path"]]
                colour = ev["colour"]
            elif e == "thrown":
                for cell, col in zip(ev["cells"], ev["colours"], strict=False):
                    thrown[(cell[0], cell[1])] = col
            elif e == "removed":
                points += ev["points"]
                for r, c in ev["cells"]:
                    was = before[r][c] if r < len(before) and c < len(before[r]) else 0
                    if path and (r, c) == path[-1]:
                        was = colour
                    removed[(r, c)] = thrown.get((r, c)) or was or colour
        if points and not any(ev.get("e") == "game_over" for ev in change.events):
            self.notice(f"+{points} points", d.GOLD)
        self.playback = Playback(change, change.at, path, colour, removed, thrown)
        self.selected = None

    # -- drawing ------------------------------------------------------------------------

    def draw_board(self, surf: pygame.Surface, area: pygame.Rect) -> None:
        v = self.view
        rows, cols = int(v.get("height", 9)), int(v.get("width", 9))
        self.grid = g = d.Grid(area, rows, cols, margin=0.2)
        frame = g.rect.inflate(g.cell // 3, g.cell // 3)
        pygame.draw.rect(surf, BOARD_EDGE, frame, border_radius=max(4, g.cell // 5))
        for r in range(rows):
            for c in range(cols):
                pygame.draw.rect(
                    surf,
                    EMPTY_FILL,
                    g.cell_rect(r, c).inflate(-3, -3),
                    border_radius=max(2, g.cell // 8),
                )
        now = time.monotonic()
        pb = self.playback
        if pb is not None and pb.done(now):
            self.playback = pb = None
        if pb is not None and now - pb.start < pb.travel:
            self.draw_travel(surf, pb, now - pb.start)
            return
        self.draw_chips(surf, self.board, now)
        if pb is not None:
            self.draw_pops(surf, pb, (now - pb.start - pb.travel) / POP)

    def draw_chips(self, surf: pygame.Surface, board: list[list[int]], now: float) -> None:
        g = self.grid
        radius = g.cell * 0.38
        thrown = self.playback.thrown if self.playback else {}
        for r, row in enumerate(board):
            for c, value in enumerate(row):
                if not value or (r, c) in thrown:
                    continue
                x, y0 = g.centre(r, c)
                y = float(y0)
                if (r, c) == self.selected:
                    y -= abs(math.sin(now * 7)) * g.cell * 0.12
                    pygame.draw.rect(
                        surf,
                        d.GOLD,
                        g.cell_rect(r, c).inflate(-3, -3),
                        width=2,
                        border_radius=max(2, g.cell // 8),
                    )
                chip(surf, (x, y), radius, value)

    def draw_travel(self, surf: pygame.Surface, pb: Playback, t: float) -> None:
        """The board before the move, the chip part-way along its path."""
        before = [list(row) for row in pb.change.before.get("board") or []]
        r0, c0 = pb.path[0]
        if r0 < len(before):
            before[r0][c0] = 0
        self.draw_chips(surf, before, 0.0)
        i = min(len(pb.path) - 2, int(t / STEP))
        f = min(1.0, t / STEP - i)
        (ra, ca), (rb, cb) = pb.path[i], pb.path[i + 1]
        pos = self.grid.centre(ra + (rb - ra) * f, ca + (cb - ca) * f)
        chip(surf, pos, self.grid.cell * 0.38, pb.colour)

    def draw_pops(self, surf: pygame.Surface, pb: Playback, f: float) -> None:
        """Removed chips shrink away; thrown chips grow in."""
        f = max(0.0, min(1.0, f))
        r = self.grid.cell * 0.38
        for (row, col), value in pb.removed.items():
            chip(surf, self.grid.centre(row, col), r * (1 - f) * (1 + 0.3 * f), value)
        board = self.board
        for (row, col), value in pb.thrown.items():
            if row < len(board) and board[row][col] == value:
                chip(surf, self.grid.centre(row, col), r * f, value)

    def draw_panel(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        v = self.view
        x, y, w = rect.x, rect.y, rect.w
        y = self.stat(surf, x, y, w, "score", v.get("score", 0), d.GOLD)
        y = self.stat(surf, x, y, w, "streak", v.get("streak", 0))
        y = self.stat(surf, x, y, w, "moves", v.get("moves", 0))
        empty = sum(1 for row in self.board for cell in row if not cell)
        y = self.stat(surf, x, y, w, "empty cells", empty)
        y += 10
        nxt = v.get("next")
        if nxt:
            d.text(surf, "next", (x, y), size=21, colour=d.TEXT_DIM)
            y += 28
            for i, value in enumerate(nxt):
                chip(surf, (x + 16 + i * 36, y + 14), 14, value)
            y += 40
        rules = (
            f"{v.get('width')}x{v.get('height')}, {v.get('colours')} colours, "
            f"lines of {v.get('min_line')}, {v.get('throw')} per throw"
        )
        d.text(surf, rules, (x, y), size=d.text_fit(rules, w, 18), colour=d.TEXT_DIM)
        y += 24
        y = self.draw_undos(surf, x, y, w)
        if not v.get("eligible", True) and not v.get("undos"):
            d.text(surf, "not for the record table", (x, y), size=18, colour=d.TEXT_DIM)
            y += 24
        if v.get("warning"):
            d.text(
                surf,
                str(v["warning"]),
                (x, y),
                size=d.text_fit(str(v["warning"]), w, 18),
                colour=d.BAD,
            )
            y += 24
        y += 10
        if self.model.seat is None:
            return  # a spectator (or a replay) has nothing to click
        for line in ("Click a chip, then an empty cell", "it can reach. Right click: let go."):
            d.text(surf, line, (x, y), size=18, colour=d.TEXT_DIM)
            y += 22

    def over_title(self) -> str:
        reason = (self.view.get("result") or {}).get("reason") or self.view.get("reason")
        return {
            "no_room": "No room left",
            "board_full": "The board is full",
            "quit": "Game over: quit",
        }.get(str(reason), "Game over")
