"""Clocks: the room calls advance() at next_deadline() and journals it like an action.

In memory, with a clock the test moves: a turn clock of minutes costs no time.
"""

from __future__ import annotations

import asyncio

from tilehall.server.games import find_game
from tilehall.server.room import Room


async def two_players(house, options):
    a = await house.player("Ada")
    b = await house.player("Bob")
    create = {"t": "create", "game": "mathable", "seats": ["Ada", "Bob"], "options": options}
    room = (await house.call(a, create))["room"]
    await house.call(a, {"t": "join", "room": room})
    joined = await house.call(b, {"t": "join", "room": room})
    return a, b, room, joined


async def test_turn_clock_ends_the_turn_and_replays_exactly(house):
    _a, b, room, joined = await two_players(house, {"turn_seconds": 60})
    first = joined["view"]["to_move"]
    house.clock.advance(59.9)
    assert house.clock.pending() == [joined["view"]["deadline"]], "the turn is not over yet"
    # nobody moves: the server's clock ends the turn
    house.clock.advance(0.1)
    msg = await b.update(room, joined["seq"] + 1)
    assert msg["view"]["to_move"] == 1 - first
    assert any(e["e"] == "timeout" for e in msg["events"])
    last = (await house.journal(room))[-1]
    assert (last.seq, last.seat, last.action) == (msg["seq"], None, {"do": "_tick"})
    assert last.now == joined["view"]["deadline"], "journaled at the deadline itself"
    # a replay of the journal reaches the same state as the live room
    live = house.lobby.rooms[room]
    copy = Room(
        live.record,
        find_game("mathable"),
        house.lobby.registry.services,
        journal=await house.store.journal(room),
    )
    assert copy.seq == live.seq
    for seat in (None, 0, 1):
        assert copy.view(seat) == live.view(seat)


async def test_each_turn_gets_its_own_deadline_and_hints_do_not_reset_it(house):
    a, b, room, joined = await two_players(house, {"turn_seconds": 5})
    view = joined["view"]
    mover = a if view["to_move"] == 0 else b
    deadline = view["deadline"]
    assert deadline == house.clock.time() + 5
    house.clock.advance(2)
    upd = await house.call(mover, {"t": "act", "room": room, "action": {"do": "hint"}})
    assert upd["view"]["deadline"] == deadline
    upd = await house.call(mover, {"t": "act", "room": room, "action": {"do": "end"}})
    assert upd["view"]["to_move"] == 1 - view["to_move"]
    assert upd["view"]["deadline"] == house.clock.time() + 5 > deadline
    # the room re-armed its timer for the new deadline; the old one must not fire
    assert house.clock.pending() == [upd["view"]["deadline"]]


async def test_a_closed_room_keeps_nothing_going(house):
    """Closing a room calls its clock's timer off and ends every task it started (a bot's
    thought, a write, a read): nothing is left running, or journaled, for a room that is gone."""
    a, _b, room, joined = await two_players(house, {"turn_seconds": 60})
    live = house.lobby.rooms[room]
    house.lobby.disconnect(a)  # Ada's connection ends: her seat is away, the clock runs on
    assert joined["view"]["deadline"] in house.clock.pending()
    live.close()
    assert house.clock.pending() == [], "the clock's timer (and a stand-in's) called off"
    await asyncio.sleep(0)
    assert all(t.done() for t in live._tasks)
    house.clock.advance(60)  # the deadline passes: nothing happens to a closed room
    assert live.seq == joined["seq"] and live.closed
    assert [e.seq for e in await house.journal(room)][-1] == joined["seq"]
