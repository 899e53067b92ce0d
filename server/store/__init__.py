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


async def open_store(url: str, *, password: str | None = None, process: bool = True) -> Store:
    """Open the store named by ``url``: ``postgresql://...`` or a SQLite file path.

    ``password``: PostgreSQL's, when it is kept out of the URL (read from a file).
    ``process``: a SQLite file's connection lives in a process of its own
    (:mod:`tilehall.server.store.process`), else on a thread of this one (as
    ``:memory:`` always does: only the process that opened it can see it).
    """
    store: Store
    if url.startswith(("postgresql://", "postgres://")):
        from tilehall.server.store.postgres import PostgresStore

        store = PostgresStore(url, password=password)
    else:
        path = url.removeprefix("sqlite://")
        if process and path != ":memory:":
            from tilehall.server.store.process import ProcessStore

            store = ProcessStore(path)
        else:
            from tilehall.server.store.sqlite import SQLiteStore

            store = SQLiteStore(path)
    await store.open()
    return store
