"""Limits: oversize frames, floods and clients that stop reading."""

from __future__ import annotations

import asyncio
import socket
import struct

import pytest
from tilehall.protocol import encode
from tilehall.server.app import Server
from tilehall.server.config import Config, Limits
from tilehall.server.net.session import Session
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests.helpers import Raw


async def start(tmp_path, trusted_proxies=(), **limits):
    srv = Server(
        Config(
            showcase=False,
            port=0,
            data_dir=tmp_path,
            trusted_proxies=trusted_proxies,
            limits=Limits(ping_interval=None, **limits),
        )
    )
    await srv.start()
    return srv, f"ws://127.0.0.1:{srv.port}"


async def flood_until_cut_off(raw: Raw) -> None:
    """Send pings faster than the bucket allows until the server closes with 1008."""
    with pytest.raises(ConnectionClosed) as info:
        for i in range(100):
            await raw.send({"t": "ping", "id": i})
        while True:
            await raw.recv()
    assert info.value.rcvd.code == 1008


async def test_a_frame_over_the_limit_closes_with_1009(tmp_path):
    srv, url = await start(tmp_path, max_frame=1024)
    try:
        a = await Raw.open(url, "Ada")
        await a.send({"t": "chat", "room": "r", "text": "x" * 2000})
        with pytest.raises(ConnectionClosed) as info:
            await a.recv()
        assert info.value.rcvd.code == 1009
        # the server itself is fine
        b = await Raw.open(url, "Bob")
        assert (await b.call({"t": "ping"}))["t"] == "pong"
    finally:
        await srv.stop()


@pytest.mark.slow
async def test_flooding_is_rate_limited_then_disconnected(tmp_path):
    srv, url = await start(tmp_path, rate=5, burst=10, max_strikes=30, flood_ban=3)
    try:
        bystander = await Raw.open(url, "Bea")  # same address, connected before the flood
        a = await Raw.open(url, "Ada")  # the hello took one token
        for i in range(20):
            await a.send({"t": "ping", "id": i})
        replies = [await a.recv() for _ in range(20)]
        pongs = [r for r in replies if r["t"] == "pong"]
        limited = [r for r in replies if r["t"] == "error"]
        # nine within budget (and one more per 0.2 s since); of those sent further ahead
        # than the backlog allows, refused; the last few, within the backlog, paced
        assert 9 < len(pongs) < 20 - 4
        assert {r["code"] for r in limited} == {"rate_limited"} and len(pongs) + len(limited) == 20
        assert all(0 < r["retry_after"] <= 1 / 5 for r in limited)
        # each refusal says which request it refused
        assert sorted(r["re"] for r in replies) == list(range(20))
        await asyncio.sleep(0.5)  # the bucket refills: the connection is still usable
        assert (await a.call({"t": "ping"}))["t"] == "pong"
        await flood_until_cut_off(a)
        # its address may not come straight back: refused at the handshake, told when
        with pytest.raises(InvalidStatus) as refused:
            await Raw.open(url, "Ada")
        assert refused.value.response.status_code == 429
        assert 1 <= int(refused.value.response.headers["Retry-After"]) <= 3
        assert srv.lobby.metrics.refused["flood_ban"] == 1
        # a connection already open from that address is not touched
        assert (await bystander.call({"t": "ping"}))["t"] == "pong"
        await asyncio.sleep(float(refused.value.response.headers["Retry-After"]))
        b = await Raw.open(url, "Bob")
        assert (await b.call({"t": "ping"}))["t"] == "pong"
    finally:
        await srv.stop()


