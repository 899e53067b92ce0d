"""A rated game's leaderboard, a page at a time, with the player's own rating above it.

Ratings are Glicko-2 estimates: the ``rd`` shown after each is how unsure the
server still is; a rating reads as every client writes it (clients/words.py
``rating_text``: twice the deviation either way, about 95 % sure).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pygame
from tilehall.clients.pygame import draw as d
from tilehall.clients.pygame.scenes.base import Scene
from tilehall.clients.pygame.scenes.pages import ListScene
from tilehall.clients.pygame.widgets import Button
from tilehall.clients.words import rating_text

if TYPE_CHECKING:
    from tilehall.clients.pygame.scenes.base import App

__all__ = ["LeaderboardScene"]


class LeaderboardScene(ListScene):
    """One rated game's players, best first; another rated game is a click away."""

    reply_type = "leaderboard"
    row_height = 28
    title = "Leaderboard"

    def __init__(
        self, app: App, game: str, back: Scene | None = None, *, limit: int | None = None
    ) -> None:
        super().__init__(app, back, limit=limit)
        self.game = game
        self.game_button = Button(app.lobby.title(game), self.next_game)
        self.extra = [self.game_button]
        self.ask()

    def rated_games(self) -> list[str]:
        return [g["name"] for g in self.app.lobby.games if g.get("rated")]

    def request(self, cursor: str | None) -> dict[str, Any]:
        msg: dict[str, Any] = {"t": "leaderboard", "game": self.game, "limit": self.limit}
        if cursor is not None:
            msg["cursor"] = cursor
        return msg

    def next_game(self) -> None:
        games = self.rated_games()
        if len(games) > 1:
            self.game = games[(games.index(self.game) + 1) % len(games)]
            self.game_button.label = self.app.lobby.title(self.game)
            self.pages.restart()
            self.ask()

    def info(self) -> str:
        return f"{self.app.lobby.title(self.game)} players by rating (Glicko-2)"

    def draw_page(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        self.game_button.rect = pygame.Rect(rect.right - 170, rect.y, 170, 32)
        self.game_button.enabled = len(self.rated_games()) > 1 and not self.pages.pending
        self.game_button.draw(surf)
        mine = self.app.lobby.ratings.get(self.game)
        line = "Your rating: " + (rating_text(mine) if mine else "-")
        d.text(surf, line, (rect.x, rect.y + 4), size=24, colour=d.GOLD)
        y = rect.y + 44
        x_rating, x_rd, x_games = rect.x + rect.w * 0.55, rect.x + rect.w * 0.72, rect.right - 8
        for label, x in (("rating", x_rating), ("±", x_rd), ("games", x_games)):
            d.text(surf, label, (x, y), size=18, colour=d.TEXT_DIM, anchor="topright")
        d.text(surf, "player", (rect.x + 56, y), size=18, colour=d.TEXT_DIM)
        y += 24
        reply = self.pages.reply
        if reply is None:
            wait = "asking the server..." if self.pages.pending else "nothing to show"
            d.text(surf, wait, (rect.x, y), size=21, colour=d.TEXT_DIM)
            return
        if not reply["entries"]:
            d.text(surf, "Nobody has a rated game yet.", (rect.x, y), size=21, colour=d.TEXT_DIM)
        me = self.app.lobby.player
        for i, e in enumerate(reply["entries"]):
            if y + self.row_height > rect.bottom:
                break
            row = pygame.Rect(rect.x, y, rect.w, self.row_height - 2)
            if i % 2 == 0:
                pygame.draw.rect(surf, (45, 52, 66), row, border_radius=6)
            colour = d.GOLD if e["name"] == me else d.TEXT
            rank = self.pages.index * self.limit + i + 1
            mid = row.centery
            d.text(
                surf, f"{rank}.", (rect.x + 44, mid), size=20, colour=d.TEXT_DIM, anchor="midright"
            )
            d.text(
                surf, str(e["name"]), (rect.x + 56, mid), size=21, colour=colour, anchor="midleft"
            )
            d.text(
                surf,
                f"{e['rating']:.0f}",
                (x_rating, mid),
                size=21,
                colour=colour,
                anchor="midright",
            )
            d.text(
                surf,
                f"{2 * e['rd']:.0f}",
                (x_rd, mid),
                size=19,
                colour=d.TEXT_DIM,
                anchor="midright",
            )
            d.text(surf, str(e["games"]), (x_games, mid), size=19, colour=colour, anchor="midright")
            y += self.row_height
