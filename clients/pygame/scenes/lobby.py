"""The lobby: games, live rooms, a create form built from the game's options, scores.

Everything shown comes from the server: the games and their options from
``welcome.games``, the rooms from ``rooms`` (asked again every few seconds while
the lobby is open), the tables from ``scores``, the player's ratings from
``welcome.ratings`` and then ``leaderboard`` (asked each time the lobby opens,
since a game just played moves them). The create form holds only the choices the
player is making; Quick game sends its game and seat count as a ``match``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pygame
from tilehall.clients import words
from tilehall.clients.config import known_names
from tilehall.clients.pygame import draw as d
from tilehall.clients.pygame.scenes.base import PAD, Scene
from tilehall.clients.pygame.scenes.daily import DailyScene
from tilehall.clients.pygame.scenes.history import HistoryScene
from tilehall.clients.pygame.scenes.ratings import LeaderboardScene
from tilehall.clients.pygame.widgets import Button, TextField
from tilehall.clients.words import (
    changed_options,
    option_label,
    quick_request,
    rating_text,
    room_state,
)

if TYPE_CHECKING:
    from tilehall.clients.pygame.scenes.base import App

__all__ = ["LobbyScene", "NameScene", "OptionControl"]

ROOMS_EVERY = 2.0
"""Seconds between two ``rooms`` requests while the lobby is shown."""
JOIN_TONE: d.Colour = (46, 110, 74)
"""Green: a room to play in (Join, Resume)."""
TOP = 56
ROW = 46
ROW_PITCH = 38
"""Pixels from one create-form row to the next, when the window has the room."""
FORM_TOP = 50
FORM_BOTTOM = 96
"""The create form's title above its rows, and the private switch and Create below them."""
SCORES_MIN = 150
"""The high-scores panel's height kept under the create form: its title and a few rows."""
SEAT_CHOICES = ("open seat", "COMP easy", "COMP normal", "COMP hard")
GAME_PITCH = 46
"""Pixels from one game button to the next, when the games panel has the room."""
PRIVATE_H = 106
"""The private-room part of the games panel: its title, the code field and two buttons."""


