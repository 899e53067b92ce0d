"""A room: the only authority for one game; the shell around its core, and its one door.

Lifecycle (the room owns these transitions; engines only know playing/over)::

    waiting --(every human seat taken; at once for bot-only rooms)--> playing
    playing --(engine status becomes over)--> over
    waiting, playing --(the journal did not confirm an append)--> suspended
    suspended --(the store answers; rebuilt from the journal)--> waiting, playing, over

The game itself is the room's :class:`~tilehall.server.roomcore.RoomCore`,
which decides without I/O. Every change goes through one door,
:meth:`Room.submit`, under the room's lock, one entry at a time: the core
steps the engine (which refuses and changes nothing, or returns events) into a
*pending* change, **the entry is appended to the journal and the commit
awaited**, and only then does the core commit it and hand back each member's
``update``. A player's ``act`` comes in by that door; so do the room's own
proposers (:mod:`.proposers`: its clock, bots, stand-ins, presence, quick-match
fill). Readers (listings, a newcomer's view, the summary) see only what the
core committed: a room is never ahead of its journal, for anyone. The journal
holds the start (``_start``), every accepted action and every clock step, so
:meth:`Room.rebuild` makes the room again exactly; an append that fails drops
the pending change and suspends the room until that rebuild (:mod:`.recovery`).

What happens to slow receivers: a member's frame goes through
:meth:`Member.push`, which never waits; a member whose queue is full is
disconnected, the others are not delayed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any, NoReturn

from tilehall.protocol import ErrorCode, ProtocolError
from tilehall.server.clock import Clock
from tilehall.server.config import Limits
from tilehall.server.doorlock import DoorLock
from tilehall.server.games import Game, Status
from tilehall.server.games.base import Event
from tilehall.server.games.replay import START
from tilehall.server.member import Member
from tilehall.server.ops import Metrics
from tilehall.server.outcome import finish, finish_later, rated, score_records
from tilehall.server.proposers import ActDecision, Bots, Filler, Presence, Ticker
from tilehall.server.recovery import Recovery
from tilehall.server.roomcore import Pending, RoomCore, timed, view_patch, visible
from tilehall.server.seating import choose_seat, seat_of
from tilehall.server.store.base import (
    AppendRefused,
    JournalEntry,
    RoomRecord,
    SeatRecord,
    Store,
    StoreUnavailable,
)
from tilehall.server.store.health import MIN_RETRY_AFTER, StoreHealth
from tilehall.server.summary import Summary, summary_of

__all__ = ["START", "Proposal", "Room", "RoomServices", "view_patch", "visible"]

log = logging.getLogger(__name__)

Proposal = tuple[int | None, dict[str, Any], float]
"""An entry proposed at the door: the seat (None: the room's own), the action, its time."""


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
        self._lock = DoorLock()
        """The door's: held by :meth:`submit` from the engine's step to the commit or drop,
        and by :meth:`between_moves`. Nothing else in the server takes it."""
        self._summary = Summary()
        """The summary's packed copy and its one push per turn (:mod:`.summary`)."""
        self.closed = False
        self.suspended = False
        """The journal did not confirm an append: nothing is shown or played until rebuilt."""
        self.recovery = Recovery(self)
        self.fill_at = record.fill_at
        """Quick-match: when the seats still open go to bots (None: not a quick-match room)."""
        # what changes the room by itself, each through the door (see server.proposers)
        self.ticker = Ticker(self)
        self.bots = Bots(self)
        self.presence = Presence(self)
        self.filler = Filler(self)
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
        """The room as listed by ``rooms`` and pushed as ``room`` (:mod:`.summary`)."""
        return summary_of(self)

    def packed_summary(self) -> bytes:
        """:meth:`summary` packed, again only when it may have changed (:meth:`Summary.packed`)."""
        return self._summary.packed(self)

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

    async def settle(self) -> None:
        """Wait until no change is pending (committed or dropped)."""
        while self.core.pending:
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
        return seat_of(self.seats, player)

    def choose_seat(self, player: int, name: str, want: int | None) -> int:
        """The seat ``player`` gets on ``join`` (:func:`~tilehall.server.seating.choose_seat`)."""
        return choose_seat(self.id, self.seats, player, name, want)

    @contextlib.asynccontextmanager
    async def between_moves(self) -> AsyncIterator[None]:
        """Hold the room still: no move is pending or proposed while inside (close, hand over).

        The room's lock is the door's own; this is the one way in for what must
        happen between two moves without being one (the store told the room has
        moved, the server stops).
        """
        async with self._lock:
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
            async with self.between_moves():  # one change of the seats at a time, written whole
                if self.seats[seat].player not in (None, player) or self.seats[seat].bot:
                    raise ProtocolError(ErrorCode.SEAT_TAKEN, f"seat {seat} was just taken")
                seats = list(self.seats)
                seats[seat] = SeatRecord(name=name, player=player)
                await self.store.set_seats(self.id, seats)
                self.reseat(seats)
        await self.maybe_start()

    def reseat(self, seats: list[SeatRecord]) -> None:
        """The seats as the store now holds them (a player took one, or bots the open ones)."""
        self.seats = seats
        self.core.reseat(seats)
        self._bot_seats = frozenset(i for i, s in enumerate(seats) if s.bot is not None)

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
            self.ticker.arm()
            self.bots.wake()
        if seat is not None:
            self.presence.away_since.pop(seat, None)
            self.presence.changed()
            if not self.filler.armed:  # bots were due while nobody was here
                self.filler.arm()

    def remove_member(self, session: Member) -> None:
        self.compact.discard(session)
        seat = self.members.pop(session, "absent")
        if seat != "absent":
            session.rooms.pop(self.id, None)
            self.push_summary()
            if self.unattended():
                self.ticker.cancel()
            if isinstance(seat, int) and not self.connected(seat):
                self.presence.away_since[seat] = self.clock.time()
                self.presence.changed()

    def push_summary(self) -> None:
        """Send every member the summary, once per event-loop turn (:meth:`Summary.push`)."""
        self._summary.push(self)

    def changed(self) -> None:
        """The summary may have changed: tell whoever follows it (a cluster's directory)."""
        if self._on_changed is not None:
            self._on_changed(self)

    # -- play ------------------------------------------------------------------------

    async def submit(
        self,
        decide: Callable[[], Proposal | None],
        *,
        origin: Member | None = None,
        re: int | None = None,
    ) -> bool:
        """The one door into the room: decide, step, append, then commit or drop.

        Under the room's lock, one entry at a time: ``decide`` says what the
        entry is, looking at the game as the journal holds it (it may raise a
        refusal, or return None: nothing to do any more, the game moved on);
        then :meth:`_apply` steps the engine, appends and commits (or drops and
        suspends). Players (:meth:`act`), the start (:meth:`maybe_start`) and
        every proposer of :mod:`tilehall.server.proposers` come in here.

        Returns:
            Whether an entry was journaled and shown.

        Raises:
            ProtocolError: ``unavailable`` while suspended or when the store does
                not confirm the append; a refusal ``decide`` raised.
            GameError: the engine refused; nothing changed.
        """
        # take/release rather than ``async with``: a free lock is taken with no
        # coroutine made (see tilehall.server.doorlock); only a held one is waited for.
        lock = self._lock
        if not lock.take():
            await lock.acquire()
        try:
            if self.closed:
                return False
            self.check_open()
            proposal = decide()
            if proposal is None:
                return False
            seat, action, now = proposal
            # _apply's three steps, written out here: one coroutine less per move,
            # alive while it waits for its append.
            pending, appending, started = self._propose(seat, action, now)
            try:
                await appending
            except BaseException as exc:
                self._not_kept(pending, exc)
            if self._commit(pending, started, origin, re):
                await self._follow(pending.entry.now)
            return True
        finally:
            lock.release()

    async def maybe_start(self) -> None:
        """Start when every human seat is taken (bot-only rooms start at once)."""

        def decide() -> Proposal | None:
            if self.core.started or any(s.player is None and s.bot is None for s in self.seats):
                return None
            return None, START, self.clock.time()

        try:
            if not await self.submit(decide):
                return
        except ProtocolError as exc:
            if exc.code != ErrorCode.UNAVAILABLE:
                raise
            if not self.suspended:
                self.park()
            return
        try:
            await self.store.set_status(self.id, Status.PLAYING.value)
        except StoreUnavailable as exc:  # the status is for people reading the database
            self.services.health.failed(exc)

    def act(
        self, session: Member, action: dict[str, Any], seq: int | None, re: int | None = None
    ) -> Awaitable[bool]:
        """A member's action; raises ProtocolError/GameError, changing nothing, if refused.

        What it checks of the member and the action it checks at once; the rest is
        the door's (:meth:`submit`), whose coroutine it returns for the caller to
        await: one coroutine less, alive while the move waits for its append.
        """
        seat = self.members.get(session, -1)
        if seat == -1:
            raise ProtocolError(ErrorCode.NOT_IN_ROOM, f"you are not in room {self.id}")
        if seat is None:
            raise ProtocolError(ErrorCode.SPECTATOR, "spectators cannot act")
        if isinstance(action.get("do"), str) and action["do"].startswith("_"):
            raise ProtocolError(ErrorCode.OUT_OF_RANGE, f"action {action['do']!r} is reserved")
        # Only what the game's schema declares, in canonical form, is ever journaled: extra
        # keys (64 KB of junk, say) are refused here, before the engine or the journal.
        action = self.game.normalize(action)
        return self.submit(ActDecision(self, seat, action, seq), origin=session, re=re)

    async def _apply(
        self,
        seat: int | None,
        action: dict[str, Any],
        now: float,
        *,
        origin: Member | None = None,
        re: int | None = None,
    ) -> None:
        """Engine, journal, broadcast: what the door does with an entry. Hold the lock.

        ``origin``/``re``: the acting connection gets its update with ``re`` set, as
        the reply to its ``act``. :meth:`submit` does the same three steps itself,
        and raises the same (:meth:`_propose`, :meth:`_not_kept`).
        """
        pending, appending, started = self._propose(seat, action, now)
        try:
            await appending
        except BaseException as exc:
            self._not_kept(pending, exc)
        if self._commit(pending, started, origin, re):
            await self._follow(pending.entry.now)

    def _propose(
        self, seat: int | None, action: dict[str, Any], now: float
    ) -> tuple[Pending, Awaitable[None], tuple[float, float]]:
        """The engine's step and the journal's append begun: the pending change, the
        append to await, and when the move and its append began (for the metrics).

        Raises:
            GameError: the engine refused; nothing changed.
            ProtocolError: ``unavailable``: the store is known to be down.
        """
        if not self.services.health.up:
            raise self._unavailable("the game's journal cannot be written now; nothing was done")
        started = time.perf_counter()
        pending = self.core.propose(seat, action, now)  # GameError: refused, nothing changed
        self._settled.clear()
        committing = time.perf_counter()
        try:
            appending = self.store.append(pending.entry)
        except BaseException as exc:
            self._not_kept(pending, exc)
        return pending, appending, (started, committing)

    def _not_kept(self, pending: Pending, exc: BaseException) -> NoReturn:
        """The journal did not confirm ``pending`` (``exc``): drop it, suspend, and say so.

        Called in the ``except`` block of the append's await.

        Raises:
            ProtocolError: ``unavailable``; or ``exc`` itself when it is not an
                Exception (a cancellation at shutdown: dropped, and the rebuild will say).
        """
        entry = pending.entry
        if isinstance(exc, AppendRefused):  # definitely not kept: its seq was taken, or moved
            log.warning("room %s: journal refused seq %d (%s)", self.id, entry.seq, exc)
            self._drop(pending)
            raise self._unavailable("the room changed elsewhere; it is being restored") from None
        # not confirmed: kept or not, the journal will say
        if isinstance(exc, StoreUnavailable):
            self.services.health.failed(exc)
            log.warning("room %s: seq %d not confirmed: %s", self.id, entry.seq, exc)
        elif isinstance(exc, Exception):
            log.exception("room %s: journal append of seq %d failed", self.id, entry.seq)
        self._drop(pending)
        if not isinstance(exc, Exception):
            raise exc
        raise self._unavailable(
            "the move could not be confirmed as saved; the room is being restored from "
            "its journal and will tell you what it holds"
        ) from None

    def _commit(
        self,
        pending: Pending,
        began: tuple[float, float],
        origin: Member | None,
        re: int | None,
    ) -> bool:
        """The journal holds ``pending``: show it, re-arm the proposers; whether
        :meth:`_follow` has work to await."""
        metrics = self.services.metrics
        metrics.commit_latency.observe(time.perf_counter() - began[1])
        try:
            frames = self.core.commit(
                pending, self.members, self.compact, wall=self.clock.time(), origin=origin, re=re
            )
        finally:
            self._settled.set()  # committed (even if its frames could not be made): readers go on
        for member, data in frames:
            member.push(data)
        metrics.actions[self.game.name] += 1
        metrics.act_latency.observe(time.perf_counter() - began[0])
        return self._rearm(pending.entry.now)

    def _drop(self, pending: Pending) -> None:
        """The journal did not confirm ``pending``: forget it and suspend (:mod:`.recovery`)."""
        self.recovery.suspend(pending)
        self._settled.set()

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

    async def after_change(self, now: float) -> None:
        """After a commit, still in the door: finish, re-arm the proposers, give a seat back."""
        if self._rearm(now):
            await self._follow(now)

    def _rearm(self, now: float) -> bool:
        """Re-arm the proposers after a commit; whether :meth:`_follow` has work to await.

        Apart from :meth:`after_change` so that a move with nothing to await (most of
        them) makes no coroutine for it.
        """
        if self.status is Status.OVER:
            return True
        self.presence.moved(now)
        self.ticker.arm()
        self.bots.wake()
        return bool(self.core.stood_in or self.record.options.get("standin_after"))

    async def _follow(self, now: float) -> None:
        """What :meth:`_rearm` found to await: the result of a game over, a seat given back."""
        if self.status is Status.OVER:
            self.presence.cancel_standin()
            await finish(self, now)
            return
        follow = self.presence.decide(now, membership=False)
        if follow is not None:  # a player back from a stand-in's turn: journaled now
            await self._apply(*follow)

    def over(self) -> None:
        """The result is kept: tell the members and the lobby."""
        self.push_summary()
        if self._on_over is not None:
            self._on_over(self)

    def moved(self) -> None:
        """The store names another node for this room now: let it go."""
        if self._on_moved is not None:
            self._on_moved(self)

    # -- what plays by itself --------------------------------------------------------

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
        return self.ticker.timer is not None or self.bots.busy

    async def quiet(self) -> None:
        """Wait until the bots at work, and what came or went, are done (a test, a shutdown)."""
        while busy := {
            task
            for task in (self.bots.task, self.presence.task, self.filler.task)
            if task is not None and not task.done()
        }:
            await asyncio.wait(busy)

    def playing_bots(self) -> frozenset[int]:
        """Seats a COMP plays now: the room's bots, and stand-ins for away players."""
        return self._bot_seats | self.core.stood_in

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
        """Quick-match: give the open seats to bots at :attr:`fill_at` (:class:`Filler`)."""
        self.filler.arm()

    async def fill_sooner(self, at: float) -> None:
        """Another player matched here and waits at most until ``at``: bots come by then."""
        await self.filler.sooner(at)

    # -- recovery ------------------------------------------------------------------------

    def rebuild(self, entries: Iterable[JournalEntry]) -> None:
        """Make the game again from its journal (recovery: no I/O, no broadcast)."""
        self.core.rebuild(entries)

    def resume(self) -> None:
        """After a rebuild at start-up: re-arm clocks and bots, and keep a result not yet kept.

        Nobody is connected yet: a game whose clock stops for absent players is
        paused as of its last journal entry, so the time the server was down
        does not count against them.
        """
        if self.status is Status.OVER:
            if self.record.status != Status.OVER.value:  # it ended just before a crash
                engine = self.engine
                assert engine is not None
                now, name = self.clock.time(), self.game.name
                scores = score_records(name, self.id, self.seats, engine, now)
                rating = rated(name, self.id, self.seats, engine)
                finish_later(self, engine.result() or {}, scores, now, rating)
            return
        presence = self.presence
        presence.moved(self.clock.time())
        for seat in presence.humans():
            presence.away_since.setdefault(seat, self.clock.time())
        self.ticker.arm()
        self.bots.wake()
        presence.changed(at=self.core.now)

    # -- faults of the store ----------------------------------------------------------------

    def _unavailable(self, message: str) -> ProtocolError:
        retry = self.services.health.retry_after or MIN_RETRY_AFTER
        return ProtocolError(ErrorCode.UNAVAILABLE, message, retry_after=retry)

    def park(self) -> None:
        """The store was down before anything changed: the proposers wait for it."""
        self.recovery.park()

    def missed(self, seat: int | None, since: int) -> list[dict[str, Any]] | None:
        """Updates after ``since`` for ``seat`` (see :meth:`RoomCore.missed`)."""
        return self.core.missed(seat, since)

    def close(self) -> None:
        self.closed = True
        self.ticker.cancel()
        self.presence.cancel_standin()
        self.filler.cancel()
        self.recovery.cancel()
        for task in (self.bots.task, self.filler.task, self.presence.task):
            if task is not None:
                task.cancel()
        for task in list(self._tasks):
            task.cancel()

    def spawn(self, work: Coroutine[Any, Any, None], name: str) -> None:
        """Run ``work`` as a task the room keeps (and cancels on :meth:`close`)."""
        if self.closed:
            work.close()
            return
        task = asyncio.create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
