"""Sessions and the lobby, end to end over real WebSockets with real msgpack frames."""

from __future__ import annotations

import hashlib

from tests.helpers import Raw


async def test_hello_creates_a_player_and_the_token_brings_it_back(url, server):
    a = await Raw.open(url, "Ada")
    token = a.token
    await a.close()
    b = await Raw.open(url)
    welcome = await b.call({"t": "hello", "v": 1, "token": token})
    assert welcome["t"] == "welcome"
    assert welcome["player"] == "Ada"
    assert welcome["token"] == token
    assert {g["name"] for g in welcome["games"]} >= {"ishido"}
    ishido = next(g for g in welcome["games"] if g["name"] == "ishido")
    assert "normal" in ishido["bots"]
    # the token is stored only as a hash
    rows = server.store.db.execute("SELECT token_hash FROM players").fetchall()
    assert rows == [(hashlib.sha256(token.encode()).digest(),)]
    assert token.encode() not in b"".join(r[0] for r in rows)


async def test_names_are_unique_case_insensitively(url):
    await Raw.open(url, "Ada")
    b = await Raw.open(url)
    err = await b.call({"t": "hello", "v": 1, "name": "aDA"})
    assert (err["t"], err["code"]) == ("error", "name_taken")


async def test_comp_names_are_reserved(url):
    b = await Raw.open(url)
    err = await b.call({"t": "hello", "v": 1, "name": "Computer"})
    assert err["code"] == "name_reserved"


async def test_bad_names_and_tokens_and_versions(url):
    b = await Raw.open(url)
    assert (await b.call({"t": "hello", "v": 1, "name": "a\x07b"}))["code"] == "bad_name"
    assert (await b.call({"t": "hello", "v": 1, "name": "   "}))["code"] == "bad_name"
    assert (await b.call({"t": "hello", "v": 1, "token": "nope"}))["code"] == "bad_token"
    assert (await b.call({"t": "hello", "v": 99, "name": "x"}))["code"] == "unsupported_version"
    # the connection survived all of it
    assert (await b.call({"t": "hello", "v": 1, "name": "Fine"}))["t"] == "welcome"
    assert (await b.call({"t": "hello", "v": 1, "name": "Again"}))["code"] == "already_welcomed"


async def test_requests_before_hello_are_refused(url):
    b = await Raw.open(url)
    assert (await b.call({"t": "rooms"}))["code"] == "hello_first"
    assert (await b.call({"t": "ping"}))["t"] == "pong"


async def test_create_validates_game_and_options_by_name(url):
    a = await Raw.open(url, "Ada")
    assert (await a.call({"t": "create", "game": "chess"}))["code"] == "unknown_game"
    err = await a.call({"t": "create", "game": "ishido", "options": {"colour": 1}})
    assert err["code"] == "bad_option" and "colour" in err["message"]
    err = await a.call({"t": "create", "game": "ishido", "options": {"scoring": "future"}})
    assert err["code"] == "bad_option" and "scoring" in err["message"]
    err = await a.call({"t": "create", "game": "ishido", "seats": ["a", "b"]})
    assert err["code"] == "bad_seats"
    assert (await a.call({"t": "rooms"}))["rooms"] == []


async def test_rooms_lists_public_rooms_with_seats_and_spectators(url):
    a = await Raw.open(url, "Ada")
    room = (await a.call({"t": "create", "game": "ishido"}))["room"]
    listed = (await a.call({"t": "rooms", "game": "ishido"}))["rooms"]
    assert [r["room"] for r in listed] == [room]
    assert listed[0]["status"] == "waiting"
    assert listed[0]["seats"] == [{"name": None, "bot": False, "taken": False, "connected": False}]
    await a.call({"t": "join", "room": room})
    b = await Raw.open(url, "Bob")
    await b.call({"t": "watch", "room": room})
    (summary,) = (await b.call({"t": "rooms"}))["rooms"]
    assert summary["status"] == "playing"
    assert summary["spectators"] == 1
    assert summary["seats"][0]["name"] == "Ada" and summary["seats"][0]["connected"]


async def test_private_rooms_are_unlisted_and_joined_by_code(url):
    a = await Raw.open(url, "Ada")
    created = await a.call({"t": "create", "game": "ishido", "private": True})
    assert created["code"]
    assert (await a.call({"t": "rooms"}))["rooms"] == []
    b = await Raw.open(url, "Bob")
    assert (await b.call({"t": "join", "room": created["room"]}))["code"] == "unknown_room"
    assert (await b.call({"t": "watch", "room": created["room"]}))["code"] == "unknown_room"
    assert (await b.call({"t": "join", "code": "guess"}))["code"] == "unknown_room"
    joined = await b.call({"t": "join", "code": created["code"]})
    assert joined["t"] == "joined" and joined["seat"] == 0


async def test_full_room_and_taken_seat(url):
    a = await Raw.open(url, "Ada")
    room = (await a.call({"t": "create", "game": "ishido"}))["room"]
    await a.call({"t": "join", "room": room})
    b = await Raw.open(url, "Bob")
    assert (await b.call({"t": "join", "room": room}))["code"] == "room_full"
    assert (await b.call({"t": "join", "room": room, "seat": 0}))["code"] == "seat_taken"
    assert (await b.call({"t": "join", "room": room, "seat": 3}))["code"] == "bad_seat"
    assert (await b.call({"t": "join", "room": "nowhere"}))["code"] == "unknown_room"


async def test_chat_is_cleaned_and_reaches_the_room(url):
    a = await Raw.open(url, "Ada")
    room = (await a.call({"t": "create", "game": "ishido"}))["room"]
    await a.call({"t": "join", "room": room})
    b = await Raw.open(url, "Bob")
    await b.call({"t": "watch", "room": room})
    await a.send({"t": "chat", "room": room, "text": "hi\x1b[31m there\n"})
    while (msg := await b.recv())["t"] != "chat":
        pass
    assert msg == {"t": "chat", "room": room, "from": "Ada", "text": "hi[31m there"}
    c = await Raw.open(url, "Cy")
    assert (await c.call({"t": "chat", "room": room, "text": "x"}))["code"] == "not_in_room"


async def test_leave_and_not_in_room(url):
    a = await Raw.open(url, "Ada")
    room = (await a.call({"t": "create", "game": "ishido"}))["room"]
    await a.call({"t": "join", "room": room})
    assert await a.call({"t": "leave", "room": room}) == {"t": "left", "room": room, "re": 7}
    assert (await a.call({"t": "leave", "room": room}))["code"] == "not_in_room"
    err = await a.call({"t": "act", "room": room, "action": {"do": "help"}})
    assert err["code"] == "not_in_room"
    # the player kept the seat and comes back to it
    assert (await a.call({"t": "join", "room": room}))["seat"] == 0


async def test_scores_of_unknown_game_and_table(url):
    a = await Raw.open(url, "Ada")
    assert (await a.call({"t": "scores", "game": "golf"}))["code"] == "unknown_game"
    empty = await a.call({"t": "scores", "game": "ishido"})
    assert empty["entries"] == [] and empty["table"] is None and empty["mine"] == []
    err = await a.call({"t": "scores", "game": "ishido", "table": "nope"})
    assert err["code"] == "unknown_table"
