"""Which seat a player gets on ``join``: theirs, the one asked for, or a free one.

A seat may be kept for a name (a private room's invitation): only a player
whose name is the same, as :func:`~tilehall.server.names.same_name` compares
names, takes it. Pure: the room writes the seat it is given.
"""

from __future__ import annotations

from collections.abc import Sequence

from tilehall.protocol import ErrorCode, ProtocolError
from tilehall.server.names import same_name
from tilehall.server.store.records import SeatRecord

__all__ = ["choose_seat", "seat_of"]


def seat_of(seats: Sequence[SeatRecord], player: int) -> int | None:
    """The seat ``player`` holds, if any."""
    for i, s in enumerate(seats):
        if s.player == player:
            return i
    return None


def choose_seat(
    room: str, seats: Sequence[SeatRecord], player: int, name: str, want: int | None
) -> int:
    """The seat ``player`` gets on ``join``: theirs, the one asked for, or a free one.

    Raises:
        ProtocolError: bad_seat, seat_taken or room_full.
    """
    mine = seat_of(seats, player)
    if mine is not None:
        if want is not None and want != mine:
            held = f"you already hold seat {mine} in room {room}"
            raise ProtocolError(ErrorCode.SEAT_TAKEN, held)
        return mine
    if want is not None:
        if want >= len(seats):
            raise ProtocolError(ErrorCode.BAD_SEAT, f"room {room} has seats 0..{len(seats) - 1}")
        seat = seats[want]
        if seat.player is not None or seat.bot is not None:
            raise ProtocolError(ErrorCode.SEAT_TAKEN, f"seat {want} is taken")
        if seat.name is not None and not same_name(seat.name, name):
            raise ProtocolError(ErrorCode.SEAT_TAKEN, f"seat {want} is kept for {seat.name}")
        return want
    free = [i for i, s in enumerate(seats) if s.player is None and s.bot is None]
    for i in free:
        kept = seats[i].name
        if kept is not None and same_name(kept, name):
            return i
    for i in free:
        if seats[i].name is None:
            return i
    raise ProtocolError(ErrorCode.ROOM_FULL, f"room {room} has no free seat for {name}")
