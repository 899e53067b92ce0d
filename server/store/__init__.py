"""Persistence: one interface, SQLite by default, PostgreSQL for clusters."""

from __future__ import annotations

from server.store.base import (
    AppendRefused,
    JournalEntry,
    NameTaken,
    PlayerRecord,
    RoomRecord,
    ScoreRecord,
    SeatRecord,
    Store,
)

__all__ = [
    "AppendRefused",
    "JournalEntry",
    "NameTaken",
    "PlayerRecord",
    "RoomRecord",
    "ScoreRecord",
    "SeatRecord",
    "Store",
    "open_store",
]


async def open_store(url: str) -> Store:
    """Open the store named by ``url``: ``postgresql://...`` or a SQLite file path."""
    store: Store
    if url.startswith(("postgresql://", "postgres://")):
        from server.store.postgres import PostgresStore

        store = PostgresStore(url)
    else:
        from server.store.sqlite import SQLiteStore

        store = SQLiteStore(url.removeprefix("sqlite://"))
    await store.open()
    return store
