"""The player's finished games, newest first, a page at a time; each one can be replayed.

One row per room of the ``history`` reply: the game, the outcome for the player,
every seat's name and score, when it finished, and a Replay button that opens
:class:`~tilehall.clients.pygame.scenes.replay.ReplayScene` on it (coming back
returns to this very page).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import pygame
from tilehall.clients.pygame import draw as d
from tilehall.clients.pygame.scenes.base import Scene
from tilehall.clients.pygame.scenes.pages import ListScene
from tilehall.clients.pygame.scenes.replay import ReplayScene
from tilehall.clients.pygame.widgets import Button

if TYPE_CHECKING:
    from tilehall.clients.pygame.scenes.base import App

__all__ = ["OUTCOME_COLOURS", "HistoryScene", "when"]

OUTCOME_COLOURS: dict[str, d.Colour] = {
    "won": d.GOOD,
    "lost": d.BAD,
    "drawn": d.GOLD,
    "finished": d.ACCENT,
    "closed": d.TEXT_DIM,
}


def when(at: float, now: float | None = None) -> str:
    """A finishing time as this machine's local clock reads it, short for recent days."""
    t, today = time.localtime(at), time.localtime(time.time() if now is None else now)
    if t.tm_year == today.tm_year and t.tm_yday == today.tm_yday:
        return time.strftime("today %H:%M", t)
    if t.tm_year == today.tm_year:
        return time.strftime("%d %b %H:%M", t)
    return time.strftime("%d %b %Y", t)


def seat_text(player: dict[str, Any]) -> str:
    """A seat of a history row: the name, and a COMP's level."""
    name = str(player.get("name") or "?")
    return f"{name} ({player['bot']})" if player.get("bot") else name


class HistoryScene(ListScene):
    """Your finished games, a page at a time, filtered by game if you like."""

    reply_type = "history"
    row_height = 58
    title = "My games"

    def __init__(self, app: App, back: Scene | None = None, *, limit: int | None = None) -> None:
        super().__init__(app, back, limit=limit)
        self.game: str | None = None
        """Only this game's rooms; None: every game."""
        self.filter_button = Button("all games", self.next_filter)
        self.extra = [self.filter_button]
        self.replay_buttons: dict[str, Button] = {}
        self.rows: list[tuple[pygame.Rect, dict[str, Any]]] = []
        self.ask()

    def request(self, cursor: str | None) -> dict[str, Any]:
        msg: dict[str, Any] = {"t": "history", "limit": self.limit}
        if self.game is not None:
            msg["game"] = self.game
        if cursor is not None:
            msg["cursor"] = cursor
        return msg

    def next_filter(self) -> None:
        """Show one game after another, then every game again."""
        names: list[str | None] = [None, *(g["name"] for g in self.app.lobby.games)]
        i = names.index(self.game) if self.game in names else 0
        self.game = names[(i + 1) % len(names)]
        self.filter_button.label = self.app.lobby.title(self.game) if self.game else "all games"
        self.pages.restart()
        self.ask()

    def replay(self, room: dict[str, Any]) -> None:
        self.app.scene = ReplayScene(self.app, room["room"], entry=room, back=self)

    def buttons(self) -> list[Button]:
        return [*super().buttons(), *(self.replay_buttons[r["room"]] for _, r in self.rows)]

    def info(self) -> str:
        reply = self.pages.reply or {}
        player = reply.get("player") or self.app.lobby.player or ""
        return f"{player}'s finished games, newest first"

    # -- drawing ------------------------------------------------------------------------

    def draw_page(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        self.filter_button.rect = pygame.Rect(rect.right - 170, rect.y, 170, 32)
        self.filter_button.enabled = not self.pages.pending  # a reply names no filter
        self.filter_button.draw(surf)
        d.text(surf, "Games", (rect.x, rect.y + 2), size=26, colour=d.GOLD)
        top = rect.y + 42
        reply = self.pages.reply
        self.rows = []
        if reply is None:
            wait = "asking the server..." if self.pages.pending else "nothing to show"
            d.text(surf, wait, (rect.x, top), size=21, colour=d.TEXT_DIM)
            return
        if not reply["rooms"]:
            d.text(surf, "No finished games yet.", (rect.x, top), size=21, colour=d.TEXT_DIM)
        for i, room in enumerate(reply["rooms"]):
            row = pygame.Rect(rect.x, top + i * self.row_height, rect.w, self.row_height - 6)
            if row.bottom > rect.bottom:
                break
            self.rows.append((row, room))
            self.draw_row(surf, row, room)

    def draw_row(self, surf: pygame.Surface, row: pygame.Rect, room: dict[str, Any]) -> None:
        pygame.draw.rect(surf, (47, 55, 70), row, border_radius=8)
        rid = room["room"]
        if rid not in self.replay_buttons:
            self.replay_buttons[rid] = Button(
                "Replay", lambda: self.replay(room), tone=(46, 96, 122)
            )
        button = self.replay_buttons[rid]
        button.rect = pygame.Rect(row.right - 96, row.y + 8, 88, row.h - 16)
        button.draw(surf)
        outcome = str(room.get("outcome") or "")
        colour = OUTCOME_COLOURS.get(outcome, d.TEXT_DIM)
        r = d.text(surf, self.app.lobby.title(room["game"]), (row.x + 10, row.y + 5), size=23)
        r = d.text(surf, outcome, (r.right + 12, row.y + 7), size=21, colour=colour)
        if room.get("private"):
            d.text(surf, "private", (r.right + 10, row.y + 9), size=17, colour=d.TEXT_DIM)
        d.text(
            surf,
            f"{when(float(room['finished']))}   {rid}",
            (button.rect.x - 14, row.y + 7),
            size=18,
            colour=d.TEXT_DIM,
            anchor="topright",
        )
        d.text(
            surf,
            (line := self.seats_line(room)),
            (row.x + 10, row.y + 31),
            size=d.text_fit(line, button.rect.x - row.x - 24, 19),
            colour=d.TEXT,
        )

    def seats_line(self, room: dict[str, Any]) -> str:
        """Every seat with its score, the player's own first-named as it sat."""
        scores = room.get("scores")
        players = room.get("players") or []
        if scores is None:
            return "closed by the server's administrator: " + ", ".join(
                seat_text(p) for p in players
            )
        if len(players) == 1:
            return f"score {scores[0]}"
        parts = []
        for i, p in enumerate(players):
            score = scores[i] if i < len(scores) else "-"
            you = " (you)" if i == room.get("seat") else ""
            parts.append(f"{seat_text(p)}{you} {score}")
        return "   ·   ".join(parts)
