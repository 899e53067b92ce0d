"""What goes into a room's core and what comes out: typed events and effects.

The core (:mod:`.core`) is a state machine: the shell (:mod:`.shell`) feeds it
one **event** at a time (a member's act, a join, a timer falling due, the
store's answer) and carries out the **effects** it hands back (frames to send,
an entry to append, a timer to set, a write to make). The shell decides
nothing: every ``if`` about the game, its seats or its members is the core's.

Each is a small named tuple: one is made for every move, and a tuple costs a
fraction of a dataclass to make. A *ticket* is the shell's own token for a
request waiting for its answer (an act, a join); the core only hands it back.
"""

from __future__ import annotations

import enum
from typing import Any, NamedTuple

from tilehall.server.ratings import RatedGame
from tilehall.server.room.member import Member
from tilehall.server.store.records import JournalEntry, RoomRecord, ScoreRecord, SeatRecord

__all__ = [
    "Act",
    "Answer",
    "Append",
    "Appended",
    "Arm",
    "Begin",
    "Close",
    "Disarm",
    "Due",
    "Effect",
    "Event",
    "Finish",
    "ForgetBots",
    "Frames",
    "Hold",
    "Join",
    "JournalRead",
    "Leave",
    "Moved",
    "NotAppended",
    "Note",
    "Over",
    "PushSummary",
    "ReadJournal",
    "Refuse",
    "Release",
    "ResultKept",
    "Resume",
    "Sooner",
    "StoreBack",
    "StoreFailed",
    "Think",
    "Thought",
    "Timer",
    "WaitStore",
    "Watch",
    "Write",
    "Written",
]


class Timer(enum.StrEnum):
    """The timers a room asks its shell for: one of each kind at most."""

    TICK = "tick"
    """The game's next deadline: its clock steps (``_tick``)."""
    STANDIN = "standin"
    """The seat to move has been away ``standin_after`` seconds: a COMP plays it."""
    FILL = "fill"
    """Quick-match: the seats nobody came for go to bots."""
    BOT = "bot"
    """A COMP waits ``bot_delay`` before it thinks (so people can follow its moves)."""


# -- events: what the shell tells the core ---------------------------------------------


class Act(NamedTuple):
    """A member's ``act``: answered by its own update (carrying ``re``) or refused."""

    member: Member
    action: Any
    seq: int | None
    re: int | None
    ticket: object


class Join(NamedTuple):
    """A player asks for a seat (``want``: a given one): seated, then entered as :class:`Watch`."""

    member: Member
    player: int
    name: str
    want: int | None
    compact: bool
    since: int | None
    ticket: object


class Watch(NamedTuple):
    """A connection enters to watch (in its own seat, if it holds one)."""

    member: Member
    compact: bool
    since: int | None
    ticket: object


class Leave(NamedTuple):
    """A member leaves, or its connection ended (it keeps its seat)."""

    member: Member


class Begin(NamedTuple):
    """A room just made: it starts if it can (bots only), and quick-match arms its fill."""

    ticket: object


class Resume(NamedTuple):
    """A room rebuilt at start-up or taken over: nobody is here yet; play on from the journal."""

    ticket: object


class Due(NamedTuple):
    """A timer the core asked for fell due (``at``: the time it was set for)."""

    timer: Timer
    at: float


class Appended(NamedTuple):
    """The journal holds the entry of seq ``seq``."""

    seq: int


class NotAppended(NamedTuple):
    """The journal did not confirm seq ``seq``: refused (``refused``), or it could not say."""

    seq: int
    error: BaseException
    refused: bool


class Written(NamedTuple):
    """A :class:`Write` was done (``error`` None) or not."""

    error: Exception | None


class Thought(NamedTuple):
    """A COMP of ``seat`` chose ``action`` (None: it had none, or crashed) at seq ``seq``."""

    seat: int
    seq: int
    action: dict[str, Any] | None


class ResultKept(NamedTuple):
    """The game's result is in the store (after a :class:`Finish`), or not (``error``):
    then it is tried again once the store answers."""

    error: Exception | None = None


