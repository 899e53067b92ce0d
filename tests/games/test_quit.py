"""Lines and Ishido can be quit: the game ends where it stands and its score counts."""

from __future__ import annotations

import pytest
from tilehall.server.games import find_game
from tilehall.server.games.base import START, IllegalMove, step

from tests.tables import entry, table

T0 = 1_800_000_000.0


def dealt(name: str):
    engine, _ = step(find_game(name), table(name, seed=7), None, entry(None, START, T0))
    return engine


@pytest.mark.parametrize("name", ["lines", "ishido"])
def test_quit_ends_the_game_with_its_score_on_the_table(name):
    engine = dealt(name)
    if name == "ishido":  # a stone down first, so the score is not nothing
        engine.apply_entry(0, {"do": "place", "at": engine.view(0)["legal"][0]}, T0 + 1)
    score = engine.scores[0]
    events = engine.apply_entry(0, {"do": "quit"}, T0 + 2)
    assert events[-1]["e"] == "game_over" and events[-1]["reason"] == "quit"
    assert events[-1]["score"] == score, "the score as it stands: no end bonus"
    assert engine.status.value == "over" and engine.scores == [score]
    assert engine.result()["reason"] == "quit"
    if name == "lines":
        assert engine.view(0)["reason"] == "quit"
    [entry] = engine.score_entries()
    assert entry.score == score
    with pytest.raises(IllegalMove):
        engine.apply_entry(0, {"do": "undo"}, T0 + 3)
