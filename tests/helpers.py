"""Test helpers: a server in a subprocess, and a raw client that speaks bytes."""

from __future__ import annotations

import asyncio
import functools
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tilehall.protocol import SERVER_MESSAGES, check, decode, encode
from tilehall.server.config import Config, Limits
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent


_STARTED: list[subprocess.Popen[Any]] = []
"""Every program the tests started (servers, brokers), for :func:`stop_leftovers`."""


def in_process_config(data_dir: Path) -> Config:
    """The settings of a test's in-process server: a free port of 127.0.0.1, its own SQLite
    file in ``data_dir``, bots that move at once, no pings, no showcase game in its lists,
    and Lines master (the search extra) compiled only for a test that seats one."""
    return Config(
        showcase=False,
        port=0,
        data_dir=data_dir,
        limits=Limits(bot_delay=0, ping_interval=None),
        search_compile="demand",
    )


def started(proc: subprocess.Popen[Any]) -> subprocess.Popen[Any]:
    """Keep ``proc`` to be stopped at the end of the run, should its test fail to."""
    _STARTED.append(proc)
    return proc


def stop_leftovers() -> int:
    """Kill what the tests started and left running (a check that failed before its
    ``stop``); how many there were. Called when the test session ends."""
    left = [p for p in _STARTED if p.poll() is None]
    for proc in left:
        proc.kill()
        proc.wait(10)
    _STARTED.clear()
    return len(left)


def clone_tracked(into: Path) -> Path:
    """Copy the checkout's tracked files into ``into``, as a clone has them.

    pip builds in the source tree: building from this copy keeps the checkout's
    own build/ (and anything untracked) from feeding or receiving the build.
    """
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True
    ).stdout.split(b"\0")
    for name in filter(None, tracked):
        path = ROOT / name.decode()
        if path.is_file():
            (into / name.decode()).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, into / name.decode())
    return into


class SpawnedServer:
    """A server program run as a real process on a free port.

    Its port is read from the ``listening on ws://HOST:PORT`` line it logs on
    stderr, and its admin listener's from the ``admin listener on http://...``
    line before it; the rest of that log is kept in :attr:`log` (the first
    ``max_log`` lines, when given: a long load run logs more than it is worth
    keeping). ``umask``: the process's, when a test needs a given one.
    """

    def __init__(self, *args: str, max_log: int | None = None, umask: int | None = None) -> None:
        self.args = args
        self.max_log = max_log
        self.umask = umask
        self.proc: subprocess.Popen[str] | None = None
        self.port = 0
        self.admin_port = 0
        self.log: list[str] = []

    def command(self) -> list[str]:
        """The program's command line, read at each start (a test may change ``args``)."""
        raise NotImplementedError

    def start(self, timeout: float = 20.0) -> str:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        umask = self.umask

        def set_umask() -> None:
            if umask is not None:
                os.umask(umask)

        self.proc = started(
            subprocess.Popen(
                self.command(),
                cwd=ROOT,
                env=env,
                stderr=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                text=True,
                preexec_fn=None if umask is None else set_umask,
            )
        )
        assert self.proc.stderr is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            self.log.append(line)
            if m := re.search(r"admin listener on http://\S+:(\d+)", line):
                self.admin_port = int(m.group(1))
            m = re.search(r"listening on ws://[\d.]+:(\d+)", line)
            if m:
                self.port = int(m.group(1))
                # keep reading the log, or the server blocks once the pipe is full
                threading.Thread(target=self._drain, args=(self.proc.stderr,), daemon=True).start()
                return self.url
        raise RuntimeError("server did not start:\n" + "".join(self.log))

    def _drain(self, stream: Any) -> None:
        for line in stream:
            if self.max_log is None or len(self.log) < self.max_log:
                self.log.append(line)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def admin_url(self) -> str:
        """The admin listener: ``/metrics``, ``/admin/...`` and the health checks."""
        return f"http://127.0.0.1:{self.admin_port}"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def terminate(self) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(20)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


class ServerProcess(SpawnedServer):
    """``tilehall-server`` run as a real process on a free port.

    Keepalive pings are off (``ping_interval=0``) unless asked for: a test that
    pauses must not be cut off, while a load run measures the server as deployed.
    So is the server's own game (``showcase``): it is a room of the lists, and its
    bots play whenever a client watches it.
    """

    def __init__(
        self,
        data_dir: Path,
        *args: str,
        ping_interval: float = 0.0,
        max_log: int | None = None,
        umask: int | None = None,
        showcase: bool = False,
    ) -> None:
        super().__init__(*args, max_log=max_log, umask=umask)
        self.data_dir = data_dir
        self.ping_interval = ping_interval
        self.showcase = showcase

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "tilehall.server.app",
            "--port",
            "0",
            "--data-dir",
            str(self.data_dir),
            "--ping-interval",
            f"{self.ping_interval:g}",
            # Lines master (the search extra) compiles only where a test asks for it.
            "--search-compile",
            "demand",
            *(() if self.showcase else ("--no-showcase",)),
            *self.args,
        ]


