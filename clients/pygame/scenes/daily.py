"""Today's deal in the window: the day's table and your result (the lobby's "Today's deal"),
and the result to share over a game of the deal that ended.

Kept in one module: the lobby gains a button, a game scene three calls
(:func:`game_message`, :func:`game_update`, :func:`over_lines`), and the app one
line it says before a game starts (``App.told``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pygame
from tilehall.clients.daily import daily_games, day_before, try_words
from tilehall.clients.pygame import draw as d
from tilehall.clients.pygame.scenes.base import PAD, TOP, Scene, draw_bar
from tilehall.clients.pygame.scenes.replay import ReplayScene
from tilehall.clients.pygame.share import copy_text
from tilehall.clients.pygame.widgets import Button

if TYPE_CHECKING:
    from tilehall.clients.pygame.scenes.base import App

__all__ = ["DailyScene"]


class DailyScene(Scene):
    """One game's table of the day, your result in it, and a button to play the deal."""

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.games = daily_games({g["name"]: g for g in app.lobby.games})
        self.game = self.games[0] if self.games else ""
        self.reply: dict[str, Any] | None = None
        self.back = Button("Back to lobby", app.to_lobby, key=pygame.K_ESCAPE)
        self.game_button = Button(app.lobby.title(self.game), self.next_game)
        self.play_button = Button("Play today's deal", self.play, tone=(46, 110, 74))
        self.copy_button = Button("Copy result", self.copy)
        self.past_button = Button("Yesterday's best", self.toggle_past)
        self.past: dict[str, Any] | None = None
        """Yesterday's table while shown: its best three, a replay each (that day is over)."""
        self.replay_buttons: list[Button] = []
        self.ask()

    def ask(self) -> None:
        self.reply = None
        self.app.net.request({"t": "scores", "game": self.game, "table": "daily"}, tag="daily")

    def next_game(self) -> None:
        if len(self.games) > 1:
            self.game = self.games[(self.games.index(self.game) + 1) % len(self.games)]
            self.game_button.label = self.app.lobby.title(self.game)
            self.ask()

    def toggle_past(self) -> None:
        if self.past is not None or not (self.reply or {}).get("day"):
            self.past, self.replay_buttons = None, []
            return
        day = day_before(str((self.reply or {})["day"]))
        self.app.net.request(
            {"t": "scores", "game": self.game, "table": f"daily-{day}"}, tag="daily-past"
        )

    def _replayer(self, room: str) -> Callable[[], None]:
        return lambda: self.replay(room)

    def replay(self, room: str) -> None:
        self.app.scene = ReplayScene(self.app, room, back=self)

    def play(self) -> None:
        self.app.net.request({"t": "create", "game": self.game, "daily": True}, tag="daily-play")

    def copy(self) -> None:
        share = (self.reply or {}).get("share")
        if share:
            where = "copied" if copy_text(str(share)) else "printed (no clipboard here)"
            self.notice(f"Your result is {where}.", d.GOOD)

    def handle_message(self, msg: dict[str, Any]) -> None:
        if msg.get("_tag") == "daily" and msg.get("t") == "scores" and msg["game"] == self.game:
            self.reply = msg
        elif msg.get("_tag") == "daily-past" and msg.get("t") == "scores":
            self.past = msg
            top = (msg.get("entries") or [])[:3] if msg.get("replays") else []
            self.replay_buttons = [Button("Replay", self._replayer(str(e["room"]))) for e in top]
        elif msg.get("_tag") == "daily-play" and msg.get("t") == "created":
            self.app.told = try_words(msg)  # said on the game's notice line, before it starts
            if msg.get("code"):
                self.app.net.join_code(msg["code"])
            else:
                self.app.net.join(msg["room"])

    def widgets(self) -> list[Button]:
        head = [self.back, self.game_button, self.play_button, self.copy_button]
        return [*head, self.past_button, *self.replay_buttons]

    def handle_event(self, ev: pygame.event.Event) -> None:
        for w in self.widgets():
            if w.handle(ev):
                return

    def draw(self, surf: pygame.Surface) -> None:
        surf.fill(d.BG)
        reply = self.reply or {}
        day = reply.get("day", "")
        draw_bar(surf, "Today's deal", f"the same deal for everyone, UTC day {day}", self.back)
        w, h = surf.get_size()
        rect = pygame.Rect(PAD, TOP + PAD, w - 2 * PAD, h - TOP - 2 * PAD - 30)
        d.panel(surf, rect)
        x, y = rect.x + PAD, rect.y + PAD
        self.game_button.rect = pygame.Rect(x, y, 170, 34)
        self.play_button.rect = pygame.Rect(x + 180, y, 200, 34)
        self.copy_button.rect = pygame.Rect(x + 390, y, 150, 34)
        self.past_button.rect = pygame.Rect(rect.right - PAD - 180, y, 180, 34)
        self.past_button.label = "Today's table" if self.past is not None else "Yesterday's best"
        mine = reply.get("mine") or []
        self.play_button.label = "Practice again" if mine else "Play today's deal"
        self.copy_button.visible = bool(reply.get("share"))
        for b in self.widgets()[1:5]:
            b.enabled = self.app.online and self.reply is not None
            b.draw(surf)
        if self.past is not None:
            self.draw_past(surf, pygame.Rect(x, y + 50, rect.w - 2 * PAD, rect.bottom - y - 60))
            self.draw_notice(surf, pygame.Rect(PAD, h - 30, w - 2 * PAD, 26))
            return
        y += 50
        title = self.app.lobby.title(self.game)
        line = (
            f"Your result today: {mine[0]['score']} (one try counts; another game is practice)"
            if mine
            else f"You have not played today's {title} deal: your first game is the one that counts"
        )
        d.text(surf, line, (x, y), size=d.text_fit(line, rect.w - 2 * PAD, 22), colour=d.GOLD)
        y += 34
        for row in str(reply.get("share") or "").splitlines():
            d.text(surf, row, (x, y), size=20, colour=d.TEXT)
            y += 24
        y += 10
        entries = reply.get("entries") or []
        if self.reply is not None and not entries:
            d.text(surf, "Nobody has played it yet today.", (x, y), size=21, colour=d.TEXT_DIM)
        me = self.app.lobby.player
        for i, e in enumerate(entries):
            if y > rect.bottom - 28:
                break
            colour = d.GOLD if e["name"] == me else d.TEXT
            d.text(surf, f"{i + 1}.", (x, y), size=21, colour=d.TEXT_DIM)
            d.text(surf, str(e["name"]), (x + 40, y), size=21, colour=colour)
            d.text(surf, str(e["score"]), (x + 360, y), size=21, colour=colour, anchor="topright")
            y += 26
        self.draw_notice(surf, pygame.Rect(PAD, h - 30, w - 2 * PAD, 26))

    def draw_past(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        """Yesterday's best three, each with its Replay button."""
        past = self.past or {}
        entries = (past.get("entries") or [])[:3]
        title = f"Yesterday's deal ({past.get('day', '')}): the best three"
        d.text(surf, title, (rect.x, rect.y), size=24, colour=d.GOLD)
        if not entries:
            d.text(surf, "Nobody played it.", (rect.x, rect.y + 40), size=21, colour=d.TEXT_DIM)
        for i, e in enumerate(entries):
            y = rect.y + 40 + 40 * i
            d.text(surf, f"{i + 1}. {e['name']}", (rect.x, y + 6), size=22, colour=d.TEXT)
            d.text(surf, str(e["score"]), (rect.x + 360, y + 6), size=22, anchor="topright")
            if i < len(self.replay_buttons):
                self.replay_buttons[i].rect = pygame.Rect(rect.x + 380, y, 110, 32)
                self.replay_buttons[i].draw(surf)
