"""End-to-end server tests run again with the store on PostgreSQL (``--db postgresql://``).

The test functions are the SQLite suite's own, imported: here the ``server`` and
``proc`` fixtures they ask for are backed by a fresh PostgreSQL schema instead.
"""

from __future__ import annotations

import pytest
from tilehall.server.app import Server
from tilehall.server.config import Config, Limits

from tests.helpers import ServerProcess
from tests.memory import House
from tests.server.test_lobby import (
    test_names_are_unique_case_insensitively,
    test_private_rooms_are_unlisted_and_joined_by_code,
    test_rooms_lists_public_rooms_with_seats_and_spectators,
)
from tests.server.test_recovery import (
    test_sigkill_and_restart_brings_rooms_back_exactly,
    test_sigterm_closes_connections_with_1001_and_keeps_everything,
)
from tests.server.test_room import (
    test_dropped_player_keeps_the_seat_and_catches_up,
    test_hidden_racks_never_reach_other_connections,
)
from tests.server.test_room_logic import (
    test_a_room_of_bots_waits_while_nobody_watches,
    test_finished_rooms_leave_memory_but_keep_their_record,
    test_quit_votes_end_the_game_and_fill_the_hall_of_fame,
)
from tests.services import pg_schema

__all__ = [
    "test_a_room_of_bots_waits_while_nobody_watches",
    "test_dropped_player_keeps_the_seat_and_catches_up",
    "test_finished_rooms_leave_memory_but_keep_their_record",
    "test_hidden_racks_never_reach_other_connections",
    "test_names_are_unique_case_insensitively",
    "test_private_rooms_are_unlisted_and_joined_by_code",
    "test_quit_votes_end_the_game_and_fill_the_hall_of_fame",
    "test_rooms_lists_public_rooms_with_seats_and_spectators",
    "test_sigkill_and_restart_brings_rooms_back_exactly",
    "test_sigterm_closes_connections_with_1001_and_keeps_everything",
]


@pytest.fixture
async def pg_url():
    async with pg_schema() as url:
        yield url


@pytest.fixture
async def server(tmp_path, pg_url):
    """A real server on a free port whose store is a fresh PostgreSQL schema."""
    config = Config(
        showcase=False,
        port=0,
        data_dir=tmp_path,
        db=pg_url,
        limits=Limits(bot_delay=0, ping_interval=None),
    )
    srv = Server(config)
    await srv.start()
    assert type(srv.store).__name__ == "PostgresStore"
    yield srv
    await srv.stop()


@pytest.fixture
async def house(tmp_path, pg_url):
    """The lobby in memory, its store a fresh PostgreSQL schema."""
    h = await House.open(tmp_path, db=pg_url)
    assert type(h.store).__name__ == "PostgresStore"
    yield h
    await h.close()


@pytest.fixture
def proc(tmp_path, pg_url):
    p = ServerProcess(tmp_path, "--db", pg_url)
    yield p
    p.stop()
