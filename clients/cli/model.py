"""The client-side model: what the server said about the lobby and each room.

Screens render from these objects and nothing else; they are fed only by
frames from the server (``joined``, ``update``, ``room``, ``rooms``), never by
guesses about the rules. Keeping them free of Textual makes them easy to test
and lets the pygame client reuse the same shapes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["LobbyModel", "RoomModel", "cell_name", "seat_label"]


def cell_name(cell: list[int] | tuple[int, int] | None) -> str:
    """A square as people say it: column letter, row number from 1 (``[6, 7]`` -> ``h7``)."""
    if cell is None:
        return "-"
    r, c = cell[0], cell[1]
    return f"{chr(ord('a') + c)}{r + 1}" if 0 <= c < 26 else f"{r},{c}"


def seat_label(seat: dict[str, Any] | None, index: int) -> str:
    """How a seat of a room summary reads in a list: its name, or that it is free."""
    if seat is None:
        return f"seat {index}"
    name = seat.get("name")
    if not seat.get("taken"):
        return f"({name}?)" if name else "(free)"
    assert name is not None or seat.get("bot")
    return str(name or "COMP")


@dataclass(slots=True)
class RoomModel:
    """One room this client sits in or watches, as the server last described it.

    ``events`` are those of the last update only: screens use them to show what
    just happened (a path, the points scored); the state itself is ``view``.
    """

    room: str
    seat: int | None
    seq: int
    view: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, Any] | None = None
    code: str | None = None
    """The private code, when this client created a private room."""

    @classmethod
    def from_joined(
        cls, joined: dict[str, Any], summary: dict[str, Any] | None = None
    ) -> RoomModel:
        model = cls(room=joined["room"], seat=joined["seat"], seq=0, view={}, summary=summary)
        model.apply(joined)
        return model

    def apply(self, msg: dict[str, Any]) -> bool:
        """Take in one frame about this room; returns whether anything changed.

        Updates older than the one already held are dropped: after a reconnect
        the ``_rejoined`` snapshot may overtake updates still in the queue.
        """
        t = msg.get("t")
        if msg.get("room") != self.room:
            return False
        if t == "update":
            if msg["seq"] <= self.seq and self.view:
                return False
            self.seq, self.view, self.events = msg["seq"], msg["view"], list(msg["events"])
            return True
        if t in ("joined", "_rejoined"):
            if msg["seq"] < self.seq:
                return False
            missed = msg.get("missed") or []
            self.seq, self.seat, self.view = msg["seq"], msg["seat"], msg["view"]
            self.events = [ev for upd in missed for ev in upd.get("events", [])]
            return True
        if t == "room":
            self.summary = {k: v for k, v in msg.items() if k not in ("t", "re")}
            return True
        return False

    # -- reading the view -------------------------------------------------------------

    @property
    def game(self) -> str:
        return str(self.view.get("game") or (self.summary or {}).get("game") or "?")

    @property
    def status(self) -> str:
        return str(self.view.get("status", "waiting"))

    @property
    def over(self) -> bool:
        return self.status == "over"

    @property
    def to_move(self) -> int | None:
        value = self.view.get("to_move")
        return value if isinstance(value, int) else None

    @property
    def my_turn(self) -> bool:
        """Whether this client may act now (it holds the seat that is to move)."""
        return self.seat is not None and self.status == "playing" and self.to_move == self.seat

    @property
    def scores(self) -> list[int]:
        return list(self.view.get("scores") or [])

    def names(self) -> list[str]:
        """Each seat's name, from the last room summary (the view carries none).

        Names that repeat (several ``COMP`` seats) get their seat number: ``COMP1``.
        """
        seats = (self.summary or {}).get("seats") or []
        count = max(len(seats), len(self.scores))
        names = [seat_label(seats[i] if i < len(seats) else None, i) for i in range(count)]
        return [f"{n}{i + 1}" if names.count(n) > 1 else n for i, n in enumerate(names)]

    def name(self, seat: int | None) -> str:
        if seat is None:
            return "-"
        names = self.names()
        return names[seat] if 0 <= seat < len(names) else f"seat {seat}"

    def away(self, seat: int) -> bool:
        """A player holds the seat but is not connected (bots and free seats are never away)."""
        seats = (self.summary or {}).get("seats") or []
        if seat >= len(seats):
            return False
        s = seats[seat]
        return bool(s.get("taken")) and not s.get("bot") and not s.get("connected")

    def spectators(self) -> int:
        return int((self.summary or {}).get("spectators") or 0)

    def event(self, kind: str) -> dict[str, Any] | None:
        """The last event of this kind in the last update, if any."""
        found: dict[str, Any] | None = None
        for ev in self.events:
            if ev.get("e") == kind:
                found = ev
        return found


@dataclass(slots=True)
class LobbyModel:
    """The room list, refreshed by polling ``rooms`` and by ``room`` pushes."""

    rooms: dict[str, dict[str, Any]] = field(default_factory=dict)
    mine: list[str] = field(default_factory=list)
    """Rooms where this player holds a seat (from ``welcome``), even private ones."""

    def replace(self, rooms: list[dict[str, Any]]) -> None:
        """A fresh ``rooms`` reply: the public list as the server has it now."""
        self.rooms = {r["room"]: r for r in rooms}

    def push(self, msg: dict[str, Any]) -> None:
        """A ``room`` push: one room's summary changed."""
        self.rooms[msg["room"]] = {k: v for k, v in msg.items() if k not in ("t", "re")}

    def ordered(self) -> list[dict[str, Any]]:
        """Rooms to list: mine first, then those waiting for players, playing, over."""
        rank = {"waiting": 0, "playing": 1, "over": 2}
        listed = list(self.rooms.values())
        listed += [
            {"room": r, "game": "?", "seats": [], "spectators": 0, "status": "?", "private": True}
            for r in self.mine
            if r not in self.rooms
        ]
        return sorted(
            listed,
            key=lambda r: (r["room"] not in self.mine, rank.get(r.get("status", ""), 3), r["room"]),
        )
