"""The asyncio WebSocket server: the thin layer of I/O around the lobby and rooms.

Each connection is read by :func:`Server.handle`, which decodes one frame at a
time, answers every refusal with an ``error`` frame (the connection and the
rooms survive), and always cleans up in ``finally``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import gc
import logging
import signal
import socket
import ssl
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from websockets.asyncio.server import Server as WSServer
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request

from protocol import ErrorCode, ProtocolError, decode
from server.config import Config, Limits, default_data_dir
from server.forwarded import client_ip, network
from server.games.base import GameError
from server.lobby import Lobby
from server.ops import JsonFormatter, admin_key, http_handler, watch_gc
from server.session import Session
from server.store import open_store
from server.store.base import Store

if TYPE_CHECKING:
    from server.cluster import Cluster

__all__ = ["Server", "main", "parse_args"]

log = logging.getLogger("tilehall")


class Server:
    """A running Tilehall server: store, lobby and listening socket."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.store: Store | None = None
        self.lobby: Lobby | None = None
        self.ws_server: WSServer | None = None
        self.sessions: set[Session] = set()
        self.per_ip: Counter[str] = Counter()
        self.banned: dict[str, float] = {}
        """Address -> loop time until which its new connections are refused."""
        self.trusted = tuple(network(t) for t in config.trusted_proxies)
        self.accepting = False
        self.admin_key = ""
        self.cluster: Cluster | None = None

    @property
    def port(self) -> int:
        assert self.ws_server is not None
        sock = next(iter(self.ws_server.sockets))
        port: int = sock.getsockname()[1]
        return port

    async def start(self) -> None:
        """Open the store, bring back unfinished rooms, then listen."""
        self.store = await open_store(self.config.db_url)
        self.lobby = Lobby(self.config, self.store)
        recovered = await self.lobby.recover()
        if self.config.mqtt:
            await self._join_cluster()
        self.admin_key = admin_key(self.config.data_dir)
        limits = self.config.limits
        self.ws_server = await serve(
            self.handle,
            self.config.host,
            self.config.port,
            process_request=functools.partial(http_handler, self),
            max_size=limits.max_frame,
            ping_interval=limits.ping_interval,
            ping_timeout=limits.ping_timeout,
            close_timeout=limits.close_timeout,
            max_queue=16,
            compression=None,
            ssl=self._tls(),
        )
        self.accepting = True
        log.info(
            "listening on %s://%s:%d (store %s, %d rooms recovered, loop %s)",
            "wss" if self.config.certfile else "ws",
            self.config.host,
            self.port,
            self.config.db_url,
            recovered,
            type(asyncio.get_running_loop()).__module__.split(".")[0],
        )

    def _tls(self) -> ssl.SSLContext | None:
        """TLS straight from the server (``--certfile``), for hosts without a reverse proxy."""
        if self.config.certfile is None:
            return None
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.config.certfile, self.config.keyfile)
        return context

    async def _join_cluster(self) -> None:
        """Cluster mode: imported only here, so that a single node never loads aiomqtt."""
        if not self.config.db_url.startswith(("postgresql://", "postgres://")):
            raise ValueError(
                "--mqtt needs a PostgreSQL store shared by the nodes (--db postgresql://...)"
            )
        from server.cluster import Cluster

        assert self.lobby is not None
        self.cluster = Cluster(self.config, self.lobby)
        await self.cluster.start()

    async def stop(self) -> None:
        """Graceful stop: refuse new connections, finish actions in hand, close with 1001."""
        self.accepting = False
        if self.ws_server is not None:
            # Stop listening only; websockets' own close() may run once, below.
            self.ws_server.server.close()
        if self.lobby is not None:
            for room in list(self.lobby.rooms.values()):
                async with room.lock:  # waits for the action in hand
                    room.close()
        if self.cluster is not None:
            await self.cluster.stop()  # the other nodes take the rooms over
        if self.ws_server is not None:
            self.ws_server.close(close_connections=True)
            await self.ws_server.wait_closed()
        if self.store is not None:
            await self.store.close()
        log.info("stopped")

    # -- one connection ----------------------------------------------------------------

    def ban(self, ip: str) -> None:
        """Refuse new connections from a flooder's address for ``flood_ban`` seconds.

        Without it a flooder that is cut off comes straight back, and each return
        costs a player, a room and a fresh token bucket: more than the flood itself.
        """
        seconds = self.config.limits.flood_ban
        if seconds <= 0:
            return
        now = asyncio.get_running_loop().time()
        if len(self.banned) > 4096:
            self.banned = {k: v for k, v in self.banned.items() if v > now}
        self.banned[ip] = now + seconds
        log.warning("refusing new connections from %s for %g s: flooding", ip, seconds)

    def address_of(self, ws: ServerConnection, request: Request | None = None) -> str:
        """The client's address: the socket's, or as a trusted proxy forwarded it."""
        peer = str(ws.remote_address[0]) if ws.remote_address else "?"
        request = request or ws.request
        if not self.trusted or request is None:
            return peer
        forwarded = ",".join(request.headers.get_all("X-Forwarded-For"))
        return client_ip(peer, forwarded, self.trusted)

    def banned_for(self, ip: str) -> float:
        """Seconds left on ``ip``'s ban, 0 when it may connect."""
        until = self.banned.get(ip)
        if until is None:
            return 0.0
        left = until - asyncio.get_running_loop().time()
        if left <= 0:
            del self.banned[ip]
            return 0.0
        return left

    async def handle(self, ws: ServerConnection) -> None:
        assert self.lobby is not None
        limits = self.config.limits
        ip = self.address_of(ws)
        if limits.max_connections_per_ip and self.per_ip[ip] >= limits.max_connections_per_ip:
            self.lobby.metrics.refused["per_address"] += 1
            await ws.close(1008, "too many connections from your address")
            return
        self.per_ip[ip] += 1
        session = Session(ws, limits, ip)
        self.sessions.add(session)
        try:
            async for frame in ws:
                if session.closing:
                    if session.abusive:
                        # Read nothing more: its frames back up in TCP, which stops
                        # the sender; the transport is dropped a moment later.
                        break
                    # Otherwise keep draining: a full incoming queue would pause
                    # reading and the peer's close frame would never be seen.
                    continue
                await self.on_frame(session, frame)
        except ConnectionClosed:
            pass
        except Exception:
            log.exception("connection %s failed", session.peer)
            with contextlib.suppress(Exception):
                await ws.close(1011, "internal error")
        finally:
            self.lobby.disconnect(session)
            self.sessions.discard(session)
            self.per_ip[ip] -= 1
            if not self.per_ip[ip]:
                del self.per_ip[ip]
            await session.finish()

    async def on_frame(self, session: Session, frame: bytes | str) -> None:
        re: int | None = None
        try:
            # Decode before refusing for the rate, so that even a rate_limited
            # refusal carries re and the client can tell which request it lost.
            limited = not session.bucket.take()
            try:
                msg = decode(frame, max_size=self.config.limits.max_frame)  # type: ignore[arg-type]
            except ProtocolError as exc:
                re = exc.re
                if not limited:
                    raise
            else:
                re = msg.get("id")
            if limited:
                session.strikes += 1
                if session.strikes > self.config.limits.max_strikes:
                    session.close(1008, "flooding: too many requests", abort_after=1.0)
                    self.ban(session.ip)
                raise ProtocolError(
                    ErrorCode.RATE_LIMITED, "too many requests; wait and send it again", re
                )
            reply = await self.dispatch(session, msg)
            if reply is not None:
                if re is not None:
                    reply["re"] = re
                session.send_msg(reply)
        except ProtocolError as exc:
            self._refuse(session, exc.code, exc.message, exc.re if exc.re is not None else re)
        except GameError as exc:
            self._refuse(session, exc.code, exc.message, re)
        except Exception:
            log.exception("request from %s failed", session.peer)
            self._refuse(session, ErrorCode.INTERNAL_ERROR, "internal error", re)

    def _refuse(self, session: Session, code: str, message: str, re: int | None) -> None:
        assert self.lobby is not None
        self.lobby.metrics.errors[code] += 1
        err: dict[str, Any] = {"t": "error", "code": str(code), "message": message}
        if re is not None:
            err["re"] = re
        session.send_msg(err)

    async def dispatch(self, session: Session, msg: dict[str, Any]) -> dict[str, Any] | None:
        """Route one valid request; return the reply (None when updates say it all)."""
        lobby = self.lobby
        assert lobby is not None
        t = msg["t"]
        if t == "ping":
            return {"t": "pong"}
        if t == "hello":
            return await lobby.hello(session, msg)
        if session.player is None:
            raise ProtocolError(ErrorCode.HELLO_FIRST, f"say hello before {t!r}")
        if t == "act":
            await lobby.act(session, msg)
            return None
        if t == "rooms":
            return lobby.list_rooms(msg)
        if t == "create":
            return await lobby.create(session, msg)
        if t == "join":
            return await lobby.join(session, msg)
        if t == "watch":
            return await lobby.watch(session, msg)
        if t == "leave":
            return await lobby.leave(session, msg)
        if t == "scores":
            return await lobby.scores(session, msg)
        if t == "chat":
            await lobby.chat(session, msg)
            return None
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {t!r}")


