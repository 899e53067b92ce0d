"""A room's logic in memory: seats, turns, bots, clocks and the end of a game.

The real lobby, rooms, engines, bots, SQLite store and codec; no sockets, and a
clock the test moves (see tests/memory.py). The same room over real WebSockets
is proven in test_room.py.
"""

from __future__ import annotations

import asyncio

from tilehall.server.games import Status


async def ishido_room(house):
    a = await house.player("Ada")
    room = (await house.call(a, {"t": "create", "game": "ishido"}))["room"]
    joined = await house.call(a, {"t": "join", "room": room})
    return a, room, joined


async def test_spectators_and_strangers_cannot_act(house):
    _a, room, joined = await ishido_room(house)
    b = await house.player("Bob")
    at = joined["view"]["legal"][0]
    act = {"t": "act", "room": room, "action": {"do": "place", "at": at}}
    assert (await house.call(b, act))["code"] == "not_in_room"
    await house.call(b, {"t": "watch", "room": room})
    assert (await house.call(b, act))["code"] == "spectator"
    assert len(await house.journal(room)) == 1


async def test_acting_on_a_seat_you_do_not_hold(house):
    a = await house.player("Ada")
    b = await house.player("Bob")
    create = {"t": "create", "game": "mathable", "seats": ["Ada", "Bob"]}
    room = (await house.call(a, create))["room"]
    ja = await house.call(a, {"t": "join", "room": room})
    assert ja["view"]["status"] == "waiting"
    assert (await house.call(b, {"t": "join", "room": room, "seat": 0}))["code"] == "seat_taken"
    jb = await house.call(b, {"t": "join", "room": room})
    assert (ja["seat"], jb["seat"]) == (0, 1)
    view = house.lobby.rooms[room].view(None)
    idle = b if view["to_move"] == 0 else a
    before = await house.journal(room)
    err = await house.call(idle, {"t": "act", "room": room, "action": {"do": "end"}})
    assert err["code"] == "not_your_turn"
    assert await house.journal(room) == before
    assert house.lobby.rooms[room].view(None) == view


async def test_a_room_of_bots_plays_to_the_end_and_can_be_watched(house):
    a = await house.player("Ada")
    seats = ["COMP1:hard", "COMP2:easy", "COMP3"]
    room = (await house.call(a, {"t": "create", "game": "mathable", "seats": seats}))["room"]
    joined = await house.call(a, {"t": "watch", "room": room})
    seq = joined["seq"]
    while True:
        msg = await a.update(room, seq + 1, timeout=120)  # a spectator sees every update
        seq = msg["seq"]
        assert all(r is not None for r in msg["view"]["racks"])  # open racks by default
        if msg["view"]["status"] == "over":
            break
    result = msg["view"]["result"]
    assert len(result["scores"]) == 3
    assert len(await house.journal(room)) == seq
    await house.lobby.rooms[room].quiet()  # the result is stored right after the broadcast
    assert (await house.store.room(room)).status == "over"
    # bots never enter the Hall of Fame
    assert await house.store.score_tables("mathable") == []


async def test_a_room_of_bots_waits_while_nobody_watches(house):
    a = await house.player("Ada")
    create = {"t": "create", "game": "mathable", "seats": ["COMP1", "COMP2"]}
    room_id = (await house.call(a, create))["room"]
    room = house.lobby.rooms[room_id]
    assert room.core.idle and house.clock.pending() == [], "nobody watches: no bot, no timer"
    assert room.summary()["paused"] == "unwatched" and room.summary()["status"] == "playing"
    assert len(await house.journal(room_id)) == 1, "only the start"
    seq = (await house.call(a, {"t": "watch", "room": room_id}))["seq"]
    for expected in range(seq + 1, 5):  # a spectator sets them going
        await a.update(room_id, expected)
    await house.call(a, {"t": "leave", "room": room_id})
    await room.quiet()  # a move already thought out may still land
    assert room.core.idle and house.clock.pending() == [], "the last spectator left: they wait"
    assert room.status is Status.PLAYING
    stopped = room.seq
    assert len(await house.journal(room_id)) == stopped
    b = await house.player("Bea")
    again = (await house.call(b, {"t": "watch", "room": room_id}))["seq"]
    assert again == stopped
    await b.update(room_id, again + 1)  # and go on where they stopped for the next one


