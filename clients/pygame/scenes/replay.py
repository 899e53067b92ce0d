"""A finished game replayed, position by position, drawn by the game's own scene.

The board and the side panel are drawn by the scene a spectator of the room
would have had (:func:`~tilehall.clients.pygame.scenes.scene_for`), fed with the
replayed positions instead of a live room: a board is drawn by one piece of
code, live or replayed. What a spectator's view hid (``revealed``: every
Mathable rack, Lines' coming colours, a sheet paused) is put back into the view
before it is drawn, and said under the panel.

One step forward hands the game's scene an ordinary update, so its animations
(a Lines chip travelling, a Shisen-Sho path) play as they did live; any other
step shows the position at once. Positions already received stay in the
:class:`~tilehall.clients.model.ReplayModel`, so going back asks the server
nothing. Clocks read the server's time of each position, frozen: a Match-It
sheet shows the time it had left then.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import pygame
from tilehall.clients.model import ReplayModel, RoomModel, ServerClock
from tilehall.clients.pygame import draw as d
from tilehall.clients.pygame.scenes import scene_for
from tilehall.clients.pygame.scenes.base import PAD, GameScene, Scene, draw_bar
from tilehall.clients.pygame.widgets import Button
from tilehall.clients.words import paused_why

if TYPE_CHECKING:
    from tilehall.clients.pygame.scenes.base import App

__all__ = ["AUTOPLAY_EVERY", "REVEALED", "ReplayScene"]

AUTOPLAY_EVERY = 0.8
"""Seconds between two positions while the replay plays by itself."""
REVEALED = {"racks": "every rack", "next": "the coming colours", "board": "the board"}
"""What each ``revealed`` field is, as a player reads it."""
CONTROL_H = 36


def _frozen() -> float:
    """The wall clock of a replayed position: it stands still at the position's ``now``."""
    return 0.0


