"""A room's core: every decision a room makes, as one state machine without I/O.

The core holds the room: its game as the journal holds it, its seats (the one
copy), its members, who is away and since when, the quick-match fill, its bots'
turns, its lifecycle (:mod:`.lifecycle`), and the one change in flight. The
shell (:mod:`.shell`) feeds it typed events (:mod:`.events`: an act, a join, a
timer falling due, the store's answer) with the time, and carries out the
effects it returns (frames to send, an entry to append, a timer to set). It
decides nothing itself; this module has no asyncio, no store, no clock, and is
tested without an event loop.

**One change at a time.** A change is an entry for the journal (a seat's
action, the start, a clock step, a pause, a stand-in) or a write to the room's
record (its seats, its quick-match time): while one is in flight (*busy*),
every event that needs the room's state waits in a queue, in order, and runs
when the change is answered. That queue is the room's only lock; the shell
takes none. What needs no state (a member leaving, the store's answers) is
handled at once.

**Nothing ahead of the journal.** An entry steps the engine first (the step is
what says the move is legal), then waits for the journal: until the journal
confirms it, it is *pending*, and readers (the listing, the summary, a
newcomer's view) are shown the state taken at the last commit. If the journal
refuses it or cannot say, the core drops it and the room is suspended until it
is rebuilt from what the journal really holds.

**What plays by itself.** The game's clock (a timer at its next deadline
proposes ``_tick``), the COMP seats and stand-ins (the core asks the shell to
let a bot think about the committed view, then proposes its move), the
players who come and go (everyone away pauses a clocked game; the seat to move
away ``standin_after`` seconds gets a COMP stand-in, given back when its player
returns), and quick-match (the seats nobody came for go to bots at
``fill_at``). Each is a timer the shell keeps, and a decision here.
"""

from __future__ import annotations

import collections
import contextlib
import logging
from bisect import bisect_left, insort
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

import msgpack
from tilehall.protocol import ErrorCode, GameCode, ProtocolError, encode
from tilehall.protocol.patch import Patch, diff, shorten_events
from tilehall.server.games.base import (
    READERS,
    RESUME,
    START,
    TICK,
    Changed,
    Event,
    Game,
    GameError,
    Only,
    Pause,
    SortedChange,
    Status,
    away,
    stand_back,
    stand_in,
    step,
)
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
from tilehall.server.room.lifecycle import Change, Phase, moved
from tilehall.server.room.member import Member
from tilehall.server.room.outcome import rated, score_records
from tilehall.server.room.seating import choose_seat, seat_of
from tilehall.server.store.errors import StoreUnavailable
from tilehall.server.store.health import MIN_RETRY_AFTER
from tilehall.server.store.records import JournalEntry, RoomRecord, SeatRecord

__all__ = ["PRIVATE", "REBUILD_BACKOFF", "RECENT", "Health", "RoomCore", "timed", "visible"]

PRIVATE = "_to"
"""The event key that makes an event private to one seat (see server.games.base)."""

RECENT = 256
"""Updates kept in memory so a reconnecting client can catch up without a snapshot."""

BOT_FAILURES = 3
"""A COMP with no acceptable move this many times in a row stops until the next change."""

REBUILD_BACKOFF = (0.1, 30.0)
"""First and longest pause between two attempts to rebuild a suspended room whose journal
was read but could not be replayed (a defect: it is logged each time)."""

View = dict[str, Any]


class Health(Protocol):
    """What the core reads of the store's health: whether it answers, and when to retry.

    :class:`~tilehall.server.store.health.StoreHealth` is one; ``up`` is read on
    every move.
    """

    @property
    def up(self) -> bool: ...

    @property
    def retry_after(self) -> float: ...


class Pending(NamedTuple):
    """A change the engine made and the journal does not hold yet."""

    entry: JournalEntry
    events: list[Event]
    changes: list[Changed] | None
    """The view paths the step changed (:meth:`Game.take_changes`); None: not tracked."""


class _Step(NamedTuple):
    """The change in flight (see the module): what it is, and who waits on its answer."""

    kind: str
    """``append``, ``seats`` (a join's seat), ``fill`` (bots take the open seats),
    ``sooner`` (quick-match's time), ``hold`` or ``finish``."""
    origin: Member | None = None
    """``append``: the acting member (its copy of the update carries ``re``)."""
    re: int | None = None
    ticket: Any = None
    """Who waits for this change's answer (an act, a join, a room's start): the shell's."""
    then: Any = None
    """What to do once it is answered: a join's entry (:class:`Join`), the bot that moved
    (its seat), the presence entry's ``do``."""


class _Check(NamedTuple):
    """Presence changed: look at what the game needs now, once nothing is in flight."""

    at: float | None


_NOW_NOT_BUSY = (Appended, NotAppended, Written, ResultKept, Release, Close, Leave, StoreBack)
"""Events handled at once even while a change is in flight: its answers, and what needs
no state of the game."""


