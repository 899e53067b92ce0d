"""Every message of the wire, as one table: names, fields, types and bounds.

This table is the single source of truth: the decoder validates against it, the
encoder checks outgoing frames against it in tests, and ``PROTOCOL.md`` is
tested to document every entry with an example that passes it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from tilehall.protocol.errors import ErrorCode

__all__ = [
    "CLIENT_MESSAGES",
    "HISTORY_MAX",
    "MAX_DEPTH",
    "NAME_MAX",
    "SERVER_MESSAGES",
    "VERSION",
    "Field",
    "Kind",
    "MessageSpec",
]

VERSION = 1
"""The protocol version a client names in ``hello.v``."""

NAME_MAX = 24
"""Longest player name, in characters."""

MAX_DEPTH = 8
"""Deepest nesting of maps and lists in any field of a client frame, read or not (the
frame itself is not a level)."""

ROOM_ID_MAX = 64
PAGE_MAX = 200
"""The most rooms a ``rooms`` page (or players a ``leaderboard`` page) may hold: a page
stays far under the frame limit."""
HISTORY_MAX = 100
"""The most rooms a ``history`` page may hold."""
CURSOR_MAX = 256
TEXT_MAX = 500
PASSWORD_MIN = 10
PASSWORD_MAX = 256
"""A password is 10 to 256 characters, in ``hello`` and ``set_password`` alike: a longer
or shorter one is none the server keeps, so it is refused as the rule says
(``bad_password``), whatever the frame's purpose."""
SEATS_MAX = 8
"""The most seats any game may have (``create.seats``, ``match.seats``)."""
OPTIONS_MAX = 32
"""The most options a ``create`` or ``match`` may name; no game has that many."""
SEQ_MAX = 2**53
REQUEST_ID_MAX = 2**31 - 1


class Kind(enum.StrEnum):
    """A field's wire type."""

    STR = "str"
    INT = "int"
    NUM = "num"
    BOOL = "bool"
    MAP = "map"
    LIST = "list"
    ANY = "any"


@dataclass(frozen=True, slots=True, kw_only=True)
class Field:
    """One field of a message.

    ``lo``/``hi`` bound an int's value, or a str/list/map's length (a string's in code
    points, as sent). ``choices``, when given, are the only values the server takes.
    A value out of its bounds or not among its choices is refused with ``code``:
    ``out_of_range`` unless the field's own rule has a code of its own (a ``name`` too
    long is ``bad_name``, nine ``seats`` are ``bad_seats``), so that a client sees one
    code for one rule whichever check meets the value first.
    ``nullable`` admits nil as well as the kind.
    """

    name: str
    kind: Kind
    required: bool = True
    nullable: bool = False
    lo: int | None = None
    hi: int | None = None
    choices: tuple[str | int, ...] = ()
    code: ErrorCode = ErrorCode.OUT_OF_RANGE
    doc: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageSpec:
    """One message type: its ``t``, its fields, and what it is for."""

    t: str
    fields: tuple[Field, ...]
    doc: str
    one_of: tuple[str, ...] = ()
    """Exactly one of these optional fields must be present."""

    def field(self, name: str) -> Field:
        """The field called ``name``."""
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)


def _f(name: str, kind: Kind, **kw: Any) -> Field:
    return Field(name=name, kind=kind, **kw)


_ID = _f("id", Kind.INT, required=False, lo=0, hi=REQUEST_ID_MAX, doc="request id, echoed as re")
_RE = _f("re", Kind.INT, required=False, lo=0, hi=REQUEST_ID_MAX, doc="the id of the request")
_ROOM = _f("room", Kind.STR, lo=1, hi=ROOM_ID_MAX, doc="room id")
_SEQ_OPT = _f("seq", Kind.INT, required=False, lo=0, hi=SEQ_MAX)
_COMPACT = _f(
    "compact", Kind.BOOL, required=False, doc="this room's updates as patches (hello's by default)"
)


_OPTIONS = _f(
    "options",
    Kind.MAP,
    required=False,
    hi=OPTIONS_MAX,
    code=ErrorCode.BAD_OPTION,
    doc="the game's options by name (welcome.games[].options)",
)


def _spec(t: str, doc: str, *fields: Field, one_of: tuple[str, ...] = ()) -> MessageSpec:
    return MessageSpec(t=t, fields=(*fields, _ID), doc=doc, one_of=one_of)


def _reply(t: str, doc: str, *fields: Field) -> MessageSpec:
    return MessageSpec(t=t, fields=(*fields, _RE), doc=doc)


