"""The node's one connection to the MQTT broker: subscriptions, ordered sends, presence.

Reconnects with back-off for as long as the node runs. Messages published
while the broker is away wait, in order, and go out once it is back (up to a
bound). Presence is not queued: it is said afresh on every connection, so a
stale ``online`` from an earlier connection can never follow a newer one.
Nothing here decides anything: what a message means is the cluster's business
(:mod:`tilehall.server.cluster.node`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import random
import socket
import ssl
from collections.abc import Callable
from urllib.parse import unquote, urlsplit

import aiomqtt
from tilehall.server.cluster.wire import Presence, Topics

__all__ = ["BACKLOG", "Bus", "BusSettings"]

log = logging.getLogger(__name__)

MAX_BACKOFF = 2.0
"""Longest pause between attempts to reach the broker."""
BACKLOG = 10_000
"""Messages kept for the broker while it is unreachable; beyond that the oldest room
stream messages are dropped (their receivers notice the gap and resync)."""
NODELAY = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)
"""Small messages go at once. With Nagle's algorithm a relayed act waited for the
previous segment's delayed acknowledgement: about 40 ms on every hop."""


class BusSettings:
    """Where the broker is, parsed from ``--mqtt mqtt://[user:password@]host:port[/prefix]``."""

    def __init__(self, url: str, *, password: str | None = None) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("mqtt", "mqtts"):
            raise ValueError(f"--mqtt takes mqtt://host:port or mqtts://..., not {url!r}")
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or (8883 if parts.scheme == "mqtts" else 1883)
        self.username = unquote(parts.username) if parts.username else None
        self.password = password or (unquote(parts.password) if parts.password else None)
        self.tls = ssl.create_default_context() if parts.scheme == "mqtts" else None
        self.topics = Topics(parts.path.strip("/") or "tilehall")


class Bus:
    """Connect, subscribe, send in order, and hand every message to ``on_message``.

    Args:
        settings: the broker.
        node: this node's name.
        keepalive: seconds between MQTT keepalives.
        presence: this node's presence for a given connection number (its Last
            Will is the same with ``state`` offline).
        on_message: called with each message's topic parts and payload.
        on_connected: called after every (re)connection, once the node's
            subscriptions are in place and its presence said (it must not wait:
            messages are read only after it returns).
        on_disconnected: called when a connection that was up is lost (or closed):
            whatever was on its way to this node over it will never arrive.
    """

    def __init__(
        self,
        settings: BusSettings,
        node: str,
        *,
        keepalive: int,
        presence: Callable[[str, int], Presence],
        on_message: Callable[[list[str], bytes], None],
        on_connected: Callable[[], None],
        on_disconnected: Callable[[], None] = lambda: None,
    ) -> None:
        self.settings = settings
        self.topics = settings.topics
        self.node = node
        self.keepalive = keepalive
        self._presence = presence
        self._on_message = on_message
        self._on_connected = on_connected
        self._on_disconnected = on_disconnected
        self.conn = 0
        """Connections to the broker so far: the second half of this node's presence order."""
        self.connected = asyncio.Event()
        self._client: aiomqtt.Client | None = None
        self._fifo: collections.deque[tuple[str, bytes, bool]] = collections.deque()
        self._fifo_ready = asyncio.Event()
        self._runner: asyncio.Task[None] | None = None
        self._stopping = False

    @property
    def where(self) -> str:
        return f"{self.settings.host}:{self.settings.port}"

    def start(self) -> None:
        self._runner = asyncio.create_task(self._run(), name="cluster-bus")

    async def stop(self, goodbye: Presence | None = None) -> None:
        """Let queued messages out (briefly), say ``goodbye``, disconnect."""
        self._stopping = True
        client = self._client
        if client is not None and self.connected.is_set():
            with contextlib.suppress(Exception):
                for _ in range(100):
                    if not self._fifo:
                        break
                    await asyncio.sleep(0.02)
                if goodbye is not None:
                    await client.publish(
                        self.topics.node(self.node), goodbye.to_wire(), qos=1, retain=True
                    )
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._runner

    # -- sending

    def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> None:
        """Queue a message: one task sends them in order, keeping them while the broker is away."""
        if len(self._fifo) >= BACKLOG:
            for i, item in enumerate(self._fifo):
                if "/out/" in item[0]:
                    del self._fifo[i]
                    break
        self._fifo.append((topic, payload, retain))
        self._fifo_ready.set()

    async def say_presence(self) -> None:
        """Publish this node's presence now, outside the queue (it must never be stale)."""
        client = self._client
        if client is None:
            return
        with contextlib.suppress(aiomqtt.MqttError):
            await client.publish(
                self.topics.node(self.node),
                self._presence("online", self.conn).to_wire(),
                qos=1,
                retain=True,
            )

    async def _publish_loop(self, client: aiomqtt.Client) -> None:
        while True:
            while not self._fifo:
                self._fifo_ready.clear()
                await self._fifo_ready.wait()
            topic, payload, retain = self._fifo[0]
            try:
                await client.publish(topic, payload, qos=1, retain=retain)
            except aiomqtt.MqttError as exc:
                log.warning("could not send to %s (%s); will retry", topic, exc)
                await asyncio.sleep(0.2)
                continue
            except Exception:
                log.exception("could not send to %s; dropped", topic)
            self._fifo.popleft()

    # -- the connection

    async def _run(self) -> None:
        backoff = 0.1
        s = self.settings
        while not self._stopping:
            self.conn += 1
            will = self._presence("offline", self.conn)
            client = aiomqtt.Client(
                s.host,
                s.port,
                username=s.username,
                password=s.password,
                identifier=f"tilehall-{self.node}-{will.epoch}-{self.conn}",
                keepalive=self.keepalive,
                will=aiomqtt.Will(self.topics.node(self.node), will.to_wire(), qos=1, retain=True),
                tls_context=s.tls,
                clean_session=True,
                socket_options=NODELAY,
            )
            publisher: asyncio.Task[None] | None = None
            try:
                async with client:
                    self._client = client
                    # Listen before saying "online": a node that hears it may send at once.
                    for topic in (
                        "node/+",
                        f"node/{self.node}/in",
                        "dir/+",
                        f"room/+/out/{self.node}",
                    ):
                        await client.subscribe(f"{self.topics.prefix}/{topic}", qos=1)
                    await self.say_presence()
                    self.connected.set()
                    backoff = 0.1
                    publisher = asyncio.create_task(self._publish_loop(client), name="cluster-pub")
                    log.info(
                        "node %s on the bus %s (connection %d)", self.node, self.where, self.conn
                    )
                    self._on_connected()
                    async for message in client.messages:
                        payload = message.payload if isinstance(message.payload, bytes) else b""
                        try:
                            self._on_message(self.topics.parse(message.topic.value), payload)
                        except Exception:
                            log.exception("bad cluster message on %s", message.topic.value)
            except aiomqtt.MqttError as exc:
                if not self._stopping:
                    log.warning("broker %s: %s; reconnecting", self.where, exc)
            except Exception:  # never leave the bus for good over one bug
                log.exception("cluster connection failed; reconnecting")
            finally:
                was_up = self.connected.is_set()
                self.connected.clear()
                self._client = None
                if publisher is not None:
                    publisher.cancel()
                if was_up:
                    self._on_disconnected()
            await asyncio.sleep(backoff * (0.5 + random.random()))
            backoff = min(MAX_BACKOFF, backoff * 2)
