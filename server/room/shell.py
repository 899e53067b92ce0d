"""A room's shell: the asyncio around its core, carrying out what the core decides.

The core (:mod:`.core`) is the room; this is its I/O. :class:`Room` turns each
request of the lobby (an act, a join, a watch, a leave) and each answer of the
world (the journal's, a timer's, a bot's) into one event for the core, with
the time, and carries out the effects the core hands back: it pushes frames,
appends entries, writes records, keeps the timers it is told to, lets bots
think on a thread, and answers the request that waited. It decides nothing:
an ``if`` here is about I/O (a future already answered, a task to keep).

What happens to slow receivers: a member's frame goes through
:meth:`Member.push`, which never waits; a member whose queue is full is
disconnected, the others are not delayed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any

from tilehall.protocol import encode
from tilehall.server.bots import Bot, find_bot
from tilehall.server.clock import Clock
from tilehall.server.config import Limits
from tilehall.server.games import Game, Status
from tilehall.server.ops.metrics import Metrics
from tilehall.server.room.core import RoomCore
from tilehall.server.room.events import (
    Act,
    Answer,
    Append,
    Appended,
    Arm,
    Begin,
    Close,
    Disarm,
    Due,
    Effect,
    Finish,
    ForgetBots,
    Frames,
    Hold,
    Join,
    JournalRead,
    Leave,
    Moved,
    NotAppended,
    Note,
    Over,
    PushSummary,
    ReadJournal,
    Refuse,
    Release,
    ResultKept,
    Resume,
    Sooner,
    StoreBack,
    StoreFailed,
    Think,
    Thought,
    Timer,
    WaitStore,
    Watch,
    Write,
    Written,
)
from tilehall.server.room.member import Member
from tilehall.server.room.summary import Summary, summary_of
from tilehall.server.store.base import Store
from tilehall.server.store.errors import AppendRefused, StoreUnavailable
from tilehall.server.store.health import StoreHealth
from tilehall.server.store.records import (
    CHAT_KEPT,
    ChatLine,
    JournalEntry,
    RoomRecord,
    SeatRecord,
)

__all__ = ["Room", "RoomServices"]

log = logging.getLogger("tilehall.server.room")


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
    """One game being played: its core, and the I/O it asks for.

    Args:
        record: the room as the store keeps it (options, seed, seats).
        game: its engine class.
        services: store, clock, limits and metrics.
        journal: its journal, to rebuild it from (recovery, a takeover); None for a
            room just made.
        on_over: called once the game has ended and its result is stored
            (the lobby keeps the room a while for late spectators, then forgets it).
        on_moved: called when the store says another node owns the room now
            (a cluster took it over while this node was cut off): let it go.
        on_changed: called when the room's summary may have changed (the
            cluster's directory announces it).

    Raises:
        GameError, ValueError: ``journal`` cannot be replayed.
    """

    def __init__(
        self,
        record: RoomRecord,
        game: type[Game],
        services: RoomServices,
        *,
        journal: Iterable[JournalEntry] | None = None,
        on_over: Callable[[Room], None] | None = None,
        on_moved: Callable[[Room], None] | None = None,
        on_changed: Callable[[Room], None] | None = None,
    ) -> None:
        self.id = record.id
        self.game = game
        self.services = services
        self.store = services.store
        self.clock = services.clock
        self.core = RoomCore(
            record,
            game,
            health=services.health,
            bot_delay=services.limits.bot_delay,
            journal=journal,
        )
        """The room itself: every decision, and the game as the journal holds it."""
        self._on_over = on_over
        self._on_moved = on_moved
        self._on_changed = on_changed
        self._summary = Summary()
        self._push_due = False
        self._timers: dict[Timer, Any] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        """Tasks started for the core (an append's wait, a bot's thought, a write, a
        read): kept until done, so none is lost to the collector, cancelled on close."""
        self._minds: dict[int, Bot] = {}
        """Each seat's bot, made when it first plays (its memory is of the committed game)."""
        self._idle = asyncio.Event()
        self._fed_at = 0.0
        """When the last event was handed to the core (for the latency of what it caused)."""
        self._began = (0.0, 0.0)
        """When the entry in flight was stepped, and when its append was asked for."""
        self._appending = 0
        self._chat: deque[ChatLine] | None = deque(maxlen=CHAT_KEPT) if journal is None else None
        """The room's latest chat lines, newest last: none yet in a room just made; a room
        rebuilt (a restart, a takeover) has its chat in the store, read when first needed,
        then kept here."""
        self._chat_lock = asyncio.Lock()
        """Held while a line is kept and sent, and while a member enters with the lines
        so far: each line reaches a newcomer once, in ``joined.chat`` or as a ``chat``."""

    # -- what the room is (readers: the committed state) ------------------------------

    @property
    def record(self) -> RoomRecord:
        """The room as made (its seats as they are now: :attr:`seats`)."""
        return self.core.record

    @property
    def seats(self) -> tuple[SeatRecord, ...]:
        return self.core.seats

    @property
    def members(self) -> dict[Member, int | None]:
        return self.core.members

    @property
    def status(self) -> Status:
        """The status the journal holds (a move still waiting for its append is not shown)."""
        return self.core.status

    @property
    def seq(self) -> int:
        return self.core.seq

    @property
    def engine(self) -> Game | None:
        """The engine (tests and tools read it; readers use the core's committed state)."""
        return self.core.engine

    @property
    def private(self) -> bool:
        return self.core.private

    @property
    def suspended(self) -> bool:
        return self.core.suspended

    @property
    def closed(self) -> bool:
        return self.core.closed

    @property
    def fill_at(self) -> float | None:
        return self.core.fill_at

    @property
    def matching(self) -> bool:
        """A quick-match room still waiting for players (``match`` may seat one here)."""
        return self.core.matching

    def seat_of(self, player: int) -> int | None:
        return self.core.seat_of(player)

    def connected(self, seat: int) -> bool:
        return self.core.connected(seat)

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (None: a spectator) sees as the journal holds it."""
        return self.core.view(seat, self.clock.time())

    def missed(self, seat: int | None, since: int) -> list[dict[str, Any]] | None:
        return self.core.missed(seat, since)

    def summary(self) -> dict[str, Any]:
        """The room as listed by ``rooms`` and pushed as ``room`` (:mod:`.summary`)."""
        return summary_of(self.core)

    def packed_summary(self) -> bytes:
        """:meth:`summary` packed, again only when it may have changed."""
        return self._summary.packed(self.core)

    # -- requests: each one event for the core, answered when the core says -------------

    def act(
        self, member: Member, action: Any, seq: int | None, re: int | None = None
    ) -> Awaitable[None]:
        """A member's action: the awaitable is done once it is answered (the actor's own
        update carries ``re``) or raises its refusal (ProtocolError, GameError)."""
        ticket = asyncio.get_running_loop().create_future()
        self._feed(Act(member, action, seq, re, ticket))
        return ticket

    async def join(
        self, member: Member, want: int | None, *, compact: bool, since: int | None
    ) -> dict[str, Any]:
        """Seat ``member``'s player (``want``: a given seat) and enter: the ``joined`` reply."""
        player = member.player
        assert player is not None
        async with self._chat_lock:
            lines = await self._chat_lines()
            joined: dict[str, Any] = await self._ask(
                lambda t: Join(member, player.id, player.name, want, compact, since, t)
            )
        return _with_chat(joined, lines)

    async def watch(self, member: Member, *, compact: bool, since: int | None) -> dict[str, Any]:
        """Enter ``member`` to watch (in its own seat, if it holds one): the ``joined`` reply."""
        async with self._chat_lock:
            lines = await self._chat_lines()
            joined: dict[str, Any] = await self._ask(lambda t: Watch(member, compact, since, t))
        return _with_chat(joined, lines)

    async def chat(self, member: Member, text: str, re: int | None) -> None:
        """``member`` says ``text`` (cleaned): kept in the store first, then sent to every member.

        The sender's own copy answers its request (it carries ``re``, as ``act``'s
        update does). A line the store cannot keep is refused (StoreUnavailable:
        ``unavailable``), so a line someone read is one a later newcomer reads too.
        """
        assert member.player is not None
        if not self.services.health.up:  # refused at once, as a move is
            raise StoreUnavailable(self.services.health.last_error or "the store is down")
        line = ChatLine(room=self.id, name=member.player.name, text=text, at=self.clock.time())
        async with self._chat_lock:
            await self.store.add_chat(line, CHAT_KEPT)
            if self._chat is not None:
                self._chat.append(line)
            said = {"t": "chat", "room": self.id, "from": line.name, "text": text}
            data = encode(said)
            own = data if re is None else encode({**said, "re": re})
            for other in self.core.members:
                other.send(own if other is member else data)

    async def _chat_lines(self) -> list[dict[str, Any]] | None:
        """The chat lines a newcomer gets, oldest first; None when the store cannot say now
        (the newcomer enters all the same: its view matters more than the talk before)."""
        if self._chat is None:
            try:
                kept = await self.store.chat(self.id, CHAT_KEPT)
            except StoreUnavailable as exc:
                self.services.health.failed(exc)
                return None
            if self._chat is None:
                self._chat = deque(kept, maxlen=CHAT_KEPT)
        return [line.to_wire() for line in self._chat]

    def leave(self, member: Member) -> None:
        """``member`` leaves (or its connection ended); a player keeps the seat."""
        self._feed(Leave(member))

    async def begin(self) -> None:
        """A room just made: it starts at once if only bots play, and quick-match arms."""
        await self._ask(Begin)

    async def resume(self) -> None:
        """A room rebuilt from its journal (start-up, takeover): play on from there."""
        await self._ask(Resume)

    async def fill_sooner(self, at: float) -> None:
        """Quick-match: another player matched here and waits at most until ``at``."""
        await self._ask(lambda t: Sooner(at, t))

    @contextlib.asynccontextmanager
    async def between_moves(self) -> AsyncIterator[None]:
        """Hold the room still: nothing is in flight or proposed while inside (a close,
        a handover to another node, a stop)."""
        await self._ask(Hold)
        try:
            yield
        finally:
            self._feed(Release())

    def close(self) -> None:
        """Closed here for good: timers and tasks stop; what waited is answered."""
        self._feed(Close())
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        for task in list(self._tasks):
            task.cancel()

    async def quiet(self) -> None:
        """Wait until nothing is in flight, queued or thinking (a test, a shutdown)."""
        while not self.core.idle and not self.core.closed:
            self._idle.clear()
            await self._idle.wait()
        while busy := {t for t in self._tasks if not t.done()}:
            await asyncio.wait(busy)

    def changed(self) -> None:
        """The summary may have changed: tell whoever follows it (a cluster's directory)."""
        if self._on_changed is not None:
            self._on_changed(self)

    def push_summary(self) -> None:
        """Send every member the summary, once per event-loop turn.

        Joins and leaves come in bursts (a crowd arriving to watch). A summary
        each would cost n*n frames for n arrivals and overflow the members' send
        queues, disconnecting them; the summary is a whole snapshot, so the last
        one of a turn says everything the others would have.
        """
        self._summary.epoch += 1
        if not self._push_due:
            self._push_due = True
            asyncio.get_running_loop().call_soon(self._push_now)

    def _push_now(self) -> None:
        self._push_due = False
        if self.core.closed:  # let go or closed: what it would say is no longer anyone's news
            return
        self.changed()
        data = encode({"t": "room", **summary_of(self.core)})
        for member in self.core.members:
            member.push(data)

    # -- the core's events in, its effects out ---------------------------------------------

    async def _ask(self, make: Callable[[asyncio.Future[Any]], Any]) -> Any:
        ticket: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._feed(make(ticket))
        return await ticket

    def _feed(self, event: Any) -> None:
        self._fed_at = time.perf_counter()
        self._run(self.core.handle(event, self.clock.time()))

    def _run(self, effects: list[Effect]) -> None:
        push = False
        for effect in effects:
            if type(effect) is Frames:
                for member, data in effect.frames:
                    member.push(data)
            elif type(effect) is Answer:
                ticket: asyncio.Future[Any] = effect.ticket  # type: ignore[assignment]
                if not ticket.done():
                    ticket.set_result(effect.value)
            elif type(effect) is Append:
                self._append(effect.entry)
            elif type(effect) is PushSummary:
                push = True
            else:
                _DO[type(effect)](self, effect)
        if push:  # after the answers: a request's reply goes out before the room's news
            self.push_summary()
        if self.core.idle:
            self._idle.set()

    def _append(self, entry: JournalEntry) -> None:
        self._began = (self._fed_at, time.perf_counter())
        self._appending = entry.seq
        try:
            appending = self.store.append(entry)
        except BaseException as exc:
            self._feed(NotAppended(entry.seq, exc, isinstance(exc, AppendRefused)))
            return
        appending.add_done_callback(self._appended)

    def _appended(self, appending: asyncio.Future[None]) -> None:
        seq = self._appending
        if appending.cancelled():  # a shutdown: dropped; a rebuild will say what was kept
            self._feed(NotAppended(seq, asyncio.CancelledError(), False))
            return
        error = appending.exception()
        if error is not None:
            if not isinstance(error, AppendRefused | StoreUnavailable):
                log.error("room %s: journal append of seq %d failed", self.id, seq,
                          exc_info=error)  # fmt: skip
            self._feed(NotAppended(seq, error, isinstance(error, AppendRefused)))
            return
        metrics = self.services.metrics
        started, committing = self._began
        metrics.commit_latency.observe(time.perf_counter() - committing)
        self._feed(Appended(seq))
        metrics.actions[self.game.name] += 1
        metrics.act_latency.observe(time.perf_counter() - started)

    def _refuse(self, effect: Refuse) -> None:
        ticket: asyncio.Future[Any] = effect.ticket  # type: ignore[assignment]
        if not ticket.done():
            ticket.set_exception(effect.error)

    def _write(self, effect: Write) -> None:
        if effect.status is not None:  # for people reading the database: no answer awaited
            self._spawn(self._write_status(effect.status), "status")
            return
        self._spawn(self._write_record(effect), "write")

    async def _write_status(self, status: str) -> None:
        try:
            await self.store.set_status(self.id, status)
        except StoreUnavailable as exc:
            self.services.health.failed(exc)

    async def _write_record(self, effect: Write) -> None:
        try:
            if effect.seats is not None:
                await self.store.set_seats(self.id, list(effect.seats))
            else:
                assert effect.fill_at is not None
                await self.store.set_fill(self.id, effect.fill_at)
        except StoreUnavailable as exc:
            self._feed(Written(exc))
            return
        self._feed(Written(None))

    def _finish(self, effect: Finish) -> None:
        async def keep() -> None:
            try:
                await self.store.finish_room(
                    self.id, effect.result, effect.scores, effect.now, rated=effect.rating
                )
            except StoreUnavailable as exc:
                self._feed(ResultKept(exc))
                return
            self._feed(ResultKept(None))

        self._spawn(keep(), "finish")

    def _arm(self, effect: Arm) -> None:
        old = self._timers.pop(effect.timer, None)
        if old is not None:
            old.cancel()
        timer, at = effect.timer, effect.at
        delay = max(0.0, at - self.clock.time())
        self._timers[timer] = self.clock.call_later(delay, lambda: self._due(timer, at))

    def _due(self, timer: Timer, at: float) -> None:
        self._timers.pop(timer, None)
        self._feed(Due(timer, at))

    def _disarm(self, effect: Disarm) -> None:
        old = self._timers.pop(effect.timer, None)
        if old is not None:
            old.cancel()

    def _think(self, effect: Think) -> None:
        bot = self._mind(effect.seat, effect.level)

        async def think() -> None:
            try:
                action = await asyncio.to_thread(bot.choose, effect.view)
            except Exception:
                log.exception("room %s: bot of seat %d crashed", self.id, effect.seat)
                action = None
            self._feed(Thought(effect.seat, effect.seq, action))

        self._spawn(think(), "bot")

    def _mind(self, seat: int, level: str) -> Bot:
        bot = self._minds.get(seat)
        if bot is None:
            cls = find_bot(self.game.name, level)
            rng = random.Random(f"{self.core.record.seed}:{seat}")
            budget = float(getattr(self.services.limits, cls.think_setting))
            bot = self._minds[seat] = cls(rng=rng, budget=budget)
        return bot

    def _forget_bots(self, effect: ForgetBots) -> None:
        self._minds.clear()

    def _read_journal(self, effect: ReadJournal) -> None:
        async def read() -> None:
            health = self.services.health
            if effect.after:
                await self.clock.sleep(effect.after)
            pause = effect.after or 0.1
            while True:
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
                    # is the room's only way back, so it never ends over it.
                    log.exception("room %s: its journal could not be read", self.id)
                    await self.clock.sleep(pause)
                    pause = min(30.0, pause * 2)
                    continue
                self._feed(JournalRead(record, entries))
                return

        self._spawn(read(), "recover")

    def _wait_store(self, effect: WaitStore) -> None:
        async def back() -> None:
            await self.services.health.wait()
            self._feed(StoreBack())

        self._spawn(back(), "park")

    def _store_failed(self, effect: StoreFailed) -> None:
        self.services.health.failed(effect.error)

    def _over(self, effect: Over) -> None:
        if self._on_over is not None:
            self._on_over(self)

    def _moved(self, effect: Moved) -> None:
        if self._on_moved is not None:
            self._on_moved(self)

    def _note(self, effect: Note) -> None:
        log.log(effect.level, effect.message, extra={"room": self.id})

    def _spawn(self, work: Coroutine[Any, Any, None], what: str) -> None:
        """Run ``work`` as a task the room keeps (and cancels on :meth:`close`)."""
        if self.core.closed:
            work.close()
            return
        task = asyncio.create_task(work, name=f"{what}-{self.id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _with_chat(joined: dict[str, Any], lines: list[dict[str, Any]] | None) -> dict[str, Any]:
    """``joined`` with the room's chat so far (``chat``), when there is any to give."""
    if lines:
        joined["chat"] = lines
    return joined


_DO: dict[type, Callable[[Room, Any], None]] = {
    Refuse: Room._refuse,
    Write: Room._write,
    Finish: Room._finish,
    Arm: Room._arm,
    Disarm: Room._disarm,
    Think: Room._think,
    ForgetBots: Room._forget_bots,
    ReadJournal: Room._read_journal,
    WaitStore: Room._wait_store,
    StoreFailed: Room._store_failed,
    Over: Room._over,
    Moved: Room._moved,
    Note: Room._note,
}
"""Each effect to the method that carries it out (frames, answers and appends, the
effects of every move, are taken first in :meth:`Room._run`)."""
