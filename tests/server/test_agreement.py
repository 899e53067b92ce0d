"""What the protocol pages promise, asked of a real server (issue 30: docs and server agree).

An outside client, written from protocol/PROTOCOL.md and the game pages alone,
found places where the server answered otherwise. Each test here is one of them,
written as that client would: real frames on a real socket, asserting the
documented answer (the pages were changed where the server was the better choice).
"""

from __future__ import annotations

import asyncio

import pytest

from tests.helpers import Raw


async def ishido(url: str, name: str = "Ada") -> tuple[Raw, str, dict]:
    a = await Raw.open(url, name)
    room = (await a.call({"t": "create", "game": "ishido"}))["room"]
    return a, room, await a.call({"t": "join", "room": room})


async def test_every_table_is_listed_before_any_game_entered_it(url):
    """Game pages: ``scores.tables`` lists every table, an empty one too (point 1)."""
    a = await Raw.open(url, "Ada")
    reply = await a.call({"t": "scores", "game": "ishido"})
    assert reply["t"] == "scores" and reply["entries"] == []
    assert reply["tables"] == [
        "modern/touching",
        "modern/original",
        "ancient/touching",
        "ancient/original",
    ]
    for table in reply["tables"]:
        empty = await a.call({"t": "scores", "game": "ishido", "table": table})
        assert empty["t"] == "scores" and empty["table"] == table and empty["entries"] == []
    wrong = await a.call({"t": "scores", "game": "ishido", "table": "no such table"})
    assert wrong["code"] == "unknown_table"


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({}, "out_of_range"),  # point 2: an empty map, as any empty field
        ("place", "wrong_type"),  # point 3: not a map, as any field of the wrong type
        ([["place"]], "wrong_type"),
        ({"at": [0, 1]}, "missing_field"),  # no do
        ({"do": "fly"}, "unknown_action"),
        ({"do": "place", "at": None}, "missing_field"),  # point 12: null is left out
        ({"do": "place", "at": [[[[[[[[[0]]]]]]]], 1]}, "out_of_range"),  # point 4: 9 levels
    ],
)
async def test_the_action_map_is_checked_as_the_pages_say(url, action, code):
    a, room, joined = await ishido(url)
    err = await a.call({"t": "act", "room": room, "action": action})
    assert err["t"] == "error" and err["code"] == code, err
    # nothing was done: the room is where it was and takes a good action
    at = joined["view"]["legal"][0]
    update = await a.call({"t": "act", "room": room, "action": {"do": "place", "at": at}})
    assert update["t"] == "update" and update["seq"] == joined["seq"] + 1


async def test_nesting_has_one_bound_for_every_field_read_or_not(url):
    """Issue 42: one bound, 8 levels, for every field, whether the server reads it or not,
    answered ``out_of_range`` with ``re`` (issue 30's point 4 had unread fields ignored at any
    depth, and from about 1,024 levels they were ``malformed_frame`` without ``re``)."""
    deep: object = 0
    for _ in range(20):
        deep = [deep]
    a = await Raw.open(url)
    err = await a.call({"t": "hello", "v": 1, "name": "Ada", "later": deep}, rid=3)
    assert (err["code"], err["re"]) == ("out_of_range", 3), err
    thousands = b"\x91" * 5000 + b"\x00"
    frame = b"\x84\xa1t\xa5hello\xa1v\x01\xa5later" + thousands + b"\xa2id\x04"
    await a.send(frame)
    err = await a.recv()
    assert (err["code"], err.get("re")) == ("out_of_range", 4), err
    assert (await a.call({"t": "hello", "v": 1, "name": "Ada"}))["t"] == "welcome"
    err = await a.call({"t": "create", "game": "ishido", "options": {"x": deep}})
    assert err["code"] == "out_of_range"
    eight: object = 0
    for _ in range(7):  # the options map itself is the eighth level
        eight = [eight]
    err = await a.call({"t": "create", "game": "ishido", "options": {"x": eight}})
    assert err["code"] == "bad_option"  # read: an unknown option, not a nesting too deep
    assert (await a.call({"t": "ping", "later": eight}))["t"] == "pong"


