"""Change tracking: each step's record of the view paths it changed, made into a patch,
takes every audience's view of the step before to its fresh view, hidden racks included.

A field a step changes but does not record shows here as a patched view that differs
from the view the engine builds; a field recorded wrongly (its place, its value, a key
that comes or goes) too. Random games of every registered game are played through the
journal's one entry point (:func:`step`) by the bots, with undo, pauses, clock steps and
refused actions mixed in, to the end when they get there.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tilehall.protocol.patch import apply
from tilehall.server.bots import find_bot
from tilehall.server.games import all_games
from tilehall.server.games.base import (
    RESUME,
    START,
    TICK,
    Game,
    GameError,
    away,
    stand_back,
    stand_in,
    step,
)
from tilehall.server.room.core import _sorted_ops, places_of, timed, tracked_patch
from tilehall.server.store.records import JournalEntry, RoomRecord, SeatRecord

SETUPS: dict[str, list[tuple[dict[str, Any], int]]] = {
    "mathable": [
        ({"racks": "hidden", "turn_seconds": 30}, 2),
        ({"racks": "hidden"}, 4),
        ({}, 2),
    ],
    "linksame": [({"size": "easy"}, 1), ({"size": "easy", "mode": "practice"}, 1)],
}
"""Options and seats per game (default: its defaults, one seat)."""


def same(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down (``1 == True``, but not on the wire)."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if type(a) is list:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def play(game: type[Game], options: dict[str, Any], seats: int, seed: int, moves: int) -> int:
    """Play up to ``moves`` entries, checking every audience's patch; the patches checked."""
    rng = random.Random(seed)
    record = RoomRecord(
        id="r1", game=game.name, options=options, seed=seed,
        seats=tuple(SeatRecord() for _ in range(seats)), private_code=None, created_at=0.0,
    )  # fmt: skip
    now = 1000.0
    engine, _ = step(game, record, None, JournalEntry(room="r1", seq=1, seat=None, action=START,
                                                      now=now))  # fmt: skip
    assert engine.take_changes() is not None
    audiences: list[int | None] = [*range(seats), None]
    held = {a: timed(engine.view(a), now) for a in audiences}
    level = "easy" if game.name == "mathable" else "normal"
    bot = find_bot(game.name, level)(rng=rng, budget=0.01)
    extras = [do for do in ("shuffle", "restart", "giveup", "end", "draw") if do in game.actions]
    checked = 0
    calm = rng.random() < 0.5  # mostly the bot's moves, quickly: far enough to clear a sheet
    for seq in range(2, moves + 2):
        if engine.status.value != "playing":
            break
        now += 0.2 if calm else rng.choice([0.2, 2.0, 2.0, 45.0])
        seat: int | None = engine.to_move if engine.to_move is not None else 0
        roll = rng.random()
        if calm and roll < 0.9:
            roll = 1.0  # the bot's move
        if engine.paused is not None:
            action: dict[str, Any] = {"do": "resume"}
            if "resume" not in game.actions or roll < 0.5:  # the room's, for its players back
                seat, action = None, RESUME
        elif roll < 0.1 and "undo" in game.actions:
            action = {"do": "undo"}
        elif roll < 0.15 and "pause" in game.actions:
            action = {"do": "pause"}
        elif roll < 0.25:
            seat, action = None, TICK
        elif roll < 0.3:
            action = {"do": "place" if "place" in game.actions else "move", "at": [0, 0]}
        elif roll < 0.35 and "help" in game.actions:
            action = {"do": "help"}
        elif roll < 0.35 and "hint" in game.actions:
            action = {"do": "hint"}
        elif roll < 0.4 and seats > 1:  # the room's stand-in for a seat, or its player back
            seat, action = None, rng.choice([stand_in, stand_back])(rng.randrange(seats))
        elif roll < 0.42 and "quit" in game.actions:
            action = {"do": "quit"}
        elif roll < 0.47 and game.pausable:  # everyone away
            seat, action = None, away()
        elif roll < 0.52 and extras:  # a new deal of the same tiles, a stage again, a life
            action = {"do": rng.choice(extras)}
        else:
            assert seat is not None
            action = bot.choose(engine.view(seat)) or {"do": "quit"}
        entry = JournalEntry(room="r1", seq=seq, seat=seat, action=action, now=now)
        try:
            engine, _ = step(game, record, engine, entry)
        except GameError:
            continue  # refused: nothing changed (any record it left is checked with the next)
        changes = engine.take_changes()
        assert changes is not None
        for audience in audiences:
            fresh = timed(engine.view(audience), now)
            built = tracked_patch(engine, audience, changes, places_of(held[audience]), now)
            if built is None:  # the whole view (an undo)
                assert () in changes
            else:
                patch, keys, _ = built
                got = apply(held[audience], patch)
                assert same(got, fresh), (game.name, seq, audience, changes, patch)
                assert keys == places_of(fresh)
                checked += 1
            held[audience] = fresh
    return checked


