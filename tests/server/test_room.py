"""Rooms end to end: journal-before-broadcast, bad input, hidden information, resuming.

What these prove needs the real server: frames on a real socket, a real
disconnect. The room's own logic (seats, bots, clocks, the end of a game) is
tested in memory, without sockets or sleeps, in test_room_logic.py.
"""

from __future__ import annotations

import asyncio
import contextlib

import msgpack
import pytest
from tilehall.protocol import encode

from tests.helpers import Raw
from tests.server.store.test_store import sqlite_file


def journal_rows(server, room):
    with contextlib.closing(sqlite_file(server.config.db_url)) as db:
        sql = "SELECT seq, seat, action, at FROM journal WHERE room = ? ORDER BY seq"
        return db.execute(sql, (room,)).fetchall()


async def ishido_room(url):
    a = await Raw.open(url, "Ada")
    room = (await a.call({"t": "create", "game": "ishido"}))["room"]
    joined = await a.call({"t": "join", "room": room})
    return a, room, joined


async def test_every_accepted_move_is_journaled_before_its_update(url, server):
    a, room, joined = await ishido_room(url)
    seen = []
    for _ in range(3):
        at = joined["view"]["legal"][0] if not seen else seen[-1]["view"]["legal"][0]
        update = await a.call({"t": "act", "room": room, "action": {"do": "place", "at": at}})
        # by the time the update arrived the journal already held its entry
        rows = journal_rows(server, room)
        assert rows[-1][0] == update["seq"]
        assert msgpack.unpackb(rows[-1][2]) == {"do": "place", "at": at}
        seen.append(update)
    assert [u["seq"] for u in seen] == [2, 3, 4]  # seq 1 is the start


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (b"\xc1\xc1", "malformed_frame"),
        ({"t": "act", "room": "ROOM", "action": {"do": "place", "at": [0, 0]}}, "occupied"),
        ({"t": "act", "room": "ROOM", "action": {"do": "place", "at": [2, 2]}}, "no_neighbour"),
        ({"t": "act", "room": "ROOM", "action": {"do": "place", "at": [9, 9]}}, "bad_cell"),
        ({"t": "act", "room": "ROOM", "action": {"do": "place"}}, "missing_field"),
        ({"t": "act", "room": "ROOM", "action": {"do": "fly"}}, "unknown_action"),
        ({"t": "act", "room": "ROOM", "action": {"do": "_tick"}}, "out_of_range"),
        ({"t": "act", "room": "ROOM", "action": {"do": "help"}, "seq": 0}, "stale"),
        ({"t": "act", "room": "elsewhere", "action": {"do": "help"}}, "unknown_room"),
        ({"t": "act", "room": "ROOM", "action": "help"}, "wrong_type"),
        ({"t": "join", "room": "ROOM", "seat": 1}, "seat_taken"),
    ],
)
async def test_bad_input_gets_its_code_and_changes_nothing(url, server, frame, code):
    a, room, joined = await ishido_room(url)
    before_rows = journal_rows(server, room)
    before_view = server.lobby.rooms[room].view(0)
    if isinstance(frame, dict):
        frame = encode({k: (room if v == "ROOM" else v) for k, v in frame.items()} | {"id": 7})
        reply = await a.call(frame)
    else:  # no usable id in garbage: the error comes without re
        await a.send(frame)
        while (reply := await a.recv())["t"] != "error":
            pass
    assert reply["t"] == "error"
    assert reply["code"] == code, reply
    assert reply["message"]
    assert journal_rows(server, room) == before_rows
    assert server.lobby.rooms[room].view(0) == before_view
    assert server.lobby.rooms[room].seq == joined["seq"]
    # the connection and the room survive: a good move still goes through
    at = joined["view"]["legal"][0]
    ok = await a.call({"t": "act", "room": room, "action": {"do": "place", "at": at}})
    assert ok["t"] == "update" and ok["seq"] == joined["seq"] + 1


@pytest.mark.slow
async def test_hidden_racks_never_reach_other_connections(url, server):
    a = await Raw.open(url, "Ada")
    spy = await Raw.open(url, "Spy")
    room = (
        await a.call(
            {
                "t": "create",
                "game": "mathable",
                "seats": ["Ada", "COMP"],
                "options": {"racks": "hidden"},
            }
        )
    )["room"]
    await spy.call({"t": "watch", "room": room})
    joined = await a.call({"t": "join", "room": room})
    mine = joined["view"]["racks"][0]
    assert mine is not None and joined["view"]["racks"][1] is None
    # let the bot take turns; collect every raw frame the spectator gets
    ada_view = joined["view"]
    frames = []
    for _ in range(6):
        if ada_view["to_move"] == 0:
            upd = await a.call({"t": "act", "room": room, "action": {"do": "end"}})
            ada_view = upd["view"]
        else:
            while (m := await a.recv(timeout=30))["t"] != "update":
                pass
            ada_view = m["view"]
        while True:
            try:
                data = await asyncio.wait_for(spy.ws.recv(), 0.5)
            except TimeoutError:
                break
            frames.append(msgpack.unpackb(data))
    updates = [f for f in frames if f["t"] == "update"]
    assert updates
    for f in updates:
        assert f["view"]["racks"] == [None, None]
        assert not any(e["e"] == "drew_tiles" for e in f["events"])
        assert not any("_to" in e for e in f["events"])


