"""Mathable: the 14x14 board with premium and operator squares, racks, turn, bag.

Play: pick a rack tile (``1``-``7``, ``tab``, or a click on the rack), move the
cursor, press space to place it; ``e`` ends the turn. The server checks every
equation; the screen only shows what it answers. What the other seats did since
your last turn stays highlighted on the board and listed beside it.
"""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Label, Static
from tilehall.clients import words
from tilehall.clients.cli.games.base import GameScreen
from tilehall.clients.cli.look import cell_name
from tilehall.clients.cli.widgets import Grid, Paint
from tilehall.clients.mathable import Turn, TurnLog
from tilehall.clients.model import RoomModel
from tilehall.clients.words import CONFIRM

__all__ = ["MathableScreen"]

SQUARE_STYLE = {
    "3x": "bold #ffffff on dark_red",
    "2x": "bold #ffffff on dark_blue",
    "+": "bold #ffffff on dark_green",
    "-": "bold #ffffff on dark_green",
    "*": "bold #ffffff on dark_green",
    "/": "bold #ffffff on dark_green",
}
"""Empty special squares; their labels (``3x``, ``+``...) carry the meaning without colour."""
THIS_TURN = "bold #101010 on #e6d23c"
"""Tiles placed in the turn going on."""
RECENT = "bold #101010 on #8cc8f0"
"""Tiles the other seats placed since the viewer's last turn (a spectator: the last turn)."""

RACK = 7