class RoomCore:
    """One room, as a state machine (see the module).

    Args:
        record: the room as the store keeps it (id, game, options, seed, seats).
        game: its engine class.
        health: the store's health, read before each change (see :class:`Health`).
        bot_delay: seconds a COMP waits before it thinks (``Limits.bot_delay``).
        journal: the room's journal, to rebuild the game from (recovery, takeover);
            None for a room just made.
    """

    def __init__(
        self,
        record: RoomRecord,
        game: type[Game],
        *,
        health: Health,
        bot_delay: float = 0.0,
        journal: Iterable[JournalEntry] | None = None,
    ) -> None:
        self.record = record
        """The room as made (its seats: :attr:`seats`, the one copy that changes)."""
        self.id = record.id
        self.game = game
        self.seats: tuple[SeatRecord, ...] = record.seats
        self.fill_at = record.fill_at
        """Quick-match: when the seats still open go to bots (None: not a quick-match room)."""
        self.phase = Phase.WAITING
        self.members: dict[Member, int | None] = {}
        self.compact: set[Member] = set()
        """Members that get patches rather than whole views."""
        self._health = health
        self._bot_delay = bot_delay
        self._bot_seats = self._bots_of(self.seats)
        # the change in flight, and what waits for it
        self._busy: _Step | None = None
        self._queue: collections.deque[Any] = collections.deque()
        self._check_queued = False
        # the game, and the committed state every reader is shown
        self._engine: Game | None = None
        self._pending: Pending | None = None
        self._seq = 0
        self._now = 0.0
        self._status: Status | None = None
        self._paused: Pause | None = None
        self._to_move: int | None = None
        self._deadline: float | None = None
        self._stood_in: frozenset[int] = frozenset()
        self.recent: collections.deque[tuple[int, bytes]] = collections.deque(maxlen=RECENT)
        """The last updates' events, msgpack-packed: bytes are invisible to the cycle
        collector, where 256 moves of event dicts per room were most of what it walked."""
        self._bases: dict[int | None, View] = {}
        self._held: dict[int | None, dict[str, int]] = {}
        self._template_fields = template_fields(game.derived_events)
        self._bases_seq = -1
        """The views of seq :attr:`_bases_seq` by seat, as compact members hold them
        (with their ``now``): the next update is a patch from these. For a game that
        tracks its changes, only the places of their keys (:attr:`_held`, :func:`places_of`)
        after the first update: its patches are built from the engine's record, not from views."""
        # presence
        self._away_since: dict[int, float] = {}
        """Human seats with nobody connected, since when."""
        self._turn_since = 0.0
        self._last_to_move: int | None = None
        self._standin: tuple[int, int] | None = None
        """The stand-in timer's (seat, seq), while armed."""
        # timers, bots, the store
        self._armed: dict[Timer, float] = {}
        self._thinking = False
        """A COMP is thinking, or waits to (:data:`Timer.BOT`)."""
        self._bot_failures = 0
        self._parked = False
        """The store was down before anything changed: waiting for it (:class:`WaitStore`)."""
        self._result_kept = record.status == Status.OVER.value
        self._rebuild_pause = REBUILD_BACKOFF[0]
        if journal is not None:
            self._rebuild(journal)
            self.phase = moved(self.phase, Change.REBUILT, self._phase_of_game())

    # -- what the room is ------------------------------------------------------------------

    @property
    def seq(self) -> int:
        """The journal's last seq (0: play has not begun)."""
        return self._seq

    @property
    def now(self) -> float:
        """The time of the journal's last entry (entries never go back in time)."""
        return self._now

    @property
    def started(self) -> bool:
        """Play has begun: the journal holds its start."""
        return self._status is not None

    @property
    def status(self) -> Status:
        """The game's status as the journal holds it (``WAITING`` before the start)."""
        return self._status or Status.WAITING

    @property
    def paused(self) -> Pause | None:
        return self._paused

    @property
    def to_move(self) -> int | None:
        return self._to_move

    @property
    def deadline(self) -> float | None:
        """When the game's clock next falls due (None: no clock runs)."""
        return self._deadline

    @property
    def stood_in(self) -> frozenset[int]:
        """Seats a COMP stand-in plays."""
        return self._stood_in

    @property
    def suspended(self) -> bool:
        return self.phase is Phase.SUSPENDED

    @property
    def closed(self) -> bool:
        return self.phase is Phase.CLOSED

    @property
    def pending(self) -> bool:
        """An entry is stepped and not yet confirmed by the journal."""
        return self._pending is not None

    @property
    def idle(self) -> bool:
        """Nothing in flight, nothing queued, no COMP thinking: the room waits for someone."""
        return self._busy is None and not self._queue and not self._thinking

    @property
    def engine(self) -> Game | None:
        """The engine: equal to the committed game while nothing is pending (tests, tools).

        None before the start, and while suspended (only a rebuild is trusted).
        """
        return None if self.suspended else self._engine

    @property
    def private(self) -> bool:
        return self.record.private_code is not None

    @property
    def matching(self) -> bool:
        """A quick-match room still waiting for players (``match`` may seat one here)."""
        return (
            self.fill_at is not None
            and self._status is None
            and self.phase is Phase.WAITING
            and not self.private
        )

    def bot_seats(self) -> frozenset[int]:
        """Seats COMP bots hold: fixed once taken (people take only the other seats)."""
        return self._bot_seats

    def playing_bots(self) -> frozenset[int]:
        """Seats a COMP plays now: the room's bots, and stand-ins for away players."""
        return self._bot_seats | self._stood_in

    def humans(self) -> list[int]:
        return [i for i in range(len(self.seats)) if i not in self._bot_seats]

    def connected(self, seat: int) -> bool:
        return seat in self.members.values()

    def seat_of(self, player: int) -> int | None:
        return seat_of(self.seats, player)

    def unattended(self) -> bool:
        """Only bots play and nobody is in the room: no one to show a move to.

        Such a room waits, its game as it stands, until someone comes to watch:
        its bots stop and so does its clock. A bot-only game that never ends (a
        Match-It COMP keeps clearing sheets) would otherwise spend the server's
        CPU for nobody, forever; a clock left running would journal a time-out
        every turn. A deadline that passed meanwhile falls due as soon as someone comes.
        """
        return not self.members and len(self._bot_seats) == len(self.seats)

    def paused_why(self) -> str | None:
        """Why play stands still: ``away``/``player`` (a pause), or ``unwatched`` (bots only,
        waiting for a spectator); None while it goes on."""
        if self._status is not Status.PLAYING:
            return None
        if self._paused is not None:
            return self._paused.value
        return "unwatched" if self.unattended() else None

    def view(self, seat: int | None, now: float) -> View:
        """What ``seat`` (None: a spectator) sees as the journal holds it, also before play.

        A view with a clock carries the server's ``now`` (:func:`timed`).

        Raises:
            RuntimeError: asked while an entry is pending or the room is suspended
                (a defect of the caller: those wait in the queue).
        """
        if self._status is None:
            return self._waiting_view(seat, now)
        return timed(self._committed_view(seat), now)

    def missed(self, seat: int | None, since: int) -> list[dict[str, Any]] | None:
        """Updates after ``since`` for ``seat``; None if they are no longer kept, or if
        ``since`` is ahead of the room (the server lost moves it had shown: a restored
        backup): either way the view alone is the truth."""
        if since > self._seq:
            return None
        if since == self._seq:
            return []
        if not self.recent or self.recent[0][0] > since + 1:
            return None
        return [
            {"seq": s, "events": visible(msgpack.unpackb(packed, raw=False), seat)}
            for s, packed in self.recent
            if s > since
        ]

    # -- the one way in -----------------------------------------------------------------------

    def handle(self, event: Any, now: float) -> list[Effect]:
        """Take one event at wall time ``now``; return what the shell must do.

        An event that needs the room's state while a change is in flight waits
        in the queue, and runs (in order) once the change is answered.
        """
        out: list[Effect] = []
        if self._busy is not None and not isinstance(event, _NOW_NOT_BUSY):
            self._queue.append(event)
            return out
        self._take_event(event, now, out)
        queue = self._queue
        while self._busy is None and queue:
            self._take_event(queue.popleft(), now, out)
        return out

    def _take_event(self, event: Any, now: float, out: list[Effect]) -> None:
        handler = _HANDLERS.get(type(event))
        if handler is None:
            raise TypeError(f"a room takes no {type(event).__name__}")
        if self.phase is Phase.CLOSED and type(event) not in (Leave, Hold, Release, Close):
            self._closed_answer(event, out)
            return
        handler(self, event, now, out)

    # -- players -------------------------------------------------------------------------------

    def _on_act(self, ev: Act, now: float, out: list[Effect]) -> None:
        try:
            seat = self._actor(ev)
            # Only what the game's schema declares, in canonical form, is ever journaled:
            # extra keys (64 KB of junk, say) are refused here, before the engine.
            action = self.game.normalize(ev.action)
            if self.suspended:
                raise self._unavailable(f"room {self.id} is being restored from its journal")
            if self._status is None:
                raise ProtocolError(ErrorCode.NOT_STARTED, f"room {self.id} waits for players")
            if ev.seq is not None and ev.seq != self._seq:
                raise ProtocolError(
                    ErrorCode.STALE, f"room {self.id} is at seq {self._seq}, not {ev.seq}"
                )
            self._propose(seat, action, now, out, _Step("append", ev.member, ev.re, ev.ticket))
        except (ProtocolError, GameError) as exc:
            out.append(Refuse(ev.ticket, exc))

    def _actor(self, ev: Act) -> int:
        """The seat ``ev``'s member plays; the refusals of who may not act, in their order."""
        seat = self.members.get(ev.member, -1)
        if seat == -1:
            raise ProtocolError(ErrorCode.NOT_IN_ROOM, f"you are not in room {self.id}")
        if seat is None:
            raise ProtocolError(ErrorCode.SPECTATOR, "spectators cannot act")
        do = ev.action.get("do") if isinstance(ev.action, dict) else None
        if isinstance(do, str) and do.startswith("_"):
            raise ProtocolError(ErrorCode.OUT_OF_RANGE, f"action {do!r} is reserved")
        return seat

    def _on_join(self, ev: Join, now: float, out: list[Effect]) -> None:
        try:
            if self.suspended:
                raise self._unavailable(f"room {self.id} is being restored from its journal")
            seat = choose_seat(self.id, self.seats, ev.player, ev.name, ev.want)
        except ProtocolError as exc:
            out.append(Refuse(ev.ticket, exc))
            return
        if self.seats[seat].player == ev.player:
            self._seated(ev, seat, now, out)
            return
        seats = list(self.seats)
        seats[seat] = SeatRecord(name=ev.name, player=ev.player)
        self._busy = _Step("seats", ticket=ev.ticket, then=(ev, seat, tuple(seats)))
        out.append(Write(seats=tuple(seats)))

    def _seated(self, ev: Join, seat: int, now: float, out: list[Effect]) -> None:
        """``ev``'s player holds ``seat``: start if every seat is taken now, then enter."""
        if not self._start(now, out, _Step("append", ticket=ev.ticket, then=(ev, seat))):
            self._enter(ev.member, seat, ev.compact, ev.since, ev.ticket, now, out)

    def _on_watch(self, ev: Watch, now: float, out: list[Effect]) -> None:
        if self.suspended:
            out.append(Refuse(ev.ticket, self._unavailable(f"room {self.id} is being restored")))
            return
        # Watching a room where you hold a seat is being in your seat: a spectator's view
        # would hide your own tiles and show your seat as away.
        player = ev.member.player
        seat = self.seat_of(player.id) if player is not None else None
        self._enter(ev.member, seat, ev.compact, ev.since, ev.ticket, now, out)

    def _enter(
        self,
        member: Member,
        seat: int | None,
        compact: bool,
        since: int | None,
        ticket: object,
        now: float,
        out: list[Effect],
    ) -> None:
        """Make ``member`` one of the room's and answer with the committed view and seq."""
        waiting = self.unattended()
        self.members[member] = seat
        if compact:
            self.compact.add(member)
        else:
            self.compact.discard(member)
        member.rooms[self.id] = seat
        out.append(PushSummary())
        if waiting:  # a room of bots waited for its first spectator
            self._arm_tick(out)
            self._wake_bots(now, out)
        if seat is not None:
            self._away_since.pop(seat, None)
            self._presence_changed(None)
            if Timer.FILL not in self._armed:  # bots were due while nobody was here
                self._arm_fill(now, out)
        reply: dict[str, Any] = {
            "t": "joined",
            "room": self.id,
            "seat": seat,
            "seq": self._seq,
            "view": self._base_view(seat, now) if compact else self.view(seat, now),
        }
        if compact:  # how to read the events that updates send by name
            reply["derived"] = {
                name: {f: None if path is None else list(path) for f, path in fields.items()}
                for name, fields in self.game.derived_events.items()
            }
        if since is not None:
            missed = self.missed(seat, since)
            if missed is not None:
                reply["missed"] = missed
        out.append(Answer(ticket, reply))

    def _on_leave(self, ev: Leave, now: float, out: list[Effect]) -> None:
        member = ev.member
        self.compact.discard(member)
        if member not in self.members:
            return
        seat = self.members.pop(member)
        member.rooms.pop(self.id, None)
        out.append(PushSummary())
        if self.unattended():
            self._disarm(Timer.TICK, out)
        if seat is not None and not self.connected(seat):
            self._away_since[seat] = now
            self._presence_changed(None)

    def _on_sooner(self, ev: Sooner, now: float, out: list[Effect]) -> None:
        if self.fill_at is not None and ev.at < self.fill_at:
            self._busy = _Step("sooner", ticket=ev.ticket, then=ev.at)
            out.append(Write(fill_at=ev.at))
            return
        out.append(Answer(ev.ticket, None))

    # -- the room's own beginnings -----------------------------------------------------------

    def _on_begin(self, ev: Begin, now: float, out: list[Effect]) -> None:
        if not self._start(now, out, _Step("append", ticket=ev.ticket)):
            out.append(Answer(ev.ticket, None))
        self._arm_fill(now, out)

    def _on_resume(self, ev: Resume, now: float, out: list[Effect]) -> None:
        """Rebuilt at start-up: re-arm clocks and bots, and keep a result not yet kept.

        Nobody is connected yet: a game whose clock stops for absent players is
        paused as of its last journal entry, so the time the server was down
        does not count against them.
        """
        if self._status is Status.OVER:
            if not self._result_kept:  # it ended just before a crash
                self._finish(now, out)
        elif self._status is not None:
            self._moved(now)
            for seat in self.humans():
                self._away_since.setdefault(seat, now)
            self._arm_tick(out)
            self._wake_bots(now, out)
            self._presence_changed(self._now)
        if not self._start(now, out, _Step("append", ticket=ev.ticket)):
            out.append(Answer(ev.ticket, None))
        self._arm_fill(now, out)

    def _start(self, now: float, out: list[Effect], step: _Step) -> bool:
        """Propose the start if every seat is taken (people's, or bots'); whether it was.

        A store known to be down parks the room instead (it starts when the store is back).
        """
        if self._status is not None or any(s.player is None and s.bot is None for s in self.seats):
            return False
        if self._busy is not None or self.phase is not Phase.WAITING:
            return False
        if not self._health.up:
            self._park(out)
            return False
        self._propose(None, START, now, out, step)
        return True

    # -- the one change in flight ------------------------------------------------------------

    def _propose(
        self, seat: int | None, action: dict[str, Any], now: float, out: list[Effect], what: _Step
    ) -> None:
        """Step the engine and ask for the entry's append: the change in flight.

        Raises:
            ProtocolError: ``unavailable``: the store is known to be down.
            GameError: the engine refused; nothing changed.
        """
        if not self._health.up:
            raise self._unavailable("the game's journal cannot be written now; nothing was done")
        engine = self._engine
        if engine is not None and engine.status is Status.OVER and action != TICK:
            raise GameError(GameCode.GAME_OVER, "the game is over")
        seq, now = self._seq + 1, max(now, self._now)
        entry = JournalEntry(room=self.id, seq=seq, seat=seat, action=action, now=now)
        self._engine, events = step(self.game, self, engine, entry)
        # A new engine (the start) changed everything: whole views, and its record goes.
        changes = self._engine.take_changes()
        self._pending = Pending(entry, events, changes if engine is not None else None)
        self._busy = what
        out.append(Append(entry))

    def _on_appended(self, ev: Appended, now: float, out: list[Effect]) -> None:
        pending, what = self._pending, self._busy
        if pending is None or what is None or pending.entry.seq != ev.seq:
            raise RuntimeError(f"room {self.id}: seq {ev.seq} is not pending")
        self._pending = self._busy = None
        entry = pending.entry
        self._seq, self._now = entry.seq, entry.now
        self._take()
        self.recent.append((self._seq, msgpack.packb(pending.events, use_bin_type=True)))
        out.append(Frames(self._frames(pending.events, now, what.origin, what.re, pending.changes)))
        if self.phase is Phase.WAITING and self._status is not None:
            self.phase = moved(self.phase, Change.STARTED, Phase.PLAYING)
            out.append(Write(status=Status.PLAYING.value))
        if self.phase is Phase.PLAYING and self._status is Status.OVER:
            self.phase = moved(self.phase, Change.ENDED, Phase.OVER)
        if what.then is not None and isinstance(what.then, int):  # a bot moved
            self._bot_failures = 0
        elif what.then in ("_pause", "_resume"):
            out.append(PushSummary())
        # The act that ended the game is answered once its result is kept, so that its
        # player's next request (scores, history) sees it.
        ender = what if self._status is Status.OVER and what.origin is not None else None
        if what.ticket is not None and ender is None:
            self._answer_step(what, now, out)
        self._after_change(entry.now, now, out, ender)

    def _answer_step(self, what: _Step, now: float, out: list[Effect]) -> None:
        """The change ``what`` waited on is done: a join enters, an act or start is answered."""
        if isinstance(what.then, tuple):
            join, seat = what.then[0], what.then[1]
            self._enter(join.member, seat, join.compact, join.since, what.ticket, now, out)
        else:
            out.append(Answer(what.ticket, None))

    def _on_not_appended(self, ev: NotAppended, now: float, out: list[Effect]) -> None:
        """The journal did not confirm the entry: drop it, suspend, and say so."""
        pending, what = self._pending, self._busy
        if pending is None or what is None or pending.entry.seq != ev.seq:
            raise RuntimeError(f"room {self.id}: seq {ev.seq} is not pending")
        self._pending = self._busy = None
        error = ev.error
        if ev.refused:  # definitely not kept: its seq was taken, or the room moved
            out.append(Note(logging.WARNING, f"room {self.id}: journal refused seq {ev.seq}"))
            message = "the room changed elsewhere; it is being restored"
        else:  # kept or not, the journal will say
            if isinstance(error, StoreUnavailable):
                out.append(StoreFailed(error))
            out.append(Note(logging.WARNING, f"room {self.id}: seq {ev.seq} not confirmed"))
            message = (
                "the move could not be confirmed as saved; the room is being restored from "
                "its journal and will tell you what it holds"
            )
        self._suspend(out)
        if what.ticket is not None:
            out.append(Refuse(what.ticket, self._unavailable(message)))

    def _suspend(self, out: list[Effect]) -> None:
        """Drop a state the journal may not hold; refuse everything until rebuilt."""
        self._engine = None  # it holds the dropped move: only a rebuild is trusted
        if self.phase is Phase.SUSPENDED:
            return
        self.phase = moved(self.phase, Change.NOT_KEPT, Phase.SUSPENDED)
        out.append(ForgetBots())  # a bot's memory of the dropped move must go too
        self._thinking = False
        self._disarm(Timer.TICK, out)
        self._disarm(Timer.BOT, out)
        out.append(PushSummary())
        message = f"room {self.id} suspended at seq {self._seq} until its journal can be read"
        out.append(Note(logging.WARNING, message))
        out.append(ReadJournal(0.0))

    def _on_journal_read(self, ev: JournalRead, now: float, out: list[Effect]) -> None:
        """Once the store answers: rebuild from the journal, tell the members, play on."""
        if self.phase is not Phase.SUSPENDED:
            return
        if ev.record is None or ev.record.node != self.record.node:
            out.append(Note(logging.WARNING, f"room {self.id} is no longer this node's"))
            out.append(Moved())
            return
        before = self._seq
        try:
            self._rebuild(ev.entries)
        except Exception as exc:
            out.append(Note(logging.ERROR, f"room {self.id}: its journal could not be rebuilt: "
                            f"{exc!r}"))  # fmt: skip
            out.append(ReadJournal(self._rebuild_pause))
            self._rebuild_pause = min(REBUILD_BACKOFF[1], self._rebuild_pause * 2)
            return
        self.phase = moved(self.phase, Change.REBUILT, self._phase_of_game())
        self._rebuild_pause = REBUILD_BACKOFF[0]
        out.append(Note(logging.WARNING, f"room {self.id} restored at seq {self._seq} "
                        f"(was {before})"))  # fmt: skip
        if self._seq > before:  # the append in doubt had been committed after all
            events = [
                ev for seq, packed in self.recent if seq > before
                for ev in msgpack.unpackb(packed, raw=False)
            ]  # fmt: skip
            out.append(Frames(self._frames(events, now, None, None, None)))
        out.append(PushSummary())
        if self._engine is not None:
            last = ev.entries[-1].now if ev.entries else now
            self._after_change(last, now, out, None)
        else:
            self._start(now, out, _Step("append"))

    def _on_written(self, ev: Written, now: float, out: list[Effect]) -> None:
        what = self._busy
        if what is None or what.kind not in ("seats", "fill", "sooner"):
            raise RuntimeError(f"room {self.id}: no write in flight")
        self._busy = None
        if ev.error is not None:
            out.append(StoreFailed(ev.error))
            if what.kind == "fill":  # tried again once the store may answer
                self._arm(Timer.FILL, now + max(self._health.retry_after, 0.1), out)
            else:
                out.append(Refuse(what.ticket, ev.error))
            return
        if what.kind == "seats":
            join, seat, seats = what.then
            self._reseat(seats)
            self._seated(join, seat, now, out)
        elif what.kind == "fill":
            self._reseat(what.then)
            self.fill_at = None
            out.append(Note(logging.INFO, f"room {self.id}: bots took the open seats"))
            out.append(PushSummary())
            self._start(now, out, _Step("append"))
        else:
            self.fill_at = what.then
            self._arm_fill(now, out)
            out.append(PushSummary())
            out.append(Answer(what.ticket, None))

    def _reseat(self, seats: tuple[SeatRecord, ...]) -> None:
        self.seats = seats
        self._bot_seats = self._bots_of(seats)

    def _on_hold(self, ev: Hold, now: float, out: list[Effect]) -> None:
        if self.phase is not Phase.CLOSED:
            self._busy = _Step("hold")
        out.append(Answer(ev.ticket, None))

    def _on_release(self, ev: Release, now: float, out: list[Effect]) -> None:
        if self._busy is not None and self._busy.kind == "hold":
            self._busy = None

    def _on_close(self, ev: Close, now: float, out: list[Effect]) -> None:
        if self.phase is Phase.CLOSED:
            return
        self.phase = moved(self.phase, Change.CLOSED, Phase.CLOSED)
        for timer in list(self._armed):
            self._disarm(timer, out)
        self._thinking = False
        what, self._busy, self._pending = self._busy, None, None
        if what is not None and what.ticket is not None:  # its answer will not be taken now
            self._closed_answer(Hold(what.ticket) if what.kind == "hold" else Begin(what.ticket),
                                out)  # fmt: skip
        queued, self._queue = self._queue, collections.deque()
        for waiting in queued:
            self._closed_answer(waiting, out)

    def _closed_answer(self, event: Any, out: list[Effect]) -> None:
        """An event that came, or waited, after the room closed: what it asked is not done.

        A join or watch is told the room is gone; an act gets no answer beyond the
        ``room_closed`` its members were sent (as a move the room never took).
        """
        ticket = getattr(event, "ticket", None)
        if ticket is None:
            return
        if isinstance(event, Join | Watch):
            gone = ProtocolError(ErrorCode.UNKNOWN_ROOM, f"there is no room {self.id!r}")
            out.append(Refuse(ticket, gone))
        else:
            out.append(Answer(ticket, None))

    # -- after each change: the clock, the bots, the players' presence, the end ----------

    def _after_change(self, at: float, now: float, out: list[Effect], ender: _Step | None) -> None:
        """After a commit: finish a game over, or re-arm the clock and bots, give a seat back.

        ``at``: the entry's time; ``ender``: the act that ended the game, answered once
        the result is kept (so its player's next request sees it in the tables).
        """
        if self._status is Status.OVER:
            self._disarm(Timer.TICK, out)
            self._disarm(Timer.STANDIN, out)
            self._disarm(Timer.BOT, out)
            self._finish(at, out, ender)
            return
        self._moved(at)
        self._arm_tick(out)
        self._wake_bots(now, out)
        if self._stood_in or self.record.options.get("standin_after"):
            proposal = self._presence(at, now, membership=False, out=out)
            if proposal is not None:  # a player back from a stand-in's turn: journaled now
                self._propose_quietly(proposal, now, out, _Step("append"))

    def _finish(self, now: float, out: list[Effect], ender: _Step | None = None) -> None:
        engine = self._engine
        assert engine is not None
        name = self.game.name
        record = self.record
        scores = score_records(
            name, self.id, self.seats, engine, now, daily=record.daily, practice=record.practice
        )
        rating = rated(name, self.id, self.seats, engine)
        self._busy = _Step("finish", ticket=ender.ticket if ender else None)
        out.append(Finish(engine.result() or {}, scores, now, rating))

    def _on_result_kept(self, ev: ResultKept, now: float, out: list[Effect]) -> None:
        what = self._busy
        if what is None or what.kind != "finish":
            raise RuntimeError(f"room {self.id}: no result in flight")
        self._busy = None
        if what.ticket is not None:
            out.append(Answer(what.ticket, None))
        if ev.error is not None:  # kept once the store answers: the game is over meanwhile
            out.append(StoreFailed(ev.error))
            self._park(out)
            return
        self._result_kept = True
        out.append(PushSummary())
        out.append(Over())

    def _moved(self, now: float) -> None:
        """A move was committed: the stand-in's wait starts again with a new seat to move."""
        if self._to_move != self._last_to_move:
            self._last_to_move, self._turn_since = self._to_move, now

    def _presence_changed(self, at: float | None) -> None:
        """A player came or went: look (once nothing is in flight) at what the game needs."""
        if self._status is None or self.phase is not Phase.PLAYING or not self.humans():
            return
        if self._check_queued:
            return
        self._check_queued = True
        self._queue.append(_Check(at))

    def _on_check(self, ev: _Check, now: float, out: list[Effect]) -> None:
        self._check_queued = False
        at = now if ev.at is None else ev.at
        proposal = self._presence(at, now, membership=True, out=out)
        if proposal is not None:
            self._propose_quietly(proposal, now, out, _Step("append", then=proposal[1]["do"]))

    def _presence(
        self, at: float, now: float, *, membership: bool, out: list[Effect]
    ) -> tuple[int | None, dict[str, Any], float] | None:
        """The entry the players' presence asks of the game, if any; else arm a stand-in.

        ``membership``: asked because someone came or went (or the server restarted):
        only then may the game be paused or resumed. After a move only the turn
        matters (a seat to give back, a stand-in to arm): a game that has just started
        is not paused because its last player is still joining.

        - Every human away, in a game whose clock stops (Match-It, LinkSame, Mathable's
          turn clock) and runs now: pause it (an untimed game has nothing to stop);
          someone back: resume it (a pause the player asked for stays until they resume).
        - A seat a stand-in plays whose player is back: give it back, at the first turn
          that is not theirs (the stand-in finishes the turn it began).
        - The seat to move away for ``standin_after`` seconds: a stand-in (:meth:`_arm_standin`).
        """
        engine = self._engine
        if engine is None or self.phase is not Phase.PLAYING:
            return None
        if engine.status is not Status.PLAYING:
            return None
        humans = self.humans()
        if not humans:
            return None
        everyone_away = all(not self.connected(s) for s in humans)
        stops = engine.pausable and engine.clock_runs
        if membership and stops and everyone_away and engine.paused is None:
            return None, away(), at
        if membership and engine.pausable and not everyone_away and engine.paused is Pause.AWAY:
            return None, RESUME, max(at, now)
        for seat in sorted(engine.stood_in_seats):
            if self.connected(seat) and engine.to_move != seat:
                return None, stand_back(seat), at
        self._arm_standin(now, out)
        return None

    def _propose_quietly(
        self,
        proposal: tuple[int | None, dict[str, Any], float],
        now: float,
        out: list[Effect],
        what: _Step,
    ) -> None:
        """The room's own entry: a refusal is a defect (logged), a store down parks the room."""
        seat, action, at = proposal
        try:
            self._propose(seat, action, at, out, what)
        except ProtocolError:
            self._park(out)
        except GameError as exc:
            out.append(Note(logging.ERROR, f"room {self.id}: its own {action!r} refused: {exc}"))

    def _arm_standin(self, now: float, out: list[Effect]) -> None:
        """The seat to move is away: a stand-in plays it ``standin_after`` seconds after
        both its turn began and its player went (a room option; 0: never)."""
        after = self.record.options.get("standin_after", 0)
        seat = self._to_move
        if (
            self._status is None
            or not after
            or self._paused is not None
            or seat is None
            or seat in self.playing_bots()
            or self.connected(seat)
        ):
            self._standin = None
            self._disarm(Timer.STANDIN, out)
            return
        since = max(self._turn_since, self._away_since.get(seat, self._turn_since))
        self._standin = (seat, self._seq)
        self._arm(Timer.STANDIN, since + after, out)

    def _on_due(self, ev: Due, now: float, out: list[Effect]) -> None:
        if self._armed.get(ev.timer) == ev.at:
            del self._armed[ev.timer]
        if self.phase is Phase.SUSPENDED:
            return
        if ev.timer is Timer.TICK:
            self._tick(ev.at, now, out)
        elif ev.timer is Timer.STANDIN:
            self._standin_due(now, out)
        elif ev.timer is Timer.FILL:
            self._fill(now, out)
        else:
            self._bot_due(now, out)

    def _tick(self, deadline: float, now: float, out: list[Effect]) -> None:
        engine = self._engine
        if engine is None or engine.status is Status.OVER:
            return
        if engine.next_deadline() != deadline:
            return  # an action moved the deadline meanwhile; it re-armed the timer
        self._propose_quietly((None, TICK, max(now, deadline)), now, out, _Step("append"))

    def _standin_due(self, now: float, out: list[Effect]) -> None:
        armed, self._standin = self._standin, None
        engine = self._engine
        if armed is None or engine is None:
            return
        seat, seq = armed
        if (
            self._seq != seq
            or engine.to_move != seat
            or engine.paused is not None
            or self.connected(seat)
            or seat in self.playing_bots()
        ):
            return
        out.append(Note(logging.INFO, f"room {self.id}: a stand-in plays seat {seat}, its "
                        "player away"))  # fmt: skip
        self._propose_quietly((None, stand_in(seat), now), now, out, _Step("append"))

    def _arm_tick(self, out: list[Effect]) -> None:
        """The clock's timer at the committed deadline (none while nobody watches)."""
        deadline = self._deadline
        if (
            self._status is None
            or self.phase not in (Phase.PLAYING, Phase.OVER)
            or self.unattended()
            or deadline is None
        ):
            self._disarm(Timer.TICK, out)
            return
        self._arm(Timer.TICK, deadline, out)

    def _arm(self, timer: Timer, at: float, out: list[Effect]) -> None:
        """Ask for ``timer`` at ``at``, unless it is set for then already."""
        if self._armed.get(timer) != at:
            self._armed[timer] = at
            out.append(Arm(timer, at))

    def _disarm(self, timer: Timer, out: list[Effect]) -> None:
        if self._armed.pop(timer, None) is not None:
            out.append(Disarm(timer))

    # -- quick-match ---------------------------------------------------------------------------

    def _arm_fill(self, now: float, out: list[Effect]) -> None:
        """Give the open seats to bots at ``fill_at`` (at once if that has passed)."""
        if self.matching and self.fill_at is not None:
            self._arm(Timer.FILL, self.fill_at, out)

    def _fill(self, now: float, out: list[Effect]) -> None:
        """Seat a COMP in every seat still open, persisted first, then propose the start."""
        if not self.matching:
            return
        if not any(self.connected(i) for i, s in enumerate(self.seats) if s.player is not None):
            return  # nobody is here to play them: the first player back brings the bots
        level = self.record.fill_level or "normal"
        seats = tuple(
            SeatRecord(name="COMP", bot=level)
            if s.player is None and s.bot is None and s.name is None
            else s
            for s in self.seats
        )
        self._busy = _Step("fill", then=seats)
        out.append(Write(seats=seats))

    # -- COMP players -------------------------------------------------------------------------

    def _wake_bots(self, now: float, out: list[Effect], *, delay: bool = True) -> None:
        """A COMP to move in the committed state (and someone watching): let it think
        (after ``bot_delay``, unless ``delay`` is False: it has passed)."""
        if not self._bot_seats and not self._stood_in:
            return  # people only: nothing for a bot to play
        if self._thinking or self.phase is not Phase.PLAYING:
            return
        if self._status is not Status.PLAYING or self.unattended() or self._paused is not None:
            return
        if self._to_move not in self.playing_bots():
            return
        if not self._health.up:
            self._park(out)
            return
        self._thinking = True
        if delay and self._bot_delay:
            self._arm(Timer.BOT, now + self._bot_delay, out)
        else:
            self._think(out)

    def _bot_due(self, now: float, out: list[Effect]) -> None:
        self._thinking = False
        self._wake_bots(now, out, delay=False)

    def _think(self, out: list[Effect]) -> None:
        seat = self._to_move
        assert seat is not None
        level = self.seats[seat].bot or "normal"
        out.append(Think(seat, self._seq, level, self._committed_view(seat)))

    def _on_thought(self, ev: Thought, now: float, out: list[Effect]) -> None:
        self._thinking = False
        if self.phase is not Phase.PLAYING:
            return
        if ev.action is None:
            self._bot_failed(f"room {self.id}: bot of seat {ev.seat} has no move", now, out)
            return
        if self._seq != ev.seq or self._engine is None:
            self._wake_bots(now, out)  # the game moved on (a clock step): think again
            return
        try:
            self._propose(ev.seat, ev.action, now, out, _Step("append", then=ev.seat))
        except ProtocolError:
            self._park(out)
        except GameError as exc:
            self._bot_failed(f"room {self.id}: bot move {ev.action!r} refused: {exc}", now, out)

    def _bot_failed(self, why: str, now: float, out: list[Effect]) -> None:
        self._bot_failures += 1
        if self._bot_failures >= BOT_FAILURES:
            self._bot_failures = 0
            out.append(Note(logging.ERROR, f"{why}; stopping it"))
            return
        out.append(Note(logging.WARNING, why))
        self._wake_bots(now, out)

    # -- the store away --------------------------------------------------------------------

    def _park(self, out: list[Effect]) -> None:
        """The store was down before anything changed: clocks and bots wait for it."""
        if not self._parked:
            self._parked = True
            out.append(WaitStore())

    def _on_store_back(self, ev: StoreBack, now: float, out: list[Effect]) -> None:
        self._parked = False
        if self._busy is not None:
            self._queue.append(ev)  # taken up once what is in flight is answered
            return
        if self.phase is Phase.OVER and not self._result_kept:
            self._finish(self._now, out)
        elif self.phase in (Phase.WAITING, Phase.PLAYING):
            self._arm_tick(out)
            self._wake_bots(now, out)
            self._start(now, out, _Step("append"))

    def _unavailable(self, message: str) -> ProtocolError:
        retry = max(self._health.retry_after, MIN_RETRY_AFTER)
        return ProtocolError(ErrorCode.UNAVAILABLE, message, retry_after=retry)

    # -- the game as the journal holds it ------------------------------------------------------

    def _rebuild(self, entries: Iterable[JournalEntry]) -> None:
        """Make the game again from its journal (no frames). On failure nothing changes.

        Raises:
            GameError, ValueError: the journal cannot be replayed (a defect).
        """
        engine: Game | None = None
        seq, at = 0, 0.0
        tail: collections.deque[tuple[int, list[Event]]] = collections.deque(maxlen=RECENT)
        for entry in entries:
            engine, events = step(self.game, self, engine, entry)
            seq, at = entry.seq, entry.now
            tail.append((seq, events))
        self._engine, self._seq, self._now = engine, seq, at
        self.recent.clear()
        self.recent.extend((s, msgpack.packb(ev, use_bin_type=True)) for s, ev in tail)
        if engine is not None:
            engine.take_changes()  # the journal's record: members get whole views after this
        self._bases, self._held, self._bases_seq = {}, {}, -1
        self._take()

    def _phase_of_game(self) -> Phase:
        if self._status is None:
            return Phase.WAITING
        return Phase.OVER if self._status is Status.OVER else Phase.PLAYING

    def _take(self) -> None:
        """Copy what readers are shown from the engine, which now holds the committed seq."""
        engine = self._engine
        if engine is None:
            self._status = self._paused = self._to_move = self._deadline = None
            self._stood_in = frozenset()
            return
        self._status = engine.status
        self._paused = engine.paused
        self._to_move = engine.to_move
        self._deadline = engine.next_deadline()
        self._stood_in = engine.stood_in_seats

    def _committed_view(self, seat: int | None) -> View:
        """The engine's view of the committed seq (the engine is the committed game: nothing
        is pending when this is asked; a view kept for compact members when it is)."""
        engine = self._engine
        if self._pending is None and engine is not None and not self.suspended:
            return engine.view(seat)
        if self._bases_seq == self._seq and seat in self._bases:
            return self._bases[seat]
        raise RuntimeError(f"room {self.id}: a view asked for while a move is pending")

    def _waiting_view(self, seat: int | None, now: float) -> View:
        view: View = {
            "game": self.game.name,
            "status": Status.WAITING.value,
            "to_move": None,
            "scores": [0] * len(self.seats),
            "seat": seat,
            "waiting_for": [i for i, s in enumerate(self.seats) if s.player is None and not s.bot],
        }
        if self.fill_at is not None:  # a quick-match room counts down to its bots
            view["now"] = now
        return view

    def _base_view(self, seat: int | None, now: float) -> View:
        """The view a compact member gets on joining, kept so the next update patches it."""
        if self._status is None:
            return self._waiting_view(seat, now)  # a waiting room's view changes without a seq
        if self._bases_seq != self._seq:
            self._bases, self._held, self._bases_seq = {}, {}, self._seq
        kept = self._bases.get(seat)
        if kept is None:
            kept = self._bases[seat] = timed(self._committed_view(seat), now)
            self._held[seat] = places_of(kept)
        return kept

    # -- frames ---------------------------------------------------------------------------------

    def _frames(
        self,
        events: list[Event],
        wall: float,
        origin: Member | None,
        re: int | None,
        changes: list[Changed] | None,
    ) -> list[tuple[Member, bytes]]:
        """The ``update`` of the committed seq for each member: one encoding per distinct one.

        Compact members get a patch from the view of the seq before, when its
        seat's was kept (:meth:`_base_view`); else the whole view, from which the
        next patch starts. A game that tracks its changes (``changes``, the
        engine's record of the step) has its patch built from that record, each
        changed field read from the engine alone (:func:`tracked_patch`): no view
        is built, nothing diffed. Another's is the diff of the two views. Events
        that the game's templates rebuild from the new view go by name. The
        acting member's copy also carries ``re`` (one more encoding).
        """
        seq = self._seq
        fresh = self._bases_seq == seq - 1
        bases = self._bases if fresh else {}
        held = self._held if fresh and changes is not None else {}
        engine = self._engine
        templates = self.game.derived_events
        views: dict[int | None, View] = {}
        kept: dict[int | None, View] = {}
        kept_keys: dict[int | None, dict[str, int]] = {}
        updates: dict[tuple[int | None, bool], dict[str, Any]] = {}
        encoded: dict[tuple[int | None, bool], bytes] = {}
        out: list[tuple[Member, bytes]] = []
        compact = self.compact
        for member, seat in self.members.items():
            key = (seat, member in compact)
            update = updates.get(key)
            if update is None:
                seen = visible(events, seat)
                update = {"t": "update", "room": self.id, "seq": seq, "events": seen}
                tracked = None
                if key[1] and seat in held and engine is not None and changes is not None:
                    tracked = tracked_patch(engine, seat, changes, held[seat], wall)
                if tracked is not None and engine is not None:
                    update["patch"], kept_keys[seat], read = tracked
                    if templates:
                        with_fields(engine, seat, read, self._template_fields)
                        update["events"] = shorten_events(seen, read, templates)
                else:
                    view = views.get(seat)
                    if view is None:
                        view = views[seat] = timed(self._committed_view(seat), wall)
                    if key[1]:  # what the view says all of goes by name (joined.derived)
                        if templates:
                            update["events"] = shorten_events(seen, view, templates)
                        kept[seat] = view
                        kept_keys[seat] = places_of(view)
                    base = bases.get(seat) if key[1] and changes is None else None
                    if base is not None:
                        update["patch"] = view_patch(base, view)
                    else:
                        update["view"] = view
                updates[key] = update
            if member is origin and re is not None:
                out.append((member, encode({**update, "re": re})))
                continue
            data = encoded.get(key)
            if data is None:
                data = encoded[key] = encode(update)
            out.append((member, data))
        self._bases, self._held, self._bases_seq = kept, kept_keys, seq
        return out

    # -- what step() reads of the room (the Table protocol of server.games.base) ----------------

    @property
    def options(self) -> dict[str, Any]:
        return self.record.options

    @property
    def seed(self) -> int:
        return self.record.seed

    @staticmethod
    def _bots_of(seats: Iterable[SeatRecord]) -> frozenset[int]:
        return frozenset(i for i, s in enumerate(seats) if s.bot is not None)


