"""Records: ``scores``, ``history``, ``replay``, ``leaderboard``, and the purge of old moves.

Each reads the store, where a game's result, scores and rating are written
only after the journal holds its end (:mod:`tilehall.server.outcome`), so no
record shows a move the journal may still refuse.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Any

from tilehall.protocol import ErrorCode, ProtocolError, encode_with, pack_array
from tilehall.server.daily import (
    day_end,
    day_of,
    day_table,
    deal_link,
    is_day_table,
    oldest_kept,
    share_text,
    table_day,
)
from tilehall.server.games import Game, Status, find_game
from tilehall.server.lobby.pages import PAGE_DEFAULT, Frame, Page, packed
from tilehall.server.lobby.registry import Registry
from tilehall.server.ratings import Rating, board_cursor, board_position, is_rated, rated_games
from tilehall.server.room.member import Member
from tilehall.server.room.replays import Replays
from tilehall.server.store.errors import StoreUnavailable
from tilehall.server.store.records import FinishedRoom, RoomRecord, ScoreRecord

__all__ = ["Records"]

log = logging.getLogger(__name__)

HISTORY_DEFAULT = 20
"""Rooms in a ``history`` page when the request names no ``limit`` (at most 100)."""

PURGE_EVERY = 3600.0
"""Seconds between two deletions of the moves of games older than ``--replay-days``."""


class Records:
    """Finished games and their tables, over the lobby's registry (for its store, its clock
    and its games)."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.store = registry.store
        self.replays = Replays()

    async def scores(self, session: Member, msg: dict[str, Any]) -> dict[str, Any]:
        """A high-score table: people's, or with ``bots`` the bot programs' (kept apart).

        ``tables`` lists every table the game defines, empty or not, then any
        older one the store still holds; not the day tables of today's deal (a year
        of them), asked for by name: ``daily`` (today) or ``daily-YYYY-MM-DD``.
        """
        game = msg["game"]
        try:
            cls = find_game(game)
        except KeyError:
            raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"there is no game {game!r}") from None
        defined = cls.tables()
        kept = [t for t in await self.store.score_tables(game) if not is_day_table(t)]
        tables = defined + [t for t in kept if t not in defined]
        table = msg.get("table") or (tables[0] if tables else None)
        day = self._day(cls, table)
        if day is not None:
            table = day_table(day)
        entries = []
        if table is not None:
            if "table" in msg and table not in tables and day is None:
                raise ProtocolError(ErrorCode.UNKNOWN_TABLE, f"{game} has no table {table!r}")
            # A day's table is people's only: bot programs play the deal, as practice
            # for whoever wrote them, but enter no day's table, not even their own.
            bots = bool(msg.get("bots"))
            entries = [
                {"name": s.name, "score": s.score, "at": s.at, "room": s.room, "detail": s.detail}
                for s in (
                    await self.store.top_scores(game, table, bots=bots)
                    if day is None or not bots
                    else []
                )
            ]
        reply: dict[str, Any] = {
            "t": "scores",
            "game": game,
            "table": table,
            "tables": tables,
            "entries": entries,
            "bots": bool(msg.get("bots")),
        }
        if day is not None:
            reply["day"] = day
            reply["replays"] = self.registry.clock.time() >= day_end(day)
        if session.player is not None:
            best = [
                s
                for s in await self.store.best_of(game, session.player.id)
                if not is_day_table(s.table) or s.table == table  # a year of days: the one asked
            ]
            reply["mine"] = [
                {"table": s.table, "score": s.score, "at": s.at, "room": s.room} for s in best
            ]
            result = next((s for s in best if day is not None and s.table == table), None)
            if result is not None and day is not None:
                reply["share"] = self._share(session, cls, day, result)
        return reply

    def _share(self, session: Member, game: type[Game], day: str, result: ScoreRecord) -> str:
        """The asker's result of ``day``'s deal as they share it, with the link to the deal:
        made here, so that every client shares the same words."""
        base = self.registry.config.public_url or getattr(session, "origin", None)
        counts = [
            (label, result.detail[name])
            for name, label in game.daily_counts.items()
            if name in result.detail
        ]
        link = deal_link(base, game.name) if base else None
        return share_text(game.title, day, result.score, counts, link)

    def _day(self, game: type[Game], table: str | None) -> str | None:
        """The day a ``scores`` table names (``daily``: today), None for a table of no day;
        ``unknown_table`` for a day that is no date, or one this server keeps no table of."""
        if table is None or not is_day_table(table):
            return None
        now = self.registry.clock.time()
        try:
            day = table_day(table, now) or ""  # a day's table names a day
        except ValueError:
            raise ProtocolError(
                ErrorCode.UNKNOWN_TABLE, f"a day's table is daily-YYYY-MM-DD, not {table!r}"
            ) from None
        if not game.daily or not oldest_kept(now) <= day <= day_of(now):
            raise ProtocolError(
                ErrorCode.UNKNOWN_TABLE,
                f"{game.name} has no table of {day}: "
                + (
                    "it has no daily deal"
                    if not game.daily
                    else f"the days kept are {oldest_kept(now)} to {day_of(now)}"
                ),
            )
        return day

    # -- history and replays ---------------------------------------------------------------

    async def history(self, session: Member, msg: dict[str, Any]) -> Frame:
        """One page of a player's finished games (yours by default), newest first.

        Someone else's history lists only public rooms; yours lists your private
        ones too. ``next`` is the cursor of the following page (null on the last).
        A page holds at most ``limit`` games and at most ``PAGE_BYTES`` of them, as
        a ``rooms`` page: a hundred four-seat games whose players took the longest
        names come to 66 KB, past the frame limit, so such a page ends early and
        says so by a ``next`` that is not null.
        """
        assert session.player is not None
        asker = session.player
        if "player" in msg:
            target = await self.store.player_by_name(msg["player"])
            if target is None:
                raise ProtocolError(
                    ErrorCode.UNKNOWN_PLAYER, f"there is no player {msg['player']!r}"
                )
        else:
            target = asker
        game = self.registry.game(msg["game"]).name if "game" in msg else None
        limit: int = msg.get("limit") or HISTORY_DEFAULT
        before = _history_cursor(msg["cursor"]) if "cursor" in msg else None
        rooms = await self.store.history(
            target.id, game=game, limit=limit + 1, before=before, private=target.id == asker.id
        )
        page = Page(limit)
        for room in rooms:  # limit + 1 of them: one past the limit says more follow
            entry = functools.partial(_packed_finished, room, target.id)
            if not page.add(f"{room.finished_at!r}/{room.id}", entry):
                break
        reply: dict[str, Any] = {
            "t": "history",
            "player": target.name,
            "rooms": pack_array(page.parts),
            "next": page.next,
        }
        if (re := msg.get("id")) is not None:
            reply["re"] = re
        return Frame(encode_with(reply), 1)

    async def replay(self, session: Member, msg: dict[str, Any]) -> dict[str, Any]:
        """A finished room just after its entry ``seq``, rebuilt from its journal.

        A private room is replayed only for the players who held a seat in it
        and the one who made it; any other asker is told it does not exist, as
        ``join`` would.
        """
        assert session.player is not None
        rid: str = msg["room"]
        if not self.replays.has(rid):
            record = await self.store.room(rid)
            if record is None or not _may_replay(record, session.player.id):
                raise ProtocolError(ErrorCode.UNKNOWN_ROOM, f"there is no room {rid[:64]!r}")
            if record.status != Status.OVER.value:
                raise ProtocolError(
                    ErrorCode.NOT_OVER, f"room {rid} is still being played: watch it instead"
                )
            entries = await self.store.journal(rid)
            if not entries:
                raise ProtocolError(
                    ErrorCode.REPLAY_GONE,
                    f"room {rid} has no moves to replay: it was never played, or its moves "
                    f"were deleted (this server keeps them {self._kept_for()})",
                )
            self.replays.load(record, entries)
        record = self.replays.record(rid)
        if not _may_replay(record, session.player.id):
            raise ProtocolError(ErrorCode.UNKNOWN_ROOM, f"there is no room {rid[:64]!r}")
        if (
            record.daily is not None
            and self.registry.clock.time() < day_end(record.daily)
            and record.creator != session.player.id
            and all(s.player != session.player.id for s in record.seats)
        ):
            raise ProtocolError(
                ErrorCode.DAY_NOT_OVER,
                f"room {rid} played the deal of {record.daily}: its moves are shown once that "
                "day is over (UTC), so that nobody can copy them on the day",
            )
        try:
            position = self.replays.at(rid, msg["seq"])
        except IndexError:
            raise ProtocolError(
                ErrorCode.OUT_OF_RANGE,
                f"room {rid} has seqs 1 to {self.replays.last(rid)}, not {msg['seq']}",
            ) from None
        return {
            "t": "replayed",
            "room": rid,
            "game": record.game,
            "players": [s.name for s in record.seats],
            "seq": position.seq,
            "last": position.last,
            "events": position.events,
            "view": position.view,
            "revealed": position.revealed,
        }

    def _kept_for(self) -> str:
        days = self.registry.config.limits.replay_days
        return f"{days:g} days" if days else "for ever"

    async def purge_forever(self) -> None:
        """Delete the moves of games finished more than ``replay_days`` ago, and the day
        tables of days more than a year ago, hourly.

        A few rooms at a time, so no transaction holds the store for long; a
        store that is down is tried again at the next hour.
        """
        registry = self.registry
        days = registry.config.limits.replay_days
        while True:
            if days:
                await self._purge_moves(days)
            try:  # the day tables: each game keeps a year of days
                gone = await self.store.purge_days(oldest_kept(registry.clock.time()))
            except StoreUnavailable as exc:
                registry.health.failed(exc)
            else:
                if gone:
                    log.info("deleted %d entries of day tables over a year old", gone)
            await registry.clock.sleep(PURGE_EVERY)

    async def _purge_moves(self, days: float) -> None:
        """Delete the moves of games finished more than ``days`` ago, a few rooms at a time."""
        registry = self.registry
        before = registry.clock.time() - days * 86400
        purged = 0
        try:
            while (n := await self.store.purge_journals(before)) > 0:
                purged += n
                await asyncio.sleep(0)
        except StoreUnavailable as exc:
            registry.health.failed(exc)
        if purged:
            log.info("deleted the moves of %d games finished over %g days ago", purged, days)

    async def ratings_of(self, player: int) -> dict[str, dict[str, Any]]:
        """``player``'s rating in each rated game, a new player's where they have none yet."""
        kept = await self.store.ratings_of(player)
        out = {}
        for game in rated_games():
            record = kept.get(game)
            current = record.current if record is not None else Rating()
            games = record.games if record is not None else 0
            out[game] = {"rating": current.rating, "rd": current.rd, "games": games}
        return out

    async def leaderboard(self, session: Member, msg: dict[str, Any]) -> dict[str, Any]:
        """One page of a rated game's players, best first, and the asker's own rating.

        Pages are cut by the last entry's (rating, name), not by an offset, so
        ratings that change between two pages move players but never repeat or
        skip one who stayed where they were.
        """
        game = msg["game"]
        try:
            find_game(game)
        except KeyError:
            raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"there is no game {game!r}") from None
        if not is_rated(game):
            raise ProtocolError(ErrorCode.NOT_RATED, f"{game} games are not rated")
        after = None
        if "cursor" in msg:
            try:
                after = board_position(msg["cursor"])
            except ValueError as exc:
                raise ProtocolError(ErrorCode.BAD_CURSOR, str(exc)) from None
        limit: int = msg.get("limit") or PAGE_DEFAULT
        rows = await self.store.leaderboard(game, limit + 1, after)
        page = rows[:limit]
        assert session.player is not None
        return {
            "t": "leaderboard",
            "game": game,
            "entries": [
                {"name": r.name, "rating": r.rating, "rd": r.rd, "games": r.games} for r in page
            ],
            "next": board_cursor(page[-1].rating, page[-1].name) if len(rows) > limit else None,
            "mine": (await self.ratings_of(session.player.id))[game],
        }


