"""Drawing helpers: the palette, cached fonts, text, panels, tiles and a grid that fits.

Everything is drawn with pygame's own primitives and its default font, at the
window's real resolution (no scaled bitmaps), so the client ships no assets and
stays sharp at any window size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import pygame
import pygame.gfxdraw

__all__ = [
    "ACCENT",
    "BAD",
    "BG",
    "GOLD",
    "GOOD",
    "PANEL",
    "PANEL_EDGE",
    "TEXT",
    "TEXT_DIM",
    "Colour",
    "Grid",
    "aa_circle",
    "aa_polygon",
    "blend",
    "font",
    "lighten",
    "panel",
    "shade",
    "text",
    "text_fit",
    "tile",
]

Colour = tuple[int, int, int]

BG: Colour = (27, 31, 40)
PANEL: Colour = (39, 45, 57)
PANEL_EDGE: Colour = (64, 73, 92)
TEXT: Colour = (232, 234, 238)
TEXT_DIM: Colour = (150, 157, 172)
ACCENT: Colour = (92, 160, 255)
GOOD: Colour = (86, 196, 120)
BAD: Colour = (232, 92, 82)
GOLD: Colour = (244, 196, 68)


@cache
def font(size: int) -> pygame.font.Font:
    """pygame's default font at ``size`` pixels (cached: making a font is slow)."""
    return pygame.font.Font(None, max(8, size))


def blend(a: Colour, b: Colour, t: float) -> Colour:
    """The colour ``t`` of the way from ``a`` to ``b``."""
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


def lighten(c: Colour, t: float) -> Colour:
    return blend(c, (255, 255, 255), t)


def shade(c: Colour, t: float) -> Colour:
    return blend(c, (0, 0, 0), t)


def text(
    surf: pygame.Surface,
    s: str,
    pos: tuple[float, float],
    *,
    size: int = 22,
    colour: Colour = TEXT,
    anchor: str = "topleft",
) -> pygame.Rect:
    """Draw ``s`` with its ``anchor`` point (a pygame.Rect attribute name) at ``pos``."""
    img = font(size).render(s, True, colour)
    rect = img.get_rect(**{anchor: (round(pos[0]), round(pos[1]))})
    surf.blit(img, rect)
    return rect


def text_fit(s: str, width: int, size: int) -> int:
    """The largest size not above ``size`` at which ``s`` fits in ``width`` pixels."""
    while size > 9 and font(size).size(s)[0] > width:
        size -= 1
    return size


def panel(
    surf: pygame.Surface,
    rect: pygame.Rect,
    *,
    fill: Colour = PANEL,
    edge: Colour | None = PANEL_EDGE,
    radius: int = 10,
) -> None:
    """A rounded panel with a thin edge."""
    pygame.draw.rect(surf, fill, rect, border_radius=radius)
    if edge is not None:
        pygame.draw.rect(surf, edge, rect, width=1, border_radius=radius)


def tile(
    surf: pygame.Surface,
    rect: pygame.Rect,
    face: Colour,
    *,
    depth: float = 0.12,
    radius: float = 0.16,
    edge: Colour | None = None,
) -> pygame.Rect:
    """A raised tile: a darker base under a face shifted up-left; returns the face rect.

    The face is flat-filled so that its colour can be read back anywhere away from
    what is drawn on it (the tests rely on that).
    """
    d = max(1, round(min(rect.w, rect.h) * depth))
    r = max(2, round(min(rect.w, rect.h) * radius))
    base = pygame.Rect(rect.x + d // 2, rect.y + d // 2, rect.w - d // 2, rect.h - d // 2)
    pygame.draw.rect(surf, shade(face, 0.45), base, border_radius=r)
    top = pygame.Rect(rect.x, rect.y, rect.w - d, rect.h - d)
    pygame.draw.rect(surf, face, top, border_radius=r)
    pygame.draw.rect(surf, edge or shade(face, 0.25), top, width=1, border_radius=r)
    return top


def aa_circle(
    surf: pygame.Surface, centre: tuple[float, float], radius: float, colour: Colour
) -> None:
    """A filled, anti-aliased circle."""
    x, y, r = round(centre[0]), round(centre[1]), max(1, round(radius))
    pygame.gfxdraw.filled_circle(surf, x, y, r, colour)
    pygame.gfxdraw.aacircle(surf, x, y, r, colour)


def aa_polygon(surf: pygame.Surface, points: list[tuple[float, float]], colour: Colour) -> None:
    """A filled, anti-aliased polygon."""
    pts = [(round(x), round(y)) for x, y in points]
    pygame.gfxdraw.filled_polygon(surf, pts, colour)
    pygame.gfxdraw.aapolygon(surf, pts, colour)


def star_points(
    cx: float, cy: float, outer: float, inner: float, n: int = 5
) -> list[tuple[float, float]]:
    """The corners of an ``n``-pointed star, one point straight up."""
    pts = []
    for i in range(2 * n):
        r = outer if i % 2 == 0 else inner
        a = -math.pi / 2 + i * math.pi / n
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return pts


@dataclass(frozen=True, slots=True)
class Grid:
    """A ``rows x cols`` board of square cells fitted and centred in an area.

    Args:
        area: where the board may go.
        rows, cols: the board's size in cells.
        margin: extra cells of room kept around the board (Shisen-Sho's margin).
    """

    area: pygame.Rect
    rows: int
    cols: int
    margin: float = 0.0

    @property
    def cell(self) -> int:
        """The side of one cell in pixels."""
        span_c = self.cols + 2 * self.margin
        span_r = self.rows + 2 * self.margin
        return max(4, int(min(self.area.w / span_c, self.area.h / span_r)))

    @property
    def rect(self) -> pygame.Rect:
        """The board itself (without the margin)."""
        s = self.cell
        w, h = s * self.cols, s * self.rows
        return pygame.Rect(self.area.centerx - w // 2, self.area.centery - h // 2, w, h)

    def cell_rect(self, r: float, c: float) -> pygame.Rect:
        """The rect of cell ``(r, c)``; margin cells (-1 or rows/cols) work too."""
        s, b = self.cell, self.rect
        return pygame.Rect(round(b.x + c * s), round(b.y + r * s), s, s)

    def centre(self, r: float, c: float) -> tuple[int, int]:
        s, b = self.cell, self.rect
        return (round(b.x + (c + 0.5) * s), round(b.y + (r + 0.5) * s))

    def at(self, pos: tuple[int, int]) -> tuple[int, int] | None:
        """The cell under a pixel, or None off the board."""
        s, b = self.cell, self.rect
        if not b.collidepoint(pos):
            return None
        return ((pos[1] - b.y) // s, (pos[0] - b.x) // s)