def timed(view: View, wall: float) -> View:
    """``view`` as sent at ``wall``: a view with a clock carries the server's ``now``.

    A client counts down from ``deadline`` corrected by the difference between
    that and its own clock, so a view taken up later (a rejoin) or a skewed
    client clock still shows the right time. The engine's view was made at its
    last step; a running clock's ``time_left`` must agree with the ``now`` beside
    it. A view without a clock is returned as it is, shared.
    """
    if "now" not in view and view.get("deadline") is None:
        return view
    out = dict(view)
    out["now"] = wall
    deadline = out.get("deadline", out.get("shot_deadline"))
    if deadline is not None and isinstance(out.get("time_left"), float | int):
        out["time_left"] = max(0.0, deadline - wall)
    return out


def template_fields(templates: Mapping[str, Mapping[str, Sequence[Any] | None]]) -> frozenset[str]:
    """The top-level view fields that ``templates`` (a game's ``derived_events``) read."""
    return frozenset(path[0] for t in templates.values() for path in t.values() if path)


def with_fields(
    engine: Game, seat: int | None, read: dict[str, Any], wanted: frozenset[str]
) -> None:
    """Add to ``read`` (the fields :func:`tracked_patch` read) those of ``wanted`` it lacks,
    each read from the engine alone: what the events' templates read of the view."""
    for key in wanted:
        if key not in read:
            with contextlib.suppress(KeyError):  # not in the view now: the template fails
                read[key] = engine.view_value(seat, key)


