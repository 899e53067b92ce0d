"""The server and the published schema, asked the same frames (issue 42).

Each frame goes to a real server over a real socket, and to
protocol/tilehall.schema.json: what the server refuses the schema refuses,
what it takes the schema takes, and where no JSON Schema can say (a key that is
not a string, a key twice, an ext value: none is JSON, and the server follows
PROTOCOL.md's transport rules), the server's answer is the documented one.
"""

from __future__ import annotations

from typing import Any

import msgpack
import pytest
from tilehall.protocol import MAX_DEPTH

from tests.helpers import Raw, frame_schema

SCHEMA = frame_schema()


def nested(levels: int) -> Any:
    value: Any = 0
    for _ in range(levels):
        value = [value]
    return value


def schema_takes(msg: dict[str, Any], definition: str = "client") -> bool:
    if definition == "client":
        return SCHEMA.problem("client", msg) is None
    doc = SCHEMA.document.schema
    validator = type(SCHEMA.document)(
        {"$schema": doc["$schema"], "$defs": doc["$defs"], "$ref": f"#/$defs/{definition}"}
    )
    return bool(validator.is_valid(msg))


async def answer(raw: Raw, msg: dict[str, Any] | bytes, rid: int = 7) -> dict[str, Any]:
    reply = await raw.call(msg, rid) if isinstance(msg, dict) else await _bytes(raw, msg)
    return reply


async def _bytes(raw: Raw, data: bytes) -> dict[str, Any]:
    await raw.send(data)
    return await raw.recv()


def code(reply: dict[str, Any]) -> str:
    return str(reply["code"]) if reply["t"] == "error" else str(reply["t"])


# -- before hello: the hello itself -------------------------------------------------------------

HELLOS = [
    ({"v": 2, "name": "Ada"}, "unsupported_version"),
    ({"v": 0, "name": "Ada"}, "unsupported_version"),
    ({"v": 1, "name": "a" * 25}, "bad_name"),
    ({"v": 1, "name": "Ada", "password": "x" * 9}, "bad_password"),
    ({"v": 1, "name": "Ada", "password": "x" * 257}, "bad_password"),
    ({"v": 1, "name": "Ada", "later": nested(MAX_DEPTH + 1)}, "out_of_range"),
    ({"v": 1, "name": "Ada", "later": "1,024 levels"}, "out_of_range"),
    ({"v": 1, "name": "a" * 24}, "welcome"),
    ({"v": 1, "name": "Ada", "password": "x" * 10}, "welcome"),
    ({"v": 1, "name": "Ada", "later": nested(MAX_DEPTH)}, "welcome"),
]


@pytest.mark.parametrize(
    ("fields", "expected"), HELLOS, ids=[e + str(i) for i, (_, e) in enumerate(HELLOS)]
)
async def test_a_hello_is_answered_as_the_schema_judges_it(url, fields, expected):
    """The schema took ``v: 2``, a 25-character name, a 9-character password and an ignored
    field nested 1,024 deep, all of which the server refuses."""
    a = await Raw.open(url)
    msg = {"t": "hello", **fields}
    if fields.get("later") == "1,024 levels":
        frame = _packed_deep(msg, 1024)  # past msgpack's own reach: was malformed_frame, no re
        reply = await _bytes(a, frame)
        assert (code(reply), reply.get("re")) == (expected, 9), reply
        msg["later"] = nested(500)  # as deep as a Python value goes for the schema's reader
    else:
        reply = await answer(a, msg)
        assert code(reply) == expected, reply
    assert schema_takes(msg) == (expected == "welcome"), msg


def _packed_deep(msg: dict[str, Any], levels: int) -> bytes:
    """``msg`` with its ``later`` nested ``levels`` deep, packed by hand (msgpack's packer
    stops near a thousand levels), and ``id`` 9 after it."""
    head = {k: v for k, v in msg.items() if k != "later"}
    body = b"".join(msgpack.packb(k) + msgpack.packb(v) for k, v in head.items())
    deep = msgpack.packb("later") + b"\x91" * levels + b"\x00"
    return bytes([0x80 | (len(head) + 2)]) + body + deep + msgpack.packb("id") + b"\x09"


# -- after hello: rooms, create, replay, act ---------------------------------------------------

REQUESTS = [
    ({"t": "rooms", "status": "bogus"}, "out_of_range"),
    ({"t": "rooms", "status": "waiting"}, "rooms"),
    ({"t": "replay", "room": "r-nowhere", "seq": 0}, "out_of_range"),
    ({"t": "create", "game": "mathable", "seats": [None] * 9}, "bad_seats"),
    ({"t": "create", "game": "mathable", "seats": []}, "bad_seats"),
    ({"t": "create", "game": "mathable", "seats": [5, None]}, "bad_seats"),
    ({"t": "create", "game": "ishido", "options": {f"o{i}": 1 for i in range(33)}}, "bad_option"),
    ({"t": "match", "game": "mathable", "seats": 9}, "bad_seats"),
    ({"t": "create", "game": "ishido", "options": {"x": nested(MAX_DEPTH)}}, "out_of_range"),
    ({"t": "ping", "later": {"a": nested(MAX_DEPTH)}}, "out_of_range"),
    ({"t": "ping", "later": {"a": nested(MAX_DEPTH - 1)}}, "pong"),
    ({"t": "create", "game": "ishido"}, "created"),
]


