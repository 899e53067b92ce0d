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
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from protocol import SERVER_MESSAGES, check, decode, encode

ROOT = Path(__file__).resolve().parent.parent


class ServerProcess:
    """``tilehall-server`` run as a real process on a free port."""

    def __init__(self, data_dir: Path, *args: str) -> None:
        self.data_dir = data_dir
        self.args = args
        self.proc: subprocess.Popen[str] | None = None
        self.port = 0
        self.log: list[str] = []

    def start(self, timeout: float = 20.0) -> str:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "server.app",
                "--port",
                "0",
                "--data-dir",
                str(self.data_dir),
                "--ping-interval",
                "0",
                *self.args,
            ],
            cwd=ROOT,
            env=env,
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
        )
        assert self.proc.stderr is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            self.log.append(line)
            m = re.search(r"listening on ws://[\d.]+:(\d+)", line)
            if m:
                self.port = int(m.group(1))
                # keep reading the log, or the server blocks once the pipe is full
                threading.Thread(target=self._drain, args=(self.proc.stderr,), daemon=True).start()
                return self.url
        raise RuntimeError("server did not start:\n" + "".join(self.log))

    def _drain(self, stream: Any) -> None:
        for line in stream:
            self.log.append(line)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

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


class Raw:
    """A bare client: encodes and decodes frames itself; checks what the server sends."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.pushed: list[dict[str, Any]] = []

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
