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
from typing import TYPE_CHECKING

from tilehall.protocol import ErrorCode, ProtocolError, decode
from tilehall.server.bots import lines_master
from tilehall.server.build import build_name
from tilehall.server.clock import Clock
from tilehall.server.config import Config, add_options, read_options, read_secret
from tilehall.server.files import private_dir
from tilehall.server.lobby import Lobby
from tilehall.server.net.forwarded import client_ip, network
from tilehall.server.net.session import BYTES_PER_REQUEST, Session
from tilehall.server.net.web import WILDCARD_HOSTS, WebFiles, who_can_open
from tilehall.server.ops.http import http_handler
from tilehall.server.ops.listener import AdminListener, StartError, cannot_listen, cannot_write
from tilehall.server.ops.logs import JsonFormatter
from tilehall.server.ops.metrics import watch_gc
from tilehall.server.store import open_store
from tilehall.server.store.base import Store
from websockets.asyncio.server import Server as WSServer
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request

if TYPE_CHECKING:
    from tilehall.server.cluster import Cluster

__all__ = ["Server", "main", "parse_args"]

log = logging.getLogger("tilehall")


class Server:
    """A running Tilehall server: store, lobby and listening socket."""

    def __init__(self, config: Config, *, clock: Clock | None = None) -> None:
        self.config = config
        self.clock = clock
        """The lobby's and rooms' clock (None: the system's); a test hands one in to
        play across a UTC midnight (today's deal) without waiting for one."""
        self.store: Store | None = None
        self.lobby: Lobby | None = None
        self.ws_server: WSServer | None = None
        self.sessions: set[Session] = set()
        self.per_ip: Counter[str] = Counter()
        self.banned: dict[str, float] = {}
        """Address -> loop time until which its new connections are refused."""
        self.trusted = tuple(network(t) for t in config.trusted_proxies)
        self.accepting = False
        self.web: WebFiles | None = None
        """The web client's files, read at start-up; None with ``--no-web``."""
        self.admin = AdminListener(self)
        """``/admin/...`` and ``/metrics``, on a port of their own."""
        self.cluster: Cluster | None = None
        self._purging: asyncio.Task[None] | None = None
        """Deletes the moves of games older than ``--replay-days``."""
        self._folding: asyncio.Task[None] | None = None
        """Folds the latencies observed into their histograms, once a second."""
        self._showcase: asyncio.Task[None] | None = None
        """Keeps the server's own all-COMP game going (``--no-showcase``: None)."""

    @property
    def port(self) -> int:
        assert self.ws_server is not None
        sock = next(iter(self.ws_server.sockets))
        port: int = sock.getsockname()[1]
        return port

    @property
    def admin_port(self) -> int:
        return self.admin.port

    async def start(self) -> None:
        """Open the store, bring back unfinished rooms, then listen (admin first, then players).

        The data directory is made private first (0700), before anything is written in it.
        """
        private_dir(self.config.data_dir)
        self._search_start()
        try:
            self.store = await open_store(
                self.config.db_url, password=read_secret(self.config.db_password_file)
            )
        except OSError as exc:  # a SQLite file on a full or read-only disk
            raise cannot_write(exc, exc.filename or self.config.db_url) from None
        self.lobby = Lobby(self.config, self.store, clock=self.clock)
        self._folding = asyncio.create_task(self.lobby.metrics.fold_forever(), name="metrics")
        recovered = await self.lobby.registry.recover()
        if not self.config.showcase:  # one left from a run that kept it goes
            await self.lobby.showcase.let_go()
        # old games' moves (--replay-days) and the day tables past a year
        self._purging = asyncio.create_task(self.lobby.records.purge_forever(), name="purge")
        if self.config.mqtt:
            await self._join_cluster()
        if self.config.web:
            self.web = WebFiles.load()
        await self.admin.start()
        limits = self.config.limits
        try:
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
        except BaseException as exc:
            await self.admin.stop()  # and its admin.json: nothing listens there
            if isinstance(exc, OSError):
                where = "choose another with --port (0: any free port)"
                raise cannot_listen(
                    exc, "the game port", self.config.host, self.config.port, where
                ) from None
            raise
        self.accepting = True
        if self.config.showcase:  # once the cluster is joined: it decides which node keeps it
            self._showcase = asyncio.create_task(self.lobby.showcase.run_forever(), name="showcase")
        log.info(
            "admin listener on %s (/metrics, /admin/..., /healthz, /readyz; see %s)",
            self.admin.url,
            self.admin.file,
        )
        if self.web is not None:
            log.info(
                "web client: open %s/ in a browser (%d files, %d KB)",
                self.page_url,
                len(self.web.files),
                self.web.size // 1024,
            )
            reach = who_can_open(
                self.config.host, self.port, "https" if self.config.certfile else "http"
            )
            if reach is not None:
                log.info("web client: %s", reach)
        log.info(
            "listening on %s://%s:%d (store %s, %d rooms recovered, loop %s, build %s)",
            "wss" if self.config.certfile else "ws",
            self.config.host,
            self.port,
            self.config.db_url,
            recovered,
            type(asyncio.get_running_loop()).__module__.split(".")[0],
            build_name(),
        )

    def _search_start(self) -> None:
        """Say whether Lines ``master`` is offered; start its compile (in the background)."""
        version = lines_master.numba_version()
        if version is None:
            log.info("lines master: not offered (%s)", lines_master.EXTRA_HINT)
            return
        cache = self.config.data_dir / "numba"
        when = self.config.search_compile
        log.info(
            "lines master: offered (numba %s); compiles %s in the background, cache in %s",
            version,
            "now" if when == "start" else "when first asked for",
            cache,
        )
        lines_master.configure(cache, start=when == "start")

    @property
    def page_url(self) -> str:
        """Where a browser on this host opens the web client (a wildcard address as loopback)."""
        host = self.config.host
        host = WILDCARD_HOSTS.get(host, host)
        scheme = "https" if self.config.certfile else "http"
        if ":" in host:
            host = f"[{host}]"
        return f"{scheme}://{host}:{self.port}"

    def _tls(self) -> ssl.SSLContext | None:
        """TLS straight from the server (``--certfile``), for hosts without a reverse proxy."""
        if self.config.certfile is None:
            return None
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.config.certfile, self.config.keyfile)
        return context

    async def _join_cluster(self) -> None:
        """Cluster mode: imported only here, so that a single node never loads aiomqtt."""
        from tilehall.server.cluster import Cluster

        assert self.lobby is not None
        self.cluster = Cluster(self.config, self.lobby)
        await self.cluster.start()

    async def stop(self) -> None:
        """Graceful stop: refuse new connections, finish actions in hand, close with 1001.

        In a cluster, first hand every room to the other nodes (at once: nobody
        waits for a lease to lapse) and tell each connection where to reconnect.
        """
        self.accepting = False
        if self._showcase is not None:  # no new showcase while the rooms are handed on
            self._showcase.cancel()
        if self.ws_server is not None:
            # Stop listening only; websockets' own close() may run once, below.
            self.ws_server.server.close()
        urls: list[str] = []
        if self.cluster is not None:
            await self.cluster.drain(stopping=True)
            urls = self.cluster.redirect_urls()
        if self.lobby is not None:
            for room in list(self.lobby.rooms.values()):
                async with room.between_moves():  # waits for the action in hand
                    room.close()
        for task in (self._purging, self._folding):
            if task is not None:
                task.cancel()
        if self.cluster is not None:
            await self.cluster.stop()
        if urls:
            sessions = list(self.sessions)
            for i, session in enumerate(sessions):
                session.send_msg(
                    {"t": "reconnect", "url": urls[i % len(urls)], "reason": "node stopping"}
                )
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.config.limits.close_timeout):
                    await asyncio.gather(*(s.drained() for s in sessions))
        if self.ws_server is not None:
            self.ws_server.close(close_connections=True)
            await self.ws_server.wait_closed()
        await self.admin.stop()
        if self.lobby is not None:
            self.lobby.accounts.hasher.close()
        if self.store is not None:
            await self.store.close()
        log.info("stopped")

    def not_ready(self) -> list[str]:
        """Why this server cannot play games right now (empty: it can): for ``/readyz``."""
        problems = []
        if self.lobby is None or not self.accepting:
            problems.append("stopping")
        elif not self.lobby.health.up:
            problems.append(f"store unavailable: {self.lobby.health.last_error}")
        if self.cluster is not None:
            problems += self.cluster.not_ready()
        return problems

    # -- one connection ----------------------------------------------------------------

    def ban(self, ip: str, reason: str = "flooding") -> None:
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
        if self.lobby is not None:
            self.lobby.metrics.bans += 1
        log.warning("refusing new connections from %s for %g s: %s", ip, seconds, reason)

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
        log.info("connection from %s", session.peer, extra={"peer": session.peer})
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
                await self._pace(session)
                await self.on_frame(session, frame)
        except ConnectionClosed:
            pass
        except Exception:
            log.exception("connection %s failed", session.peer)
            with contextlib.suppress(Exception):
                await ws.close(1011, "internal error")
        finally:
            log.info(
                "connection from %s closed (%s)%s",
                session.peer,
                ws.close_code if ws.close_code is not None else "dropped",
                f", player {session.player.name}" if session.player else "",
                extra={"peer": session.peer},
            )
            self.lobby.disconnect(session)
            self.sessions.discard(session)
            self.per_ip[ip] -= 1
            if not self.per_ip[ip]:
                del self.per_ip[ip]
            await session.finish()

    async def _pace(self, session: Session) -> None:
        """Pace, don't punish: a request over budget waits for its token.

        While it waits nothing more is read from the connection, so a client
        that sends ahead is held back by TCP, not buffered. Only one that has
        more than ``pace_backlog`` requests queued beyond its budget is refused
        (``rate_limited`` in :meth:`on_frame`), and one that keeps that up is
        cut off: an honest bot that waits for its answers never is.
        """
        wait = session.bucket.delay()
        if wait <= 0 or session.backlog() >= self.config.limits.pace_backlog:
            return
        assert self.lobby is not None
        self.lobby.metrics.paced += 1
        self.lobby.metrics.paced_seconds += wait
        await asyncio.sleep(wait)

    async def on_frame(self, session: Session, frame: bytes | str) -> None:
        """Decode one frame and let the lobby answer it; refuse it over the rate."""
        assert self.lobby is not None
        re: int | None = None
        try:
            # Decode before refusing for the rate, so that even a rate_limited
            # refusal carries re and the client can tell which request it lost.
            limited = not session.bucket.take()
            if len(frame) > BYTES_PER_REQUEST:  # its price beyond one request, paid later
                session.bucket.charge((len(frame) - 1) // BYTES_PER_REQUEST)
            try:
                msg = decode(frame, max_size=self.config.limits.max_frame)
            except ProtocolError as exc:
                re = exc.re
                if not limited:
                    raise
            else:
                re = msg.get("id")
            largest = self.config.limits.max_action
            if not limited and msg["t"] == "act" and len(frame) > largest:
                raise ProtocolError(
                    ErrorCode.ACTION_TOO_LARGE,
                    f"an act frame may have {largest} bytes, not {len(frame)}",
                    re,
                )
            if limited:
                session.strikes += 1
                if session.strikes > self.config.limits.max_strikes:
                    session.close(1008, "flooding: too many requests", abort_after=1.0)
                    self.ban(session.ip)
                raise ProtocolError(
                    ErrorCode.RATE_LIMITED,
                    "too many requests sent ahead; wait for the answers, or retry_after",
                    re,
                    retry_after=round(max(session.bucket.delay(), 0.05), 3),
                )
        except ProtocolError as exc:
            self.lobby.refuse(
                session,
                exc.code,
                exc.message,
                exc.re if exc.re is not None else re,
                retry_after=exc.retry_after,
            )
            return
        cost = await self.lobby.receive(session, msg)
        if cost > 1:  # a rooms page of many rooms: the rest of its price, owed if need be
            session.bucket.charge(cost - 1)
        if msg["t"] == "hello" and msg.get("bot") and session.player is not None:
            session.grant_bot_budget()


# -- command line ----------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> Config:
    """Read ``tilehall-server`` options into a :class:`Config`, and set up logging.

    The options are the fields of :class:`Config` and :class:`Limits` (see
    :func:`~tilehall.server.config.add_options`); the log options are the
    process's own and are not part of a Config.
    """
    p = argparse.ArgumentParser(
        prog="tilehall-server",
        description="Host Tilehall: Mathable, Match-It, LinkSame, Lines and Ishido over "
        "WebSockets. Unfinished rooms survive restarts (they are rebuilt from the journal). "
        "The same port serves the web client (open http://HOST:PORT/ in a browser; --no-web "
        "turns it off) and answers GET /healthz and /readyz; the admin listener (--admin-port) "
        "answers /metrics (Prometheus), the admin commands and the health checks. "
        "'tilehall-server admin --help' lists the admin commands.",
    )
    add_options(p, Config)
    logs = p.add_argument_group("logs")
    logs.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error"],
        help="log verbosity (default %(default)s)",
    )
    logs.add_argument(
        "--log-format",
        default="text",
        choices=["text", "json"],
        help="text lines, or one JSON object a line with room ids (default %(default)s)",
    )
    a = p.parse_args(argv)
    # websockets' own lines (two per health check, none naming the client) say less
    # than the server's; its warnings and errors still show.
    logging.getLogger("websockets.server").setLevel(logging.WARNING)
    handler = logging.StreamHandler(sys.stderr)
    if a.log_format == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=a.log_level.upper(), handlers=[handler], force=True)
    config = read_options(a, Config)
    if config.mqtt and not config.node:
        # A cluster needs every node named; a single server has no use for a name.
        config = replace(config, node=socket.gethostname())
    return config


