"""The store interface: players, rooms, journals, results, high scores and ratings.

Two implementations share it: SQLite (the embedded default) and PostgreSQL
(several nodes sharing one store). The journal is what makes rooms survive a
crash: ``append`` returns only once the entry is durably committed, and rooms
broadcast only after that.
"""

from __future__ import annotations

import asyncio
import json
import logging
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tilehall.server.names import folded_skeleton, name_key, skeleton
from tilehall.server.ratings import RatedGame, Rating

__all__ = [
    "FINISHED_COLUMNS",
    "RATING_COLUMNS",
    "ROOM_COLUMNS",
    "AppendRefused",
    "FinishedRoom",
    "JournalEntry",
    "NameTaken",
    "PlayerRecord",
    "RatingRecord",
    "RoomRecord",
    "RoomTaken",
    "ScoreRecord",
    "SeatRecord",
    "Store",
    "StoreUnavailable",
    "finished_from_row",
    "player_keys",
    "rating_changes",
    "rating_from_row",
    "room_from_row",
    "room_row",
    "score_from_row",
    "score_row",
    "seats_json",
]


class NameTaken(Exception):
    """A player name is already used: the same ignoring case, or confusable with it.

    See :mod:`tilehall.server.names`: the players table keeps each name's
    :func:`~tilehall.server.names.name_key` and
    :func:`~tilehall.server.names.skeleton` under unique indexes.
    """


class RoomTaken(Exception):
    """A new room's id is already used by a room of the store, open or finished: the
    lobby draws another.

    A public room's id is short (``r`` and 8 hex digits, 32 random bits) so that
    people can read and type it. Two of 10,000 rooms share one about once in 86
    stores, and a store that has kept 100,000 rooms (finished games stay for
    their replays) has seen about one such draw.
    """


class AppendRefused(Exception):
    """The journal kept no entry: its seq is already taken, or the room moved to another node."""


class StoreUnavailable(Exception):
    """The store did not answer, or could not write (server down, connection lost, disk full).

    The outcome of the operation is unknown: a write may or may not have been
    committed. Whoever needs to know reads it back once :meth:`Store.ping`
    succeeds again. The driver's own exception is chained as ``__cause__``.
    """


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


