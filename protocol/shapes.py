"""What the server's maps and lists hold: views, events and the values of its replies.

:mod:`tilehall.protocol.schema` types a ``view`` or an ``events`` list only as a
map or a list: the codec checks a frame's shape, not a game's state. The game
pages (``protocol/games/*.md``) and ``PROTOCOL.md`` say what those hold, field
by field; this module is the same, as data, so that
:mod:`tilehall.protocol.jsonschema` can put it into the JSON Schema. Its tests
prove it both ways: every frame the test suite receives is checked against
the schema, and every example of the pages passes it.

A shape is a string: a kind (``int``, ``num``, ``str``, ``bool``, ``map``,
``list``, ``any``; ``cell`` is ``[row, col]``, ``ints`` a list of ints,
``strs`` a list of strings), ``?`` after it when nil is allowed too, and
``opt`` before it for a field that may be absent. Data only, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping

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

GAME_RESULTS: Mapping[str, Mapping[str, Shape]] = {
    "ishido": {
        "won": "bool",
        "reason": "str?",
        "left": "int",
        "placed": "int",
        "fourways": "int",
        "end_bonus": "int",
    },
    "mathable": {"reason": "str?", "penalties": "ints"},
    "lines": {"reason": "str", "moves": "int"},
    "matchit": {"level": "int", "sheets": "int", "reason": "str?"},
    "linksame": {"completed": "bool", "stages_cleared": "int", "mode": "str"},
}
"""What each game's ``result`` adds to :data:`RESULT_REQUIRED` (its page's View section):
the same in a view once over and in a ``history`` room."""

GAME_VIEWS: Mapping[str, Mapping[str, Shape]] = {
    "ishido": {
        "board": "list",
        "current": "cell?",
        "pouch": "int",
        "left": "int",
        "placed": "int",
        "fourways": "int",
        "legal": "list",
        "helps": "int",
        "undos": "int",
        "last": "map?",
        "scoring": "str",
        "four_way": "str",
    },
    "mathable": {
        "board": "list",
        "squares": "list",
        "racks": "list",
        "rack_sizes": "ints",
        "racks_open": "bool",
        "bag": "int",
        "unseen": "ints",
        "turn": "map",
        "turn_seconds": "int",
        "deadline": "num?",
        "now": "opt num",
        "tiles_placed": "ints",
        "quit_votes": "ints",
        "hinted": "ints",
        "standins": "ints",
        "paused": "str?",
        "penalties": "ints?",
    },
    "lines": {
        "width": "int",
        "height": "int",
        "colours": "int",
        "min_line": "int",
        "throw": "int",
        "preview": "bool",
        "board": "list",
        "score": "int",
        "streak": "int",
        "moves": "int",
        "next": "ints?",
        "warning": "str?",
        "eligible": "bool",
        "undos": "int",
        "reason": "str?",
    },
    "matchit": {
        "rows": "int",
        "cols": "int",
        "board": "list?",
        "level": "int",
        "lives": "int",
        "helps": "int",
        "score": "int",
        "sheets": "int",
        "tiles_left": "int",
        "sheet_time": "int",
        "deadline": "num?",
        "now": "num",
        "time_left": "num",
        "paused": "str?",
        "pedigree": "bool",
        "margins_used": "strs",
        "difficulty": "int",
        "end": "str?",
        "undos": "int",
    },
    "linksame": {
        "rows": "int",
        "cols": "int",
        "size": "str",
        "stages": "int",
        "mode": "str",
        "kinds": "int",
        "stage": "int",
        "movement": "str",
        "board": "list?",
        "tiles_left": "int",
        "score": "int",
        "hint": "map?",
        "now": "num",
        "last_pair": "num?",
        "bonus_until": "num?",
        "shot_deadline": "num?",
        "time_left": "num?",
        "end": "str?",
        "undos": "int",
        "paused": "str?",
    },
}
"""Each game's own view fields (its page's View table), present once the game has
begun: a room waiting for players shows only :data:`VIEW_COMMON`."""

COMMON_EVENTS: Mapping[str, Mapping[str, Shape]] = {
    "started": {},
    "undone": {"action": "map", "undos": "int"},
    "paused": {"why": "str"},
    "resumed": {"paused_for": "num"},
}
"""Events of the room and of every game that has them (PROTOCOL.md; the pages' Undo
and pause sections)."""

GAME_EVENTS: Mapping[str, Mapping[str, Mapping[str, Shape]]] = {
    "ishido": {
        "placed": {
            "at": "cell",
            "stone": "cell",
            "neighbours": "int",
            "points": "int",
            "fourway": "bool",
            "bonus": "int",
            "score": "int",
        },
        "drew": {"stone": "cell", "pouch": "int"},
        "won": {"left": "int", "bonus": "int", "score": "int"},
        "game_over": {
            "left": "int",
            "score": "int",
            "bonus": "opt int",
            "reason": "opt str",
            "stone": "opt cell",
        },
        "help": {"at": "cell?", "points": "int", "helps": "int"},
    },
    "mathable": {
        "placed": {
            "seat": "int",
            "tile": "int",
            "at": "cell",
            "square": "str",
            "equations": "list",
            "premium": "int",
            "points": "int",
            "draw_earned": "bool",
            "score": "int",
        },
        "bonus": {"seat": "int", "points": "int", "score": "int"},
        "drew": {"seat": "int", "count": "int", "reason": "str", "tiles": "opt ints"},
        "drew_tiles": {"seat": "int", "reason": "str", "tiles": "ints"},
        "exchanged": {"seat": "int", "count": "int", "tiles": "opt ints"},
        "hinted": {"seat": "int"},
        "hint": {"seat": "int", "tile": "int?"},
        "timeout": {"seat": "int"},
        "turn_ended": {"seat": "int", "placed": "int", "reason": "str"},
        "turn": {"seat": "int"},
        "quit_vote": {"seat": "int", "vote": "bool", "votes": "ints"},
        "game_over": {"reason": "str", "penalties": "ints", "scores": "ints"},
        "stand_in": {"seat": "int"},
        "stand_back": {"seat": "int"},
    },
    "lines": {
        "moved": {"from": "cell", "to": "cell", "path": "list", "colour": "int"},
        "removed": {
            "cells": "list",
            "n": "int",
            "points": "int",
            "streak": "int",
            "by": "str",
        },
        "thrown": {"cells": "list", "colours": "ints"},
        "game_over": {"reason": "str", "score": "int"},
    },
    "matchit": {
        "removed": {
            "a": "cell",
            "b": "cell",
            "tiles": "ints",
            "path": "list",
            "points": "int",
            "margins": "strs",
            "help": "bool",
            "helps": "opt int",
        },
        "no_path": {"a": "cell", "b": "cell", "points": "int"},
        "highlight": {"at": "cell", "cells": "list", "points": "int"},
        "no_pairs": {"helps": "int"},
        "sheet_clear": {"level": "int", "bonus": "map", "points": "int"},
        "sheet": {
            "level": "int",
            "sheet_time": "int",
            "deadline": "num?",
            "helps": "int",
            "lives": "int",
            "difficulty": "int",
        },
        "time_out": {"level": "int"},
        "stuck": {"level": "int"},
        "giveup": {"level": "int"},
        "life_lost": {"reason": "str", "lives": "int"},
        "game_over": {"reason": "str", "score": "int", "level": "int", "sheets": "int"},
    },
    "linksame": {
        "removed": {
            "a": "cell",
            "b": "cell",
            "tile": "int",
            "path": "list",
            "points": "int",
            "bonus": "int",
            "moved": "list",
        },
        "shot_clock": {"ticks": "int", "points": "int", "score": "int"},
        "hint": {"a": "cell", "b": "cell", "path": "list", "points": "int"},
        "shuffled": {"free": "bool", "points": "int", "board": "list"},
        "restarted": {"stage": "int", "score": "int"},
        "stage_clear": {"stage": "int", "score": "int"},
        "stage": {"stage": "int", "movement": "str"},
        "game_over": {"reason": "str", "score": "int", "stage": "int"},
    },
}
"""Each game's events by ``e`` (its page's Events section): the fields each carries."""

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
    },
    "game": {
        "name": "str",
        "title": "str",
        "min_seats": "int",
        "max_seats": "int",
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
    ("scores", "entries"): "score_entry",
    ("scores", "mine"): "best",
    ("leaderboard", "entries"): "leader",
    ("history", "rooms"): "history_room",
    ("room_summary", "seats"): "seat",
    ("history_room", "players"): "player",
}
"""(server message or :data:`NESTED` shape, list field): the :data:`NESTED` shape of
each of the list's items."""