MIDDLE_COLLECTION_EVERY = 50
"""Young collections between two middle ones (CPython's default: 10)."""
FULL_COLLECTION_EVERY = 20
"""Middle collections between two full ones (CPython's default: 10): with
:data:`MIDDLE_COLLECTION_EVERY`, a full collection may come once in 1,000 young
ones, the pace CPython's defaults set with young collections 10 times as often."""


def tune_gc() -> None:
    """Make the collector's middle and full passes rare and a little cheaper.

    A full collection walks every tracked object: with a thousand rooms it took
    60-120 ms, and at CPython's default pace (every ten middle collections, once
    the old generation has grown by a quarter) the server ran one every second
    or two under load, each a pause that every player waiting on a move felt.
    Spacing them ten times wider than that (one in 1,000 young collections, not
    one in 100) makes them rare; garbage in cycles still goes, later. Freezing
    what the imports built (modules, classes, functions: they live as long as the
    process) takes it out of those walks. Called before the store opens and rooms
    are recovered: a frozen object is never collected, and a recovered room must
    be freed once its game is over.

    The young threshold stays CPython's 700: a much larger one trades many small
    pauses for rare long ones, a worse act->update p99. Middle collections come
    after 50 young ones, not 10: each walks what outlived a young one (every
    connection's pending read, the views rooms keep), however often it comes.
    The measurements behind both are in tests/perf/RESULTS.md ("The collector: 50,000
    tried" and "Middle collections a fifth as often").
    """
    gc.collect()
    gc.freeze()
    young, _, _ = gc.get_threshold()
    gc.set_threshold(young, MIDDLE_COLLECTION_EVERY, FULL_COLLECTION_EVERY)


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
        from tilehall.server.ops.command import main as admin_main

        sys.exit(admin_main(args[1:]))
    config = parse_args(argv)
    try:
        if config.loop == "uvloop":
            try:
                import uvloop
            except ImportError:
                sys.exit(
                    "tilehall-server: --loop uvloop needs uvloop: pip install 'tilehall[uvloop]'"
                )
            uvloop.run(serve_forever(config))
        else:
            asyncio.run(serve_forever(config))
    except StartError as exc:
        # A port in use, a full data disk: the host's to fix, one line that says what.
        sys.exit(f"tilehall-server: {exc}")


if __name__ == "__main__":
    main()