class Store(ABC):
    """Async persistence. Implementations must never block the event loop."""

    @abstractmethod
    async def open(self) -> None:
        """Connect and bring the schema to the current version."""

    @abstractmethod
    async def close(self) -> None:
        """Flush pending writes and release connections."""

    @abstractmethod
    async def ping(self) -> None:
        """Prove the store answers and takes a write now; raise :class:`StoreUnavailable` if not."""

    # players
    @abstractmethod
    async def create_player(self, name: str, token_hash: bytes, now: float) -> PlayerRecord:
        """Create a player; raise :class:`NameTaken` if its key or its skeleton is taken.

        Of several creating confusable names at once (on any node), exactly one wins.
        """

    @abstractmethod
    async def player_by_token(self, token_hash: bytes) -> PlayerRecord | None: ...

    # what guards a name: tokens (one per device), a password, a bar
    @abstractmethod
    async def account(self, player: int) -> AccountRecord | None:
        """The player ``player`` with what guards their name."""

    @abstractmethod
    async def account_by_token(self, token_hash: bytes) -> AccountRecord | None:
        """The player one of whose tokens hashes to ``token_hash``."""

    @abstractmethod
    async def account_by_name(self, name: str) -> AccountRecord | None:
        """The player called ``name`` or a name that looks like it (as :meth:`player_by_name`)."""

    @abstractmethod
    async def add_token(self, player: int, token_hash: bytes, now: float) -> None:
        """Give ``player`` one more token (a device signing in); the others keep working."""

    @abstractmethod
    async def revoke_token(self, token_hash: bytes) -> None:
        """Take one token back: ``hello`` with it fails from now on."""

    @abstractmethod
    async def revoke_tokens(self, player: int) -> int:
        """Take back every token of ``player``; returns how many there were."""

    @abstractmethod
    async def set_password(
        self, player: int, password: str | None, reset_code: bytes | None = None
    ) -> None:
        """Keep ``player``'s password hash (None: none) and one-time code hash (None: none)."""

    @abstractmethod
    async def rehash_password(self, player: int, old: str, new: str) -> bool:
        """Replace ``player``'s password hash ``old`` by ``new``, unless it changed meanwhile.

        ``new`` hashes the same password with the server's parameters of today (a
        sign-in after a release raised them). A password set in between, on another
        connection, stands: the old password must not come back. Whether it was replaced.
        """

    @abstractmethod
    async def set_disabled(self, player: int, disabled: bool) -> None:
        """Bar ``player``'s name (``hello`` refused) or lift the bar."""

    # rooms
    @abstractmethod
    async def create_room(self, room: RoomRecord) -> None:
        """Keep a new room.

        Raises:
            RoomTaken: a room of the store, open or over, has its id; nothing changed.
        """

    @abstractmethod
    async def set_seats(self, room: str, seats: Sequence[SeatRecord]) -> None: ...

    @abstractmethod
    async def set_status(self, room: str, status: str) -> None: ...

    @abstractmethod
    async def set_fill(self, room: str, at: float) -> None:
        """A quick-match room gives its open seats to bots at ``at`` now (a sooner time)."""

    @abstractmethod
    async def unfinished_rooms(self, node: str = "") -> list[RoomRecord]:
        """Rooms not yet over, for recovery at start (``node``: only that node's)."""

    @abstractmethod
    async def room(self, room: str) -> RoomRecord | None: ...

    @abstractmethod
    async def open_rooms_of(self, creator: int) -> int:
        """How many rooms ``creator`` made that are not over yet (on any node)."""

    @abstractmethod
    async def claim_room(self, room: str, old_node: str, new_node: str) -> RoomRecord | None:
        """Move an unfinished room from ``old_node`` (a dead node) to ``new_node``.

        Returns the room as now owned by ``new_node``, or None when it no longer
        belongs to ``old_node`` (another node claimed it first) or is over. Of
        several nodes claiming at once, exactly one gets the room.
        """

    # journal
    @abstractmethod
    def append(self, entry: JournalEntry) -> asyncio.Future[None]:
        """Durably append one entry; the future it returns is done once it is committed.

        Entries arriving together are committed together (group commit). A
        future rather than a coroutine: the room takes its answer by a callback,
        with no coroutine around it for every move; the entry is taken (packed,
        queued) when this is called.

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
        self,
        room: str,
        result: dict[str, Any],
        scores: Sequence[ScoreRecord],
        now: float,
        *,
        rated: RatedGame | None = None,
    ) -> None:
        """Mark a room over, keep its result and its high-score claims, atomically.

        Idempotent: a room already over is left as it is and no score is added
        twice, so a finish whose outcome was unknown can simply be done again.

        ``rated``: the game's outcome for the ratings, applied in the same
        transaction (:func:`~tilehall.server.ratings.rate_game`, on the
        ratings as they are at commit, each player rated at most once a room:
        the store records the rooms it rated).
        """

    @abstractmethod
    async def top_scores(
        self, game: str, table: str, limit: int = 10, *, bots: bool = False
    ) -> list[ScoreRecord]:
        """The best ``limit`` entries of a table: players' (``bots``: bot programs') only."""

    @abstractmethod
    async def mark_bot(self, player: int) -> None:
        """``player`` is a program (its hello said ``bot``): its scores stand apart."""

    @abstractmethod
    async def best_of(self, game: str, player: int) -> list[ScoreRecord]:
        """A player's best score in each table of ``game``."""

    @abstractmethod
    async def score_tables(self, game: str) -> list[str]: ...

    # history and replays
    @abstractmethod
    async def player_by_name(self, name: str) -> PlayerRecord | None:
        """The player of that name, compared as names are (case and confusables folded)."""

    @abstractmethod
    async def history(
        self,
        player: int,
        *,
        game: str | None = None,
        limit: int = 20,
        before: tuple[float, str] | None = None,
        private: bool = False,
    ) -> list[FinishedRoom]:
        """The rooms ``player`` held a seat in that were played and are over, newest first.

        A room counts once its journal has an entry (an expired waiting room
        never played does not). ``before``: the (finished_at, id) of the last
        room of the page before. ``private``: include private rooms (the
        player's own history; someone else's lists only public rooms). Rooms
        whose journal was purged (:meth:`purge_journals`) are no longer listed.
        """

    @abstractmethod
    async def purge_journals(self, finished_before: float, batch: int = 100) -> int:
        """Delete the journals of up to ``batch`` rooms over before ``finished_before``.

        Their result and scores stay; they are no longer listed by
        :meth:`history` nor replayable. Returns how many rooms were purged (call
        again while it returns ``batch``: each call is one short transaction).
        """

    # ratings
    @abstractmethod
    async def ratings_of(self, player: int) -> dict[str, RatingRecord]:
        """A player's rating in each game where they have one, by game."""

    @abstractmethod
    async def leaderboard(
        self, game: str, limit: int, after: tuple[float, str] | None = None
    ) -> list[RatingRecord]:
        """Up to ``limit`` people rated in ``game``, best first (by rating, then name).

        Only players with a rated game, never bot programs. ``after``: the
        (rating, name) of the last entry of the page before; names compare by
        code point, the same in every store.
        """


# -- rows as both SQL stores keep them (JSON text columns) --------------------------------

log = logging.getLogger(__name__)