class MathableScreen(GameScreen):
    LABEL = "Mathable"
    KEYS = "1-7 pick  space place  e end  d draw  x exchange  i hint  v quit  ? q"
    WATCH_KEYS = "arrows/hjkl look around  u tiles left  ? help  q leave"
    LABELS = True
    WIDTHS = (4, 3)
    SIDE = 30
    CHROME = 5
    ABOUT = (
        "A tile goes on an empty square when, in some direction, the two squares next to it "
        "in a line hold a and b and the tile is a+b, a-b, a*b or a/b. On + - * / squares only "
        "that operation counts; 2x and 3x multiply the points. Pick a rack tile, move the "
        "cursor, press space. Tiles placed on an operator square earn an extra draw (d). "
        "Exchange (x) before placing anything: mark tiles with 1-7, press x again (esc "
        "cancels). 'u' shows the tiles left (those you cannot see). A hint costs your place "
        "in the Hall of Fame."
    )

    BINDINGS = [
        *(
            Binding(str(i + 1), f"pick({i})", "pick (or mark, when exchanging) a rack tile")
            for i in range(RACK)
        ),
        Binding("tab", "pick_next(1)", "pick the next rack tile"),
        Binding("shift+tab", "pick_next(-1)", "pick the previous rack tile"),
        Binding("e", "end", "end the turn (refills the rack)"),
        Binding("d", "draw", "take an earned extra draw"),
        Binding("x", "exchange", "exchange: mark tiles, x again to swap them"),
        Binding("escape", "cancel", "cancel the exchange / the pick"),
        Binding("i", "hint", "hint: a rack tile that fits (costs the Hall of Fame)"),
        Binding("v", "vote", "vote to quit (again to withdraw)"),
        Binding("u", "unseen", "show / hide the tiles left"),
    ]

    def __init__(self, model: RoomModel) -> None:
        super().__init__(model)
        self.cursor = (6, 8)
        self.pick: int | None = None
        """Index of the picked tile in the shown rack."""
        self.marked: set[int] | None = None
        """Rack indices marked for an exchange; None when not exchanging."""
        self.show_unseen = False
        self.turns = TurnLog()
        self.turns.feed(model.events)
        self.hinted_tile: int | None = None
        """The rack tile the last hint named, marked on the rack until the turn passes."""
        self.vote_asked = 0.0
        """When a quit vote that would end the game was asked to be pressed again."""

    # -- layout ---------------------------------------------------------------------

    def compose_below(self) -> ComposeResult:
        with Horizontal(id="below"):
            yield Label("Rack ", id="rack-label")
            yield Grid(1, RACK, self.paint_rack, widths=(4, 3), id="rack")
            yield Static(id="rack-note")

    def redraw_below(self) -> None:
        owner = self.rack_owner()
        # No rack to show: a spectator's once the game is over (nobody is to move).
        self.query_one("#below").display = self.model.status != "waiting" and owner is not None
        label = "Rack " if owner == self.model.seat else f"{self.model.name(owner)[:8]} "
        self.query_one("#rack-label", Label).update(label)
        rack = self.query_one("#rack", Grid)
        rack.cursor = (0, self.pick) if self.pick is not None else None
        rack.refresh()
        note = ""
        if self.marked is not None:
            note = f" exchange {len(self.marked)}: x swaps, esc cancels"
        elif self.model.my_turn and self.hinted_tile is not None:
            note = f" hint: the {self.hinted_tile} fits somewhere"
        elif self.model.my_turn and self.pick is None:
            note = " pick a tile: 1-7 or tab"
        self.query_one("#rack-note", Static).update(Text(note, style="italic"))

    # -- the model ------------------------------------------------------------------

    def rack_owner(self) -> int | None:
        """Whose rack the rack row shows: mine, or (watching) the player to move."""
        return self.model.seat if self.model.seat is not None else self.model.to_move

    def rack(self) -> list[int] | None:
        owner = self.rack_owner()
        racks: list[list[int] | None] = self.view.get("racks") or []
        if owner is None or owner >= len(racks):
            return None
        return racks[owner]

    def picked_tile(self) -> int | None:
        rack = self.rack() or []
        return rack[self.pick] if self.pick is not None and self.pick < len(rack) else None

    def forget(self) -> None:
        self.turns = TurnLog()

    def took(self, msg: dict[str, Any]) -> None:
        self.turns.feed(self.model.events)
        hint = self.model.event("hint")
        if hint is not None:
            self.hinted_tile = hint.get("tile")
        if self.model.event("turn") or not self.model.my_turn:
            self.hinted_tile = None
        for ev in self.model.events:
            # The hinted tile placed: the hint is taken, and "it fits somewhere" no more.
            if ev.get("e") == "placed" and ev.get("tile") == self.hinted_tile:
                self.hinted_tile = None
        if msg["t"] != "update" or self.model.event("placed") or self.model.event("turn"):
            self.pick = None
        if not self.model.my_turn:
            self.marked = None
        if self.pick is not None and self.pick >= len(self.rack() or []):
            self.pick = None

    # -- drawing --------------------------------------------------------------------

    def paint(self, r: int, c: int, width: int) -> Paint:
        board = self.view.get("board") or []
        squares = self.view.get("squares") or []
        if not (0 <= r < len(board) and 0 <= c < len(board[r])):
            return Paint()
        value = board[r][c]
        kind = squares[r][c] if r < len(squares) and c < len(squares[r]) else ""
        if value is not None:
            placed = [tuple(cell) for cell in (self.view.get("turn") or {}).get("placed") or []]
            if (r, c) in placed:
                return Paint(str(value), "bold underline" if self.mono else THIS_TURN)
            if any((r, c) in turn.squares() for turn in self.recent()):
                return Paint(str(value), "underline" if self.mono else RECENT)
            return Paint(str(value), "bold")
        if kind:
            return Paint(kind, "bold" if self.mono else SQUARE_STYLE.get(kind, ""))
        return Paint(".", "grey42")

    def paint_rack(self, r: int, c: int, width: int) -> Paint:
        rack = self.rack()
        if rack is None:
            owner = self.rack_owner()
            sizes = self.view.get("rack_sizes") or []
            hidden = owner is not None and owner < len(sizes) and c < sizes[owner]
            return Paint("?" if hidden else "", "dim")
        if c >= len(rack):
            return Paint("", "")
        style = "bold #101010 on #e8e8e8" if not self.mono else "bold"
        if rack[c] == self.hinted_tile and self.rack_owner() == self.model.seat:
            style = "bold underline" if self.mono else THIS_TURN
        if self.marked is not None and c in self.marked:
            style = "bold reverse" if self.mono else "bold #ffffff on dark_red"
            return Paint(f"{rack[c]}x" if width > 3 else str(rack[c]), style)
        return Paint(str(rack[c]), style)

    def side(self) -> Text:
        v = self.view
        m = self.model
        text = self.waiting()
        racks = v.get("racks") or []
        sizes = v.get("rack_sizes") or []
        votes = set(v.get("quit_votes") or [])
        hinted = set(v.get("hinted") or [])
        standins = [i for i in range(len(m.scores)) if m.stood_in(i)]
        for i, score in enumerate(m.scores):
            mark = ">" if m.to_move == i and m.status == "playing" else " "
            name = m.name(i) + ("~" if m.away(i) else "")
            flags = ("C" if i in standins else "") + ("Q" if i in votes else "")
            flags += "h" if i in hinted else ""
            size = sizes[i] if i < len(sizes) else 0
            text.append(
                f"{mark}{name[:11]:<11}{score:>5} {size}t {flags}\n",
                style="bold" if i == m.seat else "",
            )
        if m.status == "waiting":
            return text
        text.append_text(self.paused_text())
        if standins and not m.over:
            who = ", ".join(m.name(i) for i in standins)
            text.append(f"C = COMP plays for {who} (away)\n", style="bold")
        turn = v.get("turn") or {}
        bag, unseen = v.get("bag", 0), len(v.get("unseen") or [])
        # With open racks the tiles left are the bag's own: one number says it.
        text.append(f"Bag {bag}" + (f"  unseen {unseen}" if unseen != bag else "") + "\n")
        if m.status == "playing":
            text.append(f"Placed {len(turn.get('placed') or [])} this turn")
            if turn.get("draws"):
                key = " (d)" if m.my_turn else ""
                text.append(f"  draws {turn['draws']}{key}", style="bold")
            text.append("\n")
            left = self.seconds_left(v.get("deadline"))
            if left is not None:
                text.append(f"Clock {left} s\n", style="bold" if left <= 10 else "")
        result = v.get("result")
        if result:
            winners = ", ".join(m.name(i) for i in result.get("winners") or [])
            text.append(f"Over ({result.get('reason')}): {winners} won\n", style="bold")
            pens = result.get("penalties") or []
            text.append("Rack penalties " + " ".join(str(p) for p in pens) + "\n")
        if votes and not m.over:
            text.append("Q = votes to quit  ", style="dim")
        if hinted:
            text.append("h = hinted", style="dim")
        if votes or hinted:
            text.append("\n")
        kind = self.square(self.cursor)
        text.append(f"Cursor {cell_name(self.cursor)}{' ' + kind if kind else ''}\n", style="dim")
        if self.show_unseen:
            self.recent_text(text, self.side_room() - self.lines(text) - 3)
            text.append("Tiles left: " + " ".join(str(t) for t in v.get("unseen") or []))
            return text
        others = [
            Text(f"{m.name(i)[:8]}: {' '.join(str(t) for t in rack)}\n", style="dim")
            for i, rack in enumerate(racks)
            if rack is not None and i != self.rack_owner()
        ]
        # The side panel must not grow past the board, or it pushes the rack and
        # the messages off the screen: the last turns come first, then the racks.
        room = self.side_room() - self.lines(text)
        self.recent_text(text, room - min(1, len(others)))
        for line in others:
            if self.lines(text) + self.lines(line) <= self.side_room():
                text.append_text(line)
        return text

    def side_room(self) -> int:
        """Lines the side panel may take: the board's height (no limit before the board shows)."""
        grid = self.query("#grid")
        if not grid or not grid.first().display or not grid.first().outer_size.height:
            return 1000
        return grid.first().outer_size.height

    def lines(self, text: Text) -> int:
        """Lines ``text`` takes in the side panel, once wrapped."""
        side = self.query("#side")
        width = (side.first().content_size.width if side else 0) or 30
        return len(text.wrap(self.app.console, width)) - text.plain.endswith("\n")

    def recent(self) -> list[Turn]:
        """The turns to show: the others' since ours ended (watching: the last one)."""
        return self.turns.since(self.model.seat)

    def recent_text(self, text: Text, room: int) -> None:
        """The turns since ours, within ``room`` lines: who, what it came to, each tile.

        Tiles that do not fit are counted on one last line; the board shows them all.
        """
        style = "bold" if self.mono else "bold #8cc8f0"
        for turn in self.recent():
            if room < 1:
                return
            head = Text(f"{self.model.name(turn.seat)}: {turn.summary()}\n", style=style)
            text.append_text(head)
            room -= self.lines(head)
            for n, p in enumerate(turn.placed):
                left = len(turn.placed) - n
                if room < (1 if left == 1 else 2):
                    text.append(f" ... {left} more on the board\n", style="dim")
                    room -= 1
                    break
                text.append(f" {cell_name(p.at):<3} {p.equation(ops=words.OPS)} +{p.points}\n")
                room -= 1

    def square(self, cell: tuple[int, int]) -> str:
        squares = self.view.get("squares") or []
        r, c = cell
        return squares[r][c] if 0 <= r < len(squares) and 0 <= c < len(squares[r]) else ""

    def tick(self) -> None:
        if self.view.get("deadline") is not None and self.model.status == "playing":
            self.query_one("#side", Static).update(self.side())

    # -- input ----------------------------------------------------------------------

    def action_pick(self, index: int) -> None:
        rack = self.rack() or []
        if index >= len(rack):
            return
        if self.marked is not None:
            self.marked ^= {index}
        else:
            self.pick = None if self.pick == index else index
        self.redraw_below()

    def action_pick_next(self, step: int) -> None:
        rack = self.rack() or []
        if not rack:
            return
        self.pick = (-1 if self.pick is None else self.pick) + step
        self.pick %= len(rack)
        self.redraw_below()

    @on(Grid.Clicked, "#rack")
    def rack_clicked(self, event: Grid.Clicked) -> None:
        event.stop()
        self.action_pick(event.cell[1])

    def action_select(self) -> None:
        if not self.can_act():
            return
        tile = self.picked_tile()
        if tile is None:
            self.say("pick a rack tile first: 1-7 or tab")
            return
        r, c = self.cursor
        self.send({"do": "place", "tile": tile, "at": [r, c]})

    def action_end(self) -> None:
        if self.can_act():
            self.send({"do": "end"})

    def action_draw(self) -> None:
        if self.can_act():
            self.send({"do": "draw"})

    def action_hint(self) -> None:
        if self.can_act():
            self.send({"do": "hint"})

    def action_vote(self) -> None:
        if self.model.seat is None or self.model.over:
            self.say("only a player in a game on can vote to quit")
            return
        now = time.monotonic()
        ask = words.quit_vote_question(self.model.vote_ends_game())
        if ask is not None and now - self.vote_asked > CONFIRM:
            # The vote that may end the game at once asks first, as solo games' quit does.
            self.vote_asked = now
            self.say(f"{ask} Press v again to end it, within {CONFIRM:.0f} s.")
            return
        self.vote_asked = 0.0
        self.send({"do": "quit"})

    def action_exchange(self) -> None:
        if self.marked is None:
            if self.can_act():
                self.marked = set()
                self.pick = None
                self.redraw_below()
            return
        rack = self.rack() or []
        tiles = [rack[i] for i in sorted(self.marked) if i < len(rack)]
        self.marked = None
        self.redraw_below()
        if tiles:
            self.send({"do": "exchange", "tiles": tiles})

    def action_cancel(self) -> None:
        self.marked = None
        self.pick = None
        self.redraw_below()

    def action_unseen(self) -> None:
        self.show_unseen = not self.show_unseen
        self.query_one("#side", Static).update(self.side())
