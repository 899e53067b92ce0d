"""A room: the only authority for one game.

Lifecycle (the room owns these transitions; engines only know playing/over)::

    waiting --(every human seat taken; at once for bot-only rooms)--> playing
    playing --(engine status becomes over)--> over

Every change to the game goes through :meth:`Room._apply`, under the room's
lock, one at a time: ask the engine (which refuses and changes nothing, or
returns events), **append the action to the journal and wait for the commit**,
and only then send ``update`` to every member, encoding each distinct view once.
The journal holds the start (``_start``), every accepted action and every clock
step (``_tick``), so :meth:`Room.replay` rebuilds the room exactly.

What happens to slow receivers: broadcast hands each member's connection an
already-encoded frame through :meth:`Session.send`, which never waits; a member
whose queue is full is disconnected, the others are not delayed.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import random
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import msgpack

from protocol import ErrorCode, ProtocolError, encode
from server.bots import Bot, find_bot
from server.games import Game, Status
from server.games.base import TICK, Event, GameError
from server.store.base import JournalEntry, RoomRecord, ScoreRecord, SeatRecord

if TYPE_CHECKING:
    from server.lobby import Lobby
    from server.session import Session

__all__ = ["START", "Room", "step", "visible"]

log = logging.getLogger(__name__)

START = {"do": "_start"}
"""The journal's first entry: play began at its ``now``."""

PRIVATE = "_to"
"""The event key that makes an event private to one seat (see server.games.base)."""

RECENT = 256
"""Updates kept in memory so a reconnecting client can catch up without a snapshot."""


