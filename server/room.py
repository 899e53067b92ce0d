"""A room: the only authority for one game.

Lifecycle (the room owns these transitions; engines only know playing/over)::

    waiting --(every human seat taken; at once for bot-only rooms)--> playing
    playing --(engine status becomes over)--> over
    waiting, playing --(the journal did not confirm an append)--> suspended
    suspended --(the store answers; rebuilt from the journal)--> waiting, playing, over

Every change to the game goes through :meth:`Room._apply`, under the room's
lock, one at a time: ask the engine (which refuses and changes nothing, or
returns events), **append the action to the journal and wait for the commit**,
and only then send ``update`` to every member, encoding each distinct view once.
The journal holds the start (``_start``), every accepted action and every clock
step (``_tick``), so :meth:`Room.replay` rebuilds the room exactly.

A room is never ahead of its journal. When an append fails or its outcome is
unknown (the database stopped, the connection dropped mid-commit, the disk is
full), the engine already holds a move that may not be saved: the room drops
it and is **suspended**: actions and joins are refused with ``unavailable``
(and ``retry_after``), members are told by a ``room`` push, bots and clocks
stop. Once the store answers again the room rebuilds from what the journal
really holds, which settles an append whose commit was in doubt: if it was
kept, its update goes out now; if not, everyone's last view is still right.
While the store is known to be down, nothing reaches an engine at all.

What happens to slow receivers: broadcast hands each member's connection an
already-encoded frame through :meth:`Member.push`, which never waits; a member
whose queue is full is disconnected, the others are not delayed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import pickle
import random
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any

import msgpack
from tilehall.protocol import ErrorCode, ProtocolError, encode
from tilehall.server.bots import Bot, find_bot
from tilehall.server.clock import Clock, Timer
from tilehall.server.config import Limits
from tilehall.server.games import Game, Status
from tilehall.server.games.base import TICK, Event, GameError, Pause
from tilehall.server.games.replay import RESUME, START, away, stand_back, stand_in
from tilehall.server.member import Member
from tilehall.server.names import same_name
from tilehall.server.ops import Metrics
from tilehall.server.ratings import RatedGame, Seat, is_rated
from tilehall.server.roomcore import Pending, RoomCore, timed, view_patch, visible
from tilehall.server.store.base import (
    AppendRefused,
    JournalEntry,
    RoomRecord,
    ScoreRecord,
    SeatRecord,
    Store,
    StoreUnavailable,
)
from tilehall.server.store.health import MIN_RETRY_AFTER, StoreHealth

__all__ = ["START", "Room", "RoomServices", "view_patch", "visible"]

log = logging.getLogger(__name__)

REBUILD_BACKOFF = (0.1, 30.0)
"""First and longest pause between two attempts to rebuild a suspended room whose
journal could not be read for a reason other than the store being away, or could be
read but not replayed (a defect: it is logged each time)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RoomServices:
    """What a room uses of the server around it: handed in, never reached for.

    The lobby makes one for all its rooms; a test makes one with a real store
    and a clock it moves itself.
    """

    store: Store
    """Where the journal, seats and results go."""
    clock: Clock
    """The time of every journal entry, and the timers of clocks and bots."""
    limits: Limits
    """Bot pacing and thinking time."""
    metrics: Metrics
    """Counters and latencies for ``/metrics``."""
    health: StoreHealth
    """Whether the store answers; told when it does not."""


