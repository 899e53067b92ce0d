"""PostgreSQL store: one database shared by every node of a cluster.

The same interface as :mod:`tilehall.server.store.sqlite`, on an asyncpg pool, so the
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
import functools
import json
import logging
import math
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Concatenate, ParamSpec, TypeVar

import asyncpg
import msgpack
from tilehall.server.names import KEYS_VERSION, folded_skeleton, name_key, skeleton
from tilehall.server.ratings import RatedGame, Rating, rate_game
from tilehall.server.store import queries
from tilehall.server.store.base import Store
from tilehall.server.store.errors import AppendRefused, NameTaken, RoomTaken, StoreUnavailable
from tilehall.server.store.queries import POSTGRES, Queries
from tilehall.server.store.records import (
    CHAT_KEPT,
    SHOWCASE_PREFIX,
    AccountRecord,
    ChatLine,
    FinishedRoom,
    JournalEntry,
    PlayerRecord,
    RatingRecord,
    RoomRecord,
    ScoreRecord,
    SeatRecord,
)
from tilehall.server.store.rows import (
    ROOM_COLUMNS,
    account_from_row,
    finished_from_row,
    player_keys,
    rating_changes,
    rating_from_row,
    room_from_row,
    room_row,
    score_from_row,
    score_row,
    seats_json,
)

__all__ = ["MIGRATIONS", "NodeRecord", "PostgresStore"]

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
    """
    CREATE TABLE nodes (
        name TEXT PRIMARY KEY,
        epoch BIGINT NOT NULL,
        url TEXT NOT NULL DEFAULT '',
        renewed_at TIMESTAMPTZ NOT NULL,
        rooms INTEGER NOT NULL DEFAULT 0,
        draining BOOLEAN NOT NULL DEFAULT false,
        stopped BOOLEAN NOT NULL DEFAULT false
    );
    """,
    """
    ALTER TABLE rooms ADD COLUMN creator BIGINT;
    CREATE INDEX rooms_open_by_creator ON rooms(creator) WHERE status <> 'over';
    """,
    # Confusable names: the two skeletons of tilehall.server.names under unique
    # indexes, filled for older rows at open (_fill_skeletons), which also redoes
    # their name_key (NFKC before the case fold).
    """
    ALTER TABLE players ADD COLUMN skeleton TEXT;
    ALTER TABLE players ADD COLUMN folded TEXT;
    CREATE UNIQUE INDEX players_skeleton ON players(skeleton);
    CREATE UNIQUE INDEX players_folded ON players(folded);
    CREATE TABLE name_keys (
        k INTEGER PRIMARY KEY,
        version TEXT NOT NULL
    );
    """,
    """
    ALTER TABLE players ADD COLUMN bot BOOLEAN NOT NULL DEFAULT false;
    """,
    # Quick-match rooms fill with bots at fill_at; every player's finished rooms,
    # newest first, for history (the rooms played before are filled in).
    """
    ALTER TABLE rooms ADD COLUMN fill_at DOUBLE PRECISION;
    ALTER TABLE rooms ADD COLUMN fill_level TEXT;
    CREATE TABLE room_players (
        room TEXT NOT NULL REFERENCES rooms(id),
        seat INTEGER NOT NULL,
        player BIGINT NOT NULL REFERENCES players(id),
        game TEXT NOT NULL,
        finished_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (room, seat)
    );
    CREATE INDEX room_players_by_player ON room_players(player, finished_at DESC, room DESC);
    CREATE INDEX room_players_by_game ON room_players(player, game, finished_at DESC, room DESC);
    CREATE INDEX room_players_finished ON room_players(finished_at);
    INSERT INTO room_players(room, seat, player, game, finished_at)
        SELECT r.id, s.i - 1, (s.seat ->> 'player')::bigint, r.game, r.finished_at
        FROM rooms r, jsonb_array_elements(r.seats) WITH ORDINALITY AS s(seat, i)
        WHERE r.status = 'over' AND r.finished_at IS NOT NULL
          AND s.seat ->> 'player' IS NOT NULL
          AND EXISTS (SELECT 1 FROM journal j WHERE j.room = r.id);
    """,
    # Ratings (tilehall.server.ratings): one row per player and game, and the rooms
    # already rated, so that a finish done again never rates a room twice.
    """
    CREATE TABLE ratings (
        player BIGINT NOT NULL REFERENCES players(id),
        game TEXT NOT NULL,
        rating DOUBLE PRECISION NOT NULL,
        rd DOUBLE PRECISION NOT NULL,
        vol DOUBLE PRECISION NOT NULL,
        games INTEGER NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (player, game)
    );
    CREATE INDEX ratings_board ON ratings(game, rating DESC) WHERE games > 0;
    CREATE TABLE rated_rooms (
        room TEXT PRIMARY KEY,
        game TEXT NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        changes JSONB NOT NULL
    );
    """,
    # Names kept across devices (issue 29): every token of a player, one row each
    # (players.token_hash, the first, stays for its constraint but is no longer
    # read), the Argon2id hash of a password, a one-time code's hash, a host's bar.
    """
    CREATE TABLE tokens (
        hash BYTEA PRIMARY KEY,
        player BIGINT NOT NULL REFERENCES players(id),
        created_at DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX tokens_by_player ON tokens(player);
    INSERT INTO tokens(hash, player, created_at) SELECT token_hash, id, created_at FROM players;
    ALTER TABLE players ADD COLUMN password TEXT;
    ALTER TABLE players ADD COLUMN reset_code BYTEA;
    ALTER TABLE players ADD COLUMN disabled BOOLEAN NOT NULL DEFAULT FALSE;
    """,
    # Today's deal (issue 41): which day's deal a room plays and whether it is practice,
    # each player's try of the day, and the server's secrets, shared by every node.
    """
    ALTER TABLE rooms ADD COLUMN daily TEXT;
    ALTER TABLE rooms ADD COLUMN practice BOOLEAN NOT NULL DEFAULT FALSE;
    CREATE INDEX rooms_daily ON rooms(creator, game, daily) WHERE daily IS NOT NULL;
    CREATE TABLE daily_tries (
        game TEXT NOT NULL,
        day TEXT NOT NULL,
        player BIGINT NOT NULL REFERENCES players(id),
        room TEXT NOT NULL,
        PRIMARY KEY (game, day, player)
    );
    CREATE INDEX daily_tries_day ON daily_tries(day);
    CREATE TABLE secrets (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    # Chat that stays (issue 40): each room's latest lines, in the order they were kept.
    """
    CREATE TABLE chat (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        room TEXT NOT NULL,
        name TEXT NOT NULL,
        text TEXT NOT NULL,
        at DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX chat_by_room ON chat(room, id);
    """,
)

_PLAYED = """
    INSERT INTO room_players(room, seat, player, game, finished_at)
    SELECT r.id, s.i - 1, (s.seat ->> 'player')::bigint, r.game, r.finished_at
    FROM rooms r, jsonb_array_elements(r.seats) WITH ORDINALITY AS s(seat, i)
    WHERE r.id = $1 AND s.seat ->> 'player' IS NOT NULL
      AND EXISTS (SELECT 1 FROM journal j WHERE j.room = r.id)
    ON CONFLICT DO NOTHING
"""
"""Enter a room just finished in its players' histories (if it was played at all)."""

_DOWN: tuple[type[BaseException], ...] = (
    OSError,  # refused, reset: the server is down or the network is
    TimeoutError,  # no answer within the pool's timeouts
    asyncpg.InterfaceError,  # the connection was closed under the query
    asyncpg.PostgresConnectionError,
    asyncpg.OperatorInterventionError,  # shutting down, starting up, backend terminated
    asyncpg.InsufficientResourcesError,  # disk full, too many connections
    asyncpg.ReadOnlySQLTransactionError,  # a standby after a failover
)
"""What says the database is unreachable or cannot write now, rather than a bug here."""

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")


def _guarded(
    fn: Callable[Concatenate[PostgresStore, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[PostgresStore, P], Coroutine[Any, Any, T]]:
    """Turn the driver's "the database is not there" into :class:`StoreUnavailable`."""

    async def guarded(self: PostgresStore, /, *args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await fn(self, *args, **kwargs)
        except _DOWN as exc:
            raise StoreUnavailable(f"PostgreSQL: {type(exc).__name__}: {exc}") from exc

    functools.update_wrapper(guarded, fn)
    return guarded


CONNECT_TIMEOUT = 5.0
"""Seconds to open a connection before the database counts as unreachable."""
COMMAND_TIMEOUT = 10.0
"""Seconds a statement may take before the database counts as unreachable."""

_ROOM_COLUMNS = ROOM_COLUMNS

Q = Queries().render(POSTGRES)
"""The statements both stores share (:mod:`tilehall.server.store.queries`), in its spelling."""


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeRecord:
    """A cluster node as the ``nodes`` table knows it; times are the database's clock."""

    name: str
    epoch: int
    """Bumped each time a process registers under this name: tells incarnations apart."""
    url: str
    """Where its players connect (``--public-url``), for redirects; may be empty."""
    renewed_at: float
    """When it last renewed its lease (epoch seconds, database clock)."""
    rooms: int
    """Unfinished rooms it hosted at its last renewal: its load, for placing new rooms."""
    draining: bool
    """Handing its rooms over; takes no new ones."""
    stopped: bool
    """Left the cluster cleanly: its rooms may be taken at once."""


async def _fill_skeletons(conn: asyncpg.Connection) -> None:
    """Give the players stored before skeletons theirs (see :func:`player_keys`).

    All of them, when the keys were made with other rules (:data:`KEYS_VERSION`).
    Run in open()'s transaction, under its lock: one node fills, the others find
    nothing left to fill.
    """
    made = await conn.fetchval("SELECT version FROM name_keys WHERE k = 1")
    if made != KEYS_VERSION:
        if made is not None:
            log.warning("name keys were made with %s: making them with %s", made, KEYS_VERSION)
        await conn.execute("UPDATE players SET skeleton = NULL, folded = NULL")
        await conn.execute(
            "INSERT INTO name_keys(k, version) VALUES (1, $1)"
            " ON CONFLICT (k) DO UPDATE SET version = excluded.version",
            KEYS_VERSION,
        )
    rows = await conn.fetch("SELECT id, name FROM players WHERE skeleton IS NULL ORDER BY id")
    if not rows:
        return
    taken: tuple[set[str], set[str], set[str]] = (set(), set(), set())
    for row in await conn.fetch(
        "SELECT name_key, skeleton, folded FROM players WHERE skeleton IS NOT NULL"
    ):
        for k, used in zip(row, taken, strict=True):
            used.add(k)
    new = player_keys([(r["id"], r["name"]) for r in rows], taken)
    # Out of the way first: a row's old key may be another row's new one.
    await conn.execute(
        "UPDATE players SET name_key = E'\\n~' || id WHERE id = ANY($1::bigint[])",
        [pid for pid, *_ in new],
    )
    await conn.executemany(
        "UPDATE players SET name_key = $2, skeleton = $3, folded = $4 WHERE id = $1", new
    )


class PostgresStore(Store):
    """The store in a PostgreSQL database.

    Args:
        url: ``postgresql://user:password@host:port/database`` (query parameters
            such as ``search_path=...`` become server settings).
        min_size, max_size: connections kept in the pool. Appends use one
            connection at a time (group commit), so a handful is plenty.
        owner: fence journal appends to rooms whose ``node`` is this name
            (None: no fence). A cluster node sets it to its own name.
        password: when it is not in the URL (nor in ``$PGPASSWORD``, which the
            driver reads itself).
    """

    def __init__(
        self,
        url: str,
        *,
        min_size: int = 1,
        max_size: int = 8,
        owner: str | None = None,
        password: str | None = None,
    ) -> None:
        self.url = url
        self.password = password
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

    @_guarded
    async def open(self) -> None:
        self._pool = await asyncpg.create_pool(
            self.url,
            password=self.password,
            min_size=self.min_size,
            max_size=self.max_size,
            timeout=CONNECT_TIMEOUT,
            command_timeout=COMMAND_TIMEOUT,
        )
        async with self.pool.acquire() as conn, conn.transaction():
            # Nodes starting together must not both migrate: one waits here.
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext(current_schema()))")
            await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER)")
            version = await conn.fetchval("SELECT max(version) FROM schema_version") or 0
            for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
                await conn.execute(script)
                await conn.execute("INSERT INTO schema_version(version) VALUES ($1)", number)
            await _fill_skeletons(conn)

    async def close(self) -> None:
        if self._flusher is not None:
            await asyncio.shield(self._flusher)
        if self._pool is not None:
            try:
                async with asyncio.timeout(CONNECT_TIMEOUT):
                    await self._pool.close()
            except Exception:  # the database is gone: do not wait on it
                self._pool.terminate()
            self._pool = None

    @_guarded
    async def ping(self) -> None:
        await self.pool.fetchval("SELECT 1")

    # -- players -------------------------------------------------------------------

    @_guarded
    async def create_player(self, name: str, token_hash: bytes, now: float) -> PlayerRecord:
        try:
            async with self.pool.acquire() as conn, conn.transaction():
                pid = await conn.fetchval(
                    Q.create_player,
                    name,
                    name_key(name),
                    skeleton(name),
                    folded_skeleton(name),
                    token_hash,
                    now,
                )
                await conn.execute(Q.add_token, token_hash, pid, now)
        except asyncpg.UniqueViolationError:
            raise NameTaken(name) from None
        return PlayerRecord(id=pid, name=name)

    @_guarded
    async def player_by_token(self, token_hash: bytes) -> PlayerRecord | None:
        row = await self.pool.fetchrow(Q.player_by_token, token_hash)
        return PlayerRecord(id=row[0], name=row[1]) if row else None

    # -- what guards a name --------------------------------------------------------

    @_guarded
    async def account(self, player: int) -> AccountRecord | None:
        row = await self.pool.fetchrow(Q.account, player)
        return account_from_row(row) if row else None

    @_guarded
    async def account_by_token(self, token_hash: bytes) -> AccountRecord | None:
        row = await self.pool.fetchrow(Q.account_by_token, token_hash)
        return account_from_row(row) if row else None

    @_guarded
    async def account_by_name(self, name: str) -> AccountRecord | None:
        key = name_key(name)
        row = await self.pool.fetchrow(Q.account_by_name, key, skeleton(name), key)
        return account_from_row(row) if row else None

    @_guarded
    async def add_token(self, player: int, token_hash: bytes, now: float) -> None:
        await self.pool.execute(Q.add_token, token_hash, player, now)

    @_guarded
    async def revoke_token(self, token_hash: bytes) -> None:
        await self.pool.execute(Q.revoke_token, token_hash)

    @_guarded
    async def revoke_tokens(self, player: int) -> int:
        status = await self.pool.execute(Q.revoke_tokens, player)
        return int(status.split()[-1])

    @_guarded
    async def set_password(
        self, player: int, password: str | None, reset_code: bytes | None = None
    ) -> None:
        await self.pool.execute(Q.set_password, password, reset_code, player)

    @_guarded
    async def rehash_password(self, player: int, old: str, new: str) -> bool:
        status = await self.pool.execute(Q.rehash_password, new, player, old)
        return bool(status == "UPDATE 1")

    @_guarded
    async def set_disabled(self, player: int, disabled: bool) -> None:
        await self.pool.execute(Q.set_disabled, disabled, player)

    # -- rooms ---------------------------------------------------------------------

    @_guarded
    async def create_room(self, room: RoomRecord) -> None:
        try:
            await self.pool.execute(Q.create_room, *room_row(room))
        except asyncpg.UniqueViolationError:  # the only unique key of rooms is its id
            raise RoomTaken(room.id) from None

    @_guarded
    async def set_seats(self, room: str, seats: Sequence[SeatRecord]) -> None:
        await self.pool.execute(Q.set_seats, seats_json(seats), room)

    @_guarded
    async def set_status(self, room: str, status: str) -> None:
        await self.pool.execute(Q.set_status, status, room)

    @_guarded
    async def set_fill(self, room: str, at: float) -> None:
        await self.pool.execute(Q.set_fill, at, room)

    @_guarded
    async def unfinished_rooms(self, node: str = "") -> list[RoomRecord]:
        rows = await self.pool.fetch(Q.unfinished_rooms, node)
        return [room_from_row(row) for row in rows]

    @_guarded
    async def room(self, room: str) -> RoomRecord | None:
        row = await self.pool.fetchrow(Q.room, room)
        return room_from_row(row) if row else None

    # -- today's deal -------------------------------------------------------------------

    @_guarded
    async def secret(self, name: str, new: str) -> str:
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(Q.keep_secret, name, new)
            value: str = await conn.fetchval(Q.secret, name)
            return value

    @_guarded
    async def daily_try(self, game: str, day: str, player: int, room: str) -> str:
        # The upsert takes the row's lock: a second room asking at once waits for the
        # first to commit, then finds the try held by a room still open.
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(Q.daily_try, game, day, player, room)
            holder: str = await conn.fetchval(Q.daily_try_room, game, day, player)
            return holder

    @_guarded
    async def daily_rooms(self, game: str, day: str, player: int) -> list[RoomRecord]:
        return [room_from_row(r) for r in await self.pool.fetch(Q.daily_rooms, game, day, player)]

    @_guarded
    async def purge_days(self, oldest: str) -> int:
        async with self.pool.acquire() as conn, conn.transaction():
            scores = await conn.execute(Q.purge_day_scores, "daily-" + oldest)
            tries = await conn.execute(Q.purge_day_tries, oldest)
            return int(scores.split()[-1]) + int(tries.split()[-1])

    @_guarded
    async def open_rooms_of(self, creator: int) -> int:
        count: int = await self.pool.fetchval(Q.open_rooms_of, creator)
        return count

    @_guarded
    async def claim_room(self, room: str, old_node: str, new_node: str) -> RoomRecord | None:
        # Concurrent claimants queue on the row lock; once the first commits, the
        # others re-check ``node = old_node``, find it false and get no row.
        row = await self.pool.fetchrow(Q.claim_room, new_node, room, old_node)
        return room_from_row(row) if row else None

    # -- cluster nodes and their leases -----------------------------------------------
    #
    # A node's liveness is decided here, by the database's own clock, and not by the
    # broker: an MQTT Last Will is forged by nothing more than a broker restart. A node
    # renews its lease every few tenths of a second; another node may take its rooms
    # only once the lease has lapsed for a whole lease period during which the claimer
    # itself could renew (so a database outage, which stops every renewal, moves nothing).

    @_guarded
    async def register_node(self, name: str, url: str) -> int:
        """Start a new incarnation of node ``name``; returns its epoch (always higher)."""
        epoch: int = await self.pool.fetchval(
            "INSERT INTO nodes(name, epoch, url, renewed_at) VALUES ($1, 1, $2, clock_timestamp())"
            " ON CONFLICT (name) DO UPDATE SET epoch = nodes.epoch + 1, url = $2,"
            " renewed_at = clock_timestamp(), draining = false, stopped = false"
            " RETURNING epoch",
            name,
            url,
        )
        return epoch

    @_guarded
    async def connect_one(self) -> asyncpg.Connection:
        """A connection outside the pool, for work that must never queue behind appends."""
        conn: asyncpg.Connection = await asyncpg.connect(
            self.url,
            password=self.password,
            timeout=CONNECT_TIMEOUT,
            command_timeout=COMMAND_TIMEOUT,
        )
        return conn

    @_guarded
    async def room_owners(self) -> set[str]:
        """The nodes that host at least one unfinished room."""
        rows = await self.pool.fetch(
            "SELECT DISTINCT node FROM rooms WHERE status <> 'over' AND node <> ''"
        )
        return {r[0] for r in rows}

    @_guarded
    async def renew_lease(
        self, name: str, epoch: int, rooms: int, *, conn: asyncpg.Connection | None = None
    ) -> float | None:
        """Renew the lease; returns the database's time of it, None if another epoch owns the name.

        ``conn``: a connection of its own, so that a busy pool never delays a heartbeat.
        """
        runner = conn if conn is not None else self.pool
        at: float | None = await runner.fetchval(
            "UPDATE nodes SET renewed_at = clock_timestamp(), rooms = $3"
            " WHERE name = $1 AND epoch = $2 RETURNING extract(epoch FROM renewed_at)::float8",
            name,
            epoch,
            rooms,
        )
        return at

    @_guarded
    async def nodes(self) -> tuple[float, list[NodeRecord]]:
        """The database's time now, and every node it knows."""
        rows = await self.pool.fetch(
            "SELECT name, epoch, url, extract(epoch FROM renewed_at)::float8, rooms, draining,"
            " stopped, extract(epoch FROM clock_timestamp())::float8 FROM nodes ORDER BY name"
        )
        now = (
            rows[0][7]
            if rows
            else await self.pool.fetchval("SELECT extract(epoch FROM clock_timestamp())::float8")
        )
        return now, [
            NodeRecord(
                name=r[0],
                epoch=r[1],
                url=r[2],
                renewed_at=r[3],
                rooms=r[4],
                draining=r[5],
                stopped=r[6],
            )
            for r in rows
        ]

    @_guarded
    async def set_node(
        self, name: str, *, draining: bool | None = None, stopped: bool | None = None
    ) -> None:
        """Mark a node draining (or not), or stopped (it left cleanly)."""
        if draining is not None:
            await self.pool.execute(
                "UPDATE nodes SET draining = $2 WHERE name = $1", name, draining
            )
        if stopped is not None:
            await self.pool.execute("UPDATE nodes SET stopped = $2 WHERE name = $1", name, stopped)

    @_guarded
    async def claim_lapsed(
        self, room: str, dead: str, me: str, *, lease: float, healthy_since: float
    ) -> RoomRecord | None:
        """Take ``room`` from node ``dead`` if, and only if, ``dead``'s lease has lapsed.

        Lapsed: ``dead`` stopped cleanly, or has not renewed for ``lease`` seconds of a
        time during which this node renewed its own (``healthy_since``, database clock)
        — or was never registered. One statement: the check and the move cannot be
        told apart by another claimant (row locking makes exactly one win).
        """
        row = await self.pool.fetchrow(
            f"UPDATE rooms SET node = $3 WHERE id = $1 AND node = $2 AND status <> 'over'"
            " AND NOT EXISTS (SELECT 1 FROM nodes n WHERE n.name = $2 AND NOT n.stopped"
            "  AND GREATEST(n.renewed_at, to_timestamp($5)) + make_interval(secs => $4)"
            "   >= clock_timestamp())"
            f" RETURNING {_ROOM_COLUMNS}",
            room,
            dead,
            me,
            lease,
            healthy_since,
        )
        return room_from_row(row) if row else None

    @_guarded
    async def hand_over(self, room: str, me: str, to: str) -> RoomRecord | None:
        """Give an unfinished room this node hosts to node ``to`` (a drain, a placement)."""
        row = await self.pool.fetchrow(
            f"UPDATE rooms SET node = $3 WHERE id = $1 AND node = $2 AND status <> 'over'"
            f" RETURNING {_ROOM_COLUMNS}",
            room,
            me,
            to,
        )
        return room_from_row(row) if row else None

    # -- journal -------------------------------------------------------------------

    def append(self, entry: JournalEntry) -> asyncio.Future[None]:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((entry, fut))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush(), name="journal-flush")
        return fut

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

    @_guarded
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

    @_guarded
    async def journal(self, room: str) -> list[JournalEntry]:
        rows = await self.pool.fetch(Q.journal, room)
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

    # -- chat ----------------------------------------------------------------------------

    @_guarded
    async def add_chat(self, line: ChatLine, keep: int = CHAT_KEPT) -> None:
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute(Q.add_chat, line.room, line.name, line.text, line.at)
            await conn.execute(Q.trim_chat, line.room, line.room, keep)

    @_guarded
    async def chat(self, room: str, limit: int = CHAT_KEPT) -> list[ChatLine]:
        rows = await self.pool.fetch(Q.chat, room, limit)
        return [ChatLine(room=r, name=n, text=t, at=a) for r, n, t, a in rows]

    # -- results and scores ------------------------------------------------------------

    async def finish_room(
        self,
        room: str,
        result: dict[str, Any],
        scores: Sequence[ScoreRecord],
        now: float,
        *,
        rated: RatedGame | None = None,
    ) -> None:
        # A room finishes right after broadcasting its last update, and a player
        # may ask for the high scores at once: score reads wait for finishes in
        # flight, so a node reads its own writes (as SQLite's one thread does).
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._finishing.add(done)
        try:
            await self._finish_room(room, result, scores, now, rated)
        finally:
            self._finishing.discard(done)
            done.set_result(None)

    async def _settled(self) -> None:
        if self._finishing:
            await asyncio.wait(list(self._finishing))

    @_guarded
    async def _finish_room(
        self,
        room: str,
        result: dict[str, Any],
        scores: Sequence[ScoreRecord],
        now: float,
        rated: RatedGame | None,
    ) -> None:
        async with self.pool.acquire() as conn, conn.transaction():
            done = await conn.execute(Q.finish_room, now, json.dumps(result), room)
            if done != "UPDATE 1":
                return  # over already (a finish done again): no score twice
            await conn.execute(_PLAYED, room)
            if scores:
                await conn.executemany(Q.insert_score, [score_row(s) for s in scores])
            if rated is not None:
                await _rate(conn, rated, now)

    @_guarded
    async def top_scores(
        self, game: str, table: str, limit: int = 10, *, bots: bool = False
    ) -> list[ScoreRecord]:
        await self._settled()
        rows = await self.pool.fetch(Q.top_scores, game, table, bots, limit)
        return [score_from_row(row) for row in rows]

    @_guarded
    async def mark_bot(self, player: int) -> None:
        await self.pool.execute(Q.mark_bot, player)

    @_guarded
    async def best_of(self, game: str, player: int) -> list[ScoreRecord]:
        await self._settled()
        rows = await self.pool.fetch(Q.best_of, game, player)
        return [score_from_row(row) for row in rows]

    @_guarded
    async def score_tables(self, game: str) -> list[str]:
        await self._settled()
        rows = await self.pool.fetch(Q.score_tables, game)
        return [row[0] for row in rows]

    # -- history and replays -------------------------------------------------------------

    @_guarded
    async def player_by_name(self, name: str) -> PlayerRecord | None:
        key = name_key(name)
        row = await self.pool.fetchrow(Q.player_by_name, key, skeleton(name), key)
        return PlayerRecord(id=row[0], name=row[1]) if row else None

    @_guarded
    async def history(
        self,
        player: int,
        *,
        game: str | None = None,
        limit: int = 20,
        before: tuple[float, str] | None = None,
        private: bool = False,
    ) -> list[FinishedRoom]:
        await self._settled()
        sql, args = queries.history(
            POSTGRES, player, game=game, limit=limit, before=before, private=private
        )
        rows = await self.pool.fetch(sql, *args)
        return [finished_from_row(row) for row in rows]

    @_guarded
    async def purge_journals(self, finished_before: float, batch: int = 100) -> int:
        async with self.pool.acquire() as conn, conn.transaction():
            rooms = [row[0] for row in await conn.fetch(Q.purge_listed, finished_before, batch)]
            rooms += [
                row[0]
                for row in await conn.fetch(Q.purge_unlisted, finished_before, batch - len(rooms))
            ]
            await conn.execute("DELETE FROM journal WHERE room = ANY($1::text[])", rooms)
            await conn.execute("DELETE FROM room_players WHERE room = ANY($1::text[])", rooms)
            await conn.execute("DELETE FROM chat WHERE room = ANY($1::text[])", rooms)
            return len(rooms)

    @_guarded
    async def purge_showcases(self, finished_before: float, batch: int = 100) -> int:
        async with self.pool.acquire() as conn, conn.transaction():
            rows = await conn.fetch(Q.purge_showcases, finished_before, SHOWCASE_PREFIX, batch)
            rooms = [row[0] for row in rows]
            for table in ("journal", "room_players", "chat"):
                await conn.execute(f"DELETE FROM {table} WHERE room = ANY($1::text[])", rooms)
            await conn.execute("DELETE FROM rooms WHERE id = ANY($1::text[])", rooms)
            return len(rooms)

    # -- ratings -----------------------------------------------------------------------

    @_guarded
    async def ratings_of(self, player: int) -> dict[str, RatingRecord]:
        await self._settled()
        rows = await self.pool.fetch(Q.ratings_of, player)
        return {row[2]: rating_from_row(row) for row in rows}

    @_guarded
    async def leaderboard(
        self, game: str, limit: int, after: tuple[float, str] | None = None
    ) -> list[RatingRecord]:
        await self._settled()
        rating, name = after or (math.inf, "")  # before the first page: above everyone
        rows = await self.pool.fetch(Q.leaderboard, game, rating, rating, name, limit)
        return [rating_from_row(row) for row in rows]


async def _rate(conn: asyncpg.Connection, game: RatedGame, now: float) -> None:
    """Rate a finished game in the open transaction, unless its room was rated already.

    The rows of the players rated are locked in id order (an upsert that changes
    nothing yet returns the row, locked), so that two rooms finishing at once on
    two nodes with players in common take turns instead of losing an update,
    and never deadlock.
    """
    claimed = await conn.execute(
        "INSERT INTO rated_rooms(room, game, at, changes) VALUES ($1, $2, $3, '{}')"
        " ON CONFLICT (room) DO NOTHING",
        game.room,
        game.game,
        now,
    )
    if claimed != "INSERT 0 1":
        return
    players = game.players()
    programs = {
        row[0]
        for row in await conn.fetch(
            "SELECT id FROM players WHERE bot AND id = ANY($1::bigint[])", players
        )
    }
    before: dict[int, Rating] = {}
    for pid in game.to_rate(programs):  # in id order
        row = await conn.fetchrow(
            "INSERT INTO ratings(player, game, rating, rd, vol, games, updated_at)"
            " VALUES ($1, $2, $3, $4, $5, 0, $6)"
            " ON CONFLICT (player, game) DO UPDATE SET games = ratings.games"
            " RETURNING rating, rd, vol",
            pid,
            game.game,
            *_NEW,
            now,
        )
        before[pid] = Rating(*row)
    for row in await conn.fetch(
        "SELECT player, rating, rd, vol FROM ratings"
        " WHERE game = $1 AND player = ANY($2::bigint[])",
        game.game,
        [pid for pid in players if pid not in before],
    ):
        before[row[0]] = Rating(row[1], row[2], row[3])
    after = rate_game(game, before, programs)
    await conn.executemany(
        "UPDATE ratings SET rating = $3, rd = $4, vol = $5, games = games + 1, updated_at = $6"
        " WHERE player = $1 AND game = $2",
        [(pid, game.game, r.rating, r.rd, r.vol, now) for pid, r in after.items()],
    )
    await conn.execute(
        "UPDATE rated_rooms SET changes = $2::jsonb WHERE room = $1",
        game.room,
        json.dumps(rating_changes(before, after)),
    )


_NEW = (Rating().rating, Rating().rd, Rating().vol)
"""A new player's rating, deviation and volatility, as a new row's values."""
