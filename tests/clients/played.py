"""Events from real games: each game's engine played by its bots (and by a few deliberate
moves: a help, an undo, a pause, a quit), as seat 0 receives them.

The words tests feed these to both renderers of words.json (clients/words.py and the
page's js/words.js): the events are the engines' own, every field as the server sends it,
not a hand-written copy that could drift from the engine. Everything is seeded and the
clock is the caller's, so the same events come every run.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from tilehall.protocol import Status
from tilehall.server.bots import find_bot
from tilehall.server.games import find_game
from tilehall.server.games.base import Game, away, stand_back, stand_in, step
from tilehall.server.games.errors import GameError
from tilehall.server.room.core import visible

__all__ = ["GAMES", "Played", "played"]

GAMES = ("ishido", "lines", "linksame", "matchit", "mathable")

Event = dict[str, Any]


class Played:
    """One game of ``game`` played through its engine; :attr:`events` is what seat 0 saw."""

    def __init__(self, game: str, *, seats: int = 1, seed: int = 1, **options: Any) -> None:
        self.game = game
        self.now = 0.0
        self.events: list[Event] = []
        cls = find_game(game)
        table = SimpleNamespace(
            options=options, seed=seed, seats=[SimpleNamespace(bot=None)] * seats
        )
        entry = SimpleNamespace(action={"do": "_start"}, seat=None, now=0.0)
        engine, started = step(cls, table, None, entry)  # type: ignore[arg-type]
        self.engine: Game = engine
        self.seen(started)
        self.bots = [find_bot(game, "normal")(rng=random.Random(seed + s)) for s in range(seats)]

    def seen(self, events: list[Event]) -> list[Event]:
        self.events += visible(events, 0)
        return events

    @property
    def over(self) -> bool:
        return self.engine.status is Status.OVER

    def act(self, seat: int, action: dict[str, Any], dt: float = 1.0) -> list[Event]:
        """``action`` by ``seat``, ``dt`` seconds on; a refusal changes nothing and says []."""
        self.now += dt
        try:
            return self.seen(self.engine.apply_entry(seat, action, self.now))
        except GameError:
            return []

    def room(self, action: dict[str, Any], dt: float = 1.0) -> list[Event]:
        """One of the room's own entries (a pause, a stand-in), as the room journals it."""
        self.now += dt
        return self.seen(self.engine.apply_entry(None, action, self.now))

    def wait(self, dt: float) -> list[Event]:
        """``dt`` seconds without a move: what falls due (a clock's events)."""
        self.now += dt
        return self.seen(self.engine.advance(self.now))

    def bot(self, seat: int | None = None, dt: float = 1.0) -> bool:
        """One move by the bot of ``seat`` (the one to move); False when it has none."""
        seat = self.engine.to_move if seat is None else seat
        if seat is None or self.over:
            return False
        action = self.bots[seat].choose(self.engine.view(seat))
        if action is None:
            return False
        self.act(seat, action, dt)
        return True

    def play(self, moves: int, dt: float = 1.0, until: Callable[[], bool] | None = None) -> None:
        """Up to ``moves`` bot moves, ending early at the end or when ``until`` says so."""
        for _ in range(moves):
            if self.over or (until is not None and until()) or not self.bot(dt=dt):
                return

    def seen_kind(self, kind: str) -> bool:
        return any(e.get("e") == kind for e in self.events)


def _ishido() -> list[Played]:
    first = Played("ishido", seed=3)
    first.play(4)
    first.act(0, {"do": "help"})
    first.play(2)
    first.act(0, {"do": "undo"})
    first.act(0, {"do": "quit"})
    to_end = Played("ishido", seed=5)
    to_end.play(200)
    return [first, to_end]


def _lines() -> list[Played]:
    first = Played("lines", seed=2)
    first.play(3)
    first.act(0, {"do": "undo"})
    first.play(40, until=lambda: first.seen_kind("removed"))
    first.act(0, {"do": "quit"})
    to_end = Played("lines", seed=4)
    random_moves(to_end, 600)
    return [first, to_end]


