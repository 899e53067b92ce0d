"""How a journal entry drives an engine: one function for rooms, recovery and replays.

A room's journal holds, besides the players' actions, entries of the room's
own: ``_start`` (play began: build the engine from the room's options and
seed), ``_tick`` (let the clock run), ``_pause``/``_resume`` (its players went
away, or came back: the clock stops and starts) and ``_standin``/``_standback``
(a COMP plays an away player's seat, or gives it back). :func:`step` reads one entry the
way the room applied it, so anything that replays a journal (recovery, a
takeover in a cluster, ``admin replay``, tests) rebuilds exactly the same
game without importing the room.
"""

from __future__ import annotations

import random
from typing import Any

from tilehall.server.games.base import TICK, Event, Game, Pause

__all__ = ["RESUME", "START", "TICK", "away", "stand_back", "stand_in", "step"]

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
    """Apply one journal entry.

    ``_start`` builds the engine from the room's options and seed, ``_tick`` lets
    its clock run, anything else is a seat's action.

    Returns:
        The engine (new after ``_start``) and the events the entry caused.

    Raises:
        ValueError: an entry other than ``_start`` comes before the start.
        GameError: the engine refused the action (nothing changed).
    """
    if action == START:
        fresh = game(options=options, seats=seats, rng=random.Random(seed), now=now, bots=bots)
        return fresh, [{"e": "started"}]
    if engine is None:
        raise ValueError(f"journal entry {action!r} comes before the start")
    return engine, engine.apply_entry(seat, action, now)
