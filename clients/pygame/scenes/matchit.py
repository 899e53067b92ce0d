"""Match-It: pair mahjong tiles against the clock; HELP and QUIT buttons; P and I bonuses.

Left click selects and pairs; right click lets go of a selection, or, with
nothing selected, asks the server to highlight every tile matching the one
clicked (it costs 4 points). The top of the panel shows lives, level, score and
time, and the Pedigree ``P`` and Internal ``*I*`` indicators as in the original:
one ``*`` per margin still unused.

Tiles are drawn, not loaded: dots and bamboo as pips and sticks, characters as
numerals, winds and dragons as letters, seasons and flowers as named tiles.
"""

from __future__ import annotations

import time
from typing import Any

import pygame
from tilehall.clients.pygame import draw as d
from tilehall.clients.pygame.scenes.shisen import ShisenScene
from tilehall.clients.pygame.widgets import Button

__all__ = ["KINDS", "MatchItScene", "mahjong"]

KINDS: tuple[str, ...] = (
    *(f"dots-{n}" for n in range(1, 10)),
    *(f"bamboo-{n}" for n in range(1, 10)),
    *(f"chars-{n}" for n in range(1, 10)),
    "dragon-red",
    "dragon-green",
    "dragon-white",
    *(f"wind-{n}" for n in ("E", "S", "W", "N")),
    *(f"flower-{n}" for n in ("PLUM", "ORCH", "CHRY", "BAMB")),
    *(f"season-{n}" for n in ("SPR", "SUM", "AUT", "WIN")),
)
"""The 42 kinds by tile id, as ``server/games/matchit.py`` numbers them."""

INK: d.Colour = (34, 34, 40)
RED: d.Colour = (196, 44, 40)
GREEN: d.Colour = (28, 128, 64)
BLUE: d.Colour = (36, 84, 170)

_PIPS: dict[int, list[tuple[float, float]]] = {
    1: [(0.5, 0.5)],
    2: [(0.5, 0.28), (0.5, 0.72)],
    3: [(0.25, 0.22), (0.5, 0.5), (0.75, 0.78)],
    4: [(0.3, 0.3), (0.7, 0.3), (0.3, 0.7), (0.7, 0.7)],
    5: [(0.28, 0.25), (0.72, 0.25), (0.5, 0.5), (0.28, 0.75), (0.72, 0.75)],
    6: [(0.3, 0.2), (0.7, 0.2), (0.3, 0.5), (0.7, 0.5), (0.3, 0.8), (0.7, 0.8)],
    7: [(0.2, 0.16), (0.5, 0.26), (0.8, 0.36), (0.3, 0.62), (0.7, 0.62), (0.3, 0.86), (0.7, 0.86)],
    8: [
        (0.3, 0.14),
        (0.7, 0.14),
        (0.3, 0.38),
        (0.7, 0.38),
        (0.3, 0.62),
        (0.7, 0.62),
        (0.3, 0.86),
        (0.7, 0.86),
    ],
    9: [(x, y) for y in (0.2, 0.5, 0.8) for x in (0.22, 0.5, 0.78)],
}