async def test_dropped_player_keeps_the_seat_and_catches_up(url, server):
    a, room, joined = await ishido_room(url)
    token = a.token
    b = await Raw.open(url, "Bob")
    await b.call({"t": "watch", "room": room})
    first = await a.call(
        {"t": "act", "room": room, "action": {"do": "place", "at": joined["view"]["legal"][0]}}
    )
    await a.close()
    for _ in range(100):  # the server notices the close on its own schedule
        summary = server.lobby.rooms[room].summary()
        if not summary["seats"][0]["connected"]:
            break
        await asyncio.sleep(0.02)
    assert summary["seats"][0]["name"] == "Ada" and not summary["seats"][0]["connected"]
    back = await Raw.open(url)
    welcome = await back.call({"t": "hello", "v": 1, "token": token})
    assert welcome["rooms"] == [room]
    again = await back.call({"t": "join", "room": room, "seq": joined["seq"]})
    assert again["seat"] == 0
    assert again["seq"] == first["seq"]
    assert again["view"] == first["view"]
    assert [m["seq"] for m in again["missed"]] == [first["seq"]]
    assert again["missed"][0]["events"] == first["events"]


async def test_public_events_with_a_to_field_reach_everyone(url):
    """Lines' moved event has a ``to`` cell; only ``_to`` marks a private event."""
    a = await Raw.open(url, "Ada")
    room = (await a.call({"t": "create", "game": "lines"}))["room"]
    spy = await Raw.open(url, "Spy")
    await spy.call({"t": "watch", "room": room})
    view = (await a.call({"t": "join", "room": room}))["view"]
    board = view["board"]
    chips = [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if v]
    empty = [(r, c) for r, row in enumerate(board) for c, v in enumerate(row) if not v]
    for src in chips:
        for dst in empty:
            upd = await a.call(
                {"t": "act", "room": room, "action": {"do": "move", "from": src, "to": dst}}
            )
            if upd["t"] == "update":
                break
        else:
            continue
        break
    moved = [e for e in upd["events"] if e["e"] == "moved"]
    assert moved and moved[0]["to"] == list(dst) and moved[0]["path"][-1] == list(dst)
    while (m := await spy.recv())["t"] != "update" or m["seq"] != upd["seq"]:
        pass
    assert [e for e in m["events"] if e["e"] == "moved"] == moved


@pytest.mark.parametrize(
    ("action", "code"),
    [
        ({"do": "help", "junk": "x"}, "bad_field"),
        ({"do": "help", "junk": "x" * 64_000}, "action_too_large"),
        ({"do": "place", "at": [0, 1], "note": {"a": [1, 2, 3]}}, "bad_field"),
    ],
)
async def test_fields_an_action_does_not_declare_are_refused_and_never_journaled(
    url, server, action, code
):
    a, room, joined = await ishido_room(url)
    before = journal_rows(server, room)
    reply = await a.call({"t": "act", "room": room, "action": action})
    assert reply["code"] == code, reply
    assert journal_rows(server, room) == before
    # the declared form goes in, as the schema reads it
    at = joined["view"]["legal"][0]
    ok = await a.call({"t": "act", "room": room, "action": {"do": "place", "at": tuple(at)}})
    assert ok["t"] == "update"
    assert msgpack.unpackb(journal_rows(server, room)[-1][2]) == {"do": "place", "at": at}


@pytest.mark.slow
async def test_junk_actions_do_not_grow_the_data_directory(tmp_path):
    from tests.helpers import ServerProcess

    proc = ServerProcess(tmp_path, "--rate", "1000", "--burst", "1000")
    url = proc.start()
    try:
        a, room, _ = await ishido_room(url)

        def size() -> int:
            return sum(f.stat().st_size for f in tmp_path.iterdir() if f.is_file())

        before = size()
        junk = {"t": "act", "room": room, "action": {"do": "help", "junk": "y" * 60_000}}
        small = {"t": "act", "room": room, "action": {"do": "help", "junk": "y" * 900}}
        for i in range(500):
            reply = await a.call(junk if i % 2 else small, rid=i)
            assert reply["t"] == "error", reply
        grew = size() - before
        assert grew < 1_000_000, grew
    finally:
        proc.stop()
