"""Tilehall in a window: a pygame-ce client for every game, played with the mouse.

``python -m tilehall.clients.pygame`` (or ``tilehall-gui``) opens the lobby. The window
renders only what the server sends (:mod:`tilehall.clients.model`), draws it with
pygame's own primitives (:mod:`tilehall.clients.pygame.draw`) and runs the network on a
thread of its own (:mod:`tilehall.clients.pygame.net`), so drawing never waits.
"""

from __future__ import annotations

import os

# pygame prints a banner when it is first imported, unless told not to: every
# module of this package imports it, so say so before any of them can.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

__all__ = ["main"]


def main() -> None:
    """Open the window (see :func:`tilehall.clients.pygame.app.main`)."""
    from tilehall.clients.pygame.app import main as run

    run()
