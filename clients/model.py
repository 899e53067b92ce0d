"""What the server said about the lobby and each room: the one model of every client.

The terminal, pygame and bot clients draw (or decide) from these objects and
nothing else. They are fed only by the server's frames, as
:class:`~tilehall.clients.connection.Connection` hands them over, never by
guesses about the rules; they know nothing of Textual, pygame or sockets, so
that the rule below is written, and tested, once.

**Which frames about a room are taken.** A room's frames carry ``seq``, which
the server raises by exactly one per accepted change. :class:`RoomModel` holds
the state at ``seq`` and takes a frame by this rule:

``update``
    Taken when its seq is above the held one; dropped otherwise. A compact
    update carries a ``patch`` to the view of the seq before it instead of the
    view: taken only on that view (after a gap, or a patch that does not fit,
    the model is :attr:`~RoomModel.behind` and the rejoin brings the whole
    view). Its events that the new view says all of come as their names, and
    are rebuilt from it by the templates of ``joined.derived``. An older or
    equal one is a duplicate (an action's own update comes back as the reply
    and as a pushed frame) or one that a snapshot already covers. Every update
    carries the whole view, so one that skips seqs is still the newest state
    and is taken; but the updates in between were never seen, so the model is
    marked :attr:`~RoomModel.behind` and :meth:`~RoomModel.rejoin_due` tells the
    client, once, to ``join``/``watch`` again with its last seq
    (:meth:`Connection.rejoin <tilehall.clients.connection.Connection.rejoin>`),
    as the protocol asks after a gap.

``_rejoined``
    The ``joined`` snapshot a connection gets when it joins a room again, after
    a reconnect or for :meth:`~RoomModel.rejoin_due`. It replaces the state
    *whatever its seq*. :class:`Connection` pushes it at its place among the
    frames the server sent, so nothing before it is newer and updates after it
    follow on from it; a snapshot older than the held state then means the
    server itself went back (it lost the last commits of its journal: a power
    cut under ``synchronous=NORMAL``, a store restored from a backup), and its
    word is the truth: holding on to the newer seq would drop every update the
    room sends until it gets back there. (The bot client used to force its seq
    to -1 on every ``_rejoined`` for this reason; the rule makes that the same
    for every client.)

``joined``
    The reply to the client's own ``join``/``watch``, which the caller reads
    when its request returns, possibly after pushed updates that are newer. It
    replaces the state when its seq is not older than the held one.

A snapshot's ``missed`` updates (listed when the request carried a seq) that
the model had not taken yet become the events to show; a snapshot clears
``behind``.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tilehall.protocol import patch
from tilehall.protocol.patch import PatchError

__all__ = [
    "CHAT_LINES",
    "Change",
    "LobbyModel",
    "ReplayModel",
    "RoomModel",
    "ServerClock",
    "seat_label",
]

CHAT_LINES = 100
"""The chat lines a room keeps and gives in ``joined.chat`` (PROTOCOL.md, joined)."""


@dataclass(slots=True)
class ServerClock:
    """The server's clock as this client reads it: its own wall clock plus the skew.

    Deadlines in views are the server's times. A view with a clock carries the
    server's ``now`` as it was sent; the difference from this machine's clock
    at arrival is the skew (plus the frame's trip, a few milliseconds), so a
    countdown is right on a machine whose clock is off, and right after a
    rejoin that brought an older view.
    """

    skew: float = 0.0
    """Server time minus local time, as of the last view that said."""
    wall: Callable[[], float] = time.time
    """This machine's clock (tests pass their own)."""

    def saw(self, view: dict[str, Any]) -> None:
        """A view arrived now: take its ``now``, if it has one."""
        server_now = view.get("now")
        if isinstance(server_now, int | float):
            self.skew = float(server_now) - self.wall()

    def now(self) -> float:
        """The server's time now, as well as this client can tell."""
        return self.wall() + self.skew

    def left(self, deadline: float | None) -> float | None:
        """Seconds until the server's ``deadline`` (never below 0); None without one."""
        if deadline is None:
            return None
        return max(0.0, deadline - self.now())


def seat_label(seat: dict[str, Any] | None, index: int) -> str:
    """How a seat of a room summary reads in a list: its name, or that it is free.

    ``index`` counts from 0, as the protocol does; people read seats from 1.
    """
    if seat is None:
        return f"seat {index + 1}"
    name = seat.get("name")
    if not seat.get("taken"):
        return f"({name}?)" if name else "(free)"
    assert name is not None or seat.get("bot")
    return str(name or "COMP")


@dataclass(frozen=True, slots=True)
class Change:
    """One update the model took: its events and the view before and after.

    ``at`` is when it arrived, as the client's clock reads (``time.monotonic()``
    in the pygame client), so that a client can animate what the events
    describe: a chip's path, a Shisen-Sho extraction.
    """

    seq: int
    events: list[dict[str, Any]]
    before: dict[str, Any]
    after: dict[str, Any]
    at: float


@dataclass(slots=True)
class RoomModel:
    """One room this client sits in or watches, as the server last described it.

    ``events`` are what to show as just happened: those of the last update, or
    the missed ones of a snapshot. The state itself is ``view``.
    """

    room: str
    seat: int | None
    seq: int
    view: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, Any] | None = None
    """The last ``room`` push (seat names, who is connected, spectators)."""
    code: str | None = None
    """The private code, when this client created a private room."""
    changes: deque[Change] = field(default_factory=lambda: deque(maxlen=32))
    """The last updates taken, oldest first."""
    chat: deque[tuple[str, str]] = field(default_factory=lambda: deque(maxlen=CHAT_LINES))
    """The room's latest chat lines, oldest first: (from, text). Each ``joined`` (a join,
    a reload, a rejoin after a reconnect) replaces them by its ``chat``, the lines the
    room kept; each ``chat`` frame after it adds one."""
    behind: bool = False
    """An update skipped seqs, and no snapshot has come since (see the module's rule)."""
    clock: ServerClock = field(default_factory=ServerClock)
    """The server's clock, corrected by each view's ``now``: count down with
    :meth:`ServerClock.left` on the view's deadlines."""
    derived: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    """``joined.derived``: how to rebuild the events a compact update sends by name."""
    _rejoin_asked: bool = field(default=False, repr=False)

    @classmethod
    def from_joined(
        cls, joined: dict[str, Any], summary: dict[str, Any] | None = None
    ) -> RoomModel:
        """The model of a room just joined or watched (a ``joined`` reply)."""
        model = cls(room=joined["room"], seat=joined["seat"], seq=joined["seq"], view={})
        model.summary = summary
        model._take_snapshot(joined, since=-1)
        return model

    def apply(self, msg: dict[str, Any], now: float = 0.0) -> bool:
        """Take in one frame about this room by the module's rule; whether it was taken.

        Args:
            msg: any frame; those of other rooms, and kinds the model does not
                hold, are not taken.
            now: the arrival time to record in the update's :class:`Change`.
        """
        if msg.get("room") != self.room:
            return False
        t = msg.get("t")
        if t == "update":
            return self._take_update(msg, now)
        if t == "_rejoined" or (t == "joined" and msg["seq"] >= self.seq):
            self._take_snapshot(msg, since=self.seq)
            if t == "_rejoined":  # the answer to a rejoin: another may go out after a gap
                self._rejoin_asked = False
            return True
        if t == "room":
            self.summary = {k: v for k, v in msg.items() if k not in ("t", "re")}
            return True
        if t == "chat":
            self.chat.append((msg["from"], msg["text"]))
            return True
        return False

    def _take_update(self, msg: dict[str, Any], now: float) -> bool:
        seq: int = msg["seq"]
        if seq <= self.seq:
            return False
        if "patch" in msg:  # compact: what changed since seq - 1, which we must hold
            if seq != self.seq + 1 and "re" in msg:
                # The reply to our own act, ahead of pushed updates not taken yet: its
                # pushed copy comes after them (Connection queues it in order).
                return False
            try:
                if seq != self.seq + 1:
                    raise PatchError(f"a patch for seq {seq - 1}, and we hold {self.seq}")
                view = patch.apply(self.view, msg["patch"])
                events = patch.expand_events(msg["events"], view, self.derived)
            except PatchError:
                self.behind = True  # rejoin_due: the snapshot brings the whole view
                return False
        else:
            view = msg["view"]
            try:
                events = patch.expand_events(msg["events"], view, self.derived)
            except PatchError:  # a name we cannot read: the view is right, the events lost
                events = [ev for ev in msg["events"] if isinstance(ev, dict)]
                self.behind = True
            if seq > self.seq + 1:
                self.behind = True
        change = Change(seq=seq, events=events, before=self.view, after=view, at=now)
        self.seq, self.view, self.events = seq, view, change.events
        self.clock.saw(self.view)
        self.changes.append(change)
        return True

    def _take_snapshot(self, msg: dict[str, Any], since: int) -> None:
        missed = msg.get("missed") or []
        self.events = [ev for upd in missed if upd["seq"] > since for ev in upd.get("events", [])]
        self.seq, self.seat, self.view = msg["seq"], msg["seat"], msg["view"]
        if "derived" in msg:
            self.derived = msg["derived"]
        # joined.chat is every line kept so far (absent: none): the server sends each line
        # either there or as a chat frame after it, so replacing shows each once.
        self.chat.clear()
        self.chat.extend((str(c["from"]), str(c["text"])) for c in msg.get("chat") or ())
        self.clock.saw(self.view)
        self.behind = False

    def rejoin_due(self) -> bool:
        """Whether to join the room again now: True once after a gap, until the rejoin is answered.

        Once, so that a single request goes out however many updates (or other
        snapshots, such as a late ``joined``) arrive before its answer.
        """
        if not self.behind or self._rejoin_asked:
            return False
        self._rejoin_asked = True
        return True

    # -- reading the view -------------------------------------------------------------

    @property
    def game(self) -> str:
        return str(self.view.get("game") or (self.summary or {}).get("game") or "?")

    @property
    def status(self) -> str:
        return str(self.view.get("status", "waiting"))

    @property
    def over(self) -> bool:
        return self.status == "over"

    @property
    def to_move(self) -> int | None:
        value = self.view.get("to_move")
        return value if isinstance(value, int) else None

    @property
    def my_turn(self) -> bool:
        """Whether this client may act now (it holds the seat that is to move)."""
        return self.seat is not None and self.status == "playing" and self.to_move == self.seat

    @property
    def scores(self) -> list[int]:
        return list(self.view.get("scores") or [])

    def names(self) -> list[str]:
        """Each seat as a list of seats reads it (see :func:`seat_label`).

        The names come from the last room summary (the view carries none).
        Names that repeat (several ``COMP`` seats) get their seat number: ``COMP1``;
        open seats stay ``(free)``.
        """
        seats = (self.summary or {}).get("seats") or []
        count = max(len(seats), len(self.scores))
        names = [seat_label(seats[i] if i < len(seats) else None, i) for i in range(count)]
        return [
            f"{n}{i + 1}" if names.count(n) > 1 and not n.startswith("(") else n
            for i, n in enumerate(names)
        ]

    def name(self, seat: int | None) -> str:
        """``seat`` as :meth:`names` reads it; ``-`` for no seat."""
        if seat is None:
            return "-"
        names = self.names()
        return names[seat] if 0 <= seat < len(names) else f"seat {seat + 1}"

    def seat_name(self, seat: int) -> str:
        """The bare name of whoever holds ``seat``, else a plain label counted from 1.

        A name that several seats share (bots all called ``COMP``) gets the seat's
        number, as in :meth:`names`: ``COMP1``, ``COMP2``.
        """
        seats = (self.summary or {}).get("seats") or []
        if seat < len(seats) and seats[seat].get("name"):
            name = str(seats[seat]["name"])
            shared = sum(1 for s in seats if s.get("name") == name) > 1
            return f"{name}{seat + 1}" if shared else name
        return f"seat {seat + 1}"

    def away(self, seat: int) -> bool:
        """A player holds the seat but is not connected (bots and free seats are never away)."""
        seats = (self.summary or {}).get("seats") or []
        if seat >= len(seats):
            return False
        s = seats[seat]
        return bool(s.get("taken")) and not s.get("bot") and not s.get("connected")

    def spectators(self) -> int:
        return int((self.summary or {}).get("spectators") or 0)

    @property
    def paused(self) -> str | None:
        """Why play stands still: ``away`` (its players are away), ``player`` (paused by its
        player), ``unwatched`` (bots only, waiting for a spectator); None while it goes on."""
        why = self.view.get("paused") or (self.summary or {}).get("paused")
        return str(why) if why else None

    def stood_in(self, seat: int) -> bool:
        """A COMP stand-in plays ``seat`` now (its player away on their turn; Mathable)."""
        return seat in (self.view.get("standins") or [])

    def vote_ends_game(self) -> bool | None:
        """Whether our Mathable quit vote, cast now, would end the game at once.

        It does when every other human seat votes to quit already (COMP seats never
        vote; against COMP alone ours is every human vote): the clients then ask
        before sending it, as solo games ask before quitting. None when that cannot
        be told yet: which seats are COMP is in the room's summary, and a vote cast
        before it came (a click right after joining) could end a game against COMP
        unasked. The clients ask then too, as the web client does.
        """
        votes = set(self.view.get("quit_votes") or [])
        if self.seat is None or self.status != "playing" or self.seat in votes:
            return False
        seats = (self.summary or {}).get("seats") or []
        count = max(len(seats), len(self.scores))
        humans = [i for i in range(count) if not (i < len(seats) and seats[i].get("bot"))]
        if all(i in votes for i in humans if i != self.seat):
            return True
        return None if not seats else False

    def bots_in(self) -> float | None:
        """A quick-match room still waiting: seconds until COMP players take the open seats."""
        at = (self.summary or {}).get("bots_at")
        if self.status != "waiting" or not isinstance(at, int | float):
            return None
        return self.clock.left(float(at))

    def event(self, kind: str) -> dict[str, Any] | None:
        """The last event of this kind among :attr:`events`, if any."""
        found: dict[str, Any] | None = None
        for ev in self.events:
            if ev.get("e") == kind:
                found = ev
        return found

    def last_events(self, since: float) -> list[tuple[Change, dict[str, Any]]]:
        """Every event of the changes that arrived after ``since`` (as ``now`` was given)."""
        return [(ch, ev) for ch in self.changes if ch.at >= since for ev in ch.events]


