"""Frames to throw at a live server: random, truncated, oversized and type-confused.

Shared by the short fuzz test and ``bench/fuzz_server.py`` (the long run). A
seeded ``random.Random`` drives it, so a failing run can be repeated.
"""

from __future__ import annotations

import random
from typing import Any

import msgpack
from tilehall.protocol import CLIENT_MESSAGES, encode

FUZZED_TYPES = sorted(set(CLIENT_MESSAGES) - {"sign_out"})
"""Every request but ``sign_out``, which ends the session for good when well formed (its
token taken back): the fuzz run's reconnect by token could not follow it."""

FIELDS = sorted({f.name for spec in CLIENT_MESSAGES.values() for f in spec.fields})
ACTIONS = [
    "place",
    "help",
    "hint",
    "end",
    "draw",
    "exchange",
    "quit",
    "move",
    "pair",
    "highlight",
    "shuffle",
    "restart",
    "giveup",
    "_start",
    "_tick",
    "fly",
]


def value(rng: random.Random, depth: int = 0) -> Any:
    """Any msgpack value, biased toward the awkward ones."""
    kind = rng.randrange(12 if depth < 3 else 8)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 1, 7, 13, 2**31, -(2**63), 2**64 - 1, 2**53 + 1])
    if kind == 3:
        return rng.randint(-20, 20)
    if kind == 4:
        return rng.random() * rng.choice([1, -1e300, 1e300, float("nan")])
    if kind == 5:
        return "".join(chr(rng.randrange(0, 0x2FF)) for _ in range(rng.randrange(0, 30)))
    if kind == 6:
        return rng.randbytes(rng.randrange(0, 20))
    if kind == 7:
        return [rng.randint(-3, 20), rng.randint(-3, 20)]
    if kind in (8, 9):
        return [value(rng, depth + 1) for _ in range(rng.randrange(0, 5))]
    return {
        str(value(rng, depth + 1))[:10]: value(rng, depth + 1) for _ in range(rng.randrange(0, 4))
    }


def action(rng: random.Random) -> dict[str, Any]:
    act: dict[str, Any] = {"do": rng.choice(ACTIONS)}
    for key in rng.sample(
        ["at", "a", "b", "from", "to", "tile", "tiles", "vote"], rng.randrange(0, 4)
    ):
        act[key] = value(rng) if rng.random() < 0.3 else [rng.randint(-1, 16), rng.randint(-1, 16)]
    if rng.random() < 0.2:
        act["tile"] = rng.randint(0, 90)
    return act


def frame(rng: random.Random, rooms: list[str]) -> bytes:
    """One fuzz frame; ``rooms`` are real room ids so that some frames reach the engines."""
    kind = rng.randrange(10)
    room = rng.choice(rooms) if rooms and rng.random() < 0.9 else str(value(rng))[:20]
    if kind == 0:
        return rng.randbytes(rng.randrange(1, 64))
    if kind == 1:  # a valid frame cut short
        data = encode({"t": "act", "room": room, "action": action(rng), "id": rng.randrange(99)})
        return data[: rng.randrange(1, len(data))]
    if kind == 2:  # type-confused: a real message type with random fields
        t = rng.choice(FUZZED_TYPES)
        msg = {"t": t, **{f: value(rng) for f in rng.sample(FIELDS, rng.randrange(0, 5))}}
        return msgpack.packb(msg)
    if kind == 3:  # deeply nested
        deep: Any = 1
        for _ in range(rng.choice([9, 50, 500])):
            deep = [deep]
        return msgpack.packb({"t": "act", "room": room, "action": {"do": deep}})
    if kind == 4:  # a huge string claimed, not sent
        return b"\x82\xa1t\xa4chat\xa4text\xdb\x7f\xff\xff\xff"
    if kind == 5:
        return msgpack.packb(value(rng))
    # mostly: well-formed acts with random actions, so that engines see junk
    msg: dict[str, Any] = {"t": "act", "room": room, "action": action(rng)}
    if rng.random() < 0.3:
        msg["seq"] = rng.randrange(0, 50)
    if rng.random() < 0.5:
        msg["id"] = rng.randrange(0, 2**31)
    return encode(msg)
