"""The SQLite store in a process of its own: the server's default for a database file.

Why a process: SQLite's work on a thread of the server's process takes the
interpreter's lock from the event loop several times a commit (waking, after
each statement it steps, after waking the loop), each a forced switch of the
loop's thread. Measured on a move of 200 Ishido rooms (tests/perf/RESULTS.md,
"the journal's thread"), that cost the loop about as much as a thread that does
no SQLite at all and only wakes it, and more than the rooms' own bookkeeping.
A process has its own interpreter lock: the loop only writes each turn's calls
down a pipe and reads the answers as it reads a socket.

The child runs the ordinary :class:`~tilehall.server.store.sqlite.SQLiteStore`
(its thread, its group commit, its answers and errors) on a loop of its own;
this class forwards every call of the :class:`Store` interface to it. Both
ends send one frame per turn of their loop: 4 bytes of length, then a pickled
list of calls ``(id, method, args, kwargs)`` or answers ``(id, result, error)``.
Pickle is safe here: both ends are this program, over a pipe only they hold.

What a player sees when the child fails (killed, out of memory, a bug): what a
failed disk shows. Every call in flight is told
:class:`~tilehall.server.store.errors.StoreUnavailable`, so rooms suspend and the
store's health probe starts; its ``ping`` starts a new child, which opens the
file as it is, and the rooms rebuild from their journals. A row the dead child
committed but never answered is in the journal the room reads back (the
outcome of a StoreUnavailable is always unknown, and is read back). The child
ignores SIGINT and SIGTERM (a Ctrl-C or a service manager's stop reaches the
whole process group): it ends when the server closes the store or, if the
server was killed, when its input closes, after committing what it was given.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
import os
import pickle
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import msgpack
from tilehall.server.ratings import RatedGame
from tilehall.server.store.base import Store
from tilehall.server.store.errors import StoreUnavailable
from tilehall.server.store.records import (
    CHAT_KEPT,
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
from tilehall.server.store.sqlite import JournalRow, SQLiteStore

__all__ = ["ProcessStore", "child_main"]

log = logging.getLogger(__name__)

_LENGTH = 4
"""Bytes of a frame's length, big-endian."""

_CHILD = "from tilehall.server.store.process import child_main; child_main()"
"""How the child starts: ``-c``, not ``-m``, which cannot run a compiled module."""


_CLOSE_TIMEOUT = 60.0
"""Seconds a closing store waits for its process to commit what it has and end."""


_Call = tuple[int, str, tuple[Any, ...], "dict[str, Any] | None"]
"""One call in a frame to the child: its id, the store's method, its arguments."""


def _frame(items: list[Any]) -> bytes:
    data = pickle.dumps(items, pickle.HIGHEST_PROTOCOL)
    return len(data).to_bytes(_LENGTH, "big") + data