class StoreBack(NamedTuple):
    """The store answers again (after a :class:`WaitStore`)."""


class JournalRead(NamedTuple):
    """The room's record and journal as the store holds them (after :class:`ReadJournal`).

    ``record`` None: the store no longer has the room.
    """

    record: RoomRecord | None
    entries: list[JournalEntry]


class Hold(NamedTuple):
    """Hold the room between two moves (answered once nothing is in flight)."""

    ticket: object


class Release(NamedTuple):
    """The hold is over."""


class Sooner(NamedTuple):
    """Quick-match: another player waits at most until ``at`` for the bots."""

    at: float
    ticket: object


class Close(NamedTuple):
    """The room is closed here for good (closed, forgotten, let go, stopping)."""


Event = (
    Act
    | Join
    | Watch
    | Leave
    | Begin
    | Resume
    | Due
    | Appended
    | NotAppended
    | Written
    | Thought
    | ResultKept
    | StoreBack
    | JournalRead
    | Hold
    | Release
    | Sooner
    | Close
)


# -- effects: what the core asks of the shell ---------------------------------------------


class Frames(NamedTuple):
    """Send each member its frame (never waits: see :meth:`Member.push`)."""

    frames: list[tuple[Member, bytes]]


class Answer(NamedTuple):
    """A request waiting on ``ticket`` is done: ``value`` is its reply (None: updates say it)."""

    ticket: object
    value: dict[str, Any] | None


class Refuse(NamedTuple):
    """A request waiting on ``ticket`` is refused: a ProtocolError, GameError or
    StoreUnavailable."""

    ticket: object
    error: Exception


class Append(NamedTuple):
    """Append ``entry`` to the journal; answer :class:`Appended` or :class:`NotAppended`."""

    entry: JournalEntry


class Write(NamedTuple):
    """Write to the room's record: ``seats`` (the whole list), ``fill_at``, or ``status``.

    Answer :class:`Written`; only ``status`` needs none (it is for people reading
    the database).
    """

    seats: tuple[SeatRecord, ...] | None = None
    fill_at: float | None = None
    status: str | None = None


class Finish(NamedTuple):
    """Keep the finished game's result, scores and rating; answer :class:`ResultKept`."""

    result: dict[str, Any]
    scores: list[ScoreRecord]
    now: float
    rating: RatedGame | None


class Arm(NamedTuple):
    """Set ``timer`` to fall due at ``at`` (wall time), replacing the one set before."""

    timer: Timer
    at: float


class Disarm(NamedTuple):
    """Call ``timer`` off."""

    timer: Timer


class Think(NamedTuple):
    """Let the COMP of ``seat`` (at ``level``) choose a move from ``view``, off the event loop;
    answer :class:`Thought`."""

    seat: int
    seq: int
    level: str
    view: dict[str, Any]


class ForgetBots(NamedTuple):
    """A move was dropped: the bots' memory of it goes too."""


class ReadJournal(NamedTuple):
    """Read the room's record and journal once the store answers, ``after`` seconds from
    now at the soonest; answer :class:`JournalRead`."""

    after: float


class WaitStore(NamedTuple):
    """Answer :class:`StoreBack` once the store answers again."""


class StoreFailed(NamedTuple):
    """The store did not do what it was asked (tell the server's watcher of its health)."""

    error: Exception


class PushSummary(NamedTuple):
    """The room's summary may have changed: push it to the members (once per loop turn)."""


class Over(NamedTuple):
    """The game's result is kept: the lobby keeps the room a while, then forgets it."""


class Moved(NamedTuple):
    """The store names another node for this room: let it go."""


class Note(NamedTuple):
    """A line for the server's log."""

    level: int
    message: str


Effect = (
    Frames
    | Answer
    | Refuse
    | Append
    | Write
    | Finish
    | Arm
    | Disarm
    | Think
    | ForgetBots
    | ReadJournal
    | WaitStore
    | StoreFailed
    | PushSummary
    | Over
    | Moved
    | Note
)
