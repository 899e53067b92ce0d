"""A room's core: what its game is, as the journal holds it, and nothing else.

The core is the room without I/O, in the style of h11's ``Connection``: it
decides, it never writes. It holds the engine, the last seq and what readers
are shown of it, the recent updates and the compact members' views of that seq
(their bases), and takes one journal entry at a time (a seat's action, a clock
step, a pause, a stand-in, the start):

- :meth:`RoomCore.propose` runs the entry through the engine (which refuses and
  changes nothing, or returns events) and returns a :class:`Pending` change: the
  entry to append and what it caused. One change is pending at a time.
- :meth:`RoomCore.commit` makes it visible, once the journal holds it, and
  returns the frames to send, one per member (each distinct view encoded once).
- :meth:`RoomCore.drop` forgets it, when the journal refused it or could not
  say: the engine already holds the move, so the core goes *stale* until
  :meth:`RoomCore.rebuild` runs it again from what the journal really holds.

Every reader asks the *committed* state: :attr:`RoomCore.seq`,
:attr:`RoomCore.status`, :attr:`RoomCore.paused`, :attr:`RoomCore.to_move`,
:meth:`RoomCore.view`, :meth:`RoomCore.missed`. They are taken at each commit:
while a change is pending, the engine has moved on but what readers are shown
has not. A view of the committed seq is then the one kept for compact members
of that seat; any other cannot be made from an engine that has moved on, so
:meth:`view` answers None and the room's shell waits for the change to settle.

Time is handed in (the entry's ``now``, the ``wall`` a view is sent at); the
core has no clock, no store, no tasks, and is tested without an event loop.
Members are whatever the shell uses for them: the core only hands them back
with their frames.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any, NamedTuple, TypeVar

import msgpack
from tilehall.protocol import GameCode, encode
from tilehall.protocol.patch import Patch, diff, shorten_events
from tilehall.server.games import Game, Status
from tilehall.server.games.base import TICK, Event, GameError, Pause
from tilehall.server.games.replay import step
from tilehall.server.store.base import JournalEntry, RoomRecord, SeatRecord

__all__ = ["RECENT", "Pending", "RoomCore", "timed", "view_patch", "visible"]

PRIVATE = "_to"
"""The event key that makes an event private to one seat (see server.games.base)."""

RECENT = 256
"""Updates kept in memory so a reconnecting client can catch up without a snapshot."""

M = TypeVar("M")
"""A member, as the shell knows it: the core only hands it back with its frame."""

View = dict[str, Any]


class Pending(NamedTuple):
    """A change the engine made and the journal does not hold yet (a tuple: one is made
    for every move, and a frozen dataclass costs several times more to make)."""

    entry: JournalEntry
    """What to append."""
    events: list[Event]
    """What it caused, every seat's (private events marked)."""


