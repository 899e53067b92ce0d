"""What the server's maps and lists hold: views, events and the values of its replies.

:mod:`tilehall.protocol.schema` types a ``view`` or an ``events`` list only as a
map or a list: the codec checks a frame's shape, not a game's state. The game
pages (``protocol/games/*.md``) and ``PROTOCOL.md`` say what those hold, field
by field; this module is the same, as data, so that :mod:`.jsonschema` can put
it into the JSON Schema: the fields every view and reply has here, each game's
own from the game itself (its ``view_fields``, ``event_fields`` and
``result_fields``, :class:`tilehall.server.games.Game`), every game the
installed server finds. Its tests prove it both ways: every frame the test suite
receives is checked against the schema, and every example of the pages passes it.

A shape is a string: a kind (``int``, ``num``, ``str``, ``bool``, ``map``,
``list``, ``any``; ``cell`` is ``[row, col]``, ``ints`` a list of ints,
``strs`` a list of strings), ``?`` after it when nil is allowed too, and
``opt`` before it for a field that may be absent. Data only, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping

from tilehall.server.games import all_games

__all__ = [
    "COMMON_EVENTS",
    "GAME_EVENTS",
    "GAME_RESULTS",
    "GAME_VIEWS",
    "ITEMS",
    "NESTED",
    "RESULT_REQUIRED",
    "VIEW_COMMON",
    "VIEW_STATUSES",
    "Shape",
]

Shape = str
"""A field's shape, as the module's docstring spells it: ``"opt int?"``, ``"cell"``..."""

VIEW_COMMON: Mapping[str, Shape] = {
    "game": "str",
    "status": "str",
    "to_move": "int?",
    "scores": "ints",
    "seat": "int?",
    "result": "opt map",
    "waiting_for": "opt ints",
    "now": "opt num",
}
"""The fields every view starts with (PROTOCOL.md, Views). ``result``: once over;
``waiting_for``: while waiting for players; ``now``: a view with a clock, or a
quick-match room waiting for its bots."""

VIEW_STATUSES = ("waiting", "playing", "over")
"""A view's ``status``."""

RESULT_REQUIRED = ("scores", "winners")
"""What a ``result`` holds at least, whatever the game."""


COMMON_EVENTS: Mapping[str, Mapping[str, Shape]] = {
    "started": {},
    "undone": {"action": "map", "undos": "int"},
    "paused": {"why": "str"},
    "resumed": {"paused_for": "num"},
}
"""Events of the room and of every game that has them (PROTOCOL.md; the pages' Undo
and pause sections)."""


NESTED: Mapping[str, Mapping[str, Shape]] = {
    "seat": {"name": "str?", "bot": "bool", "taken": "bool", "connected": "bool"},
    "room_summary": {
        "room": "str",
        "game": "str",
        "options": "map",
        "seats": "list",
        "spectators": "int",
        "status": "str",
        "private": "bool",
        "suspended": "opt bool",
        "paused": "opt str?",
        "bots_at": "opt num?",
        "daily": "opt str",
        "practice": "opt bool",
    },
    "game": {
        "name": "str",
        "title": "str",
        "min_seats": "int",
        "max_seats": "int",
        "daily": "bool",
        "options": "list",
        "actions": "list",
        "bots": "strs",
        "rated": "bool",
        "bot_ratings": "opt map",
    },
    "option": {
        "name": "str",
        "label": "str",
        "kind": "str",
        "default": "any",
        "doc": "str",
        "min": "opt int",
        "max": "opt int",
        "choices": "opt strs",
    },
    "rating": {"rating": "num", "rd": "num", "games": "int"},
    "missed": {"seq": "int", "events": "list"},
    "chat_line": {"from": "str", "text": "str", "at": "num"},
    "score_entry": {"name": "str", "score": "int", "at": "num", "room": "str", "detail": "map"},
    "best": {"table": "str", "score": "int", "at": "num", "room": "str"},
    "leader": {"name": "str", "rating": "num", "rd": "num", "games": "int"},
    "history_room": {
        "room": "str",
        "game": "str",
        "options": "map",
        "players": "list",
        "seat": "int",
        "scores": "ints?",
        "outcome": "str",
        "result": "map?",
        "created": "num",
        "finished": "num?",
        "private": "bool",
    },
    "player": {"name": "str", "bot": "str?"},
}
"""The maps inside server messages (PROTOCOL.md, Messages the server sends), by a
name :data:`ITEMS` refers to."""

ITEMS: Mapping[tuple[str, str], str] = {
    ("welcome", "games"): "game",
    ("game", "options"): "option",
    ("rooms", "rooms"): "room_summary",
    ("room", "seats"): "seat",
    ("joined", "missed"): "missed",
    ("joined", "chat"): "chat_line",
    ("scores", "entries"): "score_entry",
    ("scores", "mine"): "best",
    ("leaderboard", "entries"): "leader",
    ("history", "rooms"): "history_room",
    ("room_summary", "seats"): "seat",
    ("history_room", "players"): "player",
}
"""(server message or :data:`NESTED` shape, list field): the :data:`NESTED` shape of
each of the list's items."""


GAME_RESULTS: Mapping[str, Mapping[str, Shape]] = {g.name: g.result_fields for g in all_games()}
"""What each game's ``result`` adds to :data:`RESULT_REQUIRED` (its page's View section):
the same in a view once over and in a ``history`` room."""

GAME_VIEWS: Mapping[str, Mapping[str, Shape]] = {g.name: g.view_fields for g in all_games()}
"""Each game's own view fields (its page's View table), present once the game has
begun: a room waiting for players shows only :data:`VIEW_COMMON`."""

GAME_EVENTS: Mapping[str, Mapping[str, Mapping[str, Shape]]] = {
    g.name: g.event_fields for g in all_games()
}
"""Each game's events by ``e`` (its page's Events section): the fields each carries."""
