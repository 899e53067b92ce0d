"""What one player may cost in rooms: a bound on open rooms, waiting rooms that expire,
and a ``rooms`` listing that pages. In memory (tests/memory.py), with the real store.

Each refusal is checked for its code and for the state it leaves: unchanged.
"""

from __future__ import annotations

import pytest
from tilehall.protocol import encode
from tilehall.server.games import Status

from tests.memory import House


@pytest.fixture
async def small(tmp_path):
    h = await House.open(tmp_path, max_rooms_per_player=3, waiting_ttl=600)
    yield h
    await h.close()


async def test_creates_past_the_bound_are_refused_and_change_nothing(small):
    ada = await small.player("Ada")
    made = [(await small.call(ada, {"t": "create", "game": "matchit"}))["room"] for _ in range(3)]
    err = await small.call(ada, {"t": "create", "game": "ishido"})
    assert err["code"] == "too_many_rooms" and "3" in err["message"]
    assert sorted(small.lobby.rooms) == sorted(made)
    assert await small.store.open_rooms_of(ada.player.id) == 3
    # another player is not held back by Ada's rooms
    bob = await small.player("Bob")
    assert (await small.call(bob, {"t": "create", "game": "ishido"}))["t"] == "created"
    # once one of Ada's rooms is over, she may make another
    await small.call(ada, {"t": "join", "room": made[0]})
    upd = await small.call(ada, {"t": "act", "room": made[0], "action": {"do": "quit"}})
    assert upd["view"]["status"] == "over", upd
    assert (await small.call(ada, {"t": "create", "game": "ishido"}))["t"] == "created"


async def test_a_waiting_room_nobody_is_in_closes_after_its_ttl(small):
    ada = await small.player("Ada")
    create = {"t": "create", "game": "mathable", "seats": ["Ada", "Bob"]}
    idle = (await small.call(ada, create))["room"]
    kept = (await small.call(ada, create))["room"]
    await small.call(ada, {"t": "join", "room": kept})  # Ada waits in this one for Bob
    small.clock.advance(599)
    assert idle in small.lobby.rooms
    small.clock.advance(1)
    await small.lobby.quiet()
    assert idle not in small.lobby.rooms, "nobody came: it closed"
    record = await small.store.room(idle)
    assert record.status == "over"
    assert kept in small.lobby.rooms, "a room someone waits in stays"
    listed = (await small.call(ada, {"t": "rooms"}))["rooms"]
    assert [r["room"] for r in listed] == [kept]
    # once its last member leaves, its clock starts
    await small.call(ada, {"t": "leave", "room": kept})
    small.clock.advance(600)
    await small.lobby.quiet()
    assert kept not in small.lobby.rooms
    assert await small.store.open_rooms_of(ada.player.id) == 0


async def test_rooms_come_in_pages_by_id_with_filters(small):
    makers = [await small.player(f"P{i}") for i in range(40)]
    made = []
    for p in makers:
        made.append((await small.call(p, {"t": "create", "game": "ishido"}))["room"])
        made.append((await small.call(p, {"t": "create", "game": "lines"}))["room"])
    await small.call(makers[0], {"t": "join", "room": made[0]})  # one ishido room plays
    walked, cursor, pages = [], None, 0
    while True:
        req = {"t": "rooms", "limit": 25}
        if cursor:
            req["cursor"] = cursor
        page = await small.call(makers[1], req)
        assert len(page["rooms"]) <= 25
        walked += [r["room"] for r in page["rooms"]]
        pages += 1
        cursor = page["next"]
        if cursor is None:
            break
    assert walked == sorted(made) and pages == 4
    default = await small.call(makers[1], {"t": "rooms"})
    assert len(default["rooms"]) == 50 and default["next"] == default["rooms"][-1]["room"]
    lines = (await small.call(makers[1], {"t": "rooms", "game": "lines", "limit": 200}))["rooms"]
    assert len(lines) == 40 and {r["game"] for r in lines} == {"lines"}
    playing = await small.call(makers[1], {"t": "rooms", "status": "playing"})
    assert [r["room"] for r in playing["rooms"]] == [made[0]] and playing["next"] is None
    for bad in ({"limit": 201}, {"limit": 0}, {"status": "sleeping"}):
        err = await small.call(makers[1], {"t": "rooms", **bad})
        assert err["code"] == "out_of_range", (bad, err)


async def test_a_page_stays_far_under_the_frame_limit_at_ten_thousand_rooms(tmp_path):
    house = await House.open(tmp_path, max_rooms_per_player=0)
    try:
        ada = await house.player("Ada")
        for i in range(10_000):
            seats = ["Ada", None, None, None] if i % 2 else None
            game = "mathable" if i % 2 else "ishido"
            msg = {"t": "create", "game": game}
            if seats:
                msg["seats"] = seats
            await house.lobby.request(ada, msg)
        assert len(house.lobby.rooms) == 10_000
        page = await house.call(ada, {"t": "rooms", "limit": 200})
        size = len(encode(page))
        assert len(page["rooms"]) == 200
        assert size <= 64 * 1024, size
        assert house.lobby.rooms[page["rooms"][0]["room"]].status is Status.WAITING
        # a filter nothing matches looks at a bounded number of rooms per request,
        # and following next still walks them all
        cursor, requests = None, 0
        while True:
            req = {"t": "rooms", "status": "over"} | ({"cursor": cursor} if cursor else {})
            page = await house.call(ada, req)
            assert page["rooms"] == []
            requests += 1
            cursor = page["next"]
            if cursor is None:
                break
        assert requests == 10
    finally:
        await house.close()
