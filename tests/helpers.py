"""Test helpers: a server in a subprocess, and a raw client that speaks bytes."""

from __future__ import annotations

import asyncio
import os
import re
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
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent


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

        self.proc = subprocess.Popen(
            self.command(),
            cwd=ROOT,
            env=env,
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
            preexec_fn=None if umask is None else set_umask,
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
    """

    def __init__(
        self,
        data_dir: Path,
        *args: str,
        ping_interval: float = 0.0,
        max_log: int | None = None,
        umask: int | None = None,
    ) -> None:
        super().__init__(*args, max_log=max_log, umask=umask)
        self.data_dir = data_dir
        self.ping_interval = ping_interval

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
        cls, url: str, name: str | None = None, headers: dict[str, str] | None = None
    ) -> Raw:
        raw = cls(await connect(url, max_size=2**22, additional_headers=headers))
        if name is not None:
            welcome = await raw.call({"t": "hello", "v": 1, "name": name})
            assert welcome["t"] == "welcome", welcome
            raw.token = welcome["token"]
        return raw

    async def send(self, msg: dict[str, Any] | bytes) -> None:
        await self.ws.send(msg if isinstance(msg, bytes) else encode(msg))

    async def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        data = await asyncio.wait_for(self.ws.recv(), timeout)
        msg = decode(data, specs=SERVER_MESSAGES, max_size=2**22)  # type: ignore[arg-type]
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
