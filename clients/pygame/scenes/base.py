"""What every scene shares: the scene contract, and the frame around a game board.

A scene draws a model and turns mouse input into requests. :class:`GameScene`
is the frame of every game: a top bar (game, room, whose turn, Leave), a side
panel for the game's numbers and buttons, a board area, and a notice line for
refusals and hints. A game's scene fills in the board, the panel and the clicks.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar, Protocol

import pygame
from tilehall.clients.model import Change, LobbyModel, RoomModel
from tilehall.clients.pygame import draw as d
from tilehall.clients.pygame.net import NetLike
from tilehall.clients.pygame.share import Sharing
from tilehall.clients.pygame.widgets import Button, TextField
from tilehall.clients.words import CONFIRM, Said, Tone, Words, error_text

__all__ = ["TONE_COLOUR", "App", "GameScene", "Scene", "draw_bar"]

TOP = 48
"""Height of the top bar."""
NOTICE = 30
"""Height of the notice line at the bottom."""
PAD = 12
CHAT_SIZE = 18
"""The chat's text size over the board."""
CHAT_ROW = 24
"""The height of one chat line."""
CHAT_TEXT_MAX = 500
"""The longest chat line the server takes (PROTOCOL.md, chat)."""
TONE_COLOUR: dict[Tone, d.Colour] = {
    Tone.PLAIN: d.TEXT_DIM,
    Tone.NOTE: d.GOLD,
    Tone.GOOD: d.GOOD,
    Tone.BAD: d.BAD,
    Tone.QUIET: d.TEXT_DIM,
}
"""How the notice line shows each :class:`~tilehall.clients.words.Tone`."""


class App(Protocol):
    """The window as its scenes use it (:class:`tilehall.clients.pygame.app.App`).

    The window opens the scenes, so a scene names it by what it uses of it
    rather than importing it: the imports point one way, app -> scenes.
    """

    screen: pygame.Surface
    url: str
    lobby: LobbyModel
    codes: dict[str, str]
    online: bool
    offline_reason: str
    remember: bool
    told: str | None
    """Said on the next game scene as it opens (today's deal: whether the game counts)."""
    scene: Scene
    net: NetLike

    def reconnect_as(self, name: str, password: str | None = None) -> None:
        """Start again under another name (or with the name's password)."""

    def to_lobby(self) -> None:
        """Show the lobby."""


