"""Rooms: authority, journal-before-broadcast, bots, hidden information, resuming."""

from __future__ import annotations

import asyncio

import msgpack
import pytest

from protocol import encode
from tests.helpers import Raw


def journal_rows(server, room):
    return server.store.db.execute(
        "SELECT seq, seat, action, at FROM journal WHERE room = ? ORDER BY seq", (room,)
    ).fetchall()


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


async def test_spectators_and_strangers_cannot_act(url, server):
    _a, room, joined = await ishido_room(url)
    b = await Raw.open(url, "Bob")
    at = joined["view"]["legal"][0]
    act = {"t": "act", "room": room, "action": {"do": "place", "at": at}}
    assert (await b.call(act))["code"] == "not_in_room"
    await b.call({"t": "watch", "room": room})
    assert (await b.call(act))["code"] == "spectator"
    assert len(journal_rows(server, room)) == 1


async def test_acting_on_a_seat_you_do_not_hold(url, server):
    a = await Raw.open(url, "Ada")
    b = await Raw.open(url, "Bob")
    room = (await a.call({"t": "create", "game": "mathable", "seats": ["Ada", "Bob"]}))["room"]
    ja = await a.call({"t": "join", "room": room})
    assert ja["view"]["status"] == "waiting"
    assert (await b.call({"t": "join", "room": room, "seat": 0}))["code"] == "seat_taken"
    jb = await b.call({"t": "join", "room": room})
    assert (ja["seat"], jb["seat"]) == (0, 1)
    view = server.lobby.rooms[room].view(None)
    idle = b if view["to_move"] == 0 else a
    before = journal_rows(server, room)
    err = await idle.call({"t": "act", "room": room, "action": {"do": "end"}})
    assert err["code"] == "not_your_turn"
    assert journal_rows(server, room) == before
    assert server.lobby.rooms[room].view(None) == view


async def test_a_room_of_bots_plays_to_the_end_and_can_be_watched(url, server):
    a = await Raw.open(url, "Ada")
    created = await a.call(
        {"t": "create", "game": "mathable", "seats": ["COMP1:hard", "COMP2:easy", "COMP3"]}
    )
    room = created["room"]
    joined = await a.call({"t": "watch", "room": room})
    seq = joined["seq"]
    while True:
        msg = await a.recv(timeout=60)
        if msg["t"] != "update":
            continue
        assert msg["seq"] == seq + 1, "a spectator sees every update, in order"
        seq = msg["seq"]
        assert all(r is not None for r in msg["view"]["racks"])  # open racks by default
        if msg["view"]["status"] == "over":
            break
    result = msg["view"]["result"]
    assert len(result["scores"]) == 3
    assert len(journal_rows(server, room)) == seq
    for _ in range(100):  # the result is recorded right after the final broadcast
        status = server.store.db.execute("SELECT status FROM rooms WHERE id=?", (room,)).fetchone()
        if status == ("over",):
            break
        await asyncio.sleep(0.02)
    assert status == ("over",)
    # bots never enter the Hall of Fame
    assert server.store.db.execute("SELECT count(*) FROM scores").fetchone() == (0,)


async def test_a_room_of_bots_waits_while_nobody_watches(url, server):
    a = await Raw.open(url, "Ada")
    created = await a.call({"t": "create", "game": "mathable", "seats": ["COMP1", "COMP2"]})
    room = created["room"]
    await asyncio.sleep(0.3)  # bots move at once in these tests: they would have played
    assert len(journal_rows(server, room)) == 1, "only the start: nobody is watching"
    seq = (await a.call({"t": "watch", "room": room}))["seq"]
    while seq < 4:  # a spectator sets them going
        msg = await a.recv(timeout=30)
        if msg["t"] == "update":
            assert msg["seq"] == seq + 1
            seq = msg["seq"]
    await a.call({"t": "leave", "room": room})
    await asyncio.sleep(0.05)  # a move already thought out may still land
    stopped = len(journal_rows(server, room))
    await asyncio.sleep(0.3)
    assert len(journal_rows(server, room)) == stopped, "the last spectator left: they wait"
    assert server.lobby.rooms[room].status.value == "playing"
    b = await Raw.open(url, "Bea")
    again = (await b.call({"t": "watch", "room": room}))["seq"]
    msg = await b.recv(timeout=30)
    while msg["t"] != "update":
        msg = await b.recv(timeout=30)
    assert msg["seq"] == again + 1, "and go on where they stopped for the next one"


async def test_the_clock_of_a_room_of_bots_stops_while_nobody_watches(url, server):
    a = await Raw.open(url, "Ada")
    created = await a.call(
        {
            "t": "create",
            "game": "mathable",
            "options": {"turn_seconds": 1},
            "seats": ["COMP1", "COMP2"],
        }
    )
    room = created["room"]
    await asyncio.sleep(1.5)  # a running clock would have ended the first turn
    assert len(journal_rows(server, room)) == 1, "no moves and no time-outs"
    assert server.lobby.rooms[room]._timer is None


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


async def test_quit_votes_end_the_game_and_fill_the_hall_of_fame(url, server):
    a = await Raw.open(url, "Ada")
    b = await Raw.open(url, "Bob")
    room = (await a.call({"t": "create", "game": "mathable", "seats": [None, None]}))["room"]
    await a.call({"t": "join", "room": room})
    await b.call({"t": "join", "room": room})
    await a.call({"t": "act", "room": room, "action": {"do": "quit", "vote": True}})
    upd = await b.call({"t": "act", "room": room, "action": {"do": "quit", "vote": True}})
    assert upd["view"]["status"] == "over"
    table = await a.call({"t": "scores", "game": "mathable"})
    assert table["table"] == "2 players"
    assert sorted(e["name"] for e in table["entries"]) == ["Ada", "Bob"]
    assert [m["table"] for m in table["mine"]] == ["2 players"]


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


async def test_finished_rooms_leave_memory_but_keep_their_record(tmp_path):
    from server.app import Server
    from server.config import Config, Limits

    srv = Server(Config(port=0, data_dir=tmp_path, limits=Limits(bot_delay=0, finished_ttl=0.2)))
    await srv.start()
    try:
        a = await Raw.open(f"ws://127.0.0.1:{srv.port}", "Ada")
        room = (await a.call({"t": "create", "game": "mathable", "seats": ["Ada", "Bob"]}))["room"]
        await a.call({"t": "join", "room": room})
        b = await Raw.open(f"ws://127.0.0.1:{srv.port}", "Bob")
        await b.call({"t": "join", "room": room})
        await a.call({"t": "act", "room": room, "action": {"do": "quit", "vote": True}})
        upd = await b.call({"t": "act", "room": room, "action": {"do": "quit", "vote": True}})
        assert upd["view"]["status"] == "over"
        assert room in srv.lobby.rooms  # late spectators can still see the end
        await asyncio.sleep(0.5)
        assert room not in srv.lobby.rooms
        assert (await srv.store.room(room)).status == "over"
        assert len(await srv.store.journal(room)) == upd["seq"]
    finally:
        await srv.stop()


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