_CLOCK = ("now", "deadline", "shot_deadline", "time_left")
"""The view fields :func:`timed` reads or sets."""

_HELD_PLACES: dict[tuple[str, ...], dict[str, int]] = {}
"""Each key's place among a view's sorted keys, by those keys (a game's views have a
few shapes)."""


def places_of(view: View) -> dict[str, int]:
    """Each key of ``view`` to its place among them in sorted order, as a patch names it
    (shared between views of the same keys: read, never changed)."""
    return _held_places(tuple(sorted(view)))


def _held_places(held: tuple[str, ...]) -> dict[str, int]:
    places = _HELD_PLACES.get(held)
    if places is None:
        if len(_HELD_PLACES) >= 256:
            _HELD_PLACES.clear()
        places = _HELD_PLACES[held] = {k: i for i, k in enumerate(held)}
    return places


def _map_places(keys: tuple[str, ...]) -> dict[str, int]:
    """Each of a map's ``keys`` (in the map's order) to its place in sorted order."""
    places = _MAP_PLACES.get(keys)
    if places is None:
        if len(_MAP_PLACES) >= 256:
            _MAP_PLACES.clear()
        places = _MAP_PLACES[keys] = {k: i for i, k in enumerate(sorted(keys))}
    return places


_MAP_PLACES: dict[tuple[str, ...], dict[str, int]] = {}