@pytest.mark.slow
async def test_a_flooder_cut_off_is_read_no_further(tmp_path, monkeypatch):
    """After the 1008 the server reads nothing more: the flood backs up in TCP."""
    closes = []
    close = Session.close

    def spy(self, code, reason, **kwargs):
        closes.append((code, kwargs))
        close(self, code, reason, **kwargs)

    monkeypatch.setattr(Session, "close", spy)
    srv, url = await start(tmp_path, rate=5, burst=10, max_strikes=30, flood_ban=0)
    try:
        a = await Raw.open(url, "Ada")
        frame = encode({"t": "ping"})
        sent = 0
        with pytest.raises(ConnectionClosed) as info:
            while sent < 200_000:
                await a.ws.send(frame)
                sent += 1
                if sent % 100 == 0:
                    await asyncio.sleep(0)
        # The server closed with 1008 and drops the connection 1 s later, answered or
        # not: a flooder busy sending on a loaded machine may not have read the close
        # frame by then, and the drop (a reset) throws away what it had not read.
        assert closes == [(1008, {"abort_after": 1.0})]
        assert info.value.rcvd is None or info.value.rcvd.code == 1008
        refused = srv.lobby.metrics.errors["rate_limited"]
        # it was cut off after max_strikes refusals, and no frame was parsed after that
        assert refused == 31
        await asyncio.sleep(0.3)
        assert srv.lobby.metrics.errors["rate_limited"] == refused
        # flood_ban 0: the address may come straight back
        b = await Raw.open(url, "Bob")
        assert (await b.call({"t": "ping"}))["t"] == "pong"
    finally:
        await srv.stop()