_RANK = {"waiting": 0, "playing": 1, "over": 2}


@dataclass(slots=True)
class LobbyModel:
    """The lobby: who we are, the games, the rooms, and the high scores asked for.

    Fed by ``welcome`` (the player, ``games``, and ``rooms``: those where the
    player holds a seat), ``rooms`` replies (the public list, polled), ``room``
    pushes (one room's summary, for the rooms this connection is in), ``joined``
    (a seat taken now is the player's too) and ``scores`` replies.
    """

    player: str | None = None
    protected: bool = False
    """Whether the name has a password (``welcome.password``, then a ``password_set``):
    without one, signing out would lose it, and the clients ask for one first."""
    games: list[dict[str, Any]] = field(default_factory=list)
    """``welcome.games``: every game with its seats, options and bot levels."""
    rooms: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The public rooms by id: the last ``rooms`` reply, and ``room`` pushes since."""
    mine: list[str] = field(default_factory=list)
    """Rooms where this player holds a seat, even private ones."""
    summaries: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The last ``room`` push of each room, private ones too: a room's screen
    opened just after its push still gets it."""
    scores: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The last ``scores`` reply of each game."""
    ratings: dict[str, dict[str, Any]] = field(default_factory=dict)
    """This player's rating in each rated game (``rating``, ``rd``, ``games``): from
    ``welcome``, then from each ``leaderboard`` reply's ``mine``."""
    leaderboards: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The last ``leaderboard`` reply of each game."""
    history: dict[str, Any] | None = None
    """The last ``history`` reply: one page of someone's finished games."""

    def apply(self, msg: dict[str, Any]) -> None:
        """Take in a frame; those the lobby does not hold are ignored."""
        t = msg.get("t")
        if t == "welcome":
            self.player = msg["player"]
            self.protected = bool(msg.get("password"))
            self.games = list(msg["games"])
            self.mine = list(msg.get("rooms", []))
            self.ratings = dict(msg.get("ratings") or {})
        elif t == "rooms":
            self.replace(msg["rooms"], complete=msg.get("next") is None)
        elif t == "room":
            self.push(msg)
        elif t in ("joined", "_rejoined"):
            if msg["seat"] is not None and msg["room"] not in self.mine:
                self.mine.append(msg["room"])
        elif t == "scores":
            self.scores[msg["game"]] = msg
        elif t == "leaderboard":
            self.leaderboards[msg["game"]] = msg
            self.ratings[msg["game"]] = msg["mine"]
        elif t == "history":
            self.history = msg
        elif t == "password_set":
            self.protected = True

    def replace(self, rooms: list[dict[str, Any]], *, complete: bool = False) -> None:
        """A fresh ``rooms`` reply: the public list as the server has it now.

        ``complete``: the reply is the whole list (its ``next`` is null). A public
        room of mine that it lacks is gone from the server (a finished room is
        dropped after a while), so it leaves :attr:`mine` too, rather than stay on
        as a row that only says ``(private)`` and answers ``unknown_room``.
        """
        fresh = {r["room"]: r for r in rooms}
        if complete:
            for rid in [r for r in self.mine if r not in fresh and self.was_public(r)]:
                self.forget(rid)
        self.rooms = fresh

    def was_public(self, room: str) -> bool:
        """Whether ``room`` was known as a listed room (a private one never is listed)."""
        known = self.rooms.get(room) or self.summaries.get(room)
        return known is not None and not known.get("private")

    def forget(self, room: str) -> None:
        """``room`` is gone from the server (``unknown_room``): drop it from every list."""
        if room in self.mine:
            self.mine.remove(room)
        self.rooms.pop(room, None)
        self.summaries.pop(room, None)

    def push(self, msg: dict[str, Any]) -> None:
        """A ``room`` push: one room's summary changed (a private one stays unlisted)."""
        summary = {k: v for k, v in msg.items() if k not in ("t", "re")}
        self.summaries[msg["room"]] = summary
        if not msg.get("private"):
            self.rooms[msg["room"]] = summary

    def summary(self, room: str) -> dict[str, Any] | None:
        """The latest summary of ``room``: its last push, else its entry in the list."""
        return self.summaries.get(room) or self.rooms.get(room)

    def game(self, name: str) -> dict[str, Any] | None:
        """The ``welcome.games`` entry of ``name``."""
        return next((g for g in self.games if g["name"] == name), None)

    def title(self, name: str) -> str:
        g = self.game(name)
        return str(g["title"]) if g else name

    def ordered(self) -> list[dict[str, Any]]:
        """The rooms to list: mine first, then those waiting for players, playing, over.

        Within each, by game, then by id. A room of mine that the list lacks
        (a private one) gets an entry of its own with ``listed`` false and no
        ``game`` or ``status``, since only its id is known to the list.
        """
        listed = list(self.rooms.values())
        listed += [
            {"room": r, "seats": [], "spectators": 0, "private": True, "listed": False}
            for r in self.mine
            if r not in self.rooms
        ]
        return sorted(
            listed,
            key=lambda r: (
                r["room"] not in self.mine,
                _RANK.get(r.get("status", ""), 3),
                r.get("game") or "",
                r["room"],
            ),
        )


