"""Stable error codes: the ``code`` of every ``error`` frame the server sends.

Clients switch on these, so a code, once published, never changes meaning.
:class:`ErrorCode` holds the codes of the protocol layer and the server;
:class:`GameCode` those of the game engines (``not_your_turn``, ``no_match``...),
which are documented with each game in ``protocol/games/``.
"""

from __future__ import annotations

import enum

__all__ = ["CloseCode", "ErrorCode", "GameCode", "ProtocolError"]


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
    PASSWORD_REQUIRED = "password_required"
    """``hello`` by name for a name protected by a password, without it (or a token)."""
    BAD_PASSWORD = "bad_password"
    """A wrong password in ``hello``/``set_password``, or a new one too short or too long."""
    TOO_MANY_ATTEMPTS = "too_many_attempts"
    """A password may not be checked now: five wrong ones for this name from this address
    within ten minutes, twenty from this address for any names, or a hundred for this name
    within a day from everywhere (then its password is checked once a minute). Carries
    ``retry_after``; also sent, with a short ``retry_after``, while the server is busy
    checking others."""
    TOO_MANY_NAMES = "too_many_names"
    """``hello`` with a new name from an address that made its budget of new names this hour
    (the host's ``--names-per-address``). Carries ``retry_after``; names already made sign
    in as ever."""
    NAME_DISABLED = "name_disabled"
    """The host has barred this name: ``hello`` with it is refused, whatever password or
    token comes with it."""
    NO_PASSWORD = "no_password"
    """``sign_out`` of a name that has no password: nobody could sign in as it again, so it
    is refused. Set a password first (``set_password``)."""

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
    TOO_MANY_ROOMS = "too_many_rooms"
    """``create`` past the bound of rooms a player may have open (``welcome.limits.rooms``)."""
    UNKNOWN_TABLE = "unknown_table"
    NOT_RATED = "not_rated"
    """``leaderboard`` of a game that has no ratings (``welcome.games[].rated`` is false)."""
    BAD_CURSOR = "bad_cursor"
    """A ``leaderboard.cursor`` that no ``leaderboard`` reply gave."""
    ROOM_CLOSED = "room_closed"
    """Pushed (without re) when an administrator closes a room you are in."""

    # history and replays
    UNKNOWN_PLAYER = "unknown_player"
    """``history`` named a player this server does not know."""
    NOT_OVER = "not_over"
    """``replay`` of a room still being played (watch it instead)."""
    REPLAY_GONE = "replay_gone"
    """``replay`` of a room whose moves were deleted (the host keeps finished games a while)."""
    DAY_NOT_OVER = "day_not_over"
    """``replay`` of someone else's game of today's deal before the day ends (UTC)."""
    NO_DAILY = "no_daily"
    """``create`` with ``daily`` for a game that has no daily deal (``welcome.games[].daily``)."""

    # limits and failures
    ACTION_TOO_LARGE = "action_too_large"
    """An ``act`` frame larger than ``welcome.limits.action`` bytes; nothing was done."""
    RATE_LIMITED = "rate_limited"
    UNAVAILABLE = "unavailable"
    """The store (or the room's node) cannot take the request now; nothing was done.
    Carries ``retry_after``: send it again after that many seconds."""
    INTERNAL_ERROR = "internal_error"


class CloseCode(enum.IntEnum):
    """The server's own WebSocket close codes, in the private range 4000-4999."""

    SIGNED_OUT = 4001
    """This connection's token was taken back (``sign_out`` on another connection)."""
    NAME_DISABLED = 4002
    """The host barred this connection's name (``tilehall-server admin player NAME --disable``)."""