# -- command line ----------------------------------------------------------------------------


def _proxy(text: str) -> str:
    """argparse type of ``--trusted-proxy``: an address or a CIDR block, normalised."""
    try:
        return str(network(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an address or network: {text!r}") from None


def parse_args(argv: list[str] | None = None) -> Config:
    """Read ``tilehall-server`` options into a :class:`Config`."""
    d = Limits()
    p = argparse.ArgumentParser(
        prog="tilehall-server",
        description="Host Tilehall: Mathable, Match-It, LinkSame, Lines and Ishido over "
        "WebSockets. Unfinished rooms survive restarts (they are rebuilt from the journal). "
        "The same port answers GET /healthz and /metrics (Prometheus). "
        "'tilehall-server admin --help' lists the admin commands.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default %(default)s)")
    p.add_argument("--port", type=int, default=8765, help="port; 0 picks a free one (default 8765)")
    p.add_argument(
        "--data-dir",
        type=Path,
        default=default_data_dir(),
        help="where the SQLite file lives (default %(default)s; env TILEHALL_DATA)",
    )
    p.add_argument(
        "--certfile",
        type=Path,
        help="serve wss:// with this PEM certificate chain (default: plain ws://)",
    )
    p.add_argument("--keyfile", type=Path, help="the certificate's PEM private key")
    p.add_argument("--db", help="store URL: a SQLite path, or postgresql://... (needs [cluster])")
    p.add_argument(
        "--node", default="", help="this node's name in a cluster (default: the host name)"
    )
    p.add_argument(
        "--mqtt",
        help="cluster mode: the MQTT broker, mqtt://host:port[/prefix] (needs [cluster] and a "
        "postgresql:// --db shared by the nodes)",
    )
    p.add_argument(
        "--mqtt-keepalive",
        type=int,
        default=Config().mqtt_keepalive,
        help="seconds between MQTT keepalives; a node silent for 1.5x this is taken over "
        "(default %(default)s)",
    )
    p.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error"],
        help="log verbosity (default %(default)s)",
    )
    p.add_argument(
        "--log-format",
        default="text",
        choices=["text", "json"],
        help="text lines, or one JSON object a line with room ids (default %(default)s)",
    )
    p.add_argument(
        "--loop",
        default="asyncio",
        choices=["asyncio", "uvloop"],
        help="event loop; uvloop needs pip install 'tilehall[uvloop]' and makes the transport "
        "cheaper, not the game work (see tests/perf/RESULTS.md) (default %(default)s)",
    )
    g = p.add_argument_group("limits")
    g.add_argument(
        "--max-frame",
        type=int,
        default=d.max_frame,
        help="largest frame in bytes; larger closes with 1009 (default %(default)s)",
    )
    g.add_argument(
        "--rate",
        type=float,
        default=d.rate,
        help="requests per second per connection (default %(default)s)",
    )
    g.add_argument(
        "--burst",
        type=int,
        default=d.burst,
        help="requests a connection may send at once (default %(default)s)",
    )
    g.add_argument(
        "--initial-burst",
        type=int,
        default=d.initial_burst,
        help="requests a new connection may send at once; grows to --burst at --rate "
        "(default %(default)s)",
    )
    g.add_argument(
        "--max-strikes",
        type=int,
        default=d.max_strikes,
        help="rate-limited requests before disconnecting (default %(default)s)",
    )
    g.add_argument(
        "--send-queue",
        type=int,
        default=d.send_queue,
        help="frames queued for a slow client before disconnecting it (default %(default)s)",
    )
    g.add_argument(
        "--ping-interval",
        type=float,
        default=d.ping_interval,
        help="seconds between keepalive pings; 0 disables (default %(default)s)",
    )
    g.add_argument(
        "--ping-timeout",
        type=float,
        default=d.ping_timeout,
        help="seconds to wait for a pong (default %(default)s)",
    )
    g.add_argument(
        "--close-timeout",
        type=float,
        default=d.close_timeout,
        help="seconds to wait for a peer's close handshake (default %(default)s)",
    )
    g.add_argument(
        "--max-conns-per-ip",
        type=int,
        default=d.max_connections_per_ip,
        help="concurrent connections per address, 0 = unlimited (default %(default)s)",
    )
    g.add_argument(
        "--flood-ban",
        type=float,
        default=d.flood_ban,
        help="seconds an address cut off for flooding may not reconnect (HTTP 429), "
        "0 = never banned (default %(default)s)",
    )
    g.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        type=_proxy,
        metavar="ADDRESS[/BITS]",
        help="a reverse proxy whose X-Forwarded-For names the client, so that the "
        "per-address limits count players; repeat for several (default: none)",
    )
    g.add_argument(
        "--finished-ttl",
        type=float,
        default=d.finished_ttl,
        help="seconds a finished room stays listed before it is dropped from memory "
        "(default %(default)s)",
    )
    g.add_argument(
        "--bot-delay",
        type=float,
        default=d.bot_delay,
        help="seconds a COMP seat waits before moving (default %(default)s)",
    )
    g.add_argument(
        "--bot-think",
        type=float,
        default=d.bot_think,
        help="seconds of thinking per COMP decision (default %(default)s)",
    )
    a = p.parse_args(argv)
    handler = logging.StreamHandler(sys.stderr)
    if a.log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=a.log_level.upper(), handlers=[handler], force=True)
    limits = replace(
        d,
        max_frame=a.max_frame,
        rate=a.rate,
        burst=a.burst,
        initial_burst=a.initial_burst,
        max_strikes=a.max_strikes,
        send_queue=a.send_queue,
        ping_interval=a.ping_interval or None,
        ping_timeout=a.ping_timeout or None,
        close_timeout=a.close_timeout,
        max_connections_per_ip=a.max_conns_per_ip,
        flood_ban=a.flood_ban,
        finished_ttl=a.finished_ttl,
        bot_delay=a.bot_delay,
        bot_think=a.bot_think,
    )
    return Config(
        host=a.host,
        port=a.port,
        data_dir=a.data_dir,
        db=a.db,
        certfile=a.certfile,
        keyfile=a.keyfile,
        node=a.node or (socket.gethostname() if a.mqtt else ""),
        mqtt=a.mqtt,
        mqtt_keepalive=a.mqtt_keepalive,
        loop=a.loop,
        trusted_proxies=tuple(a.trusted_proxy),
        limits=limits,
    )


