"""Finished games, position by position: what ``replay`` answers.

A replay is rebuilt from the room's journal with the same :func:`step` a
room and its recovery use, so it shows exactly what was played. A client
steps through a game one ``replay`` at a time, forward and back: rebuilding
from the deal each time would cost a whole game per request, so a few rooms
are kept with a copy of their engine every :data:`EVERY` entries, and a
position is rebuilt from the nearest copy before it (at most ``EVERY - 1``
steps and one copy).
"""

from __future__ import annotations

import bisect
import collections
import copy
from dataclasses import dataclass, field
from typing import Any

from tilehall.server.games import Game, find_game
from tilehall.server.games.base import Event, step
from tilehall.server.store.records import JournalEntry, RoomRecord

__all__ = ["EVERY", "KEPT", "Position", "Replays"]

EVERY = 32
"""Journal entries between two copies of a replayed engine."""
KEPT = 16
"""Rooms whose journal and copies are kept between requests (the least recently
replayed is dropped first)."""


@dataclass(frozen=True, slots=True)
class Position:
    """A finished game just after one journal entry."""

    seq: int
    last: int
    """The seq of the game's last entry: a replay goes from 1 (the deal) to it."""
    events: list[Event]
    """What that entry caused, every seat's events included (nothing is private now)."""
    view: dict[str, Any]
    """A spectator's view then."""
    revealed: dict[str, Any]
    """What that view hid then (other players' racks...): the game is over, nothing is secret."""


@dataclass(slots=True)
class _Track:
    game: type[Game]
    record: RoomRecord
    entries: list[JournalEntry]
    seqs: list[int]
    copies: dict[int, Game] = field(default_factory=dict)
    """Index of the next entry to apply -> the engine just before it."""


class Replays:
    """Positions of finished rooms, rebuilt from journals the caller reads from the store."""

    def __init__(self, *, kept: int = KEPT, every: int = EVERY) -> None:
        self._tracks: collections.OrderedDict[str, _Track] = collections.OrderedDict()
        self._kept = kept
        self._every = every

    def has(self, room: str) -> bool:
        return room in self._tracks

    def load(self, record: RoomRecord, entries: list[JournalEntry]) -> None:
        """Keep a finished room's journal for the requests to come."""
        self._tracks[record.id] = _Track(
            game=find_game(record.game),
            record=record,
            entries=entries,
            seqs=[e.seq for e in entries],
        )
        self._tracks.move_to_end(record.id)
        while len(self._tracks) > self._kept:
            self._tracks.popitem(last=False)

    def record(self, room: str) -> RoomRecord:
        return self._tracks[room].record

    def last(self, room: str) -> int:
        track = self._tracks[room]
        return track.seqs[-1] if track.seqs else 0

    def at(self, room: str, seq: int) -> Position:
        """The position just after entry ``seq`` of a loaded room.

        Raises:
            KeyError: the room is not loaded.
            IndexError: the journal has no entry ``seq``.
        """
        track = self._tracks[room]
        self._tracks.move_to_end(room)
        target = bisect.bisect_left(track.seqs, seq)
        if target == len(track.seqs) or track.seqs[target] != seq:
            raise IndexError(seq)
        start = max((i for i in track.copies if i <= target), default=0)
        engine = copy.deepcopy(track.copies[start]) if start else None
        record = track.record
        game = find_game(record.game)
        events: list[Event] = []
        for i in range(start, target + 1):
            if i and i % self._every == 0 and i not in track.copies and engine is not None:
                track.copies[i] = copy.deepcopy(engine)
            engine, events = step(game, record, engine, track.entries[i])
        assert engine is not None
        return Position(
            seq=seq,
            last=track.seqs[-1],
            events=[{k: v for k, v in e.items() if k != "_to"} for e in events],
            view=engine.view(None),
            revealed=engine.revealed(),
        )