CLIENT_MESSAGES: dict[str, MessageSpec] = {
    s.t: s
    for s in (
        _spec(
            "hello",
            "Open a session: a new player by name, or a returning one by token.",
            _f(
                "v",
                Kind.INT,
                choices=(VERSION,),
                code=ErrorCode.UNSUPPORTED_VERSION,
                doc="protocol version",
            ),
            _f(
                "name",
                Kind.STR,
                required=False,
                lo=1,
                hi=NAME_MAX,
                code=ErrorCode.BAD_NAME,
                doc=f"1-{NAME_MAX} characters as sent and once trimmed; the naming rule",
            ),
            _f("token", Kind.STR, required=False, lo=1, hi=128),
            _f(
                "password",
                Kind.STR,
                required=False,
                lo=PASSWORD_MIN,
                hi=PASSWORD_MAX,
                code=ErrorCode.BAD_PASSWORD,
                doc="with name: sign in to a protected name (or protect a new one)",
            ),
            _f("bot", Kind.BOOL, required=False, doc="a program plays: the host's bot budget"),
            _f("compact", Kind.BOOL, required=False, doc="updates carry patches, not views"),
            one_of=("name", "token"),
        ),
        _spec(
            "rooms",
            "One page of the public rooms (by id), optionally of one game and one status.",
            _f("game", Kind.STR, required=False, lo=1, hi=32),
            _f(
                "status",
                Kind.STR,
                required=False,
                choices=("waiting", "playing", "over"),
                doc="only rooms of this status",
            ),
            _f(
                "limit",
                Kind.INT,
                required=False,
                lo=1,
                hi=PAGE_MAX,
                doc="rooms a page, 50 by default",
            ),
            _f("cursor", Kind.STR, required=False, lo=1, hi=ROOM_ID_MAX, doc="a reply's next"),
        ),
        _spec(
            "create",
            "Create a room. Seats name the players of a multi-seat game; COMP... is a bot.",
            _f("game", Kind.STR, lo=1, hi=32),
            _OPTIONS,
            _f(
                "seats",
                Kind.LIST,
                required=False,
                lo=1,
                hi=SEATS_MAX,
                code=ErrorCode.BAD_SEATS,
                doc="each a name, COMP[:level] or nil (open)",
            ),
            _f("private", Kind.BOOL, required=False),
            _f(
                "daily",
                Kind.BOOL,
                required=False,
                doc="today's deal (UTC) on the game's default options: resumes yours if open",
            ),
        ),
        _spec(
            "join",
            "Take a seat (a given one, or any free one), or resume the seat you hold.",
            _f("room", Kind.STR, required=False, lo=1, hi=ROOM_ID_MAX),
            _f("code", Kind.STR, required=False, lo=1, hi=64, doc="private room code"),
            _f("seat", Kind.INT, required=False, nullable=True, lo=0, hi=7),
            _SEQ_OPT,
            _COMPACT,
            one_of=("room", "code"),
        ),
        _spec(
            "watch",
            "Spectate a room.",
            _f("room", Kind.STR, required=False, lo=1, hi=ROOM_ID_MAX),
            _f("code", Kind.STR, required=False, lo=1, hi=64),
            _SEQ_OPT,
            _COMPACT,
            one_of=("room", "code"),
        ),
        _spec(
            "act",
            "Play: the action is the game's own map. seq, if given, must be the room's seq.",
            _ROOM,
            _f("action", Kind.MAP, lo=1, hi=16),
            _SEQ_OPT,
        ),
        _spec(
            "match",
            "Quick-match: a seat in an open quick-match room of that game, or a new one.",
            _f("game", Kind.STR, lo=1, hi=32),
            _f(
                "seats",
                Kind.INT,
                required=False,
                lo=1,
                hi=SEATS_MAX,
                code=ErrorCode.BAD_SEATS,
                doc="seat count, the least by default",
            ),
            _OPTIONS,
            _f(
                "bots_after",
                Kind.INT,
                required=False,
                lo=0,
                hi=3600,
                doc="seconds before COMP bots take the open seats, 30 by default",
            ),
            _f(
                "level",
                Kind.STR,
                required=False,
                lo=1,
                hi=16,
                code=ErrorCode.BAD_SEATS,
                doc="those bots' level, normal",
            ),
        ),
        _spec("leave", "Leave a room (a player keeps the seat).", _ROOM),
        _spec(
            "scores",
            "Read a high-score table.",
            _f("game", Kind.STR, lo=1, hi=32),
            _f("table", Kind.STR, required=False, lo=1, hi=64),
            _f("bots", Kind.BOOL, required=False, doc="the bot programs' entries instead"),
        ),
        _spec(
            "history",
            "One page of a player's finished games (yours by default), newest first.",
            _f("player", Kind.STR, required=False, lo=1, hi=NAME_MAX),
            _f("game", Kind.STR, required=False, lo=1, hi=32),
            _f("limit", Kind.INT, required=False, lo=1, hi=HISTORY_MAX, doc="20 by default"),
            _f("cursor", Kind.STR, required=False, lo=1, hi=128, doc="a reply's next"),
        ),
        _spec(
            "replay",
            "A finished room just after its journal entry seq (1: the deal).",
            _ROOM,
            _f("seq", Kind.INT, lo=1, hi=SEQ_MAX, doc="1 to the room's last"),
        ),
        _spec(
            "leaderboard",
            "One page of a rated game's players, best rating first.",
            _f("game", Kind.STR, lo=1, hi=32),
            _f(
                "limit",
                Kind.INT,
                required=False,
                lo=1,
                hi=PAGE_MAX,
                doc="players a page, 50 by default",
            ),
            _f("cursor", Kind.STR, required=False, lo=1, hi=CURSOR_MAX, doc="a reply's next"),
        ),
        _spec("chat", "Say something to a room.", _ROOM, _f("text", Kind.STR, lo=1, hi=TEXT_MAX)),
        _spec("ping", "Liveness check."),
        _spec(
            "set_password",
            "Protect your name with a password, or change it (old_password: the one it has).",
            _f(
                "password",
                Kind.STR,
                lo=PASSWORD_MIN,
                hi=PASSWORD_MAX,
                code=ErrorCode.BAD_PASSWORD,
                doc="the new password",
            ),
            _f(
                "old_password",
                Kind.STR,
                required=False,
                lo=PASSWORD_MIN,
                hi=PASSWORD_MAX,
                code=ErrorCode.BAD_PASSWORD,
            ),
        ),
        _spec(
            "sign_out",
            "Take back this connection's token, or every token of yours (everywhere).",
            _f("everywhere", Kind.BOOL, required=False),
        ),
    )
}