class _Frames:
    """Whole frames out of a byte stream that arrives in pieces."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[list[Any]]:
        buf = self._buf
        buf += data
        out: list[list[Any]] = []
        start = 0
        while len(buf) - start >= _LENGTH:
            size = int.from_bytes(buf[start : start + _LENGTH], "big")
            end = start + _LENGTH + size
            if len(buf) < end:
                break
            out.append(pickle.loads(buf[start + _LENGTH : end]))
            start = end
        del buf[:start]
        return out


class _Child(asyncio.SubprocessProtocol):
    """The server's end of one child: calls out each turn, answers in as they come."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.transport: asyncio.SubprocessTransport | None = None
        self.stdin: asyncio.WriteTransport | None = None
        self.gone: str | None = None
        """Why the child can take no more calls (None while it can)."""
        self.exited: asyncio.Future[int | None] = loop.create_future()
        self.closed = False
        """The server closed it: its end is no fault."""
        self._frames = _Frames()
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        self._out: list[_Call] = []
        self._ids = itertools.count()

    # -- asyncio's side ------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports have these methods without being asyncio's classes
        self.transport = cast(asyncio.SubprocessTransport, transport)
        self.stdin = cast(asyncio.WriteTransport, self.transport.get_pipe_transport(0))

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        for answers in self._frames.feed(data):
            for i, result, exc in answers:
                fut = self._waiting.pop(i, None)
                if fut is None or fut.done():  # its waiter went away (cancelled)
                    continue
                if exc is None:
                    fut.set_result(result)
                else:
                    fut.set_exception(exc)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1:
            self._lost("its output closed")

    def process_exited(self) -> None:
        # No new call is taken; those in flight wait for the output's end, which
        # still carries whatever the child answered before it exited.
        assert self.transport is not None
        code = self.transport.get_returncode()
        if self.gone is None:
            self.gone = f"the store's process stopped: it exited with {code}"
        if not self.exited.done():
            self.exited.set_result(code)

    def _lost(self, why: str) -> None:
        """Every call in flight is answered StoreUnavailable: the child will not answer."""
        self.gone = self.gone or f"the store's process stopped: {why}"
        if not self.closed:
            log.error("%s; the store counts as unavailable until a new one answers", self.gone)
        waiting, self._waiting, self._out = self._waiting, {}, []
        for fut in waiting.values():
            if not fut.done():
                fut.set_exception(StoreUnavailable(self.gone))

    # -- the store's side ----------------------------------------------------------------

    def call(
        self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None
    ) -> asyncio.Future[Any]:
        """Queue one call for this turn's frame; its future is its answer."""
        fut: asyncio.Future[Any] = self.loop.create_future()
        if self.gone is not None:
            fut.set_exception(StoreUnavailable(self.gone))
            return fut
        i = next(self._ids)
        self._waiting[i] = fut
        self._out.append((i, method, args, kwargs))
        if len(self._out) == 1:
            self.loop.call_soon(self._flush)
        return fut

    def _flush(self) -> None:
        """Send the calls of the turn that ends, in the order they were made, in one frame."""
        out, self._out = self._out, []
        if not out or self.gone is not None or self.stdin is None:
            return
        try:
            self.stdin.write(_frame(out))
        except (OSError, RuntimeError) as exc:  # the pipe broke under it
            self._lost(f"its input failed ({exc})")

    def end_input(self) -> None:
        """No more calls: the child commits what it has and exits."""
        self._flush()
        if self.stdin is not None and not self.stdin.is_closing():
            self.stdin.close()