FULL_COLLECTION_EVERY = 100
"""Young-generation collections between two full ones (CPython's default: 10)."""


def tune_gc() -> None:
    """Make the collector's full passes rare and a little cheaper.

    A full collection walks every tracked object: with a thousand rooms it took
    60-120 ms, and at CPython's default pace (every ten middle collections, once
    the old generation has grown by a quarter) the server ran one every second
    or two under load, each a pause that every player waiting on a move felt.
    Asking for 100 middle collections before a full one spaces them ten times
    wider; garbage in cycles still goes, later. Freezing what the imports built
    (modules, classes, functions: they live as long as the process) takes it out
    of those walks. Called before the store opens and rooms are recovered: a
    frozen object is never collected, and a recovered room must be freed once
    its game is over.
    """
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)


async def serve_forever(config: Config) -> None:
    """Run until SIGTERM or SIGINT, then stop gracefully."""
    watch_gc()
    tune_gc()
    server = Server(config)
    await server.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("shutting down")
    await server.stop()


def main(argv: list[str] | None = None) -> None:
    """Console entry point ``tilehall-server`` (and ``tilehall-server admin ...``)."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["admin"]:
        from server.admin import main as admin_main

        sys.exit(admin_main(args[1:]))
    config = parse_args(argv)
    if config.loop == "uvloop":
        try:
            import uvloop
        except ImportError:
            sys.exit("tilehall-server: --loop uvloop needs uvloop: pip install 'tilehall[uvloop]'")
        uvloop.run(serve_forever(config))
    else:
        asyncio.run(serve_forever(config))


if __name__ == "__main__":
    main()
