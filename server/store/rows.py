"""Records as both SQL stores keep them in rows (JSON text columns), and back.

One text for two stores: the queries are :mod:`.queries`, the conversions here.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from tilehall.server.names import folded_skeleton, name_key, skeleton
from tilehall.server.ratings import Rating
from tilehall.server.store.records import (
    AccountRecord,
    FinishedRoom,
    RatingRecord,
    RoomRecord,
    ScoreRecord,
    SeatRecord,
)

__all__ = [
    "ACCOUNT_COLUMNS",
    "FINISHED_COLUMNS",
    "RATING_COLUMNS",
    "ROOM_COLUMNS",
    "account_from_row",
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
    " fill_at, fill_level, daily, practice"
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
        room.daily,
        room.practice,
    )


def room_from_row(row: Sequence[Any]) -> RoomRecord:
    """A ``rooms`` row, as :data:`ROOM_COLUMNS` names its columns."""
    rid, game, options, seed, seats, code, created, status, node, creator, fill_at, level = row[:12]
    daily, practice = row[12:14]
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
        daily=daily,
        practice=bool(practice),
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
