"""LinkSame: nine stages whose tiles slide after each pair, a shot clock, hints, shuffles.

Tiles are picture kinds ``0..kinds-1``; here they read as ``A``..``Z`` then
``2``..``9`` then ``# % & @`` (36 kinds at most, the hard size), each kind with its
colour; ``I``, ``O``, ``0`` and ``1`` are left out, two pairs of look-alikes.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.binding import Binding
from tilehall.clients import words
from tilehall.clients.cli.games.shisen import ShisenScreen, as_cell, path_cells
from tilehall.clients.cli.widgets import Cell

__all__ = ["LinkSameScreen", "tile_label"]

_COLOURS = (
    "#ff5050",
    "#50e050",
    "#f0e040",
    "#50a0ff",
    "#e060e0",
    "#40e0e0",
    "#ffa030",
    "#f8f8f8",
    "#b090ff",
)


def tile_label(kind: int) -> str:
    """A LinkSame tile as its board labels it (see :func:`words.tile_label`)."""
    return words.tile_label("linksame", kind)


class LinkSameScreen(ShisenScreen):
    LABEL = "LinkSame"
    KEYS = "space select  i hint  s shuffle  r restart  u undo  p pause  Q end  ? q"
    ABOUT = (
        "Remove identical tiles in pairs joined by a path of at most three straight lines "
        "through empty squares or the margin (the shortest is drawn). From stage 2 on, the "
        "tiles slide after every pair, a different way in each stage. Timed mode: +1 a pair "
        "and a speed bonus for a pair within 10 s of the previous one; the shot clock takes "
        "a point every 10 s without a pair. A hint costs 10, a shuffle 20; restart puts the "
        "stage's first board back with the score it started with. 'u' takes the last pair "
        "back (the game then enters no record table); 'p' pauses (the board is hidden) and "
        "resumes."
    )
    BINDINGS = [
        Binding("i", "hint", "hint: show a pair that keeps the board clearable (-10)"),
        Binding("s", "shuffle", "shuffle the tiles (-20)"),
        Binding("r", "restart", "restart this stage"),
        Binding("u", "undo", "take the last pair back (not eligible for records)"),
        Binding("p", "pause", "pause the clock (the board is hidden) / resume"),
        Binding("Q", "quit_game", "end the game now"),
        Binding("escape", "deselect", "drop the selection"),
    ]

    def tile(self, kind: int, width: int) -> tuple[str, str]:
        if self.mono:
            return tile_label(kind), "bold"
        return tile_label(kind), f"bold {_COLOURS[kind % len(_COLOURS)]} on grey19"

    def marks(self) -> set[Cell]:
        hint = self.view.get("hint")
        return {as_cell(hint["a"]), as_cell(hint["b"])} if hint else set()

    def took(self, msg: dict[str, Any]) -> None:
        super().took(msg)
        hint = self.view.get("hint")
        if hint and self.model.event("hint") and not self.path:
            # Show the hint's path too, on the board as it is (nothing moved).
            self.path = path_cells(hint["path"])

    def side(self) -> Text:
        v = self.view
        text = self.waiting()
        text.append_text(self.paused_text())
        timed = v.get("mode") == "timed"
        if timed:
            text.append(f"Score  {v.get('score', 0):>6}\n", style="bold")
        else:
            text.append("Practice (no score)\n", style="bold")
        text.append(f"Stage  {v.get('stage', 0) + 1:>6} of {v.get('stages', 9)}\n")
        movement = str(v.get("movement", ""))
        text.append(f"  {words.MOVEMENT.get(movement, movement)}\n", style="dim")
        text.append(f"Tiles  {v.get('tiles_left', 0):>6}\n")
        shot = self.seconds("shot_deadline")
        if timed and shot is not None:
            text.append(f"Shot clock {shot:>3} s\n", style="bold" if shot <= 3 else "")
        left = self.seconds_left(v.get("bonus_until"))
        if timed and left and not self.model.over:
            text.append(f"Speed bonus {left:>2} s\n", style="dim")
        text.append(f"{v.get('size', '')} {v.get('cols')}x{v.get('rows')}\n", style="dim")
        if self.model.over:
            text.append(f"\nGame over ({v.get('end')})\n", style="bold")
        self.status_text(text)
        return text

    def action_hint(self) -> None:
        if self.can_act():
            self.send({"do": "hint"})

    def action_shuffle(self) -> None:
        if self.can_act():
            self.send({"do": "shuffle"})

    def action_restart(self) -> None:
        if self.can_act():
            self.send({"do": "restart"})
