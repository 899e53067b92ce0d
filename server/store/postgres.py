"""PostgreSQL store: one database shared by every node of a cluster.

The same interface as :mod:`server.store.sqlite`, on an asyncpg pool, so the
event loop never blocks. Journal appends are group-committed: while one batch
is being committed, new appends queue up and go in the next statement (one
``INSERT ... SELECT FROM unnest(...)``), so many rooms acting at once share one
commit.

Two things only a shared store needs:

- **Fencing.** A node that lost a room to another node (the bus declared it dead
  while it was only cut off) must not keep appending to that room's journal.
  With :attr:`PostgresStore.owner` set, an append goes in only while
  ``rooms.node`` still names this node; otherwise it fails with
  :class:`AppendRefused` and the room rebuilds itself from what the journal holds.
- **Claims.** :meth:`PostgresStore.claim_room` moves a dead node's room to a
  live one with one ``UPDATE ... WHERE node = dead RETURNING``: row locking makes
  exactly one claimant win.

Select a schema with the URL: ``postgresql://user@host/db?search_path=tilehall``
(asyncpg passes unknown query parameters on as server settings).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any

import asyncpg
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

__all__ = ["MIGRATIONS", "PostgresStore"]

# Each entry brings the schema from version i to i + 1. Never edit a shipped one.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE players (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name TEXT NOT NULL,
        name_key TEXT NOT NULL UNIQUE,
        token_hash BYTEA NOT NULL UNIQUE,
        created_at DOUBLE PRECISION NOT NULL
    );
    CREATE TABLE rooms (
        id TEXT PRIMARY KEY,
        game TEXT NOT NULL,
        options JSONB NOT NULL,
        seed BIGINT NOT NULL,
        seats JSONB NOT NULL,
        private_code TEXT,
        status TEXT NOT NULL,
        node TEXT NOT NULL DEFAULT '',
        created_at DOUBLE PRECISION NOT NULL,
        finished_at DOUBLE PRECISION,
        result JSONB
    );
    CREATE INDEX rooms_unfinished ON rooms(node, created_at) WHERE status <> 'over';
    CREATE TABLE journal (
        room TEXT NOT NULL REFERENCES rooms(id),
        seq INTEGER NOT NULL,
        seat INTEGER,
        action BYTEA NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (room, seq)
    );
    CREATE TABLE scores (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        game TEXT NOT NULL,
        tbl TEXT NOT NULL,
        player BIGINT NOT NULL REFERENCES players(id),
        name TEXT NOT NULL,
        score BIGINT NOT NULL,
        room TEXT NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        detail JSONB NOT NULL
    );
    CREATE INDEX scores_table ON scores(game, tbl, score DESC);
    CREATE INDEX scores_player ON scores(game, player);
    """,
)

_ROOM_COLUMNS = "id, game, options, seed, seats, private_code, created_at, status, node"
_SCORE_COLUMNS = "game, tbl, player, name, score, room, at, detail"