class Room:
    """One game being played, its seats, spectators and journal.

    Args:
        record: the room as the store keeps it (options, seed, seats).
        game: its engine class.
        services: store, clock, limits and metrics.
        on_over: called once the game has ended and its result is stored
            (the lobby keeps the room a while for late spectators, then forgets it).
        on_moved: called when the store says another node owns the room now
            (a cluster took it over while this node was cut off): let it go.
        on_changed: called when the room's summary may have changed (the
            cluster's directory announces it).
    """

    def __init__(
        self,
        record: RoomRecord,
        game: type[Game],
        services: RoomServices,
        *,
        on_over: Callable[[Room], None] | None = None,
        on_moved: Callable[[Room], None] | None = None,
        on_changed: Callable[[Room], None] | None = None,
    ) -> None:
        self.record = record
        self.id = record.id
        self.game = game
        self.services = services
        self.store = services.store
        self.clock = services.clock
        self._on_over = on_over
        self._on_moved = on_moved
        self._on_changed = on_changed
        self.seats: list[SeatRecord] = list(record.seats)
        self._bot_seats = frozenset(i for i, s in enumerate(self.seats) if s.bot is not None)
        self.core = RoomCore(record)
        """The game as the journal holds it: every reader is shown its committed state."""
        self._settled = asyncio.Event()
        self._settled.set()
        """Set while no change is pending: readers that need a view the core did not keep
        for its seq wait for it (never for the lock)."""
        self.members: dict[Member, int | None] = {}
        self.compact: set[Member] = set()
        """Members that get patches (``compact``) rather than whole views."""
        self.lock = asyncio.Lock()
        self.bots: dict[int, Bot] = {}
        self._timer: Timer | None = None
        self._bot_task: asyncio.Task[None] | None = None
        self._summary_due = False
        self._summary_epoch = 0
        """Moves on whenever the summary may have changed in a way seq does not show
        (members came or went, seats or bots changed): see :meth:`packed_summary`."""
        self._packed: tuple[tuple[Any, ...], list[SeatRecord], bytes] | None = None
        self.closed = False
        self.suspended = False
        """The journal did not confirm an append: nothing is shown or played until rebuilt."""
        self._recovery: asyncio.Task[None] | None = None
        self._parked: asyncio.Task[None] | None = None
        # players who go away
        self._away_since: dict[int, float] = {}
        """Human seats with nobody connected, since when (a seat never joined: since play began)."""
        self._turn_since = 0.0
        """When the seat to move began its turn (for the stand-in's wait)."""
        self._last_to_move: int | None = None
        self._presence: asyncio.Task[None] | None = None
        self._presence_again = False
        self._standin_timer: Timer | None = None
        # quick-match: the seats still open go to bots at fill_at
        self.fill_at = record.fill_at
        self._fill_timer: Timer | None = None
        self._filling: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        """Tasks a timer started (a clock step, a stand-in) or a result waiting for the
        store: kept until done, so none is lost to the collector, and cancelled on close."""

    # -- what the room is ------------------------------------------------------------

    @property
    def status(self) -> Status:
        """The status the journal holds (a move still waiting for its append is not shown)."""
        return self.core.status or Status.WAITING

    @property
    def seq(self) -> int:
        """The journal's last seq."""
        return self.core.seq

    @property
    def engine(self) -> Game | None:
        """The engine: for the room's own work under its lock, after a commit (tests read it).

        Readers use :attr:`core`'s committed state: while a move waits for its
        append, the engine holds it already.
        """
        return self.core.engine

    @property
    def private(self) -> bool:
        return self.record.private_code is not None

    def bot_seats(self) -> frozenset[int]:
        """Seats played by COMP bots: fixed at creation (people take only the other seats)."""
        return self._bot_seats

    def connected(self, seat: int) -> bool:
        return any(s == seat for s in self.members.values())

    def summary(self) -> dict[str, Any]:
        """The room as listed by ``rooms`` and pushed as ``room``."""
        return {
            "room": self.id,
            "game": self.game.name,
            "options": self.record.options,
            "seats": [
                {
                    "name": s.name,
                    "bot": s.bot is not None,
                    "taken": s.player is not None or s.bot is not None,
                    "connected": s.bot is not None or self.connected(i),
                }
                for i, s in enumerate(self.seats)
            ],
            "spectators": sum(1 for seat in self.members.values() if seat is None),
            "status": self.status.value,
            "private": self.private,
            "suspended": self.suspended,
            "paused": self._paused_summary(),
            "bots_at": None if self.core.started else self.fill_at,
        }

    def packed_summary(self) -> bytes:
        """:meth:`summary` packed as msgpack, packed again only when it may have changed.

        Why: a ``rooms`` page of 200 rooms is 200 summaries; built and packed
        anew for each page they cost milliseconds of the event loop per page,
        during which every other client waits. What a summary shows changes
        with the journal (seq: status, pauses), the members (each change calls
        :meth:`push_summary`, which moves the epoch), the seats (a new list
        each time), suspension and the quick-match deadline, all in the key;
        a key that still matches gives back the bytes packed before.
        """
        key = (self._summary_epoch, self.seq, self.status, self.suspended, self.fill_at)
        packed = self._packed
        if packed is not None and packed[0] == key and packed[1] is self.seats:
            return packed[2]
        data: bytes = msgpack.packb(self.summary(), use_bin_type=True)
        self._packed = (key, self.seats, data)
        return data

    def _paused_summary(self) -> str | None:
        """Why play stands still: ``away``/``player`` (a pause), or ``unwatched`` (bots only,
        waiting for a spectator); None while it goes on."""
        core = self.core
        if core.status is not Status.PLAYING:
            return None
        if core.paused is not None:
            return core.paused.value
        return "unwatched" if self.unattended() else None

    def viewable(self, seat: int | None) -> bool:
        """Whether :meth:`view` can answer for ``seat`` now (else: :meth:`settled` first)."""
        return not self.core.started or self.core.view(seat) is not None

    async def settled(self, seat: int | None) -> None:
        """Wait until the committed view of ``seat`` can be shown.

        While a move waits for its append the engine holds it already, and a
        view the core did not keep for the committed seq cannot be made; a
        newcomer then waits for the append (committed or dropped), never for
        the lock.
        """
        while not self.viewable(seat) and not self.suspended and not self.closed:
            await self._settled.wait()

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (None: a spectator) sees as the journal holds it, also before play.

        A view with a clock carries the server's ``now`` as it is sent
        (:func:`~tilehall.server.roomcore.timed`).

        Raises:
            RuntimeError: the view is not to be had now (see :meth:`settled`).
        """
        if self.core.started:
            played = self.core.view(seat)
            if played is None:
                raise RuntimeError(f"room {self.id}: a view asked for while a move is pending")
            return timed(played, self.clock.time())
        view: dict[str, Any] = {
            "game": self.game.name,
            "status": Status.WAITING.value,
            "to_move": None,
            "scores": [0] * len(self.seats),
            "seat": seat,
            "waiting_for": [i for i, s in enumerate(self.seats) if s.player is None and not s.bot],
        }
        if self.fill_at is not None:  # a quick-match room counts down to its bots
            view["now"] = self.clock.time()
        return view

    # -- membership ---------------------------------------------------------------

    def seat_of(self, player: int) -> int | None:
        for i, s in enumerate(self.seats):
            if s.player == player:
                return i
        return None

    def choose_seat(self, player: int, name: str, want: int | None) -> int:
        """The seat ``player`` gets on ``join``: theirs, the one asked for, or a free one.

        Raises:
            ProtocolError: bad_seat, seat_taken or room_full.
        """
        mine = self.seat_of(player)
        if mine is not None:
            if want is not None and want != mine:
                raise ProtocolError(
                    ErrorCode.SEAT_TAKEN, f"you already hold seat {mine} in room {self.id}"
                )
            return mine
        if want is not None:
            if want >= len(self.seats):
                raise ProtocolError(
                    ErrorCode.BAD_SEAT, f"room {self.id} has seats 0..{len(self.seats) - 1}"
                )
            seat = self.seats[want]
            if seat.player is not None or seat.bot is not None:
                raise ProtocolError(ErrorCode.SEAT_TAKEN, f"seat {want} is taken")
            if seat.name is not None and not same_name(seat.name, name):
                raise ProtocolError(ErrorCode.SEAT_TAKEN, f"seat {want} is kept for {seat.name}")
            return want
        free = [i for i, s in enumerate(self.seats) if s.player is None and s.bot is None]
        for i in free:
            kept = self.seats[i].name
            if kept is not None and same_name(kept, name):
                return i
        for i in free:
            if self.seats[i].name is None:
                return i
        raise ProtocolError(ErrorCode.ROOM_FULL, f"room {self.id} has no free seat for {name}")

    @contextlib.asynccontextmanager
    async def between_moves(self) -> AsyncIterator[None]:
        """Hold the room still: no move is pending or proposed while inside (close, hand over).

        The room's lock is the door's own; this is the one way in for what must
        happen between two moves without being one (the store told the room has
        moved, the server stops).
        """
        async with self.lock:
            yield

    def check_open(self) -> None:
        """Refuse (``unavailable``) what needs the game's state while the room is suspended."""
        if self.suspended:
            raise self._unavailable(f"room {self.id} is being restored from its journal")

    async def take_seat(self, seat: int, player: int, name: str) -> None:
        """Give ``seat`` to ``player`` (persisted first), and start play once all are seated.

        Raises:
            ProtocolError: seat_taken, if someone else took it since it was chosen.
        """
        if self.seats[seat].player != player:
            async with self.lock:  # one change of the seats at a time, each written whole
                if self.seats[seat].player not in (None, player) or self.seats[seat].bot:
                    raise ProtocolError(ErrorCode.SEAT_TAKEN, f"seat {seat} was just taken")
                seats = list(self.seats)
                seats[seat] = SeatRecord(name=name, player=player)
                await self.store.set_seats(self.id, seats)
                self.seats = seats
                self.core.reseat(seats)
        await self.maybe_start()

    def add_member(self, session: Member, seat: int | None, *, compact: bool = False) -> None:
        waiting = self.unattended()
        self.members[session] = seat
        if compact:
            self.compact.add(session)
        else:
            self.compact.discard(session)
        session.rooms[self.id] = seat
        self.push_summary()
        if waiting:  # a room of bots waited for its first spectator
            self._arm_timer()
            self._wake_bots()
        if seat is not None:
            self._away_since.pop(seat, None)
            self._presence_changed()
            if self._fill_timer is None:  # bots were due while nobody was here
                self.arm_fill()

    def remove_member(self, session: Member) -> None:
        self.compact.discard(session)
        seat = self.members.pop(session, "absent")
        if seat != "absent":
            session.rooms.pop(self.id, None)
            self.push_summary()
            if self.unattended():
                self._cancel_timer()
            if isinstance(seat, int) and not self.connected(seat):
                self._away_since[seat] = self.clock.time()
                self._presence_changed()

    def push_summary(self) -> None:
        """Send every member the room's summary: one snapshot per event-loop turn.

        Joins and leaves come in bursts (a crowd arriving to watch). A summary
        each would cost n*n frames for n arrivals and overflow the members' send
        queues, disconnecting them; the summary is a whole snapshot, so the last
        one of a turn says everything the others would have.
        """
        self._summary_epoch += 1
        if not self._summary_due:
            self._summary_due = True
            asyncio.get_running_loop().call_soon(self._push_summary_now)

    def _push_summary_now(self) -> None:
        self._summary_due = False
        if self.closed:  # let go or closed: what it would say is no longer anyone's news
            return
        if self._on_changed is not None:
            self._on_changed(self)
        data = encode({"t": "room", **self.summary()})
        for member in self.members:
            member.push(data)

    # -- quick-match: bots take the seats nobody came for --------------------------------

    @property
    def matching(self) -> bool:
        """A quick-match room still waiting for players (``match`` may seat one here)."""
        return (
            self.fill_at is not None
            and not self.core.started
            and not self.closed
            and not self.suspended
            and not self.private
        )

    def arm_fill(self) -> None:
        """Give the open seats to bots at :attr:`fill_at` (at once if that has passed)."""
        if not self.matching or self._filling is not None:
            return
        assert self.fill_at is not None
        if self._fill_timer is not None:
            self._fill_timer.cancel()
        self._fill_timer = self.clock.call_later(
            max(0.0, self.fill_at - self.clock.time()), self._fill_due
        )

    async def fill_sooner(self, at: float) -> None:
        """Another player matched here and waits at most until ``at``: bots come by then."""
        if self.fill_at is not None and at < self.fill_at:
            await self.store.set_fill(self.id, at)
            self.fill_at = at
            self.arm_fill()
            self.push_summary()

    def _fill_due(self) -> None:
        self._fill_timer = None
        if not self.matching:
            return
        if not any(self.connected(i) for i, s in enumerate(self.seats) if s.player is not None):
            return  # nobody is here to play them: the first player back brings the bots
        self._filling = asyncio.create_task(self._fill(), name=f"fill-{self.id}")

    async def _fill(self) -> None:
        """Seat a COMP in every seat still open, persisted first, then start."""
        try:
            async with self.lock:
                if not self.matching:
                    return
                level = self.record.fill_level or "normal"
                seats = [
                    SeatRecord(name="COMP", bot=level)
                    if s.player is None and s.bot is None and s.name is None
                    else s
                    for s in self.seats
                ]
                try:
                    await self.store.set_seats(self.id, seats)
                except StoreUnavailable as exc:
                    self.services.health.failed(exc)
                    self._fill_timer = self.clock.call_later(
                        self.services.health.retry_after, self._fill_due
                    )
                    return
                self.seats = seats
                self.core.reseat(seats)
                self._bot_seats = frozenset(i for i, s in enumerate(seats) if s.bot is not None)
                self.fill_at = None
            log.info("room %s: bots took the open seats", self.id, extra={"room": self.id})
            self.push_summary()
            await self.maybe_start()
        except Exception:
            log.exception("room %s: filling the seats with bots failed", self.id)
        finally:
            self._filling = None

    # -- play ------------------------------------------------------------------------

    async def maybe_start(self) -> None:
        """Start when every human seat is taken (bot-only rooms start at once)."""
        async with self.lock:
            if self.core.started or self.closed or self.suspended:
                return
            if any(s.player is None and s.bot is None for s in self.seats):
                return
            try:
                await self._apply(None, START, self.clock.time())
            except ProtocolError as exc:
                if exc.code != ErrorCode.UNAVAILABLE:
                    raise
                self._park()
                return
        try:
            await self.store.set_status(self.id, Status.PLAYING.value)
        except StoreUnavailable as exc:  # the status is for people reading the database
            self.services.health.failed(exc)

    async def act(
        self, session: Member, action: dict[str, Any], seq: int | None, re: int | None = None
    ) -> None:
        """A member's action; raises ProtocolError/GameError, changing nothing, if refused."""
        if session not in self.members:
            raise ProtocolError(ErrorCode.NOT_IN_ROOM, f"you are not in room {self.id}")
        seat = self.members[session]
        if seat is None:
            raise ProtocolError(ErrorCode.SPECTATOR, "spectators cannot act")
        if isinstance(action.get("do"), str) and action["do"].startswith("_"):
            raise ProtocolError(ErrorCode.OUT_OF_RANGE, f"action {action['do']!r} is reserved")
        # Only what the game's schema declares, in canonical form, is ever journaled: extra
        # keys (64 KB of junk, say) are refused here, before the engine or the journal.
        action = self.game.normalize(action)
        async with self.lock:
            self.check_open()
            if not self.core.started:
                raise ProtocolError(ErrorCode.NOT_STARTED, f"room {self.id} waits for players")
            if seq is not None and seq != self.seq:
                raise ProtocolError(
                    ErrorCode.STALE, f"room {self.id} is at seq {self.seq}, not {seq}"
                )
            await self._apply(seat, action, self.clock.time(), origin=session, re=re)

    async def _apply(
        self,
        seat: int | None,
        action: dict[str, Any],
        now: float,
        *,
        origin: Member | None = None,
        re: int | None = None,
    ) -> None:
        """Engine, journal, broadcast: the one path by which a room changes. Hold the lock.

        ``origin``/``re``: the acting connection gets its update with ``re`` set, as
        the reply to its ``act``.

        Raises:
            GameError: the engine refused; nothing changed.
            ProtocolError: ``unavailable`` when the store is known to be down
                (nothing reached the engine) or did not confirm this append (the
                room is suspended until it is rebuilt from the journal).
        """
        health = self.services.health
        if not health.up:
            raise self._unavailable("the game's journal cannot be written now; nothing was done")
        started = time.perf_counter()
        core = self.core
        pending = core.propose(seat, action, now)  # GameError: refused, nothing changed
        self._settled.clear()
        entry = pending.entry
        metrics = self.services.metrics
        try:
            committing = time.perf_counter()
            await self.store.append(entry)
            metrics.commit_latency.observe(time.perf_counter() - committing)
        except AppendRefused as exc:  # definitely not kept: its seq was taken, or the room moved
            log.warning("room %s: journal refused seq %d (%s)", self.id, entry.seq, exc)
            self._suspend(pending)
            raise self._unavailable("the room changed elsewhere; it is being restored") from None
        except BaseException as exc:  # not confirmed: kept or not, the journal will say
            if isinstance(exc, StoreUnavailable):
                health.failed(exc)
                log.warning("room %s: seq %d not confirmed: %s", self.id, entry.seq, exc)
            elif isinstance(exc, Exception):
                log.exception("room %s: journal append of seq %d failed", self.id, entry.seq)
            self._suspend(pending)
            if not isinstance(exc, Exception):
                raise  # cancelled (a shutdown): dropped, and the rebuild will say
            raise self._unavailable(
                "the move could not be confirmed as saved; the room is being restored from "
                "its journal and will tell you what it holds"
            ) from None
        for member, data in core.commit(
            pending, self.members, self.compact, wall=self.clock.time(), origin=origin, re=re
        ):
            member.push(data)
        self._settled.set()
        metrics.actions[self.game.name] += 1
        metrics.act_latency.observe(time.perf_counter() - started)
        await self._after_change(entry.now)

    def broadcast(self, events: list[Event]) -> None:
        """Send every member the committed seq's update carrying ``events``.

        What happens to slow receivers: :meth:`Member.push` never waits; a member
        whose queue is full is disconnected, the others are not delayed.
        """
        frames = self.core.frames(events, self.members, self.compact, wall=self.clock.time())
        for member, data in frames:
            member.push(data)

    def base_view(self, seat: int | None) -> dict[str, Any]:
        """The view a compact member gets on joining: kept, so the next update patches it."""
        if not self.core.started:
            return self.view(seat)  # a waiting room's view changes without a seq: sent whole
        view = self.core.base_view(seat, self.clock.time())
        if view is None:
            raise RuntimeError(f"room {self.id}: a view asked for while a move is pending")
        return view

    async def _after_change(self, now: float) -> None:
        if self.status is Status.OVER:
            self._cancel_standin()
            await self._finish(now)
            return
        assert self.engine is not None
        if self.engine.to_move != self._last_to_move:
            self._last_to_move, self._turn_since = self.engine.to_move, now
        self._arm_timer()
        self._wake_bots()
        await self._sync_presence(now, membership=False)

    async def _finish(self, now: float) -> None:
        """The game ended: keep its result and high scores, then tell the lobby."""
        assert self.engine is not None
        self._cancel_timer()
        scores = self._score_records(now)
        result = self.engine.result() or {}
        rated = self._rated()
        try:
            await self.store.finish_room(self.id, result, scores, now, rated=rated)
        except StoreUnavailable as exc:
            # The journal holds the end already; only the result waits for the store.
            self.services.health.failed(exc)
            self._spawn_finish_later(result, scores, now, rated)
            return
        self._over()

    def _over(self) -> None:
        self.push_summary()
        if self._on_over is not None:
            self._on_over(self)

    def _spawn_finish_later(
        self,
        result: dict[str, Any],
        scores: list[ScoreRecord],
        now: float,
        rated: RatedGame | None,
    ) -> None:
        async def finish_later() -> None:
            health = self.services.health
            while not self.closed:
                await health.wait()
                try:
                    await self.store.finish_room(self.id, result, scores, now, rated=rated)
                except StoreUnavailable as exc:
                    health.failed(exc)
                    continue
                self._over()
                return

        self._spawn(finish_later(), f"finish-{self.id}")

    def _rated(self) -> RatedGame | None:
        """The finished game as the ratings see it; None if its game has none, or no player."""
        assert self.engine is not None
        if not is_rated(self.game.name) or all(s.player is None for s in self.seats):
            return None
        stood_in = self.engine.ever_stood_in
        return RatedGame(
            game=self.game.name,
            room=self.id,
            seats=tuple(
                Seat(score=score, player=s.player, level=s.bot, stood_in=i in stood_in)
                for i, (s, score) in enumerate(zip(self.seats, self.engine.scores, strict=True))
            ),
        )

    def _score_records(self, now: float) -> list[ScoreRecord]:
        assert self.engine is not None
        scores = []
        for entry in self.engine.score_entries():
            seat = self.seats[entry.seat]
            if seat.bot is None and seat.player is not None and seat.name is not None:
                scores.append(
                    ScoreRecord(
                        game=self.game.name,
                        table=entry.table,
                        player=seat.player,
                        name=seat.name,
                        score=entry.score,
                        room=self.id,
                        at=now,
                        detail=dict(entry.detail),
                    )
                )
        return scores

    # -- clocks ------------------------------------------------------------------------

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _arm_timer(self) -> None:
        self._cancel_timer()
        core = self.core
        if not core.started or self.suspended or self.closed or self.unattended():
            return
        deadline = core.deadline
        if deadline is None:
            return
        delay = max(0.0, deadline - self.clock.time())
        self._timer = self.clock.call_later(
            delay, lambda: self._spawn(self._tick(deadline), f"tick-{self.id}")
        )

    async def _tick(self, deadline: float) -> None:
        async with self.lock:
            if self.closed or self.engine is None or self.status is Status.OVER:
                return
            if self.engine.next_deadline() != deadline:
                return  # an action moved the deadline meanwhile; it re-armed the timer
            try:
                await self._apply(None, TICK, max(self.clock.time(), deadline))
            except ProtocolError as exc:
                if exc.code != ErrorCode.UNAVAILABLE:
                    raise
                if not self.suspended:
                    self._park()  # the store was down: nothing happened, the clock waits
            except Exception:
                log.exception("room %s: clock step failed", self.id)

    # -- bots ---------------------------------------------------------------------------

    def unattended(self) -> bool:
        """Only bots play and nobody is in the room: no one to show a move to.

        Such a room waits, its game as it stands, until someone comes to watch:
        its bots stop and so does its clock. A bot-only game that never ends (a
        Match-It COMP keeps clearing sheets) would otherwise spend the server's
        CPU for nobody, forever, and start again after every restart; a clock
        left running would journal a time-out every turn, forever. A deadline
        that passed meanwhile falls due as soon as someone comes.
        """
        return not self.members and len(self._bot_seats) == len(self.seats)

    @property
    def working(self) -> bool:
        """Something will change this room by itself: a bot is at work or a timer is armed."""
        return self._timer is not None or (self._bot_task is not None and not self._bot_task.done())

    async def quiet(self) -> None:
        """Wait until the bots at work, and what came or went, are done (a test, a shutdown)."""
        while busy := {
            task
            for task in (self._bot_task, self._presence, self._filling)
            if task is not None and not task.done()
        }:
            await asyncio.wait(busy)

    def playing_bots(self) -> frozenset[int]:
        """Seats a COMP plays now: the room's bots, and stand-ins for away players."""
        return self._bot_seats | self.core.stood_in

    def _wake_bots(self) -> None:
        core = self.core
        if self.closed or self.suspended or core.status is not Status.PLAYING:
            return
        if self.unattended() or core.paused is not None:
            return
        if core.to_move not in self.playing_bots():
            return
        if self._bot_task is None or self._bot_task.done():
            self._bot_task = asyncio.create_task(self._run_bots(), name=f"bots-{self.id}")

    def bot_for(self, seat: int) -> Bot:
        bot = self.bots.get(seat)
        if bot is None:
            level = self.seats[seat].bot or "normal"
            cls = find_bot(self.game.name, level)
            bot = cls(
                rng=random.Random(f"{self.record.seed}:{seat}"),
                budget=self.services.limits.bot_think,
            )
            self.bots[seat] = bot
        return bot

    async def _run_bots(self) -> None:
        """Let COMP seats play while it is their turn; their moves go the players' way."""
        failures = 0
        delay = self.services.limits.bot_delay
        health = self.services.health
        core = self.core
        while not self.closed and not self.suspended and core.status is Status.PLAYING:
            seat = core.to_move
            if seat is None or seat not in self.playing_bots() or self.unattended():
                return  # add_member wakes an unattended room
            if core.paused is not None:
                return  # its resume wakes it
            await health.wait()
            if delay:
                await self.clock.sleep(delay)
            shown = core.view(seat)
            if shown is None:  # a move waits for its append: think about what is committed
                await self.settled(seat)
                continue
            # The bot gets its own copy: the committed view is shared by every reader.
            view = pickle.loads(pickle.dumps(shown, pickle.HIGHEST_PROTOCOL))
            seq = self.seq
            bot = self.bot_for(seat)
            try:
                action = await asyncio.to_thread(bot.choose, view)
            except Exception:
                log.exception("room %s: bot of seat %d crashed", self.id, seat)
                action = None
            if action is None:
                failures += 1
                if failures >= 3:
                    log.error("room %s: bot of seat %d has no move; stopping it", self.id, seat)
                    return
                continue
            async with self.lock:
                if self.seq != seq or self.closed or self.engine is None:
                    continue  # the game moved on (a clock step, a rebuild); think again
                try:
                    await self._apply(seat, action, self.clock.time())
                    failures = 0
                except ProtocolError as exc:
                    if exc.code == ErrorCode.UNAVAILABLE:
                        if not self.suspended:
                            self._park()
                        return  # the rebuild, or the store's return, wakes the bots
                    failures += 1
                    log.warning("room %s: bot move %r refused: %s", self.id, action, exc)
                    if failures >= 3:
                        return
                except GameError as exc:
                    failures += 1
                    log.warning("room %s: bot move %r refused: %s", self.id, action, exc)
                    if failures >= 3:
                        return

    # -- recovery ------------------------------------------------------------------------

    def rebuild(self, entries: Iterable[JournalEntry]) -> None:
        """Make the game again from its journal (recovery: no I/O, no broadcast)."""
        self.core.rebuild(entries)

    def resume(self) -> None:
        """After a replay at start-up: re-arm clocks and bots, and keep a result not yet kept.

        Nobody is connected yet: a game whose clock stops for absent players is
        paused as of its last journal entry, so the time the server was down
        does not count against them.
        """
        if self.status is Status.OVER:
            if self.record.status != Status.OVER.value:  # it ended just before a crash
                assert self.engine is not None
                now = self.clock.time()
                result, scores = self.engine.result() or {}, self._score_records(now)
                self._spawn_finish_later(result, scores, now, self._rated())
            return
        if self.engine is not None:
            self._last_to_move, self._turn_since = self.engine.to_move, self.clock.time()
        for seat in self._humans():
            self._away_since.setdefault(seat, self.clock.time())
        self._arm_timer()
        self._wake_bots()
        self._presence_changed(at=self.core.now)

    # -- players who go away ----------------------------------------------------------------

    def _humans(self) -> list[int]:
        """The seats people play (not COMP seats)."""
        return [i for i in range(len(self.seats)) if i not in self._bot_seats]

    def _presence_changed(self, at: float | None = None) -> None:
        """A player came or went: see (under the lock, soon) what the game needs now.

        ``at``: the time to journal a pause at (after a restart: the last entry's).
        """
        if self.engine is None or self.closed or self.suspended or not self._humans():
            return
        if self._presence is not None and not self._presence.done():
            self._presence_again = True
            return

        async def sync() -> None:
            while True:
                self._presence_again = False
                async with self.lock:
                    try:
                        await self._sync_presence(self.clock.time() if at is None else at)
                    except ProtocolError as exc:
                        if exc.code != ErrorCode.UNAVAILABLE:
                            raise
                        return  # suspended or parked: presence is looked at again on rebuild
                if not self._presence_again:
                    return

        self._presence = asyncio.create_task(sync(), name=f"presence-{self.id}")

    async def _sync_presence(self, now: float, *, membership: bool = True) -> None:
        """Journal what the players' presence asks of the game, then arm a stand-in. Hold the lock.

        ``membership``: called because someone came or went (or the server restarted):
        only then may the game be paused or resumed. After a move only the turn
        matters (a seat to give back, a stand-in to arm): a game that has just
        started is not paused because its last player is still joining.

        - Every human away, in a game whose clock stops (Match-It, LinkSame, Mathable's
          turn clock) and runs now: pause it (an untimed game has nothing to stop, and
          its journal no entry to write); someone back: resume it (a pause the player asked for
          stays until they resume it).
        - A seat a stand-in plays whose player is back: give it back, at the first turn
          that is not theirs (the stand-in finishes the turn it began).
        - The seat to move away for ``standin_after`` seconds: a stand-in (:meth:`_arm_standin`).
        """
        engine = self.engine
        if engine is None or self.closed or self.suspended or engine.status is not Status.PLAYING:
            return
        humans = self._humans()
        if not humans:
            return
        everyone_away = all(not self.connected(s) for s in humans)
        stops = engine.pausable and engine.clock_runs  # an untimed game has nothing to stop
        if membership and stops and everyone_away and engine.paused is None:
            await self._apply(None, away(), now)
            self.push_summary()
            return  # the entry's own _after_change looked at the rest
        if membership and engine.pausable and not everyone_away and engine.paused is Pause.AWAY:
            await self._apply(None, RESUME, max(now, self.clock.time()))
            self.push_summary()
            return
        for seat in sorted(engine.stood_in_seats):
            if self.connected(seat) and engine.to_move != seat:
                await self._apply(None, stand_back(seat), now)
                return
        self._arm_standin()

    def _cancel_standin(self) -> None:
        if self._standin_timer is not None:
            self._standin_timer.cancel()
            self._standin_timer = None

    def _arm_standin(self) -> None:
        """The seat to move is away: a stand-in plays it ``standin_after`` seconds after
        both its turn began and its player went (a room option; 0: never)."""
        self._cancel_standin()
        engine = self.engine
        after = self.record.options.get("standin_after", 0)
        if engine is None or not after or engine.paused is not None:
            return
        seat = engine.to_move
        if seat is None or seat in self.playing_bots() or self.connected(seat):
            return
        since = max(self._turn_since, self._away_since.get(seat, self._turn_since))
        delay = max(0.0, since + after - self.clock.time())
        seq = self.seq
        self._standin_timer = self.clock.call_later(
            delay, lambda: self._spawn(self._standin_due(seat, seq), f"standin-{self.id}")
        )

    async def _standin_due(self, seat: int, seq: int) -> None:
        async with self.lock:
            self._standin_timer = None
            engine = self.engine
            if (
                engine is None
                or self.closed
                or self.suspended
                or self.seq != seq
                or engine.to_move != seat
                or engine.paused is not None
                or self.connected(seat)
                or seat in self.playing_bots()
            ):
                return
            log.info("room %s: a stand-in plays seat %d, its player away", self.id, seat)
            try:
                await self._apply(None, stand_in(seat), self.clock.time())
            except ProtocolError as exc:
                if exc.code != ErrorCode.UNAVAILABLE:
                    raise

    # -- faults of the store ----------------------------------------------------------------

    def _unavailable(self, message: str) -> ProtocolError:
        retry = self.services.health.retry_after or MIN_RETRY_AFTER
        return ProtocolError(ErrorCode.UNAVAILABLE, message, retry_after=retry)

    def _suspend(self, pending: Pending) -> None:
        """Drop a state the journal may not hold; refuse everything until rebuilt. Hold the lock."""
        self.core.drop(pending)
        self._settled.set()
        if self.suspended:
            return
        self.suspended = True
        self.bots.clear()  # a bot's memory of the dropped move must go too
        self._cancel_timer()
        self.push_summary()
        log.warning("room %s suspended at seq %d until its journal can be read", self.id, self.seq)
        self._recovery = asyncio.create_task(self._recover(), name=f"recover-{self.id}")

    async def _recover(self) -> None:
        """Once the store answers: rebuild from the journal, tell the members, play on."""
        health = self.services.health
        pause = REBUILD_BACKOFF[0]
        while not self.closed:
            await health.wait()
            try:
                record = await self.store.room(self.id)
                entries = await self.store.journal(self.id)
            except StoreUnavailable as exc:
                health.failed(exc)
                continue
            except Exception:
                # Not the store being away but its driver failing (asyncpg's "another
                # operation is in progress" on a connection the database dropped): this
                # task is the room's only way back, so it never ends over it.
                log.exception("room %s: its journal could not be read", self.id)
                await self.clock.sleep(pause)
                pause = min(REBUILD_BACKOFF[1], pause * 2)
                continue
            if record is None or record.node != self.record.node:
                log.warning("room %s is no longer this node's; letting it go", self.id)
                if self._on_moved is not None:
                    self._on_moved(self)
                return
            async with self.lock:
                before = self.seq
                try:
                    self.core.rebuild(entries)
                except Exception:
                    log.exception("room %s: its journal could not be rebuilt", self.id)
                    await self.clock.sleep(pause)
                    pause = min(REBUILD_BACKOFF[1], pause * 2)
                    continue
                self.suspended = False
                log.warning("room %s restored at seq %d (was %d)", self.id, self.seq, before)
                if self.seq > before:  # the append in doubt had been committed after all
                    self._broadcast_since(before)
                self.push_summary()
                if self.engine is not None:
                    await self._after_change(entries[-1].now)
            if self.engine is None:
                await self.maybe_start()
            return

    def _broadcast_since(self, before: int) -> None:
        """Send what the journal holds after ``before`` as one update (a catch-up)."""
        self.broadcast(self.core.events_since(before))

    def _park(self) -> None:
        """The store was down before anything changed: wait for it, then re-arm clocks and bots."""
        if self._parked is not None and not self._parked.done():
            return

        async def unpark() -> None:
            await self.services.health.wait()
            if not self.closed and not self.suspended:
                self._arm_timer()
                self._wake_bots()
                if self.engine is None:
                    await self.maybe_start()

        self._parked = asyncio.create_task(unpark(), name=f"park-{self.id}")

    def missed(self, seat: int | None, since: int) -> list[dict[str, Any]] | None:
        """Updates after ``since`` for ``seat`` (see :meth:`RoomCore.missed`)."""
        return self.core.missed(seat, since)

    def close(self) -> None:
        self.closed = True
        self._cancel_timer()
        self._cancel_standin()
        if self._fill_timer is not None:
            self._fill_timer.cancel()
        for task in (self._bot_task, self._recovery, self._parked, self._filling, self._presence):
            if task is not None:
                task.cancel()
        for task in list(self._tasks):
            task.cancel()

    def _spawn(self, work: Coroutine[Any, Any, None], name: str) -> None:
        """Run ``work`` as a task the room keeps (and cancels on :meth:`close`)."""
        if self.closed:
            work.close()
            return
        task = asyncio.create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

