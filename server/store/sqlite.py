"""SQLite store: the embedded default, one file, nothing to install.

Every SQLite call runs on one dedicated thread that owns the connection, so the
event loop never blocks on disk. The loop hands it work through one queue:
journal appends as bare rows, writes as transactions to run, reads as calls.
Writes are group-committed: while one group is being committed, new rows and
write transactions queue up and the thread takes all of them for the next
transaction, so many rooms acting, starting and ending at once share one
fsync; a write or row refused in it fails alone (:meth:`SQLiteStore._commit`).
WAL mode keeps readers and the writer out of each other's way.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import logging
import math
import os
import queue
import shutil
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

import msgpack
from tilehall.server.files import create_private, private_dir, private_file
from tilehall.server.names import KEYS_VERSION, folded_skeleton, name_key, skeleton
from tilehall.server.ratings import RatedGame, Rating, rate_game
from tilehall.server.store import queries
from tilehall.server.store.base import Store
from tilehall.server.store.errors import AppendRefused, NameTaken, RoomTaken, StoreUnavailable
from tilehall.server.store.queries import SQLITE, Queries
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

__all__ = ["JournalRow", "SQLiteStore"]

T = TypeVar("T")

_Work = tuple[Callable[..., Any] | None, Any, "asyncio.Future[Any]"]
"""What the store's thread is handed: ``(fn, args, future)`` for a call,
``(None, row, future)`` for a journal row, or ``(_WRITE, (work,), future)`` for
a write transaction (``work(db)``); rows and writes are committed with the others
queued."""


def _WRITE() -> None:
    """Marks a queued write transaction (never called)."""


log = logging.getLogger(__name__)

Q = Queries().render(SQLITE)
"""The statements both stores share (:mod:`tilehall.server.store.queries`), as SQLite reads them."""

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
    """
    CREATE TABLE health (
        k INTEGER PRIMARY KEY,
        at REAL NOT NULL
    );
    """,
    """
    ALTER TABLE rooms ADD COLUMN creator INTEGER;
    CREATE INDEX rooms_open_by_creator ON rooms(creator) WHERE status != 'over';
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
    # Bot programs (hello with bot: true): their scores are kept apart from people's.
    """
    ALTER TABLE players ADD COLUMN bot INTEGER NOT NULL DEFAULT 0;
    """,
    # Quick-match rooms fill with bots at fill_at; every player's finished rooms,
    # newest first, for history (the rooms played before are filled in).
    """
    ALTER TABLE rooms ADD COLUMN fill_at REAL;
    ALTER TABLE rooms ADD COLUMN fill_level TEXT;
    CREATE TABLE room_players (
        room TEXT NOT NULL REFERENCES rooms(id),
        seat INTEGER NOT NULL,
        player INTEGER NOT NULL REFERENCES players(id),
        game TEXT NOT NULL,
        finished_at REAL NOT NULL,
        PRIMARY KEY (room, seat)
    ) WITHOUT ROWID;
    CREATE INDEX room_players_by_player ON room_players(player, finished_at DESC, room DESC);
    CREATE INDEX room_players_by_game ON room_players(player, game, finished_at DESC, room DESC);
    CREATE INDEX room_players_finished ON room_players(finished_at);
    INSERT INTO room_players(room, seat, player, game, finished_at)
        SELECT r.id, s.key, json_extract(s.value, '$.player'), r.game, r.finished_at
        FROM rooms r, json_each(r.seats) s
        WHERE r.status = 'over' AND r.finished_at IS NOT NULL
          AND json_extract(s.value, '$.player') IS NOT NULL
          AND EXISTS (SELECT 1 FROM journal j WHERE j.room = r.id);
    """,
    # Ratings (tilehall.server.ratings): one row per player and game, and the rooms
    # already rated, so that a finish done again never rates a room twice.
    """
    CREATE TABLE ratings (
        player INTEGER NOT NULL REFERENCES players(id),
        game TEXT NOT NULL,
        rating REAL NOT NULL,
        rd REAL NOT NULL,
        vol REAL NOT NULL,
        games INTEGER NOT NULL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (player, game)
    ) WITHOUT ROWID;
    CREATE INDEX ratings_board ON ratings(game, rating DESC) WHERE games > 0;
    CREATE TABLE rated_rooms (
        room TEXT PRIMARY KEY,
        game TEXT NOT NULL,
        at REAL NOT NULL,
        changes TEXT NOT NULL
    );
    """,
    # Names kept across devices (issue 29): every token of a player, one row each
    # (players.token_hash, the first, stays for its constraint but is no longer
    # read), the Argon2id hash of a password, a one-time code's hash, a host's bar.
    """
    CREATE TABLE tokens (
        hash BLOB PRIMARY KEY,
        player INTEGER NOT NULL REFERENCES players(id),
        created_at REAL NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX tokens_by_player ON tokens(player);
    INSERT INTO tokens(hash, player, created_at) SELECT token_hash, id, created_at FROM players;
    ALTER TABLE players ADD COLUMN password TEXT;
    ALTER TABLE players ADD COLUMN reset_code BLOB;
    ALTER TABLE players ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
    """,
    # Today's deal (issue 41): which day's deal a room plays and whether it is practice,
    # each player's try of the day, and the server's secrets, shared by every node.
    """
    ALTER TABLE rooms ADD COLUMN daily TEXT;
    ALTER TABLE rooms ADD COLUMN practice INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX rooms_daily ON rooms(creator, game, daily) WHERE daily IS NOT NULL;
    CREATE TABLE daily_tries (
        game TEXT NOT NULL,
        day TEXT NOT NULL,
        player INTEGER NOT NULL REFERENCES players(id),
        room TEXT NOT NULL,
        PRIMARY KEY (game, day, player)
    ) WITHOUT ROWID;
    CREATE INDEX daily_tries_day ON daily_tries(day);
    CREATE TABLE secrets (
        name TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    # Chat that stays (issue 40): each room's latest lines, in the order they were kept
    # (AUTOINCREMENT: an id is never given twice, so the order holds after trimming).
    """
    CREATE TABLE chat (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        room TEXT NOT NULL,
        name TEXT NOT NULL,
        text TEXT NOT NULL,
        at REAL NOT NULL
    );
    CREATE INDEX chat_by_room ON chat(room, id);
    """,
)

_PLAYED = """
    INSERT OR IGNORE INTO room_players(room, seat, player, game, finished_at)
    SELECT r.id, s.key, json_extract(s.value, '$.player'), r.game, r.finished_at
    FROM rooms r, json_each(r.seats) s
    WHERE r.id = ? AND json_extract(s.value, '$.player') IS NOT NULL
      AND EXISTS (SELECT 1 FROM journal j WHERE j.room = r.id)
