"""The client-side model: what the server has told us, and nothing it has not.

Scenes draw these models and never keep game state of their own beyond what
makes input pleasant (a selected tile, an animation in flight). The models are
fed by server frames only: :meth:`LobbyModel.apply` and :meth:`RoomModel.apply`
take the messages as they come out of the network inbox.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Change", "LobbyModel", "RoomModel"]


@dataclass(slots=True)
class LobbyModel:
    """The lobby as the server last described it."""

    player: str | None = None
    games: list[dict[str, Any]] = field(default_factory=list)
    rooms: list[dict[str, Any]] = field(default_factory=list)
    my_rooms: list[str] = field(default_factory=list)
    scores: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The last ``scores`` reply per game."""
    rooms_at: float = 0.0

    def apply(self, msg: dict[str, Any]) -> None:
        t = msg.get("t")
        if t == "welcome":
            self.player = msg["player"]
            self.games = list(msg["games"])
            self.my_rooms = list(msg.get("rooms", []))
        elif t == "rooms":
            self.rooms = sorted(msg["rooms"], key=_room_order)
            self.rooms_at = time.monotonic()
        elif t == "scores":
            self.scores[msg["game"]] = msg

    def game(self, name: str) -> dict[str, Any] | None:
        """The ``welcome.games`` entry of ``name``."""
        return next((g for g in self.games if g["name"] == name), None)

    def title(self, name: str) -> str:
        g = self.game(name)
        return str(g["title"]) if g else name


def _room_order(room: dict[str, Any]) -> tuple[int, str, str]:
    """Open rooms first (they need players), then running, then finished ones."""
    rank = {"waiting": 0, "playing": 1, "over": 2}.get(room.get("status", ""), 3)
    return (rank, room.get("game", ""), room.get("room", ""))


@dataclass(frozen=True, slots=True)
class Change:
    """One accepted change of a room: its events and the view before and after.

    ``at`` is the ``time.monotonic()`` of its arrival, so that scenes can
    animate what the events describe (a chip's path, a Shisen-Sho extraction).
    """

    seq: int
    events: list[dict[str, Any]]
    before: dict[str, Any]
    after: dict[str, Any]
    at: float


@dataclass(slots=True)
class RoomModel:
    """One room as this client sees it: its view, seq, seats and recent changes."""

    room: str
    seat: int | None
    view: dict[str, Any]
    seq: int = 0
    summary: dict[str, Any] | None = None
    """The last ``room`` push (seat names, spectators)."""
    changes: deque[Change] = field(default_factory=lambda: deque(maxlen=32))
    chat: deque[tuple[str, str]] = field(default_factory=lambda: deque(maxlen=20))
    gap: bool = False
    """True when an update skipped a seq (the view is still the server's latest)."""

    @classmethod
    def from_joined(cls, msg: dict[str, Any]) -> RoomModel:
        return cls(room=msg["room"], seat=msg["seat"], view=msg["view"], seq=msg["seq"])

    @property
    def game(self) -> str:
        return str(self.view.get("game", ""))

    @property
    def status(self) -> str:
        return str(self.view.get("status", ""))

    @property
    def my_turn(self) -> bool:
        return (
            self.seat is not None
            and self.status == "playing"
            and self.view.get("to_move") == self.seat
        )

    def apply(self, msg: dict[str, Any]) -> Change | None:
        """Take a frame meant for this room; returns the change an update made."""
        t = msg.get("t")
        if t == "update":
            if msg["seq"] <= self.seq:
                return None  # a duplicate (our act's reply also comes pushed)
            self.gap = msg["seq"] != self.seq + 1
            change = Change(
                seq=msg["seq"],
                events=list(msg["events"]),
                before=self.view,
                after=msg["view"],
                at=time.monotonic(),
            )
            self.view, self.seq = msg["view"], msg["seq"]
            self.changes.append(change)
            return change
        if t in ("joined", "_rejoined"):
            self.view, self.seq, self.seat = msg["view"], msg["seq"], msg["seat"]
            self.gap = False
        elif t == "room":
            self.summary = msg
        elif t == "chat":
            self.chat.append((msg["from"], msg["text"]))
        return None

    def seat_name(self, seat: int) -> str:
        """The name shown for ``seat``: from the room summary, else a plain label."""
        seats = (self.summary or {}).get("seats") or []
        if seat < len(seats) and seats[seat].get("name"):
            return str(seats[seat]["name"])
        return f"seat {seat + 1}"

    def last_events(self, since: float) -> list[tuple[Change, dict[str, Any]]]:
        """Every event of the changes that arrived after ``since`` (monotonic time)."""
        return [(ch, ev) for ch in self.changes if ch.at >= since for ev in ch.events]