class ProcessStore(Store):
    """A SQLite file whose connection lives in a child process (see the module's doc).

    Args:
        path: the database file (its folder is created).
        synchronous: SQLite's ``synchronous`` pragma, as for
            :class:`~tilehall.server.store.sqlite.SQLiteStore`.
        busy_timeout: as for :class:`~tilehall.server.store.sqlite.SQLiteStore`.
    """

    def __init__(
        self, path: str | Path, *, synchronous: str = "FULL", busy_timeout: float = 5.0
    ) -> None:
        self.path = str(path)
        self.synchronous = synchronous
        self.busy_timeout = busy_timeout
        self._child: _Child | None = None
        self._starting: asyncio.Task[_Child] | None = None
        self._closed = False

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs (what a host would signal, and the fault tests)."""
        child = self._child
        if child is None or child.gone is not None or child.transport is None:
            return None
        return child.transport.get_pid()

    async def open(self) -> None:
        self._closed = False
        await self._running()

    async def _running(self) -> _Child:
        """The child, started (and its store opened) if there is none that runs.

        One start at a time: the calls that find the child gone wait for the same one.
        A call that is not a coroutine (:meth:`append`) never starts one: it is told
        StoreUnavailable, and the health probe's ``ping`` starts the next.
        """
        child = self._child
        if child is not None and child.gone is None:
            return child
        if self._closed:
            raise StoreUnavailable("the store is closed")
        if self._starting is None or self._starting.done():
            self._starting = asyncio.ensure_future(self._start())
        return await asyncio.shield(self._starting)

    async def _start(self) -> _Child:
        loop = asyncio.get_running_loop()
        old = self._child
        if old is not None and old.transport is not None:
            old.transport.close()  # a child that stopped answering but runs on
        try:
            _, child = await loop.subprocess_exec(
                lambda: _Child(loop),
                sys.executable,
                "-c",
                _CHILD,
                self.path,
                self.synchronous,
                str(self.busy_timeout),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=None,  # its log lines go where the server's go
            )
        except OSError as exc:  # no process to be had (out of memory, of pids)
            raise StoreUnavailable(f"the store's process could not start: {exc}") from exc
        try:
            await child.call("open", ())
        except BaseException as exc:
            child.closed = True
            child.end_input()
            if self._child is None or isinstance(exc, StoreUnavailable | asyncio.CancelledError):
                raise  # the first open says what it says (a full disk at start-up)
            # a new child for a store that was open: callers are told the store is away
            raise StoreUnavailable(f"the store's process could not open it: {exc}") from exc
        self._child = child
        return child

    async def close(self) -> None:
        self._closed = True
        child, self._child = self._child, None
        if self._starting is not None and not self._starting.done():
            self._starting.cancel()
        if child is None or child.transport is None:
            return
        child.closed = True
        if child.gone is None:
            with contextlib.suppress(StoreUnavailable):
                await child.call("close", ())
        child.end_input()
        try:
            async with asyncio.timeout(_CLOSE_TIMEOUT):
                await child.exited
        except TimeoutError:
            log.error("the store's process did not end in %g s; killed", _CLOSE_TIMEOUT)
        child.transport.close()  # kills it if it still runs

    async def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        child = await self._running()
        return await child.call(method, args, kwargs or None)

    def append(self, entry: JournalEntry) -> asyncio.Future[None]:
        child = self._child
        if child is None:  # closed, or never opened: told as a gone child would be
            fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            fut.set_exception(StoreUnavailable("the store's process is not running"))
            return fut
        # Packed here, on the loop, as SQLiteStore.append packs it: the row is what the
        # action was when appended.
        row = (entry.room, entry.seq, entry.seat, msgpack.packb(entry.action), entry.now)
        return child.call("append", (row,))

    # -- the rest of the interface, forwarded as it is ----------------------------------------

    async def ping(self) -> None:
        await self._call("ping")

    async def create_player(self, name: str, token_hash: bytes, now: float) -> PlayerRecord:
        return await self._call("create_player", name, token_hash, now)  # type: ignore[no-any-return]

    async def player_by_token(self, token_hash: bytes) -> PlayerRecord | None:
        return await self._call("player_by_token", token_hash)  # type: ignore[no-any-return]

    async def account(self, player: int) -> AccountRecord | None:
        return await self._call("account", player)  # type: ignore[no-any-return]

    async def account_by_token(self, token_hash: bytes) -> AccountRecord | None:
        return await self._call("account_by_token", token_hash)  # type: ignore[no-any-return]

    async def account_by_name(self, name: str) -> AccountRecord | None:
        return await self._call("account_by_name", name)  # type: ignore[no-any-return]

    async def add_token(self, player: int, token_hash: bytes, now: float) -> None:
        await self._call("add_token", player, token_hash, now)

    async def revoke_token(self, token_hash: bytes) -> None:
        await self._call("revoke_token", token_hash)

    async def revoke_tokens(self, player: int) -> int:
        return await self._call("revoke_tokens", player)  # type: ignore[no-any-return]

    async def set_password(
        self, player: int, password: str | None, reset_code: bytes | None = None
    ) -> None:
        await self._call("set_password", player, password, reset_code)

    async def rehash_password(self, player: int, old: str, new: str) -> bool:
        return await self._call("rehash_password", player, old, new)  # type: ignore[no-any-return]

    async def set_disabled(self, player: int, disabled: bool) -> None:
        await self._call("set_disabled", player, disabled)

    async def create_room(self, room: RoomRecord) -> None:
        await self._call("create_room", room)

    async def set_seats(self, room: str, seats: Sequence[SeatRecord]) -> None:
        await self._call("set_seats", room, tuple(seats))

    async def set_status(self, room: str, status: str) -> None:
        await self._call("set_status", room, status)

    async def set_fill(self, room: str, at: float) -> None:
        await self._call("set_fill", room, at)

    async def unfinished_rooms(self, node: str = "") -> list[RoomRecord]:
        return await self._call("unfinished_rooms", node)  # type: ignore[no-any-return]

    async def room(self, room: str) -> RoomRecord | None:
        return await self._call("room", room)  # type: ignore[no-any-return]

    async def open_rooms_of(self, creator: int) -> int:
        return await self._call("open_rooms_of", creator)  # type: ignore[no-any-return]

    async def claim_room(self, room: str, old_node: str, new_node: str) -> RoomRecord | None:
        return await self._call("claim_room", room, old_node, new_node)  # type: ignore[no-any-return]

    async def secret(self, name: str, new: str) -> str:
        return await self._call("secret", name, new)  # type: ignore[no-any-return]

    async def daily_try(self, game: str, day: str, player: int, room: str) -> str:
        return await self._call("daily_try", game, day, player, room)  # type: ignore[no-any-return]

    async def daily_rooms(self, game: str, day: str, player: int) -> list[RoomRecord]:
        return await self._call("daily_rooms", game, day, player)  # type: ignore[no-any-return]

    async def purge_days(self, oldest: str) -> int:
        return await self._call("purge_days", oldest)  # type: ignore[no-any-return]

    async def journal(self, room: str) -> list[JournalEntry]:
        return await self._call("journal", room)  # type: ignore[no-any-return]

    async def add_chat(self, line: ChatLine, keep: int = CHAT_KEPT) -> None:
        await self._call("add_chat", line, keep)

    async def chat(self, room: str, limit: int = CHAT_KEPT) -> list[ChatLine]:
        return await self._call("chat", room, limit)  # type: ignore[no-any-return]

    async def finish_room(
        self,
        room: str,
        result: dict[str, Any],
        scores: Sequence[ScoreRecord],
        now: float,
        *,
        rated: RatedGame | None = None,
    ) -> None:
        await self._call("finish_room", room, result, tuple(scores), now, rated=rated)

    async def top_scores(
        self, game: str, table: str, limit: int = 10, *, bots: bool = False
    ) -> list[ScoreRecord]:
        return await self._call("top_scores", game, table, limit, bots=bots)  # type: ignore[no-any-return]

    async def mark_bot(self, player: int) -> None:
        await self._call("mark_bot", player)

    async def best_of(self, game: str, player: int) -> list[ScoreRecord]:
        return await self._call("best_of", game, player)  # type: ignore[no-any-return]

    async def score_tables(self, game: str) -> list[str]:
        return await self._call("score_tables", game)  # type: ignore[no-any-return]

    async def player_by_name(self, name: str) -> PlayerRecord | None:
        return await self._call("player_by_name", name)  # type: ignore[no-any-return]

    async def history(
        self,
        player: int,
        *,
        game: str | None = None,
        limit: int = 20,
        before: tuple[float, str] | None = None,
        private: bool = False,
    ) -> list[FinishedRoom]:
        return await self._call(  # type: ignore[no-any-return]
            "history", player, game=game, limit=limit, before=before, private=private
        )

    async def purge_journals(self, finished_before: float, batch: int = 100) -> int:
        return await self._call("purge_journals", finished_before, batch)  # type: ignore[no-any-return]

    async def purge_showcases(self, finished_before: float, batch: int = 100) -> int:
        return await self._call("purge_showcases", finished_before, batch)  # type: ignore[no-any-return]

    async def ratings_of(self, player: int) -> dict[str, RatingRecord]:
        return await self._call("ratings_of", player)  # type: ignore[no-any-return]

    async def leaderboard(
        self, game: str, limit: int, after: tuple[float, str] | None = None
    ) -> list[RatingRecord]:
        return await self._call("leaderboard", game, limit, after)  # type: ignore[no-any-return]


# -- the child ---------------------------------------------------------------------------------


class _Server(asyncio.Protocol):
    """The child's end: calls in from the pipe, answered by its SQLiteStore."""

    def __init__(self, store: SQLiteStore, out: asyncio.WriteTransport) -> None:
        self.store = store
        self.out = out
        self.loop = asyncio.get_running_loop()
        self.done = asyncio.Event()
        """Set when the server closes the store (``close``) or its input ends."""
        self.closing: int | None = None
        """The id of the ``close`` call, answered once the store is closed."""
        self._frames = _Frames()
        self._answers: list[tuple[int, Any, BaseException | None]] = []
        self._busy = 0

    def data_received(self, data: bytes) -> None:
        for calls in self._frames.feed(data):
            if not self._busy and all(call[1] == "append" for call in calls):
                self._rows_now(calls)
                continue
            for i, method, args, kwargs in calls:
                self._take(i, method, args, kwargs)

    def _rows_now(self, calls: list[_Call]) -> None:
        """A frame of journal rows alone, with nothing else in flight (a move's usual
        frame): committed and answered before this returns, with no turn of the loop
        between (each would be a wait, for a move, and a system call)."""
        store = self.store
        rows = [(i, store.append_row(args[0])) for i, _, args, _ in calls]
        store.run_queued()
        for i, fut in rows:
            if not fut.done():  # cannot be: run_queued settles every row it was given
                self._busy += 1
                fut.add_done_callback(functools.partial(self._settled, i))
            elif (exc := fut.exception()) is not None:
                self._answers.append((i, None, _portable(exc)))
            else:
                self._answers.append((i, None, None))
        self.flush()

    def eof_received(self) -> bool | None:
        self.done.set()  # the server closed its end: closed the store, or was killed
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.done.set()

    def _take(
        self, i: int, method: str, args: tuple[Any, ...], kwargs: dict[str, Any] | None
    ) -> None:
        """Start one call, in order: an append is queued by a callback of the loop and any
        other call by a task, whose first step (where the store queues its work) is also
        one, and the loop runs them in the order they were made. So the store sees the
        calls in the order the server made them (a room made before its first row)."""
        if method == "close":
            self.closing = i
            self.done.set()
            return
        self._busy += 1
        if method == "append":
            self.loop.call_soon(self._append, i, args[0])
            return
        call = getattr(self.store, method)(*args, **(kwargs or {}))
        asyncio.ensure_future(call).add_done_callback(lambda f: self._settled(i, f))

    def _append(self, i: int, row: JournalRow) -> None:
        self.store.append_row(row).add_done_callback(lambda f: self._settled(i, f))

    def _settled(self, i: int, fut: asyncio.Future[Any]) -> None:
        self._busy -= 1
        if fut.cancelled():
            self._answer(i, None, StoreUnavailable("the store's process is stopping"))
        elif (exc := fut.exception()) is not None:
            self._answer(i, None, _portable(exc))
        else:
            self._answer(i, fut.result(), None)

    def _answer(self, i: int, result: Any, exc: BaseException | None) -> None:
        self._answers.append((i, result, exc))
        if len(self._answers) == 1:
            self.loop.call_soon(self.flush)

    def flush(self) -> None:
        answers, self._answers = self._answers, []
        if answers and not self.out.is_closing():
            self.out.write(_frame(answers))

    async def drain(self, timeout: float = 30.0) -> None:
        """Until every call taken is answered (the store closed commits what it queued),
        or ``timeout`` seconds: a call that never ends must not keep the process alive."""
        deadline = self.loop.time() + timeout
        while self._busy and self.loop.time() < deadline:
            await asyncio.sleep(0.001)
        self.flush()