@pytest.mark.parametrize(("msg", "expected"), REQUESTS, ids=[m["t"] + "-" + e for m, e in REQUESTS])
async def test_a_request_is_answered_as_the_schema_judges_it(url, msg, expected):
    a = await Raw.open(url, "Ada")
    reply = await answer(a, msg)
    assert code(reply) == expected, reply
    taken = expected in ("rooms", "pong", "created")
    assert schema_takes(msg) == taken, msg


@pytest.mark.parametrize("at", [[True, 1], [1.0, 2], [1, 2, 3], "a1", [1]])
async def test_a_square_of_the_wrong_type_is_bad_field_and_no_schema_takes_it(url, at):
    """Ishido answered ``bad_cell`` where PROTOCOL.md says a field of the wrong type is
    ``bad_field``; ``bad_cell`` is for two integers off the board."""
    a = await Raw.open(url, "Ada")
    room = (await a.call({"t": "create", "game": "ishido"}))["room"]
    await a.call({"t": "join", "room": room})
    act = {"t": "act", "room": room, "action": {"do": "place", "at": at}}
    assert code(await answer(a, act)) == "bad_field"
    assert not schema_takes(act) and not schema_takes(act, "act.ishido")
    off = {"t": "act", "room": room, "action": {"do": "place", "at": [8, 0]}}
    assert code(await answer(a, off)) == "bad_cell"
    assert not schema_takes(off, "act.ishido")


async def test_an_action_of_another_game_is_told_apart_where_the_game_is_known(url):
    """An ``undo`` in a Mathable room: the server refuses it (``unknown_action``); the schema
    cannot, from the frame alone (an act names its room), but ``act.mathable`` does, and an
    update naming its game holds only that game's events."""
    a = await Raw.open(url, "Ada")
    room = (await a.call({"t": "create", "game": "mathable", "seats": ["Ada", "COMP"]}))["room"]
    joined = await a.call({"t": "join", "room": room})
    undo = {"t": "act", "room": room, "action": {"do": "undo"}}
    assert code(await answer(a, undo)) == "unknown_action"
    assert schema_takes(undo) and not schema_takes(undo, "act.mathable")
    assert schema_takes(undo, "act.ishido")
    assert schema_takes({**undo, "action": {"do": "end"}}, "act.mathable")
    undone = {"e": "undone", "action": {"do": "undo"}, "undos": 1}
    update = {"t": "update", "room": room, "seq": 9, "events": [undone], "view": joined["view"]}
    assert not schema_takes(update, "server")  # no undone event in Mathable
    ishido_view = {"game": "ishido", "status": "playing", "to_move": 0, "scores": [0], "seat": 0}
    undone["action"] = {"do": "place", "at": [1, 2]}
    assert schema_takes({**update, "view": ishido_view}, "server")
    undone["action"] = {"do": "end"}  # a Mathable action, undone in Ishido
    assert not schema_takes({**update, "view": ishido_view}, "server")


# -- what no JSON Schema can say: the server's answer is PROTOCOL.md's -------------------------


def _map(*pairs: bytes) -> bytes:
    return bytes([0x80 | len(pairs) // 2]) + b"".join(pairs)


P = msgpack.packb
EXT = b"\xd4\x05\x00"  # an ext value of type 5, one byte
TIMESTAMP = b"\xd6\xff\x00\x00\x00\x01"


@pytest.mark.parametrize(
    ("frame", "expected", "re"),
    [
        (_map(P(1), P(1), P("t"), P("ping")), "malformed_frame", None),  # was pong
        (_map(P("t"), P("ping"), P("t"), P("ping"), P("id"), P(3)), "malformed_frame", None),
        (_map(P("t"), P("ping"), P("later"), _map(P(2), P(2))), "malformed_frame", None),
        (_map(P("t"), P("ping"), P("later"), EXT, P("id"), P(3)), "pong", 3),  # was malformed
        (_map(P("t"), P("ping"), P("later"), TIMESTAMP, P("id"), P(3)), "pong", 3),
        (_map(P("t"), P("leave"), P("room"), EXT, P("id"), P(3)), "wrong_type", 3),
        (_map(P("t"), P("leave"), P("room"), P(b"r1"), P("id"), P(3)), "wrong_type", 3),
    ],
)
async def test_what_json_cannot_hold_is_answered_as_the_transport_rules_say(
    url, frame, expected, re
):
    a = await Raw.open(url, "Ada")
    reply = await _bytes(a, frame)
    assert (code(reply), reply.get("re")) == (expected, re), reply
    assert (await a.call({"t": "ping"}))["t"] == "pong"  # the connection goes on
