"""Every board takes every view the protocol allows: a room still waiting for players (no
board yet, only the fields every game shares), then play, a paused game, the end, without
throwing.

The waiting view is the server's own (a spectator's `watch` of a room with an open seat);
the boards are the page's own modules, mounted in the real page as the shell mounts them,
for a spectator and for the player of seat 0. Any console error fails the test (the
fixtures of tests/web/conftest.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page

from tests.helpers import Raw

GAMES = {
    "mathable": [None, "COMP:easy"],
    "matchit": None,
    "linksame": None,
    "lines": None,
    "ishido": None,
}
"""Each game, and the seats of its room (None: the game's least, all open)."""

MOUNT = """async ([game, views]) => {
  const board = await import(`/js/games/${game}.js`);
  const problems = [];
  for (const seat of [null, 0]) {
    const root = document.createElement('div');
    document.body.append(root);
    const ctx = { game, room: 'r1', seat, readOnly: seat === null,
      act: () => Promise.reject({ code: 'test', message: 'not sent' }), say: () => {},
      prefs: { symbols: true, reducedMotion: true }, options: {} };
    let handle = null;
    for (const view of views) {
      try {
        if (!handle) handle = board.mount(root, ctx);
        handle.update({ ...view, seat }, []);
      } catch (err) {
        problems.push(`${game}, seat ${seat}, ${view.status}: ${err && err.stack || err}`);
      }
    }
    const drawn = !!root.querySelector('[role=grid]');
    if (handle) handle.destroy();
    root.remove();
    if (!drawn) problems.push(`${game}, seat ${seat}: no board drawn once play started`);
  }
  return problems;
}"""


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_a_board_takes_a_waiting_rooms_view_then_play(page: Page, url: str, game: str):
    maker = await Raw.open(url, "Maker")
    fields: dict[str, Any] = {"t": "create", "game": game}
    if GAMES[game] is not None:
        fields["seats"] = GAMES[game]
    room = (await maker.call(fields))["room"]
    waiting = (await maker.call({"t": "watch", "room": room}))["view"]
    assert waiting["status"] == "waiting" and "board" not in waiting, waiting
    playing = (await maker.call({"t": "join", "room": room, "seat": 0}))["view"]
    assert playing["status"] == "playing", playing
    over = (await maker.call({"t": "act", "room": room, "action": {"do": "quit"}}))["view"]
    assert over["status"] == "over", over
    await maker.close()
    # a paused game is a playing view with its clock stopped (the room's `paused` says why)
    paused = {**playing, "paused": True}
    await page.goto("/")
    problems = await page.evaluate(MOUNT, [game, [waiting, playing, paused, over]])
    assert problems == []