def _packed_finished(room: FinishedRoom, player: int) -> bytes:
    """A ``history`` entry, packed as the reply will hold it."""
    return packed(_finished(room, player))


def _may_replay(record: RoomRecord, player: int) -> bool:
    """Public rooms for anyone; a private one for its players and its maker; today's deal
    for anyone (private only so that nobody watches it live), once its day is over."""
    return (
        record.private_code is None
        or record.daily is not None
        or record.creator == player
        or any(s.player == player for s in record.seats)
    )


def _history_cursor(raw: str) -> tuple[float, str]:
    at, sep, room = raw.partition("/")
    try:
        if not sep or not room:
            raise ValueError(raw)
        return float(at), room
    except ValueError:
        raise ProtocolError(
            ErrorCode.BAD_CURSOR, f"history.cursor is a reply's next, not {raw[:64]!r}"
        ) from None


def _finished(room: FinishedRoom, player: int) -> dict[str, Any]:
    """A finished room as ``history`` lists it, its outcome as ``player`` saw it."""
    seat = next(i for i, s in enumerate(room.seats) if s.player == player)
    result = room.result
    winners = result.get("winners", [])
    if "scores" not in result:
        outcome = "closed"  # an administrator ended it before the end
    elif len(room.seats) == 1:
        outcome = "finished"
    elif seat in winners:
        outcome = "won" if len(winners) == 1 else "drawn"
    else:
        outcome = "lost"
    return {
        "room": room.id,
        "game": room.game,
        "options": room.options,
        "players": [{"name": s.name, "bot": s.bot} for s in room.seats],
        "seat": seat,
        "scores": result.get("scores"),
        "outcome": outcome,
        "result": result,
        "created": room.created_at,
        "finished": room.finished_at,
        "private": room.private,
    }
