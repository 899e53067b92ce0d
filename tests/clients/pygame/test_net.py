"""The network thread against a real server: replies, refusals and pushes reach the inbox."""

from __future__ import annotations

import asyncio
import queue
import time
from typing import Any

from tilehall.clients.pygame.net import Net
from tilehall.protocol import patch


async def take(net: Net, t: str, timeout: float = 5.0) -> dict[str, Any]:
    """The next inbox message of type ``t``, letting the test's loop serve the server."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            msg = net.inbox.get_nowait()
        except queue.Empty:
            await asyncio.sleep(0.01)
            continue
        if msg["t"] == t:
            return msg
    raise AssertionError(f"no {t} in the inbox")


async def stop(net: Net) -> None:
    net.stop(0)
    while net.alive:
        await asyncio.sleep(0.01)


async def test_welcome_reply_push_and_refusal_arrive_in_the_inbox(url):
    net = Net(url, name="ada", token=None)
    net.start()
    try:
        welcome = await take(net, "welcome")
        assert welcome["player"] == "ada" and welcome["token"]
        net.request({"t": "create", "game": "ishido"})
        created = await take(net, "created")
        room = created["room"]
        assert created["_tag"] == "create"  # a reply says which request it answers
        net.request({"t": "leaderboard", "game": "mathable", "limit": 1}, tag="rating")
        assert (await take(net, "leaderboard"))["_tag"] == "rating"
        net.join(room)
        joined = await take(net, "joined")
        assert joined["view"]["status"] == "playing"
        net.act(room, {"do": "place", "at": joined["view"]["legal"][0]})
        update = await take(net, "update")
        assert update["seq"] == joined["seq"] + 1
        view = patch.apply(joined["view"], update["patch"])  # the window asks for compact updates
        assert view["placed"] == 1
        net.act(room, {"do": "place", "at": [0, 0]})
        error = await take(net, "_error")
        assert (error["tag"], error["code"]) == ("act", "occupied")
    finally:
        await stop(net)
    assert (await take(net, "_closed"))["t"] == "_closed"


async def test_a_returning_player_comes_back_by_token(url):
    first = Net(url, name="bea", token=None)
    first.start()
    token = (await take(first, "welcome"))["token"]
    await stop(first)
    again = Net(url, name=None, token=token)
    again.start()
    try:
        assert (await take(again, "welcome"))["player"] == "bea"
    finally:
        await stop(again)


async def test_an_unreachable_server_is_reported_and_retried():
    net = Net("ws://127.0.0.1:9", name="ada", token=None, retry=0.05)
    net.start()
    try:
        first = await take(net, "_offline")
        assert "cannot reach" in first["message"]
        await take(net, "_offline")  # it keeps trying
        net.request({"t": "rooms"})
        assert (await take(net, "_error"))["code"] == "offline"
    finally:
        await stop(net)
