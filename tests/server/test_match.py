"""Quick-match: ``match`` seats players together, and bots come for the seats nobody took.

In memory (the real lobby, rooms, bots and SQLite store; a clock the test
moves), then once end to end over a real socket.
"""

from __future__ import annotations

from tests.helpers import Raw, ServerProcess
from tests.memory import START, House, MemoryMember


async def pushed_update(raw: Raw) -> dict:
    """The first update pushed to ``raw``, kept aside or still to come."""
    while True:
        for msg in raw.pushed:
            if msg["t"] == "update":
                return msg
        raw.pushed.append(await raw.recv(timeout=10))


async def match(house: House, member: MemoryMember, **fields) -> dict:
    return await house.call(member, {"t": "match", **fields})


async def test_two_players_asking_for_the_same_game_sit_together_and_play(house):
    ada, bob = await house.player("Ada"), await house.player("Bob")
    first = await match(house, ada, game="mathable")
    assert first["t"] == "joined" and first["seat"] == 0
    assert first["view"]["status"] == "waiting" and first["view"]["waiting_for"] == [1]
    assert first["view"]["now"] == house.clock.time(), "to count down to the bots"
    listed = (await house.call(bob, {"t": "rooms"}))["rooms"]
    assert listed[0]["bots_at"] == house.clock.time() + 30, "the room says when bots come"
    second = await match(house, bob, game="mathable")
    assert second["room"] == first["room"] and second["seat"] == 1
    started = await ada.update(first["room"], 1)
    assert started["events"][0] == {"e": "started"}
    room = house.lobby.rooms[first["room"]]
    assert [s.bot for s in room.seats] == [None, None], "no bot: both seats were taken"
    assert room.summary()["bots_at"] is None
    house.clock.advance(60)
    assert [s.bot for s in house.lobby.rooms[first["room"]].seats] == [None, None]


async def test_a_different_seat_count_or_options_is_another_room(house):
    ada, bob, cid = [await house.player(n) for n in ("Ada", "Bob", "Cid")]
    a = await match(house, ada, game="mathable", seats=3)
    b = await match(house, bob, game="mathable")
    c = await match(house, cid, game="mathable", seats=3, options={"racks": "hidden"})
    assert len({a["room"], b["room"], c["room"]}) == 3
    # options at their defaults, given or not, are the same options
    dan = await house.player("Dan")
    d = await match(house, dan, game="mathable", options={"racks": "open"})
    assert d["room"] == b["room"]


async def test_rooms_made_with_create_are_not_taken_by_match(house):
    ada, bob = await house.player("Ada"), await house.player("Bob")
    made = await house.call(ada, {"t": "create", "game": "mathable"})
    await house.call(ada, {"t": "join", "room": made["room"]})
    got = await match(house, bob, game="mathable")
    assert got["room"] != made["room"]


async def test_nobody_comes_so_bots_take_the_open_seats_after_bots_after(house):
    ada = await house.player("Ada")
    joined = await match(house, ada, game="mathable", seats=3, bots_after=20, level="easy")
    rid = joined["room"]
    house.clock.advance(19)
    assert house.lobby.rooms[rid].engine is None
    house.clock.advance(1)
    started = await ada.update(rid, 1)
    assert started["events"][0] == {"e": "started"}
    room = house.lobby.rooms[rid]
    assert [s.bot for s in room.seats] == [None, "easy", "easy"]
    kept = await house.store.room(rid)
    assert [s.bot for s in kept.seats] == [None, "easy", "easy"], "the seats are stored first"
    summary = ada.of("room", rid)[-1]
    assert [s["bot"] for s in summary["seats"]] == [False, True, True]


async def test_the_soonest_wait_of_the_players_in_a_room_brings_the_bots(house):
    ada, bob = await house.player("Ada"), await house.player("Bob")
    a = await match(house, ada, game="mathable", seats=3, bots_after=300)
    house.clock.advance(10)
    b = await match(house, bob, game="mathable", seats=3, bots_after=5)
    assert b["room"] == a["room"]
    house.clock.advance(5)
    await ada.update(a["room"], 1)
    assert [s.bot for s in house.lobby.rooms[a["room"]].seats] == [None, None, "normal"]


