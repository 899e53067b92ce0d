from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import settings
from tilehall.server.app import Server
from tilehall.server.config import Config, Limits

from tests.memory import House

# Speed is measured in bench/, not asserted here: on a shared 2-core machine a
# per-example deadline only makes property tests flaky.
settings.register_profile("tilehall", deadline=None)
settings.load_profile("tilehall")


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    """A real server on 127.0.0.1, a free port, its own SQLite file; bots move at once."""
    srv = Server(Config(port=0, data_dir=tmp_path, limits=Limits(bot_delay=0, ping_interval=None)))
    await srv.start()
    yield srv
    await srv.stop()


@pytest.fixture
def url(server: Server) -> str:
    return f"ws://127.0.0.1:{server.port}"


@pytest.fixture
async def house(tmp_path: Path) -> AsyncIterator[House]:
    """The lobby and its rooms in memory: a real SQLite store, a fake clock, no sockets."""
    h = await House.open(tmp_path)
    yield h
    await h.close()
