"""What both clients say about Mathable's events: equations as people write them, recent turns.

The server sends, for each tile placed, the two numbers in line with it: ``a``
next to the tile and ``b`` beyond, in board order, and ``op``, the operation
that made the tile (protocol/games/mathable.md). Board order is not reading
order: a ``1`` with an ``18`` beyond makes 17 by subtraction, which people
write ``18-1``, never ``1-18``. :func:`operands` puts them in that order.

:class:`TurnLog` keeps, from the events alone, what each recent turn did, so
that a player coming back to the board sees everything the other seats
placed since their own turn: the squares to highlight and the equations to list.
Nothing here judges a move; it only reads what the server said happened.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Placement", "Turn", "TurnLog", "operands"]


def operands(tile: int, equation: dict[str, Any]) -> tuple[int, str, int]:
    """``(x, op, y)`` with ``x op y == tile`` as written: the larger first for ``-`` and ``/``.

    For ``/`` the dividend is the operand that gives ``tile`` when divided by the
    other (with ``0/n = 0`` the dividend is the 0, though it is the smaller).
    """
    a, b, op = int(equation["a"]), int(equation["b"]), str(equation["op"])
    if op == "-":
        return max(a, b), op, min(a, b)
    if op == "/":
        return (a, op, b) if b != 0 and a == tile * b else (b, op, a)
    return a, op, b


@dataclass(frozen=True, slots=True, kw_only=True)
class Placement:
    """One ``placed`` event: the tile, its square and its equations in reading order."""

    seat: int
    tile: int
    at: tuple[int, int]
    equations: tuple[tuple[int, str, int], ...]
    points: int

    @classmethod
    def from_event(cls, ev: dict[str, Any]) -> Placement:
        tile = int(ev["tile"])
        return cls(
            seat=int(ev["seat"]),
            tile=tile,
            at=(int(ev["at"][0]), int(ev["at"][1])),
            equations=tuple(operands(tile, q) for q in ev.get("equations") or []),
            points=int(ev.get("points") or 0),
        )

    def equation(self, *, ops: dict[str, str] | None = None, space: str = "") -> str:
        """``17=18-1`` (every direction chained: ``8=4*2=10-2``); ``ops`` renames operators."""
        sym = ops or {}
        parts = [f"{x}{space}{sym.get(op, op)}{space}{y}" for x, op, y in self.equations]
        return f"{space}={space}".join([str(self.tile), *parts])


@dataclass(slots=True, kw_only=True)
class Turn:
    """One seat's turn as its events told it; ``how`` is None while it goes on."""

    seat: int
    placed: list[Placement] = field(default_factory=list)
    bonus: int = 0
    exchanged: int = 0
    how: str | None = None
    """``end``, ``exchange`` or ``timeout`` (the ``turn_ended`` reason)."""

    @property
    def points(self) -> int:
        return sum(p.points for p in self.placed) + self.bonus

    def squares(self) -> set[tuple[int, int]]:
        return {p.at for p in self.placed}

    def summary(self) -> str:
        """What the turn came to, without the seat's name: ``3 tiles, +34``, ``passed``."""
        if self.placed:
            n = len(self.placed)
            text = f"{n} tile{'s' if n != 1 else ''}, +{self.points}"
            return text + (" (bonus)" if self.bonus else "")
        if self.exchanged:
            return f"exchanged {self.exchanged} tile{'s' if self.exchanged != 1 else ''}"
        return "ran out of time" if self.how == "timeout" else "passed"


class TurnLog:
    """The turns that ended lately, newest last, and the one going on.

    Feed it every event list the client takes, in order (an update's events, a
    snapshot's missed ones); a client that joined late simply knows fewer turns.
    """

    def __init__(self, keep: int = 8) -> None:
        self.ended: deque[Turn] = deque(maxlen=keep)
        self.current: Turn | None = None

    def feed(self, events: Iterable[dict[str, Any]]) -> None:
        for ev in events:
            kind, seat = ev.get("e"), ev.get("seat")
            if not isinstance(seat, int):
                continue
            if kind == "placed":
                self._turn(seat).placed.append(Placement.from_event(ev))
            elif kind == "bonus":
                self._turn(seat).bonus += int(ev.get("points") or 0)
            elif kind == "exchanged":
                self._turn(seat).exchanged = int(ev.get("count") or 0)
            elif kind == "turn_ended":
                turn = self._turn(seat)
                turn.how = str(ev.get("reason") or "end")
                self.ended.append(turn)
                self.current = None

    def _turn(self, seat: int) -> Turn:
        if self.current is None or self.current.seat != seat:
            self.current = Turn(seat=seat)
        return self.current

    def since(self, seat: int | None) -> list[Turn]:
        """The ended turns since ``seat`` last ended one, oldest first.

        For a spectator (``seat`` None), or a seat whose own last turn is not
        known, that is the last ended turn alone.
        """
        turns = list(self.ended)
        for i in range(len(turns) - 1, -1, -1):
            if seat is not None and turns[i].seat == seat:
                return turns[i + 1 :]
        return turns[-1:]
