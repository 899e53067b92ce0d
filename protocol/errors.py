"""Stable error codes: the ``code`` of every ``error`` frame the server sends.

Clients switch on these, so a code, once published, never changes meaning.
Game engines add their own codes (``not_your_turn``, ``no_match``...), which are
documented with each game in ``protocol/games/``.
"""

from __future__ import annotations

import enum

__all__ = ["ErrorCode", "ProtocolError"]


class ErrorCode(enum.StrEnum):
    """Codes raised by the protocol layer and the server itself."""

    # the frame itself
    MALFORMED_FRAME = "malformed_frame"
    """Not valid msgpack, or a text frame."""
    NOT_A_MAP = "not_a_map"
    """Valid msgpack, but not a map."""
    MISSING_TYPE = "missing_type"
    """The map has no string ``t``."""
    UNKNOWN_TYPE = "unknown_type"
    """``t`` names no message a client may send."""
    MISSING_FIELD = "missing_field"
    WRONG_TYPE = "wrong_type"
    OUT_OF_RANGE = "out_of_range"
    """A number out of bounds, or a string/list/map too long or empty."""
    UNSUPPORTED_VERSION = "unsupported_version"

    # sessions
    HELLO_FIRST = "hello_first"
    """Anything but ``hello`` (or ``ping``) before ``welcome``."""
    ALREADY_WELCOMED = "already_welcomed"
    BAD_TOKEN = "bad_token"
    BAD_NAME = "bad_name"
    NAME_TAKEN = "name_taken"
    NAME_RESERVED = "name_reserved"
    """Names starting with ``COMP`` belong to bots."""

    # lobby and rooms
    UNKNOWN_GAME = "unknown_game"
    BAD_OPTION = "bad_option"
    BAD_SEATS = "bad_seats"
    UNKNOWN_ROOM = "unknown_room"
    ROOM_FULL = "room_full"
    SEAT_TAKEN = "seat_taken"
    BAD_SEAT = "bad_seat"
    NOT_IN_ROOM = "not_in_room"
    SPECTATOR = "spectator"
    """A spectator tried to act."""
    NOT_STARTED = "not_started"
    """The room still waits for players."""
    STALE = "stale"
    """``act`` carried a ``seq`` that is not the room's current one."""
    UNKNOWN_TABLE = "unknown_table"
    ROOM_CLOSED = "room_closed"
    """Pushed (without re) when an administrator closes a room you are in."""

    # limits and failures
    RATE_LIMITED = "rate_limited"
    INTERNAL_ERROR = "internal_error"


class ProtocolError(Exception):
    """A refused frame or request, carrying the wire ``code`` and a human message."""

    def __init__(self, code: str, message: str, re: int | None = None) -> None:
        super().__init__(message)
        self.code = str(code)
        self.message = message
        self.re = re

    def to_message(self) -> dict[str, object]:
        """The ``error`` frame for this refusal."""
        msg: dict[str, object] = {"t": "error", "code": self.code, "message": self.message}
        if self.re is not None:
            msg["re"] = self.re
        return msg
