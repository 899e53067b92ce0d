"""A room's lifecycle: its phases and every move between them, in one table.

This module owns which phase a room may go to from which, and nothing else
(as h11's ``_state.py`` owns a connection's). The room's core
(:mod:`.core`) asks :func:`moved` at each change; a change the table does not
hold is a defect of the core, and raises.

::

    waiting   --started-->  playing      the journal holds the start (every human seat
                                         taken; at once for a room of bots)
    playing   --ended----->  over        a committed entry ended the game
    waiting,
    playing   --not_kept-->  suspended   the journal did not confirm an append
    suspended --rebuilt--->  waiting,    made again from what the journal holds (also
    waiting                  playing,    a room recovered at start-up, or taken over)
                             over
    (any but
    closed)   --closed---->  closed      closed for good, let go to another node, or
                                         its server stopping

The engines know only playing and over; *waiting* is the room's until its
start is journaled, *suspended* and *closed* are the room's alone. A room that
is over stays until the lobby forgets it (``--finished-ttl``) and takes no
more entries; its result may still wait for the store (:mod:`.core`).
"""

from __future__ import annotations

import enum

__all__ = ["TRANSITIONS", "Change", "Phase", "moved"]


class Phase(enum.StrEnum):
    """Where a room is in its life (``status`` on the wire is the game's, not this)."""

    WAITING = "waiting"
    """Made; its start is not journaled yet (a seat open, or the start in flight)."""
    PLAYING = "playing"
    """The journal holds the start; the game goes on."""
    OVER = "over"
    """The journal holds the game's end."""
    SUSPENDED = "suspended"
    """The journal did not confirm an append: nothing is shown or played until rebuilt."""
    CLOSED = "closed"
    """Gone from this server: closed for good, handed to another node, or stopping."""


class Change(enum.StrEnum):
    """What moves a room from one phase to another."""

    STARTED = "started"
    ENDED = "ended"
    NOT_KEPT = "not_kept"
    REBUILT = "rebuilt"
    CLOSED = "closed"


_LIVE = (Phase.WAITING, Phase.PLAYING, Phase.OVER)
TRANSITIONS: dict[tuple[Phase, Change], tuple[Phase, ...]] = {
    (Phase.WAITING, Change.STARTED): (Phase.PLAYING,),
    # A start that is also the end (a game over at once) is started, then ended.
    (Phase.PLAYING, Change.ENDED): (Phase.OVER,),
    # An over room appends nothing more: only a waiting or playing one can lose an entry.
    (Phase.WAITING, Change.NOT_KEPT): (Phase.SUSPENDED,),
    (Phase.PLAYING, Change.NOT_KEPT): (Phase.SUSPENDED,),
    (Phase.SUSPENDED, Change.REBUILT): _LIVE,
    # Rebuilt at start-up (recovery) or after a takeover: the phase the journal says.
    (Phase.WAITING, Change.REBUILT): _LIVE,
    **{(p, Change.CLOSED): (Phase.CLOSED,) for p in (*_LIVE, Phase.SUSPENDED)},
}
"""Each phase and change, to the phases the change may lead to from there."""


def moved(phase: Phase, change: Change, to: Phase) -> Phase:
    """The room goes from ``phase`` to ``to`` by ``change``: checked against the table.

    Returns:
        ``to``.

    Raises:
        RuntimeError: the table has no such move (a defect of the room's core).
    """
    if to not in TRANSITIONS.get((phase, change), ()):
        raise RuntimeError(f"a room cannot go from {phase} to {to} by {change}")
    return to
