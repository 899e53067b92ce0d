"""LinkSame: pair identical pictures; hint and shuffle cost points; stages slide the tiles.

A click dismisses a hint's path (the view keeps it until the next pair); the
score shows red once the shot clock has cost points since the last pair.

Pictures are drawn, not loaded: a picture kind is a shape in a colour (six
shapes times six colours covers the 36 kinds of the largest board).
"""

from __future__ import annotations

import time
from typing import Any

import pygame
from tilehall.clients.pygame import draw as d
from tilehall.clients.pygame.scenes.shisen import ShisenScene
from tilehall.clients.pygame.widgets import Button

__all__ = ["PICTURE_COLOURS", "LinkSameScene", "picture"]

PICTURE_COLOURS: tuple[d.Colour, ...] = (
    (206, 52, 52),  # red
    (36, 120, 210),  # blue
    (40, 150, 70),  # green
    (232, 140, 20),  # orange
    (140, 70, 180),  # purple
    (52, 52, 62),  # ink
)


def picture(surf: pygame.Surface, face: pygame.Rect, kind: int) -> None:
    """Picture ``kind``: shape ``kind % 6`` in colour ``kind // 6`` (shifted per shape)."""
    shape = kind % 6
    colour = PICTURE_COLOURS[(kind // 6 + shape) % 6]
    cx, cy = face.center
    s = min(face.w, face.h) * 0.32
    if shape == 0:
        d.aa_circle(surf, (cx, cy), s, colour)
        d.aa_circle(surf, (cx, cy), s * 0.45, d.lighten(colour, 0.75))
    elif shape == 1:
        d.aa_polygon(surf, [(cx, cy - s), (cx + s, cy + s * 0.8), (cx - s, cy + s * 0.8)], colour)
    elif shape == 2:
        d.aa_polygon(
            surf,
            [
                (cx - s * 0.8, cy - s * 0.8),
                (cx + s * 0.8, cy - s * 0.8),
                (cx + s * 0.8, cy + s * 0.8),
                (cx - s * 0.8, cy + s * 0.8),
            ],
            colour,
        )
        d.aa_polygon(
            surf,
            [
                (cx - s * 0.3, cy - s * 0.3),
                (cx + s * 0.3, cy - s * 0.3),
                (cx + s * 0.3, cy + s * 0.3),
                (cx - s * 0.3, cy + s * 0.3),
            ],
            d.lighten(colour, 0.75),
        )
    elif shape == 3:
        d.aa_polygon(
            surf, [(cx, cy - s), (cx + s * 0.8, cy), (cx, cy + s), (cx - s * 0.8, cy)], colour
        )
    elif shape == 4:
        d.aa_polygon(surf, d.star_points(cx, cy + s * 0.08, s * 1.05, s * 0.45), colour)
    else:  # heart
        r = s * 0.52
        d.aa_circle(surf, (cx - r * 0.9, cy - r * 0.5), r, colour)
        d.aa_circle(surf, (cx + r * 0.9, cy - r * 0.5), r, colour)
        d.aa_polygon(
            surf,
            [(cx - s * 0.98, cy - r * 0.2), (cx + s * 0.98, cy - r * 0.2), (cx, cy + s)],
            colour,
        )


class LinkSameScene(ShisenScene):
    """The board, the stage and score, the shot clock; hint, shuffle, restart and quit."""

    TOLD = ShisenScene.TOLD | {"shot_clock", "hint", "shuffled", "stage", "restarted", "removed"}
    """The events told on the notice line (see :mod:`tilehall.clients.words`)."""

    def __init__(self, app: Any, model: Any) -> None:
        super().__init__(app, model)
        self.hint_button = Button("Hint", lambda: self.send({"do": "hint"}), key=pygame.K_h)
        self.shuffle_button = Button(
            "Shuffle", lambda: self.send({"do": "shuffle"}), key=pygame.K_s
        )
        self.restart_button = Button("Restart stage", lambda: self.send({"do": "restart"}))
        self.quit_button = Button("Quit", self.quit, tone=(88, 62, 66))
        self.buttons = [
            self.hint_button,
            self.shuffle_button,
            self.undo_button,
            self.restart_button,
            self.pause_button,
            self.quit_button,
        ]
        self.dismissed: Any = None
        """The hint the player clicked away (the view keeps it until the next pair)."""
        self.charged = False
        """The shot clock has cost points since the last pair: the score shows red."""
        self.quit_at = -10.0

    @property
    def timed(self) -> bool:
        return bool(self.view.get("mode", "timed") != "practice")

    def quit(self) -> None:
        now = time.monotonic()
        if now - self.quit_at < 3:
            self.send({"do": "quit"})
        else:
            self.quit_at = now
            self.notice("Press Quit again: a quit game is over for good.", d.GOLD)

    def paint_face(self, surf: pygame.Surface, face: pygame.Rect, tile: Any) -> None:
        picture(surf, face, int(tile))

    def click(self, pos: tuple[int, int], button: int) -> None:
        if self.view.get("hint") and self.view.get("hint") != self.dismissed:
            self.dismissed = self.view.get("hint")  # a click dismisses the hint, as in LinkSame
        super().click(pos, button)

    def on_change(self, change: Any) -> None:
        super().on_change(change)
        for ev in change.events:
            e = ev.get("e")
            if e == "shot_clock":
                self.charged = True
            elif e in ("removed", "stage"):
                self.charged = False

    def update_buttons(self) -> None:
        timed = self.timed
        self.hint_button.label = "Hint (-10)" if timed else "Hint"
        self.shuffle_button.label = "Shuffle (-20)" if timed else "Shuffle"
        for b in (self.hint_button, self.shuffle_button, self.restart_button, self.quit_button):
            b.enabled = self.active
        super().update_buttons()
        self.quit_button.toggled = time.monotonic() - self.quit_at < 3

    def draw_board(self, surf: pygame.Surface, area: pygame.Rect) -> None:
        hint = self.view.get("hint")
        if hint and hint != self.dismissed:
            self.hint_path = [(p[0], p[1]) for p in hint["path"]]
            self.marked = {(hint["a"][0], hint["a"][1]), (hint["b"][0], hint["b"][1])}
        else:
            self.hint_path = []
        super().draw_board(surf, area)

    def seconds_to(self, key: str) -> float | None:
        """Seconds from now to the view's server time ``key`` (None when it has none)."""
        at = self.view.get(key)
        return None if at is None else self.model.clock.left(float(at))

    def draw_panel(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        v = self.view
        x, y, w = rect.x, rect.y, rect.w
        timed = self.timed
        if timed:
            y = self.stat(
                surf, x, y, w, "score", v.get("score", 0), d.BAD if self.charged else d.GOLD
            )
        stage, stages = int(v.get("stage", 0)), v.get("stages")
        y = self.stat(surf, x, y, w, "stage", f"{stage + 1} of {stages}")
        y = self.stat(surf, x, y, w, "tiles left", v.get("tiles_left", "-"))
        y = self.stat(
            surf, x, y, w, "board", f"{v.get('size', '')} {v.get('cols')}x{v.get('rows')}"
        )
        d.text(surf, "movement", (x, y), size=21, colour=d.TEXT_DIM)
        y += 24
        move = str(v.get("movement", ""))
        d.text(surf, move, (x + 12, y), size=d.text_fit(move, w - 12, 20))
        y += 30
        if timed and self.model.status == "playing":
            bonus = self.seconds_to("bonus_until")
            if bonus:
                y = self.stat(surf, x, y, w, "speed bonus for", f"{bonus:.0f} s", d.GOOD)
            shot = self.seconds_to("shot_deadline")
            if shot is not None:
                y = self.stat(
                    surf,
                    x,
                    y,
                    w,
                    "shot clock -1 in",
                    f"{shot:.0f} s",
                    d.BAD if shot < 3 else d.TEXT,
                )
        y = self.draw_undos(surf, x, y, w) + 8
        if y + 20 <= self.buttons_top:  # a short window keeps the numbers, not this
            d.text(
                surf,
                "Timed mode" if timed else "Practice mode (no clock, no score)",
                (x, y),
                size=19,
                colour=d.TEXT_DIM,
            )

    def over_title(self) -> str:
        return "All stages cleared!" if self.view.get("end") == "completed" else "Game over"