_GONE = object()


def tracked_patch(
    engine: Game, seat: int | None, changes: list[Changed], places: dict[str, int], wall: float
) -> tuple[Patch, dict[str, int], dict[str, Any]] | None:
    """The patch that takes ``seat``'s view from the seq before to the engine's, built from
    ``changes`` (the step's record, :meth:`Game.take_changes`) without building the view,
    ``places`` being the places of that view's keys (:func:`places_of`) as the client
    holds them. Returns the patch, the places of the view's keys after it, and the
    top-level fields it read (what the events'
    templates read too, :func:`shorten_events`); None when a change is the whole view
    (an undo): the view itself is sent.

    The operations are those :func:`tilehall.protocol.patch.apply` takes, keys by their
    place: the changes below a field first (places as held; the changed keys of one map
    in one ``"="``), then the fields gone (the last place first), then every changed
    field in one ``"="`` (places among the keys kept, a new key by its name). A view
    with a clock gets its ``now`` set and its ``time_left`` counted to ``wall`` at every
    update, as :func:`timed` does for a whole view; its deadline when the step recorded it.
    """
    readers = READERS.get(type(engine)) or engine.view_readers()
    read: dict[str, Any] = {}
    below: list[Any] = []
    missing = False
    lists: dict[str, tuple[list[Any], list[Any]]] = {}
    for path in changes:
        if type(path) is Only:  # a change some audiences see, the others' views stand
            if seat not in path.seats:
                continue
            path = path.path
        elif type(path) is SortedChange:
            if seat in path.seats:  # what went and came, from this step's first entry on
                gone, came = lists.setdefault(path.field, ([], []))
                gone += path.gone
                came += path.came
            continue
        if type(path) is str:
            try:
                reader = readers.get(path)
                if reader is None:
                    read[path] = engine.view_value(seat, path)
                else:
                    read[path] = reader(engine, seat)
            except KeyError:
                read[path] = _GONE
                missing = True
        elif path:
            below.append(path)
        else:
            return None
    if "now" in places or "deadline" in places:  # a clock: now and time_left as timed() sets
        clock: dict[str, Any] = {}
        for name in _CLOCK:
            try:
                value = read[name] if name in read else engine.view_value(seat, name)
            except KeyError:
                continue
            if value is not _GONE:
                clock[name] = value
        clock = timed(clock, wall)
        for name in ("now", "time_left"):  # counted to the wall clock: new at every update
            if name in clock:
                read[name] = clock[name]
            elif name in places:
                read[name] = _GONE
                missing = True
    out: Patch = []
    tops: dict[str, Any] = {}
    if below:
        fields_of: dict[str, list[Any]] = {}  # a map at the top: its changed keys' places, values
        keys_of: dict[str, dict[str, int]] = {}  # and the places of its keys
        under: dict[tuple[Any, ...], list[Any]] = {}  # the same for a map further down
        for path in below:
            top = path[0]
            if top in read or top not in places:
                continue  # the whole field goes, or it is new
            value = tops.get(top, _GONE)
            if value is _GONE:
                reader = readers.get(top)
                value = engine.view_value(seat, top) if reader is None else reader(engine, seat)
                tops[top] = value
            if len(path) == 2:  # a key of a map or an item of a list at the top
                key = path[1]
                if type(value) is dict and type(key) is str:  # with its siblings, in one "="
                    pairs = fields_of.get(top)
                    if pairs is None:
                        pairs = fields_of[top] = []
                        keys_of[top] = _map_places(tuple(value))
                    pairs += (keys_of[top][key], value[key])
                else:
                    out.append([[places[top], key], value[key]])
                continue
            where: list[Any] = [places[top]]
            for key in path[1:-1]:
                if type(value) is dict and type(key) is str:
                    where.append(_map_places(tuple(value))[key])
                else:
                    where.append(key)
                value = value[key]
            key = path[-1]
            if type(value) is dict and type(key) is str:
                pairs = under.get(tuple(where))
                if pairs is None:
                    pairs = under[tuple(where)] = []
                pairs += (_map_places(tuple(value))[key], value[key])
            else:
                where.append(key)
                out.append([where, value[key]])
        for top, pairs in fields_of.items():
            if len(pairs) > 2:
                out.append(["=", [places[top]], pairs])
            else:
                out.append([[places[top], pairs[0]], pairs[1]])
        for parent, pairs in under.items():
            if len(pairs) > 2:
                out.append(["=", list(parent), pairs])
            else:
                out.append([[*parent, pairs[0]], pairs[1]])
    for name, (gone_from, came_to) in lists.items():
        if name in read:
            continue  # the whole field goes
        reader = readers.get(name)
        value = engine.view_value(seat, name) if reader is None else reader(engine, seat)
        if name not in places:
            read[name] = value  # a new field: whole
            continue
        out.extend(_sorted_ops(value, gone_from, came_to, places[name]))
    if missing:
        gone = [places[k] for k, v in read.items() if v is _GONE and k in places]
        gone.sort(reverse=True)
        out.extend([[place]] for place in gone)
        places = _held_places(tuple(k for k in sorted(places) if read.get(k) is not _GONE))
        read = {k: v for k, v in read.items() if v is not _GONE}
    sets: list[Any] = []
    added = False
    for name, value in read.items():
        place = places.get(name, -1)
        if place < 0:
            sets += (name, value)
            added = True
        else:
            sets += (place, value)
    if len(sets) > 2:
        out.append(["=", [], sets])
    elif sets:
        out.append([[sets[0]], sets[1]])
    if below:
        read.update(tops)  # read for the events' templates too
    if added:
        places = _held_places(tuple(sorted({*places, *read})))
    return out, places, read


