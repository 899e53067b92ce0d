"""What nodes say to each other over MQTT: topics, payloads, and the few pure helpers.

The layout is documented for people in ``protocol/CLUSTER.md``; nothing here does I/O.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, cast

import msgpack

__all__ = [
    "CONTROL",
    "Entry",
    "Presence",
    "Topics",
    "catch_up_update",
    "code_hash",
    "pack",
    "unpack",
]

CONTROL = frozenset({"adopt", "drain", "undrain", "sign_out"})
"""Inbox operations that are about the node itself, not a client's request."""


def pack(obj: Any) -> bytes:
    return cast(bytes, msgpack.packb(obj, use_bin_type=True))


def unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


def code_hash(code: str) -> str:
    """What the directory says of a private room's code: enough to find it, not to join it."""
    return hashlib.sha256(code.encode()).hexdigest()[:32]


def catch_up_update(room: str, reply: dict[str, Any], last: int) -> dict[str, Any] | None:
    """After a resync: one ``update`` holding what a connection missed since ``last``.

    Its ``events`` are the missed updates' events in order (none when the host
    no longer keeps them) and its ``view`` the current one; None if nothing was
    missed. The ``seq`` jumps, as the protocol allows after a gap.
    """
    if reply["seq"] <= last:
        return None
    events = [ev for missed in reply.get("missed") or [] for ev in missed["events"]]
    return {
        "t": "update",
        "room": room,
        "seq": reply["seq"],
        "events": events,
        "view": reply["view"],
    }


class Topics:
    """Topic names under one prefix (several clusters may share a broker)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def node(self, node: str) -> str:
        """Presence of ``node`` (retained)."""
        return f"{self.prefix}/node/{node}"

    def inbox(self, node: str) -> str:
        """Requests for the rooms ``node`` hosts, and orders to ``node`` itself."""
        return f"{self.prefix}/node/{node}/in"

    def directory(self, room: str) -> str:
        return f"{self.prefix}/dir/{room}"

    def room_out(self, room: str, node: str) -> str:
        """What ``room``'s host sends for ``node``'s connections."""
        return f"{self.prefix}/room/{room}/out/{node}"

    def parse(self, topic: str) -> list[str]:
        return topic.removeprefix(self.prefix + "/").split("/")


@dataclass(frozen=True, slots=True)
class Entry:
    """A room as the directory lists it: its host and its public summary."""

    room: str
    node: str
    epoch: int
    summary: dict[str, Any]
    players: tuple[int, ...]
    code: str | None

    @classmethod
    def from_wire(cls, room: str, data: dict[str, Any]) -> Entry:
        return cls(
            room=room,
            node=data["node"],
            epoch=int(data["epoch"]),
            summary=data["summary"],
            players=tuple(data.get("players") or ()),
            code=data.get("code"),
        )


@dataclass(frozen=True, slots=True)
class Presence:
    """A node's retained presence, or the Last Will that replaces it.

    ``epoch`` grows with each process started under the node's name (the store
    hands it out) and ``conn`` with each of that process's connections to the
    broker, so of two messages about one node the one with the larger
    ``(epoch, conn)`` is the newer, whatever order the broker delivers them in.
    """

    node: str
    state: str
    """``online`` or ``offline``."""
    epoch: int
    conn: int
    url: str = ""
    """Where the node's players connect (``--public-url``), for redirects."""

    @property
    def order(self) -> tuple[int, int]:
        return (self.epoch, self.conn)

    def to_wire(self) -> bytes:
        return pack(
            {
                "node": self.node,
                "state": self.state,
                "epoch": self.epoch,
                "conn": self.conn,
                "url": self.url,
            }
        )

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Presence:
        return cls(
            node=data["node"],
            state=data["state"],
            epoch=int(data["epoch"]) if isinstance(data.get("epoch"), int) else 0,
            conn=int(data.get("conn") or 0),
            url=str(data.get("url") or ""),
        )