async def test_a_client_that_never_reads_is_cut_off(tmp_path):
    srv, _url = await start(tmp_path, send_queue=8, rate=1e6, burst=10**6, close_timeout=0.5)
    try:
        host, port = "127.0.0.1", srv.port
        # a hand-made client with a tiny receive buffer that never reads
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect((host, port))
        s.sendall(
            b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        await asyncio.sleep(0.2)

        def frame(payload: bytes) -> bytes:
            mask = b"\x00\x00\x00\x00"
            n = len(payload)
            head = b"\x82" + (bytes([0x80 | n]) if n < 126 else b"\xfe" + struct.pack("!H", n))
            return head + mask + payload

        s.sendall(frame(encode({"t": "hello", "v": 1, "name": "Slow"})))
        # ask for big replies over and over and never read them
        for _ in range(2000):
            try:
                s.sendall(frame(encode({"t": "rooms"})) * 1)
            except OSError:
                break
        for _ in range(300):  # generous: the machine may be busy; the bound is what matters
            if not srv.sessions:
                break
            await asyncio.sleep(0.05)
        assert not srv.sessions, "the slow reader must be disconnected"
        s.close()
    finally:
        await srv.stop()


async def test_connections_per_address_are_capped(tmp_path):
    srv, url = await start(tmp_path, max_connections_per_ip=2)
    try:
        a = await Raw.open(url, "A")
        b = await Raw.open(url, "B")
        c = await Raw.open(url)
        with pytest.raises(ConnectionClosed) as info:
            await c.call({"t": "ping"})
        assert info.value.rcvd.code == 1008
        await a.close()
        await asyncio.sleep(0.1)
        d = await Raw.open(url)
        assert (await d.call({"t": "ping"}))["t"] == "pong"
        assert (await b.call({"t": "ping"}))["t"] == "pong"
    finally:
        await srv.stop()


@pytest.mark.slow  # seconds of waiting for the bucket to refill
async def test_a_new_connection_earns_its_burst(tmp_path):
    """It starts with --initial-burst and grows to --burst: a flooder that comes back
    starts small, a connection that stays may burst fully (pacing off, to count)."""
    srv, url = await start(
        tmp_path, rate=5, burst=100, initial_burst=10, max_strikes=1000, pace_backlog=0
    )
    try:
        a = await Raw.open(url, "Ada")  # the hello took one token of the first ten

        async def burst(n: int) -> int:
            for i in range(n):
                await a.send({"t": "ping", "id": i})
            replies = [await a.recv() for _ in range(n)]
            return sum(r["t"] == "pong" for r in replies)

        assert await burst(30) in (9, 10)
        await asyncio.sleep(6)  # 30 tokens at 5/s: three times the first allowance
        assert 29 <= await burst(60) <= 31
    finally:
        await srv.stop()


def forwarded(ip: str) -> dict[str, str]:
    return {"X-Forwarded-For": f"{ip}, 127.0.0.1"}  # the client, then an inner proxy


@pytest.mark.slow
async def test_behind_a_trusted_proxy_the_limits_count_players(tmp_path):
    srv, url = await start(
        tmp_path,
        trusted_proxies=("127.0.0.1/32",),
        rate=5,
        burst=10,
        max_strikes=30,
        flood_ban=30,
        max_connections_per_ip=2,
    )
    try:
        flooder = await Raw.open(url, "Fox", forwarded("203.0.113.7"))
        await flood_until_cut_off(flooder)
        # that player's address is banned, no one else's behind the same proxy
        with pytest.raises(InvalidStatus) as refused:
            await Raw.open(url, "Fox", forwarded("203.0.113.7"))
        assert refused.value.response.status_code == 429
        others = [await Raw.open(url, f"P{i}", forwarded("203.0.113.8")) for i in range(2)]
        assert [(await o.call({"t": "ping"}))["t"] for o in others] == ["pong", "pong"]
        assert srv.banned.keys() == {"203.0.113.7"}
        # the per-address cap counts 203.0.113.8 twice, not the proxy
        third = await Raw.open(url, None, forwarded("203.0.113.8"))
        with pytest.raises(ConnectionClosed) as info:
            await third.call({"t": "ping"})
        assert info.value.rcvd.code == 1008
        direct = await Raw.open(url, "Dee")  # the proxy's own address is not banned
        assert (await direct.call({"t": "ping"}))["t"] == "pong"
    finally:
        await srv.stop()


@pytest.mark.slow
async def test_without_a_trusted_proxy_x_forwarded_for_is_ignored(tmp_path):
    srv, url = await start(tmp_path, rate=5, burst=10, max_strikes=30, flood_ban=30)
    try:
        flooder = await Raw.open(url, "Fox", forwarded("203.0.113.7"))
        await flood_until_cut_off(flooder)
        assert srv.banned.keys() == {"127.0.0.1"}
        # a forged header does not get the flooder past its ban
        with pytest.raises(InvalidStatus) as refused:
            await Raw.open(url, "Fox", forwarded("198.51.100.1"))
        assert refused.value.response.status_code == 429
    finally:
        await srv.stop()


@pytest.mark.slow
async def test_a_bot_that_waits_for_its_answers_is_paced_never_refused(tmp_path):
    """Faster than its budget, one request at a time: slowed down, never refused."""
    srv, url = await start(tmp_path, rate=20, burst=5, initial_burst=5, max_strikes=0)
    try:
        a = await Raw.open(url, "Ada")
        room = (await a.call({"t": "create", "game": "ishido"}))["room"]
        view = (await a.call({"t": "join", "room": room}))["view"]
        loop = asyncio.get_running_loop()
        started = loop.time()
        for _ in range(40):  # moves (while the deal allows one) and pings, as fast as answered
            if view["legal"] and view["status"] == "playing":
                move = {"do": "place", "at": view["legal"][0]}
                upd = await a.call({"t": "act", "room": room, "action": move})
                assert upd["t"] == "update", upd
                view = upd["view"]
            else:
                assert (await a.call({"t": "ping"}))["t"] == "pong"
            assert (await a.call({"t": "ping"}))["t"] == "pong"
        took = loop.time() - started
        assert took >= (80 - 5) / 20 * 0.9, "paced to its rate by the server"
        assert srv.lobby.metrics.errors["rate_limited"] == 0
        assert srv.lobby.metrics.paced > 0 and srv.lobby.metrics.bans == 0
    finally:
        await srv.stop()


@pytest.mark.slow
async def test_the_client_library_keeps_to_the_budget_the_welcome_names(tmp_path):
    from tilehall.clients.connection import Connection

    srv, url = await start(tmp_path, rate=20, burst=5, initial_burst=5, pace_backlog=0)
    try:
        async with Connection(url, name="Ada") as conn:
            assert conn.limits["rate"] == 20 and conn.limits["initial_burst"] == 5
            # forty requests at once, as an eager program might
            replies = await asyncio.gather(*(conn.request({"t": "ping"}) for _ in range(40)))
            assert [r["t"] for r in replies] == ["pong"] * 40
        # pacing off on the server: any request over budget would have been refused
        assert srv.lobby.metrics.errors["rate_limited"] == 0
    finally:
        await srv.stop()


async def test_bots_get_the_bot_budget_the_host_sets(tmp_path):
    srv, url = await start(tmp_path, rate=5, burst=10, bot_rate=200, bot_burst=400)
    try:
        person = await Raw.open(url)
        welcome = await person.call({"t": "hello", "v": 1, "name": "Ada"})
        assert (welcome["limits"]["rate"], welcome["limits"]["burst"]) == (5, 10)
        bot = await Raw.open(url)
        welcome = await bot.call({"t": "hello", "v": 1, "name": "Robo", "bot": True})
        assert (welcome["limits"]["rate"], welcome["limits"]["burst"]) == (200, 400)
        session = next(s for s in srv.sessions if s.player and s.player.name == "Robo")
        assert session.bot and session.bucket.rate == 200
    finally:
        await srv.stop()


async def fill_rooms(url: str, n: int) -> None:
    """``n`` public rooms, made by a bot player (the bot budget here is large)."""
    maker = await Raw.open(url)
    welcome = await maker.call({"t": "hello", "v": 1, "name": "Maker", "bot": True})
    assert welcome["t"] == "welcome"
    for _ in range(n):
        assert (await maker.call({"t": "create", "game": "ishido"}))["t"] == "created"
    await maker.close()


async def test_a_page_of_rooms_counts_as_one_request_per_fifty_rooms(tmp_path):
    """A page costs one request of the budget per 50 rooms it holds, rounded up, as
    welcome.limits says; pacing off, so what is left shows as pongs, the rest refused."""
    srv, url = await start(
        tmp_path,
        rate=5,
        burst=40,
        initial_burst=40,
        pace_backlog=0,
        max_strikes=1000,
        max_rooms_per_player=0,
        bot_rate=10_000,
        bot_burst=10_000,
    )
    try:
        await fill_rooms(url, 210)
        a = await Raw.open(url)
        welcome = await a.call({"t": "hello", "v": 1, "name": "Ada"})  # 39 tokens left
        assert welcome["limits"]["rooms_per_request"] == 50
        # pages of 200 asked for, each cut by the byte bound (some 95 Ishido rooms: 2 each)
        costs, cursor = [], None
        while True:
            req = {"t": "rooms", "limit": 200} | ({"cursor": cursor} if cursor else {})
            page = await a.call(req)
            assert page["t"] == "rooms", page
            costs.append(-(-len(page["rooms"]) // 50) or 1)
            if (cursor := page["next"]) is None:
                break
        assert max(costs) >= 2, costs  # pages of more than 50 rooms: more than one request
        default = await a.call({"t": "rooms"})  # 50 rooms: 1
        assert len(default["rooms"]) == 50
        left = 39 - sum(costs) - 1
        for i in range(60):
            await a.send({"t": "ping", "id": i})
        replies = [await a.recv() for _ in range(60)]
        pongs = sum(r["t"] == "pong" for r in replies)
        assert left <= pongs <= left + 1, (pongs, costs)  # one more if 0.2 s passed meanwhile
        assert srv.lobby.metrics.errors["rate_limited"] == 60 - pongs
    finally:
        await srv.stop()


@pytest.mark.slow
async def test_a_page_owed_for_paces_the_next_request_of_a_client_that_waits(tmp_path):
    """Pacing on: a page of many rooms that leaves the budget owing delays the next request."""
    srv, url = await start(
        tmp_path,
        rate=20,
        burst=4,
        initial_burst=4,
        max_strikes=0,
        max_rooms_per_player=0,
        bot_rate=10_000,
        bot_burst=10_000,
    )
    try:
        await fill_rooms(url, 200)
        a = await Raw.open(url, "Ada")  # 3 tokens left
        loop = asyncio.get_running_loop()
        started = loop.time()
        owed = 1  # the ping
        for _ in range(5):  # each page of more than 50 rooms several requests, at 20 a second
            rooms = len((await a.call({"t": "rooms", "limit": 200}))["rooms"])
            assert rooms > 50, rooms
            owed += -(-rooms // 50)
        assert (await a.call({"t": "ping"}))["t"] == "pong"
        assert loop.time() - started >= (owed - 3) / 20 * 0.9
        assert srv.lobby.metrics.errors["rate_limited"] == 0 and srv.lobby.metrics.paced > 0
    finally:
        await srv.stop()


@pytest.mark.slow
async def test_the_client_library_pays_for_pages_and_is_never_refused(tmp_path):
    from tilehall.clients.connection import Connection

    srv, url = await start(
        tmp_path,
        rate=20,
        burst=5,
        initial_burst=5,
        pace_backlog=0,
        max_rooms_per_player=0,
        bot_rate=10_000,
        bot_burst=10_000,
    )
    try:
        await fill_rooms(url, 230)
        async with Connection(url, name="Ada") as conn:
            assert conn.limits["rooms_per_request"] == 50
            # pages of 200 and of what is left, and pings, all at once, as an eager program might
            asks = [{"t": "rooms", "limit": 200}, {"t": "ping"}, {"t": "rooms", "limit": 100}]
            asks += [{"t": "rooms", "limit": 200, "cursor": "r"}, {"t": "rooms", "status": "over"}]
            replies = await asyncio.gather(*(conn.request(m) for m in asks * 4))
            assert [r["t"] for r in replies] == [m["t"].replace("ping", "pong") for m in asks * 4]
            sizes = [len(r.get("rooms", ())) for r in replies[:5]]
            assert sizes[1] == sizes[4] == 0 and min(sizes[0], sizes[2], sizes[3]) > 50, sizes
        # pacing off on the server: any request over budget would have been refused
        assert srv.lobby.metrics.errors["rate_limited"] == 0
    finally:
        await srv.stop()


async def test_a_large_frame_counts_as_one_request_per_4_kib(tmp_path):
    """Issue 42: reading a frame costs the server in proportion to what it holds (a frame
    nested past msgpack's limit is walked in Python), so a frame counts one request per
    ``welcome.limits.bytes_per_request`` bytes, rounded up; pacing off, so what is left shows
    as pongs and the rest is refused."""
    srv, url = await start(
        tmp_path, rate=5, burst=40, initial_burst=40, pace_backlog=0, max_strikes=1000
    )
    try:
        a = await Raw.open(url)
        welcome = await a.call({"t": "hello", "v": 1, "name": "Ada"})  # 39 tokens left
        per = welcome["limits"]["bytes_per_request"]
        assert per == 4096
        big = encode({"t": "ping", "later": "x" * 30_000, "id": 1})  # 8 requests
        assert -(-len(big) // per) == 8
        await a.send(big)
        assert (await a.recv())["t"] == "pong"
        deep = b"\x82\xa1t\xa4ping\xa5later" + b"\x91" * 20_000 + b"\x00"  # 5 requests
        await a.send(deep)
        assert (await a.recv())["code"] == "out_of_range"
        left = 39 - 8 - 5
        for i in range(60):
            await a.send({"t": "ping", "id": i})
        replies = [await a.recv() for _ in range(60)]
        pongs = sum(r["t"] == "pong" for r in replies)
        assert left <= pongs <= left + 1, pongs  # one more if 0.2 s passed meanwhile
    finally:
        await srv.stop()
