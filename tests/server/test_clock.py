"""Clocks: the room calls advance() at next_deadline() and journals it like an action."""

from __future__ import annotations

import asyncio

import msgpack

from server.games import find_game
from server.room import Room
from tests.helpers import Raw


async def test_turn_clock_ends_the_turn_and_replays_exactly(url, server):
    a = await Raw.open(url, "Ada")
    b = await Raw.open(url, "Bob")
    room = (
        await a.call(
            {
                "t": "create",
                "game": "mathable",
                "seats": ["Ada", "Bob"],
                "options": {"turn_seconds": 1},
            }
        )
    )["room"]
    await a.call({"t": "join", "room": room})
    joined = await b.call({"t": "join", "room": room})
    first = joined["view"]["to_move"]
    # nobody moves: the server's clock ends the turn
    while True:
        msg = await b.recv(timeout=5)
        if msg["t"] == "update":
            break
    assert msg["view"]["to_move"] == 1 - first
    assert any(e["e"] == "timeout" for e in msg["events"])
    rows = server.store.db.execute(
        "SELECT seq, seat, action FROM journal WHERE room = ? ORDER BY seq", (room,)
    ).fetchall()
    assert [(s, seat, msgpack.unpackb(act)) for s, seat, act in rows][-1] == (
        msg["seq"],
        None,
        {"do": "_tick"},
    )
    # a replay of the journal reaches the same state as the live room
    live = server.lobby.rooms[room]
    copy = Room(live.record, find_game("mathable"), server.lobby)
    copy.replay(await server.store.journal(room))
    assert copy.seq == live.seq
    for seat in (None, 0, 1):
        assert copy.view(seat) == live.view(seat)


async def test_each_turn_gets_its_own_deadline_and_hints_do_not_reset_it(url, server):
    a = await Raw.open(url, "Ada")
    room = (
        await a.call(
            {
                "t": "create",
                "game": "mathable",
                "seats": ["Ada", "COMP"],
                "options": {"turn_seconds": 5},
            }
        )
    )["room"]
    view = (await a.call({"t": "join", "room": room}))["view"]
    while view["to_move"] != 0:  # let the bot play its turn
        msg = await a.recv(timeout=10)
        if msg["t"] == "update":
            view = msg["view"]
    deadline = view["deadline"]
    assert deadline is not None
    await asyncio.sleep(0.2)
    upd = await a.call({"t": "act", "room": room, "action": {"do": "hint"}})
    assert upd["view"]["deadline"] == deadline
    upd = await a.call({"t": "act", "room": room, "action": {"do": "end"}})
    assert upd["view"]["to_move"] == 1
    assert upd["view"]["deadline"] > deadline
    # the room re-armed its timer for the new deadline; the old one must not fire
    assert server.lobby.rooms[room]._timer is not None
