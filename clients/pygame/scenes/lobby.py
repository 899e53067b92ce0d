"""The lobby: games, live rooms, a create form built from the game's options, scores.

Everything shown comes from the server: the games and their options from
``welcome.games``, the rooms from ``rooms`` (asked again every few seconds while
the lobby is open), the tables from ``scores``. The create form holds only the
choices the player is making.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pygame

from clients.pygame import draw as d
from clients.pygame.scenes.base import PAD, Scene
from clients.pygame.widgets import Button, TextField

if TYPE_CHECKING:
    from clients.pygame.app import App

__all__ = ["LobbyScene", "NameScene", "OptionControl"]

ROOMS_EVERY = 2.0
"""Seconds between two ``rooms`` requests while the lobby is shown."""
TOP = 56
ROW = 46
SEAT_CHOICES = ("open seat", "COMP easy", "COMP normal", "COMP hard")


class OptionControl:
    """One game option in the create form: a stepper, a switch or a cycle of choices.

    The value always stays within what ``welcome.games[].options`` declares, so
    the form cannot build a request the server would refuse for bounds.
    """

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.name: str = spec["name"]
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
        d.text(
            surf,
            self.name.replace("_", " "),
            (rect.x, rect.centery),
            size=21,
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
        self.app.net.request({"t": "rooms"})

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
        form_h = min(right.h // 2 + 60, self.form_height())
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
        d.text(
            surf,
            "tile games together",
            (r.right + 12, TOP // 2 + 4),
            size=20,
            colour=d.TEXT_DIM,
            anchor="midleft",
        )
        online = self.app.online
        dot = d.GOOD if online else d.BAD
        if online:
            who = f"playing as {self.app.lobby.player}  ·  {self.app.url}"
        else:
            who = self.app.offline_reason or f"connecting to {self.app.url} ..."
        self.rename.rect = pygame.Rect(w - PAD - 130, 12, 130, TOP - 24)
        self.rename.enabled = online
        self.rename.draw(surf)
        r = d.text(surf, who, (self.rename.rect.x - 16, TOP // 2), size=20, anchor="midright")
        d.aa_circle(surf, (r.x - 12, TOP // 2), 6, dot)

    def draw_games(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        d.panel(surf, rect)
        x, y = rect.x + PAD, rect.y + PAD
        d.text(surf, "Games", (x, y), size=26, colour=d.GOLD)
        y += 34
        for g in self.app.lobby.games:
            b = self.game_buttons.get(g["name"])
            if b is None:
                b = self.game_buttons[g["name"]] = Button(g["title"], self._selector(g["name"]))
            b.toggled = g["name"] == self.game
            b.rect = pygame.Rect(x, y, rect.w - 2 * PAD, 38)
            b.draw(surf)
            y += 46
        if not self.app.lobby.games:
            d.text(surf, "waiting for the server", (x, y), size=18, colour=d.TEXT_DIM)
        y = rect.bottom - 150
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
        rooms = list(self.app.lobby.rooms)
        listed = {r["room"] for r in rooms}
        for mine in self.app.lobby.my_rooms:
            if mine not in listed:
                rooms.insert(0, {"room": mine, "game": "", "seats": [], "status": "yours"})
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
            d.text(
                surf,
                "No rooms yet: make one on the right.",
                (x, y + 10),
                size=21,
                colour=d.TEXT_DIM,
            )
        for i, room in enumerate(rooms):
            row = pygame.Rect(rect.x + 6, y + i * ROW - self.scroll, rect.w - 12, ROW - 4)
            if row.bottom < self.rooms_rect.y or row.y > self.rooms_rect.bottom:
                continue
            self.room_rows.append((row, room))
            self.draw_room(surf, row, room)
        surf.set_clip(clip)

    def draw_room(self, surf: pygame.Surface, row: pygame.Rect, room: dict[str, Any]) -> None:
        mine = room["room"] in self.app.lobby.my_rooms
        fill = (47, 55, 70) if not mine else (52, 64, 58)
        pygame.draw.rect(surf, fill, row, border_radius=8)
        rid = room["room"]
        if rid not in self.room_buttons:
            self.room_buttons[rid] = (
                Button("Join", lambda: self.app.net.join(rid), tone=(46, 110, 74)),
                Button("Watch", lambda: self.app.net.watch(rid)),
            )
        join, watch = self.room_buttons[rid]
        join.label = "Resume" if mine else "Join"
        free = any(not s.get("taken") for s in room.get("seats", []))
        join.enabled = mine or (free and room.get("status") == "waiting")
        bh = row.h - 12
        watch.rect = pygame.Rect(row.right - 84, row.y + 6, 78, bh)
        join.rect = pygame.Rect(watch.rect.x - 90, row.y + 6, 84, bh)
        watch.visible = room.get("status") != "yours"
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
        width = join.rect.x - row.x - 110
        d.text(
            surf,
            info,
            (row.x + 10, row.y + 25),
            size=d.text_fit(info, width, 18),
            colour=d.TEXT_DIM,
        )
        status = room.get("status", "")
        colour = {"waiting": d.GOLD, "playing": d.GOOD}.get(status, d.TEXT_DIM)
        d.text(
            surf, status, (join.rect.x - 10, row.centery), size=19, colour=colour, anchor="midright"
        )

    def changed_options(self, room: dict[str, Any]) -> str:
        """The room's options that differ from the game's defaults, as ``name value``."""
        spec = self.app.lobby.game(room.get("game", "")) or {}
        defaults = {o["name"]: o["default"] for o in spec.get("options", [])}
        out = []
        for name, value in (room.get("options") or {}).items():
            if name in defaults and value != defaults[name]:
                shown = ("on" if value else "off") if isinstance(value, bool) else value
                out.append(f"{name.replace('_', ' ')} {shown}")
        return ", ".join(out)

    def form_height(self) -> int:
        n = len(self.controls) + (self.players - 1) + (1 if self.seat_buttons else 0)
        return 50 + 38 * n + 96

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
        for c in self.controls:
            row = pygame.Rect(x, y, inner_w, 36)
            c.layout(row)
            c.draw(surf, row)
            if row.collidepoint(mouse) and c.spec.get("doc"):
                self.hover_doc = f"{c.name}: {c.spec['doc']}"
            y += 38
        if self.players_buttons:
            row = pygame.Rect(x, y, inner_w, 36)
            d.text(surf, "players", (x, row.centery), size=21, colour=d.TEXT, anchor="midleft")
            hh = row.h - 6
            self.players_buttons[0].rect = pygame.Rect(row.right - 3 * hh - 40, row.y + 3, hh, hh)
            self.players_buttons[1].rect = pygame.Rect(row.right - hh, row.y + 3, hh, hh)
            for b in self.players_buttons:
                b.draw(surf)
            mid = (self.players_buttons[0].rect.right + self.players_buttons[1].rect.left) // 2
            d.text(surf, str(self.players), (mid, row.centery), size=24, anchor="center")
            y += 38
            for i, b in enumerate(self.seat_buttons[: self.players - 1], start=2):
                d.text(
                    surf,
                    f"player {i}",
                    (x + 14, y + 18),
                    size=20,
                    colour=d.TEXT_DIM,
                    anchor="midleft",
                )
                b.rect = pygame.Rect(x + inner_w - 3 * 30 - 40, y + 3, 3 * 30 + 40, 30)
                b.draw(surf)
                y += 38
        y = rect.bottom - PAD - 84
        self.private.rect = pygame.Rect(x, y, inner_w, 36)
        self.private.draw(surf)
        self.create_button.enabled = self.app.online
        self.create_button.rect = pygame.Rect(x, y + 44, inner_w, 40)
        self.create_button.draw(surf)

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
        entries = sc.get("entries") or []
        if not entries:
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


class NameScene(Scene):
    """Ask for a player name: the first time, or when the server refused ours."""

    def __init__(self, app: App, reason: str) -> None:
        super().__init__(app)
        self.field = TextField(
            app.lobby.player or "", placeholder="your name", limit=24, on_enter=self.go
        )
        self.field.focused = True
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
        surf.fill(d.BG)
        box = pygame.Rect(0, 0, 460, 220)
        box.center = (w // 2, h // 2)
        d.panel(surf, box)
        d.text(surf, "TILEHALL", (box.centerx, box.y + 36), size=46, colour=d.GOLD, anchor="center")
        d.text(
            surf,
            "Choose a player name",
            (box.centerx, box.y + 76),
            size=22,
            colour=d.TEXT_DIM,
            anchor="center",
        )
        self.field.rect = pygame.Rect(box.x + 30, box.y + 104, box.w - 60, 40)
        self.field.draw(surf)
        self.ok.rect = pygame.Rect(box.centerx - 70, box.y + 158, 140, 40)
        self.ok.draw(surf)
        self.draw_notice(surf, pygame.Rect(PAD, h - 30, w - 2 * PAD, 26))
