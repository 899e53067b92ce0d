"""The one check that the page's renderer of words.json (js/words.js) and the Python one
(clients/words.py) say the same: the same events of real games, every reader.

Run in Chromium (tests/web/test_words.py) and under Node when the machine has it
(tests/clients/test_words_node.py): :data:`RENDER` is the page-side half, a JavaScript
function of the words.js module and the :func:`cases`; :func:`check` compares what it
returned with what :class:`~tilehall.clients.words.Words` says.
"""

from __future__ import annotations

import re
from typing import Any

from tilehall.clients.words import Words, rating_text, room_state

from tests.clients.played import GAMES, played

__all__ = [
    "RATINGS",
    "RENDER",
    "ROOM_STATES",
    "cases",
    "check",
    "check_ratings",
    "check_room_states",
    "real_events",
]

PAGE_ONLY = {("matchit", "no_pairs"), ("matchit", "stuck")}
"""Events the played games of tests/clients/played.py do not reach (a Match-It deal is
seldom left without a pair): their protocol page's examples stand in."""

READERS = [*((g, 0, 1) for g in GAMES if g != "mathable"),
           ("mathable", 0, 2), ("mathable", None, 2), ("mathable", 1, 3)]  # fmt: skip
"""(game, the reader's seat, seats): a player, a spectator, a seat with no name."""

RAW = re.compile(r"\[-?\d+, -?\d+\]|\{|\}")

RENDER = """(w, cases) => cases.map(({game, view, names, events}) => events.map((ev) => {
  const own = w.gameEvent(game, ev, view, names);
  if (own !== undefined) return own;
  const common = w.commonEvent(ev, view, names);
  return common === undefined ? null : {text: common};
}))"""
"""The page's half: for each case, each event as js/words.js says it ({text, tone, minor}
for a game's own event, {text} for the room's)."""

RATINGS = [
    {"rating": 1642.4, "rd": 71.2, "games": 18},
    {"rating": 1500, "rd": 350, "games": 1},
    {"rating": 1500, "rd": 350, "games": 0},
]

ROOM_STATES = [
    {"status": "waiting"},
    {"status": "playing"},
    {"status": "playing", "paused": "away"},
    {"status": "playing", "paused": "player"},
    {"status": "playing", "paused": "unwatched"},
    {"status": "playing", "paused": "a reason of a newer server"},
    {"status": "playing", "suspended": True},
    {"status": "playing", "paused": "unwatched", "showcase": True},
    {"status": "waiting", "showcase": True},
    {"status": "over", "showcase": True},
    {"status": "over", "paused": "away"},
    {"status": "a status of a newer server"},
]
"""Room summaries (the parts a lobby's state reads) of every kind."""


def real_events(game: str) -> list[dict[str, Any]]:
    """The events of real games of ``game`` (tests/clients/played.py), and the protocol
    page's examples of the kinds those games do not reach."""
    from tests.clients.test_words import page_events

    events = played(game)
    seen = {e["e"] for e in events}
    for kind, evs in page_events(game).items():
        if kind not in seen and (game, kind) in PAGE_ONLY:
            events += evs
    return events


def cases() -> list[dict[str, Any]]:
    """One case a reader: the game, the view and names the page is given, the events."""
    out = []
    for game, seat, seats in READERS:
        names = ["Ada", "Bob", ""][:seats]  # the third seat has no name: "seat 3"
        view = {"game": game, "seat": seat, "scores": [0] * seats}
        out.append({"game": game, "view": view, "names": names, "events": real_events(game)})
    return out


def check(given: list[dict[str, Any]], said: list[list[dict[str, Any] | None]]) -> int:
    """Every sentence, tone and housekeeping mark the page said equals Python's; returns
    how many events were compared."""
    compared = 0
    assert len(said) == len(given)
    for case, told in zip(given, said, strict=True):
        names: list[str] = case["names"]

        def name(s: int, names: list[str] = names) -> str:
            return names[s] if s < len(names) and names[s] else f"seat {s + 1}"

        view = case["view"]
        w = Words(game=case["game"], name=name, seat=view["seat"], seats=len(names))
        for ev, js in zip(case["events"], told, strict=True):
            py = w.event(ev)
            assert js is not None and py is not None, ev
            assert js["text"] == py.text, (case["game"], view["seat"], ev)
            if "tone" in js:
                assert (js["tone"], js["minor"]) == (py.tone.value, py.minor), (case["game"], ev)
            assert not RAW.search(py.text), py.text
            compared += 1
    return compared


def check_ratings(said: list[str]) -> None:
    assert said == [rating_text(r) for r in RATINGS]
    assert said == ["1642 ± 142 (18 games)", "1500 ± 700 (1 game)", "1500 ± 700 (no games yet)"]


def check_room_states(said: list[str]) -> None:
    assert said == [room_state(r) for r in ROOM_STATES]
    assert said == [
        "waiting for players",
        "playing",
        "paused, players away",
        "paused by its player",
        "paused until watched",
        "paused",
        "being restored",
        "a game to watch",
        "a game to watch",
        "over",
        "over",
        "a status of a newer server",
    ]
