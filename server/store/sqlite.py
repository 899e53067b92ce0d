"""SQLite store: the embedded default, one file, nothing to install.

Every SQLite call runs on one dedicated thread that owns the connection, so the
event loop never blocks on disk. Journal appends are group-committed: while one
batch is being committed, new appends queue up and go in the next transaction,
so many rooms acting at once share one fsync. WAL mode keeps readers and the
writer out of each other's way.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import msgpack

from server.store.base import (
    AppendRefused,
    JournalEntry,
    NameTaken,
    PlayerRecord,
    RoomRecord,
    ScoreRecord,
    SeatRecord,
    Store,
    room_from_row,
    score_from_row,
    seats_json,
)

__all__ = ["SQLiteStore"]

T = TypeVar("T")

# Each entry brings the schema from version i to i + 1. Never edit a shipped one.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE players (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        token_hash BLOB NOT NULL UNIQUE,
        created_at REAL NOT NULL
    );
    CREATE TABLE rooms (
        id TEXT PRIMARY KEY,
        game TEXT NOT NULL,
        options TEXT NOT NULL,
        seed INTEGER NOT NULL,
        seats TEXT NOT NULL,
        private_code TEXT,
        status TEXT NOT NULL,
        node TEXT NOT NULL DEFAULT '',
        created_at REAL NOT NULL,
        finished_at REAL,
        result TEXT
    );
    CREATE INDEX rooms_status ON rooms(status);
    CREATE TABLE journal (
        room TEXT NOT NULL REFERENCES rooms(id),
        seq INTEGER NOT NULL,
        seat INTEGER,
        action BLOB NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (room, seq)
    ) WITHOUT ROWID;
    CREATE TABLE scores (
        id INTEGER PRIMARY KEY,
        game TEXT NOT NULL,
        tbl TEXT NOT NULL,
        player INTEGER NOT NULL REFERENCES players(id),
        name TEXT NOT NULL,
        score INTEGER NOT NULL,
        room TEXT NOT NULL,
        at REAL NOT NULL,
        detail TEXT NOT NULL
    );
    CREATE INDEX scores_table ON scores(game, tbl, score DESC);
    CREATE INDEX scores_player ON scores(game, player);
    """,
)