TRACKED = [g for g in all_games() if g.tracks_changes]
CASES = [
    pytest.param(
        game, options, seats, id=f"{game.name}-{seats}-{'-'.join(map(str, options.values()))}"
    )
    for game in TRACKED
    for options, seats in SETUPS.get(game.name, [({}, 1)])
]


@pytest.mark.parametrize(("game", "options", "seats"), CASES)
@pytest.mark.slow  # whole games, every audience's view built at every step
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_each_steps_record_patches_every_audience_to_its_fresh_view(game, options, seats, seed):
    assert play(game, options, seats, seed, 300) > 0


def test_every_game_tracks_its_changes():
    """No game of the project has its views built and diffed for a move (a plugin may)."""
    assert {g.name for g in TRACKED} == {g.name for g in all_games()}


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_a_game_that_does_not_track_says_so(game, monkeypatch):
    """The room diffs such a game's views (a plugin's, say: every game here tracks, so each
    is made not to): its engine hands no record that could be stale."""
    monkeypatch.setattr(game, "tracks_changes", False)
    options, seats = SETUPS.get(game.name, [({}, 1)])[0]
    record = RoomRecord(
        id="r1", game=game.name, options=options, seed=1,
        seats=tuple(SeatRecord() for _ in range(seats)), private_code=None, created_at=0.0,
    )  # fmt: skip
    engine, _ = step(game, record, None, JournalEntry(room="r1", seq=1, seat=None, action=START,
                                                      now=0.0))  # fmt: skip
    assert engine.take_changes() is None


@settings(max_examples=300, deadline=None)
@given(
    held=st.lists(st.integers(0, 12), max_size=30),
    data=st.data(),
)
def test_a_sorted_lists_record_becomes_splices_that_rebuild_it(held, data):
    """Items gone from and come into a sorted list (duplicates included) become splices that
    turn the list the client holds into the new one; an item recorded as both gone and come
    in one step (come and gone again, or the other way) changes nothing."""
    held.sort()
    gone = data.draw(st.permutations(held)).copy()[: data.draw(st.integers(0, len(held)))]
    came = data.draw(st.lists(st.integers(0, 12), max_size=8))
    new = sorted((Counter(held) - Counter(gone) + Counter(came)).elements())
    both = data.draw(st.lists(st.integers(0, 12), max_size=3))  # recorded both ways
    rng = random.Random(data.draw(st.integers(0, 2**16)))
    gone_rec, came_rec = gone + both, came + both
    rng.shuffle(gone_rec)
    rng.shuffle(came_rec)
    ops = _sorted_ops(new, gone_rec, came_rec, 0)
    assert apply([held], ops) == [new]
    net = (Counter(gone) - Counter(came)) + (Counter(came) - Counter(gone))
    assert len(ops) == net.total(), "one splice an item that really went or came"
