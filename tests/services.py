"""Real services for tests: a throw-away PostgreSQL schema and a private Mosquitto broker.

Tests that need them skip, with the reason, only when the service is genuinely
absent: no ``mosquitto`` binary, or no PostgreSQL answering at
``$TILEHALL_TEST_PG`` (default ``postgresql://postgres@127.0.0.1:5432/test``).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from tests.helpers import started

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
            # as deploy/mosquitto.conf: without it every relayed message waits ~40 ms
            "set_tcp_nodelay true\n"
        )
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> None:
        self.proc = started(
            subprocess.Popen(
                [self.binary, "-c", str(self.conf)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
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

    def stop(self, sig: int = signal.SIGKILL) -> None:
        """Stop it: SIGKILL by default; SIGTERM as a service manager's restart does (the
        broker then publishes its clients' Last Wills on the way out)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(10)
        self.proc = None


# -- services a test may really break ---------------------------------------------------------


def _pg_bin() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


class PrivatePostgres:
    """A PostgreSQL server of the test's own, on a free port, that the test may stop.

    The shared server at ``$TILEHALL_TEST_PG`` must keep running for everyone
    else; a test that stops the database stops this one. PostgreSQL refuses to
    run as root, so as root it runs as the ``postgres`` user.
    """

    def __init__(self, password: str | None = None) -> None:
        """``password``: the ``postgres`` user's, required by password authentication
        (none: anyone on 127.0.0.1 may connect, as the shared test server allows)."""
        bindir = _pg_bin()
        if bindir is None:
            pytest.skip("PostgreSQL's server programs (initdb, pg_ctl) are not installed")
        self.bindir = bindir
        self.port = free_port()
        # Not under the test's folder: pytest keeps that 0700 to root, and the
        # server runs as 'postgres'.
        self.dir = Path(tempfile.mkdtemp(prefix="tilehall-pg-"))
        self.data = self.dir / "data"
        self._as: list[str] = []
        if os.geteuid() == 0:
            runuser = shutil.which("runuser")
            if runuser is None:
                pytest.skip("running PostgreSQL as root needs runuser to drop to 'postgres'")
            self._as = [runuser, "-u", "postgres", "--"]
        if self._as:
            shutil.chown(self.dir, "postgres")
        auth = ["-A", "trust"]
        if password is not None:
            pwfile = self.dir / "pw"
            pwfile.write_text(password + "\n")
            if self._as:
                shutil.chown(pwfile, "postgres")
            auth = ["-A", "scram-sha-256", f"--pwfile={pwfile}"]
        self._run("initdb", "-D", str(self.data), *auth, "-U", "postgres", "--no-sync")

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, program: str, *args: str) -> None:
        done = subprocess.run(
            [*self._as, str(self.bindir / program), *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            cwd=self.dir,
            timeout=60,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed: {done.stderr.strip()}")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", "log", "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        """Stop it as an operator would (``fast``: sessions are terminated)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def close(self) -> None:
        with contextlib.suppress(RuntimeError):
            self.stop("immediate")
        shutil.rmtree(self.dir, ignore_errors=True)


class SmallDisk:
    """A filesystem of a few MiB that a test can fill, really (a tmpfs; needs root)."""

    def __init__(self, mountpoint: Path, size_kib: int = 4096) -> None:
        mountpoint.mkdir()
        self.path = mountpoint
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size_kib}k,mode=0700", "tmpfs", str(mountpoint)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a small filesystem to fill: {done.stderr.strip()}")
        self.filler = mountpoint / "filler"

    def fill(self) -> None:
        """Take every free byte left.

        Unbuffered: a buffered file keeps the part of its last write that did not
        fit and fails again when it is closed, unless the free space happened to
        be a whole number of writes.
        """
        with self.filler.open("ab", buffering=0) as f, contextlib.suppress(OSError):
            while True:
                f.write(b"\0" * 65536)

    def free(self) -> None:
        self.filler.unlink(missing_ok=True)

    def close(self) -> None:
        subprocess.run(["umount", "-l", str(self.path)], capture_output=True)
