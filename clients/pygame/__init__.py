"""Tilehall in a window: a pygame-ce client for every game, played with the mouse.

``python -m tilehall.clients.pygame`` (or ``tilehall-gui``) opens the lobby. The window
renders only what the server sends (:mod:`tilehall.clients.model`), draws it with
pygame's own primitives (:mod:`tilehall.clients.pygame.draw`) and runs the network on a
thread of its own (:mod:`tilehall.clients.pygame.net`), so drawing never waits.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from tilehall.clients.extras import require

# pygame prints a banner when it is first imported, unless told not to: every
# module of this package imports it, so say so before any of them can.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point ``tilehall-gui`` (see :func:`tilehall.clients.pygame.app.main`).

    It checks first that the ``gui`` extra (pygame-ce) is installed, and says so if not.
    """
    require("pygame", extra="gui", command="tilehall-gui")
    from tilehall.clients.pygame.app import main as run

    run(argv)
