"""What one player may cost in rooms: a bound on open rooms, waiting rooms that expire,
and a ``rooms`` listing that pages. In memory (tests/memory.py), with the real store.

Each refusal is checked for its code and for the state it leaves: unchanged.
"""

from __future__ import annotations

import pytest
from tilehall.protocol import encode
from tilehall.server.games import Status
from tilehall.server.lobby import PAGE_BYTES

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
    await small.lobby.registry.quiet()
    assert idle not in small.lobby.rooms, "nobody came: it closed"
    record = await small.store.room(idle)
    assert record.status == "over"
    assert kept in small.lobby.rooms, "a room someone waits in stays"
    listed = (await small.call(ada, {"t": "rooms"}))["rooms"]
    assert [r["room"] for r in listed] == [kept]
    # once its last member leaves, its clock starts
    await small.call(ada, {"t": "leave", "room": kept})
    small.clock.advance(600)
    await small.lobby.registry.quiet()
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


def longest_name(i: int) -> str:
    """A name as long as names go in bytes: 24 letters of four UTF-8 bytes (CJK Extension B)."""
    return "".join(chr(0x20000 + (i * 24 + k) % 40000) for k in range(24))


async def walk(house, member, req):
    """Follow ``next`` to the end: the rooms in order, and each reply's size in bytes."""
    rooms, sizes, cursor = [], [], None
    while True:
        page = await house.call(member, req | ({"cursor": cursor} if cursor else {}))
        assert page["t"] == "rooms", page
        sizes.append(len(encode(page)))
        rooms += [r["room"] for r in page["rooms"]]
        cursor = page["next"]
        if cursor is None:
            return rooms, sizes


async def test_a_page_of_rooms_with_the_longest_names_ends_at_the_byte_bound(tmp_path):
    house = await House.open(tmp_path, max_rooms_per_player=0)
    try:
        name = longest_name(0)
        ada = await house.player(name)
        seats = [name, longest_name(1), longest_name(2), longest_name(3)]
        made = [
            (await house.call(ada, {"t": "create", "game": "mathable", "seats": seats}))["room"]
            for _ in range(300)
        ]
        first = await house.call(ada, {"t": "rooms", "limit": 200})
        one = len(encode(first["rooms"][0]))
        assert one > 600, one  # 200 of them would be 120 KiB
        assert 0 < len(first["rooms"]) < 200 and first["next"] == first["rooms"][-1]["room"]
        assert len(encode(first)) <= PAGE_BYTES + 100
        rooms, sizes = await walk(house, ada, {"t": "rooms", "limit": 200})
        assert rooms == sorted(made), "every room once, in order"
        assert len(sizes) >= 300 * one // PAGE_BYTES and max(sizes) <= PAGE_BYTES + 100, sizes
        # a page that fits is not cut
        fits = PAGE_BYTES // (one + 10)
        assert len((await house.call(ada, {"t": "rooms", "limit": fits}))["rooms"]) == fits
    finally:
        await house.close()


@pytest.mark.slow  # ten thousand rooms
async def test_a_page_stays_far_under_the_frame_limit_at_ten_thousand_rooms(tmp_path):
    house = await House.open(tmp_path, max_rooms_per_player=0)
    try:
        name = longest_name(0)
        ada = await house.player(name)
        seats = [name, longest_name(1), longest_name(2), longest_name(3)]
        for i in range(10_000):
            msg = {"t": "create", "game": "mathable" if i % 2 else "ishido"}
            if i % 2:
                msg["seats"] = seats
            await house.lobby.routes["create"](ada, msg)
        assert len(house.lobby.rooms) == 10_000
        page = await house.call(ada, {"t": "rooms", "limit": 200})
        assert len(page["rooms"]) > 20
        assert len(encode(page)) <= PAGE_BYTES + 100
        assert house.lobby.rooms[page["rooms"][0]["room"]].status is Status.WAITING
        for req in (
            {"t": "rooms", "limit": 200},
            {"t": "rooms", "limit": 200, "game": "mathable"},
            {"t": "rooms", "limit": 200, "status": "waiting"},
            {"t": "rooms", "game": "mathable", "status": "waiting"},
        ):
            rooms, sizes = await walk(house, ada, req)
            assert len(rooms) == (10_000 if "game" not in req else 5_000), req
            assert max(sizes) <= PAGE_BYTES + 100, (req, max(sizes))
        # a filter nothing matches looks at a bounded number of rooms per request,
        # and following next still walks them all
        rooms, sizes = await walk(house, ada, {"t": "rooms", "status": "over"})
        assert rooms == [] and len(sizes) == 10
        # one game's filter looks at that game's rooms only: 5,000 of them, 5 requests
        rooms, sizes = await walk(house, ada, {"t": "rooms", "game": "ishido", "status": "over"})
        assert rooms == [] and len(sizes) == 5
    finally:
        await house.close()
