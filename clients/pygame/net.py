"""The network side of the window: a :class:`Connection` on its own thread and loop.

pygame wants a loop that never waits, and :class:`Connection` wants an asyncio
loop; so the connection lives on a background thread with its own event loop,
and the two sides talk only through thread-safe hand-offs: the window submits
requests with :meth:`Net.request` / :meth:`Net.act` (which return at once), and
everything that comes back - replies, pushed updates, refusals, connection
news - lands in :attr:`Net.inbox`, which the window drains once per frame.

What arrives in the inbox is the server's own messages (``welcome``, ``rooms``,
``joined``, ``update``, ``room``, ``chat``, ``scores``, ``created``, ``left``...)
and a few of ours, named with a leading underscore:

* ``_error {tag, code, message}`` - a request was refused (or the connection
  went away while it waited); ``tag`` says which request;
* ``_tag`` in a reply - the tag of the request it answers, so that a screen
  can tell its own ``leaderboard`` page from the one the lobby asked for;
* ``_offline {message}`` - the server cannot be reached yet (we keep trying);
* ``_hello_failed {code, message}`` - the server refused our name or token;
* ``_reconnecting``, ``_reconnected``, ``_rejoined`` - from the connection;
* ``_signed_out {code}`` - this session ended for good: signed out here (1000),
  from another device (4001), or the name barred by the host (4002);
* ``_closed`` - the connection is gone for good.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from typing import Any, Protocol

from tilehall.clients.connection import Connection, ConnectionLost, ServerError

__all__ = ["Net", "NetLike", "NullNet"]


class NetLike(Protocol):
    """What the window needs from the network side (:class:`Net`, or a stand-in)."""

    inbox: queue.Queue[dict[str, Any]]
    url: str

    def start(self) -> None: ...
    def stop(self, timeout: float = ...) -> None: ...
    def request(self, msg: dict[str, Any], tag: str | None = None) -> None: ...
    def join(self, room: str, seat: int | None = None) -> None: ...
    def sign_out(self, everywhere: bool = False) -> None: ...
    def join_code(self, code: str) -> None: ...
    def watch(self, room: str) -> None: ...
    def rejoin(self, room: str) -> None: ...
    def act(self, room: str, action: dict[str, Any]) -> None: ...
    def chat(self, room: str, text: str) -> None: ...


log = logging.getLogger(__name__)

Inbox = queue.Queue[dict[str, Any]]


class Net:
    """One server session run off the UI thread.

    Args:
        url: the server, ``ws://host:port``.
        name: the player name for a first hello.
        token: a returning player's secret (wins over ``name``).
        password: with ``name``: the password of a protected name (signing in here).
        retry: seconds between attempts while the server cannot be reached.
    """

    def __init__(
        self,
        url: str,
        *,
        name: str | None,
        token: str | None,
        password: str | None = None,
        retry: float = 2.0,
    ) -> None:
        self.url = url
        self.name = name
        self.token = token
        self.password = password
        self.retry = retry
        self.inbox: Inbox = queue.Queue()
        self.conn: Connection | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tilehall-net", daemon=True)

    # -- lifecycle (UI thread) -------------------------------------------------------

    def start(self) -> None:
        """Start the thread; returns once its loop runs (never waits for the server)."""
        self._thread.start()
        self._ready.wait(5)

    def stop(self, timeout: float = 3.0) -> None:
        """Close the connection and end the thread, waiting at most ``timeout`` seconds.

        ``timeout=0`` only asks (for a caller whose own loop must keep running
        for the close to finish, such as a test serving the server).
        """
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stop.set)
        if timeout > 0 and self._thread.is_alive():
            self._thread.join(timeout)

    @property
    def alive(self) -> bool:
        """True until the network thread has ended."""
        return self._thread.is_alive()

    # -- requests (UI thread; each returns at once) --------------------------------------

    def request(self, msg: dict[str, Any], tag: str | None = None) -> None:
        """Send a request; its reply (or ``_error``) will arrive in the inbox."""
        self._submit(tag or msg["t"], lambda c: c.request(msg))

    def join(self, room: str, seat: int | None = None) -> None:
        self._submit("join", lambda c: c.join(room, seat))

    def sign_out(self, everywhere: bool = False) -> None:
        """Take back this device's token (or all); ``_signed_out`` arrives when it is done."""

        async def call(conn: Connection) -> None:
            await conn.sign_out(everywhere=everywhere)

        self._submit("sign_out", call)

    def join_code(self, code: str) -> None:
        self._submit("join", lambda c: c.request({"t": "join", "code": code}))

    def watch(self, room: str) -> None:
        self._submit("watch", lambda c: c.watch(room))

    def rejoin(self, room: str) -> None:
        """Join ``room`` again with the last seq; the answer comes pushed, as ``_rejoined``."""
        self._submit("rejoin", lambda c: c.rejoin(room), reply=False)

    def act(self, room: str, action: dict[str, Any]) -> None:
        """Send a game action; the accepted action's update comes as a pushed ``update``."""
        self._submit("act", lambda c: c.act(room, action), reply=False)

    def chat(self, room: str, text: str) -> None:
        """Say ``text`` in ``room``; the room's copy comes pushed, as every member's does."""
        msg = {"t": "chat", "room": room, "text": text}
        self._submit("chat", lambda c: c.request(msg), reply=False)

    def _submit(
        self,
        tag: str,
        call: Callable[[Connection], Awaitable[dict[str, Any] | None]],
        *,
        reply: bool = True,
    ) -> Future[None] | None:
        loop, conn = self._loop, self.conn
        if loop is None or conn is None or loop.is_closed():
            self.inbox.put(
                {"t": "_error", "tag": tag, "code": "offline", "message": "not connected yet"}
            )
            return None
        return asyncio.run_coroutine_threadsafe(self._guard(tag, call(conn), reply), loop)

    async def _guard(self, tag: str, call: Awaitable[dict[str, Any] | None], reply: bool) -> None:
        try:
            result = await call
        except ServerError as exc:
            about = {k: v for k in ("cells", "tiles") if (v := getattr(exc, k))}
            self.inbox.put(
                {"t": "_error", "tag": tag, "code": exc.code, "message": exc.message, **about}
            )
        except (ConnectionLost, TimeoutError, OSError) as exc:
            self.inbox.put(
                {"t": "_error", "tag": tag, "code": "connection_lost", "message": str(exc)}
            )
        else:
            if reply and result is not None:
                self.inbox.put({**result, "_tag": tag})

    # -- the network thread -----------------------------------------------------------

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except Exception:  # the window must learn of it rather than hang
            log.exception("network thread failed")
        finally:
            self.inbox.put({"t": "_closed"})

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        self._ready.set()
        conn = Connection(
            self.url, name=self.name, token=self.token, password=self.password, compact=True
        )
        welcome = await self._open(conn)
        if welcome is None:
            return
        self.conn = conn
        self.inbox.put(welcome)
        pump = asyncio.create_task(self._pump(conn))
        await self._stop.wait()
        pump.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pump
        await conn.close()

    async def _open(self, conn: Connection) -> dict[str, Any] | None:
        """Say hello, retrying while the server is unreachable; None if refused or stopped."""
        assert self._stop is not None
        while not self._stop.is_set():
            try:
                return await conn.open()
            except ServerError as exc:
                self.inbox.put({"t": "_hello_failed", "code": exc.code, "message": exc.message})
                return None
            except (OSError, TimeoutError, ConnectionLost) as exc:
                self.inbox.put({"t": "_offline", "message": f"cannot reach {self.url}: {exc}"})
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.retry):
                    await self._stop.wait()
        return None

    async def _pump(self, conn: Connection) -> None:
        async for msg in conn.pushed():
            self.inbox.put(msg)


class NullNet:
    """A stand-in with no server: records what the window would send.

    Used to render and click through scenes offline (tests, screenshots).
    """

    def __init__(self) -> None:
        self.inbox: Inbox = queue.Queue()
        self.sent: list[tuple[str, Any]] = []
        self.url = "offline"

    def start(self) -> None:
        pass

    def stop(self, timeout: float = 0.0) -> None:
        pass

    alive = False

    def request(self, msg: dict[str, Any], tag: str | None = None) -> None:
        self.sent.append(("request", msg))

    def join(self, room: str, seat: int | None = None) -> None:
        self.sent.append(("join", (room, seat)))

    def sign_out(self, everywhere: bool = False) -> None:
        self.sent.append(("sign_out", everywhere))

    def join_code(self, code: str) -> None:
        self.sent.append(("join_code", code))

    def watch(self, room: str) -> None:
        self.sent.append(("watch", room))

    def rejoin(self, room: str) -> None:
        self.sent.append(("rejoin", room))

    def act(self, room: str, action: dict[str, Any]) -> None:
        self.sent.append(("act", action))

    def chat(self, room: str, text: str) -> None:
        self.sent.append(("chat", (room, text)))
