from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from tilehall.server.app import Server

from tests import helpers
from tests.memory import House

# Speed is measured in bench/, not asserted here: on a shared 2-core machine a
# per-example deadline only makes property tests flaky.
settings.register_profile("tilehall", deadline=None)
settings.load_profile("tilehall")


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    """A real server on 127.0.0.1, a free port, its own SQLite file; bots move at once."""
    srv = Server(helpers.in_process_config(tmp_path))
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


@pytest.fixture(autouse=True)
def frames_match_the_schema() -> Iterator[helpers.FrameCheck | None]:
    """Every frame a test client sends or receives is checked against the protocol's schema.

    A frame that breaks it fails the test that produced it, with the frame and
    the schema path. ``TILEHALL_FRAME_SCHEMA=0`` turns the check off (to measure its cost).
    """
    if os.environ.get("TILEHALL_FRAME_SCHEMA", "1") == "0":
        yield None
        return
    helpers.hook_frames()
    check = helpers.FrameCheck()  # compiles the schema at the session's first frame
    helpers.FRAME_CHECK = check
    try:
        yield check
    finally:
        helpers.FRAME_CHECK = None
    if check.problems:
        pytest.fail(check.report(), pytrace=False)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Nothing a test started runs on after the run: a check that failed before its
    ``stop`` must not leave a server or a broker behind for good."""
    helpers.stop_leftovers()


# The inner loop (`pytest -m "not slow"`) stays under 3 minutes on a 2-core machine only if
# a test that takes a second or more of its own is marked slow. A run that selects by
# marker names the unmarked ones that took that long, so that the next change marks them.
_LONG = 1.5
_long_unmarked: list[tuple[str, float]] = []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    start = time.perf_counter()
    try:
        return (yield)
    finally:
        took = time.perf_counter() - start
        if took >= _LONG and item.get_closest_marker("slow") is None:
            _long_unmarked.append((item.nodeid, took))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _long_unmarked and terminalreporter.config.option.markexpr:
        terminalreporter.section("tests to mark slow")
        for nodeid, took in sorted(_long_unmarked, key=lambda t: -t[1]):
            terminalreporter.write_line(f"{took:5.1f} s  {nodeid}")