class Room:
    """One game being played, its seats, spectators and journal."""

    def __init__(self, record: RoomRecord, game: type[Game], lobby: Lobby) -> None:
        self.record = record
        self.id = record.id
        self.game = game
        self.lobby = lobby
        self.seats: list[SeatRecord] = list(record.seats)
        self._bot_seats = frozenset(i for i, s in enumerate(self.seats) if s.bot is not None)
        self.engine: Game | None = None
        self.seq = 0
        self.members: dict[Session, int | None] = {}
        self.lock = asyncio.Lock()
        self.recent: collections.deque[tuple[int, bytes]] = collections.deque(maxlen=RECENT)
        """The last updates' events, msgpack-packed: bytes are invisible to the cycle
        collector, while 256 moves of event dicts per room were most of what it had
        to walk (and the pauses it took were the act->update p99)."""
        self.bots: dict[int, Bot] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._bot_task: asyncio.Task[None] | None = None
        self._summary_due = False
        self.closed = False

    # -- what the room is ------------------------------------------------------------

    @property
    def status(self) -> Status:
        if self.engine is None:
            return Status.WAITING
        return self.engine.status

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
        }

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (None: a spectator) sees now, also before play starts."""
        if self.engine is not None:
            return self.engine.view(seat)
        return {
            "game": self.game.name,
            "status": Status.WAITING.value,
            "to_move": None,
            "scores": [0] * len(self.seats),
            "seat": seat,
            "waiting_for": [i for i, s in enumerate(self.seats) if s.player is None and not s.bot],
        }

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
            if seat.name is not None and seat.name.casefold() != name.casefold():
                raise ProtocolError(ErrorCode.SEAT_TAKEN, f"seat {want} is kept for {seat.name}")
            return want
        free = [i for i, s in enumerate(self.seats) if s.player is None and s.bot is None]
        for i in free:
            if (self.seats[i].name or "").casefold() == name.casefold():
                return i
        for i in free:
            if self.seats[i].name is None:
                return i
        raise ProtocolError(ErrorCode.ROOM_FULL, f"room {self.id} has no free seat for {name}")

    async def take_seat(self, seat: int, player: int, name: str) -> None:
        """Give ``seat`` to ``player`` (persisted), and start play once all are seated."""
        if self.seats[seat].player != player:
            self.seats[seat] = SeatRecord(name=name, player=player)
            await self.lobby.store.set_seats(self.id, self.seats)
        await self.maybe_start()

    def add_member(self, session: Session, seat: int | None) -> None:
        waiting = self.unattended()
        self.members[session] = seat
        session.rooms[self.id] = seat
        self.push_summary()
        if waiting:  # a room of bots waited for its first spectator
            self._arm_timer()
            self._wake_bots()

    def remove_member(self, session: Session) -> None:
        if self.members.pop(session, "absent") != "absent":
            session.rooms.pop(self.id, None)
            self.push_summary()
            if self.unattended():
                self._cancel_timer()

    def push_summary(self) -> None:
        """Send every member the room's summary: one snapshot per event-loop turn.

        Joins and leaves come in bursts (a crowd arriving to watch). A summary
        each would cost n*n frames for n arrivals and overflow the members' send
        queues, disconnecting them; the summary is a whole snapshot, so the last
        one of a turn says everything the others would have.
        """
        if not self._summary_due:
            self._summary_due = True
            asyncio.get_running_loop().call_soon(self._push_summary_now)

    def _push_summary_now(self) -> None:
        self._summary_due = False
        data = encode({"t": "room", **self.summary()})
        for member in self.members:
            member.push(data)

    # -- play ------------------------------------------------------------------------

    async def maybe_start(self) -> None:
        """Start when every human seat is taken (bot-only rooms start at once)."""
        async with self.lock:
            if self.engine is not None or self.closed:
                return
            if any(s.player is None and s.bot is None for s in self.seats):
                return
            await self._apply(None, START, time.time())

    async def act(
        self, session: Session, action: dict[str, Any], seq: int | None, re: int | None = None
    ) -> None:
        """A member's action; raises ProtocolError/GameError, changing nothing, if refused."""
        if session not in self.members:
            raise ProtocolError(ErrorCode.NOT_IN_ROOM, f"you are not in room {self.id}")
        seat = self.members[session]
        if seat is None:
            raise ProtocolError(ErrorCode.SPECTATOR, "spectators cannot act")
        if isinstance(action.get("do"), str) and action["do"].startswith("_"):
            raise ProtocolError(ErrorCode.OUT_OF_RANGE, f"action {action['do']!r} is reserved")
        async with self.lock:
            if self.engine is None:
                raise ProtocolError(ErrorCode.NOT_STARTED, f"room {self.id} waits for players")
            if seq is not None and seq != self.seq:
                raise ProtocolError(
                    ErrorCode.STALE, f"room {self.id} is at seq {self.seq}, not {seq}"
                )
            await self._apply(seat, action, time.time(), origin=session, re=re)

    async def _apply(
        self,
        seat: int | None,
        action: dict[str, Any],
        now: float,
        *,
        origin: Session | None = None,
        re: int | None = None,
    ) -> None:
        """Engine, journal, broadcast: the one path by which a room changes. Hold the lock.

        ``origin``/``re``: the acting connection gets its update with ``re`` set, as
        the reply to its ``act``.
        """
        started = time.perf_counter()
        events = self._run_engine(seat, action, now)
        entry = JournalEntry(room=self.id, seq=self.seq + 1, seat=seat, action=action, now=now)
        metrics = self.lobby.metrics
        try:
            committing = time.perf_counter()
            await self.lobby.store.append(entry)
            metrics.commit_latency.observe(time.perf_counter() - committing)
        except Exception:
            log.exception("room %s: journal append failed; rebuilding from the journal", self.id)
            await self.reload()
            raise ProtocolError(ErrorCode.INTERNAL_ERROR, "the move could not be saved") from None
        self.seq = entry.seq
        self.recent.append((self.seq, msgpack.packb(events, use_bin_type=True)))
        self.lobby.metrics_action(self)
        self.broadcast(events, origin=origin, re=re)
        metrics.act_latency.observe(time.perf_counter() - started)
        await self._after_change(now)

    def _run_engine(self, seat: int | None, action: dict[str, Any], now: float) -> list[Event]:
        if self.engine is not None and self.engine.status is Status.OVER and action != TICK:
            raise GameError("game_over", "the game is over")
        self.engine, events = step(
            self.game,
            self.engine,
            options=self.record.options,
            seats=len(self.seats),
            seed=self.record.seed,
            bots=self.bot_seats(),
            seat=seat,
            action=action,
            now=now,
        )
        return events

    def broadcast(
        self, events: list[Event], *, origin: Session | None = None, re: int | None = None
    ) -> None:
        """Send the update to every member: one encoding per distinct view.

        The acting connection's copy also carries ``re`` (one more encoding).
        """
        frames: dict[int | None, bytes] = {}
        for member, seat in list(self.members.items()):
            if member is origin and re is not None:
                member.push(encode({**self._update(events, seat), "re": re}))
                continue
            data = frames.get(seat)
            if data is None:
                data = frames[seat] = encode(self._update(events, seat))
            member.push(data)

    def _update(self, events: list[Event], seat: int | None) -> dict[str, Any]:
        return {
            "t": "update",
            "room": self.id,
            "seq": self.seq,
            "events": visible(events, seat),
            "view": self.view(seat),
        }

    async def _after_change(self, now: float) -> None:
        if self.status is Status.OVER:
            await self._finish(now)
            return
        self._arm_timer()
        self._wake_bots()

    async def _finish(self, now: float) -> None:
        assert self.engine is not None
        self._cancel_timer()
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
        await self.lobby.store.finish_room(self.id, self.engine.result() or {}, scores, now)
        self.push_summary()
        self.lobby.room_over(self)

    # -- clocks ------------------------------------------------------------------------

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _arm_timer(self) -> None:
        self._cancel_timer()
        if self.engine is None or self.closed or self.unattended():
            return
        deadline = self.engine.next_deadline()
        if deadline is None:
            return
        delay = max(0.0, deadline - time.time())
        self._timer = asyncio.get_running_loop().call_later(
            delay, lambda: asyncio.ensure_future(self._tick(deadline))
        )

    async def _tick(self, deadline: float) -> None:
        async with self.lock:
            if self.closed or self.engine is None or self.status is Status.OVER:
                return
            if self.engine.next_deadline() != deadline:
                return  # an action moved the deadline meanwhile; it re-armed the timer
            try:
                await self._apply(None, TICK, max(time.time(), deadline))
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

    def _wake_bots(self) -> None:
        if self.engine is None or self.closed or self.status is not Status.PLAYING:
            return
        if self.unattended():
            return
        if self.engine.to_move not in self.bot_seats():
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
                budget=self.lobby.config.limits.bot_think,
            )
            self.bots[seat] = bot
        return bot

    async def _run_bots(self) -> None:
        """Let COMP seats play while it is their turn; their moves go the players' way."""
        failures = 0
        delay = self.lobby.config.limits.bot_delay
        while not self.closed and self.engine is not None and self.status is Status.PLAYING:
            seat = self.engine.to_move
            if seat is None or seat not in self.bot_seats() or self.unattended():
                return  # add_member wakes an unattended room
            if delay:
                await asyncio.sleep(delay)
            view = self.engine.view(seat)
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
                if self.seq != seq or self.closed:
                    continue  # the game moved on (a clock step); think again
                try:
                    await self._apply(seat, action, time.time())
                    failures = 0
                except (GameError, ProtocolError) as exc:
                    failures += 1
                    log.warning("room %s: bot move %r refused: %s", self.id, action, exc)
                    if failures >= 3:
                        return

    # -- recovery ------------------------------------------------------------------------

    def replay(self, entries: Iterable[JournalEntry]) -> None:
        """Rebuild the game from its journal (no I/O, no broadcast)."""
        self.engine = None
        self.seq = 0
        self.recent.clear()
        tail: collections.deque[tuple[int, list[Event]]] = collections.deque(maxlen=RECENT)
        for entry in entries:
            events = self._run_engine(entry.seat, entry.action, entry.now)
            self.seq = entry.seq
            tail.append((self.seq, events))
        self.recent.extend((seq, msgpack.packb(ev, use_bin_type=True)) for seq, ev in tail)

    async def reload(self) -> None:
        """Throw away the in-memory game and replay what the journal really holds."""
        self.replay(await self.lobby.store.journal(self.id))

    def resume(self) -> None:
        """After a replay at start-up: re-arm clocks and bots."""
        self._arm_timer()
        self._wake_bots()

    def missed(self, seat: int | None, since: int) -> list[dict[str, Any]] | None:
        """Updates after ``since`` for ``seat``, or None if they are no longer kept."""
        if since >= self.seq:
            return []
        if not self.recent or self.recent[0][0] > since + 1:
            return None
        return [
            {"seq": s, "events": visible(msgpack.unpackb(packed, raw=False), seat)}
            for s, packed in self.recent
            if s > since
        ]

    def close(self) -> None:
        self.closed = True
        self._cancel_timer()
        if self._bot_task is not None:
            self._bot_task.cancel()


def step(
    game: type[Game],
    engine: Game | None,
    *,
    options: dict[str, Any],
    seats: int,
    seed: int,
    bots: frozenset[int],
    seat: int | None,
    action: dict[str, Any],
    now: float,
) -> tuple[Game, list[Event]]:
    """Apply one journal entry: how a room, and anything replaying its journal, reads it.

    ``_start`` builds the engine from the room's options and seed, ``_tick`` lets
    its clock run, anything else is a seat's action.

    Returns:
        The engine (new after ``_start``) and the events the entry caused.
    """
    if action == START:
        fresh = game(options=options, seats=seats, rng=random.Random(seed), now=now, bots=bots)
        return fresh, [{"e": "started"}]
    if engine is None:
        raise ValueError(f"journal entry {action!r} comes before the start")
    if action == TICK:
        return engine, engine.advance(now)
    assert seat is not None
    return engine, engine.act(seat, action, now)


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