def random_moves(p: Played, moves: int) -> None:
    """Lines played badly (any chip to any free square it reaches) so that the board fills."""
    rng = random.Random(7)
    for _ in range(moves):
        if p.over:
            return
        board = p.engine.view(0)["board"]
        chips = [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if v]
        free = [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if not v]
        rng.shuffle(chips)
        for src in chips[:6]:
            dst = rng.choice(free)
            if p.act(0, {"do": "move", "from": list(src), "to": list(dst)}):
                break
        else:
            p.bot()


def _linksame() -> list[Played]:
    timed = Played("linksame", seed=5, size="easy", stages=2)
    timed.play(3)
    timed.wait(30.0)  # the shot clock runs out a few times
    timed.act(0, {"do": "hint"})
    timed.act(0, {"do": "shuffle"})
    timed.act(0, {"do": "undo"})
    timed.act(0, {"do": "pause"})
    timed.act(0, {"do": "resume"})
    timed.act(0, {"do": "restart"})
    timed.play(200)  # both stages, to the end
    quit_ = Played("linksame", seed=6, size="easy")
    quit_.play(2)
    quit_.act(0, {"do": "quit"})
    return [timed, quit_]


def _matchit() -> list[Played]:
    first = Played("matchit", seed=4)
    first.play(3)
    view = first.engine.view(0)
    board = view["board"]
    tiles = [(r, c) for r, row in enumerate(board) for c, t in enumerate(row) if t is not None]
    first.act(0, {"do": "highlight", "at": list(tiles[0])})
    far = [(a, b) for a in tiles for b in tiles if a < b and board[a[0]][a[1]] == board[b[0]][b[1]]]
    for a, b in far:  # a pair of twins with no path between them: a costly try
        if first.act(0, {"do": "pair", "a": list(a), "b": list(b)}) and first.seen_kind("no_path"):
            break
    first.act(0, {"do": "help"})
    first.act(0, {"do": "undo"})
    first.act(0, {"do": "pause"})
    first.act(0, {"do": "resume"}, dt=61.5)
    first.act(0, {"do": "giveup"})
    first.play(60)  # a sheet cleared: its bonus and the next sheet
    first.wait(10_000.0)  # the sheet's time runs out
    first.act(0, {"do": "quit"})
    return [first]


def _mathable() -> list[Played]:
    p = Played("mathable", seats=2, seed=9, turn_seconds=60)
    p.act(0, {"do": "hint"})
    p.act(0, {"do": "exchange", "tiles": p.engine.view(0)["racks"][0][:2]})
    p.act(1, {"do": "hint"})
    p.play(1)
    p.room(stand_in(1))
    p.room(away())
    p.room({"do": "_resume"}, dt=42.5)
    p.room(stand_back(1))
    p.wait(61.0)  # seat 0's turn runs out
    for _ in range(300):  # to the end, an earned extra draw taken whenever there is one
        if p.over:
            break
        seat = p.engine.to_move
        if seat is not None and p.engine.view(seat)["turn"].get("draws"):
            p.act(seat, {"do": "draw"})
        p.bot()
    voted = Played("mathable", seats=2, seed=10, racks="hidden")  # drawn tiles told privately
    voted.play(20, until=lambda: voted.engine.to_move == 0)  # seat 1 opens this one
    voted.act(0, {"do": "exchange", "tiles": voted.engine.view(0)["racks"][0][:3]})
    voted.play(1)
    voted.act(0, {"do": "quit"})
    voted.act(0, {"do": "quit"})  # taken back
    voted.act(0, {"do": "quit"})
    voted.act(1, {"do": "quit"})
    return [p, voted]


_PLAYS: dict[str, Callable[[], list[Played]]] = {
    "ishido": _ishido,
    "lines": _lines,
    "linksame": _linksame,
    "matchit": _matchit,
    "mathable": _mathable,
}


@functools.cache
def _played(game: str) -> tuple[Event, ...]:
    return tuple(ev for p in _PLAYS[game]() for ev in p.events)


def played(game: str) -> list[Event]:
    """Every event seat 0 saw in the games of ``game`` played here, in order (played once a
    run: the games are the same every time)."""
    return [dict(ev) for ev in _played(game)]