class RoomCore:
    """The committed state of one room's game, and the one way it changes.

    Args:
        record: the room (its id, game, options, seed and seats: :meth:`reseat`
            when its seats change before the start).
    """

    def __init__(self, record: RoomRecord) -> None:
        self.record = record
        self._engine: Game | None = None
        self._pending: Pending | None = None
        self._stale = False
        # the committed state: what every reader is shown
        self._seq = 0
        self._now = 0.0
        self._status: Status | None = None
        self._paused: Pause | None = None
        self._to_move: int | None = None
        self._deadline: float | None = None
        self._stood_in: frozenset[int] = frozenset()
        self.recent: collections.deque[tuple[int, bytes]] = collections.deque(maxlen=RECENT)
        """The last updates' events, msgpack-packed: bytes are invisible to the cycle
        collector, while 256 moves of event dicts per room were most of what it had
        to walk (and the pauses it took were the act->update p99)."""
        self._bases: dict[int | None, View] = {}
        self._bases_seq = -1
        """The views of seq :attr:`_bases_seq` by seat, as compact members hold them
        (with their ``now``): the next update is a patch from these."""

    def reseat(self, seats: Iterable[SeatRecord]) -> None:
        """The room's seats changed (taken, or filled by bots): the start reads them."""
        self.record = replace(self.record, seats=tuple(seats))

    # -- the committed state -----------------------------------------------------------

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
    def status(self) -> Status | None:
        """``PLAYING`` or ``OVER`` once started; None before."""
        return self._status

    @property
    def paused(self) -> Pause | None:
        """Why the game's clock stands still, or None."""
        return self._paused

    @property
    def to_move(self) -> int | None:
        return self._to_move

    @property
    def deadline(self) -> float | None:
        """When the clock next falls due (None: no clock runs)."""
        return self._deadline

    @property
    def stood_in(self) -> frozenset[int]:
        """Seats a COMP stand-in plays."""
        return self._stood_in

    @property
    def pending(self) -> bool:
        """A change is proposed and neither committed nor dropped."""
        return self._pending is not None

    @property
    def stale(self) -> bool:
        """A change was dropped: the engine holds what the journal may not, until rebuilt."""
        return self._stale

    @property
    def engine(self) -> Game | None:
        """The engine, for the shell's work after a commit (deadlines, bots, the result).

        Equal to the committed state while nothing is pending; None before the
        start and while stale. Readers use the committed properties instead.
        """
        return None if self._stale else self._engine

    def view(self, seat: int | None) -> View | None:
        """The engine's view of the committed seq for ``seat`` (None: a spectator).

        While a change is pending (or was dropped) the engine has moved on: the
        view is then the one kept for compact members of that seat, if any, else
        None (wait for the change to settle). A kept view is shared: never change
        it (:func:`timed` copies before setting the time). Views are not kept for
        every seat at every commit: a thousand rooms' views alive between moves
        were objects for the cycle collector to walk, and cost more CPU per move
        than a newcomer's rare wait for an append.
        """
        engine = self._engine
        if self._pending is None and not self._stale and engine is not None:
            return engine.view(seat)  # the engine is the committed game: a view of its own
        if self._bases_seq == self._seq:  # compact members' views of the seq, kept for them
            return self._bases.get(seat)
        return None

    def base_view(self, seat: int | None, wall: float) -> View | None:
        """The view a compact member gets on joining, kept so the next update patches it."""
        raw = self.view(seat)
        if raw is None:
            return None
        if self._bases_seq != self._seq:
            self._bases, self._bases_seq = {}, self._seq
        return self._bases.setdefault(seat, timed(raw, wall))

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

    def events_since(self, before: int) -> list[Event]:
        """Every event the journal holds after seq ``before`` (a catch-up after a rebuild)."""
        return [
            ev
            for seq, packed in self.recent
            if seq > before
            for ev in msgpack.unpackb(packed, raw=False)
        ]

    # -- the one way it changes -----------------------------------------------------------

    def propose(self, seat: int | None, action: dict[str, Any], now: float) -> Pending:
        """Run one entry through the engine; the change waits for :meth:`commit` or :meth:`drop`.

        ``now`` never goes back: an entry is journaled no earlier than the one before.

        Raises:
            GameError: the engine refused; nothing changed.
            RuntimeError: a change is pending already, or the core is stale (a defect
                of the shell, which proposes one change at a time, and none before
                a rebuild).
        """
        if self._pending is not None:
            raise RuntimeError(f"room {self.record.id}: seq {self._seq + 1} is pending already")
        if self._stale:
            raise RuntimeError(f"room {self.record.id}: stale until rebuilt")
        engine = self._engine
        if engine is not None and engine.status is Status.OVER and action != TICK:
            raise GameError(GameCode.GAME_OVER, "the game is over")
        seq, now = self._seq + 1, max(now, self._now)
        entry = JournalEntry(room=self.record.id, seq=seq, seat=seat, action=action, now=now)
        self._engine, events = step(self.record, engine, entry)
        self._pending = pending = Pending(entry=entry, events=events)
        return pending

    def commit(
        self,
        pending: Pending,
        members: Mapping[M, int | None],
        compact: set[M] | frozenset[M],
        *,
        wall: float,
        origin: M | None = None,
        re: int | None = None,
    ) -> list[tuple[M, bytes]]:
        """The journal holds ``pending``: show it, and return each member's ``update`` frame.

        ``wall``: the time the views are sent at (their ``now``). ``origin``/``re``:
        the acting member's copy answers its ``act``.
        """
        if pending is not self._pending:
            raise RuntimeError(f"room {self.record.id}: seq {pending.entry.seq} is not pending")
        self._pending = None
        self._seq, self._now = pending.entry.seq, pending.entry.now
        self._take()
        self.recent.append((self._seq, msgpack.packb(pending.events, use_bin_type=True)))
        return self.frames(pending.events, members, compact, wall=wall, origin=origin, re=re)

    def drop(self, pending: Pending) -> None:
        """The journal refused ``pending``, or could not say: forget it. Stale until rebuilt."""
        if pending is not self._pending:
            raise RuntimeError(f"room {self.record.id}: seq {pending.entry.seq} is not pending")
        self._pending = None
        self._stale = True
        self._engine = None  # it holds the dropped move: only a rebuild is trusted

    def rebuild(self, entries: Iterable[JournalEntry]) -> None:
        """Make the game again from its journal, as it stands (recovery: no I/O, no frames).

        On failure nothing changes (a stale core stays stale).

        Raises:
            GameError, ValueError: the journal cannot be replayed (a defect).
        """
        if self._pending is not None:
            raise RuntimeError(f"room {self.record.id}: rebuilt with seq {self._seq + 1} pending")
        engine: Game | None = None
        seq, now = 0, 0.0
        tail: collections.deque[tuple[int, list[Event]]] = collections.deque(maxlen=RECENT)
        for entry in entries:
            engine, events = step(self.record, engine, entry)
            seq, now = entry.seq, entry.now
            tail.append((seq, events))
        self._engine, self._stale, self._seq, self._now = engine, False, seq, now
        self.recent.clear()
        self.recent.extend((s, msgpack.packb(ev, use_bin_type=True)) for s, ev in tail)
        self._take()

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

    # -- frames ---------------------------------------------------------------------------

    def frames(
        self,
        events: list[Event],
        members: Mapping[M, int | None],
        compact: set[M] | frozenset[M],
        *,
        wall: float,
        origin: M | None = None,
        re: int | None = None,
    ) -> list[tuple[M, bytes]]:
        """The ``update`` of the committed seq for each member: one encoding per distinct one.

        Compact members get a patch from the view of the seq before, when it was
        kept for their seat (:meth:`base_view`); else the whole view, from which
        the next patch starts. Their events that the game's templates rebuild
        from the new view go by name. The acting member's copy also carries
        ``re`` (one more encoding).
        """
        seq = self._seq
        bases = self._bases if self._bases_seq == seq - 1 else {}
        templates = self._engine.derived_events if self._engine is not None else {}
        views: dict[int | None, View] = {}
        kept: dict[int | None, View] = {}
        updates: dict[tuple[int | None, bool], dict[str, Any]] = {}
        encoded: dict[tuple[int | None, bool], bytes] = {}
        out: list[tuple[M, bytes]] = []
        for member, seat in members.items():
            key = (seat, member in compact)
            update = updates.get(key)
            if update is None:
                view = views.get(seat)
                if view is None:
                    raw = self.view(seat)
                    assert raw is not None, "frames are made of the committed state"
                    view = views[seat] = timed(raw, wall)
                seen = visible(events, seat)
                if key[1]:  # what the view says all of goes by name (joined.derived)
                    if templates:
                        seen = shorten_events(seen, view, templates)  # type: ignore[assignment]
                    kept[seat] = view
                update = {"t": "update", "room": self.record.id, "seq": seq, "events": seen}
                base = bases.get(seat) if key[1] else None
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
        self._bases, self._bases_seq = kept, seq
        return out


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


def view_patch(old: View, new: View) -> Patch:
    """The patch from ``old`` to ``new``, with the server's ``now`` set whatever it was.

    Members of one seat may hold views of the same seq taken at different times
    (they joined at different moments): they differ only in ``now``, which the
    patch therefore always sets rather than compares.
    """
    if "now" not in old and "now" not in new:  # a game without a clock: nothing to leave out
        return diff(old, new)
    # The diff runs on the keys the member holds (keys go by their place among them),
    # with ``now`` as it holds it; ``now`` is then set, or removed, by name.
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
