"""The key help overlay (``?``): the screen's keys and a few words on its game."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

__all__ = ["HelpScreen", "keys_of"]

OURS = __name__.rpartition(".cli.")[0] + "."
"""The clients' package as installed (``tilehall.clients.``): screens whose keys are listed."""


def keys_of(screen: Screen[Any]) -> list[tuple[str, str]]:
    """The screen's described bindings (its own first, then inherited) as (keys, what) pairs.

    Bindings with the same description are merged, so the four cursor keys read as one line.
    """
    merged: dict[str, list[str]] = {}
    for cls in type(screen).__mro__:
        if not cls.__module__.startswith(OURS):
            continue  # Textual's own (focus, copy) are not this game's keys
        for binding in cls.__dict__.get("BINDINGS", []):
            if isinstance(binding, tuple):
                key, _action, description = (*binding, "")[:3]
            else:
                key, description = binding.key, binding.description
            if not description:
                continue
            keys = merged.setdefault(description, [])
            keys.extend(k.strip() for k in key.split(",") if k.strip() not in keys)
        if cls.__dict__.get("_inherit_bindings", True) is False:
            break  # its bases' keys are not bound here (a replay's, over a game screen)
    return [(" ".join(_pretty(k) for k in _arrows(keys)), what) for what, keys in merged.items()]


def _arrows(keys: list[str]) -> list[str]:
    """The four arrow keys read as one word."""
    arrows = ["up", "down", "left", "right"]
    if all(a in keys for a in arrows):
        vi = [k for k in "hjkl" if k in keys]
        keys = ["arrows", *vi, *(k for k in keys if k not in arrows and k not in vi)]
    return keys


def _pretty(key: str) -> str:
    return {"question_mark": "?", "space": "space", "enter": "enter", "escape": "esc"}.get(key, key)


class HelpScreen(ModalScreen[None]):
    """Any key closes it."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 76; max-width: 100%; height: auto; max-height: 22;
        border: round $accent; padding: 0 1; background: $surface;
    }
    """

    def __init__(self, title: str, keys: list[tuple[str, str]], about: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.keys = keys
        self.about = about

    def compose(self) -> ComposeResult:
        text = Text()
        text.append(f"{self.title_text}\n", style="bold")
        width = max((len(k) for k, _ in self.keys), default=4)
        for keys, what in self.keys:
            text.append(f"  {keys:<{width}}  ", style="bold")
            text.append(f"{what}\n")
        if self.about:
            text.append(f"\n{self.about.strip()}\n")
        text.append("\nany key closes this", style="dim")
        with VerticalScroll():
            yield Static(text, id="help-text")

    def on_key(self, event: events.Key) -> None:
        event.stop()
        self.dismiss(None)

    def on_click(self) -> None:
        self.dismiss(None)