def _sorted_ops(value: list[Any], gone: list[Any], came: list[Any], place: int) -> Patch:
    """The splices that turn the sorted list a client holds (``value`` with the items
    ``gone`` in it and those that ``came`` not) into ``value``: each item gone removed
    where it stood, then each item come put where it goes (``["~", [place], i, 1, []]``,
    ``["~", [place], i, 0, [item]]``).

    A placed tile leaves a list of some 80 unseen tiles: one operation found by bisection,
    where comparing the two lists item by item costs a walk of both. An item recorded as
    gone and as come in one step (come and gone again, or the other way) is no change.
    """
    if gone and came:
        had, has = collections.Counter(gone), collections.Counter(came)
        both = had & has
        if both:
            gone = list((had - both).elements())
            came = list((has - both).elements())
    came = sorted(came)
    held = list(value)
    for item in came:  # what it was between: the items come taken out
        del held[bisect_left(held, item)]
    for item in gone:  # what the client holds
        insort(held, item)
    at = [place]
    out: Patch = []
    for item in sorted(gone):
        i = bisect_left(held, item)
        del held[i]
        out.append(["~", at, i, 1, []])
    for item in came:
        i = bisect_left(held, item)
        held.insert(i, item)
        out.append(["~", at, i, 0, [item]])
    return out


