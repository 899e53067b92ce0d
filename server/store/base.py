"""The store interface: players, rooms, journals, results, high scores and ratings.

Two implementations share it: SQLite (the embedded default) and PostgreSQL
(several nodes sharing one store). The journal is what makes rooms survive a
crash: ``append`` returns only once the entry is durably committed, and rooms
broadcast only after that.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from tilehall.server.ratings import RatedGame
from tilehall.server.store.records import (
    CHAT_KEPT,
    AccountRecord,
    ChatLine,
    FinishedRoom,
    JournalEntry,
    PlayerRecord,
    RatingRecord,
    RoomRecord,
    ScoreRecord,
    SeatRecord,
)

__all__ = ["Store"]


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

    # today's deal
    @abstractmethod
    async def secret(self, name: str, new: str) -> str:
        """The server's secret ``name``: ``new`` kept if none is kept yet, else the kept one.

        Kept in the store, so that every node of a cluster reads the same one; of
        several nodes keeping one at once, the first to commit wins for all.
        """

    @abstractmethod
    async def daily_try(self, game: str, day: str, player: int, room: str) -> str:
        """Give ``player``'s try of ``game``'s deal of ``day`` to ``room``, unless another
        room holds it; the room that holds it now.

        A room that holds it keeps it, but for one that closed unplayed (a waiting
        room that expired), which gives it back. The room is kept after its try is
        given, so a room that asks is one being made. Of several rooms asking at
        once, on any node, exactly one gets it.
        """

    @abstractmethod
    async def daily_rooms(self, game: str, day: str, player: int) -> list[RoomRecord]:
        """``player``'s rooms of ``game``'s deal of ``day`` not over yet, the counted one first."""

    @abstractmethod
    async def purge_days(self, oldest: str) -> int:
        """Delete the day tables (and tries) of the days before ``oldest``; rows deleted."""

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

    # chat
    @abstractmethod
    async def add_chat(self, line: ChatLine, keep: int = CHAT_KEPT) -> None:
        """Keep one chat line of a room, and only the room's latest ``keep`` lines.

        The line and the trimming are one transaction: a room never holds more
        than ``keep`` lines, and a line the caller was told is kept survives a
        restart (the room broadcasts it only after this returns).
        """

    @abstractmethod
    async def chat(self, room: str, limit: int = CHAT_KEPT) -> list[ChatLine]:
        """The room's latest ``limit`` chat lines, oldest first."""

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
        :meth:`history` nor replayable, and their chat lines go with them. Returns
        how many rooms were purged (call again while it returns ``batch``: each call
        is one short transaction).
        """

    @abstractmethod
    async def purge_showcases(self, finished_before: float, batch: int = 100) -> int:
        """Delete up to ``batch`` of the server's own games (:attr:`RoomRecord.showcase`)
        over before ``finished_before``: their record, journal and chat, all of it.

        They are nobody's game (no seat of a player, no score, no rating): kept like
        others, one every few minutes someone watches would grow the store for ever.
        Returns how many (call again while it returns ``batch``).
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
