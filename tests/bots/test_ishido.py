"""Ishido bots: always legal, greedy is exactly the help, normal and hard play from the view
alone, hard outscores normal."""

from __future__ import annotations

import random
import statistics
from collections import Counter
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tilehall.protocol import Status
from tilehall.server.bots.base import Bot
from tilehall.server.bots.ishido import (
    BOTS,
    GreedyBot,
    HardBot,
    NormalBot,
    _board,
    _Frontier,
    _Outlook,
)
from tilehall.server.games.ishido import Ishido, Stone, full_set, legal_squares

OPTIONS = [
    {"scoring": s, "four_way": f} for s in ("modern", "ancient") for f in ("touching", "original")
]


def wire(view: dict[str, Any]) -> dict[str, Any]:
    """What a bot client really receives: the view after a msgpack round trip."""
    return msgpack.unpackb(msgpack.packb(view))


def random_walk(game: Ishido, seed: int, moves: int) -> Ishido | None:
    """``game`` after ``moves`` placements on legal squares drawn from ``seed``; None when
    it ended on the way (a property then has no position to check)."""
    pick = random.Random(seed)
    for _ in range(moves):
        if game.status is not Status.PLAYING:
            return None
        game.act(0, {"do": "place", "at": pick.choice(game.view(0)["legal"])}, 0.0)
    return game if game.status is Status.PLAYING else None


BONUSES = [25, 50, 100, 200, 400, 600, 800, 1000, 5000, 10000, 25000, 50000]


def value(view: dict[str, Any], at: list[int]) -> tuple[int, int]:
    """(points + bonus, neighbour count) of a placement, from the rules sheet."""
    board, (r, c), before = view["board"], at, view["fourways"]
    assert board[r][c] is None
    n = sum(
        1
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
        if 0 <= r + dr < 8 and 0 <= c + dc < 12 and board[r + dr][c + dc] is not None
    )
    ring = r in (0, 7) or c in (0, 11)
    points = 0 if ring or view["scoring"] == "ancient" else 2 ** (n - 1 + before)
    return points + (BONUSES[min(before, 11)] if n == 4 else 0), n


def test_levels():
    assert set(BOTS) == {"normal", "greedy", "hard"}
    for level, cls in BOTS.items():
        assert issubclass(cls, Bot) and cls.game == "ishido" and cls.level == level


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), options=st.sampled_from(OPTIONS), noise=st.integers(0, 20))
def test_greedy_is_the_help(seed, options, noise):
    """Greedy picks the help's square; some random moves first vary the positions seen."""
    game = Ishido(options=options, seats=1, rng=random.Random(seed), now=0.0)
    shuffle = random.Random(seed)
    bot = GreedyBot(rng=random.Random(seed))
    step = 0
    while game.status is Status.PLAYING:
        view = wire(game.view(0))
        action = bot.choose(view)
        assert action is not None and action["do"] == "place" and action["at"] in view["legal"]
        (help_event,) = game.act(0, {"do": "help"}, 0.0)
        assert action["at"] == help_event["at"]
        best = max(value(view, at) for at in view["legal"])
        assert value(view, action["at"]) == best and help_event["points"] == best[0]
        if step < noise:
            action = {"do": "place", "at": shuffle.choice(view["legal"])}
        game.act(0, action, 0.0)
        step += 1


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), options=st.sampled_from(OPTIONS))
def test_normal_always_plays_legally_and_deterministically(seed, options):
    game = Ishido(options=options, seats=1, rng=random.Random(seed), now=0.0)
    bot = NormalBot(rng=random.Random(seed))
    while game.status is Status.PLAYING:
        view = wire(game.view(0))
        action = bot.choose(view)
        assert action is not None and action["at"] in view["legal"]
        assert NormalBot(rng=random.Random(1)).choose(view) == action
        assert view == wire(game.view(0)), "the bot must not change the view it is given"
        game.act(0, action, 0.0)
    assert all(
        cls(rng=random.Random(0)).choose(wire(game.view(0))) is None for cls in BOTS.values()
    )


def test_bots_wait_when_not_to_move():
    game = Ishido(options={}, seats=1, rng=random.Random(5), now=0.0)
    for cls in BOTS.values():
        bot = cls(rng=random.Random(0))
        assert bot.choose(wire(game.view(None))) is None  # a spectator has no move
        assert bot.choose({**wire(game.view(0)), "to_move": None}) is None
        assert bot.choose(wire(game.view(0))) is not None


def play(cls: type[Bot], seed: int) -> tuple[int, int]:
    """(stones placed, score) of a whole seeded game of ``cls``."""
    game = Ishido(options={}, seats=1, rng=random.Random(seed), now=0.0)
    bot = cls(rng=random.Random(seed), budget=UNBOUNDED)
    while (action := bot.choose(game.view(0))) is not None:
        game.act(0, action, 0.0)
    return game.placed, game.scores[0]