def view_patch(old: View, new: View) -> Patch:
    """The patch from ``old`` to ``new``, with the server's ``now`` set whatever it was.

    Members of one seat may hold views of the same seq taken at different times
    (they joined at different moments): they differ only in ``now``, which the
    patch therefore always sets rather than compares.
    """
    if "now" not in old and "now" not in new:  # a game without a clock: nothing to leave out
        return diff(old, new)
    mid = dict(new)
    if "now" in old:
        mid["now"] = old["now"]
    else:
        mid.pop("now", None)
    out = diff(old, mid)
    if "now" in new:
        out.append([["now"], new["now"]])
    elif "now" in old:
        out.append([["now"]])
    return out


def visible(events: list[Event], seat: int | None) -> list[Event]:
    """The events ``seat`` may see, with the private marker stripped."""
    out = []
    for ev in events:
        if PRIVATE in ev:
            if ev[PRIVATE] != seat:
                continue
            ev = {k: v for k, v in ev.items() if k != PRIVATE}
        out.append(ev)
    return out


_HANDLERS: dict[type, Callable[[RoomCore, Any, float, list[Effect]], None]] = {
    Act: RoomCore._on_act,
    Join: RoomCore._on_join,
    Watch: RoomCore._on_watch,
    Leave: RoomCore._on_leave,
    Sooner: RoomCore._on_sooner,
    Begin: RoomCore._on_begin,
    Resume: RoomCore._on_resume,
    Appended: RoomCore._on_appended,
    NotAppended: RoomCore._on_not_appended,
    JournalRead: RoomCore._on_journal_read,
    Written: RoomCore._on_written,
    Hold: RoomCore._on_hold,
    Release: RoomCore._on_release,
    Close: RoomCore._on_close,
    Due: RoomCore._on_due,
    Thought: RoomCore._on_thought,
    ResultKept: RoomCore._on_result_kept,
    StoreBack: RoomCore._on_store_back,
    _Check: RoomCore._on_check,
}
"""Each event to the method that takes it (:meth:`RoomCore.handle`)."""
