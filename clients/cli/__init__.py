"""The terminal client: a Textual app to host, join, play and watch every Tilehall game.

Start it with ``tilehall`` or ``python -m tilehall.clients.cli --url ws://host:port --name ada``.
Importing this package needs no Textual: :func:`main` first checks that the
``cli`` extra is installed and says so if not, so the console script points here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tilehall.clients.extras import require

if TYPE_CHECKING:
    from tilehall.clients.cli.app import TilehallApp

__all__ = ["TilehallApp", "main"]


def main(argv: Sequence[str] | None = None) -> None:
    """Console entry point ``tilehall`` (see :func:`tilehall.clients.cli.app.main`)."""
    require("textual", extra="cli", command="tilehall")
    from tilehall.clients.cli.app import main as run

    run(argv)


def __getattr__(name: str) -> Any:
    # TilehallApp is a Textual class: imported on first use, not with the package.
    if name == "TilehallApp":
        from tilehall.clients.cli.app import TilehallApp

        return TilehallApp
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
