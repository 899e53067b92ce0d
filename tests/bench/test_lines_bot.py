"""The Lines bots' bench: ``--set`` parses into overrides and plays a variant of the level."""

from __future__ import annotations

import pytest
from tilehall.server.bots.lines import HardLinesBot

from bench.lines_bot import CL98, overrides, play


def test_overrides_are_literals_and_commas_in_brackets_stay() -> None:
    spec = "ready_cap=3, window_base=(0.0,0.0,4.0,12.0,30.0),finalists=6"
    assert overrides(spec) == {
        "ready_cap": 3,
        "window_base": (0.0, 0.0, 4.0, 12.0, 30.0),
        "finalists": 6,
    }
    assert overrides("") == {}


def test_a_variant_plays_and_the_level_is_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    pick = HardLinesBot.pick

    def spy(self: HardLinesBot, *args: object, **kwargs: object) -> object:
        seen.append(self.finalists)
        return pick(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(HardLinesBot, "pick", spy)
    game = play(0, "hard", 5.0, 3, dict(CL98), {"finalists": 2})
    assert game.stopped and len(game.cpu) == 3
    assert seen == [2, 2, 2]
    assert HardLinesBot.finalists == 12