@pytest.mark.parametrize(
    ("hello", "code"),
    [
        ({"name": ""}, "bad_name"),  # point 5
        ({"name": "a" * 25}, "bad_name"),
        ({"name": "   "}, "bad_name"),
        ({"name": "Ada", "token": "x"}, "missing_field"),
        ({}, "missing_field"),
        ({"name": 7}, "wrong_type"),
        ({"name": "Ada", "v": "1"}, "wrong_type"),
        ({"name": "Ada", "v": 2**17}, "unsupported_version"),
        ({"token": "x" * 129}, "out_of_range"),
    ],
)
async def test_hello_refusals_are_the_listed_ones(url, hello, code):
    a = await Raw.open(url)
    err = await a.call({"t": "hello", "v": 1, **hello})
    assert err["t"] == "error" and err["code"] == code, err
    assert (await a.call({"t": "hello", "v": 1, "name": "a" * 24}))["t"] == "welcome"


async def test_a_well_formed_leaderboard_cursor_is_a_position(url):
    """Point 6: the page's own example cursor is read as a position; junk is ``bad_cursor``."""
    a = await Raw.open(url, "Ada")
    example = "WzE2NDIuNSwiYWRhIl0"  # PROTOCOL.md's: [1642.5, "ada"], given by no reply here
    page = await a.call({"t": "leaderboard", "game": "mathable", "cursor": example})
    assert page["t"] == "leaderboard" and page["entries"] == [] and page["next"] is None
    for junk in ("not a cursor", "WzE2NDIuNV0", "e30"):  # not base64 JSON; [1642.5]; {}
        err = await a.call({"t": "leaderboard", "game": "mathable", "cursor": junk})
        assert err["code"] == "bad_cursor", (junk, err)


async def test_views_taken_at_different_times_differ_in_now_and_time_left(url):
    """Point 7: §Compact updates names both clock fields."""
    a = await Raw.open(url, "Ada")
    room = (await a.call({"t": "create", "game": "matchit"}))["room"]
    first = await a.call({"t": "join", "room": room})
    await asyncio.sleep(0.05)
    second = await a.call({"t": "join", "room": room})
    assert first["seq"] == second["seq"]
    differ = {k for k in first["view"] if first["view"][k] != second["view"][k]}
    assert differ == {"now", "time_left"}


async def test_compact_is_chosen_at_each_join_and_hellos_without_it(url):
    """Point 8: ``join.compact`` holds for that room until the next ``join``/``watch``; one
    without it takes ``hello``'s again (a compact ``joined`` carries ``derived``)."""
    a, room, joined = await ishido(url)
    assert "derived" not in joined
    joined = await a.call({"t": "join", "room": room, "compact": True})
    assert "derived" in joined
    at = joined["view"]["legal"][0]
    update = await a.call({"t": "act", "room": room, "action": {"do": "place", "at": at}})
    assert "patch" in update and "view" not in update
    joined = await a.call({"t": "join", "room": room})
    assert "derived" not in joined  # hello's again
    at = joined["view"]["legal"][0]
    update = await a.call({"t": "act", "room": room, "action": {"do": "place", "at": at}})
    assert "view" in update and "patch" not in update


async def test_before_hello_a_frame_is_read_first_then_refused_hello_first(url):
    """Point 9: an unknown ``t`` is ``unknown_type`` whenever it comes; a known request
    other than ``hello`` and ``ping`` before ``welcome`` is ``hello_first``."""
    a = await Raw.open(url)
    assert (await a.call({"t": "teleport"}))["code"] == "unknown_type"
    assert (await a.call({"t": "rooms"}))["code"] == "hello_first"
    assert (await a.call({"t": "leave", "room": "r1"}))["code"] == "hello_first"
    assert (await a.call({"t": "ping"}))["t"] == "pong"
    assert (await a.call({"t": "hello", "v": 1, "name": "Ada"}))["t"] == "welcome"