async def test_the_clock_of_a_room_of_bots_stops_while_nobody_watches(house):
    a = await house.player("Ada")
    create = {
        "t": "create",
        "game": "mathable",
        "options": {"turn_seconds": 1},
        "seats": ["COMP1", "COMP2"],
    }
    room = (await house.call(a, create))["room"]
    assert house.clock.pending() == []
    house.clock.advance(1.5)  # a running clock would have ended the first turn
    assert len(await house.journal(room)) == 1, "no moves and no time-outs"
    assert house.lobby.rooms[room].core.idle and house.clock.pending() == []


async def test_quit_votes_end_the_game_and_fill_the_hall_of_fame(house):
    a = await house.player("Ada")
    b = await house.player("Bob")
    create = {"t": "create", "game": "mathable", "seats": [None, None]}
    room = (await house.call(a, create))["room"]
    await house.call(a, {"t": "join", "room": room})
    await house.call(b, {"t": "join", "room": room})
    await house.call(a, {"t": "act", "room": room, "action": {"do": "quit", "vote": True}})
    upd = await house.call(b, {"t": "act", "room": room, "action": {"do": "quit", "vote": True}})
    assert upd["view"]["status"] == "over"
    table = await house.call(a, {"t": "scores", "game": "mathable"})
    assert table["table"] == "2 players"
    assert sorted(e["name"] for e in table["entries"]) == ["Ada", "Bob"]
    assert [m["table"] for m in table["mine"]] == ["2 players"]


async def test_finished_rooms_leave_memory_but_keep_their_record(house):
    a = await house.player("Ada")
    b = await house.player("Bob")
    create = {"t": "create", "game": "mathable", "seats": ["Ada", "Bob"]}
    room = (await house.call(a, create))["room"]
    await house.call(a, {"t": "join", "room": room})
    await house.call(b, {"t": "join", "room": room})
    await house.call(a, {"t": "act", "room": room, "action": {"do": "quit", "vote": True}})
    upd = await house.call(b, {"t": "act", "room": room, "action": {"do": "quit", "vote": True}})
    assert upd["view"]["status"] == "over"
    ttl = house.lobby.registry.config.limits.finished_ttl
    house.clock.advance(ttl - 1)
    assert room in house.lobby.rooms  # late spectators can still see the end
    house.clock.advance(1)
    assert room not in house.lobby.rooms
    assert (await house.store.room(room)).status == "over"
    assert len(await house.store.journal(room)) == upd["seq"]


async def test_seats_taken_at_the_same_moment_are_all_kept(house):
    a, b, c = [await house.player(n) for n in ("Ada", "Bob", "Cy")]
    create = {"t": "create", "game": "mathable", "seats": [None, None, None]}
    room = (await house.call(a, create))["room"]
    await house.call(a, {"t": "join", "room": room})
    joined = await asyncio.gather(
        house.call(b, {"t": "join", "room": room, "seat": 1}),
        house.call(c, {"t": "join", "room": room, "seat": 2}),
    )
    assert [j["seat"] for j in joined] == [1, 2]
    stored = await house.store.room(room)
    assert [s.name for s in stored.seats] == ["Ada", "Bob", "Cy"]
    assert house.lobby.rooms[room].status is Status.PLAYING
    # and one seat asked for twice at once goes to exactly one of them
    d, e = [await house.player(n) for n in ("Di", "Ed")]
    room2 = (await house.call(d, create))["room"]
    both = await asyncio.gather(
        house.call(d, {"t": "join", "room": room2, "seat": 0}),
        house.call(e, {"t": "join", "room": room2, "seat": 0}),
    )
    assert sorted(r["t"] for r in both) == ["error", "joined"]
    assert next(r for r in both if r["t"] == "error")["code"] == "seat_taken"


async def test_an_older_journal_with_fields_ignored_then_still_replays(house):
    """Before actions were normalised, extra fields were journaled as sent."""
    from tilehall.server.games import find_game
    from tilehall.server.room import Room
    from tilehall.server.store.records import JournalEntry

    a = await house.player("Ada")
    room_id = (await house.call(a, {"t": "create", "game": "ishido"}))["room"]
    view = (await house.call(a, {"t": "join", "room": room_id}))["view"]
    live = house.lobby.rooms[room_id]
    old = {"do": "place", "at": view["legal"][0], "client": "v0.9", "junk": [1, 2]}
    await house.store.append(
        JournalEntry(room=room_id, seq=live.seq + 1, seat=0, action=old, now=house.clock.time())
    )
    copy = Room(
        live.record,
        find_game("ishido"),
        house.lobby.registry.services,
        journal=await house.journal(room_id),
    )
    assert copy.seq == live.seq + 1
    assert copy.view(0)["board"] != view["board"]  # the stone is on the board