class SQLiteStore(Store):
    """The store in one SQLite file.

    Args:
        path: the database file (its folder is created), or ``":memory:"``.
        synchronous: SQLite's ``synchronous`` pragma. ``FULL`` (default) fsyncs
            every commit, so an accepted move survives even a power cut;
            ``NORMAL`` still survives a killed process.
    """

    def __init__(self, path: str | Path, *, synchronous: str = "FULL") -> None:
        self.path = str(path)
        self.synchronous = synchronous
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite")
        self._db: sqlite3.Connection | None = None
        self._pending: list[tuple[JournalEntry, asyncio.Future[None]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- plumbing ----------------------------------------------------------------

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    @property
    def db(self) -> sqlite3.Connection:
        assert self._db is not None, "store is not open"
        return self._db

    async def open(self) -> None:
        self._loop = asyncio.get_running_loop()
        await self._run(self._open)

    def _open(self) -> None:
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={self.synchronous}")
        db.execute("PRAGMA foreign_keys=ON")
        db.execute("PRAGMA busy_timeout=5000")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
            db.execute("BEGIN IMMEDIATE")
            for statement in filter(str.strip, script.split(";")):
                db.execute(statement)
            db.execute(f"PRAGMA user_version={number}")
            db.execute("COMMIT")
        self._db = db

    async def close(self) -> None:
        if self._flusher is not None:
            await asyncio.shield(self._flusher)
        if self._db is not None:
            await self._run(self.db.close)
            self._db = None
        self._executor.shutdown(wait=True)

    def _append_rows(self, rows: list[tuple[Any, ...]]) -> list[bool]:
        """Commit one group of journal rows; which went in.

        The sqlite3 module lets go of the GIL around every statement it steps
        and must take it back after, while the event loop's thread holds it:
        each statement costs both threads a hand-off (before this, ~9 % of the
        loop's samples were such waits). So a group that fits one statement is
        one statement, its own transaction and its own commit; a larger group,
        or one with a refused row, takes the slower way.
        """
        if len(rows) > _INSERT_CHUNK:
            return self._tx(lambda db: _insert(db, rows))
        try:
            _insert_many(self.db, rows)
        except sqlite3.IntegrityError:  # nothing was written: find the refused rows
            return self._tx(lambda db: _insert_each(db, rows))
        return [True] * len(rows)

    def _tx(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            out = fn(db)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        return out

    # -- players -------------------------------------------------------------------

    async def create_player(self, name: str, token_hash: bytes, now: float) -> PlayerRecord:
        def work(db: sqlite3.Connection) -> PlayerRecord:
            try:
                cur = db.execute(
                    "INSERT INTO players(name, name_key, token_hash, created_at) VALUES (?,?,?,?)",
                    (name, name.casefold(), token_hash, now),
                )
            except sqlite3.IntegrityError:
                raise NameTaken(name) from None
            assert cur.lastrowid is not None
            return PlayerRecord(id=cur.lastrowid, name=name)

        return await self._run(self._tx, work)

    async def player_by_token(self, token_hash: bytes) -> PlayerRecord | None:
        def work() -> PlayerRecord | None:
            row = self.db.execute(
                "SELECT id, name FROM players WHERE token_hash = ?", (token_hash,)
            ).fetchone()
            return PlayerRecord(id=row[0], name=row[1]) if row else None

        return await self._run(work)

    # -- rooms ---------------------------------------------------------------------

    async def create_room(self, room: RoomRecord) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO rooms(id, game, options, seed, seats, private_code, status, node,"
                " created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    room.id,
                    room.game,
                    json.dumps(room.options),
                    room.seed,
                    seats_json(room.seats),
                    room.private_code,
                    room.status,
                    room.node,
                    room.created_at,
                ),
            )

        await self._run(self._tx, work)

    async def set_seats(self, room: str, seats: Sequence[SeatRecord]) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute("UPDATE rooms SET seats = ? WHERE id = ?", (seats_json(seats), room))

        await self._run(self._tx, work)

    async def set_status(self, room: str, status: str) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute("UPDATE rooms SET status = ? WHERE id = ?", (status, room))

        await self._run(self._tx, work)

    async def unfinished_rooms(self, node: str = "") -> list[RoomRecord]:
        def work() -> list[RoomRecord]:
            rows = self.db.execute(
                "SELECT id, game, options, seed, seats, private_code, created_at, status, node"
                " FROM rooms WHERE status != 'over' AND node = ? ORDER BY created_at",
                (node,),
            ).fetchall()
            return [room_from_row(row) for row in rows]

        return await self._run(work)

    async def claim_room(self, room: str, old_node: str, new_node: str) -> RoomRecord | None:
        def work(db: sqlite3.Connection) -> RoomRecord | None:
            row = db.execute(
                "UPDATE rooms SET node = ? WHERE id = ? AND node = ? AND status != 'over'"
                " RETURNING id, game, options, seed, seats, private_code, created_at, status,"
                " node",
                (new_node, room, old_node),
            ).fetchone()
            return room_from_row(row) if row else None

        return await self._run(self._tx, work)

    async def room(self, room: str) -> RoomRecord | None:
        def work() -> RoomRecord | None:
            row = self.db.execute(
                "SELECT id, game, options, seed, seats, private_code, created_at, status, node"
                " FROM rooms WHERE id = ?",
                (room,),
            ).fetchone()
            return room_from_row(row) if row else None

        return await self._run(work)

    # -- journal -------------------------------------------------------------------

    async def append(self, entry: JournalEntry) -> None:
        # The loop open() ran on: asyncio.get_running_loop() calls getpid() each
        # time, 1.5 % of the event loop's samples at 5,000 appends/s.
        loop = self._loop or asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self._pending.append((entry, fut))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        await fut

    async def _flush(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            rows = [
                (e.room, e.seq, e.seat, msgpack.packb(e.action, use_bin_type=True), e.now)
                for e, _ in batch
            ]
            try:
                kept = await self._run(self._append_rows, rows)
            except Exception as exc:  # every waiter learns its entry was not kept
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(exc)
            else:
                for (entry, fut), ok in zip(batch, kept, strict=True):
                    if fut.done():
                        continue
                    if ok:
                        fut.set_result(None)
                    else:
                        fut.set_exception(
                            AppendRefused(f"room {entry.room}: seq {entry.seq} is taken")
                        )

    async def journal(self, room: str) -> list[JournalEntry]:
        def work() -> list[JournalEntry]:
            rows = self.db.execute(
                "SELECT seq, seat, action, at FROM journal WHERE room = ? ORDER BY seq", (room,)
            ).fetchall()
            return [
                JournalEntry(
                    room=room,
                    seq=seq,
                    seat=seat,
                    action=msgpack.unpackb(action, raw=False, strict_map_key=False),
                    now=at,
                )
                for seq, seat, action, at in rows
            ]

        return await self._run(work)

    # -- results and scores ------------------------------------------------------------

    async def finish_room(
        self, room: str, result: dict[str, Any], scores: Sequence[ScoreRecord], now: float
    ) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute(
                "UPDATE rooms SET status = 'over', finished_at = ?, result = ? WHERE id = ?",
                (now, json.dumps(result), room),
            )
            db.executemany(
                "INSERT INTO scores(game, tbl, player, name, score, room, at, detail)"
                " VALUES (?,?,?,?,?,?,?,?)",
                [
                    (s.game, s.table, s.player, s.name, s.score, s.room, s.at, json.dumps(s.detail))
                    for s in scores
                ],
            )

        await self._run(self._tx, work)

    async def top_scores(self, game: str, table: str, limit: int = 10) -> list[ScoreRecord]:
        def work() -> list[ScoreRecord]:
            rows = self.db.execute(
                "SELECT game, tbl, player, name, score, room, at, detail FROM scores"
                " WHERE game = ? AND tbl = ? ORDER BY score DESC, at ASC LIMIT ?",
                (game, table, limit),
            ).fetchall()
            return [score_from_row(row) for row in rows]

        return await self._run(work)

    async def best_of(self, game: str, player: int) -> list[ScoreRecord]:
        def work() -> list[ScoreRecord]:
            rows = self.db.execute(
                "SELECT game, tbl, player, name, score, room, at, detail FROM scores s"
                " WHERE game = ? AND player = ? AND NOT EXISTS (SELECT 1 FROM scores t"
                "  WHERE t.game = s.game AND t.tbl = s.tbl AND t.player = s.player"
                "  AND (t.score > s.score OR (t.score = s.score AND t.id < s.id)))"
                " ORDER BY tbl",
                (game, player),
            ).fetchall()
            return [score_from_row(row) for row in rows]

        return await self._run(work)

    async def score_tables(self, game: str) -> list[str]:
        def work() -> list[str]:
            rows = self.db.execute(
                "SELECT DISTINCT tbl FROM scores WHERE game = ? ORDER BY tbl", (game,)
            ).fetchall()
            return [row[0] for row in rows]

        return await self._run(work)


_INSERT_CHUNK = 199
"""Journal rows per INSERT statement: 5 parameters each stays under SQLite's
oldest limit of 999 parameters per statement."""


def _insert_each(db: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> list[bool]:
    """Insert rows one by one, skipping the refused (a taken seq); which went in."""
    sql = "INSERT OR IGNORE INTO journal(room, seq, seat, action, at) VALUES (?,?,?,?,?)"
    return [db.execute(sql, row).rowcount == 1 for row in rows]


def _insert_many(db: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
    """One statement for all ``rows``; IntegrityError (and nothing written) if any is refused."""
    sql = "INSERT INTO journal(room, seq, seat, action, at) VALUES " + ",".join(
        ["(?,?,?,?,?)"] * len(rows)
    )
    db.execute(sql, [v for row in rows for v in row])


def _insert(db: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> list[bool]:
    """Insert journal rows in the open transaction; which went in (a taken seq does not).

    A chunk at a time; a chunk with a refused row (a taken seq: another node
    owns the room) fails as one statement, which SQLite undoes alone, and is
    redone a row at a time to learn which.
    """
    kept: list[bool] = []
    for start in range(0, len(rows), _INSERT_CHUNK):
        chunk = rows[start : start + _INSERT_CHUNK]
        try:
            _insert_many(db, chunk)
        except sqlite3.IntegrityError:
            kept += _insert_each(db, chunk)
        else:
            kept += [True] * len(chunk)
    return kept