async def test_asking_again_while_waiting_seats_you_where_you_wait(house):
    ada = await house.player("Ada")
    first = await match(house, ada, game="mathable")
    again = await match(house, ada, game="mathable")
    assert (again["room"], again["seat"]) == (first["room"], 0)
    assert len(house.lobby.rooms) == 1


async def test_bots_wait_for_a_player_who_went_away_and_come_when_one_is_back(house):
    ada = await house.player("Ada")
    joined = await match(house, ada, game="mathable", bots_after=10)
    rid = joined["room"]
    await house.call(ada, {"t": "leave", "room": rid})
    house.clock.advance(60)
    assert house.lobby.rooms[rid].engine is None, "no game for nobody"
    back = await house.call(ada, {"t": "join", "room": rid})
    assert back["seat"] == 0
    house.clock.advance(0)
    started = await ada.update(rid, 1)
    assert started["events"][0] == {"e": "started"}


async def test_a_waiting_quick_match_room_and_its_bots_time_survive_a_restart(tmp_path):
    house = await House.open(tmp_path)
    ada = await house.player("Ada")
    joined = await match(house, ada, game="mathable", bots_after=40)
    rid, token = joined["room"], ada.token
    house.clock.advance(10)
    await house.close()

    house = await House.open(tmp_path)
    try:
        house.clock.advance(10)  # a fresh fake clock: 10 s after the first one started
        assert await house.lobby.registry.recover() == 1
        assert house.lobby.rooms[rid].summary()["bots_at"] == START + 40, "kept in the store"
        back = MemoryMember()
        await house.call(back, {"t": "hello", "v": 1, "token": token})
        await house.call(back, {"t": "join", "room": rid})
        house.clock.advance(25)
        assert house.lobby.rooms[rid].engine is None
        house.clock.advance(5)
        started = await back.update(rid, 1)
        assert started["events"][0] == {"e": "started"}
    finally:
        await house.close()


async def test_a_solo_game_is_made_and_joined_at_once(house):
    ada = await house.player("Ada")
    joined = await match(house, ada, game="ishido")
    assert joined["t"] == "joined" and joined["seat"] == 0
    assert joined["view"]["status"] == "playing"


async def test_bad_match_requests_get_their_codes_and_change_nothing(house):
    ada = await house.player("Ada")
    for fields, code in (
        ({"game": "chess"}, "unknown_game"),
        ({"game": "mathable", "seats": 5}, "bad_seats"),
        ({"game": "mathable", "level": "godlike"}, "bad_seats"),
        ({"game": "mathable", "options": {"racks": "glass"}}, "bad_option"),
        ({"game": "mathable", "bots_after": -1}, "out_of_range"),
        ({"game": "mathable", "bots_after": 3601}, "out_of_range"),
    ):
        refused = await match(house, ada, **fields)
        assert (refused["t"], refused["code"]) == ("error", code), fields
    assert house.lobby.rooms == {}


async def test_match_over_a_real_socket_fills_with_bots_and_plays(tmp_path):
    server = ServerProcess(tmp_path, "--bot-delay", "0")
    server.start()
    try:
        ada = await Raw.open(server.url, "Ada")
        joined = await ada.call({"t": "match", "game": "mathable", "bots_after": 0})
        assert joined["t"] == "joined" and joined["seat"] == 0
        started = await pushed_update(ada)
        assert started["events"][0] == {"e": "started"}
        assert started["view"]["status"] == "playing"
        bob = await Raw.open(server.url, "Bob")
        other = await bob.call({"t": "match", "game": "mathable", "bots_after": 0})
        assert other["room"] != joined["room"], "a room that started is not matched into"
    finally:
        server.stop()
