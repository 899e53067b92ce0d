"""The terminal client: a Textual app to host, join, play and watch every Tilehall game.

Start it with ``tilehall`` or ``python -m tilehall.clients.cli --url ws://host:port --name ada``.
"""

from __future__ import annotations

from tilehall.clients.cli.app import TilehallApp, main

__all__ = ["TilehallApp", "main"]
