"""Sessions and the lobby, in memory: the real lobby, store and codec, no sockets.

The same requests over real WebSockets are proven in test_room.py, test_stranger.py
and the clients' tests.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

import tilehall.server.lobby.making as lobby_module

from tests.memory import MemoryMember


class DrawnIds:
    """``secrets`` as the lobby uses it, with public room ids drawn from a list: two
    rooms drawing the same 32 random bits happens about once in 86 stores of
    10,000 rooms, so a test names the draws instead of waiting for one."""

    def __init__(self, *ids: str) -> None:
        self.ids = list(ids)

    def token_hex(self, nbytes: int) -> str:
        return self.ids.pop(0)

    def __getattr__(self, name: str) -> Any:
        return getattr(secrets, name)


async def test_hello_creates_a_player_and_the_token_brings_it_back(house):
    a = await house.player("Ada")
    token = a.token
    b = MemoryMember()
    welcome = await house.call(b, {"t": "hello", "v": 1, "token": token})
    assert welcome["t"] == "welcome"
    assert welcome["player"] == "Ada"
    assert welcome["token"] == token
    assert {g["name"] for g in welcome["games"]} >= {"ishido"}
    ishido = next(g for g in welcome["games"] if g["name"] == "ishido")
    assert "normal" in ishido["bots"]
    assert [(o["name"], o["label"]) for o in ishido["options"]] == [
        ("scoring", "Scoring rules"),
        ("four_way", "4-way rule"),
    ]
    # the token is stored only as a hash
    rows = house.store.db.execute("SELECT token_hash FROM players").fetchall()
    assert rows == [(hashlib.sha256(token.encode()).digest(),)]
    assert token.encode() not in b"".join(r[0] for r in rows)


async def test_names_are_unique_case_insensitively(house):
    await house.player("Ada")
    err = await house.call(MemoryMember(), {"t": "hello", "v": 1, "name": "aDA"})
    assert (err["t"], err["code"]) == ("error", "name_taken")


async def test_comp_names_are_reserved(house):
    err = await house.call(MemoryMember(), {"t": "hello", "v": 1, "name": "Computer"})
    assert err["code"] == "name_reserved"


async def test_bad_names_and_tokens_and_versions(house):
    b = MemoryMember()
    assert (await house.call(b, {"t": "hello", "v": 1, "name": "a\x07b"}))["code"] == "bad_name"
    assert (await house.call(b, {"t": "hello", "v": 1, "name": "   "}))["code"] == "bad_name"
    assert (await house.call(b, {"t": "hello", "v": 1, "token": "nope"}))["code"] == "bad_token"
    err = await house.call(b, {"t": "hello", "v": 99, "name": "x"})
    assert err["code"] == "unsupported_version"
    # the member survived all of it
    assert (await house.call(b, {"t": "hello", "v": 1, "name": "Fine"}))["t"] == "welcome"
    again = await house.call(b, {"t": "hello", "v": 1, "name": "Again"})
    assert again["code"] == "already_welcomed"


async def test_requests_before_hello_are_refused(house):
    b = MemoryMember()
    assert (await house.call(b, {"t": "rooms"}))["code"] == "hello_first"
    assert (await house.call(b, {"t": "ping"}))["t"] == "pong"


async def test_create_validates_game_and_options_by_name(house):
    a = await house.player("Ada")
    assert (await house.call(a, {"t": "create", "game": "chess"}))["code"] == "unknown_game"
    err = await house.call(a, {"t": "create", "game": "ishido", "options": {"colour": 1}})
    assert err["code"] == "bad_option" and "colour" in err["message"]
    err = await house.call(a, {"t": "create", "game": "ishido", "options": {"scoring": "future"}})
    assert err["code"] == "bad_option" and "scoring" in err["message"]
    err = await house.call(a, {"t": "create", "game": "ishido", "seats": ["a", "b"]})
    assert err["code"] == "bad_seats"
    assert (await house.call(a, {"t": "rooms"}))["rooms"] == []


async def test_a_room_id_drawn_twice_is_drawn_again(house, monkeypatch):
    monkeypatch.setattr(lobby_module, "secrets", DrawnIds("0badcafe", "0badcafe", "12345678"))
    ada, bob = await house.player("Ada"), await house.player("Bob")
    first = await house.call(ada, {"t": "create", "game": "mathable", "seats": ["Ada", "Zoe"]})
    assert first["room"] == "r0badcafe"
    second = await house.call(bob, {"t": "create", "game": "ishido"})
    assert second == {"t": "created", "room": "r12345678", "re": second["re"]}
    assert sorted(house.lobby.rooms) == ["r0badcafe", "r12345678"]
    kept = await house.store.room("r0badcafe")
    assert kept is not None and kept.game == "mathable" and kept.seats[0].name == "Ada"
    assert (await house.call(bob, {"t": "join", "room": "r12345678"}))["view"]["game"] == "ishido"


async def test_a_room_id_taken_at_every_draw_is_an_internal_error_that_changes_nothing(
    house, monkeypatch
):
    draws = DrawnIds(*["0badcafe"] * (1 + lobby_module.ROOM_ID_DRAWS))
    monkeypatch.setattr(lobby_module, "secrets", draws)
    ada = await house.player("Ada")
    assert (await house.call(ada, {"t": "create", "game": "ishido"}))["room"] == "r0badcafe"
    err = await house.call(ada, {"t": "create", "game": "lines"})
    assert err["code"] == "internal_error", err
    assert draws.ids == [] and list(house.lobby.rooms) == ["r0badcafe"]
    assert (await house.store.room("r0badcafe")).game == "ishido"


async def test_rooms_lists_public_rooms_with_seats_and_spectators(house):
    a = await house.player("Ada")
    room = (await house.call(a, {"t": "create", "game": "ishido"}))["room"]
    listed = (await house.call(a, {"t": "rooms", "game": "ishido"}))["rooms"]
    assert [r["room"] for r in listed] == [room]
    assert listed[0]["status"] == "waiting"
    assert listed[0]["seats"] == [{"name": None, "bot": False, "taken": False, "connected": False}]
    await house.call(a, {"t": "join", "room": room})
    b = await house.player("Bob")
    await house.call(b, {"t": "watch", "room": room})
    (summary,) = (await house.call(b, {"t": "rooms"}))["rooms"]
    assert summary["status"] == "playing"
    assert summary["spectators"] == 1
    assert summary["seats"][0]["name"] == "Ada" and summary["seats"][0]["connected"]


async def test_private_rooms_are_unlisted_and_joined_by_code(house):
    a = await house.player("Ada")
    created = await house.call(a, {"t": "create", "game": "ishido", "private": True})
    assert created["code"]
    assert (await house.call(a, {"t": "rooms"}))["rooms"] == []
    b = await house.player("Bob")
    room = created["room"]
    assert (await house.call(b, {"t": "join", "room": room}))["code"] == "unknown_room"
    assert (await house.call(b, {"t": "watch", "room": room}))["code"] == "unknown_room"
    assert (await house.call(b, {"t": "join", "code": "guess"}))["code"] == "unknown_room"
    joined = await house.call(b, {"t": "join", "code": created["code"]})
    assert joined["t"] == "joined" and joined["seat"] == 0


async def test_the_maker_of_a_private_room_may_join_it_by_its_id(house):
    a = await house.player("Ada")
    created = await house.call(
        a, {"t": "create", "game": "mathable", "seats": [None, None], "private": True}
    )
    joined = await house.call(a, {"t": "join", "room": created["room"]})
    assert joined["t"] == "joined" and joined["seat"] == 0, joined


async def test_watching_a_room_where_you_hold_a_seat_puts_you_in_it(house):
    a = await house.player("Ada")
    room = (await house.call(a, {"t": "create", "game": "mathable", "seats": ["Ada", "COMP"]}))[
        "room"
    ]
    await house.call(a, {"t": "join", "room": room})
    again = MemoryMember()  # a second connection of Ada's
    await house.call(again, {"t": "hello", "v": 1, "token": a.token})
    watched = await house.call(again, {"t": "watch", "room": room})
    assert watched["seat"] == 0
    assert watched["view"]["racks"][0] is not None  # her own tiles, not a spectator's view
    summary = house.lobby.rooms[room].summary()
    assert summary["seats"][0]["connected"] and summary["spectators"] == 0


async def test_a_seq_ahead_of_the_room_gets_no_missed_list(house):
    a = await house.player("Ada")
    room = (await house.call(a, {"t": "create", "game": "ishido"}))["room"]
    joined = await house.call(a, {"t": "join", "room": room})
    back = await house.call(a, {"t": "join", "room": room, "seq": joined["seq"] + 5})
    assert back["seq"] == joined["seq"] and "missed" not in back  # the view is the truth
    same = await house.call(a, {"t": "join", "room": room, "seq": joined["seq"]})
    assert same["missed"] == []


async def test_full_room_and_taken_seat(house):
    a = await house.player("Ada")
    room = (await house.call(a, {"t": "create", "game": "ishido"}))["room"]
    await house.call(a, {"t": "join", "room": room})
    b = await house.player("Bob")
    assert (await house.call(b, {"t": "join", "room": room}))["code"] == "room_full"
    assert (await house.call(b, {"t": "join", "room": room, "seat": 0}))["code"] == "seat_taken"
    assert (await house.call(b, {"t": "join", "room": room, "seat": 3}))["code"] == "bad_seat"
    assert (await house.call(b, {"t": "join", "room": "nowhere"}))["code"] == "unknown_room"


async def test_chat_is_cleaned_and_reaches_the_room(house):
    a = await house.player("Ada")
    room = (await house.call(a, {"t": "create", "game": "ishido"}))["room"]
    await house.call(a, {"t": "join", "room": room})
    b = await house.player("Bob")
    await house.call(b, {"t": "watch", "room": room})
    await house.send(a, {"t": "chat", "room": room, "text": "hi\x1b[31m there\n"})
    assert b.of("chat") == [{"t": "chat", "room": room, "from": "Ada", "text": "hi[31m there"}]
    c = await house.player("Cy")
    assert (await house.call(c, {"t": "chat", "room": room, "text": "x"}))["code"] == "not_in_room"


async def test_leave_and_not_in_room(house):
    a = await house.player("Ada")
    room = (await house.call(a, {"t": "create", "game": "ishido"}))["room"]
    await house.call(a, {"t": "join", "room": room})
    left = await house.call(a, {"t": "leave", "room": room})
    assert left == {"t": "left", "room": room, "re": left["re"]}
    assert (await house.call(a, {"t": "leave", "room": room}))["code"] == "not_in_room"
    err = await house.call(a, {"t": "act", "room": room, "action": {"do": "help"}})
    assert err["code"] == "not_in_room"
    # the player kept the seat and comes back to it
    assert (await house.call(a, {"t": "join", "room": room}))["seat"] == 0


async def test_scores_of_unknown_game_and_table(house):
    a = await house.player("Ada")
    assert (await house.call(a, {"t": "scores", "game": "golf"}))["code"] == "unknown_game"
    empty = await house.call(a, {"t": "scores", "game": "ishido"})
    assert empty["entries"] == [] and empty["mine"] == []
    # every table the game defines is listed before anyone entered it, its default first
    assert empty["table"] == "modern/touching"
    assert sorted(empty["tables"]) == sorted(
        f"{s}/{f}" for s in ("modern", "ancient") for f in ("touching", "original")
    )
    fresh = await house.call(a, {"t": "scores", "game": "mathable", "table": "2 players"})
    assert fresh["table"] == "2 players" and fresh["entries"] == []
    err = await house.call(a, {"t": "scores", "game": "ishido", "table": "nope"})
    assert err["code"] == "unknown_table"


async def test_chat_with_an_id_is_answered_by_the_senders_own_copy(house):
    a = await house.player("Ada")
    room = (await house.call(a, {"t": "create", "game": "ishido"}))["room"]
    await house.call(a, {"t": "join", "room": room})
    said = await house.call(a, {"t": "chat", "room": room, "text": "hello"})
    assert said == {"t": "chat", "room": room, "from": "Ada", "text": "hello", "re": said["re"]}


async def test_bot_programs_scores_stand_apart_from_peoples(house):
    people, bots = await house.player("Ada"), MemoryMember()
    welcome = await house.call(bots, {"t": "hello", "v": 1, "name": "robo-1", "bot": True})
    assert welcome["t"] == "welcome"
    for member in (people, bots):
        room = (await house.call(member, {"t": "create", "game": "matchit"}))["room"]
        await house.call(member, {"t": "join", "room": room})
        over = await house.call(member, {"t": "act", "room": room, "action": {"do": "quit"}})
        assert over["view"]["status"] == "over"
    top = await house.call(people, {"t": "scores", "game": "matchit"})
    assert [e["name"] for e in top["entries"]] == ["Ada"] and top["bots"] is False
    mine = await house.call(bots, {"t": "scores", "game": "matchit", "bots": True})
    assert [e["name"] for e in mine["entries"]] == ["robo-1"] and mine["bots"] is True