class OptionControl:
    """One game option in the create form: a stepper, a switch or a cycle of choices.

    The value always stays within what ``welcome.games[].options`` declares, so
    the form cannot build a request the server would refuse for bounds.
    """

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.name: str = spec["name"]
        self.label: str = option_label(spec)
        self.label_rect = pygame.Rect(0, 0, 0, 0)
        """Where :meth:`draw` last wrote the label."""
        self.kind: str = spec["kind"]
        self.value: Any = spec["default"]
        self.buttons: list[Button] = []
        if self.kind == "int":
            self.buttons = [Button("-", lambda: self.step(-1)), Button("+", lambda: self.step(1))]
        else:
            self.buttons = [Button(self._label(), self.cycle)]

    def _label(self) -> str:
        if self.kind == "bool":
            return "on" if self.value else "off"
        return str(self.value)

    def step(self, by: int) -> None:
        if pygame.key.get_mods() & pygame.KMOD_SHIFT:
            by *= 10
        lo, hi = self.spec.get("min"), self.spec.get("max")
        v = self.value + by
        if lo is not None:
            v = max(lo, v)
        if hi is not None:
            v = min(hi, v)
        self.value = v

    def cycle(self) -> None:
        if self.kind == "bool":
            self.value = not self.value
        else:
            choices = list(self.spec.get("choices") or [self.value])
            i = choices.index(self.value) if self.value in choices else -1
            self.value = choices[(i + 1) % len(choices)]
        self.buttons[0].label = self._label()
        self.buttons[0].toggled = self.kind == "bool" and bool(self.value)

    def changed(self) -> bool:
        return bool(self.value != self.spec["default"])

    def layout(self, rect: pygame.Rect) -> None:
        """Place the controls in the right part of ``rect`` (the label takes the left)."""
        h = rect.h - 6
        if self.kind == "int":
            self.buttons[0].rect = pygame.Rect(rect.right - 3 * h - 40, rect.y + 3, h, h)
            self.buttons[1].rect = pygame.Rect(rect.right - h, rect.y + 3, h, h)
        else:
            self.buttons[0].rect = pygame.Rect(rect.right - 3 * h - 40, rect.y + 3, 3 * h + 40, h)

    def draw(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        colour = d.TEXT if self.changed() else d.TEXT_DIM
        room = self.buttons[0].rect.x - rect.x - 8  # the label shrinks rather than run under
        self.label_rect = d.text(
            surf,
            self.label,
            (rect.x, rect.centery),
            size=d.text_fit(self.label, room, 21),
            colour=colour,
            anchor="midleft",
        )
        for b in self.buttons:
            b.draw(surf)
        if self.kind == "int":
            mid = (self.buttons[0].rect.right + self.buttons[1].rect.left) // 2
            d.text(surf, str(self.value), (mid, rect.centery), size=24, anchor="center")


class LobbyScene(Scene):
    """Games on the left, rooms in the middle, create form and high scores on the right."""

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.game: str | None = None
        self.controls: list[OptionControl] = []
        self.players = 1
        self.seat_buttons: list[Button] = []
        self.private = Button("private: off", self.toggle_private)
        self.create_button = Button("Create and play", self.create, tone=(46, 110, 74))
        self.code_field = TextField(placeholder="private code", on_enter=self.join_code)
        self.code_join = Button("Join", lambda: self.join_code(self.code_field.text.strip()))
        self.code_watch = Button("Watch", self.watch_code)
        self.rename = Button("Change name", self.change_name)
        self.history_button = Button("My games", self.open_history)
        self.daily_button = Button("Today's deal", self.open_daily, tone=(110, 88, 40))
        self.quick_button = Button("Quick game", self.quick, tone=(46, 96, 122))
        self.leaderboard_button = Button("Leaderboard", self.open_leaderboard)
        self.table_button = Button("table", self.next_table)
        self.players_buttons: list[Button] = []
        self.game_buttons: dict[str, Button] = {}
        self.room_buttons: dict[str, tuple[Button, Button]] = {}
        self.room_rows: list[tuple[pygame.Rect, dict[str, Any]]] = []
        self.scroll = 0
        self.rooms_rect = pygame.Rect(0, 0, 0, 0)
        self.asked_rooms = 0.0
        self.welcomed = False
        self.hover_doc = ""
        """The doc of the option under the mouse, shown on the bottom line."""
        if app.lobby.games:
            self.on_welcome()

    # -- server news -------------------------------------------------------------------

    def on_welcome(self) -> None:
        self.welcomed = True
        if self.game is None and self.app.lobby.games:
            self.select(self.app.lobby.games[0]["name"])
        self.ask_rooms()
        for g in self.app.lobby.games:  # ratings as they are now: a game may just have ended
            if g.get("rated"):
                self.app.net.request(
                    {"t": "leaderboard", "game": g["name"], "limit": 1}, tag="rating"
                )

    def handle_message(self, msg: dict[str, Any]) -> None:
        t = msg.get("t")
        if t == "welcome":
            self.on_welcome()
        elif t == "created":
            code = msg.get("code")
            self.notice(
                f"Room {msg['room']} made" + (f", private code {code}" if code else ""), d.GOOD
            )
            if code:  # a private room is entered by its code, even by its maker
                self.app.net.join_code(code)
            else:
                self.app.net.join(msg["room"])

    def ask_rooms(self) -> None:
        self.asked_rooms = time.monotonic()
        self.app.net.request({"t": "rooms", "limit": 200})

    def update(self, now: float) -> None:
        if self.app.online and now - self.asked_rooms > ROOMS_EVERY:
            self.ask_rooms()

    # -- actions ----------------------------------------------------------------------

    def select(self, game: str) -> None:
        """Show ``game``'s create form and high scores."""
        self.game = game
        spec = self.app.lobby.game(game) or {}
        self.controls = [OptionControl(o) for o in spec.get("options", [])]
        self.players = max(1, int(spec.get("min_seats", 1)))
        lo, hi = self.players, int(spec.get("max_seats", 1))
        self.seat_buttons = [self._seat_button(i) for i in range(1, hi)]
        self.players_buttons = []
        if hi > 1:
            self.players_buttons = [
                Button("-", lambda: self._players(-1, lo, hi)),
                Button("+", lambda: self._players(1, lo, hi)),
            ]
        self.app.net.request({"t": "scores", "game": game})

    def _seat_button(self, seat: int) -> Button:
        b = Button(SEAT_CHOICES[2], lambda: None)

        def cycle() -> None:
            b.label = SEAT_CHOICES[(SEAT_CHOICES.index(b.label) + 1) % len(SEAT_CHOICES)]

        b.on_click = cycle
        return b

    def _selector(self, game: str) -> Callable[[], None]:
        return lambda: self.select(game)

    def toggle_private(self) -> None:
        self.private.toggled = not self.private.toggled
        self.private.label = "private: on" if self.private.toggled else "private: off"

    def seats(self) -> list[str | None]:
        """The ``create.seats`` list: us first, then each other seat as chosen."""
        out: list[str | None] = [self.app.lobby.player]
        for i, b in enumerate(self.seat_buttons[: self.players - 1], start=1):
            if b.label == "open seat":
                out.append(None)
            else:
                out.append(f"COMP{i}:{b.label.split()[1]}")
        return out

    def create_request(self) -> dict[str, Any]:
        assert self.game is not None
        msg: dict[str, Any] = {"t": "create", "game": self.game}
        options = {c.name: c.value for c in self.controls if c.changed()}
        if options:
            msg["options"] = options
        spec = self.app.lobby.game(self.game) or {}
        if int(spec.get("max_seats", 1)) > 1:
            msg["seats"] = self.seats()
        if self.private.toggled:
            msg["private"] = True
        return msg

    def create(self) -> None:
        if self.game is not None:
            self.app.net.request(self.create_request())

    def match_request(self) -> dict[str, Any]:
        """The ``match`` of Quick game: every field of the clients' quick-game form
        (:func:`~tilehall.clients.words.quick_request`), the seat count as chosen here.

        The form's options are not sent: a quick game is met by whoever asks for
        the same game, so it keeps the defaults everyone else gets.
        """
        assert self.game is not None
        spec = self.app.lobby.game(self.game) or {"name": self.game}
        return quick_request(spec, seats=self.players)

    def quick(self) -> None:
        if self.game is not None:
            self.app.net.request(self.match_request(), tag="match")

    def open_history(self) -> None:
        self.app.scene = HistoryScene(self.app)

    def open_daily(self) -> None:
        self.app.scene = DailyScene(self.app)

    def open_leaderboard(self) -> None:
        if self.game is not None:
            self.app.scene = LeaderboardScene(self.app, self.game)

    def rated(self, game: str | None) -> bool:
        return bool((self.app.lobby.game(game or "") or {}).get("rated"))

    def join_code(self, code: str) -> None:
        if code:
            self.app.net.join_code(code)

    def watch_code(self) -> None:
        code = self.code_field.text.strip()
        if code:
            self.app.net.request({"t": "watch", "code": code}, tag="watch")

    def change_name(self) -> None:
        self.app.scene = NameScene(self.app, "")

    def next_table(self) -> None:
        if self.game is None:
            return
        sc = self.app.lobby.scores.get(self.game) or {}
        tables = sc.get("tables") or []
        if len(tables) > 1:
            i = tables.index(sc.get("table")) if sc.get("table") in tables else -1
            self.app.net.request(
                {"t": "scores", "game": self.game, "table": tables[(i + 1) % len(tables)]}
            )

    # -- input ------------------------------------------------------------------------

    def widgets(self) -> list[Any]:
        out: list[Any] = [self.code_field, self.code_join, self.code_watch, self.rename]
        out += [self.history_button, self.daily_button, self.quick_button, self.leaderboard_button]
        out += list(self.game_buttons.values())
        for c in self.controls:
            out += c.buttons
        out += self.seat_buttons[: self.players - 1]
        out += [self.private, self.create_button, self.table_button]
        out += self.players_buttons
        for _rect, room in self.room_rows:
            out += list(self.room_buttons.get(room["room"], ()))
        return out

    def handle_event(self, ev: pygame.event.Event) -> None:
        if ev.type == pygame.MOUSEWHEEL and self.rooms_rect.collidepoint(pygame.mouse.get_pos()):
            self.scroll = max(0, self.scroll - ev.y * ROW)
            return
        for w in self.widgets():
            if w.handle(ev):
                return
        if ev.type == pygame.KEYDOWN and not self.code_field.focused:
            if ev.key == pygame.K_p:  # a password keeps the name on other devices
                self.app.scene = SetPasswordScene(self.app)
            elif ev.key == pygame.K_o:  # shift: every device; asked first
                self.app.scene = SignOutScene(self.app, everywhere=bool(ev.mod & pygame.KMOD_SHIFT))

    # -- drawing ------------------------------------------------------------------------

    def draw(self, surf: pygame.Surface) -> None:
        w, h = surf.get_size()
        surf.fill(d.BG)
        self.hover_doc = ""
        self.draw_top(surf, w)
        left = pygame.Rect(PAD, TOP + PAD, 220, h - TOP - 2 * PAD - 28)
        right_w = min(380, max(300, w // 3))
        right = pygame.Rect(w - right_w - PAD, TOP + PAD, right_w, left.h)
        middle = pygame.Rect(left.right + PAD, TOP + PAD, right.x - left.right - 2 * PAD, left.h)
        self.draw_games(surf, left)
        self.draw_rooms(surf, middle)
        # The form takes the room it needs; the high scores keep a few rows when they can.
        form_h = min(right.h, self.form_height(), max(right.h - SCORES_MIN, self.form_height(30)))
        self.draw_form(surf, pygame.Rect(right.x, right.y, right.w, form_h))
        self.draw_scores(
            surf, pygame.Rect(right.x, right.y + form_h + PAD, right.w, right.h - form_h - PAD)
        )
        line = pygame.Rect(PAD, h - 30, w - 2 * PAD, 26)
        if self.hover_doc:
            d.text(
                surf,
                self.hover_doc,
                (line.x, line.centery),
                size=20,
                anchor="midleft",
                colour=d.TEXT,
            )
        else:
            self.draw_notice(surf, line)

    def draw_top(self, surf: pygame.Surface, w: int) -> None:
        pygame.draw.rect(surf, (33, 38, 49), (0, 0, w, TOP))
        pygame.draw.line(surf, d.PANEL_EDGE, (0, TOP - 1), (w, TOP - 1))
        r = d.text(surf, "TILEHALL", (PAD + 4, TOP // 2), size=40, colour=d.GOLD, anchor="midleft")
        online = self.app.online
        dot = d.GOOD if online else d.BAD
        if online:
            who = f"playing as {self.app.lobby.player}  ·  {self.app.url}"
        else:
            who = self.app.offline_reason or f"connecting to {self.app.url} ..."
        self.rename.rect = pygame.Rect(w - PAD - 130, 12, 130, TOP - 24)
        self.history_button.rect = pygame.Rect(self.rename.rect.x - 8 - 110, 12, 110, TOP - 24)
        daily = self.daily_button
        daily.rect = pygame.Rect(self.history_button.rect.x - 8 - 130, 12, 130, TOP - 24)
        self.daily_button.visible = any(g.get("daily") for g in self.app.lobby.games)
        self.rename.enabled = self.history_button.enabled = self.daily_button.enabled = online
        self.rename.draw(surf)
        self.history_button.draw(surf)
        self.daily_button.draw(surf)
        right = (daily if daily.visible else self.history_button).rect.x - 16
        tagline = "tile games together"
        room = right - r.right - 12 - 24  # the dot and its gap
        who_w = d.font(20).size(who)[0]
        if who_w + d.font(20).size(tagline)[0] + 24 <= room:  # the tagline only where it fits
            d.text(
                surf,
                tagline,
                (r.right + 12, TOP // 2 + 4),
                size=20,
                colour=d.TEXT_DIM,
                anchor="midleft",
            )
        size = d.text_fit(who, room, 20)
        r = d.text(surf, who, (right, TOP // 2), size=size, anchor="midright")
        d.aa_circle(surf, (r.x - 12, TOP // 2), 6, dot)

    def draw_games(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        d.panel(surf, rect)
        x, y = rect.x + PAD, rect.y + PAD
        d.text(surf, "Games", (x, y), size=26, colour=d.GOLD)
        y += 34
        private_y = rect.bottom - PAD - PRIVATE_H
        games = self.app.lobby.games
        # Buttons close up (never below 30 px apart) rather than run into the private room.
        pitch = max(30, min(GAME_PITCH, (private_y - PAD - y) // max(1, len(games))))
        mouse = pygame.mouse.get_pos()
        for g in games:
            b = self.game_buttons.get(g["name"])
            if b is None:
                b = self.game_buttons[g["name"]] = Button(g["title"], self._selector(g["name"]))
            b.toggled = g["name"] == self.game
            b.rect = pygame.Rect(x, y, rect.w - 2 * PAD, pitch - 8)
            b.draw(surf)
            rating = self.app.lobby.ratings.get(g["name"]) if g.get("rated") else None
            if rating is not None:
                d.text(
                    surf,
                    f"{rating['rating']:.0f}",
                    (b.rect.right - 8, b.rect.centery),
                    size=max(12, min(18, b.rect.h // 2)),
                    colour=d.GOLD,
                    anchor="midright",
                )
                if b.rect.collidepoint(mouse):
                    self.hover_doc = f"Your {g['title']} rating: {rating_text(rating)}."
            y += pitch
        if not games:
            d.text(surf, "waiting for the server", (x, y), size=18, colour=d.TEXT_DIM)
        y = private_y
        d.text(surf, "Private room", (x, y), size=24, colour=d.GOLD)
        self.code_field.rect = pygame.Rect(x, y + 30, rect.w - 2 * PAD, 34)
        self.code_field.draw(surf)
        bw = (rect.w - 2 * PAD - 8) // 2
        self.code_join.rect = pygame.Rect(x, y + 72, bw, 34)
        self.code_watch.rect = pygame.Rect(x + bw + 8, y + 72, bw, 34)
        self.code_join.draw(surf)
        self.code_watch.draw(surf)

    def draw_rooms(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        d.panel(surf, rect)
        x, y = rect.x + PAD, rect.y + PAD
        d.text(surf, "Rooms", (x, y), size=26, colour=d.GOLD)
        rooms = self.app.lobby.ordered()
        d.text(
            surf,
            f"{len(rooms)} room" + ("" if len(rooms) == 1 else "s"),
            (rect.right - PAD, y + 4),
            size=18,
            colour=d.TEXT_DIM,
            anchor="topright",
        )
        y += 38
        self.rooms_rect = pygame.Rect(rect.x, y, rect.w, rect.bottom - y - 4)
        max_scroll = max(0, len(rooms) * ROW - self.rooms_rect.h)
        self.scroll = min(self.scroll, max_scroll)
        clip = surf.get_clip()
        surf.set_clip(self.rooms_rect)
        self.room_rows = []
        if not rooms:
            for i, line in enumerate(("No rooms yet:", "make one on the right.")):
                size = d.text_fit(line, rect.w - 2 * PAD, 21)
                d.text(surf, line, (x, y + 10 + 24 * i), size=size, colour=d.TEXT_DIM)
        for i, room in enumerate(rooms):
            row = pygame.Rect(rect.x + 6, y + i * ROW - self.scroll, rect.w - 12, ROW - 4)
            if row.bottom < self.rooms_rect.y or row.y > self.rooms_rect.bottom:
                continue
            self.room_rows.append((row, room))
            self.draw_room(surf, row, room)
        surf.set_clip(clip)

    def draw_room(self, surf: pygame.Surface, row: pygame.Rect, room: dict[str, Any]) -> None:
        mine = room["room"] in self.app.lobby.mine
        listed = room.get("listed", True)  # a private room of mine is only its id
        fill = (47, 55, 70) if not mine else (52, 64, 58)
        pygame.draw.rect(surf, fill, row, border_radius=8)
        rid = room["room"]
        if rid not in self.room_buttons:
            self.room_buttons[rid] = (
                Button("Join", lambda: self.app.net.join(rid), tone=JOIN_TONE),
                Button("Watch", lambda: self.app.net.watch(rid)),
            )
        join, watch = self.room_buttons[rid]
        over = room.get("status") == "over"
        # A finished room has nothing to resume or join: mine opens on its result, in
        # a plain button (green says "play"); anyone else's shows only Watch.
        join.label = "Result" if over else "Resume" if mine else "Join"
        join.tone = JOIN_TONE if not over else Button.TONE
        free = any(not s.get("taken") for s in room.get("seats", []))
        join.enabled = mine or (free and room.get("status") == "waiting")
        join.visible = mine or not over
        bh = row.h - 12
        watch.rect = pygame.Rect(row.right - 84, row.y + 6, 78, bh)
        join.rect = pygame.Rect(watch.rect.x - 90, row.y + 6, 84, bh)
        watch.visible = listed
        join.draw(surf)
        watch.draw(surf)
        title = self.app.lobby.title(room["game"]) if room.get("game") else "your room"
        r = d.text(surf, title, (row.x + 10, row.y + 5), size=22)
        d.text(surf, rid, (r.right + 8, row.y + 8), size=16, colour=d.TEXT_DIM)
        seats = []
        for s in room.get("seats", []):
            name = s.get("name") or "open"
            if s.get("bot"):
                name += " (bot)"
            elif s.get("taken") and not s.get("connected"):
                name += " (away)"
            seats.append(name)
        info = ", ".join(seats)
        changed = self.changed_options(room)
        if changed:
            info += "   ·   " + changed
        if room.get("spectators"):
            info += f"   +{room['spectators']} watching"
        status = room.get("status", "") if listed else ""
        said = room_state(room) if listed else "yours"
        colour = {"waiting": d.GOLD, "playing": d.GOOD}.get(status, d.TEXT_DIM)
        if status != "over" and room.get("showcase"):
            colour = d.GOOD  # a game to watch, even while it stands still
        elif status != "over" and (room.get("paused") or room.get("suspended")):
            colour = d.TEXT_DIM  # standing still
        shown = d.text(
            surf, said, (join.rect.x - 10, row.centery), size=19, colour=colour, anchor="midright"
        )
        width = shown.x - row.x - 24  # the seats and options end before the state begins
        d.text(
            surf,
            info,
            (row.x + 10, row.y + 25),
            size=d.text_fit(info, width, 18),
            colour=d.TEXT_DIM,
        )

    def changed_options(self, room: dict[str, Any]) -> str:
        """The room's options that differ from the game's defaults, as ``label value``."""
        spec = self.app.lobby.game(room.get("game", "")) or {}
        return changed_options(spec, room.get("options"))

    def form_rows(self) -> int:
        return len(self.controls) + (self.players - 1) + (1 if self.seat_buttons else 0)

    def form_height(self, pitch: int = ROW_PITCH) -> int:
        """The form's height with rows ``pitch`` pixels apart: title, rows, private, create."""
        return FORM_TOP + pitch * self.form_rows() + FORM_BOTTOM

    def draw_form(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        d.panel(surf, rect)
        x, y = rect.x + PAD, rect.y + PAD
        if self.game is None:
            d.text(surf, "New game", (x, y), size=26, colour=d.GOLD)
            self.create_button.enabled = False
            return
        d.text(surf, f"New {self.app.lobby.title(self.game)}", (x, y), size=26, colour=d.GOLD)
        y += 38
        inner_w = rect.w - 2 * PAD
        mouse = pygame.mouse.get_pos()
        # Rows close up (never below 30 px) rather than slide under the buttons below them.
        rows = max(1, self.form_rows())
        pitch = max(30, min(ROW_PITCH, (rect.h - FORM_TOP - FORM_BOTTOM) // rows))
        for c in self.controls:
            row = pygame.Rect(x, y, inner_w, pitch - 2)
            c.layout(row)
            c.draw(surf, row)
            if row.collidepoint(mouse) and c.spec.get("doc"):
                self.hover_doc = f"{c.label}: {c.spec['doc']}"
            y += pitch
        if self.players_buttons:
            row = pygame.Rect(x, y, inner_w, pitch - 2)
            d.text(surf, "players", (x, row.centery), size=21, colour=d.TEXT, anchor="midleft")
            hh = row.h - 6
            self.players_buttons[0].rect = pygame.Rect(row.right - 3 * hh - 40, row.y + 3, hh, hh)
            self.players_buttons[1].rect = pygame.Rect(row.right - hh, row.y + 3, hh, hh)
            for b in self.players_buttons:
                b.draw(surf)
            mid = (self.players_buttons[0].rect.right + self.players_buttons[1].rect.left) // 2
            d.text(surf, str(self.players), (mid, row.centery), size=24, anchor="center")
            y += pitch
            for i, b in enumerate(self.seat_buttons[: self.players - 1], start=2):
                d.text(
                    surf,
                    f"player {i}",
                    (x + 14, y + pitch // 2 - 1),
                    size=20,
                    colour=d.TEXT_DIM,
                    anchor="midleft",
                )
                b.rect = pygame.Rect(x + inner_w - 3 * 30 - 40, y + 3, 3 * 30 + 40, pitch - 8)
                b.draw(surf)
                y += pitch
        y = rect.bottom - PAD - 84
        self.private.rect = pygame.Rect(x, y, inner_w, 36)
        self.private.draw(surf)
        self.create_button.enabled = self.quick_button.enabled = self.app.online
        half = (inner_w - 8) // 2
        self.create_button.rect = pygame.Rect(x, y + 44, half, 40)
        self.quick_button.rect = pygame.Rect(x + half + 8, y + 44, inner_w - half - 8, 40)
        self.create_button.draw(surf)
        self.quick_button.draw(surf)
        if self.quick_button.rect.collidepoint(mouse):
            if self.players > 1:
                self.hover_doc = (
                    f"Quick game: join {self.players}-player {self.app.lobby.title(self.game)} "
                    "players waiting (default options); COMP players fill the seats after 30 s."
                )
            else:
                self.hover_doc = "Quick game: a new game with the default options, at once."

    def _players(self, by: int, lo: int, hi: int) -> None:
        self.players = max(lo, min(hi, self.players + by))

    def draw_scores(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        d.panel(surf, rect)
        x, y = rect.x + PAD, rect.y + PAD
        d.text(surf, "High scores", (x, y), size=26, colour=d.GOLD)
        sc = self.app.lobby.scores.get(self.game or "") or {}
        tables = sc.get("tables") or []
        self.table_button.visible = bool(tables)
        self.table_button.enabled = len(tables) > 1
        self.table_button.label = str(sc.get("table") or "")
        self.table_button.rect = pygame.Rect(rect.right - PAD - 160, y - 2, 160, 30)
        self.table_button.draw(surf)
        y += 38
        rated = self.rated(self.game)
        self.leaderboard_button.visible = rated
        if rated and y + 30 <= rect.bottom:
            rating = self.app.lobby.ratings.get(self.game or "")
            self.leaderboard_button.rect = pygame.Rect(rect.right - PAD - 116, y - 4, 116, 28)
            self.leaderboard_button.enabled = self.app.online
            self.leaderboard_button.draw(surf)
            room = self.leaderboard_button.rect.x - x - 8
            line = "your rating " + (rating_text(rating) if rating else "-")
            if rating and d.font(20).size(line)[0] > room:  # the short form in a narrow window
                line = rating_text(rating)
            size = d.text_fit(line, room, 20)
            d.text(surf, line, (x, y + 10), size=size, colour=d.GOLD, anchor="midleft")
            y += 34
        elif rated:
            self.leaderboard_button.rect = pygame.Rect(0, 0, 0, 0)
        entries = sc.get("entries") or []
        if not entries and y + 20 <= rect.bottom:
            d.text(surf, "No scores yet.", (x, y), size=20, colour=d.TEXT_DIM)
        me = self.app.lobby.player
        for i, e in enumerate(entries[:10]):
            if y > rect.bottom - 26:
                break
            colour = d.GOLD if e.get("name") == me else d.TEXT
            d.text(surf, f"{i + 1}.", (x, y), size=21, colour=d.TEXT_DIM)
            d.text(surf, str(e.get("name")), (x + 34, y), size=21, colour=colour)
            d.text(
                surf,
                str(e.get("score")),
                (rect.right - PAD, y),
                size=21,
                colour=colour,
                anchor="topright",
            )
            y += 25


def dialog(
    surf: pygame.Surface, size: tuple[int, int], title: str, top: int, largest: int
) -> pygame.Rect:
    """Draw the centred panel of a dialog scene (a name, a password) and its gold title,
    ``top`` pixels down, at most ``largest`` points; the panel's rectangle, for the rest."""
    w, h = surf.get_size()
    surf.fill(d.BG)
    box = pygame.Rect((0, 0), size)
    box.center = (w // 2, h // 2)
    d.panel(surf, box)
    fit = d.text_fit(title, box.w - 40, largest)
    d.text(surf, title, (box.centerx, box.y + top), size=fit, colour=d.GOLD, anchor="center")
    return box


class NameScene(Scene):
    """Ask for a player name: at the start, to change it, or when the server refused ours.

    Args:
        reason: why we ask again (the server's refusal), shown on the notice line.
        suggested: the name to offer (the remembered one at the start); by
            default the name we play under now.
        remembered: the name Enter plays as again ("Welcome back"); by default
            ``suggested``. Empty after a refusal: the name offered was just refused.
    """

    def __init__(
        self,
        app: App,
        reason: str,
        *,
        suggested: str | None = None,
        remembered: str | None = None,
    ) -> None:
        super().__init__(app)
        offer = suggested if suggested is not None else app.lobby.player or ""
        self.remembered = (suggested or "") if remembered is None else remembered
        self.known = known_names(app.url) if app.remember else []
        """The names played on this server before: typing one resumes it with its token."""
        self.field = TextField(offer, placeholder="your name", limit=24, on_enter=self.go)
        self.field.focused = True
        pygame.key.start_text_input()
        self.ok = Button("Play", lambda: self.go(self.field.text.strip()), tone=(46, 110, 74))
        if reason:
            self.notice(reason, d.BAD)

    def go(self, name: str) -> None:
        if name:
            self.app.reconnect_as(name)

    def handle_event(self, ev: pygame.event.Event) -> None:
        if not self.ok.handle(ev):
            self.field.handle(ev)

    def draw(self, surf: pygame.Surface) -> None:
        w, h = surf.get_size()
        box = dialog(surf, (460, 220), "TILEHALL", 36, 46)
        welcome = "Choose a player name"
        if self.remembered and self.field.text.strip() == self.remembered:
            welcome = f"Welcome back: Enter plays as {self.remembered}"
        d.text(
            surf,
            welcome,
            (box.centerx, box.y + 76),
            size=d.text_fit(welcome, box.w - 40, 22),
            colour=d.TEXT_DIM,
            anchor="center",
        )
        self.field.rect = pygame.Rect(box.x + 30, box.y + 104, box.w - 60, 40)
        self.field.draw(surf)
        self.ok.rect = pygame.Rect(box.centerx - 70, box.y + 158, 140, 40)
        self.ok.draw(surf)
        if self.known:
            yours = "yours here: " + ", ".join(self.known)
            d.text(
                surf,
                yours,
                (box.centerx, box.bottom + 20),
                size=d.text_fit(yours, box.w, 18),
                colour=d.TEXT_DIM,
                anchor="center",
            )
        self.draw_notice(surf, pygame.Rect(PAD, h - 30, w - 2 * PAD, 26))


class PasswordScene(Scene):
    """Ask for the password of a protected name, to sign in with it on this device.

    Args:
        name: the protected name.
        reason: the server's refusal (the password was wrong, or is needed).
    """

    def __init__(self, app: App, name: str, reason: str) -> None:
        super().__init__(app)
        self.name = name
        self.field = TextField("", placeholder="password", limit=256, on_enter=self.go, secret=True)
        self.field.focused = True
        pygame.key.start_text_input()
        self.ok = Button("Sign in", lambda: self.go(self.field.text), tone=(46, 110, 74))
        self.other = Button("Another name", lambda: self._other(), tone=(70, 76, 92))
        self.notice(reason, d.BAD)

    def go(self, password: str) -> None:
        if password:
            self.app.reconnect_as(self.name, password)

    def _other(self) -> None:
        self.app.scene = NameScene(self.app, "", suggested="")

    def handle_event(self, ev: pygame.event.Event) -> None:
        if not (self.ok.handle(ev) or self.other.handle(ev)):
            self.field.handle(ev)

    def draw(self, surf: pygame.Surface) -> None:
        w, h = surf.get_size()
        box = dialog(surf, (460, 220), f"The password of {self.name}", 40, 26)
        self.field.rect = pygame.Rect(box.x + 30, box.y + 84, box.w - 60, 40)
        self.field.draw(surf)
        self.ok.rect = pygame.Rect(box.centerx - 150, box.y + 150, 140, 40)
        self.other.rect = pygame.Rect(box.centerx + 10, box.y + 150, 140, 40)
        self.ok.draw(surf)
        self.other.draw(surf)
        self.draw_notice(surf, pygame.Rect(PAD, h - 30, w - 2 * PAD, 26))


class SetPasswordScene(Scene):
    """Protect the name with a password, or change it (its current one first).

    It stays until the server takes the password (``password_set`` brings the
    lobby back); a refusal is shown here, with what was typed kept.
    """

    def __init__(self, app: App, why: str = "") -> None:
        super().__init__(app)
        self.old = TextField(
            "", placeholder="current password (none yet: empty)", limit=256, secret=True
        )
        self.new = TextField(
            "",
            placeholder="new password, 10-256 characters",
            limit=256,
            on_enter=lambda _: self.save(),
            secret=True,
        )
        self.new.focused = True
        pygame.key.start_text_input()
        self.ok = Button("Save", self.save, tone=(46, 110, 74))
        self.back = Button("Back", self.leave, tone=(70, 76, 92))
        if why:
            self.notice(why)

    def save(self) -> None:
        if not self.new.text:
            return
        msg: dict[str, Any] = {"t": "set_password", "password": self.new.text}
        if self.old.text:
            msg["old_password"] = self.old.text
        self.app.net.request(msg)
        self.notice("Saving...")

    def leave(self) -> None:
        self.app.scene = LobbyScene(self.app)

    def handle_event(self, ev: pygame.event.Event) -> None:
        for w in (self.ok, self.back, self.old, self.new):
            if w.handle(ev):
                return

    def draw(self, surf: pygame.Surface) -> None:
        w, h = surf.get_size()
        box = dialog(surf, (480, 260), "A password keeps your name on other devices", 32, 22)
        self.old.rect = pygame.Rect(box.x + 30, box.y + 64, box.w - 60, 40)
        self.new.rect = pygame.Rect(box.x + 30, box.y + 120, box.w - 60, 40)
        self.old.draw(surf)
        self.new.draw(surf)
        self.ok.rect = pygame.Rect(box.centerx - 150, box.y + 190, 140, 40)
        self.back.rect = pygame.Rect(box.centerx + 10, box.y + 190, 140, 40)
        self.ok.draw(surf)
        self.back.draw(surf)
        self.draw_notice(surf, pygame.Rect(PAD, h - 30, w - 2 * PAD, 26))


class SignOutScene(Scene):
    """Ask before signing out: what will happen, what would be lost, a way to a password.

    A name without a password cannot be signed out (the server refuses it
    ``no_password``): the scene offers only to set one, or to stay.

    Args:
        everywhere: every device's key, not only this one's (Shift+O).
    """

    def __init__(self, app: App, *, everywhere: bool) -> None:
        super().__init__(app)
        self.everywhere = everywhere
        self.protected = app.lobby.protected
        name = app.lobby.player or "?"
        self.question = words.sign_out_words(name, protected=self.protected, everywhere=everywhere)
        self.stay = Button("Stay", self.leave, tone=(70, 76, 92))
        if self.protected:
            label = "Sign out everywhere" if everywhere else "Sign out here"
            self.go = Button(label, self.sign_out, tone=(140, 60, 52))
        else:
            self.go = Button("Set a password", self.password, tone=(46, 110, 74))

    def sign_out(self) -> None:
        self.app.net.sign_out(everywhere=self.everywhere)
        self.notice("Signing out...")

    def password(self) -> None:
        self.app.scene = SetPasswordScene(
            self.app, "Set a password: then signing out loses nothing."
        )

    def leave(self) -> None:
        self.app.scene = LobbyScene(self.app)

    def handle_event(self, ev: pygame.event.Event) -> None:
        if self.go.handle(ev) or self.stay.handle(ev):
            return
        if ev.type == pygame.KEYDOWN and ev.key == pygame.K_ESCAPE:
            self.leave()

    def draw(self, surf: pygame.Surface) -> None:
        w, h = surf.get_size()
        title = "Sign out everywhere?" if self.everywhere else "Sign out?"
        if not self.protected:
            title = "This name has no password"
        box = dialog(surf, (520, 280), title, 34, 26)
        y = box.y + 70
        for line in _wrap(self.question, 46):
            d.text(surf, line, (box.centerx, y), size=21, colour=d.TEXT, anchor="center")
            y += 27
        self.go.rect = pygame.Rect(box.centerx - 190, box.bottom - 60, 200, 40)
        self.stay.rect = pygame.Rect(box.centerx + 30, box.bottom - 60, 160, 40)
        self.go.draw(surf)
        self.stay.draw(surf)
        self.draw_notice(surf, pygame.Rect(PAD, h - 30, w - 2 * PAD, 26))


def _wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken between words."""
    lines: list[str] = []
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines
