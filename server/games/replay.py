"""How a journal entry drives an engine: one function for every reader of a journal.

A room's journal holds, besides the players' actions, entries of the room's
own: ``_start`` (play began: build the engine from the room's options and
seed), ``_tick`` (let the clock run), ``_pause``/``_resume`` (its players went
away, or came back: the clock stops and starts) and ``_standin``/``_standback``
(a COMP plays an away player's seat, or gives it back). :func:`step` reads one entry the
way the room applied it, so whatever reads a journal makes exactly the same
game without importing the room: a room's *rebuild* (recovery, a takeover in
a cluster), a finished game's *replay* (the ``replay`` request, ``admin
replay``), and tests. (A game's *undo* plays its own entries again from a
copy: :mod:`.base`.)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol

from tilehall.server.games import find_game
from tilehall.server.games.base import TICK, Event, Game, Pause

__all__ = [
    "RESUME",
    "START",
    "TICK",
    "Entry",
    "SeatLike",
    "Table",
    "away",
    "stand_back",
    "stand_in",
    "step",
]


class SeatLike(Protocol):
    """What :func:`step` reads of a seat: whether a COMP holds it (its level, or None)."""

    @property
    def bot(self) -> str | None: ...


class Table(Protocol):
    """What :func:`step` reads of a room's record (a ``RoomRecord`` is one)."""

    @property
    def game(self) -> str: ...

    @property
    def options(self) -> dict[str, Any]: ...

    @property
    def seed(self) -> int: ...

    @property
    def seats(self) -> Sequence[SeatLike]: ...


class Entry(Protocol):
    """What :func:`step` reads of a journal entry (a ``JournalEntry`` is one)."""

    @property
    def seat(self) -> int | None: ...

    @property
    def action(self) -> dict[str, Any]: ...

    @property
    def now(self) -> float: ...


START: dict[str, Any] = {"do": "_start"}
"""The journal's first entry: play began at its ``now``."""

RESUME: dict[str, Any] = {"do": "_resume"}
"""The room's players are back: the clock runs again."""


def away() -> dict[str, Any]:
    """The room's players are all away: the clock stops (``Pause.AWAY``)."""
    return {"do": "_pause", "why": Pause.AWAY.value}


def stand_in(seat: int) -> dict[str, Any]:
    """A COMP stand-in plays ``seat`` (its player away on their turn)."""
    return {"do": "_standin", "seat": seat}


def stand_back(seat: int) -> dict[str, Any]:
    """``seat``'s player takes the seat back from its stand-in."""
    return {"do": "_standback", "seat": seat}


def step(record: Table, engine: Game | None, entry: Entry) -> tuple[Game, list[Event]]:
    """Apply one journal ``entry`` of the room ``record`` to ``engine``.

    ``_start`` builds the engine from the record's options, seed and seats (those a
    COMP holds are its bots), anything else is handed to the engine as it stands.
    Every reader of a journal (a room, its rebuild, a finished game's ``replay``,
    ``admin replay``, tests) calls this one function, so none unpacks the record
    its own way.

    Returns:
        The engine (new after ``_start``) and the events the entry caused.

    Raises:
        ValueError: an entry other than ``_start`` comes before the start.
        GameError: the engine refused the action (nothing changed).
    """
    action = entry.action
    if action == START:
        seats = record.seats
        bots = frozenset(i for i, s in enumerate(seats) if s.bot is not None)
        fresh = find_game(record.game)(
            options=record.options,
            seats=len(seats),
            rng=random.Random(record.seed),
            now=entry.now,
            bots=bots,
        )
        return fresh, [{"e": "started"}]
    if engine is None:
        raise ValueError(f"journal entry {action!r} comes before the start")
    return engine, engine.apply_entry(entry.seat, action, entry.now)
