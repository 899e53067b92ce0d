"""Persistence: one interface, SQLite by default, PostgreSQL for clusters."""

from __future__ import annotations

from tilehall.server.store.base import Store
from tilehall.server.store.errors import AppendRefused, NameTaken, RoomTaken, StoreUnavailable
from tilehall.server.store.records import (
    JournalEntry,
    PlayerRecord,
    RoomRecord,
    ScoreRecord,
    SeatRecord,
)

__all__ = [
    "AppendRefused",
    "JournalEntry",
    "NameTaken",
    "PlayerRecord",
    "RoomRecord",
    "RoomTaken",
    "ScoreRecord",
    "SeatRecord",
    "Store",
    "StoreUnavailable",
    "open_store",
]


async def open_store(url: str, *, password: str | None = None) -> Store:
    """Open the store named by ``url``: ``postgresql://...`` or a SQLite file path.

    ``password``: PostgreSQL's, when it is kept out of the URL (read from a file).
    """
    store: Store
    if url.startswith(("postgresql://", "postgres://")):
        from tilehall.server.store.postgres import PostgresStore

        store = PostgresStore(url, password=password)
    else:
        from tilehall.server.store.sqlite import SQLiteStore

        store = SQLiteStore(url.removeprefix("sqlite://"))
    await store.open()
    return store
