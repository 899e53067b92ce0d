"""A high-score record's ``detail`` in words, for the lobby's tables and today's deal."""

from __future__ import annotations

from typing import Any

__all__ = ["DETAIL_WORDS", "detail_text"]

DETAIL_WORDS = {
    "placed": ("placed", "placed"),
    "left": ("left", "left"),
    "fourways": ("4-way", "4-ways"),
    "helps": ("help", "helps"),
    "tiles_placed": ("tile", "tiles"),
    "moves": ("move", "moves"),
    "sheets": ("sheet", "sheets"),
    "stages": ("stage", "stages"),
}
"""How the counts of the games' ``detail`` read after their number (protocol/games/*.md)."""


def detail_text(detail: dict[str, Any] | None) -> str:
    """A record's ``detail`` in words: ``won, 66 placed, 4 4-ways``; ``blocked, 25 tiles``.

    Outcomes first (a flag, a reason), then the counts; a count of 0 says nothing.
    """
    flags, counts = [], []
    for key, value in (detail or {}).items():
        words = key.replace("_", " ")
        if isinstance(value, bool):
            if key == "won":
                flags.append("won" if value else "lost")
            elif value:
                flags.append(words)
        elif key == "reason" or isinstance(value, str):
            flags.append(str(value))
        elif isinstance(value, int) and key in DETAIL_WORDS:
            if value:
                one, many = DETAIL_WORDS[key]
                counts.append(f"{value} {one if value == 1 else many}")
        else:
            counts.append(f"{words} {value}")
    return ", ".join(part for part in flags + counts if part)
