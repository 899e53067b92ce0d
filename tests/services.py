"""Real services for tests: a throw-away PostgreSQL schema and a private Mosquitto broker.

Tests that need them skip, with the reason, only when the service is genuinely
absent: no ``mosquitto`` binary, or no PostgreSQL answering at
``$TILEHALL_TEST_PG`` (default ``postgresql://postgres@127.0.0.1:5432/test``).
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

PG_URL = os.environ.get("TILEHALL_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")

_pg_problem: str | None = None
_pg_checked = False


async def postgres_problem() -> str | None:
    """Why PostgreSQL cannot be used here, or None when it can (checked once)."""
    global _pg_checked, _pg_problem
    if _pg_checked:
        return _pg_problem
    _pg_checked = True
    try:
        import asyncpg
    except ImportError:
        _pg_problem = "asyncpg is not installed (pip install -e '.[cluster]')"
        return _pg_problem
    try:
        conn = await asyncpg.connect(PG_URL, timeout=5)
    except (TimeoutError, OSError, asyncpg.PostgresError) as exc:
        _pg_problem = f"no PostgreSQL at {PG_URL} ({exc.__class__.__name__}: {exc})"
    else:
        await conn.close()
    return _pg_problem


async def require_postgres() -> None:
    if (problem := await postgres_problem()) is not None:
        pytest.skip(problem)


@asynccontextmanager
async def pg_schema() -> AsyncIterator[str]:
    """A fresh schema; yields a store URL whose search_path is that schema; drops it after."""
    import asyncpg

    await require_postgres()
    name = "t_" + secrets.token_hex(6)
    conn = await asyncpg.connect(PG_URL)
    try:
        await conn.execute(f"CREATE SCHEMA {name}")
        sep = "&" if "?" in PG_URL else "?"
        yield f"{PG_URL}{sep}search_path={name}"
    finally:
        await conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
        await conn.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def require_mosquitto() -> str:
    path = shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if Path(p).exists()),
        None,
    )
    if path is None:
        pytest.skip("the mosquitto binary is not installed (apt-get install mosquitto)")
    return path


class Mosquitto:
    """A private broker on a free port, with its own configuration file; can be restarted."""

    def __init__(self, workdir: Path) -> None:
        self.binary = require_mosquitto()
        self.port = free_port()
        self.conf = workdir / "mosquitto.conf"
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
        )
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "-c", str(self.conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto exited with {self.proc.returncode}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not start listening")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.proc = None