class PostgresStore(Store):
    """The store in a PostgreSQL database.

    Args:
        url: ``postgresql://user:password@host:port/database`` (query parameters
            such as ``search_path=...`` become server settings).
        min_size, max_size: connections kept in the pool. Appends use one
            connection at a time (group commit), so a handful is plenty.
        owner: fence journal appends to rooms whose ``node`` is this name
            (None: no fence). A cluster node sets it to its own name.
    """

    def __init__(
        self, url: str, *, min_size: int = 1, max_size: int = 8, owner: str | None = None
    ) -> None:
        self.url = url
        self.min_size = min_size
        self.max_size = max_size
        self.owner = owner
        self._pool: asyncpg.Pool | None = None
        self._pending: list[tuple[JournalEntry, asyncio.Future[None]]] = []
        self._flusher: asyncio.Task[None] | None = None
        self._finishing: set[asyncio.Future[None]] = set()

    @property
    def pool(self) -> asyncpg.Pool:
        assert self._pool is not None, "store is not open"
        return self._pool

    async def open(self) -> None:
        self._pool = await asyncpg.create_pool(
            self.url, min_size=self.min_size, max_size=self.max_size
        )
        async with self.pool.acquire() as conn, conn.transaction():
            # Nodes starting together must not both migrate: one waits here.
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext(current_schema()))")
            await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER)")
            version = await conn.fetchval("SELECT max(version) FROM schema_version") or 0
            for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
                await conn.execute(script)
                await conn.execute("INSERT INTO schema_version(version) VALUES ($1)", number)

    async def close(self) -> None:
        if self._flusher is not None:
            await asyncio.shield(self._flusher)
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    # -- players -------------------------------------------------------------------

    async def create_player(self, name: str, token_hash: bytes, now: float) -> PlayerRecord:
        try:
            pid = await self.pool.fetchval(
                "INSERT INTO players(name, name_key, token_hash, created_at)"
                " VALUES ($1, $2, $3, $4) RETURNING id",
                name,
                name.casefold(),
                token_hash,
                now,
            )
        except asyncpg.UniqueViolationError:
            raise NameTaken(name) from None
        return PlayerRecord(id=pid, name=name)

    async def player_by_token(self, token_hash: bytes) -> PlayerRecord | None:
        row = await self.pool.fetchrow(
            "SELECT id, name FROM players WHERE token_hash = $1", token_hash
        )
        return PlayerRecord(id=row[0], name=row[1]) if row else None

    # -- rooms ---------------------------------------------------------------------

    async def create_room(self, room: RoomRecord) -> None:
        await self.pool.execute(
            "INSERT INTO rooms(id, game, options, seed, seats, private_code, status, node,"
            " created_at) VALUES ($1, $2, $3::jsonb, $4, $5::jsonb, $6, $7, $8, $9)",
            room.id,
            room.game,
            json.dumps(room.options),
            room.seed,
            seats_json(room.seats),
            room.private_code,
            room.status,
            room.node,
            room.created_at,
        )

    async def set_seats(self, room: str, seats: Sequence[SeatRecord]) -> None:
        await self.pool.execute(
            "UPDATE rooms SET seats = $1::jsonb WHERE id = $2", seats_json(seats), room
        )

    async def set_status(self, room: str, status: str) -> None:
        await self.pool.execute("UPDATE rooms SET status = $1 WHERE id = $2", status, room)

    async def unfinished_rooms(self, node: str = "") -> list[RoomRecord]:
        rows = await self.pool.fetch(
            f"SELECT {_ROOM_COLUMNS} FROM rooms WHERE status <> 'over' AND node = $1"
            " ORDER BY created_at",
            node,
        )
        return [room_from_row(row) for row in rows]

    async def room(self, room: str) -> RoomRecord | None:
        row = await self.pool.fetchrow(f"SELECT {_ROOM_COLUMNS} FROM rooms WHERE id = $1", room)
        return room_from_row(row) if row else None

    async def claim_room(self, room: str, old_node: str, new_node: str) -> RoomRecord | None:
        # Concurrent claimants queue on the row lock; once the first commits, the
        # others re-check ``node = old_node``, find it false and get no row.
        row = await self.pool.fetchrow(
            f"UPDATE rooms SET node = $3 WHERE id = $1 AND node = $2 AND status <> 'over'"
            f" RETURNING {_ROOM_COLUMNS}",
            room,
            old_node,
            new_node,
        )
        return room_from_row(row) if row else None

    # -- journal -------------------------------------------------------------------

    async def append(self, entry: JournalEntry) -> None:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((entry, fut))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush(), name="journal-flush")
        await fut

    async def _flush(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                kept = await self._insert([e for e, _ in batch])
            except Exception as exc:  # every waiter learns its entry was not kept
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(exc)
                continue
            for entry, fut in batch:
                if fut.done():
                    continue
                if (entry.room, entry.seq) in kept:
                    fut.set_result(None)
                else:
                    refused = f"room {entry.room}: seq {entry.seq} is taken or the room moved"
                    fut.set_exception(AppendRefused(refused))

    async def _insert(self, entries: list[JournalEntry]) -> set[tuple[str, int]]:
        """One statement, one commit for the batch; returns the (room, seq) that went in.

        An entry is left out, not failing the others, when its seq is already
        there or (with :attr:`owner`) its room belongs to another node.
        """
        fence = "" if self.owner is None else " AND r.node = $6"
        args: list[Any] = [
            [e.room for e in entries],
            [e.seq for e in entries],
            [e.seat for e in entries],
            [msgpack.packb(e.action, use_bin_type=True) for e in entries],
            [e.now for e in entries],
        ]
        if self.owner is not None:
            args.append(self.owner)
        rows = await self.pool.fetch(
            "INSERT INTO journal(room, seq, seat, action, at)"
            " SELECT t.room, t.seq, t.seat, t.action, t.at"
            " FROM unnest($1::text[], $2::int[], $3::int[], $4::bytea[], $5::float8[])"
            "  AS t(room, seq, seat, action, at)"
            f" JOIN rooms r ON r.id = t.room{fence}"
            " ON CONFLICT DO NOTHING RETURNING room, seq",
            *args,
        )
        return {(row[0], row[1]) for row in rows}

    async def journal(self, room: str) -> list[JournalEntry]:
        rows = await self.pool.fetch(
            "SELECT seq, seat, action, at FROM journal WHERE room = $1 ORDER BY seq", room
        )
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

    # -- results and scores ------------------------------------------------------------

    async def finish_room(
        self, room: str, result: dict[str, Any], scores: Sequence[ScoreRecord], now: float
    ) -> None:
        # A room finishes right after broadcasting its last update, and a player
        # may ask for the high scores at once: score reads wait for finishes in
        # flight, so a node reads its own writes (as SQLite's one thread does).
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._finishing.add(done)
        try:
            await self._finish_room(room, result, scores, now)
        finally:
            self._finishing.discard(done)
            done.set_result(None)

    async def _settled(self) -> None:
        if self._finishing:
            await asyncio.wait(list(self._finishing))

    async def _finish_room(
        self, room: str, result: dict[str, Any], scores: Sequence[ScoreRecord], now: float
    ) -> None:
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "UPDATE rooms SET status = 'over', finished_at = $1, result = $2::jsonb"
                " WHERE id = $3",
                now,
                json.dumps(result),
                room,
            )
            if scores:
                await conn.executemany(
                    f"INSERT INTO scores({_SCORE_COLUMNS})"
                    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)",
                    [
                        (s.game, s.table, s.player, s.name, s.score, s.room, s.at, _json(s))
                        for s in scores
                    ],
                )

    async def top_scores(self, game: str, table: str, limit: int = 10) -> list[ScoreRecord]:
        await self._settled()
        rows = await self.pool.fetch(
            f"SELECT {_SCORE_COLUMNS} FROM scores WHERE game = $1 AND tbl = $2"
            " ORDER BY score DESC, at ASC, id ASC LIMIT $3",
            game,
            table,
            limit,
        )
        return [score_from_row(row) for row in rows]

    async def best_of(self, game: str, player: int) -> list[ScoreRecord]:
        await self._settled()
        rows = await self.pool.fetch(
            f"SELECT DISTINCT ON (tbl) {_SCORE_COLUMNS} FROM scores"
            " WHERE game = $1 AND player = $2 ORDER BY tbl, score DESC, id ASC",
            game,
            player,
        )
        return [score_from_row(row) for row in rows]

    async def score_tables(self, game: str) -> list[str]:
        await self._settled()
        rows = await self.pool.fetch(
            "SELECT DISTINCT tbl FROM scores WHERE game = $1 ORDER BY tbl", game
        )
        return [row[0] for row in rows]


def _json(score: ScoreRecord) -> str:
    return json.dumps(score.detail)
