"""The end of a game: its result, high scores and rating, kept in the store.

The journal holds the end already when this runs (the door committed it); only
the result may wait for the store, retried until it answers, so a game that
ended while the database was away is still recorded, rated and listed in
``history``, once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tilehall.server.games import Game
from tilehall.server.ratings import RatedGame, Seat, is_rated
from tilehall.server.store.base import ScoreRecord, SeatRecord, StoreUnavailable

if TYPE_CHECKING:
    from tilehall.server.room import Room

__all__ = ["finish", "finish_later", "rated", "score_records"]


async def finish(room: Room, now: float) -> None:
    """The game ended: keep its result and high scores, then tell the lobby."""
    engine = room.engine
    assert engine is not None
    room.ticker.cancel()
    scores = score_records(room.game.name, room.id, room.seats, engine, now)
    result = engine.result() or {}
    rating = rated(room.game.name, room.id, room.seats, engine)
    try:
        await room.store.finish_room(room.id, result, scores, now, rated=rating)
    except StoreUnavailable as exc:
        room.services.health.failed(exc)
        finish_later(room, result, scores, now, rating)
        return
    room.over()


def finish_later(
    room: Room,
    result: dict[str, Any],
    scores: list[ScoreRecord],
    now: float,
    rating: RatedGame | None,
) -> None:
    """Keep the result once the store answers (a task the room keeps)."""

    async def later() -> None:
        health = room.services.health
        while not room.closed:
            await health.wait()
            try:
                await room.store.finish_room(room.id, result, scores, now, rated=rating)
            except StoreUnavailable as exc:
                health.failed(exc)
                continue
            room.over()
            return

    room.spawn(later(), f"finish-{room.id}")


def rated(game: str, room: str, seats: list[SeatRecord], engine: Game) -> RatedGame | None:
    """The finished game as the ratings see it; None if its game has none, or no player."""
    if not is_rated(game) or all(s.player is None for s in seats):
        return None
    stood_in = engine.ever_stood_in
    return RatedGame(
        game=game,
        room=room,
        seats=tuple(
            Seat(score=score, player=s.player, level=s.bot, stood_in=i in stood_in)
            for i, (s, score) in enumerate(zip(seats, engine.scores, strict=True))
        ),
    )


def score_records(
    game: str, room: str, seats: list[SeatRecord], engine: Game, now: float
) -> list[ScoreRecord]:
    """The finished game's high-score claims of people (bots' and empty seats' left out)."""
    scores = []
    for entry in engine.score_entries():
        seat = seats[entry.seat]
        if seat.bot is None and seat.player is not None and seat.name is not None:
            scores.append(
                ScoreRecord(
                    game=game,
                    table=entry.table,
                    player=seat.player,
                    name=seat.name,
                    score=entry.score,
                    room=room,
                    at=now,
                    detail=dict(entry.detail),
                )
            )
    return scores
