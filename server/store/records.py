"""The store's records: players, seats, rooms, journal entries, scores, ratings.

Frozen values, made and read by every part of the server (a room's core reads
its seats and appends its entries as these), and nothing else: the interface
that keeps them is :mod:`.base`, the rows both SQL stores make of them :mod:`.rows`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tilehall.server.ratings import Rating

__all__ = [
    "CHAT_KEPT",
    "SHOWCASE_PREFIX",
    "AccountRecord",
    "ChatLine",
    "FinishedRoom",
    "JournalEntry",
    "PlayerRecord",
    "RatingRecord",
    "RoomRecord",
    "ScoreRecord",
    "SeatRecord",
]


SHOWCASE_PREFIX = "s"
"""The first letter of a showcase room's id (a public room's is ``r``, a private room's
random): whoever reads a room's record knows the server's own game by it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerRecord:
    id: int
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class AccountRecord:
    """A player and what guards their name: a password's hash, a one-time code's, a bar.

    ``password`` is the encoded Argon2id hash (salt and parameters inside), never
    the password; ``reset_code`` the SHA-256 of a one-time sign-in code a host
    handed out (``admin player NAME --reset-password``).
    """

    id: int
    name: str
    password: str | None = None
    reset_code: bytes | None = None
    disabled: bool = False

    @property
    def player(self) -> PlayerRecord:
        """The player, as sessions and rooms know them."""
        return PlayerRecord(id=self.id, name=self.name)

    @property
    def protected(self) -> bool:
        """Whether ``hello`` by name needs a password (or the one-time code)."""
        return self.password is not None or self.reset_code is not None


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatRecord:
    """Who holds a seat: a player, a bot (``bot`` = its level), or nobody yet."""

    name: str | None = None
    player: int | None = None
    bot: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "player": self.player, "bot": self.bot}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeatRecord:
        return cls(name=data.get("name"), player=data.get("player"), bot=data.get("bot"))


@dataclass(frozen=True, slots=True, kw_only=True)
class RoomRecord:
    id: str
    game: str
    options: dict[str, Any]
    seed: int
    seats: tuple[SeatRecord, ...]
    private_code: str | None
    created_at: float
    status: str = "waiting"
    node: str = ""
    creator: int | None = None
    """The player who created it (counted against their bound of open rooms)."""
    fill_at: float | None = None
    """A quick-match room: when its seats still open are given to COMP bots."""
    fill_level: str | None = None
    """The level of those bots."""
    daily: str | None = None
    """Today's deal: the UTC day (``YYYY-MM-DD``) whose deal it plays (None: not a daily room)."""
    practice: bool = False
    """A daily room that is not its player's first of the day: on no table."""

    @property
    def showcase(self) -> bool:
        """The server's own all-COMP game, kept running for the lobby to show
        (:mod:`tilehall.server.lobby.showcase`): public, made by nobody, its id
        :data:`SHOWCASE_PREFIX` and 8 hex digits. Said by the id rather than a column
        of its own, so that a store of any age knows it and nothing is migrated."""
        return self.creator is None and self.private_code is None and self.id[:1] == SHOWCASE_PREFIX


@dataclass(frozen=True, slots=True, kw_only=True)
class FinishedRoom:
    """A room that was played to its end (or closed while played), as ``history`` lists it."""

    id: str
    game: str
    options: dict[str, Any]
    seats: tuple[SeatRecord, ...]
    result: dict[str, Any]
    created_at: float
    finished_at: float
    private: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class JournalEntry:
    """One accepted action (``seat`` None for the room's own: start, clock ticks)."""

    room: str
    seq: int
    seat: int | None
    action: dict[str, Any]
    now: float


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreRecord:
    game: str
    table: str
    player: int
    name: str
    score: int
    room: str
    at: float
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class RatingRecord:
    """A player's rating in one game, as the last rated game left it."""

    player: int
    name: str
    game: str
    rating: float
    rd: float
    vol: float
    games: int
    """Rated games played."""
    updated_at: float

    @property
    def current(self) -> Rating:
        return Rating(self.rating, self.rd, self.vol)


CHAT_KEPT = 100
"""How many chat lines a room keeps: its latest, for whoever joins, watches or comes back."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatLine:
    """One thing said in a room, as the room's members got it (its text already cleaned).

    Kept so that a member who joins later, reloads, or comes back after a server
    restart reads what was said before (``joined.chat``).
    """

    room: str
    name: str
    """Who said it: the player's name when it was said."""
    text: str
    at: float
    """When the room took it (the server's clock, epoch seconds)."""

    def to_wire(self) -> dict[str, Any]:
        """The line as ``joined.chat`` lists it."""
        return {"from": self.name, "text": self.text, "at": self.at}