class ReplayScene(Scene):
    """A finished room's positions, with first / back / play / forward / last.

    Args:
        room: the finished room.
        entry: its row of a ``history`` reply, if it came from there (names its bots).
        back: the screen to go back to (the history page); the lobby if None.
    """

    def __init__(
        self,
        app: App,
        room: str,
        *,
        entry: dict[str, Any] | None = None,
        back: Scene | None = None,
    ) -> None:
        super().__init__(app)
        self.replay = ReplayModel(room)
        self.entry = entry
        self.back_to = back
        self.asked: int | None = None
        """The seq asked for and not answered yet (one at a time)."""
        self.autoplay = False
        self.next_at = 0.0
        self.board: GameScene | None = None
        """The game's own scene, showing the position."""
        self.failed = ""
        """Why there is nothing to show (the server's refusal of the first position)."""
        self.first_button = Button("|<", lambda: self.go("first"), key=pygame.K_HOME)
        self.back_button = Button("<", lambda: self.go("back"), key=pygame.K_LEFT)
        self.play_button = Button("Play", self.toggle_play, key=pygame.K_SPACE, tone=(46, 110, 74))
        self.forward_button = Button(">", lambda: self.go("forward"), key=pygame.K_RIGHT)
        self.last_button = Button(">|", lambda: self.go("last"), key=pygame.K_END)
        self.close_button = Button("Back", self.close, key=pygame.K_ESCAPE, tone=(88, 62, 66))
        self.controls = [
            self.first_button,
            self.back_button,
            self.play_button,
            self.forward_button,
            self.last_button,
        ]
        self.bar = pygame.Rect(0, 0, 0, 0)
        """The progress bar: a click there goes to that point of the game."""
        self.ask(1)

    # -- stepping ---------------------------------------------------------------------

    def ask(self, seq: int) -> None:
        self.asked = seq
        self.app.net.request({"t": "replay", "room": self.replay.room, "seq": seq}, tag="replay")

    def go(self, step: str) -> None:
        """``first``, ``back``, ``forward`` or ``last``: shown at once when already received."""
        if self.replay.last is None or self.asked is not None:
            return
        self.goto(self.replay.target(step))

    def goto(self, seq: int) -> None:
        if seq == self.replay.seq or self.asked is not None:
            return
        shown = self.replay.seq
        if self.replay.cached(seq):
            self.show(shown)
        else:
            self.ask(seq)

    def toggle_play(self) -> None:
        if self.autoplay:
            self.autoplay = False
            return
        if self.replay.at_end:
            self.go("first")
        self.autoplay = True
        self.next_at = time.monotonic() + AUTOPLAY_EVERY

    def close(self) -> None:
        if self.back_to is not None:
            self.app.scene = self.back_to
        else:
            self.app.to_lobby()

    def update(self, now: float) -> None:
        if not self.autoplay or self.asked is not None or now < self.next_at:
            return
        if self.replay.at_end:
            self.autoplay = False
        else:
            self.go("forward")
            self.next_at = now + AUTOPLAY_EVERY

    # -- server news ------------------------------------------------------------------

    def handle_message(self, msg: dict[str, Any]) -> None:
        if msg.get("t") != "replayed" or msg.get("seq") != self.asked:
            return
        shown = self.replay.seq
        if self.replay.take(msg):
            self.asked = None
            self.show(shown)

    def error(self, msg: dict[str, Any]) -> None:
        if msg.get("tag") == "replay":
            self.asked = None
            self.autoplay = False
            if self.replay.current is None:
                self.failed = f"{msg.get('code')}: {msg.get('message')}"
        super().error(msg)

    # -- the game's scene -------------------------------------------------------------

    def show(self, shown: int) -> None:
        """Put the current position on screen; ``shown`` is the seq it replaces."""
        frame = self.replay.current
        assert frame is not None
        view = {**frame["view"], **(frame.get("revealed") or {})}
        board = self.board
        since = time.monotonic()
        if board is not None and frame["seq"] == shown + 1 and board.model.seq == shown:
            update = {
                "t": "update",
                "room": self.replay.room,
                "seq": frame["seq"],
                "events": frame["events"],
                "view": view,
            }
            if board.model.apply(update, time.monotonic()):
                board.on_change(board.model.changes[-1])
        else:
            self.board = board = self.make_board(frame, view)
        if board.notice_text and board.notice_at >= since:
            self.notice(board.notice_text, board.notice_colour)
        else:
            self.notice(f"{frame['seq']}: {self.describe(frame['events'])}")

    def make_board(self, frame: dict[str, Any], view: dict[str, Any]) -> GameScene:
        """The game's scene, as a spectator's, showing ``frame`` with nothing before it."""
        joined = {
            "room": self.replay.room,
            "seat": None,
            "seq": frame["seq"],
            "view": view,
            "missed": [{"seq": frame["seq"], "events": frame["events"]}],
        }
        model = RoomModel.from_joined(joined, {"seats": self.seats(frame["players"])})
        model.clock = ServerClock(wall=_frozen)
        model.clock.saw(view)
        scene = scene_for(frame["game"])(self.app, model)
        scene.buttons = []  # a replay is watched: the game's own controls have no place
        return scene

    def seats(self, players: list[str | None]) -> list[dict[str, Any]]:
        """The seats of a room summary, from the replay's names (and history's bot levels)."""
        known = (self.entry or {}).get("players") or []
        out = []
        for i, name in enumerate(players):
            bot = known[i].get("bot") if i < len(known) else None
            bot = bot or str(name or "").upper().startswith("COMP")
            out.append({"name": name, "bot": bool(bot), "taken": True, "connected": True})
        return out

    def describe(self, events: list[dict[str, Any]]) -> str:
        """What a position's events were, when the game's scene said nothing of them."""
        if [ev.get("e") for ev in events] == ["started"]:
            return "the deal"
        if self.board is None:
            return "nothing"
        parts = [said.text for said in self.board.words().events(events)]
        return ", ".join(parts) or "nothing"

    # -- input ----------------------------------------------------------------------

    def handle_event(self, ev: pygame.event.Event) -> None:
        for b in (self.close_button, *self.controls):
            if b.handle(ev):
                if b is not self.play_button:
                    self.autoplay = False  # a step by hand takes over from autoplay
                return
        if ev.type == pygame.MOUSEBUTTONDOWN and ev.button == 1:
            hit = self.bar.inflate(0, 16)
            last = self.replay.last
            if hit.collidepoint(ev.pos) and last is not None and self.bar.w > 0:
                frac = (ev.pos[0] - self.bar.x) / self.bar.w
                self.autoplay = False
                self.goto(max(1, min(last, 1 + round(frac * (last - 1)))))

    # -- drawing ----------------------------------------------------------------------

    def info(self) -> str:
        game = (self.replay.current or {}).get("game") or (self.entry or {}).get("game")
        names = (self.replay.current or {}).get("players") or [
            p.get("name") for p in (self.entry or {}).get("players") or []
        ]
        parts = [self.app.lobby.title(str(game)) if game else "", f"room {self.replay.room}"]
        parts.append(", ".join(str(n) for n in names))
        return "   ·   ".join(p for p in parts if p)

    def position(self) -> str:
        last = self.replay.last
        return f"{self.replay.seq} / {last}" if last is not None else "- / -"

    def lines(self) -> list[tuple[str, d.Colour]]:
        """What the panel's foot says of this position: what was hidden, a pause, the end."""
        frame = self.replay.current
        if frame is None:
            return []
        out: list[tuple[str, d.Colour]] = []
        view = frame["view"]
        revealed = [REVEALED.get(k, k) for k in frame.get("revealed") or {}]
        if revealed:
            out.append(("revealed: " + ", ".join(revealed), d.ACCENT))
        if view.get("paused"):
            seats = len(frame.get("players") or [])
            why = paused_why(str(view["paused"]), seats=seats, player=False)
            out.append((f"paused here: {why}", d.GOLD))
        if view.get("status") == "over" and self.board is not None:
            out.append((self.outcome(view), d.GOLD))
        return out

    def outcome(self, view: dict[str, Any]) -> str:
        result = view.get("result") or {}
        scores = result.get("scores") or view.get("scores") or []
        winners = result.get("winners") or []
        assert self.board is not None
        if len(scores) == 1:
            return f"game over: {scores[0]} points"
        if len(winners) == 1:
            return f"game over: {self.board.model.seat_name(winners[0])} wins"
        return "game over: a draw" if winners else "game over"

    def draw(self, surf: pygame.Surface) -> None:
        w, h = surf.get_size()
        surf.fill(d.BG)
        draw_bar(surf, "Replay", self.info(), self.close_button)
        board = self.board
        if board is None:
            why = self.failed or "asking the server for the deal..."
            d.text(
                surf,
                why,
                (w // 2, h // 2),
                size=d.text_fit(why, w - 40, 26),
                colour=d.BAD if self.failed else d.TEXT_DIM,
                anchor="center",
            )
            self.draw_notice(surf, pygame.Rect(PAD, h - 30, w - 2 * PAD, 26))
            return
        board.layout((w, h))
        panel = board.panel_rect.inflate(-2 * PAD, -2 * PAD)
        foot = self.lines()
        top = panel.bottom - CONTROL_H - 34 - 22 * len(foot)
        board.buttons_top = top
        d.panel(surf, board.panel_rect)
        board.draw_board(surf, board.board_area)
        clip = surf.get_clip()
        surf.set_clip(pygame.Rect(panel.x, panel.y, panel.w, max(0, top - 6 - panel.y)))
        board.draw_panel(surf, panel)
        surf.set_clip(clip)
        pygame.draw.line(surf, d.PANEL_EDGE, (panel.x, top - 4), (panel.right, top - 4))
        self.draw_controls(surf, pygame.Rect(panel.x, top, panel.w, panel.bottom - top), foot)
        self.draw_notice(surf, board.notice_rect)

    def draw_controls(
        self, surf: pygame.Surface, rect: pygame.Rect, foot: list[tuple[str, d.Colour]]
    ) -> None:
        y = rect.y + 4
        for line, colour in foot:
            d.text(surf, line, (rect.x, y), size=d.text_fit(line, rect.w, 19), colour=colour)
            y += 22
        last, seq = self.replay.last or 1, self.replay.seq
        self.bar = pygame.Rect(rect.x, y + 6, rect.w - 80, 10)
        pygame.draw.rect(surf, (30, 35, 45), self.bar, border_radius=5)
        done = self.bar.copy()
        done.w = round(self.bar.w * ((seq - 1) / (last - 1) if last > 1 else 1.0))
        if done.w > 0:
            pygame.draw.rect(surf, d.ACCENT, done, border_radius=5)
        d.text(
            surf, self.position(), (rect.right, y + 11), size=20, colour=d.TEXT, anchor="midright"
        )
        y = rect.bottom - CONTROL_H
        gap = 6
        bw = (rect.w - gap * (len(self.controls) - 1)) // len(self.controls)
        for i, b in enumerate(self.controls):
            b.rect = pygame.Rect(rect.x + i * (bw + gap), y, bw, CONTROL_H)
        known = self.replay.last is not None
        idle = self.asked is None
        self.first_button.enabled = self.back_button.enabled = known and idle and seq > 1
        at_end = self.replay.at_end
        self.forward_button.enabled = self.last_button.enabled = known and idle and not at_end
        self.play_button.enabled = known
        self.play_button.label = "Stop" if self.autoplay else "Play"
        self.play_button.toggled = self.autoplay
        for b in self.controls:
            b.draw(surf)
