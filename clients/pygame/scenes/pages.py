"""Screens that list one page of a server's answer at a time: history, leaderboards.

The server pages these lists with cursors (a reply's ``next`` asks for the page
after it) and never backwards, so going back is remembering: :class:`Pages`
keeps the cursor that led to each page shown so far, and the page before is
asked again with its own cursor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pygame
from tilehall.clients.pygame import draw as d
from tilehall.clients.pygame.scenes.base import NOTICE, PAD, TOP, Scene, draw_bar
from tilehall.clients.pygame.widgets import Button

if TYPE_CHECKING:
    from tilehall.clients.pygame.scenes.base import App

__all__ = ["ListScene", "Pages"]


class Pages:
    """Where a paged list stands: the cursors of the pages so far, and the page shown."""

    def __init__(self) -> None:
        self.cursors: list[str | None] = [None]
        """The cursor that asks for each page so far; the last is the page shown (or asked)."""
        self.reply: dict[str, Any] | None = None
        """The page shown: the server's reply."""
        self.pending = False
        """A page was asked for and its reply has not come yet."""
        self._shown: list[str | None] = [None]
        """The cursors of the page shown, while another is asked for."""

    @property
    def index(self) -> int:
        """The page shown, counted from 0."""
        return len(self.cursors) - 1

    @property
    def cursor(self) -> str | None:
        return self.cursors[-1]

    def has_older(self) -> bool:
        return bool(self.reply and self.reply.get("next")) and not self.pending

    def has_newer(self) -> bool:
        return len(self.cursors) > 1 and not self.pending

    def older(self) -> bool:
        """Move on to the page after the one shown; whether there is one."""
        if not self.has_older():
            return False
        assert self.reply is not None
        self._shown = list(self.cursors)
        self.cursors.append(str(self.reply["next"]))
        return True

    def newer(self) -> bool:
        """Go back to the page before the one shown; whether there is one."""
        if not self.has_newer():
            return False
        self._shown = list(self.cursors)
        self.cursors.pop()
        return True

    def took(self, reply: dict[str, Any]) -> None:
        """The page asked for came: show it."""
        self.reply, self.pending = reply, False
        self._shown = list(self.cursors)

    def failed(self) -> None:
        """The page asked for was refused: the one shown stays."""
        self.pending = False
        self.cursors = list(self._shown)

    def restart(self) -> None:
        """Back to the first page (the list's filter changed)."""
        self.cursors = [None]
        self._shown = [None]
        self.reply = None


class ListScene(Scene):
    """A titled list with a way back and Previous / Next page buttons.

    Subclasses say what to ask (:meth:`request`), which reply is theirs
    (:attr:`reply_type`) and how to draw a page (:meth:`draw_page`). The page
    size is set once, from the window's height, so that a page fills the window
    it opened in (and ranks counted across pages stay right), unless ``limit`` says.
    """

    reply_type = ""
    row_height = 30
    title = ""

    def __init__(self, app: App, back: Scene | None = None, *, limit: int | None = None) -> None:
        super().__init__(app)
        self.back_to = back
        self.pages = Pages()
        self.back_button = Button("Back", self.back, key=pygame.K_ESCAPE, tone=(88, 62, 66))
        self.newer_button = Button("< Newer", self.newer, key=pygame.K_PAGEUP)
        self.older_button = Button("Older >", self.older, key=pygame.K_PAGEDOWN)
        self.extra: list[Button] = []
        """More buttons of the subclass (drawn by it; handled here)."""
        height = app.screen.get_height()
        self.limit = limit or max(4, (height - TOP - NOTICE - 3 * PAD - 110) // self.row_height)
        """Rows asked per page (``limit``; by default, what the window shows)."""

    # -- asking ----------------------------------------------------------------------

    def request(self, cursor: str | None) -> dict[str, Any]:
        """The request for the page that ``cursor`` starts."""
        raise NotImplementedError

    def ask(self) -> None:
        self.pages.pending = True
        self.app.net.request(self.request(self.pages.cursor), tag=self.reply_type)

    def newer(self) -> None:
        if self.pages.newer():
            self.ask()

    def older(self) -> None:
        if self.pages.older():
            self.ask()

    def back(self) -> None:
        if self.back_to is not None:
            self.app.scene = self.back_to
        else:
            self.app.to_lobby()

    def handle_message(self, msg: dict[str, Any]) -> None:
        if msg.get("_tag") == self.reply_type and self.pages.pending:
            self.pages.took(msg)
            self.on_page(msg)

    def on_page(self, msg: dict[str, Any]) -> None:
        """A page arrived and is shown."""

    def error(self, msg: dict[str, Any]) -> None:
        if msg.get("tag") == self.reply_type:
            self.pages.failed()
        super().error(msg)

    # -- input and drawing ------------------------------------------------------------

    def buttons(self) -> list[Button]:
        return [self.back_button, self.newer_button, self.older_button, *self.extra]

    def handle_event(self, ev: pygame.event.Event) -> None:
        for b in self.buttons():
            if b.handle(ev):
                return

    def info(self) -> str:
        """The dim line beside the title."""
        return ""

    def draw(self, surf: pygame.Surface) -> None:
        w, h = surf.get_size()
        surf.fill(d.BG)
        draw_bar(surf, self.title, self.info(), self.back_button)
        body = pygame.Rect(PAD, TOP + PAD, w - 2 * PAD, h - TOP - NOTICE - 2 * PAD)
        d.panel(surf, body)
        inner = body.inflate(-2 * PAD, -2 * PAD)
        bar = pygame.Rect(inner.x, inner.bottom - 36, inner.w, 36)
        self.newer_button.rect = pygame.Rect(bar.x, bar.y, 130, 36)
        self.older_button.rect = pygame.Rect(bar.right - 130, bar.y, 130, 36)
        self.newer_button.enabled = self.pages.has_newer()
        self.older_button.enabled = self.pages.has_older()
        self.newer_button.draw(surf)
        self.older_button.draw(surf)
        page = f"page {self.pages.index + 1}"
        if self.pages.pending:
            page += "  (asking...)"
        d.text(surf, page, bar.center, size=20, colour=d.TEXT_DIM, anchor="center")
        self.draw_page(surf, pygame.Rect(inner.x, inner.y, inner.w, bar.y - inner.y - 8))
        self.draw_notice(surf, pygame.Rect(PAD, h - NOTICE, w - 2 * PAD, NOTICE - 4))

    def draw_page(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        """The page's rows inside ``rect``."""