def http_get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    """GET ``url`` (blocking): the status and the body, also for error statuses."""
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


class Raw:
    """A bare client: encodes and decodes frames itself; checks what the server sends."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.pushed: list[dict[str, Any]] = []
        self.token: str | None = None

    @classmethod
    async def open(
        cls,
        url: str,
        name: str | None = None,
        headers: dict[str, str] | None = None,
        *,
        source: str | None = None,
    ) -> Raw:
        """Connect (from the loopback address ``source``, say ``127.0.0.2``, when given:
        another address as the server counts them) and say hello as ``name`` if given."""
        extra: dict[str, Any] = {} if source is None else {"local_addr": (source, 0)}
        raw = cls(await connect(url, max_size=2**22, additional_headers=headers, **extra))
        if name is not None:
            welcome = await raw.call({"t": "hello", "v": 1, "name": name})
            assert welcome["t"] == "welcome", welcome
            raw.token = welcome["token"]
        return raw

    async def send(self, msg: dict[str, Any] | bytes) -> None:
        await self.ws.send(msg if isinstance(msg, bytes) else encode(msg))

    async def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        data = await asyncio.wait_for(self.ws.recv(), timeout)
        msg = decode(data, specs=SERVER_MESSAGES, max_size=2**22)
        check(msg)
        return msg

    async def call(self, msg: dict[str, Any] | bytes, rid: int = 7) -> dict[str, Any]:
        """Send with id ``rid`` and return the frame carrying ``re == rid``."""
        if isinstance(msg, dict):
            msg = {**msg, "id": rid}
        await self.send(msg)
        while True:
            reply = await self.recv()
            if reply.get("re") == rid:
                return reply
            self.pushed.append(reply)

    async def close(self) -> None:
        await self.ws.close()


# -- every frame of the suite, checked against protocol/tilehall.schema.json -------------------

SCHEMA_PATH = ROOT / "protocol" / "tilehall.schema.json"


class FrameSchema:
    """The checked-in JSON Schema, compiled once, for frames as msgpack decodes them.

    ``integer`` is redefined as msgpack's int: a float with an integral value
    is not one, as the codec says (JSON Schema's own rule would take ``1.0``).
    msgpack bin decodes to ``bytes``, which is none of the JSON types: it passes
    only where the schema names no type, as the codec refuses it elsewhere.

    Two validators, so that checking every frame of the suite costs little:
    ``fastjsonschema`` compiles the document to Python (draft-07 is the newest
    it knows, so it reads the draft-07 translation that protocol/asyncapi.yaml's
    payloads are made with, :func:`tools.contract.asyncapi.draft07`) and says yes
    or no; ``jsonschema``, the reference for 2020-12, reads again every frame
    the fast one refuses (for the message and the schema path, and as a second
    opinion). Draft-07 counts a float with an integral value as an integer and
    msgpack does not: that clause is cut out of the compiled code.
    """

    def __init__(self, path: Path = SCHEMA_PATH) -> None:
        import json

        from jsonschema import Draft202012Validator, validators

        doc = json.loads(path.read_text(encoding="utf-8"))
        checker = Draft202012Validator.TYPE_CHECKER.redefine(
            "integer", lambda _checker, v: isinstance(v, int) and not isinstance(v, bool)
        )
        cls = validators.extend(Draft202012Validator, type_checker=checker)
        self.validators = {
            side: cls({"$schema": doc["$schema"], "$defs": doc["$defs"], "$ref": f"#/$defs/{side}"})
            for side in ("client", "server")
        }
        self.document = cls(doc)
        import fastjsonschema

        # One document for both sides, compiled once: {"client": frame} or {"server": frame}.
        both = {
            "$defs": doc["$defs"],
            "type": "object",
            "properties": {side: {"$ref": f"#/$defs/{side}"} for side in ("client", "server")},
        }
        # The translation protocol/asyncapi.yaml's payloads are made with: the suite's
        # verdicts on every frame are then the AsyncAPI payloads' too.
        from tools.contract.asyncapi import draft07

        code = fastjsonschema.compile_to_code(draft07(both, "#/$defs/"), use_default=False)
        # draft-07 takes 7.0 for an integer; msgpack does not: drop that allowance.
        code, strict = _INTEGRAL.subn("", code)
        namespace: dict[str, Any] = {}
        exec(compile(code, "<tilehall.schema.json as draft-07>", "exec"), namespace)
        self.fast: Any = namespace["validate"]
        self.strict_integers = strict > 0
        """False if fastjsonschema's code changed shape: then every frame holding an
        integral float is read by the reference too."""
        self._fast_error = fastjsonschema.JsonSchemaException
        self._owner: dict[int, str] = {}
        for name, sub in doc["$defs"].items():
            self._note_owner(name, sub)

    def _note_owner(self, name: str, schema: Any) -> None:
        """Remember that every subschema of ``$defs/name`` is in it: a problem names its def."""
        if isinstance(schema, dict):
            self._owner.setdefault(id(schema), name)
            for sub in schema.values():
                self._note_owner(name, sub)
        elif isinstance(schema, list):
            for sub in schema:
                self._note_owner(name, sub)

    def valid(self, side: str, msg: Any) -> bool:
        """Whether ``msg`` is a frame of ``side``: the fast validator's word."""
        try:
            self.fast({side: msg})
        except self._fast_error:
            return False
        return self.strict_integers or not _integral_float(msg)

    def problem(self, side: str, msg: Any) -> str | None:
        """Why ``msg`` is no frame of ``side`` (``client`` or ``server``), or None if it is one."""
        if self.valid(side, msg):
            return None
        validator = self.validators[side]
        if validator.is_valid(msg):
            return None
        from jsonschema.exceptions import best_match

        error = best_match(validator.iter_errors(msg))
        path = "/".join(str(p) for p in error.absolute_schema_path)
        owner = self._owner.get(id(error.schema), "?")
        return f"{error.message} (at {error.json_path}; schema: $defs/{owner}, by {path})"


_INTEGRAL = re.compile(r" and not \(isinstance\((\w+), float\) and \1\.is_integer\(\)\)")
"""The clause of fastjsonschema's integer test that takes a float with an integral value."""


@functools.cache
def frame_schema() -> FrameSchema:
    """The checked-in schema, compiled once for the whole test session (a few seconds)."""
    return FrameSchema()


def _integral_float(value: Any) -> bool:
    """Whether ``value`` holds a float with an integral value anywhere (``1500.0``)."""
    if isinstance(value, float):
        return value.is_integer()
    if isinstance(value, dict):
        return any(_integral_float(v) for v in value.values())
    if isinstance(value, list):
        return any(_integral_float(v) for v in value)
    return False


class FrameCheck:
    """Checks every frame a test client sends and receives against :class:`FrameSchema`.

    A received frame must be a server frame. A sent frame that the schema
    refuses must be one the server refuses too (its codec, or for an ``act``
    every game's action table): tests send bad frames on purpose, but a frame
    the server takes must never be one the schema calls wrong. Problems are
    kept in :attr:`problems` for the test's teardown to report: a client's
    reader task would swallow an exception raised where the frame arrives.
    """

    def __init__(self, schema: FrameSchema | None = None) -> None:
        self._schema = schema
        self.problems: list[str] = []
        self.frames = 0
        self._valid: set[bytes] = set()
        self._pending: dict[tuple[int, int], str] = {}
        """(connection, id): the problem of a sent frame the schema refuses and the codec
        takes, reported only if the server's answer to it is no error."""

    @property
    def schema(self) -> FrameSchema:
        """The schema, compiled at the first frame (a test without frames never pays for it)."""
        if self._schema is None:
            self._schema = frame_schema()
        return self._schema

    def received(self, data: bytes, connection: object = None) -> None:
        """A frame the server sent to a test client (on ``connection``, when known)."""
        self.frames += 1
        from tilehall.protocol import unpack

        if self._pending and connection is not None:
            reply = unpack(data, max_size=2**22)
            problem = self._pending.pop((id(connection), reply.get("re")), None)
            if problem is not None and reply.get("t") != "error":
                self.problems.append(problem)
        if data in self._valid:  # the same update to many members, a view sent again...
            return
        msg = unpack(data, max_size=2**22)
        problem = self.schema.problem("server", msg) or _incomplete_view(msg)
        if problem is None:
            self._remember(data)
        else:
            self.problems.append(f"server frame {_short(msg)}: {problem}")

    def sent(self, data: bytes, connection: object = None) -> None:
        """A frame a test client sent to the server (on ``connection``, when known).

        A frame the codec takes and the schema refuses is a problem once the server's
        answer on that connection is no error (a lobby may refuse what the codec reads:
        ``create`` with a seat that is a number); without a connection or an ``id``
        to match the answer by, at once.
        """
        from tilehall.protocol import ProtocolError, decode, unpack

        self.frames += 1
        if data in self._valid:
            return
        try:
            msg = unpack(data)
        except ProtocolError:
            return  # not msgpack at all: nothing a schema reads
        if self.schema.valid("client", msg):
            self._remember(data)
            return
        try:
            decoded = decode(data, max_size=2**22)
        except ProtocolError:
            return  # refused by the codec too: a bad frame sent on purpose
        if decoded["t"] == "act" and not _some_game_takes(decoded["action"]):
            return
        problem = self.schema.problem("client", msg)
        if problem is None:
            return
        said = f"the server takes client frame {_short(msg)}, but: {problem}"
        rid = decoded.get("id")
        if connection is not None and rid is not None:
            self._pending[(id(connection), rid)] = said
        else:
            self.problems.append(said)

    def _remember(self, data: bytes) -> None:
        if len(self._valid) > 20_000:
            self._valid.clear()
        self._valid.add(data)

    def report(self) -> str:
        """Every problem, one a line (for a failing test's message)."""
        return f"{len(self.problems)} frame(s) break protocol/tilehall.schema.json:\n" + "\n".join(
            self.problems
        )


def _incomplete_view(msg: dict[str, Any]) -> str | None:
    """What a game's view, or an event of a frame that names its game, lacks of the fields its
    page gives (the schema requires no game's fields: PROTOCOL.md's examples shorten them)."""
    from tools.contract import shapes

    view = msg.get("view")
    if not isinstance(view, dict):
        return None
    game = str(view.get("game"))
    if game not in shapes.GAME_VIEWS:
        return None  # a game this process has not installed (a server's plugin): the schema's
    problems = []
    if view.get("status") in ("playing", "over"):
        fields = shapes.GAME_VIEWS.get(game, {})
        missing = [
            f for f, shape in fields.items() if not shape.startswith("opt ") and f not in view
        ]
        if missing:
            problems.append(f"the {game} view lacks {missing}")
    result = view.get("result")
    if isinstance(result, dict):
        fields = {**dict.fromkeys(shapes.RESULT_REQUIRED, ""), **shapes.GAME_RESULTS.get(game, {})}
        missing = [
            f for f, shape in fields.items() if not shape.startswith("opt ") and f not in result
        ]
        if missing:
            problems.append(f"the {game} result lacks {missing}")
    events = list(msg.get("events") or [])
    for missed in msg.get("missed") or []:
        events += missed.get("events") or []
    for event in events:
        if not isinstance(event, dict):
            continue  # a compact name or list: its template is the game page's
        name = str(event.get("e"))
        declared = shapes.GAME_EVENTS.get(game, {}).get(name) or shapes.COMMON_EVENTS.get(name)
        if declared is None:
            problems.append(f"{game} has no event {name!r}")
            continue
        missing = [
            f for f, shape in declared.items() if not shape.startswith("opt ") and f not in event
        ]
        if missing:
            problems.append(f"the {game} event {name!r} lacks {missing}")
    return "; ".join(problems) + " (the game's view, event and result fields)" if problems else None


def _some_game_takes(action: Any) -> bool:
    from tilehall.server.games import InvalidMove, all_games

    for game in all_games():
        try:
            game.normalize(action)
        except InvalidMove:
            continue
        return True
    return False


def _short(msg: Any, limit: int = 1500) -> str:
    text = repr(msg)
    return text if len(text) <= limit else text[:limit] + "..."


FRAME_CHECK: FrameCheck | None = None
"""The check the test clients report to (tests/conftest.py sets it for each test)."""


def frame_received(data: bytes) -> None:
    """A frame a client without a socket received (tests/memory.py): checked as any other."""
    if FRAME_CHECK is not None:
        FRAME_CHECK.received(data)


def frame_sent(data: bytes) -> bytes:
    """A frame a client without a socket sends (tests/memory.py): checked, and handed back."""
    if FRAME_CHECK is not None:
        FRAME_CHECK.sent(data)
    return data


def hook_frames() -> None:
    """Route every frame of every in-process WebSocket client through :data:`FRAME_CHECK`.

    ``ClientConnection`` is the one door of the test clients, the bundled
    clients' ``Connection`` included (``async for`` reads through ``recv``).
    The server's own connections are another class: production is untouched.
    """
    if getattr(ClientConnection, "_frames_hooked", False):
        return
    recv, send = ClientConnection.recv, ClientConnection.send

    async def checked_recv(self: ClientConnection, *args: Any, **kwargs: Any) -> Any:
        data = await recv(self, *args, **kwargs)
        if FRAME_CHECK is not None and isinstance(data, bytes):
            FRAME_CHECK.received(data, self)
        return data

    async def checked_send(self: ClientConnection, message: Any, *args: Any, **kw: Any) -> None:
        if FRAME_CHECK is not None and isinstance(message, bytes | bytearray):
            FRAME_CHECK.sent(bytes(message), self)
        await send(self, message, *args, **kw)

    ClientConnection.recv = checked_recv  # type: ignore[method-assign,assignment]
    ClientConnection.send = checked_send  # type: ignore[method-assign,assignment]
    ClientConnection._frames_hooked = True  # type: ignore[attr-defined]