@pytest.mark.parametrize("t", ["leave", "chat", "act", "join", "watch"])
async def test_a_room_that_does_not_exist_is_unknown_room_for_every_request(url, t):
    """Point 10: ``unknown_room`` for no such room; ``not_in_room`` for a room you are not in."""
    _, room, _ = await ishido(url)
    b = await Raw.open(url, "Bob")
    extra = {"chat": {"text": "hi"}, "act": {"action": {"do": "help"}}}.get(t, {})
    err = await b.call({"t": t, "room": "r-nowhere", **extra})
    assert err["code"] == "unknown_room", err
    if t in ("leave", "chat", "act"):
        err = await b.call({"t": t, "room": room, **extra})
        assert err["code"] == "not_in_room", err


async def test_replay_of_a_room_not_over_is_not_over_even_waiting(url):
    """Point 11: ``not_over`` for any room not over, a waiting one too."""
    a = await Raw.open(url, "Ada")
    room = (await a.call({"t": "create", "game": "mathable"}))["room"]
    assert (await a.call({"t": "join", "room": room}))["view"]["status"] == "waiting"
    err = await a.call({"t": "replay", "room": room, "seq": 1})
    assert err["code"] == "not_over", err


async def test_ishido_takes_undo_and_quit(url):
    """Point 13: the page's ``unknown_action`` row names every action the game has."""
    a, room, joined = await ishido(url)
    at = joined["view"]["legal"][0]
    await a.call({"t": "act", "room": room, "action": {"do": "place", "at": at}})
    undone = await a.call({"t": "act", "room": room, "action": {"do": "undo"}})
    assert undone["t"] == "update" and undone["view"]["undos"] == 1
    over = await a.call({"t": "act", "room": room, "action": {"do": "quit"}})
    assert over["t"] == "update" and over["view"]["status"] == "over"


@pytest.mark.slow
async def test_a_mathable_time_out_with_nothing_placed_draws_nothing(url):
    """Point 14: a full rack draws no tile, so the time-out brings no ``drew``."""
    a = await Raw.open(url, "Ada")
    b = await Raw.open(url, "Bob")
    options = {"turn_seconds": 1}
    room = (await a.call({"t": "create", "game": "mathable", "options": options}))["room"]
    await a.call({"t": "join", "room": room})
    started = await b.call({"t": "join", "room": room})
    assert started["seq"] == 1
    while True:
        update = await b.recv(timeout=10)
        if update["t"] == "update" and update["seq"] == 2:
            break
    assert "re" not in update
    names = [e["e"] for e in update["events"]]
    assert names[:2] == ["timeout", "turn_ended"] and "drew" not in names, names


async def test_the_join_that_starts_a_game_is_answered_at_seq_1_without_an_update(url):
    """Point 15: the others get the update with ``started``; the joiner's ``joined`` is
    already seq 1 with the first view, and no update of seq 1 follows for it."""
    a = await Raw.open(url, "Ada")
    b = await Raw.open(url, "Bob")
    room = (await a.call({"t": "create", "game": "mathable"}))["room"]
    waiting = await a.call({"t": "join", "room": room})
    assert waiting["seq"] == 0 and waiting["view"]["status"] == "waiting"
    joined = await b.call({"t": "join", "room": room})
    assert joined["seq"] == 1 and joined["view"]["status"] == "playing"
    while True:
        update = await a.recv()
        if update["t"] == "update":
            break
    assert update["seq"] == 1 and {"e": "started"} in update["events"]
    await b.call({"t": "ping"})  # anything sent before the pong has arrived
    assert [f for f in b.pushed if f["t"] == "update"] == []