def player_keys(
    rows: Sequence[tuple[int, str]], taken: tuple[set[str], set[str], set[str]]
) -> list[tuple[int, str, str, str]]:
    """The ``name_key``, ``skeleton`` and ``folded`` columns of players stored before skeletons.

    Each store fills them at open for its rows whose skeleton is NULL, in id
    order. Names that were distinct under the old rule may be one name now
    (``alice``, and ``alice`` in fullwidth letters): both players stay, and the
    later one's clashing keys get its id appended after a line break, which no
    name has, so they block nothing and are blocked by nothing.

    Args:
        rows: (id, name) of the players to fill, in id order.
        taken: the keys, skeletons and folded skeletons already taken; updated
            with the ones given out.

    Returns:
        (id, name_key, skeleton, folded skeleton) for each row.
    """
    out = []
    for pid, name in rows:
        mine = (name_key(name), skeleton(name), folded_skeleton(name))
        if any(k in used for k, used in zip(mine, taken, strict=True)):
            log.warning("player %d: %r looks like an older player's name; both kept", pid, name)
        key, skel, folded = (
            f"{k}\n#{pid}" if k in used else k for k, used in zip(mine, taken, strict=True)
        )
        for k, used in zip((key, skel, folded), taken, strict=True):
            used.add(k)
        out.append((pid, key, skel, folded))
    return out


def seats_json(seats: Sequence[SeatRecord]) -> str:
    """The ``seats`` column of a room."""
    return json.dumps([s.to_json() for s in seats])


ROOM_COLUMNS = (
    "id, game, options, seed, seats, private_code, created_at, status, node, creator,"
    " fill_at, fill_level"
)
"""The columns :func:`room_from_row` reads, in its order."""


def room_row(room: RoomRecord) -> tuple[Any, ...]:
    """``room`` as the values of :data:`ROOM_COLUMNS`, in their order (what
    :func:`room_from_row` reads back)."""
    return (
        room.id,
        room.game,
        json.dumps(room.options),
        room.seed,
        seats_json(room.seats),
        room.private_code,
        room.created_at,
        room.status,
        room.node,
        room.creator,
        room.fill_at,
        room.fill_level,
    )


def room_from_row(row: Sequence[Any]) -> RoomRecord:
    """A ``rooms`` row, as :data:`ROOM_COLUMNS` names its columns."""
    rid, game, options, seed, seats, code, created, status, node, creator, fill_at, level = row
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
        creator=creator,
        fill_at=fill_at,
        fill_level=level,
    )


def score_row(score: ScoreRecord) -> tuple[Any, ...]:
    """``score`` as the values of a ``scores`` row (what :func:`score_from_row` reads back)."""
    return (
        score.game,
        score.table,
        score.player,
        score.name,
        score.score,
        score.room,
        score.at,
        json.dumps(score.detail),
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


FINISHED_COLUMNS = (
    "r.id, r.game, r.options, r.seats, r.result, r.created_at, r.finished_at, r.private_code"
)
"""The columns :func:`finished_from_row` reads, in its order (of ``rooms r``)."""


def finished_from_row(row: Sequence[Any]) -> FinishedRoom:
    """A finished ``rooms`` row, as :data:`FINISHED_COLUMNS` names its columns."""
    rid, game, options, seats, result, created, finished, code = row
    return FinishedRoom(
        id=rid,
        game=game,
        options=json.loads(options),
        seats=tuple(SeatRecord.from_json(s) for s in json.loads(seats)),
        result=json.loads(result) if result else {},
        created_at=created,
        finished_at=finished,
        private=code is not None,
    )


ACCOUNT_COLUMNS = "p.id, p.name, p.password, p.reset_code, p.disabled"
"""The columns :func:`account_from_row` reads, of ``players p``."""


def account_from_row(row: Sequence[Any]) -> AccountRecord:
    """An :class:`AccountRecord` from the :data:`ACCOUNT_COLUMNS` of a row."""
    code = row[3]
    return AccountRecord(
        id=row[0],
        name=row[1],
        password=row[2],
        reset_code=bytes(code) if code is not None else None,
        disabled=bool(row[4]),
    )


RATING_COLUMNS = "r.player, p.name, r.game, r.rating, r.rd, r.vol, r.games, r.updated_at"
"""The columns :func:`rating_from_row` reads, in its order (of ``ratings r JOIN players p``)."""


def rating_from_row(row: Sequence[Any]) -> RatingRecord:
    """A ``ratings`` row and its player's name, as :data:`RATING_COLUMNS` names them."""
    player, name, game, rating, rd, vol, games, at = row
    return RatingRecord(
        player=player,
        name=name,
        game=game,
        rating=rating,
        rd=rd,
        vol=vol,
        games=games,
        updated_at=at,
    )


def rating_changes(before: Mapping[int, Rating], after: Mapping[int, Rating]) -> dict[str, Any]:
    """What a rated room changed, as ``rated_rooms.changes`` keeps it (for history and audit).

    By player id: ``[rating, rd]`` before (a new player's when they had none) and after.
    """
    out = {}
    for pid, new in after.items():
        old = before.get(pid, Rating())
        out[str(pid)] = {"before": [old.rating, old.rd], "after": [new.rating, new.rd]}
    return out