def mahjong(surf: pygame.Surface, face: pygame.Rect, kind: int) -> None:
    """Draw the face of tile kind ``kind`` (an index into :data:`KINDS`) in ``face``."""
    name = KINDS[kind] if 0 <= kind < len(KINDS) else f"?-{kind}"
    suit, _, rank = name.partition("-")
    if suit == "dots":
        n = int(rank)
        r = face.w * (0.15 if n < 5 else 0.11)
        for i, (fx, fy) in enumerate(_PIPS[n]):
            c = (BLUE, GREEN, RED)[i % 3] if n > 1 else RED
            centre = (face.x + fx * face.w, face.y + fy * face.h)
            d.aa_circle(surf, centre, r, c)
            d.aa_circle(surf, centre, r * 0.45, (246, 240, 222))
    elif suit == "bamboo":
        n = int(rank)
        w, h = max(2, face.w // 9), face.h * (0.2 if n > 6 else 0.28)
        for i, (fx, fy) in enumerate(_PIPS[n]):
            rect = pygame.Rect(0, 0, w, h)
            rect.center = (round(face.x + fx * face.w), round(face.y + fy * face.h))
            pygame.draw.rect(
                surf,
                RED if (n == 1 or (i == 0 and n in (5, 7, 9))) else GREEN,
                rect,
                border_radius=w // 2,
            )
    elif suit == "chars":
        d.text(
            surf,
            rank,
            (face.centerx, face.y + face.h * 0.32),
            size=int(face.h * 0.5),
            colour=INK,
            anchor="center",
        )
        d.text(
            surf,
            "wan",
            (face.centerx, face.y + face.h * 0.75),
            size=int(face.h * 0.3),
            colour=RED,
            anchor="center",
        )
    elif suit == "wind":
        d.text(surf, rank, face.center, size=int(face.h * 0.7), colour=INK, anchor="center")
    elif suit == "dragon":
        if rank == "white":
            pygame.draw.rect(
                surf, BLUE, face.inflate(-face.w // 4, -face.h // 4), width=3, border_radius=3
            )
        else:
            colour = RED if rank == "red" else GREEN
            d.text(surf, "D", face.center, size=int(face.h * 0.7), colour=colour, anchor="center")
    else:  # seasons and flowers: the original's four-letter names
        colour = GREEN if suit == "season" else (176, 60, 150)
        d.aa_circle(surf, (face.centerx, face.y + face.h * 0.34), face.w * 0.2, colour)
        size = d.text_fit(rank, face.w, int(face.h * 0.3))
        d.text(
            surf,
            rank,
            (face.centerx, face.y + face.h * 0.76),
            size=size,
            colour=colour,
            anchor="center",
        )


class MatchItScene(ShisenScene):
    """The sheet, with lives, level, score, time, P and *I* above HELP and QUIT."""

    TOLD = ShisenScene.TOLD | {"highlight", "no_path", "no_pairs", "sheet_clear", "life_lost"}
    """The events told on the notice line (see :mod:`tilehall.clients.words`)."""

    def __init__(self, app: Any, model: Any) -> None:
        super().__init__(app, model)
        self.help_button = Button("HELP", lambda: self.send({"do": "help"}), key=pygame.K_h)
        self.giveup_button = Button("New sheet", self.give_up)
        self.quit_button = Button("QUIT", self.quit, tone=(88, 62, 66))
        self.buttons = [
            self.help_button,
            self.undo_button,
            self.giveup_button,
            self.pause_button,
            self.quit_button,
        ]
        self.miss: tuple[tuple[int, int], tuple[int, int], float] | None = None

    # -- actions -----------------------------------------------------------------------

    def quit(self) -> None:
        if self.confirmed("quit", "Press QUIT again to end the game."):
            self.send({"do": "quit"})

    def give_up(self) -> None:
        if self.confirmed("giveup", "Giving up this sheet costs a life: press again to do it."):
            self.send({"do": "giveup"})

    def paint_face(self, surf: pygame.Surface, face: pygame.Rect, tile: Any) -> None:
        mahjong(surf, face, int(tile))

    def right_click(self, cell: tuple[int, int] | None) -> None:
        if self.selected is not None:
            self.selected = None
        elif cell is not None and self.tile_at(cell) is not None and self.active:
            self.send({"do": "highlight", "at": list(cell)})

    def on_change(self, change: Any) -> None:
        super().on_change(change)
        for ev in change.events:
            e = ev.get("e")
            if e == "highlight":
                self.marked = {(c[0], c[1]) for c in ev["cells"]}
            elif e == "no_path":
                a, b = (ev["a"][0], ev["a"][1]), (ev["b"][0], ev["b"][1])
                self.miss = (a, b, change.at)
            elif e == "removed" and ev.get("help"):
                self.say(self.words().event(ev))

    def update_buttons(self) -> None:
        super().update_buttons()
        helps = self.view.get("helps")
        self.help_button.label = f"HELP ({helps})" if helps is not None else "HELP"
        self.help_button.enabled = self.active and helps != 0
        self.quit_button.enabled = self.giveup_button.enabled = self.active
        self.quit_button.toggled = self.confirming("quit")
        self.giveup_button.toggled = self.confirming("giveup")

    # -- drawing ------------------------------------------------------------------------

    def _tile(self, surf: pygame.Surface, rect: pygame.Rect, cell: Any, tile: Any) -> None:
        super()._tile(surf, rect, cell, tile)
        if self.miss is not None and cell in self.miss[:2]:
            age = time.monotonic() - self.miss[2]
            if age < 0.6:
                pygame.draw.rect(surf, d.BAD, rect, width=3, border_radius=5)

    def time_left(self) -> float | None:
        """Seconds left on the sheet: the server's deadline on the server's clock.

        While paused there is no deadline, and the view's ``time_left`` is what
        the pause kept.
        """
        v = self.view
        if v.get("end") is not None or self.model.status != "playing":
            return None
        deadline = v.get("deadline")
        if deadline is not None:
            return self.model.clock.left(float(deadline))
        told = v.get("time_left")
        return None if told is None else float(told)

    def draw_panel(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        v = self.view
        x, y, w = rect.x, rect.y, rect.w
        self.draw_bonuses(surf, x, y)
        y += 64
        y = self.stat(surf, x, y, w, "lives", v.get("lives", "-"))
        y = self.stat(surf, x, y, w, "level", v.get("level", "-"))
        y = self.stat(surf, x, y, w, "score", v.get("score", 0), d.GOLD)
        left = self.time_left()
        if left is not None:
            t = int(left)
            y = self.stat(
                surf, x, y, w, "time", f"{t // 60}:{t % 60:02d}", d.BAD if t < 30 else d.TEXT
            )
        y = self.stat(surf, x, y, w, "tiles left", v.get("tiles_left", "-"))
        y = self.stat(surf, x, y, w, "sheets cleared", v.get("sheets", 0))
        y = self.draw_undos(surf, x, y, w)
        y += 12
        for line in (
            "Left click: select, pair.",
            "Right click: let go, or",
            "show all matches (-4).",
        ):
            if y + 22 > self.buttons_top or self.model.seat is None:  # the numbers come first
                break
            d.text(surf, line, (x, y), size=18, colour=d.TEXT_DIM)
            y += 22

    def draw_bonuses(self, surf: pygame.Surface, x: int, y: int) -> None:
        """``P`` lit while the Pedigree bonus holds; ``I`` with a star per unused margin."""
        v = self.view
        pedigree = bool(v.get("pedigree", True))
        d.text(
            surf,
            "P",
            (x + 20, y + 24),
            size=40,
            colour=d.GOLD if pedigree else d.TEXT_DIM,
            anchor="center",
        )
        used = set(v.get("margins_used") or [])
        cx, cy = x + 90, y + 24
        offsets = {"left": (-22, 0), "right": (22, 0), "top": (0, -21), "bottom": (0, 22)}
        lit = False
        for side, (dx, dy) in offsets.items():
            if side not in used:
                lit = True
                d.aa_polygon(surf, d.star_points(cx + dx, cy + dy, 7, 3), d.GOLD)
        d.text(
            surf, "I", (cx, cy + 1), size=36, colour=d.GOLD if lit else d.TEXT_DIM, anchor="center"
        )

    def over_title(self) -> str:
        return "No lives left" if self.view.get("end") == "lives" else "Game over"
