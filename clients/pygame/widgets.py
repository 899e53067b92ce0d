"""The few widgets the scenes need: buttons and a one-line text field.

Widgets are laid out by their scene every frame (the window can be resized at any
time), so they hold a rect that the scene sets, and state that outlives a frame
(a field's text, a button being toggled). Clicks are reported on the button-up
inside the same widget that took the button-down, as desktop toolkits do.
"""

from __future__ import annotations

from collections.abc import Callable

import pygame
from tilehall.clients.pygame import draw as d

__all__ = ["Button", "TextField"]


class Button:
    """A rounded push button; ``on_click`` runs on a left click while enabled.

    Args:
        label: the text shown (may change between frames).
        on_click: what a click does.
        key: a keyboard shortcut (a pygame key constant), optional.
        tone: the fill colour; ``toggled`` buttons show it brighter.
    """

    TONE: d.Colour = (58, 68, 88)
    """The plain fill, for a button given no tone of its own."""

    def __init__(
        self,
        label: str,
        on_click: Callable[[], None],
        *,
        key: int | None = None,
        tone: d.Colour | None = None,
    ) -> None:
        self.label = label
        self.on_click = on_click
        self.key = key
        self.tone = tone or self.TONE
        self.rect = pygame.Rect(0, 0, 0, 0)
        self.enabled = True
        self.toggled = False
        self.visible = True
        self._pressed = False

    def handle(self, ev: pygame.event.Event) -> bool:
        """Take ``ev`` if it is for this button; True when it was used."""
        if not (self.visible and self.enabled):
            self._pressed = False
            return False
        if ev.type == pygame.MOUSEBUTTONDOWN and ev.button == 1 and self.rect.collidepoint(ev.pos):
            self._pressed = True
            return True
        if ev.type == pygame.MOUSEBUTTONUP and ev.button == 1 and self._pressed:
            self._pressed = False
            if self.rect.collidepoint(ev.pos):
                self.on_click()
            return True
        if ev.type == pygame.KEYDOWN and self.key is not None and ev.key == self.key:
            self.on_click()
            return True
        return False

    def draw(self, surf: pygame.Surface) -> None:
        if not self.visible or self.rect.w <= 0:
            return
        hover = self.enabled and self.rect.collidepoint(pygame.mouse.get_pos())
        fill = self.tone
        if not self.enabled:
            fill = d.blend(self.tone, d.PANEL, 0.6)
        elif self.toggled:
            fill = d.blend(self.tone, d.ACCENT, 0.45)
        elif hover:
            fill = d.lighten(self.tone, 0.12)
        if self._pressed:
            fill = d.shade(fill, 0.15)
        radius = min(10, self.rect.h // 3)
        pygame.draw.rect(surf, fill, self.rect, border_radius=radius)
        edge = d.GOLD if self.toggled else d.lighten(fill, 0.18)
        pygame.draw.rect(surf, edge, self.rect, width=1, border_radius=radius)
        size = d.text_fit(self.label, self.rect.w - 10, max(12, int(self.rect.h * 0.55)))
        colour = d.TEXT if self.enabled else d.TEXT_DIM
        d.text(surf, self.label, self.rect.center, size=size, colour=colour, anchor="center")


class TextField:
    """A one-line text input that takes keyboard focus when clicked.

    Args:
        text: the starting text.
        placeholder: shown dim while the field is empty.
        limit: the longest text accepted.
        on_enter: called with the text when Return is pressed.
        secret: show a dot for each character (a password).
    """

    def __init__(
        self,
        text: str = "",
        *,
        placeholder: str = "",
        limit: int = 64,
        on_enter: Callable[[str], None] | None = None,
        secret: bool = False,
    ) -> None:
        self.text = text
        self.secret = secret
        self.placeholder = placeholder
        self.limit = limit
        self.on_enter = on_enter
        self.rect = pygame.Rect(0, 0, 0, 0)
        self.focused = False

    def handle(self, ev: pygame.event.Event) -> bool:
        if ev.type == pygame.MOUSEBUTTONDOWN and ev.button == 1:
            was = self.focused
            self.focused = self.rect.collidepoint(ev.pos)
            if self.focused and not was:
                pygame.key.start_text_input()
            return self.focused
        if not self.focused:
            return False
        if ev.type == pygame.TEXTINPUT:
            self.text = (self.text + ev.text)[: self.limit]
            return True
        if ev.type == pygame.KEYDOWN:
            if ev.key == pygame.K_BACKSPACE:
                self.text = self.text[:-1]
            elif ev.key in (pygame.K_RETURN, pygame.K_KP_ENTER) and self.on_enter:
                self.on_enter(self.text.strip())
            elif ev.key == pygame.K_ESCAPE:
                self.focused = False
            return True
        return False

    def draw(self, surf: pygame.Surface) -> None:
        fill = (30, 35, 45) if self.focused else (34, 39, 50)
        edge = d.ACCENT if self.focused else d.PANEL_EDGE
        pygame.draw.rect(surf, fill, self.rect, border_radius=6)
        pygame.draw.rect(surf, edge, self.rect, width=1, border_radius=6)
        size = max(12, int(self.rect.h * 0.55))
        typed = "\u2022" * len(self.text) if self.secret else self.text
        shown, colour = (typed, d.TEXT) if self.text else (self.placeholder, d.TEXT_DIM)
        clip = surf.get_clip()
        surf.set_clip(self.rect.inflate(-8, 0))
        r = d.text(
            surf,
            shown,
            (self.rect.x + 8, self.rect.centery),
            size=size,
            colour=colour,
            anchor="midleft",
        )
        if self.focused and (pygame.time.get_ticks() // 500) % 2 == 0:
            x = r.right + 1 if self.text else self.rect.x + 8
            pygame.draw.line(surf, d.TEXT, (x, self.rect.y + 5), (x, self.rect.bottom - 6), 2)
        surf.set_clip(clip)