class GameCode(enum.StrEnum):
    """Codes of refused game actions: the engines' ``InvalidMove`` and ``IllegalMove``.

    One enum for all five games, because the codes are shared: ``occupied``
    means the same on an Ishido square, a Lines cell and a Mathable square.
    Each member says which games raise it; ``protocol/games/<game>.md`` says
    when. The first group is raised by every game, from the one place that
    checks an action against the game's declared action schema and turn.
    """

    # malformed actions (InvalidMove), every game
    UNKNOWN_ACTION = "unknown_action"
    """The action's ``do`` names no action of the game (or, read by the engine itself, the
    action is not a map or is empty: on the wire ``act`` refuses those first, ``wrong_type``
    and ``out_of_range``, as PROTOCOL.md's ``act`` says)."""
    MISSING_FIELD = "missing_field"
    """A field the action needs is absent or null (a map without ``do`` counts too)."""
    BAD_FIELD = "bad_field"
    """A field the action does not have, or one of the wrong type or out of its bounds."""
    BAD_CELL = "bad_cell"
    """A cell field that is not ``[row, col]`` of two integers on the board."""
    BAD_SEAT = "bad_seat"
    """A seat number the game does not have (games of several seats: Mathable)."""

    # against the rules now (IllegalMove), every game
    GAME_OVER = "game_over"
    """Any action once the game is over."""
    NOT_YOUR_TURN = "not_your_turn"
    """A turn action from a seat that is not to move (in one-seat games: any seat but 0)."""

    # against the rules now (IllegalMove), games with a clock that can stop
    PAUSED = "paused"
    """The game is paused (its player away, or asked): only ``resume`` is accepted."""
    NOT_PAUSED = "not_paused"
    """``resume`` while the game is not paused."""
    NOT_PAUSABLE = "not_pausable"
    """``pause`` in a game whose clock does not stop this way."""
    NOTHING_TO_UNDO = "nothing_to_undo"
    """``undo`` with no move to take back."""

    # against the rules now (IllegalMove), some games
    OCCUPIED = "occupied"
    """The target square or cell already holds something (Ishido, Lines, Mathable)."""
    NO_MATCH = "no_match"
    """The tiles or stones do not match (Ishido, Match-It, LinkSame)."""
    NO_NEIGHBOUR = "no_neighbour"
    """Ishido: the square has no occupied neighbour."""
    EMPTY_SOURCE = "empty_source"
    """Lines: no chip on the ``from`` cell."""
    UNREACHABLE = "unreachable"
    """Lines: no free path from ``from`` to ``to``."""
    SAME_CELL = "same_cell"
    """A pair names one cell twice (Match-It, LinkSame)."""
    EMPTY_CELL = "empty_cell"
    """A named cell holds no tile (Match-It, LinkSame)."""
    NO_PATH = "no_path"
    """LinkSame: no path of three segments joins the pair."""
    TIME_UP = "time_up"
    """Match-It: the sheet's time has run out (the clock step that follows plays the time-out)."""
    NO_HELPS = "no_helps"
    """Match-It: no helps left."""
    NOT_IN_RACK = "not_in_rack"
    """Mathable: a tile to place or exchange is not on the rack."""
    NO_EQUATION = "no_equation"
    """Mathable: the tile makes no equation on that square."""
    NO_DRAW = "no_draw"
    """Mathable: no extra draw earned this turn."""
    BAG_EMPTY = "bag_empty"
    """Mathable: an extra draw with the bag empty."""
    ALREADY_PLACED = "already_placed"
    """Mathable: an exchange after placing a tile this turn."""
    BAG_TOO_SMALL = "bag_too_small"
    """Mathable: an exchange of more tiles than the bag holds."""


class ProtocolError(Exception):
    """A refused frame or request, carrying the wire ``code`` and a human message."""

    def __init__(
        self,
        code: str,
        message: str,
        re: int | None = None,
        *,
        retry_after: float | None = None,
        cells: list[list[int]] | None = None,
        tiles: list[object] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = str(code)
        self.message = message
        self.re = re
        self.retry_after = retry_after
        """Seconds after which the same request may succeed (``unavailable``, ``rate_limited``)."""
        self.cells = cells or None
        """The squares a game's refusal is about (``[row, col]``), for a client to name."""
        self.tiles = tiles or None
        """The tiles, stones or numbers it is about, as the game's view holds them."""

    def to_message(self) -> dict[str, object]:
        """The ``error`` frame for this refusal."""
        msg: dict[str, object] = {"t": "error", "code": self.code, "message": self.message}
        if self.re is not None:
            msg["re"] = self.re
        if self.retry_after is not None:
            msg["retry_after"] = self.retry_after
        if self.cells:
            msg["cells"] = self.cells
        if self.tiles:
            msg["tiles"] = self.tiles
        return msg