@dataclass(slots=True)
class ReplayModel:
    """A finished room stepped through, one ``replayed`` reply per position.

    The client asks ``{"t": "replay", "room": room, "seq": n}`` for the
    :meth:`target` of a step and gives each reply to :meth:`take`; positions
    already seen are kept, so stepping back costs no request (:meth:`cached`).
    Seq 1 is the deal, :attr:`last` the final position (known after the first
    reply).
    """

    room: str
    seq: int = 0
    """The position shown (0: none yet)."""
    last: int | None = None
    frames: dict[int, dict[str, Any]] = field(default_factory=dict)
    """The ``replayed`` replies received, by seq."""

    def take(self, msg: dict[str, Any]) -> bool:
        """A ``replayed`` reply of this room: show it. Others are not taken."""
        if msg.get("t") != "replayed" or msg.get("room") != self.room:
            return False
        self.frames[msg["seq"]] = msg
        self.seq, self.last = msg["seq"], msg["last"]
        return True

    def target(self, step: str) -> int:
        """The seq a step goes to: ``first``, ``back``, ``forward`` or ``last`` (the last is
        asked as a large seq until known: the refusal says the range, so ask ``first`` first)."""
        last = self.last if self.last is not None else 1
        return {
            "first": 1,
            "back": max(1, self.seq - 1),
            "forward": min(last, self.seq + 1),
            "last": last,
        }[step]

    def cached(self, seq: int) -> bool:
        """Show a position already received, without asking again; whether it was."""
        if seq in self.frames:
            self.seq = seq
            return True
        return False

    @property
    def current(self) -> dict[str, Any] | None:
        """The reply shown: its ``view``, ``events``, ``revealed``, ``players``."""
        return self.frames.get(self.seq)

    @property
    def at_end(self) -> bool:
        return self.last is not None and self.seq >= self.last
