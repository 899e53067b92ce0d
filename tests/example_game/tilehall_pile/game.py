"""Pile's rules: a pile of counters; each turn takes one to ``most``; whoever takes the last loses.

An engine is pure: it is built from its options, its seat count, a seeded
``random.Random`` and the time, and changes only by :meth:`Game.act` (and the
room's own entries). It reads no clock and does no I/O, so Tilehall can journal
its actions and replay them exactly.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

from tilehall.server.games import Game, IllegalMove, Option, Status
from tilehall.server.games.actions import Action, ActionSpec, action_table, int_field
from tilehall.server.games.base import Event

__all__ = ["MOST", "Pile"]

MOST = 9
"""The largest ``most`` option: the bound the action's schema checks ``count`` against."""


class Pile(Game):
    """Two to four players take counters in turn; the one who takes the last loses."""

    name = "pile"
    title = "Pile"
    summary = "Take counters in turn; whoever takes the last one loses."
    min_seats = 2
    max_seats = 4
    options = (
        Option(
            name="counters",
            label="Counters",
            kind="int",
            default=21,
            min=5,
            max=99,
            doc="counters on the pile at the start",
        ),
        Option(
            name="most",
            label="Most a turn",
            kind="int",
            default=3,
            min=2,
            max=MOST,
            doc="the most counters one turn may take",
        ),
    )
    view_fields: ClassVar[Mapping[str, str]] = {
        "left": "int",
        "most": "int",
        "taken": "ints",
        "last": "map?",
    }
    event_fields: ClassVar[Mapping[str, Mapping[str, str]]] = {
        "took": {"seat": "int", "count": "int", "left": "int"},
        "game_over": {"loser": "int"},
    }
    result_fields: ClassVar[Mapping[str, str]] = {"loser": "int"}

    def __init__(
        self,
        *,
        options: Mapping[str, Any],
        seats: int,
        rng: random.Random,
        now: float,
        bots: frozenset[int] = frozenset(),
    ) -> None:
        super().__init__(options=options, seats=seats, rng=rng, now=now, bots=bots)
        self._left: int = self.opts["counters"]
        self._most: int = self.opts["most"]
        self._turn = rng.randrange(seats)  # who begins is dealt, as the seed says
        self._taken = [0] * seats
        self._last: dict[str, int] | None = None
        self._loser: int | None = None

    @property
    def status(self) -> Status:
        return Status.PLAYING if self._loser is None else Status.OVER

    @property
    def to_move(self) -> int | None:
        return self._turn if self._loser is None else None

    @property
    def scores(self) -> list[int]:
        """Counters each seat took."""
        return list(self._taken)

    def result(self) -> dict[str, Any] | None:
        """Everyone but the one who took the last counter wins."""
        if self._loser is None:
            return None
        winners = [i for i in range(self.seats) if i != self._loser]
        return {"scores": self.scores, "winners": winners, "loser": self._loser}

    def state_view(self, seat: int | None) -> dict[str, Any]:
        return {
            "left": self._left,
            "most": self._most,
            "taken": list(self._taken),
            "last": self._last,
        }

    def _take(self, seat: int, action: Action, now: float) -> list[Event]:
        count: int = action["count"]
        if count > min(self._most, self._left):
            raise IllegalMove(
                "too_many",
                f"take 1 to {min(self._most, self._left)} counters, not {count}",
            )
        self._left -= count
        self._taken[seat] += count
        self._last = {"seat": seat, "count": count}
        events: list[Event] = [{"e": "took", "seat": seat, "count": count, "left": self._left}]
        if self._left == 0:
            self._loser = seat
            events.append({"e": "game_over", "loser": seat})
        else:
            self._turn = (seat + 1) % self.seats
        return events


Pile.actions = action_table(
    ActionSpec(
        do="take",
        handler=Pile._take,
        fields=(int_field("count", 1, MOST, "counters to take: 1 to the room's most"),),
        doc="take counters from the pile; whoever takes the last one loses",
    ),
)
