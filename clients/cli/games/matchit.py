"""Match-It: 16x6 sheets of mahjong tiles against the clock, lives, helps, bonuses.

Tiles read as their suit and number without colour: ``1d``..``9d`` dots,
``1b``..``9b`` bamboo, ``1c``..``9c`` characters, ``Rd Gd Wd`` dragons,
``E S W N`` winds, ``Pl Or Ch Bm`` flowers (any flower matches any flower),
``Sp Su Au Wi`` seasons (likewise).
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from tilehall.clients import words
from tilehall.clients.cli.games.shisen import ShisenScreen
from tilehall.clients.cli.widgets import Cell

__all__ = ["MatchItScreen", "tile_label"]

_STYLES = (
    ["#50a0ff"] * 9
    + ["#40c840"] * 9
    + ["#ff5050"] * 9
    + ["#ff5050", "#40c840", "#f8f8f8"]
    + ["#40e0e0"] * 4
    + ["#e060e0"] * 4
    + ["#f0e040"] * 4
)


def tile_label(kind: int) -> str:
    """``1d``, ``9c``, ``Rd``, ``E``, ``Pl``...: a Match-It tile in at most two characters."""
    return words.tile_label("matchit", kind)


class MatchItScreen(ShisenScreen):
    LABEL = "Match-It"
    KEYS = "space select  m matches  i help  u undo  p pause  g give up  Q end  ? q"
    ABOUT = (
        "Remove tiles in pairs: select a tile, then an identical one (any flower matches any "
        "flower, any season any season) joined by a path of at most three straight lines "
        "through empty squares or the margin. +2 a pair, -1 a pair with no path. Clear the "
        "sheet before the time runs out or lose a life. 'm' marks every tile matching the one "
        "under the cursor (-4); 'i' removes a pair for you (limited helps). Bonuses at the end "
        "of a sheet: time left, lives, helps, Pedigree P (never paired two different "
        "flowers/seasons), Internal I (margins never used). Tiles: 1d-9d dots, 1b-9b bamboo, "
        "1c-9c characters, Rd Gd Wd dragons, E S W N winds, Pl Or Ch Bm flowers, Sp Su Au Wi "
        "seasons. 'u' takes the last pair back (the clock runs on; the game then enters no "
        "record table); 'p' pauses (the sheet is hidden) and resumes."
    )
    BINDINGS = [
        Binding("m", "highlight", "mark all tiles matching the cursor's (-4)"),
        Binding("i", "help_pair", "help: remove a pair for me (uses a help)"),
        Binding("g", "giveup", "give up this sheet (costs a life)"),
        Binding("u", "undo", "take the last pair back (not eligible for records)"),
        Binding("p", "pause", "pause the clock (the sheet is hidden) / resume"),
        Binding("Q", "quit_game", "end the game now (the score counts)"),
        Binding("escape", "deselect", "drop the selection"),
    ]

    def tile(self, kind: int, width: int) -> tuple[str, str]:
        style = _STYLES[kind] if 0 <= kind < len(_STYLES) else ""
        if self.mono:
            return tile_label(kind), "bold"
        return tile_label(kind), f"bold {style} on grey19"

    def marks(self) -> set[Cell]:
        ev = self.model.event("highlight")
        return {(r, c) for r, c in ev["cells"]} if ev else set()

    def side(self) -> Text:
        v = self.view
        text = self.waiting()
        text.append_text(self.paused_text())
        text.append(f"Score {v.get('score', 0):>7}\n", style="bold")
        left = self.seconds("deadline")
        if left is not None:
            text.append(
                f"Time  {left // 60:>4}:{left % 60:02d}\n", style="bold" if left < 30 else ""
            )
        text.append(f"Level {v.get('level', 1):>7}\n")
        text.append(f"Sheets{v.get('sheets', 0):>7}\n")
        text.append(f"Lives {v.get('lives', 0):>7}\n")
        text.append(f"Helps {v.get('helps', 0):>7}\n")
        text.append(f"Tiles {v.get('tiles_left', 0):>7}\n")
        used = set(v.get("margins_used") or [])
        text.append("Bonus  ")
        text.append("P", style="bold" if v.get("pedigree") else "dim strike")
        text.append(" ")
        for side in ("top", "bottom", "left", "right"):
            text.append("-" if side in used else "*", style="dim" if side in used else "bold")
        text.append("I")
        text.append("\n")
        if self.model.over:
            text.append(f"\nGame over ({v.get('end')})\n", style="bold")
        self.status_text(text)
        return text

    # -- input ----------------------------------------------------------------------

    def action_alternate(self) -> None:
        """Right click, as in Match-It: highlight the tiles matching this one."""
        self.action_highlight()

    def action_highlight(self) -> None:
        if not self.can_act():
            return
        if self.tile_at(self.cursor) is None:
            self.say("no tile there")
            return
        self.send({"do": "highlight", "at": list(self.cursor)})

    def action_help_pair(self) -> None:
        if self.can_act():
            self.send({"do": "help"})

    def action_giveup(self) -> None:
        if self.can_act():
            self.send({"do": "giveup"})