"""
"""Enter a room just finished in its players' histories (if it was played at all)."""


class SQLiteStore(Store):
    """The store in one SQLite file.

    Args:
        path: the database file (its folder is created), or ``":memory:"``.
        synchronous: SQLite's ``synchronous`` pragma. ``FULL`` (default) fsyncs
            every commit, so an accepted move survives even a power cut;
            ``NORMAL`` still survives a killed process.
        busy_timeout: seconds a write waits for a lock another process holds on
            the file (a backup, a careless ``sqlite3`` shell) before it fails
            and the store counts as unavailable.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        synchronous: str = "FULL",
        busy_timeout: float = 5.0,
        inline: bool = False,
    ) -> None:
        self.path = str(path)
        self.synchronous = synchronous
        self.busy_timeout = busy_timeout
        self.inline = inline
        """Do the work on the loop's own thread, once per turn of the loop, blocking it:
        for the store's own process (:mod:`tilehall.server.store.process`), whose loop
        has nothing else to do, where a thread would only add a hand-off each way."""
        self._db: sqlite3.Connection | None = None
        self._queue: queue.SimpleQueue[_Work | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._draining = False

    # -- plumbing ----------------------------------------------------------------

    def _submit(self, fn: Callable[..., Any] | None, arg: Any) -> asyncio.Future[Any]:
        """Hand one piece of work to the store's thread (started on first use)."""
        # The loop open() ran on: asyncio.get_running_loop() calls getpid() each
        # time, 1.5 % of the event loop's samples at 5,000 appends/s.
        loop = self._loop or asyncio.get_running_loop()
        fut: asyncio.Future[Any] = loop.create_future()
        if self.inline:
            self._queue.put((fn, arg, fut))
            if not self._draining:
                self._draining = True
                loop.call_soon(self._drain)
            return fut
        if self._thread is None:
            # A daemon: a process that never closes its store must still exit;
            # what was not committed then was never acknowledged either.
            self._thread = threading.Thread(target=self._serve, name="sqlite", daemon=True)
            self._thread.start()
        self._queue.put((fn, arg, fut))
        return fut

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn`` on the store's thread; what SQLite cannot do is StoreUnavailable
        (:func:`_answer_of`)."""
        return await _answer_of(self._submit(fn, args))

    async def _transact(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run the write transaction ``work(db)``, committed with the group it joins.

        What SQLite cannot do is StoreUnavailable, as for :meth:`_run`; a
        constraint ``work`` breaks (IntegrityError) is its own, its changes undone.
        """
        return await _answer_of(self._submit(_WRITE, (work,)))

    def _serve(self) -> None:
        """The store's thread: calls one at a time, journal rows and writes in groups.

        A journal row or a write transaction is committed together with every row
        and write queued behind it up to the next call, in one transaction (see
        :meth:`_commit`), and the loop is woken once for the whole group. The
        executor call per batch that this replaces cost the loop a task, two
        futures and their callbacks each time, and left the thread idle while the
        loop got round to the next batch; a write apart from the rows cost its own
        fsync, and the rows queued behind it waited for that one too.
        """
        work: _Work | Literal[False] | None = self._queue.get()
        while work is not None:  # None: close() is done with the thread
            work = self._do(work, _call_soon) if work is not False else self._queue.get()

    def run_queued(self) -> None:
        """``inline``: do everything queued now rather than at the loop's next turn."""
        self._drain()

    def _drain(self) -> None:
        """:meth:`_serve`'s work on the loop's own thread (``inline``): everything queued
        so far, grouped alike, each answer settled at once."""
        self._draining = False
        work: _Work | Literal[False] | None = False
        while True:
            if work is False:
                try:
                    work = self._queue.get_nowait()
                except queue.Empty:
                    return
            if work is None:  # only a thread is told to end
                return
            work = self._do(work, _now)

    def _do(self, work: _Work, settle: _Settler) -> _Work | Literal[False] | None:
        """Do ``work``, with every row and write queued behind it if it is one; what was
        taken from the queue and not done yet (False: nothing)."""
        fn, arg, fut = work
        if fn is not None and fn is not _WRITE:
            settle(fut, _settle, fut, *_call(fn, arg))
            return False
        group = [work]
        after: _Work | Literal[False] | None = False
        while True:
            try:
                after = self._queue.get_nowait()
            except queue.Empty:
                after = False
                break
            if after is None or (after[0] is not None and after[0] is not _WRITE):
                break  # done after this group, in the order it came
            group.append(after)
        try:
            answers = self._commit(group)
        except Exception as exc:  # the store closed under it: every waiter is still told
            answers = [(None, exc)] * len(group)
        settle(group[0][2], _settle_group, group, answers)
        return after

    def _commit(self, group: list[_Work]) -> list[tuple[Any, BaseException | None]]:
        """On the store's thread: commit one group; each item's answer (the loop is then
        woken once for all of them).

        As few statements as the group allows: the sqlite3 module lets go of the
        GIL around every statement it steps and must take it back after, while
        the event loop's thread holds it, so each statement costs both threads a
        hand-off, and the store's thread waits up to the interpreter's switch
        interval for each (before journal rows became one statement, ~9 % of the
        loop's samples were such waits). So the writes run first, each as it is,
        then every row in one statement (:func:`_insert_many`), in one
        transaction; rows alone that fit one statement are that statement, its
        own transaction. Should anything in it be refused (a taken seq, a name, a
        room id), nothing of it was kept, and the group is done again the careful
        way (:meth:`_commit_all`) to learn what. Rows come after the writes queued
        with them, so a room made in the group is there for its first row; nothing
        a write does depends on rows of the same group (reads are calls, never
        grouped).
        """
        db = self.db
        rows = [row for fn, row, _ in group if fn is None]
        writes = len(group) - len(rows)
        answers: list[tuple[Any, BaseException | None]] | None = None
        try:
            if not writes and len(rows) <= _INSERT_CHUNK:
                _insert_many(db, rows)
                answers = [(True, None)] * len(group)
            else:
                db.execute("BEGIN IMMEDIATE")
                made = [arg[0](db) if fn is not None else True for fn, arg, _ in group]
                for start in range(0, len(rows), _INSERT_CHUNK):
                    _insert_many(db, rows[start : start + _INSERT_CHUNK])
                db.execute("COMMIT")
                answers = [(result, None) for result in made]
        except Exception as exc:
            _roll_back(db)
            if isinstance(exc, sqlite3.Error) and not isinstance(exc, sqlite3.IntegrityError):
                answers = [(None, _unavailable(exc))] * len(group)  # the disk, a lock: all failed
            # else a refusal (a taken seq, a name taken): the careful way says whose
        if answers is None:
            answers = self._commit_all(group)
        return answers

    def _commit_all(self, group: list[_Work]) -> list[tuple[Any, BaseException | None]]:
        """Commit ``group`` in one transaction; each item's answer, in order.

        A row's answer is whether it went in (a taken seq does not); a write's is
        its result, or what it raised, its own changes then undone alone (a
        savepoint each), the others kept: a name taken does not cost another
        room its move. Anything else that fails (the disk full, the commit
        itself) fails every item of the group, none of it written.
        """
        db = self.db
        answers: list[tuple[Any, BaseException | None]] = []
        try:
            db.execute("BEGIN IMMEDIATE")
            i = 0
            while i < len(group):
                fn, arg, _ = group[i]
                if fn is None:  # a run of rows: as few statements as the chunks
                    j = i
                    while j < len(group) and group[j][0] is None:
                        j += 1
                    kept = _insert(db, [row for _, row, _ in group[i:j]])
                    answers += [(ok, None) for ok in kept]
                    i = j
                    continue
                db.execute("SAVEPOINT write")
                try:
                    answers.append((arg[0](db), None))
                except sqlite3.IntegrityError as exc:
                    db.execute("ROLLBACK TO write")
                    answers.append((None, exc))
                except sqlite3.Error:
                    raise  # the transaction itself may be gone: the whole group fails
                except Exception as exc:  # the write's own fault: its changes undone alone
                    db.execute("ROLLBACK TO write")
                    answers.append((None, exc))
                db.execute("RELEASE write")
                i += 1
            db.execute("COMMIT")
        except Exception as exc:
            _roll_back(db)
            return [(None, _unavailable(exc))] * len(group)
        return answers

    @property
    def db(self) -> sqlite3.Connection:
        assert self._db is not None, "store is not open"
        return self._db

    async def open(self) -> None:
        self._loop = asyncio.get_running_loop()
        await self._run(self._open)

    def _open(self) -> None:
        try:
            self._connect()
        except sqlite3.OperationalError as exc:
            # SQLite says "disk I/O error" when it cannot make its -wal and -shm files
            # (a file closed cleanly left none): the host is told what to free.
            if self.path != ":memory:" and shutil.disk_usage(Path(self.path).parent).free == 0:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), self.path) from exc
            raise

    def _connect(self) -> None:
        if self.path != ":memory:":
            self._private()
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={self.synchronous}")
        db.execute("PRAGMA foreign_keys=ON")
        db.execute(f"PRAGMA busy_timeout={int(self.busy_timeout * 1000)}")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
            db.execute("BEGIN IMMEDIATE")
            for statement in filter(str.strip, script.split(";")):
                db.execute(statement)
            db.execute(f"PRAGMA user_version={number}")
            db.execute("COMMIT")
        self._db = db
        self._tx(_fill_skeletons)

    def _private(self) -> None:
        """The database and its companions 0600, whatever the umask (see tilehall.server.files).

        SQLite makes the -wal, -shm and -journal files with the database's own
        mode, so a database created 0600 keeps them 0600; existing ones are
        corrected, for files an older version left 0644.
        """
        path = Path(self.path)
        private_dir(path.parent, tighten=False)  # a folder it did not make is not its to change
        create_private(path)
        for suffix in ("-wal", "-shm", "-journal"):
            private_file(path.with_name(path.name + suffix))

    async def close(self) -> None:
        # Queued after every append made so far: they are committed first.
        if self._db is not None:
            await self._run(self.db.close)
            self._db = None
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None

    def _tx(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            out = fn(db)
            db.execute("COMMIT")
        except BaseException:
            _roll_back(db)
            raise
        return out

    async def ping(self) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute("INSERT OR REPLACE INTO health(k, at) VALUES (1, julianday('now'))")

        await self._transact(work)

    # -- players -------------------------------------------------------------------

    async def create_player(self, name: str, token_hash: bytes, now: float) -> PlayerRecord:
        def work(db: sqlite3.Connection) -> PlayerRecord:
            try:
                row = db.execute(
                    Q.create_player,
                    (name, name_key(name), skeleton(name), folded_skeleton(name), token_hash, now),
                ).fetchone()
            except sqlite3.IntegrityError:
                raise NameTaken(name) from None
            db.execute(Q.add_token, (token_hash, row[0], now))
            return PlayerRecord(id=row[0], name=name)

        return await self._transact(work)

    async def player_by_token(self, token_hash: bytes) -> PlayerRecord | None:
        def work() -> PlayerRecord | None:
            row = self.db.execute(Q.player_by_token, (token_hash,)).fetchone()
            return PlayerRecord(id=row[0], name=row[1]) if row else None

        return await self._run(work)

    # -- rooms ---------------------------------------------------------------------

    async def create_room(self, room: RoomRecord) -> None:
        def work(db: sqlite3.Connection) -> None:
            try:
                db.execute(Q.create_room, room_row(room))
            except sqlite3.IntegrityError as exc:
                if exc.sqlite_errorname == "SQLITE_CONSTRAINT_PRIMARYKEY":  # the id, the only key
                    raise RoomTaken(room.id) from None
                raise

        await self._transact(work)

    async def set_seats(self, room: str, seats: Sequence[SeatRecord]) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute(Q.set_seats, (seats_json(seats), room))

        await self._transact(work)

    async def set_status(self, room: str, status: str) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute(Q.set_status, (status, room))

        await self._transact(work)

    async def set_fill(self, room: str, at: float) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute(Q.set_fill, (at, room))

        await self._transact(work)

    async def unfinished_rooms(self, node: str = "") -> list[RoomRecord]:
        def work() -> list[RoomRecord]:
            rows = self.db.execute(Q.unfinished_rooms, (node,)).fetchall()
            return [room_from_row(row) for row in rows]

        return await self._run(work)

    async def claim_room(self, room: str, old_node: str, new_node: str) -> RoomRecord | None:
        def work(db: sqlite3.Connection) -> RoomRecord | None:
            row = db.execute(Q.claim_room, (new_node, room, old_node)).fetchone()
            return room_from_row(row) if row else None

        return await self._transact(work)

    async def room(self, room: str) -> RoomRecord | None:
        def work() -> RoomRecord | None:
            row = self.db.execute(Q.room, (room,)).fetchone()
            return room_from_row(row) if row else None

        return await self._run(work)

    async def open_rooms_of(self, creator: int) -> int:
        def work() -> int:
            row = self.db.execute(Q.open_rooms_of, (creator,)).fetchone()
            return int(row[0])

        return await self._run(work)

    # -- today's deal ----------------------------------------------------------------

    async def secret(self, name: str, new: str) -> str:
        def work(db: sqlite3.Connection) -> str:
            db.execute(Q.keep_secret, (name, new))
            return str(db.execute(Q.secret, (name,)).fetchone()[0])

        return await self._transact(work)

    async def daily_try(self, game: str, day: str, player: int, room: str) -> str:
        def work(db: sqlite3.Connection) -> str:
            db.execute(Q.daily_try, (game, day, player, room))
            return str(db.execute(Q.daily_try_room, (game, day, player)).fetchone()[0])

        return await self._transact(work)

    async def daily_rooms(self, game: str, day: str, player: int) -> list[RoomRecord]:
        def work() -> list[RoomRecord]:
            return [room_from_row(r) for r in self.db.execute(Q.daily_rooms, (game, day, player))]

        return await self._run(work)

    async def purge_days(self, oldest: str) -> int:
        def work(db: sqlite3.Connection) -> int:
            n = db.execute(Q.purge_day_scores, ("daily-" + oldest,)).rowcount
            return n + db.execute(Q.purge_day_tries, (oldest,)).rowcount

        return await self._transact(work)

    # -- journal -------------------------------------------------------------------

    def append(self, entry: JournalEntry) -> asyncio.Future[None]:
        # Packed here, on the loop: the row is what the action was when appended. The
        # future the store's thread settles is the answer itself (no coroutine around it).
        row = (
            entry.room,
            entry.seq,
            entry.seat,
            msgpack.packb(entry.action, use_bin_type=True),
            entry.now,
        )
        return self._submit(None, row)

    def append_row(self, row: JournalRow) -> asyncio.Future[None]:
        """:meth:`append` of an entry already packed as :meth:`append` packs it (the
        store's own process, :mod:`tilehall.server.store.process`, is handed rows)."""
        return self._submit(None, row)

    async def journal(self, room: str) -> list[JournalEntry]:
        def work() -> list[JournalEntry]:
            rows = self.db.execute(Q.journal, (room,)).fetchall()
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

    # -- chat ----------------------------------------------------------------------------

    async def add_chat(self, line: ChatLine, keep: int = CHAT_KEPT) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute(Q.add_chat, (line.room, line.name, line.text, line.at))
            db.execute(Q.trim_chat, (line.room, line.room, keep))

        await self._transact(work)

    async def chat(self, room: str, limit: int = CHAT_KEPT) -> list[ChatLine]:
        def work() -> list[ChatLine]:
            rows = self.db.execute(Q.chat, (room, limit)).fetchall()
            return [ChatLine(room=r, name=n, text=t, at=a) for r, n, t, a in rows]

        return await self._run(work)

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
        def work(db: sqlite3.Connection) -> None:
            cur = db.execute(Q.finish_room, (now, json.dumps(result), room))
            if cur.rowcount != 1:
                return  # over already (a finish done again): no score twice
            db.execute(_PLAYED, (room,))
            db.executemany(Q.insert_score, [score_row(s) for s in scores])
            if rated is not None:
                _rate(db, rated, now)

        await self._transact(work)

    async def top_scores(
        self, game: str, table: str, limit: int = 10, *, bots: bool = False
    ) -> list[ScoreRecord]:
        def work() -> list[ScoreRecord]:
            rows = self.db.execute(Q.top_scores, (game, table, bots, limit)).fetchall()
            return [score_from_row(row) for row in rows]

        return await self._run(work)

    async def account(self, player: int) -> AccountRecord | None:
        return await self._account(Q.account, (player,))

    async def account_by_token(self, token_hash: bytes) -> AccountRecord | None:
        return await self._account(Q.account_by_token, (token_hash,))

    async def account_by_name(self, name: str) -> AccountRecord | None:
        key = name_key(name)
        return await self._account(Q.account_by_name, (key, skeleton(name), key))

    async def _account(self, sql: str, args: tuple[Any, ...]) -> AccountRecord | None:
        def work() -> AccountRecord | None:
            row = self.db.execute(sql, args).fetchone()
            return account_from_row(row) if row else None

        return await self._run(work)

    async def add_token(self, player: int, token_hash: bytes, now: float) -> None:
        await self._write(Q.add_token, (token_hash, player, now))

    async def revoke_token(self, token_hash: bytes) -> None:
        await self._write(Q.revoke_token, (token_hash,))

    async def revoke_tokens(self, player: int) -> int:
        return await self._write(Q.revoke_tokens, (player,))

    async def set_password(
        self, player: int, password: str | None, reset_code: bytes | None = None
    ) -> None:
        await self._write(Q.set_password, (password, reset_code, player))

    async def rehash_password(self, player: int, old: str, new: str) -> bool:
        return await self._write(Q.rehash_password, (new, player, old)) == 1

    async def set_disabled(self, player: int, disabled: bool) -> None:
        await self._write(Q.set_disabled, (disabled, player))

    async def _write(self, sql: str, args: tuple[Any, ...]) -> int:
        def work(db: sqlite3.Connection) -> int:
            return db.execute(sql, args).rowcount

        return await self._transact(work)

    async def mark_bot(self, player: int) -> None:
        def work(db: sqlite3.Connection) -> None:
            db.execute(Q.mark_bot, (player,))

        await self._transact(work)

    async def best_of(self, game: str, player: int) -> list[ScoreRecord]:
        def work() -> list[ScoreRecord]:
            rows = self.db.execute(Q.best_of, (game, player)).fetchall()
            return [score_from_row(row) for row in rows]

        return await self._run(work)

    async def score_tables(self, game: str) -> list[str]:
        def work() -> list[str]:
            rows = self.db.execute(Q.score_tables, (game,)).fetchall()
            return [row[0] for row in rows]

        return await self._run(work)

    # -- history and replays -------------------------------------------------------------

    async def player_by_name(self, name: str) -> PlayerRecord | None:
        def work() -> PlayerRecord | None:
            key = name_key(name)
            row = self.db.execute(Q.player_by_name, (key, skeleton(name), key)).fetchone()
            return PlayerRecord(id=row[0], name=row[1]) if row else None

        return await self._run(work)

    async def history(
        self,
        player: int,
        *,
        game: str | None = None,
        limit: int = 20,
        before: tuple[float, str] | None = None,
        private: bool = False,
    ) -> list[FinishedRoom]:
        def work() -> list[FinishedRoom]:
            sql, args = queries.history(
                SQLITE, player, game=game, limit=limit, before=before, private=private
            )
            rows = self.db.execute(sql, args).fetchall()
            return [finished_from_row(row) for row in rows]

        return await self._run(work)

    async def purge_journals(self, finished_before: float, batch: int = 100) -> int:
        def work(db: sqlite3.Connection) -> int:
            rooms = [row[0] for row in db.execute(Q.purge_listed, (finished_before, batch))]
            rooms += [
                row[0]
                for row in db.execute(Q.purge_unlisted, (finished_before, batch - len(rooms)))
            ]
            for table in ("journal", "room_players", "chat"):
                db.executemany(f"DELETE FROM {table} WHERE room = ?", [(r,) for r in rooms])
            return len(rooms)

        return await self._transact(work)

    async def purge_showcases(self, finished_before: float, batch: int = 100) -> int:
        def work(db: sqlite3.Connection) -> int:
            args = (finished_before, SHOWCASE_PREFIX, batch)
            rooms = [(row[0],) for row in db.execute(Q.purge_showcases, args)]
            for table in ("journal", "room_players", "chat"):
                db.executemany(f"DELETE FROM {table} WHERE room = ?", rooms)
            db.executemany("DELETE FROM rooms WHERE id = ?", rooms)
            return len(rooms)

        return await self._transact(work)

    # -- ratings -----------------------------------------------------------------------

    async def ratings_of(self, player: int) -> dict[str, RatingRecord]:
        def work() -> dict[str, RatingRecord]:
            rows = self.db.execute(Q.ratings_of, (player,)).fetchall()
            return {row[2]: rating_from_row(row) for row in rows}

        return await self._run(work)

    async def leaderboard(
        self, game: str, limit: int, after: tuple[float, str] | None = None
    ) -> list[RatingRecord]:
        def work() -> list[RatingRecord]:
            rating, name = after or (math.inf, "")  # before the first page: above everyone
            rows = self.db.execute(Q.leaderboard, (game, rating, rating, name, limit)).fetchall()
            return [rating_from_row(row) for row in rows]

        return await self._run(work)


def _rate(db: sqlite3.Connection, game: RatedGame, now: float) -> None:
    """Rate a finished game in the open transaction, unless its room was rated already."""
    claimed = db.execute(
        "INSERT OR IGNORE INTO rated_rooms(room, game, at, changes) VALUES (?,?,?,'{}')",
        (game.room, game.game, now),
    )
    if claimed.rowcount != 1:
        return
    players = game.players()
    marks = ",".join("?" * len(players))
    programs = {
        row[0]
        for row in db.execute(f"SELECT id FROM players WHERE bot = 1 AND id IN ({marks})", players)
    }
    before = {
        row[0]: Rating(row[1], row[2], row[3])
        for row in db.execute(
            f"SELECT player, rating, rd, vol FROM ratings WHERE game = ? AND player IN ({marks})",
            (game.game, *players),
        )
    }
    after = rate_game(game, before, programs)
    db.executemany(
        "INSERT INTO ratings(player, game, rating, rd, vol, games, updated_at)"
        " VALUES (?,?,?,?,?,1,?) ON CONFLICT (player, game) DO UPDATE SET"
        " rating = excluded.rating, rd = excluded.rd, vol = excluded.vol,"
        " games = ratings.games + 1, updated_at = excluded.updated_at",
        [(pid, game.game, r.rating, r.rd, r.vol, now) for pid, r in after.items()],
    )
    db.execute(
        "UPDATE rated_rooms SET changes = ? WHERE room = ?",
        (json.dumps(rating_changes(before, after)), game.room),
    )


def _fill_skeletons(db: sqlite3.Connection) -> None:
    """Give the players stored before skeletons theirs (see :func:`player_keys`).

    All of them, when the keys were made with other rules (:data:`KEYS_VERSION`).
    """
    made = db.execute("SELECT version FROM name_keys WHERE k = 1").fetchone()
    if made is None or made[0] != KEYS_VERSION:
        if made is not None:
            log.warning("name keys were made with %s: making them with %s", made[0], KEYS_VERSION)
        db.execute("UPDATE players SET skeleton = NULL, folded = NULL")
        db.execute("INSERT OR REPLACE INTO name_keys(k, version) VALUES (1, ?)", (KEYS_VERSION,))
    rows = db.execute("SELECT id, name FROM players WHERE skeleton IS NULL ORDER BY id").fetchall()
    if not rows:
        return
    taken: tuple[set[str], set[str], set[str]] = (set(), set(), set())
    for row in db.execute(
        "SELECT name_key, skeleton, folded FROM players WHERE skeleton IS NOT NULL"
    ):
        for k, used in zip(row, taken, strict=True):
            used.add(k)
    new = player_keys(rows, taken)
    # Out of the way first: a row's old key may be another row's new one.
    db.executemany("UPDATE players SET name_key = '\n~' || id WHERE id = ?", [(r[0],) for r in new])
    db.executemany(
        "UPDATE players SET name_key = ?, skeleton = ?, folded = ? WHERE id = ?",
        [(key, skel, folded, pid) for pid, key, skel, folded in new],
    )


def _roll_back(db: sqlite3.Connection) -> None:
    """End the transaction a failure left open, if any.

    A failed COMMIT (a full disk) leaves the transaction open; a ROLLBACK that
    fails too must not hide the first error, which the caller goes on with.
    """
    if db.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")


async def _answer_of(fut: asyncio.Future[T]) -> T:
    """A call's or a write's answer; what SQLite cannot do is StoreUnavailable.

    A full disk, an I/O error, a lock held past the busy timeout: the write did
    not happen (SQLite undoes a failed statement or transaction), but the caller
    treats it as unknown and reads back, as with any store. A constraint broken
    (IntegrityError) is the caller's to read.
    """
    try:
        return await fut
    except sqlite3.IntegrityError:
        raise
    except sqlite3.Error as exc:
        raise _unavailable(exc) from exc


def _call(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[Any, BaseException | None]:
    """``fn(*args)`` on the store's thread: its result, or what it raised."""
    try:
        return fn(*args), None
    except BaseException as exc:
        return None, exc


def _call_soon(fut: asyncio.Future[Any], callback: Callable[..., None], *args: Any) -> None:
    """Run ``callback(*args)`` on ``fut``'s loop, from the store's thread.

    A loop already closed (a store left open at exit) has no one waiting.
    """
    with contextlib.suppress(RuntimeError):
        fut.get_loop().call_soon_threadsafe(callback, *args)


def _now(fut: asyncio.Future[Any], callback: Callable[..., None], *args: Any) -> None:
    """Run ``callback(*args)`` now: the work was done on ``fut``'s loop's own thread."""
    callback(*args)


_Settler = Callable[..., None]
"""How an answer reaches its future: :func:`_call_soon` from the thread, :func:`_now` inline."""


def _settle(fut: asyncio.Future[Any], result: Any, exc: BaseException | None) -> None:
    """On the loop: a call's answer, unless its waiter went away (cancelled)."""
    if fut.done():
        return
    if exc is None:
        fut.set_result(result)
    else:
        fut.set_exception(exc)


def _settle_group(group: list[_Work], answers: list[tuple[Any, BaseException | None]]) -> None:
    """On the loop: a group committed. A row's future learns whether it went in (a taken
    seq is refused), a write's its result or error; a waiter gone (cancelled) is skipped."""
    for (fn, arg, fut), (result, exc) in zip(group, answers, strict=True):
        if fut.done():
            continue
        if exc is not None:
            fut.set_exception(exc)
        elif fn is not None:
            fut.set_result(result)
        elif result:
            fut.set_result(None)
        else:
            fut.set_exception(AppendRefused(f"room {arg[0]}: seq {arg[1]} is taken"))


def _unavailable(exc: BaseException) -> BaseException:
    """What a failure tells a waiter: SQLite's errors but a broken constraint as the store
    being unavailable (StoreUnavailable), anything else as it is. A call's and a write's
    waiters hear it through :func:`_answer_of`, a journal row's from the group's answer."""
    if isinstance(exc, sqlite3.Error) and not isinstance(exc, sqlite3.IntegrityError):
        failed = StoreUnavailable(f"SQLite: {exc}")
        failed.__cause__ = exc
        return failed
    return exc


JournalRow = tuple[str, int, "int | None", bytes, float]
"""A journal entry as its row: room, seq, seat, the action packed, the time."""


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
