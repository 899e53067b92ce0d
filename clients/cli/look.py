"""How the board reads in a terminal: square names, colours, and the symbols that
replace colours when the terminal has none.

Every piece that colour tells apart also gets a distinct symbol, so a game
stays playable with ``NO_COLOR`` (Textual then draws in monochrome): Ishido
stones read as a colour letter plus a symbol digit, Lines chips as symbols.
"""

from __future__ import annotations

from tilehall.clients.words import STONE_LETTERS, column_letter, square

__all__ = [
    "CHIP_COLOURS",
    "CHIP_SYMBOLS",
    "STONE_COLOURS",
    "STONE_LETTERS",
    "cell_letter",
    "cell_name",
    "chip",
    "stone",
]

# Colours are given as RGB, not ANSI names: Textual maps ANSI names through its theme,
# where red and magenta can land on the same shade once a terminal has only 256 colours.

STONE_COLOURS = ("#e03c3c", "#f09228", "#e6d23c", "#3cb43c", "#3c78f0", "#a05cc4")
"""Red, orange, yellow, green, blue, purple: the colours the shared words name (words.json)
and the window and the web page draw; :data:`STONE_LETTERS` are their first letters."""

CHIP_COLOURS = (
    "",
    "#ff4040",
    "#40d040",
    "#f0e040",
    "#4080ff",
    "#e050e0",
    "#40e0e0",
    "#f0f0f0",
    "#ff9020",
    "#a080ff",
)
"""Lines chip colours, indexed by the view's colour number 1..9."""

CHIP_SYMBOLS = " @#%&*+=$^"
"""The same chips without colour: one distinct symbol per colour number."""


def cell_letter(col: int) -> str:
    """A column's letter (``0`` -> ``a``), as boards drawn with labels show it."""
    return column_letter(col)


def cell_name(cell: list[int] | tuple[int, int] | None) -> str:
    """A square as people say it: column letter, row number from 1 (``[6, 7]`` -> ``h7``)."""
    return square(cell)


def stone(colour: int, symbol: int, mono: bool) -> tuple[str, str]:
    """An Ishido stone's label and style: ``R3`` on red (or plain, in monochrome)."""
    label = f"{STONE_LETTERS[colour % 6]}{symbol + 1}"
    if mono:
        return label, "bold"
    return label, f"bold #101010 on {STONE_COLOURS[colour % 6]}"


def chip(colour: int, mono: bool) -> tuple[str, str]:
    """A Lines chip: a coloured disc, or its own symbol in monochrome."""
    if mono or not 0 < colour < len(CHIP_COLOURS):
        return CHIP_SYMBOLS[colour % len(CHIP_SYMBOLS)], "bold"
    return "\u25cf", f"bold {CHIP_COLOURS[colour]}"