def draw_bar(surf: pygame.Surface, title: str, info: str, back: Button) -> None:
    """The top bar of a screen that is not a game: a title, a dim line, and a way back."""
    w = surf.get_width()
    pygame.draw.rect(surf, (33, 38, 49), (0, 0, w, TOP))
    pygame.draw.line(surf, d.PANEL_EDGE, (0, TOP - 1), (w, TOP - 1))
    back.rect = pygame.Rect(w - 150 - PAD, 8, 150, TOP - 16)
    back.draw(surf)
    r = d.text(surf, title, (PAD, TOP // 2), size=30, colour=d.GOLD, anchor="midleft")
    room = back.rect.x - 16 - (r.right + 16)
    d.text(
        surf,
        info,
        (r.right + 16, TOP // 2 + 2),
        size=d.text_fit(info, max(40, room), 18),
        colour=d.TEXT_DIM,
        anchor="midleft",
    )


class Scene:
    """One screen of the window."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.notice_text = ""
        self.notice_colour: d.Colour = d.TEXT_DIM
        self.notice_at = 0.0

    def handle_event(self, ev: pygame.event.Event) -> None:
        """A pygame event (mouse, keys, text)."""

    def handle_message(self, msg: dict[str, Any]) -> None:
        """A server frame the app did not route elsewhere."""

    def update(self, now: float) -> None:
        """Called once per frame before :meth:`draw`; ``now`` is ``time.monotonic()``."""

    def draw(self, surf: pygame.Surface) -> None:
        surf.fill(d.BG)

    def notice(self, text: str, colour: d.Colour = d.TEXT_DIM) -> None:
        """Say something on the notice line (refusals, hints, news)."""
        self.notice_text, self.notice_colour, self.notice_at = text, colour, time.monotonic()

    def error(self, msg: dict[str, Any]) -> None:
        """A refused request, in the clients' words (squares named as its board does)."""
        code, message = str(msg.get("code")), str(msg.get("message") or "")
        said = error_text(
            code, message, game=self.board_game(), cells=msg.get("cells"), tiles=msg.get("tiles")
        )
        self.notice(said, d.BAD)

    def board_game(self) -> str | None:
        """The game whose board this screen shows, if any."""
        return None

    def say(self, said: Said | None) -> None:
        """Put one of the clients' sentences on the notice line, in its tone's colour."""
        if said is not None:
            self.notice(said.text, TONE_COLOUR[said.tone])

    def draw_notice(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        if not self.notice_text:
            return
        age = time.monotonic() - self.notice_at
        colour = self.notice_colour if age < 6 else d.blend(self.notice_colour, d.BG, 0.5)
        size = d.text_fit(self.notice_text, rect.w, 20)
        d.text(
            surf,
            self.notice_text,
            (rect.x, rect.centery),
            size=size,
            colour=colour,
            anchor="midleft",
        )


class GameScene(Scene):
    """The frame around one game's board; subclasses draw the board and panel.

    Subclasses override :meth:`draw_board`, :meth:`draw_panel`, :meth:`click`
    and, for animations, :meth:`on_change`. :attr:`buttons` are drawn in the
    panel's lower part, in order, by :meth:`layout_buttons`.
    """

    panel_width = 290

    TOLD: ClassVar[frozenset[str]] = frozenset(
        {"game_over", "won", "undone", "paused", "resumed", "stand_in", "stand_back"}
    )
    """The events whose sentence goes on the notice line; a game's scene adds its own."""

    def __init__(self, app: App, model: RoomModel) -> None:
        super().__init__(app)
        self.model = model
        self.leave_button = Button("Leave", self.leave, key=pygame.K_ESCAPE, tone=(88, 62, 66))
        self.chat_button = Button("Chat", self.toggle_chat)
        self.chat_open = False
        """The chat is shown over the board: the room's kept lines and a line to say more."""
        self.chat_field = TextField(
            placeholder="say something: Enter sends", limit=CHAT_TEXT_MAX, on_enter=self.say_chat
        )
        self.chat_rect = pygame.Rect(0, 0, 0, 0)
        self.buttons: list[Button] = []
        self.board_area = pygame.Rect(0, 0, 0, 0)
        self.panel_rect = pygame.Rect(0, 0, 0, 0)
        self.notice_rect = pygame.Rect(0, 0, 0, 0)
        self.buttons_top = 0
        self._size = (0, 0)
        self.confirm: tuple[str, float] | None = None
        """A costly button pressed once: which, and when (a second press confirms)."""
        self.confirm_ask = ""
        """The notice that asked for the second press, taken down when the arm lapses."""
        self.daily = Sharing()
        """A game of today's deal once over: the result to share, and asking for it."""

    # -- input -------------------------------------------------------------------------

    @property
    def view(self) -> dict[str, Any]:
        return self.model.view

    @property
    def playing(self) -> bool:
        """True when this client holds a seat and the game is on."""
        return self.model.seat is not None and self.model.status == "playing"

    def words(self) -> Words:
        """The room's sentences as this reader sees them (:mod:`tilehall.clients.words`)."""
        m = self.model
        return Words(
            game=m.game,
            name=lambda seat: "-" if seat is None else m.seat_name(seat),
            seat=m.seat,
            seats=self.seats,
        )

    def board_game(self) -> str | None:
        return self.model.game

    @property
    def seats(self) -> int:
        """How many seats the room has."""
        return max(len(self.model.scores), len((self.model.summary or {}).get("seats") or []))

    @property
    def active(self) -> bool:
        """True when this client may act now: :attr:`playing`, and play is not paused."""
        return self.playing and not self.model.paused

    def send(self, action: dict[str, Any]) -> None:
        """Send an action for our seat (spectators only get told they cannot)."""
        if self.model.seat is None:
            self.notice("You are watching: spectators cannot play.", d.GOLD)
            return
        self.app.net.act(self.model.room, action)

    def leave(self) -> None:
        self.app.net.request({"t": "leave", "room": self.model.room})
        self.app.to_lobby()

    def confirmed(self, what: str, ask: str) -> bool:
        """Whether this press of the costly button ``what`` is the second one in a row.

        A first press arms it for :data:`CONFIRM` seconds and puts ``ask`` on the
        notice line (with how long it waits); :meth:`lapse` disarms it after that.
        """
        now = time.monotonic()
        if self.confirming(what):
            self.confirm = None
            return True
        self.confirm = (what, now)
        self.confirm_ask = f"{ask.rstrip('.')}, within {CONFIRM:.0f} s."
        self.notice(self.confirm_ask, d.GOLD)
        return False

    def lapse(self) -> None:
        """Disarm a first press left too long, and take down the notice that asked."""
        if self.confirm is None or time.monotonic() - self.confirm[1] < CONFIRM:
            return
        self.confirm = None
        if self.notice_text == self.confirm_ask:
            self.notice_text = ""

    def confirming(self, what: str) -> bool:
        """Whether ``what`` was pressed once and waits for its second press."""
        return (
            self.confirm is not None
            and self.confirm[0] == what
            and time.monotonic() - self.confirm[1] < CONFIRM
        )

    def undo(self) -> None:
        """Take back the last move (solo games); the server says when there is none."""
        self.send({"do": "undo"})

    def toggle_chat(self) -> None:
        """Show the room's chat over the board, or put it away."""
        self.chat_open = not self.chat_open
        self.chat_field.focused = self.chat_open
        if self.chat_open:
            pygame.key.start_text_input()

    def say_chat(self, text: str) -> None:
        """Enter in the chat's field: say it (the room's copy comes back as a ``chat``)."""
        if text:
            self.app.net.chat(self.model.room, text)
            self.chat_field.text = ""

    def handle_event(self, ev: pygame.event.Event) -> None:
        if ev.type == pygame.VIDEORESIZE:
            return
        if self.chat_open:
            if ev.type == pygame.KEYDOWN and ev.key == pygame.K_ESCAPE:
                self.toggle_chat()  # Escape puts the chat away, and leaves only from the board
                return
            if self.chat_button.handle(ev) or self.chat_field.handle(ev):
                return
            if ev.type in (pygame.TEXTINPUT, pygame.KEYDOWN):
                return  # typed for the chat, not a game's shortcut
        for b in (self.leave_button, self.chat_button, *self.buttons):
            if b.handle(ev):
                return
        if ev.type == pygame.MOUSEBUTTONDOWN and ev.button in (1, 3):
            self.click(ev.pos, ev.button)
        elif ev.type == pygame.MOUSEBUTTONUP and ev.button in (1, 3):
            self.release(ev.pos, ev.button)
        elif ev.type == pygame.MOUSEMOTION:
            self.hover(ev.pos)

    def click(self, pos: tuple[int, int], button: int) -> None:
        """A mouse press on the board area (button 1 left, 3 right)."""

    def release(self, pos: tuple[int, int], button: int) -> None:
        """A mouse button went up (the end of a drag)."""

    def hover(self, pos: tuple[int, int]) -> None:
        """The mouse moved."""

    def on_snapshot(self, events: list[dict[str, Any]]) -> None:
        """A snapshot replaced the view (a rejoin); ``events`` are the updates it says we missed."""

    def on_change(self, change: Change) -> None:
        """An update arrived (the model already holds the new view)."""
        words = self.words()
        for ev in change.events:
            if ev.get("e") in self.TOLD:
                self.say(words.event(ev))

    def handle_message(self, msg: dict[str, Any]) -> None:
        if msg.get("t") == "chat":
            self.notice(f"{msg['from']}: {msg['text']}", d.TEXT)
        self.daily.message(self.model, msg, self.app.net.request, self.notice)

    def update(self, now: float) -> None:
        self.daily.update(self.model, now, self.app.net.request)

    # -- layout and drawing ---------------------------------------------------------

    def layout(self, size: tuple[int, int]) -> None:
        """Place the frame's parts for a window of ``size``; cheap, run every frame."""
        w, h = size
        pw = min(self.panel_width, max(200, w // 3))
        self.panel_rect = pygame.Rect(w - pw - PAD, TOP + PAD, pw, h - TOP - NOTICE - 2 * PAD)
        self.board_area = pygame.Rect(PAD, TOP + PAD, w - pw - 3 * PAD, h - TOP - NOTICE - 2 * PAD)
        self.notice_rect = pygame.Rect(PAD, h - NOTICE, w - 2 * PAD, NOTICE - 4)
        self.leave_button.rect = pygame.Rect(w - 100 - PAD, 8, 100, TOP - 16)
        self.chat_button.rect = pygame.Rect(self.leave_button.rect.x - 110, 8, 100, TOP - 16)
        self.chat_rect = self.board_area.inflate(-2 * PAD, -2 * PAD)
        self.layout_buttons()

    def layout_buttons(self) -> None:
        """Stack the visible buttons, two per row, at the bottom of the panel."""
        shown = [b for b in self.buttons if b.visible]
        p = self.panel_rect.inflate(-2 * PAD, -2 * PAD)
        bh, gap = 36, 8
        rows = (len(shown) + 1) // 2
        y = p.bottom - rows * bh - (rows - 1) * gap
        bw = (p.w - gap) // 2
        for i, b in enumerate(shown):
            r, c = divmod(i, 2)
            alone = i == len(shown) - 1 and c == 0  # the last of an odd count: full width
            b.rect = pygame.Rect(p.x + c * (bw + gap), y + r * (bh + gap), p.w if alone else bw, bh)
        self.buttons_top = y if shown else p.bottom

    def draw(self, surf: pygame.Surface) -> None:
        self._size = surf.get_size()
        self.lapse()
        self.update_buttons()
        if self.model.seat is None:
            for b in self.buttons:  # a spectator has no move to make: no controls at all
                b.visible = False
        self.layout(self._size)
        surf.fill(d.BG)
        self.draw_top(surf)
        d.panel(surf, self.panel_rect)
        if self.model.status == "waiting":
            self.draw_waiting(surf, self.board_area)
        else:
            self.draw_board(surf, self.board_area)
        self.draw_panel(surf, self.panel_rect.inflate(-2 * PAD, -2 * PAD))
        for b in self.buttons:
            b.draw(surf)
        if self.model.status == "over":
            self.draw_over(surf)
        elif self.model.status == "playing" and self.model.paused:
            self.draw_paused(surf, self.model.paused)
        if self.chat_open:
            self.draw_chat(surf, self.chat_rect)
        self.draw_notice(surf, self.notice_rect)

    def chat_shown(self, width: int, rows: int) -> list[str]:
        """The chat lines that fit ``rows`` rows of ``width`` pixels, newest last: the
        room's kept lines (``joined.chat`` on entering, then each ``chat``)."""
        font = d.font(CHAT_SIZE)
        out: list[str] = []
        for who, text in reversed(self.model.chat):
            line = f"{who}: {text}"
            while font.size(line)[0] > width and len(line) > 1:
                line = line[:-2] + "\u2026"
            out.append(line)
            if len(out) == rows:
                break
        return out[::-1]

    def draw_chat(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        """The chat over the board: every line that fits, newest at the bottom, the field
        under them."""
        veil = pygame.Surface(rect.size, pygame.SRCALPHA)
        veil.fill((*d.PANEL, 240))
        surf.blit(veil, rect.topleft)
        pygame.draw.rect(surf, d.PANEL_EDGE, rect, width=1, border_radius=8)
        inner = rect.inflate(-2 * PAD, -2 * PAD)
        d.text(surf, "Chat", (inner.x, inner.y), size=24, colour=d.GOLD, anchor="topleft")
        self.chat_field.rect = pygame.Rect(inner.x, inner.bottom - 36, inner.w, 36)
        top, bottom = inner.y + 34, self.chat_field.rect.y - 8
        rows = max(1, (bottom - top) // CHAT_ROW)
        shown = self.chat_shown(inner.w, rows)
        if not shown:
            d.text(surf, "Nothing said yet.", (inner.x, top), size=CHAT_SIZE,
                   colour=d.TEXT_DIM, anchor="topleft")  # fmt: skip
        y = bottom - len(shown) * CHAT_ROW
        for line in shown:
            d.text(surf, line, (inner.x, y), size=CHAT_SIZE, colour=d.TEXT, anchor="topleft")
            y += CHAT_ROW
        self.chat_field.draw(surf)

    def update_buttons(self) -> None:
        """Set the buttons' labels and enabled state from the view (before layout)."""

    def draw_top(self, surf: pygame.Surface) -> None:
        w = surf.get_width()
        pygame.draw.rect(surf, (33, 38, 49), (0, 0, w, TOP))
        pygame.draw.line(surf, d.PANEL_EDGE, (0, TOP - 1), (w, TOP - 1))
        title = self.app.lobby.title(self.model.game)
        r = d.text(surf, title, (PAD, TOP // 2), size=30, anchor="midleft")
        info = f"room {self.model.room}"
        code = self.app.codes.get(self.model.room)
        if code:
            info += f"   private code {code}"
        if self.model.seat is None:
            info += "   watching"
        r = d.text(
            surf, info, (r.right + 16, TOP // 2 + 2), size=18, colour=d.TEXT_DIM, anchor="midleft"
        )
        status, colour = self.turn_text()
        if not self.app.online:
            status, colour = "connection lost: reconnecting...", d.BAD
        right = self.chat_button.rect.x - 16
        d.text(surf, status, (right, TOP // 2), size=22, colour=colour, anchor="midright")
        self.leave_button.draw(surf)
        said = len(self.model.chat)
        self.chat_button.label = f"Chat {said}" if said else "Chat"
        self.chat_button.toggled = self.chat_open
        self.chat_button.draw(surf)

    def turn_text(self) -> tuple[str, d.Colour]:
        """What the top bar says about whose move it is."""
        status = self.model.status
        if status == "waiting":
            return "waiting for players", d.GOLD
        if status == "over":
            return "game over", d.GOLD
        if self.model.paused:
            return "paused", d.GOLD
        to_move = self.view.get("to_move")
        if to_move is None:
            return "", d.TEXT
        if to_move == self.model.seat:
            return "your move", d.GOOD
        if self.model.stood_in(to_move):
            return f"{self.model.seat_name(to_move)} to move (a COMP stands in)", d.GOLD
        return f"{self.model.seat_name(to_move)} to move", d.TEXT

    def draw_waiting(self, surf: pygame.Surface, area: pygame.Rect) -> None:
        waiting = self.view.get("waiting_for") or []
        names = ", ".join(self.model.seat_name(s) for s in waiting) or "players"
        line = "Waiting for " + names
        d.text(
            surf,
            line,
            area.center,
            size=d.text_fit(line, area.w - 20, 34),
            colour=d.GOLD,
            anchor="center",
        )
        bots_in = self.model.bots_in()
        if bots_in is None:
            d.text(
                surf,
                "The game starts when every seat is taken.",
                (area.centerx, area.centery + 36),
                size=20,
                colour=d.TEXT_DIM,
                anchor="center",
            )
            return
        # A quick game: the seconds until COMP players come, large, as a clock would show them.
        d.text(
            surf,
            f"{bots_in:.0f}",
            (area.centerx, area.centery + 100),
            size=96,
            colour=d.TEXT,
            anchor="center",
        )
        line = (
            "seconds until COMP players take the open seats"
            if bots_in >= 0.5
            else "COMP players are taking the open seats..."
        )
        d.text(
            surf,
            line,
            (area.centerx, area.centery + 156),
            size=d.text_fit(line, area.w - 20, 22),
            colour=d.TEXT_DIM,
            anchor="center",
        )
        d.text(
            surf,
            "Quick game: anyone who asks for this game now sits down here.",
            (area.centerx, area.centery + 36),
            size=d.text_fit(
                "Quick game: anyone who asks for this game now sits down here.", area.w - 20, 20
            ),
            colour=d.TEXT_DIM,
            anchor="center",
        )

    def draw_paused(self, surf: pygame.Surface, why: str) -> None:
        """A banner over the board while play stands still, saying why."""
        reason = self.words().paused(why)
        hint = ""
        if why == "player" and self.model.seat is not None:
            hint = "Press Resume to go on."
        elif why == "away" and self.model.seat is None:
            hint = "It goes on when a player is back."
        a = self.board_area
        box = pygame.Rect(0, 0, min(a.w - 40, 420), 96 if hint else 70)
        box.center = a.center
        shade = pygame.Surface(box.size, pygame.SRCALPHA)
        pygame.draw.rect(shade, (20, 24, 32, 225), shade.get_rect(), border_radius=14)
        surf.blit(shade, box)
        pygame.draw.rect(surf, d.GOLD, box, width=2, border_radius=14)
        d.text(surf, "Paused", (box.centerx, box.y + 24), size=34, colour=d.GOLD, anchor="center")
        d.text(surf, reason, (box.centerx, box.y + 52), size=22, anchor="center")
        if hint:
            d.text(
                surf, hint, (box.centerx, box.y + 76), size=19, colour=d.TEXT_DIM, anchor="center"
            )

    def draw_over(self, surf: pygame.Surface) -> None:
        """A banner over the board with the final scores."""
        result = self.view.get("result") or {}
        scores = result.get("scores") or self.view.get("scores") or []
        winners = result.get("winners") or []
        lines = [
            f"{self.model.seat_name(i)}: {s}"
            + ("  (winner)" if i in winners and len(scores) > 1 else "")
            for i, s in enumerate(scores)
        ]
        lines += self.daily.over_lines(self.model)
        a = self.board_area
        h = 70 + 28 * len(lines)
        widest = max([420] + [d.font(24).size(t)[0] for t in lines]) + 40
        box = pygame.Rect(0, 0, min(a.w - 40, widest), h)
        box.center = a.center
        shade = pygame.Surface(box.size, pygame.SRCALPHA)
        pygame.draw.rect(shade, (20, 24, 32, 225), shade.get_rect(), border_radius=14)
        surf.blit(shade, box)
        pygame.draw.rect(surf, d.GOLD, box, width=2, border_radius=14)
        d.text(
            surf,
            self.over_title(),
            (box.centerx, box.y + 30),
            size=36,
            colour=d.GOLD,
            anchor="center",
        )
        for i, line in enumerate(lines):
            d.text(surf, line, (box.centerx, box.y + 66 + 28 * i), size=24, anchor="center")

    def over_title(self) -> str:
        return "Game over"

    def draw_board(self, surf: pygame.Surface, area: pygame.Rect) -> None:
        """The game's board inside ``area``."""

    def draw_panel(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        """The game's numbers, above the buttons, inside ``rect``."""

    def draw_undos(self, surf: pygame.Surface, x: int, y: int, w: int) -> int:
        """The moves taken back, and what that costs; returns the next row's y."""
        undos = int(self.view.get("undos") or 0)
        y = self.stat(surf, x, y, w, "undos", undos, d.BAD if undos else d.TEXT)
        if undos:
            d.text(surf, "not eligible for records", (x, y), size=18, colour=d.BAD)
            y += 22
        return y

    def stat(
        self,
        surf: pygame.Surface,
        x: int,
        y: int,
        w: int,
        label: str,
        value: Any,
        colour: d.Colour = d.TEXT,
    ) -> int:
        """One ``label ... value`` row of the panel; returns the next row's y."""
        d.text(surf, label, (x, y), size=21, colour=d.TEXT_DIM)
        d.text(surf, str(value), (x + w, y), size=23, colour=colour, anchor="topright")
        return y + 26
