"""A real cluster for each test: its own Mosquitto, its own PostgreSQL schema, server processes.

The tests skip (saying why) only when the ``mosquitto`` binary or PostgreSQL is
really not there; see :mod:`tests.services`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from tilehall.protocol import SERVER_MESSAGES, check, decode, encode
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.helpers import ServerProcess
from tests.services import Mosquitto, free_port, pg_schema, require_mosquitto


@pytest.fixture
def broker(tmp_path):
    require_mosquitto()
    b = Mosquitto(tmp_path)
    b.start()
    yield b
    b.stop()


@pytest.fixture
async def pg_url():
    async with pg_schema() as url:
        yield url


class Cluster:
    """Server processes sharing one broker and one store."""

    def __init__(self, tmp_path: Path, broker: Mosquitto, pg_url: str) -> None:
        self.tmp_path = tmp_path
        self.broker = broker
        self.pg_url = pg_url
        self.nodes: dict[str, ServerProcess] = {}

    async def start(
        self, *names: str, extra: tuple[str, ...] = (), showcase: bool = False
    ) -> list[str]:
        """Start nodes at once (each in a thread: start() blocks); returns their URLs.

        A node started again keeps its port and data folder, as a restarted service does.
        """
        for name in names:
            data = self.tmp_path / name
            data.mkdir(exist_ok=True)
            old = self.nodes.get(name)
            port = old.port if old is not None else free_port()
            self.nodes[name] = ServerProcess(
                data,
                "--port",
                str(port),
                "--public-url",
                f"ws://127.0.0.1:{port}",
                "--admin-port",  # a free one, not the default port + 1: that may be taken
                str(free_port()),
                "--db",
                self.pg_url,
                "--mqtt",
                self.broker.url,
                "--node",
                name,
                "--mqtt-keepalive",
                "5",
                "--bot-delay",
                "0",
                *extra,
                showcase=showcase,
            )
        return list(await asyncio.gather(*(asyncio.to_thread(self.nodes[n].start) for n in names)))

    def url(self, name: str) -> str:
        return self.nodes[name].url

    def stop(self) -> None:
        for name, node in self.nodes.items():
            node.stop()
            # What each node said: pytest shows it under a failed test (and with -s).
            print(f"---- {name}\n" + "".join(node.log))


@pytest.fixture
async def cluster(tmp_path, broker, pg_url):
    c = Cluster(tmp_path, broker, pg_url)
    yield c
    c.stop()


class Peer:
    """A client that reads in the background: replies by ``re``, every update kept per room."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.ids = itertools.count(1)
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.updates: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.joined: dict[str, int] = {}
        """The seq of the last ``joined`` per room."""
        self.latest: dict[str, tuple[int, dict[str, Any]]] = {}
        """The newest (seq, view) per room, from ``joined`` or ``update``."""
        self.frames: list[dict[str, Any]] = []
        self.token = ""
        self.player = ""
        self.welcome: dict[str, Any] = {}
        self.arrived = asyncio.Event()
        self.reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, url: str, name: str | None = None, token: str | None = None) -> Peer:
        peer = cls(await connect(url, max_size=2**22))
        hello: dict[str, Any] = {"t": "hello", "v": 1}
        hello.update({"token": token} if token else {"name": name})
        welcome = await peer.call(hello)
        assert welcome["t"] == "welcome", welcome
        peer.welcome, peer.token, peer.player = welcome, welcome["token"], welcome["player"]
        return peer

    async def _read(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for data in self.ws:
                msg = decode(data, specs=SERVER_MESSAGES, max_size=2**22)  # type: ignore[arg-type]
                check(msg)
                self.frames.append(msg)
                if msg["t"] == "update":
                    self.updates[msg["room"]].append(msg)
                if msg["t"] == "joined":
                    # The first: a room that moves nodes may send its members a fresh
                    # joined later, and the stream they saw still counts from the first.
                    self.joined.setdefault(msg["room"], msg["seq"])
                newer = msg.get("seq", -1) >= self.latest.get(msg.get("room"), (-1, {}))[0]
                if msg["t"] in ("update", "joined") and newer:
                    self.latest[msg["room"]] = (msg["seq"], msg["view"])
                fut = self.waiting.pop(msg.get("re", -1), None)
                if fut is not None and not fut.done():
                    fut.set_result(msg)
                self.arrived.set()

    async def call(self, msg: dict[str, Any], timeout: float = 15.0) -> dict[str, Any]:
        rid = next(self.ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[rid] = fut
        await self.ws.send(encode({**msg, "id": rid}))
        return await asyncio.wait_for(fut, timeout)

    async def act(self, room: str, action: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return await self.call({"t": "act", "room": room, "action": action, **extra})

    async def wait_update(self, room: str, seq: int, timeout: float = 15.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            if self.latest.get(room, (-1, {}))[0] >= seq:
                return next((u for u in self.updates[room] if u["seq"] >= seq), {})
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{self.player}: no update {seq} in {room}: {self.seqs(room)}")
            self.arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), left)

    def seqs(self, room: str) -> list[int]:
        return [u["seq"] for u in self.updates[room]]

    async def close(self) -> None:
        await self.ws.close()
        self.reader.cancel()


async def until(
    probe: Callable[[], Awaitable[Any]], timeout: float = 15.0, every: float = 0.1
) -> Any:
    """Poll ``probe`` until it returns something true; return that."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = await probe()
        if last:
            return last
        await asyncio.sleep(every)
    raise AssertionError(f"still not true after {timeout} s: {last!r}")


async def act_when_possible(
    peer: Peer, room: str, action: dict[str, Any], timeout: float = 20.0, **extra: Any
) -> dict[str, Any]:
    """Act, sending again while the cluster says ``unavailable`` (moving, bus down)."""

    async def attempt() -> dict[str, Any] | None:
        reply = await peer.act(room, action, **extra)
        if reply["t"] == "error" and reply["code"] == "unavailable":
            assert reply["retry_after"] > 0
            return None
        return reply

    return await until(attempt, timeout, every=0.2)
