"""Tilehall: an authoritative asyncio WebSocket server for classic tile and board games."""

__version__ = "0.1.0"
