"""The servers a load run measures: ``tilehall-server`` and the bare baseline, as processes.

Both run in subprocesses so that their memory and CPU can be read from
``/proc/<pid>`` apart from the harness's own. They are started and read like
the tests' servers (:class:`tests.helpers.ServerProcess`), on the same event
loop, with keepalive pings on as deployed.
"""

from __future__ import annotations

import contextlib
import resource
import subprocess
import sys
from pathlib import Path

from tilehall.server.config import Limits

from tests.helpers import ServerProcess, SpawnedServer

__all__ = ["BareServer", "raise_nofile", "start_baseline", "start_tilehall", "stop"]

PING_INTERVAL = Limits().ping_interval or 0.0
"""Both servers ping as ``tilehall-server`` does by default."""

MAX_LOG = 2000
"""Lines of a server's log kept: a long run logs every finished game."""


def raise_nofile() -> None:
    """Open as many descriptors as allowed; the servers started after this inherit it."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class BareServer(SpawnedServer):
    """:mod:`bench.load.baseline` in a subprocess."""

    def __init__(self, *args: str, ping_interval: float = PING_INTERVAL) -> None:
        super().__init__(*args, max_log=MAX_LOG)
        self.ping_interval = ping_interval

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "bench.load.baseline",
            "--port",
            "0",
            "--ping-interval",
            f"{self.ping_interval:g}",
            *self.args,
        ]


class OtherPython(ServerProcess):
    """The server run by another Python than the harness's (another venv's build)."""

    python = sys.executable

    def command(self) -> list[str]:
        return [self.python, *super().command()[1:]]


def start_tilehall(
    data_dir: Path, loop: str = "asyncio", python: str | None = None
) -> ServerProcess:
    """``tilehall-server`` on a free port, with limits opened up for load."""
    srv = OtherPython(
        data_dir,
        # A load generator is one address sending far more than a person.
        "--rate",
        "1000000",
        "--burst",
        "1000000",
        "--bot-delay",
        "0",
        # Every room of the run belongs to the harness's one player.
        "--max-rooms-per-player",
        "0",
        # Its idle connections make a name each, all from this one address.
        "--names-per-address",
        "0",
        "--loop",
        loop,
        ping_interval=PING_INTERVAL,
        max_log=MAX_LOG,
    )
    if python is not None:
        srv.python = python
    srv.start(timeout=30.0)
    return srv


def start_baseline(loop: str = "asyncio") -> BareServer:
    srv = BareServer(*(["--uvloop"] if loop == "uvloop" else []))
    srv.start(timeout=30.0)
    return srv


def stop(srv: SpawnedServer) -> None:
    """Stop gracefully (SIGTERM), and kill what does not stop in time."""
    if srv.proc is not None and srv.proc.poll() is None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            srv.terminate()
    srv.stop()
