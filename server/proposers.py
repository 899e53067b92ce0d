"""What changes a room by itself: its clock, its bots, its away players, quick-match fill.

Each is a *proposer*: it watches the room's committed state and, when its time
comes, proposes one journal entry through the room's one door,
:meth:`Room.submit <tilehall.server.room.Room.submit>`, with a ``decide``
function that the door runs under its lock, on the state the journal holds, to
say what the entry is (or that there is nothing to do any more: the game moved
on meanwhile). None of them takes the lock, steps the engine or appends to the
journal; the door does, one entry at a time.

- :class:`Ticker`: the game's clock. A timer at the next deadline proposes ``_tick``.
- :class:`Bots`: COMP seats (and stand-ins) think on a thread about the
  committed view, then propose their move.
- :class:`Presence`: players who come and go. Everyone away pauses a game whose
  clock stops (``_pause``), someone back resumes it; the seat to move left
  away ``standin_after`` seconds is played by a stand-in (``_standin``), given
  back when its player returns (``_standback``).
- :class:`Filler`: a quick-match room's open seats go to bots at ``fill_at``
  (a change of the seats, written between moves), then the start is proposed.
- :class:`ActDecision`: a member's ``act``, decided at the door (refused before
  the start or at a seq the room has left).

Their timers start tasks the room keeps (:meth:`Room.spawn`) and cancels on close.
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import TYPE_CHECKING, Any

from tilehall.protocol import ErrorCode, ProtocolError
from tilehall.server.bots import Bot, find_bot
from tilehall.server.clock import Timer
from tilehall.server.games import Status
from tilehall.server.games.base import TICK, GameError, Pause
from tilehall.server.games.replay import RESUME, away, stand_back, stand_in
from tilehall.server.store.base import SeatRecord, StoreUnavailable

if TYPE_CHECKING:
    from tilehall.server.room import Proposal, Room

__all__ = ["ActDecision", "Bots", "Filler", "Presence", "Ticker"]

log = logging.getLogger(__name__)


class Ticker:
    """The game's clock: at each deadline, a ``_tick`` entry lets the engine's time run."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.timer: Timer | None = None

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def arm(self) -> None:
        """Arm the timer at the committed state's next deadline (none while nobody watches)."""
        self.cancel()
        room = self.room
        core = room.core
        if not core.started or room.suspended or room.closed or room.unattended():
            return
        deadline = core.deadline
        if deadline is None:
            return
        delay = max(0.0, deadline - room.clock.time())
        self.timer = room.clock.call_later(
            delay, lambda: room.spawn(self._tick(deadline), f"tick-{room.id}")
        )

    async def _tick(self, deadline: float) -> None:
        room = self.room

        def decide() -> Proposal | None:
            engine = room.engine
            if engine is None or engine.status is Status.OVER:
                return None
            if engine.next_deadline() != deadline:
                return None  # an action moved the deadline meanwhile; it re-armed the timer
            return None, TICK, max(room.clock.time(), deadline)

        try:
            await room.submit(decide)
        except ProtocolError as exc:
            if exc.code != ErrorCode.UNAVAILABLE:
                raise
            if not room.suspended:
                room.park()  # the store was down: nothing happened, the clock waits
        except Exception:
            log.exception("room %s: clock step failed", room.id)


class Bots:
    """COMP seats, and stand-ins for away players: they play while it is their turn."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.minds: dict[int, Bot] = {}
        """Each seat's bot, made when it first plays (its memory is of the committed game)."""
        self.task: asyncio.Task[None] | None = None

    @property
    def busy(self) -> bool:
        return self.task is not None and not self.task.done()

    def forget(self) -> None:
        """A move was dropped: a bot's memory of it must go too."""
        self.minds.clear()

    def wake(self) -> None:
        """Start playing if a bot is to move in the committed state (and someone watches)."""
        room = self.room
        core = room.core
        if not room.bot_seats() and not core.stood_in:
            return  # people only: nothing for a bot to play (a move of theirs is the norm)
        if room.closed or room.suspended or core.status is not Status.PLAYING:
            return
        if room.unattended() or core.paused is not None:
            return
        if core.to_move not in room.playing_bots():
            return
        if not self.busy:
            self.task = asyncio.create_task(self._run(), name=f"bots-{room.id}")

    def mind(self, seat: int) -> Bot:
        bot = self.minds.get(seat)
        if bot is None:
            room = self.room
            level = room.seats[seat].bot or "normal"
            cls = find_bot(room.game.name, level)
            bot = cls(
                rng=random.Random(f"{room.record.seed}:{seat}"),
                budget=room.services.limits.bot_think,
            )
            self.minds[seat] = bot
        return bot

    async def _run(self) -> None:
        """Let COMP seats play while it is their turn; their moves go the players' way."""
        room = self.room
        core = room.core
        failures = 0
        delay = room.services.limits.bot_delay
        health = room.services.health
        while not room.closed and not room.suspended and core.status is Status.PLAYING:
            seat = core.to_move
            if seat is None or seat not in room.playing_bots() or room.unattended():
                return  # add_member wakes an unattended room
            if core.paused is not None:
                return  # its resume wakes it
            await health.wait()
            if delay:
                await room.clock.sleep(delay)
            if core.pending:  # a move waits for its append: think once it is settled
                await room.settle()
                continue
            view = core.view(seat)  # made now, of the committed game: the bot's own
            if view is None:
                return  # dropped: the room is suspended, and its rebuild wakes the bots
            seq = core.seq
            bot = self.mind(seat)
            try:
                action = await asyncio.to_thread(bot.choose, view)
            except Exception:
                log.exception("room %s: bot of seat %d crashed", room.id, seat)
                action = None
            if action is None:
                failures += 1
                if failures >= 3:
                    log.error("room %s: bot of seat %d has no move; stopping it", room.id, seat)
                    return
                continue

            def decide(
                seat: int = seat, action: dict[str, Any] = action, seq: int = seq
            ) -> Proposal | None:
                if core.seq != seq or room.engine is None:
                    return None  # the game moved on (a clock step, a rebuild); think again
                return seat, action, room.clock.time()

            try:
                if await room.submit(decide):
                    failures = 0
            except ProtocolError as exc:
                if exc.code == ErrorCode.UNAVAILABLE:
                    if not room.suspended:
                        room.park()
                    return  # the rebuild, or the store's return, wakes the bots
                failures += 1
                log.warning("room %s: bot move %r refused: %s", room.id, action, exc)
                if failures >= 3:
                    return
            except GameError as exc:
                failures += 1
                log.warning("room %s: bot move %r refused: %s", room.id, action, exc)
                if failures >= 3:
                    return


