"""Undo takes back the last move exactly, and a journal with undos replays exactly.

Games are driven as a room drives them (replay.step): a bot plays, at a random
point a move is made and undone, and the game must be as it was before the
move, down to its random stream: the same move again gives the same events
(Lines' next throw is what it was).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tilehall.protocol import GameCode
from tilehall.server.bots import find_bot
from tilehall.server.games import find_game
from tilehall.server.games.base import START, IllegalMove, step

from tests.tables import entry, table

T0 = 1_800_000_000.0
GAMES = ["lines", "ishido", "matchit", "linksame"]


class Played:
    """A game driven through step(), with its journal kept."""

    def __init__(self, name: str, seed: int) -> None:
        self.cls = find_game(name)
        self.seed = seed
        self.table = table(name, seed=seed)
        self.journal: list[tuple[int | None, dict, float]] = []
        self.engine = None
        self.now = T0
        self.apply(None, START)

    def apply(self, seat, action, dt: float = 1.0):
        self.now += dt
        self.engine, events = step(
            find_game(self.table.game), self.table, self.engine, entry(seat, action, self.now)
        )
        self.journal.append((seat, action, self.now))
        return events

    def replayed(self):
        engine = None
        self.game = find_game(self.table.game)
        for seat, action, at in self.journal:
            engine, _ = step(
                find_game(self.table.game), self.table, engine, entry(seat, action, at)
            )
        return engine


def comparable(view: dict) -> dict:
    """A view without what moves with time or counts undos."""
    skip = {"now", "time_left", "undos", "eligible", "deadline", "shot_deadline", "bonus_until"}
    skip |= {"last_pair"}
    return {k: v for k, v in view.items() if k not in skip}


def bot_move(game: Played, rng: random.Random) -> dict | None:
    bot = find_bot(game.cls.name, "normal")(rng=rng, budget=0.01)
    view = game.engine.view(0)
    if view["status"] != "playing":
        return None
    action = bot.choose(view)
    return action if action and action.get("do") in game.cls.undo_moves else None


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=8)
@given(seed=st.integers(0, 2**20), before=st.integers(0, 6))
def test_a_move_undone_leaves_the_game_as_it_was_random_stream_included(name, seed, before):
    rng = random.Random(seed)
    game = Played(name, seed)
    for _ in range(before):
        move = bot_move(game, rng)
        if move is None:
            break
        game.apply(0, move)
    move = bot_move(game, rng)
    if move is None:
        return  # the deal left nothing to play
    view_before = comparable(game.engine.view(0))
    first = game.apply(0, move)
    # the undo and the move again come in the same second as the first move, so
    # what hangs on time (LinkSame's speed bonus) is the same too
    undone = game.apply(0, {"do": "undo"}, dt=0.0)
    assert undone[-1]["e"] == "undone" and undone[-1]["action"] == game.cls.normalize(move)
    assert comparable(game.engine.view(0)) == view_before
    assert game.engine.view(0)["undos"] == 1 and game.engine.score_entries() == []
    again = game.apply(0, move, dt=0.0)
    assert again == first, "the same move gives the same events: the random stream was put back"
    # and the whole journal, undo included, replays to the same game
    assert game.replayed().view(0) == game.engine.view(0)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_undo_goes_back_one_move_at_a_time_to_the_first(name):
    def play(moves: int) -> tuple[Played, list[dict]]:
        rng = random.Random(5)
        game = Played(name, 5)
        views = [comparable(game.engine.view(0))]
        for _ in range(moves):
            move = bot_move(game, rng)
            if move is None:
                break
            game.apply(0, move)
            views.append(comparable(game.engine.view(0)))
        return game, views

    game, views = play(70)
    if game.engine.view(0)["status"] != "playing":
        # a finished game takes nothing back: play it again one move short
        game, views = play(len(views) - 2)
    assert len(views) > 3 and game.engine.view(0)["status"] == "playing"
    for expected in reversed(views[:-1]):
        game.apply(0, {"do": "undo"})
        assert comparable(game.engine.view(0)) == expected
    with pytest.raises(IllegalMove) as refused:
        game.apply(0, {"do": "undo"})
    assert refused.value.code == GameCode.NOTHING_TO_UNDO
    assert game.replayed().view(0) == game.engine.view(0)


def undo_the_next_move(game: Played, rng: random.Random) -> dict:
    """Play the bot's next move and undo it: the game must be as before; its view before."""
    before = comparable(game.engine.view(0))
    move = bot_move(game, rng)
    assert move is not None
    game.apply(0, move)
    game.apply(0, {"do": "undo"})
    assert comparable(game.engine.view(0)) == before
    return before


@pytest.mark.slow
def test_a_long_game_undoes_from_its_latest_copy():
    """Past CHECKPOINT_EVERY entries, undo replays only from the last copy of the state."""
    from tilehall.server.games.base import CHECKPOINT_EVERY

    rng = random.Random(11)
    game = Played("lines", 11)
    while len(game.journal) < 3 * CHECKPOINT_EVERY:
        move = bot_move(game, rng)
        if move is None:
            pytest.skip("the deal ended early")
        game.apply(0, move)
    undo_the_next_move(game, rng)
    assert max(c[0] for c in game.engine._checkpoints) >= 2 * CHECKPOINT_EVERY


@pytest.mark.parametrize("name", GAMES)
def test_every_game_undoes_from_a_copy_past_the_first(name):
    """Undo's copies are pickled: each game's state must come back whole from one.

    Ishido's games end before CHECKPOINT_EVERY stones, so its journal is filled with
    ``help`` entries (an entry each, not a move) before the move undone.
    """
    from tilehall.server.games.base import CHECKPOINT_EVERY

    rng = random.Random(0)
    game = Played(name, 0)
    while len(game.engine._entries or []) <= CHECKPOINT_EVERY:
        if name == "ishido":
            game.apply(0, {"do": "help"})
            continue
        move = bot_move(game, rng)
        assert move is not None, "the game of seed 0 lasts past the first copy"
        game.apply(0, move)
    assert [c[0] for c in game.engine._checkpoints] == [0, CHECKPOINT_EVERY]
    before = undo_the_next_move(game, rng)
    assert comparable(game.replayed().view(0)) == before
