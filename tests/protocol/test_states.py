"""A room's states are wire strings: ``view.status`` and ``rooms[].status``."""

from __future__ import annotations

from tilehall.protocol import Status
from tilehall.server.games import Status as GamesStatus


def test_statuses_keep_their_wire_strings_and_order():
    assert [s.value for s in Status] == ["waiting", "playing", "over"]


def test_the_old_import_is_the_same_enum():
    assert GamesStatus is Status