UNBOUNDED = 60.0
"""A think budget the hard bot's search never reaches, so that its moves do not depend on
the machine's load (the budget is a safety net; its search normally ends long before)."""


def test_normal_outplays_greedy():
    """Looking ahead must pay: more stones placed and a higher mean score on fixed seeds."""
    greedy = [play(GreedyBot, seed) for seed in range(8)]
    normal = [play(NormalBot, seed) for seed in range(8)]
    assert statistics.mean(p for p, _ in normal) > statistics.mean(p for p, _ in greedy)
    assert statistics.mean(s for _, s in normal) > statistics.mean(s for _, s in greedy)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), moves=st.integers(0, 40))
def test_outlook_updates_match_a_fresh_count(seed, moves):
    """The normal bot's incremental mobility equals counting again on the new board."""
    game = random_walk(Ishido(options={}, seats=1, rng=random.Random(seed), now=0.0), seed, moves)
    if game is None:
        return
    view = wire(game.view(0))
    board, stone = _board(view), Stone(*view["current"])
    unseen = Counter(full_set())
    unseen.subtract(s for row in board for s in row if s is not None)
    unseen[stone] -= 1
    unseen = +unseen
    outlook = _Outlook(board, unseen, touching=True)
    before = [row[:] for row in board]
    for r, c in view["legal"]:
        mobility, changed = outlook.after((r, c), stone)
        assert board == before
        fresh_board = [row[:] for row in board]
        fresh_board[r][c] = stone
        fresh = _Outlook(fresh_board, unseen, touching=True)
        assert +mobility == +fresh.mobility
        for square, fitting in changed:
            assert fitting == sum(unseen[k] for k in fresh.fit[square])


@pytest.mark.slow  # a whole game of a searching bot, a few seconds
@settings(max_examples=1, deadline=None)
@given(seed=st.integers(0, 2**32), options=st.sampled_from(OPTIONS[1:]))
def test_hard_plays_legally_to_the_end_and_deterministically(seed, options):
    """A whole game under other rules than the default (which test_hard_outplays_normal
    plays): legal squares only, the same move from a bot of another seed, the view
    untouched, and nothing to do once the game is over."""
    game = Ishido(options=options, seats=1, rng=random.Random(seed), now=0.0)
    bot = HardBot(rng=random.Random(seed), budget=UNBOUNDED)
    moves = 0
    while game.status is Status.PLAYING:
        view = wire(game.view(0))
        action = bot.choose(view)
        assert action is not None and action["do"] == "place" and action["at"] in view["legal"]
        if moves % 16 == 0:
            assert HardBot(rng=random.Random(seed + 1), budget=UNBOUNDED).choose(view) == action
        assert view == wire(game.view(0)), "the bot must not change the view it is given"
        game.act(0, action, 0.0)
        moves += 1
    assert moves == game.placed > 0
    assert bot.choose(wire(game.view(0))) is None


@pytest.mark.slow  # two whole games of a searching bot, a few seconds
def test_hard_outplays_normal():
    """Its look-ahead must pay on fixed seeds: a higher total score (the 200-seed figures
    are bench/ishido_bot.py's)."""
    seeds = range(2)
    normal = [play(NormalBot, seed) for seed in seeds]
    hard = [play(HardBot, seed) for seed in seeds]
    assert sum(s for _, s in hard) > sum(s for _, s in normal)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), moves=st.integers(0, 50), touching=st.booleans())
def test_frontier_updates_match_a_fresh_count(seed, moves, touching):
    """The hard bot's incremental frontier equals counting again on the new board, and
    its masks give exactly the engine's legal squares for every kind."""
    options = {"four_way": "touching" if touching else "original"}
    game = random_walk(
        Ishido(options=options, seats=1, rng=random.Random(seed), now=0.0), seed, moves
    )
    if game is None:
        return
    view = wire(game.view(0))
    board, stone = _board(view), Stone(*view["current"])
    frontier = _Frontier.of(board, touching)
    for r, c in view["legal"]:
        after = frontier.play(r * 12 + c, stone.colour * 6 + stone.symbol)
        fresh_board = [row[:] for row in board]
        fresh_board[r][c] = stone
        fresh = _Frontier.of(fresh_board, touching)
        assert (after.kinds, after.around, after.masks) == (fresh.kinds, fresh.around, fresh.masks)
    for kind in set(full_set()):
        mine = sorted(
            divmod(sq, 12) for sq, m in frontier.masks.items() if m >> (kind[0] * 6 + kind[1]) & 1
        )
        assert mine == legal_squares(board, kind, touching=touching)