def _portable(exc: BaseException) -> BaseException:
    """``exc`` as the server can unpickle it: its own type if it can be, else StoreUnavailable
    with its words (the cause stays in the child: pickle drops ``__cause__``)."""
    try:
        pickle.loads(pickle.dumps(exc, pickle.HIGHEST_PROTOCOL))
    except Exception:
        return StoreUnavailable(f"{type(exc).__name__}: {exc}")
    return exc


async def _serve(path: str, synchronous: str, busy_timeout: float) -> None:
    loop = asyncio.get_running_loop()
    store = SQLiteStore(path, synchronous=synchronous, busy_timeout=busy_timeout, inline=True)
    out, _ = await loop.connect_write_pipe(asyncio.Protocol, os.fdopen(1, "wb", buffering=0))
    assert isinstance(out, asyncio.WriteTransport)
    server = _Server(store, out)
    await loop.connect_read_pipe(lambda: server, os.fdopen(0, "rb", buffering=0))
    await server.done.wait()
    # Queued behind every call taken so far: what the server was told is committed first.
    with contextlib.suppress(Exception):
        await store.close()
    await server.drain()
    if server.closing is not None:
        server._answer(server.closing, None, None)
        server.flush()
    out.close()
    await asyncio.sleep(0)  # the transport's last write


def child_main() -> None:
    """The child's program: ``python -c`` with the file, ``synchronous`` and busy timeout."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    logging.basicConfig(level=logging.WARNING, format="tilehall store: %(message)s")
    path, synchronous, busy = sys.argv[1:4]
    asyncio.run(_serve(path, synchronous, float(busy)))