class Presence:
    """Players who come and go: pauses for an empty room, stand-ins for an away turn."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.away_since: dict[int, float] = {}
        """Human seats with nobody connected, since when (a seat never joined: since play began)."""
        self.turn_since = 0.0
        """When the seat to move began its turn (for the stand-in's wait)."""
        self.last_to_move: int | None = None
        self.task: asyncio.Task[None] | None = None
        self._again = False
        self._standin: Timer | None = None

    def humans(self) -> list[int]:
        """The seats people play (not COMP seats)."""
        room = self.room
        bots = room.bot_seats()
        return [i for i in range(len(room.seats)) if i not in bots]

    def moved(self, now: float) -> None:
        """A move was committed: the turn's clock for the stand-in starts with a new seat."""
        to_move = self.room.core.to_move
        if to_move != self.last_to_move:
            self.last_to_move, self.turn_since = to_move, now

    def changed(self, at: float | None = None) -> None:
        """A player came or went: propose (soon) what the game needs now.

        ``at``: the time to journal a pause at (after a restart: the last entry's).
        """
        room = self.room
        if not room.core.started or room.closed or room.suspended or not self.humans():
            return
        if self.task is not None and not self.task.done():
            self._again = True
            return

        proposed: list[Proposal] = []

        def decide() -> Proposal | None:
            now = room.clock.time() if at is None else at
            proposal = self.decide(now, membership=True)
            if proposal is not None:
                proposed.append(proposal)
            return proposal

        async def sync() -> None:
            while True:
                self._again = False
                proposed.clear()
                try:
                    await room.submit(decide)
                except ProtocolError as exc:
                    if exc.code != ErrorCode.UNAVAILABLE:
                        raise
                    return  # suspended or parked: presence is looked at again on rebuild
                if proposed and proposed[0][1].get("do") in ("_pause", "_resume"):
                    room.push_summary()
                if not self._again:
                    return

        self.task = asyncio.create_task(sync(), name=f"presence-{room.id}")

    def decide(self, now: float, *, membership: bool) -> Proposal | None:
        """The entry the players' presence asks of the game, if any; else arm a stand-in.

        Runs in the door (the engine is the committed game). ``membership``:
        asked because someone came or went (or the server restarted): only then
        may the game be paused or resumed. After a move only the turn matters (a
        seat to give back, a stand-in to arm): a game that has just started is
        not paused because its last player is still joining.

        - Every human away, in a game whose clock stops (Match-It, LinkSame, Mathable's
          turn clock) and runs now: pause it (an untimed game has nothing to stop, and
          its journal no entry to write); someone back: resume it (a pause the player
          asked for stays until they resume it).
        - A seat a stand-in plays whose player is back: give it back, at the first turn
          that is not theirs (the stand-in finishes the turn it began).
        - The seat to move away for ``standin_after`` seconds: a stand-in (:meth:`arm_standin`).
        """
        room = self.room
        engine = room.engine
        if engine is None or room.closed or room.suspended or engine.status is not Status.PLAYING:
            return None
        humans = self.humans()
        if not humans:
            return None
        everyone_away = all(not room.connected(s) for s in humans)
        stops = engine.pausable and engine.clock_runs  # an untimed game has nothing to stop
        if membership and stops and everyone_away and engine.paused is None:
            return None, away(), now
        if membership and engine.pausable and not everyone_away and engine.paused is Pause.AWAY:
            return None, RESUME, max(now, room.clock.time())
        for seat in sorted(engine.stood_in_seats):
            if room.connected(seat) and engine.to_move != seat:
                return None, stand_back(seat), now
        self.arm_standin()
        return None

    def cancel_standin(self) -> None:
        if self._standin is not None:
            self._standin.cancel()
            self._standin = None

    def arm_standin(self) -> None:
        """The seat to move is away: a stand-in plays it ``standin_after`` seconds after
        both its turn began and its player went (a room option; 0: never)."""
        self.cancel_standin()
        room = self.room
        core = room.core
        after = room.record.options.get("standin_after", 0)
        if not core.started or not after or core.paused is not None:
            return
        seat = core.to_move
        if seat is None or seat in room.playing_bots() or room.connected(seat):
            return
        since = max(self.turn_since, self.away_since.get(seat, self.turn_since))
        delay = max(0.0, since + after - room.clock.time())
        seq = core.seq
        self._standin = room.clock.call_later(
            delay, lambda: room.spawn(self._standin_due(seat, seq), f"standin-{room.id}")
        )

    async def _standin_due(self, seat: int, seq: int) -> None:
        room = self.room
        self._standin = None

        def decide() -> Proposal | None:
            engine = room.engine
            if (
                engine is None
                or room.seq != seq
                or engine.to_move != seat
                or engine.paused is not None
                or room.connected(seat)
                or seat in room.playing_bots()
            ):
                return None
            log.info("room %s: a stand-in plays seat %d, its player away", room.id, seat)
            return None, stand_in(seat), room.clock.time()

        try:
            await room.submit(decide)
        except ProtocolError as exc:
            if exc.code != ErrorCode.UNAVAILABLE:
                raise


class Filler:
    """Quick-match: the seats nobody came for go to bots at the room's ``fill_at``."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self._timer: Timer | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def task(self) -> asyncio.Task[None] | None:
        return self._task

    @property
    def armed(self) -> bool:
        return self._timer is not None

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def arm(self) -> None:
        """Give the open seats to bots at ``fill_at`` (at once if that has passed)."""
        room = self.room
        if not room.matching or self._task is not None:
            return
        assert room.fill_at is not None
        self.cancel()
        self._timer = room.clock.call_later(max(0.0, room.fill_at - room.clock.time()), self._due)

    async def sooner(self, at: float) -> None:
        """Another player matched here and waits at most until ``at``: bots come by then."""
        room = self.room
        if room.fill_at is not None and at < room.fill_at:
            await room.store.set_fill(room.id, at)
            room.fill_at = at
            self.arm()
            room.push_summary()

    def _due(self) -> None:
        self._timer = None
        room = self.room
        if not room.matching:
            return
        if not any(room.connected(i) for i, s in enumerate(room.seats) if s.player is not None):
            return  # nobody is here to play them: the first player back brings the bots
        self._task = asyncio.create_task(self._fill(), name=f"fill-{room.id}")

    async def _fill(self) -> None:
        """Seat a COMP in every seat still open, persisted first, then propose the start."""
        room = self.room
        try:
            async with room.between_moves():
                if not room.matching:
                    return
                level = room.record.fill_level or "normal"
                seats = [
                    SeatRecord(name="COMP", bot=level)
                    if s.player is None and s.bot is None and s.name is None
                    else s
                    for s in room.seats
                ]
                try:
                    await room.store.set_seats(room.id, seats)
                except StoreUnavailable as exc:
                    room.services.health.failed(exc)
                    self._timer = room.clock.call_later(room.services.health.retry_after, self._due)
                    return
                room.reseat(seats)
                room.fill_at = None
            log.info("room %s: bots took the open seats", room.id, extra={"room": room.id})
            room.push_summary()
            await room.maybe_start()
        except Exception:
            log.exception("room %s: filling the seats with bots failed", room.id)
        finally:
            self._task = None


class ActDecision:
    """A member's ``act`` as the door decides it, under the lock: refused before the start
    or at a seq the room has left, else the action at the time it is taken.

    One object with slots rather than a closure (a function and a cell for each
    of the four names it reads): it is alive while the move waits for its append,
    and with hundreds of moves waiting the cycle collector walks each of them at
    every pass.
    """

    __slots__ = ("action", "room", "seat", "seq")

    def __init__(self, room: Room, seat: int, action: dict[str, Any], seq: int | None) -> None:
        self.room = room
        self.seat = seat
        self.action = action
        self.seq = seq

    def __call__(self) -> Proposal:
        room, seq = self.room, self.seq
        if not room.core.started:
            raise ProtocolError(ErrorCode.NOT_STARTED, f"room {room.id} waits for players")
        if seq is not None and seq != room.seq:
            raise ProtocolError(ErrorCode.STALE, f"room {room.id} is at seq {room.seq}, not {seq}")
        return self.seat, self.action, room.clock.time()
