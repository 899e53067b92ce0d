"""Mathable: drag a rack tile to a square (or click one, then the other); draws, exchange, hint.

The board shows the premium (2x, 3x) and operator squares from the view's
``squares``; the panel shows every seat's score and (open) rack, the bag, the
tiles left, the turn clock, and what the other seats did since our last turn
(those tiles keep a blue edge on the board). Whether a tile fits a square is
the server's call: the view does not say where a tile fits, so the square under
a held tile is only outlined, and a refusal comes back with its reason on the
notice line.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import pygame
from tilehall.clients import words
from tilehall.clients.mathable import Turn, TurnLog
from tilehall.clients.model import Change
from tilehall.clients.pygame import draw as d
from tilehall.clients.pygame.scenes.base import PAD, GameScene
from tilehall.clients.pygame.widgets import Button

__all__ = ["RECENT_EDGE", "SQUARE_FILLS", "TILE_FACE", "MathableScene", "number_tile"]

SIZE = 14
SQUARE_FILLS: dict[str, d.Colour] = {
    "": (226, 214, 188),
    "3x": (200, 70, 62),
    "2x": (232, 158, 56),
    "+": (92, 150, 210),
    "-": (92, 150, 210),
    "*": (92, 150, 210),
    "/": (92, 150, 210),
}
SQUARE_LABELS = {"3x": "3x", "2x": "2x", "+": "+", "-": "-", "*": "\u00d7", "/": "\u00f7"}
TILE_FACE: d.Colour = (250, 244, 226)
TILE_INK: d.Colour = (36, 40, 62)
BOARD_EDGE: d.Colour = (92, 70, 52)
RECENT_EDGE: d.Colour = (70, 150, 235)
"""The edge of the tiles the other seats placed since our last turn."""
RECENT_FACE: d.Colour = (226, 238, 250)
DRAG_SLOP = 6
"""Pixels the mouse may move with a tile pressed before it counts as a drag, not a click."""


class Held:
    """A rack tile under the pressed mouse button: a click if it stays put, else a drag."""

    def __init__(self, index: int, pos: tuple[int, int], *, was_selected: bool) -> None:
        self.index = index
        self.start = pos
        self.pos = pos
        self.moved = False
        self.was_selected = was_selected

    def move(self, pos: tuple[int, int]) -> None:
        self.pos = pos
        dx, dy = pos[0] - self.start[0], pos[1] - self.start[1]
        self.moved = self.moved or dx * dx + dy * dy > DRAG_SLOP * DRAG_SLOP


def number_tile(
    surf: pygame.Surface,
    rect: pygame.Rect,
    value: int,
    *,
    edge: d.Colour | None = None,
    face: d.Colour = TILE_FACE,
) -> pygame.Rect:
    """A Mathable tile with its number; returns the face rect."""
    top = d.tile(surf, rect, face, depth=0.1, radius=0.14, edge=edge)
    if edge is not None:
        pygame.draw.rect(surf, edge, top, width=max(2, rect.w // 14), border_radius=4)
    s = str(value)
    size = d.text_fit(s, int(top.w * 0.8), int(top.h * 0.62))
    d.text(surf, s, (top.centerx, top.centery + 1), size=size, colour=TILE_INK, anchor="center")
    return top


class MathableScene(GameScene):
    """The 14x14 board with our rack under it; seats, bag and buttons on the right."""

    TOLD = GameScene.TOLD | {"placed", "bonus", "hint", "timeout", "quit_vote"}
    """The events told on the notice line (see :mod:`tilehall.clients.words`)."""

    panel_width = 320

    def __init__(self, app: Any, model: Any) -> None:
        super().__init__(app, model)
        self.selected: int | None = None
        """Index into our rack of the tile picked up."""
        self.exchanging: set[int] | None = None
        """Rack indices marked for an exchange, while choosing them."""
        self.hinted_tile: int | None = None
        self.held: Held | None = None
        """The rack tile being pressed or dragged."""
        self.mouse = (-1, -1)
        self.turns = TurnLog()
        self.turns.feed(model.events)
        self.flash: dict[tuple[int, int], float] = {}
        self.end_button = Button("End turn", self.end_turn, key=pygame.K_RETURN, tone=(46, 110, 74))
        self.draw_button = Button("Draw", lambda: self.send({"do": "draw"}), key=pygame.K_d)
        self.exchange_button = Button("Exchange", self.exchange)
        self.cancel_button = Button("Cancel", self.cancel_exchange)
        self.hint_button = Button("Hint", lambda: self.send({"do": "hint"}))
        self.quit_button = Button("Vote quit", self.vote_quit, tone=(88, 62, 66))
        self.buttons = [
            self.end_button,
            self.draw_button,
            self.exchange_button,
            self.cancel_button,
            self.hint_button,
            self.quit_button,
        ]
        self.grid = d.Grid(pygame.Rect(0, 0, 1, 1), SIZE, SIZE)
        self.rack_rects: list[pygame.Rect] = []

    # -- what we may see ---------------------------------------------------------------

    @property
    def rack(self) -> list[int]:
        """Our rack (a spectator sees the rack of the seat to move, if open)."""
        racks = self.view.get("racks") or []
        seat = self.model.seat if self.model.seat is not None else self.view.get("to_move")
        if seat is None or seat >= len(racks) or racks[seat] is None:
            return []
        return list(racks[seat])

    # -- actions -----------------------------------------------------------------------

    def end_turn(self) -> None:
        self.selected = None
        self.send({"do": "end"})

    def exchange(self) -> None:
        if self.exchanging is None:
            self.exchanging = set()
            self.selected = None
            self.notice("Click the tiles to give back, then Swap.", d.TEXT)
            return
        if self.exchanging:
            tiles = [self.rack[i] for i in sorted(self.exchanging) if i < len(self.rack)]
            self.send({"do": "exchange", "tiles": tiles})
        self.exchanging = None

    def cancel_exchange(self) -> None:
        self.exchanging = None

    def click(self, pos: tuple[int, int], button: int) -> None:
        self.mouse = pos
        if button == 3:
            self.selected = self.held = None
            return
        for i, rect in enumerate(self.rack_rects):
            if rect.collidepoint(pos):
                self.press_rack(i, pos)
                return
        cell = self.grid.at(pos)
        if cell is not None and self.selected is not None:
            self.place(self.selected, cell)

    def press_rack(self, i: int, pos: tuple[int, int]) -> None:
        """A rack tile pressed: picked up at once, so that it can be dragged or clicked."""
        if self.model.seat is None:
            return
        if self.exchanging is not None:
            self.exchanging ^= {i}
            return
        self.held = Held(i, pos, was_selected=self.selected == i)
        self.selected = i

    def hover(self, pos: tuple[int, int]) -> None:
        self.mouse = pos
        if self.held is not None:
            self.held.move(pos)

    def release(self, pos: tuple[int, int], button: int) -> None:
        held, self.held = self.held, None
        if held is None or button != 1:
            return
        held.move(pos)
        if not held.moved:
            if held.was_selected:  # a second click on the picked tile puts it back
                self.selected = None
            return
        cell = self.grid.at(pos)
        if cell is not None:
            self.place(held.index, cell)
        # dropped off the board: the tile goes back to the rack, still picked

    def place(self, index: int, cell: tuple[int, int]) -> None:
        if self.exchanging is not None:
            return
        if not self.model.my_turn:
            self.notice("Wait for your turn.", d.GOLD)
            return
        rack = self.rack
        if index < len(rack):
            self.send({"do": "place", "tile": rack[index], "at": list(cell)})

    def on_snapshot(self, events: list[dict[str, Any]]) -> None:
        self.turns.feed(events)

    def on_change(self, change: Change) -> None:
        super().on_change(change)
        self.turns.feed(change.events)
        for ev in change.events:
            e = ev.get("e")
            if e == "placed":
                self.flash[(ev["at"][0], ev["at"][1])] = change.at
                if ev["seat"] == self.model.seat:
                    self.selected = None
                    if ev.get("tile") == self.hinted_tile:
                        self.hinted_tile = None  # the hint was taken: it fits nowhere now
            elif e == "hint":
                self.hinted_tile = ev.get("tile")
            elif e == "turn":
                self.hinted_tile = None
                if ev["seat"] == self.model.seat:
                    self.say(self.words().event(ev))
        rack = self.rack
        if self.selected is not None and self.selected >= len(rack):
            self.selected = None
        if self.held is not None and self.held.index >= len(rack):
            self.held = None

    def vote_quit(self) -> None:
        """Vote to quit (again: withdraw); the vote that would end the game asks first."""
        ask = words.quit_vote_question(self.model.vote_ends_game())
        if ask is None or self.confirmed("quit", f"{ask} Press Vote quit again to end it"):
            self.send({"do": "quit"})

    def update_buttons(self) -> None:
        turn = self.view.get("turn") or {}
        mine = self.model.my_turn and self.active  # not once over, nor while paused
        draws = int(turn.get("draws") or 0)
        if not mine:
            self.exchanging = None  # the turn passed (a clock, say) while choosing
        choosing = self.exchanging is not None
        self.end_button.enabled = mine and not choosing
        self.draw_button.label = f"Draw ({draws})" if draws else "Draw"
        self.draw_button.enabled = mine and draws > 0 and not choosing
        self.exchange_button.enabled = mine and bool(turn.get("can_exchange"))
        if choosing:
            n = len(self.exchanging or ())
            self.exchange_button.label = f"Swap {n}" if n else "Swap"
            self.exchange_button.toggled = True
        else:
            self.exchange_button.label, self.exchange_button.toggled = "Exchange", False
        self.cancel_button.visible = choosing
        self.hint_button.enabled = mine and not choosing
        voted = self.playing and self.model.seat in (self.view.get("quit_votes") or [])
        self.quit_button.enabled = self.playing
        self.quit_button.toggled = voted or self.confirming("quit")
        self.quit_button.label = "Unvote quit" if voted else "Vote quit"

    # -- drawing ------------------------------------------------------------------------

    def draw_board(self, surf: pygame.Surface, area: pygame.Rect) -> None:
        rack_h = max(48, min(86, area.h // 9))
        board_area = pygame.Rect(area.x, area.y, area.w, area.h - rack_h - PAD)
        self.grid = g = d.Grid(board_area, SIZE, SIZE, margin=0.2)
        frame = g.rect.inflate(g.cell // 3, g.cell // 3)
        pygame.draw.rect(surf, BOARD_EDGE, frame, border_radius=max(4, g.cell // 4))
        squares = self.view.get("squares") or [[""] * SIZE] * SIZE
        board = self.view.get("board") or [[None] * SIZE] * SIZE
        placed = {tuple(c) for c in (self.view.get("turn") or {}).get("placed") or []}
        recent = {cell for turn in self.recent() for cell in turn.squares()}
        now = time.monotonic()
        for r in range(SIZE):
            for c in range(SIZE):
                rect = g.cell_rect(r, c)
                kind = squares[r][c]
                value = board[r][c]
                if value is None:
                    self.draw_square(surf, rect, kind)
                    continue
                edge, face = None, TILE_FACE
                if (r, c) in placed:
                    edge = d.GOLD
                elif (r, c) in recent:
                    edge, face = RECENT_EDGE, RECENT_FACE
                age = now - self.flash.get((r, c), -10.0)
                face = d.blend((255, 236, 150), face, min(1.0, age / 0.8))
                number_tile(surf, rect.inflate(-2, -2), value, edge=edge, face=face)
        self.draw_target(surf, board)
        self.draw_rack(surf, pygame.Rect(area.x, board_area.bottom + PAD, area.w, rack_h))
        self.draw_held(surf)

    def held_tile(self) -> int | None:
        """The tile in hand (dragged, or picked for a click on a square), if any."""
        index = self.held.index if self.held is not None else self.selected
        rack = self.rack
        if index is None or index >= len(rack) or self.model.seat is None:
            return None
        return rack[index]

    def draw_target(self, surf: pygame.Surface, board: list[list[int | None]]) -> None:
        """Outline the empty square under a held tile, where a release or a click puts it."""
        cell = self.grid.at(self.mouse)
        if cell is None or self.held_tile() is None or self.exchanging is not None:
            return
        r, c = cell
        if board[r][c] is not None:
            return
        rect = self.grid.cell_rect(r, c).inflate(-2, -2)
        colour = d.ACCENT if self.model.my_turn else d.TEXT_DIM
        pygame.draw.rect(surf, colour, rect, width=max(2, rect.w // 12), border_radius=4)

    def draw_held(self, surf: pygame.Surface) -> None:
        """The dragged tile follows the mouse, a little larger, its rack slot left empty."""
        held = self.held
        tile = self.held_tile()
        if held is None or not held.moved or tile is None:
            return
        side = int(self.grid.cell * 0.8)  # a ring of the outlined square shows around it
        rect = pygame.Rect(0, 0, side, side)
        rect.center = held.pos
        number_tile(surf, rect, tile, edge=d.ACCENT)

    def draw_square(self, surf: pygame.Surface, rect: pygame.Rect, kind: str) -> None:
        fill = SQUARE_FILLS.get(kind, SQUARE_FILLS[""])
        inner = rect.inflate(-2, -2)
        pygame.draw.rect(surf, fill, inner, border_radius=3)
        label = SQUARE_LABELS.get(kind)
        if label:
            size = int(rect.h * (0.5 if len(label) > 1 else 0.75))
            d.text(
                surf, label, inner.center, size=size, colour=d.lighten(fill, 0.7), anchor="center"
            )

    def draw_rack(self, surf: pygame.Surface, strip: pygame.Rect) -> None:
        rack = self.rack
        self.rack_rects = []
        side = min(strip.h, self.grid.cell * 2, (strip.w - 8 * 6) // 7)
        mine = self.model.seat is not None
        label = "your rack" if mine else "rack of the seat to move"
        if not rack:
            label = "rack hidden" if self.view.get("status") == "playing" else ""
        total_w = len(rack) * side + max(0, len(rack) - 1) * 8
        x = strip.centerx - total_w // 2
        if x - 14 - d.font(18).size(label)[0] >= strip.x:  # a narrow window leaves it out
            d.text(
                surf, label, (x - 14, strip.centery), size=18, colour=d.TEXT_DIM, anchor="midright"
            )
        for i, value in enumerate(rack):
            rect = pygame.Rect(x + i * (side + 8), strip.y + (strip.h - side) // 2, side, side)
            lifted = rect.move(0, -8) if i == self.selected else rect
            self.rack_rects.append(rect)
            if self.held is not None and self.held.moved and i == self.held.index:
                pygame.draw.rect(surf, d.PANEL_EDGE, rect, width=2, border_radius=6)
                continue
            edge = None
            if i == self.selected:
                edge = d.ACCENT
            elif self.exchanging is not None and i in self.exchanging:
                edge = d.BAD
            elif value == self.hinted_tile:
                edge = d.GOLD
            number_tile(surf, lifted, value, edge=edge)

    def draw_panel(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        v = self.view
        x, y, w = rect.x, rect.y, rect.w
        scores = v.get("scores") or []
        racks = v.get("racks") or []
        sizes = v.get("rack_sizes") or []
        votes = v.get("quit_votes") or []
        hinted = v.get("hinted") or []
        for seat, score in enumerate(scores):
            box = pygame.Rect(x, y, w, 56)
            to_move = v.get("to_move") == seat and self.model.status == "playing"
            pygame.draw.rect(surf, (52, 60, 76) if to_move else (45, 52, 66), box, border_radius=8)
            if to_move:
                pygame.draw.rect(surf, d.GOOD, box, width=2, border_radius=8)
            name = self.model.seat_name(seat) + (" (you)" if seat == self.model.seat else "")
            tags = [
                t
                for t, on in (
                    ("stand-in", self.model.stood_in(seat)),
                    ("away", self.model.away(seat) and not self.model.stood_in(seat)),
                    ("quit", seat in votes),
                    ("hint", seat in hinted),
                )
                if on
            ]
            d.text(surf, name, (box.x + 8, box.y + 5), size=21)
            if self.model.stood_in(seat):  # a stand-in's seat reads apart at a glance
                pygame.draw.rect(surf, d.GOLD, box, width=2, border_radius=8)
            d.text(
                surf,
                str(score),
                (box.right - 8, box.y + 4),
                size=28,
                colour=d.GOLD,
                anchor="topright",
            )
            rack = racks[seat] if seat < len(racks) else None
            small = 16
            tiles = rack if rack is not None else [None] * (sizes[seat] if seat < len(sizes) else 0)
            tx = box.right - 8 - len(tiles) * (small + 2)
            if tags:  # left of the rack, smaller when the panel is narrow
                tag = " · ".join(tags)
                size = d.text_fit(tag, tx - box.x - 16, 16)
                d.text(surf, tag, (box.x + 8, box.y + 33), size=size, colour=d.GOLD)
            for i, t in enumerate(tiles):
                r = pygame.Rect(tx + i * (small + 2), box.y + 33, small, small)
                pygame.draw.rect(
                    surf, TILE_FACE if t is not None else (90, 96, 110), r, border_radius=3
                )
                if t is not None:
                    d.text(
                        surf,
                        str(t),
                        r.center,
                        size=d.text_fit(str(t), small, 15),
                        colour=TILE_INK,
                        anchor="center",
                    )
            y += 62
        y += 4
        y = self.stat(surf, x, y, w, "tiles in the bag", v.get("bag", 0))
        turn = v.get("turn") or {}
        if turn.get("draws"):
            y = self.stat(surf, x, y, w, "extra draws", turn["draws"], d.GOLD)
        clock = self.turn_left()
        if clock is not None:
            left = int(clock)
            y = self.stat(
                surf,
                x,
                y,
                w,
                "turn clock",
                f"{left // 60}:{left % 60:02d}",
                d.BAD if left < 15 else d.TEXT,
            )
        y += 4
        for turn in self.recent():
            y = self.draw_turn(surf, turn, x, y, w, self.buttons_top - 70)
        self.draw_unseen(surf, pygame.Rect(x, y, w, self.buttons_top - y - 8))

    def turn_left(self) -> float | None:
        """Seconds left on the turn clock, on the server's clock; None without one (or paused)."""
        deadline = self.view.get("deadline")
        return None if deadline is None else self.model.clock.left(float(deadline))

    def recent(self) -> list[Turn]:
        """The turns to show: the others' since ours ended (watching: the last one)."""
        return self.turns.since(self.model.seat)

    def draw_turn(
        self, surf: pygame.Surface, turn: Turn, x: int, y: int, w: int, bottom: int
    ) -> int:
        """A past turn: who and what it came to, then each tile's equation; returns the next y."""
        if y + 22 > bottom:
            return y
        head = f"{self.model.seat_name(turn.seat)}: {turn.summary()}"
        d.text(surf, head, (x, y), size=d.text_fit(head, w, 20), colour=RECENT_EDGE)
        y += 22
        for n, p in enumerate(turn.placed):
            if y + 20 > bottom:
                more = f"... and {len(turn.placed) - n} more"
                d.text(surf, more, (x + 10, y - 2), size=17, colour=d.TEXT_DIM)
                return y + 18
            line = p.equation(ops=words.OPS, space=" ")
            d.text(surf, line, (x + 10, y), size=d.text_fit(line, w - 70, 19))
            d.text(surf, f"+{p.points}", (x + w, y), size=19, colour=d.GOLD, anchor="topright")
            y += 20
        return y + 6

    def draw_unseen(self, surf: pygame.Surface, rect: pygame.Rect) -> None:
        """The tiles this seat has not seen: value, and how many when more than one."""
        unseen = Counter(self.view.get("unseen") or [])
        if rect.h < 40:
            return
        # With open racks the unseen tiles are the bag's: the stat above already counts them.
        count = sum(unseen.values())
        title = "in the bag" if count == self.view.get("bag") else f"tiles unseen ({count})"
        d.text(surf, title, (rect.x, rect.y), size=20, colour=d.TEXT_DIM)
        cw, ch = 44, 20
        cols = max(1, rect.w // cw)
        y0 = rect.y + 24
        for i, (value, n) in enumerate(sorted(unseen.items())):
            r, c = divmod(i, cols)
            if y0 + (r + 1) * ch > rect.bottom:
                break
            label = f"{value}" + (f"\u00d7{n}" if n > 1 else "")
            d.text(surf, label, (rect.x + c * cw, y0 + r * ch), size=18)

    def over_title(self) -> str:
        reason = (self.view.get("result") or {}).get("reason")
        return "Everyone quit" if reason == "quit" else "No more moves"
