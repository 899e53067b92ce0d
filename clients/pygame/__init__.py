"""Tilehall in a window: a pygame-ce client for every game, played with the mouse.

``python -m clients.pygame`` (or ``tilehall-gui``) opens the lobby. The window
renders only what the server sends (:mod:`clients.pygame.model`), draws it with
pygame's own primitives (:mod:`clients.pygame.draw`) and runs the network on a
thread of its own (:mod:`clients.pygame.net`), so drawing never waits.
"""

from __future__ import annotations

__all__ = ["main"]


def main() -> None:
    """Open the window (see :func:`clients.pygame.app.main`)."""
    from clients.pygame.app import main as run

    run()