_VIEW = _f("view", Kind.MAP)

SERVER_MESSAGES: dict[str, MessageSpec] = {
    s.t: s
    for s in (
        _reply(
            "welcome",
            "The session is open.",
            _f("v", Kind.INT),
            _f("player", Kind.STR),
            _f("token", Kind.STR),
            _f(
                "password",
                Kind.BOOL,
                required=False,
                doc="whether the name has a password (or a host's one-time code): without one,"
                " sign_out is refused no_password, and a client asks its player to set one",
            ),
            _f("games", Kind.LIST),
            _f("rooms", Kind.LIST, doc="rooms where this player holds a seat"),
            _f("limits", Kind.MAP, doc="what this connection may send: rate, burst, ..."),
            _f("compact", Kind.BOOL, doc="whether updates come as patches (hello's compact)"),
            _f(
                "ratings",
                Kind.MAP,
                required=False,
                doc="this player's rating in each rated game: rating, rd, games",
            ),
        ),
        _reply(
            "rooms",
            "One page of the room list.",
            _f("rooms", Kind.LIST),
            _f("next", Kind.STR, nullable=True, doc="the cursor of the next page; nil: the last"),
        ),
        _reply(
            "created",
            "A room was made.",
            _ROOM,
            _f("code", Kind.STR, required=False, doc="private rooms only"),
            _f("daily", Kind.STR, required=False, doc="today's deal: its UTC day, YYYY-MM-DD"),
            _f(
                "practice",
                Kind.BOOL,
                required=False,
                doc="today's deal: true when it is not your first try today (on no table)",
            ),
            _f(
                "resumed",
                Kind.BOOL,
                required=False,
                doc="today's deal: true when this is your room of the day, still open",
            ),
        ),
        _reply(
            "joined",
            "You are in the room: your seat (nil when watching), the seq and your view.",
            _ROOM,
            _f("seat", Kind.INT, nullable=True),
            _f("seq", Kind.INT),
            _VIEW,
            _f("missed", Kind.LIST, required=False),
            _f(
                "chat",
                Kind.LIST,
                required=False,
                hi=100,
                doc="the room's latest chat lines (from, text, at), oldest first; absent: none",
            ),
            _f(
                "derived",
                Kind.MAP,
                required=False,
                doc="compact: the templates of the events that updates send by name",
            ),
        ),
        _reply(
            "update",
            "An accepted action or clock step: events and the new view, or a patch to the last.",
            _ROOM,
            _f("seq", Kind.INT),
            _f("events", Kind.LIST, doc="compact: an event may be its name (joined.derived)"),
            _f("view", Kind.MAP, required=False, doc="the whole view"),
            _f("patch", Kind.LIST, required=False, doc="compact: what changed since seq - 1"),
        ),
        _reply("left", "You left the room.", _ROOM),
        _reply(
            "room",
            "Seats or spectators changed.",
            _ROOM,
            _f("game", Kind.STR),
            _f("seats", Kind.LIST),
            _f("spectators", Kind.INT),
            _f("status", Kind.STR),
            _f("options", Kind.MAP),
            _f("private", Kind.BOOL),
            _f(
                "suspended",
                Kind.BOOL,
                required=False,
                doc="true while the room is restored from its journal after a store fault",
            ),
            _f(
                "paused",
                Kind.STR,
                required=False,
                nullable=True,
                doc="away, player or unwatched while play stands still",
            ),
            _f(
                "bots_at",
                Kind.NUM,
                required=False,
                nullable=True,
                doc="a quick-match room: when COMP bots take the seats still open",
            ),
            _f("daily", Kind.STR, required=False, doc="today's deal: its UTC day, YYYY-MM-DD"),
            _f("practice", Kind.BOOL, required=False, doc="today's deal, not the try that counts"),
            _f(
                "showcase",
                Kind.BOOL,
                required=False,
                doc="true: the server's own all-COMP game, kept running for lobbies to show",
            ),
        ),
        _reply(
            "scores",
            "A high-score table.",
            _f("game", Kind.STR),
            _f("table", Kind.STR, nullable=True),
            _f("tables", Kind.LIST),
            _f("entries", Kind.LIST),
            _f("bots", Kind.BOOL, required=False, doc="whether these are the bots' entries"),
            _f("mine", Kind.LIST, required=False, doc="your best in each table"),
            _f("day", Kind.STR, required=False, doc="a day's table: its UTC day, YYYY-MM-DD"),
            _f(
                "replays",
                Kind.BOOL,
                required=False,
                doc="a day's table: whether its games may be replayed (the day is over)",
            ),
            _f(
                "share",
                Kind.STR,
                required=False,
                doc="a day's table: your result of it as you share it, with the link to the deal",
            ),
        ),
        _reply(
            "history",
            "One page of a player's finished games, newest first.",
            _f("player", Kind.STR, doc="whose games these are"),
            _f("rooms", Kind.LIST),
            _f("next", Kind.STR, nullable=True, doc="the cursor of the next page; nil: the last"),
        ),
        _reply(
            "replayed",
            "A finished room after one journal entry, as spectators saw it, and what was hidden.",
            _ROOM,
            _f("game", Kind.STR),
            _f("players", Kind.LIST, doc="the seats' names"),
            _f("seq", Kind.INT),
            _f("last", Kind.INT, doc="the room's last seq: a replay goes from 1 to it"),
            _f("events", Kind.LIST, doc="what the entry caused, every seat's events included"),
            _VIEW,
            _f("revealed", Kind.MAP, doc="what the view hid then: racks, coming colours..."),
        ),
        _reply(
            "leaderboard",
            "One page of a rated game's players, best rating first.",
            _f("game", Kind.STR),
            _f("entries", Kind.LIST, doc="each name, rating, rd, games"),
            _f("next", Kind.STR, nullable=True, doc="the cursor of the next page; nil: the last"),
            _f("mine", Kind.MAP, doc="your own rating, rd and games"),
        ),
        _reply("chat", "Someone spoke.", _ROOM, _f("from", Kind.STR), _f("text", Kind.STR)),
        _reply("pong", "Reply to ping."),
        _reply("password_set", "Your name is protected by the password you sent."),
        _reply(
            "signed_out",
            "The token (or every token) no longer works; the server closes this connection next.",
            _f("everywhere", Kind.BOOL),
        ),
        _reply(
            "reconnect",
            "This node is going away: reconnect to url (every node serves every room).",
            _f("url", Kind.STR, doc="a ws:// or wss:// address of another node"),
            _f("reason", Kind.STR, required=False),
        ),
        _reply(
            "error",
            "A refusal; nothing changed.",
            _f("code", Kind.STR),
            _f("message", Kind.STR),
            _f(
                "retry_after",
                Kind.NUM,
                required=False,
                doc="seconds to wait before sending the same request again",
            ),
            _f(
                "cells",
                Kind.LIST,
                required=False,
                doc="a game's refusal: the [row, col] squares it is about, for the board to name",
            ),
            _f(
                "tiles",
                Kind.LIST,
                required=False,
                doc="a game's refusal: the tiles, stones or numbers it is about, as in views",
            ),
        ),
    )
}
