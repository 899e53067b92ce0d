"""Shisen-Sho bots: they clear Match-It sheets and LinkSame stages from the view alone."""

from __future__ import annotations

import random

from tilehall.protocol import Status
from tilehall.server.bots.linksame import BOTS as LINKSAME_BOTS
from tilehall.server.bots.linksame import LinkSameBot
from tilehall.server.bots.matchit import BOTS as MATCHIT_BOTS
from tilehall.server.bots.matchit import MatchItBot
from tilehall.server.games.linksame import LinkSame
from tilehall.server.games.matchit import MatchIt
from tilehall.server.games.shisensho import board_from_cells


def test_bot_tables() -> None:
    assert {"normal": MatchItBot} == MATCHIT_BOTS and MatchItBot.game == "matchit"
    assert {"normal": LinkSameBot} == LINKSAME_BOTS and LinkSameBot.game == "linksame"


def test_match_it_bot_clears_a_sheet_one_pair_at_a_time() -> None:
    game = MatchIt(options={}, seats=1, rng=random.Random(4), now=0.0)
    bot = MatchItBot(rng=random.Random(1))
    t = 0.0
    for _ in range(48):
        action = bot.choose(game.view(0))
        assert action is not None and action["do"] == "pair"
        t += 1.0
        events = game.act(0, action, t)
        assert events[0]["e"] == "removed"
    assert [e["e"] for e in events][-2:] == ["sheet_clear", "sheet"]
    assert game.view(0)["level"] == 2 and game.view(0)["lives"] == 3


def test_link_same_bot_clears_every_stage_of_a_game() -> None:
    game = LinkSame(options={"size": "easy", "stages": 3}, seats=1, rng=random.Random(5), now=0.0)
    bot = LinkSameBot(rng=random.Random(2))
    t = 0.0
    for _ in range(3 * 42):
        action = bot.choose(game.view(0))
        assert action is not None
        t += 0.7
        game.act(0, action, t)
    assert game.status is Status.OVER and game.result()["completed"] is True  # type: ignore[index]
    assert bot.choose(game.view(0)) is None


def test_bot_waits_for_its_turn() -> None:
    game = MatchIt(options={}, seats=1, rng=random.Random(4), now=0.0)
    assert MatchItBot().choose(game.view(None)) is None  # a spectator's view


def test_bot_follows_its_plan_and_replans_when_the_board_changes() -> None:
    game = LinkSame(options={"size": "easy"}, seats=1, rng=random.Random(6), now=0.0)
    bot = LinkSameBot(rng=random.Random(3))
    first = bot.choose(game.view(0))
    assert first is not None and bot._plan
    game.act(0, first, 1.0)
    planned = bot._plan[0]
    assert bot.choose(game.view(0)) == {"do": "pair", "a": list(planned[0]), "b": list(planned[1])}
    game.act(0, {"do": "shuffle"}, 2.0)  # the bot's picture of the board is now wrong
    action = bot.choose(game.view(0))
    assert action is not None
    game.act(0, action, 3.0)  # legal on the new board


def test_stuck_boards_get_the_games_way_out() -> None:
    crossed = {(0, 0): 1, (0, 1): 2, (1, 0): 2, (1, 1): 1}
    game = MatchIt.from_position(board_from_cells(6, 16, crossed))
    assert MatchItBot().choose(game.view(0)) == {"do": "giveup"}
    ls = LinkSame.from_position(board_from_cells(7, 12, crossed))
    assert ls.view(0)["size"] == "easy"
    assert LinkSameBot().choose(ls.view(0)) == {"do": "shuffle"}
