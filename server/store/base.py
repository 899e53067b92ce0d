"""The store interface: players, rooms, journals, results and high scores.

Two implementations share it: SQLite (the embedded default) and PostgreSQL
(several nodes sharing one store). The journal is what makes rooms survive a
crash: ``append`` returns only once the entry is durably committed, and rooms
broadcast only after that.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "AppendRefused",
    "JournalEntry",
    "NameTaken",
    "PlayerRecord",
    "RoomRecord",
    "ScoreRecord",
    "SeatRecord",
    "Store",
    "room_from_row",
    "score_from_row",
    "seats_json",
]


class NameTaken(Exception):
    """A player name is already used (names are unique case-insensitively)."""


class AppendRefused(Exception):
    """The journal kept no entry: its seq is already taken, or the room moved to another node."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerRecord:
    id: int
    name: str


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


class Store(ABC):
    """Async persistence. Implementations must never block the event loop."""

    @abstractmethod
    async def open(self) -> None:
        """Connect and bring the schema to the current version."""

    @abstractmethod
    async def close(self) -> None:
        """Flush pending writes and release connections."""

    # players
    @abstractmethod
    async def create_player(self, name: str, token_hash: bytes, now: float) -> PlayerRecord:
        """Create a player; raise :class:`NameTaken` if the name is used in any case."""

    @abstractmethod
    async def player_by_token(self, token_hash: bytes) -> PlayerRecord | None: ...

    # rooms
    @abstractmethod
    async def create_room(self, room: RoomRecord) -> None: ...

    @abstractmethod
    async def set_seats(self, room: str, seats: Sequence[SeatRecord]) -> None: ...

    @abstractmethod
    async def set_status(self, room: str, status: str) -> None: ...

    @abstractmethod
    async def unfinished_rooms(self, node: str = "") -> list[RoomRecord]:
        """Rooms not yet over, for recovery at start (``node``: only that node's)."""

    @abstractmethod
    async def room(self, room: str) -> RoomRecord | None: ...

    @abstractmethod
    async def claim_room(self, room: str, old_node: str, new_node: str) -> RoomRecord | None:
        """Move an unfinished room from ``old_node`` (a dead node) to ``new_node``.

        Returns the room as now owned by ``new_node``, or None when it no longer
        belongs to ``old_node`` (another node claimed it first) or is over. Of
        several nodes claiming at once, exactly one gets the room.
        """

    # journal
    @abstractmethod
    async def append(self, entry: JournalEntry) -> None:
        """Durably append one entry; return only after it is committed.

        Entries arriving together are committed together (group commit).

        Raises:
            AppendRefused: the room already has an entry with this seq (or, in a
                fenced store, the room now belongs to another node). The other
                entries of the batch are not affected.
        """

    @abstractmethod
    async def journal(self, room: str) -> list[JournalEntry]:
        """Every entry of a room, in seq order."""

    # results and scores
    @abstractmethod
    async def finish_room(
        self, room: str, result: dict[str, Any], scores: Sequence[ScoreRecord], now: float
    ) -> None:
        """Mark a room over, keep its result and its high-score claims, atomically."""

    @abstractmethod
    async def top_scores(self, game: str, table: str, limit: int = 10) -> list[ScoreRecord]: ...

    @abstractmethod
    async def best_of(self, game: str, player: int) -> list[ScoreRecord]:
        """A player's best score in each table of ``game``."""

    @abstractmethod
    async def score_tables(self, game: str) -> list[str]: ...


# -- rows as both SQL stores keep them (JSON text columns) --------------------------------


def seats_json(seats: Sequence[SeatRecord]) -> str:
    """The ``seats`` column of a room."""
    return json.dumps([s.to_json() for s in seats])


def room_from_row(row: Sequence[Any]) -> RoomRecord:
    """A ``rooms`` row (id, game, options, seed, seats, code, created, status, node)."""
    rid, game, options, seed, seats, code, created, status, node = row
    return RoomRecord(
        id=rid,
        game=game,
        options=json.loads(options),
        seed=seed,
        seats=tuple(SeatRecord.from_json(s) for s in json.loads(seats)),
        private_code=code,
        created_at=created,
        status=status,
        node=node,
    )


def score_from_row(row: Sequence[Any]) -> ScoreRecord:
    """A ``scores`` row (game, table, player, name, score, room, at, detail)."""
    game, tbl, player, name, score, room, at, detail = row
    return ScoreRecord(
        game=game,
        table=tbl,
        player=player,
        name=name,
        score=score,
        room=room,
        at=at,
        detail=json.loads(detail),
    )
