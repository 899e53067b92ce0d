"""The end of a game as the store keeps it: the high scores people earned, and its rating.

Pure: the room's core turns a finished engine into these records (kept with the
result by the shell, retried until the store answers, so that a game that ended
while the database was away is still recorded, rated and listed, once).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tilehall.server.daily import day_table
from tilehall.server.games import Game
from tilehall.server.ratings import RatedGame, Seat, is_rated
from tilehall.server.store.records import ScoreRecord, SeatRecord

__all__ = ["rated", "score_records"]


def rated(game: str, room: str, seats: Sequence[SeatRecord], engine: Game) -> RatedGame | None:
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
    game: str,
    room: str,
    seats: Sequence[SeatRecord],
    engine: Game,
    now: float,
    *,
    daily: str | None = None,
    practice: bool = False,
) -> list[ScoreRecord]:
    """The finished game's high-score claims of people (bots' and empty seats' left out).

    A room of today's deal (``daily``: its day) claims a place on that day's table
    instead of the game's own, on the game's own terms (a game that would enter no
    table, after an undo say, enters no day's table either); a practice room none.
    Its own tables are left to games dealt at random: a deal everyone plays would
    fill them with the day's board.
    """
    if practice:
        return []
    entries = engine.score_entries()
    if daily is not None:
        entries = [replace(e, table=day_table(daily)) for e in entries[:1]]
    scores = []
    for entry in entries:
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
