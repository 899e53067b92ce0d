"""Nothing is lost: SIGKILL the real server mid-game, restart it, resume the seat."""

from __future__ import annotations

import asyncio
import signal

import pytest
from websockets.exceptions import ConnectionClosed

from tests.helpers import Raw, ServerProcess


@pytest.fixture
def proc(tmp_path):
    p = ServerProcess(tmp_path)
    yield p
    p.stop()


@pytest.mark.slow  # server processes killed and restarted
async def test_sigkill_and_restart_brings_rooms_back_exactly(proc):
    proc.start()
    a = await Raw.open(proc.url, "Ada")
    token = a.token
    room = (await a.call({"t": "create", "game": "ishido"}))["room"]
    view = (await a.call({"t": "join", "room": room}))["view"]
    # a second, multi-seat room with a bot, mid-game
    m = (await a.call({"t": "create", "game": "mathable", "seats": ["Ada", "COMP:easy"]}))["room"]
    await a.call({"t": "join", "room": m})
    last = None
    for _ in range(8):
        last = await a.call(
            {"t": "act", "room": room, "action": {"do": "place", "at": view["legal"][0]}}
        )
        view = last["view"]
        if view["status"] == "over":
            break
    proc.kill()  # no goodbye, no flush
    with pytest.raises((ConnectionClosed, OSError, asyncio.TimeoutError)):
        await a.call({"t": "ping"})

    proc.start()
    b = await Raw.open(proc.url)
    welcome = await b.call({"t": "hello", "v": 1, "token": token})
    assert welcome["player"] == "Ada"
    assert sorted(welcome["rooms"]) == sorted([room, m])
    back = await b.call({"t": "join", "room": room, "seq": last["seq"]})
    assert back["seat"] == 0
    assert back["seq"] == last["seq"]  # no accepted move lost
    assert back["view"] == last["view"]  # the same view, exactly
    assert back["missed"] == []
    if view["status"] == "playing":
        nxt = await b.call(
            {"t": "act", "room": room, "action": {"do": "place", "at": view["legal"][0]}}
        )
        assert nxt["seq"] == last["seq"] + 1  # seq continues
    else:  # a deal can block within 8 stones: the game stays over, as it was
        assert back["view"]["status"] == "over" and not view["legal"]
    mj = await b.call({"t": "join", "room": m})
    assert mj["seat"] == 0 and mj["view"]["status"] == "playing"


@pytest.mark.slow  # server processes killed and restarted
async def test_sigterm_closes_connections_with_1001_and_keeps_everything(proc):
    proc.start()
    a = await Raw.open(proc.url, "Ada")
    room = (await a.call({"t": "create", "game": "ishido"}))["room"]
    view = (await a.call({"t": "join", "room": room}))["view"]
    upd = await a.call(
        {"t": "act", "room": room, "action": {"do": "place", "at": view["legal"][0]}}
    )
    proc.proc.send_signal(signal.SIGTERM)
    with pytest.raises(ConnectionClosed) as info:
        while True:
            await a.recv(timeout=10)
    assert info.value.rcvd is not None and info.value.rcvd.code == 1001
    assert proc.proc.wait(20) == 0
    proc.start()
    b = await Raw.open(proc.url)
    await b.call({"t": "hello", "v": 1, "token": a.token})
    assert (await b.call({"t": "join", "room": room}))["view"] == upd["view"]


@pytest.mark.slow  # server processes killed and restarted
async def test_an_undo_is_journaled_like_a_move_and_survives_sigkill(proc):
    proc.start()
    a = await Raw.open(proc.url, "Ada")
    room = (await a.call({"t": "create", "game": "lines"}))["room"]
    joined = await a.call({"t": "join", "room": room})
    board = joined["view"]["board"]
    size = len(board)
    chips = [(r, c) for r in range(size) for c in range(size) if board[r][c]]
    empty = [(r, c) for r in range(size) for c in range(size) if not board[r][c]]
    moved = None
    for src in chips:  # the first chip that can reach some empty square
        for dst in empty:
            reply = await a.call(
                {"t": "act", "room": room, "action": {"do": "move", "from": src, "to": dst}}
            )
            if reply["t"] == "update":
                moved = reply
                break
        if moved:
            break
    assert moved is not None
    undone = await a.call({"t": "act", "room": room, "action": {"do": "undo"}})
    assert undone["events"][-1]["e"] == "undone"
    assert undone["view"]["board"] == board and undone["view"]["undos"] == 1
    assert undone["view"]["eligible"] is False, "an undone game stays off the record tables"
    refused = await a.call({"t": "act", "room": room, "action": {"do": "undo"}})
    assert refused["t"] == "error" and refused["code"] == "nothing_to_undo"
    proc.kill()
    proc.start()
    b = await Raw.open(proc.url)
    await b.call({"t": "hello", "v": 1, "token": a.token})
    back = await b.call({"t": "join", "room": room})
    assert back["seq"] == undone["seq"] and back["view"] == undone["view"]
