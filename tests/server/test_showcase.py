"""The server's own game (``--no-showcase`` turns it off): an all-COMP Mathable kept going
for the lobby to show while nobody plays in public, replaced when over, and on nobody's
budget, table, rating, quick match or history.

End to end over real WebSockets with a raw client; the rules of when one is made,
step by step on the in-memory lobby and its fake clock.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tilehall.server.app import Server, parse_args
from tilehall.server.config import Config, Limits
from tilehall.server.lobby import showcase
from tilehall.server.lobby.showcase import Showcase
from tilehall.server.store.errors import StoreUnavailable
from tilehall.server.store.sqlite import SQLiteStore

from tests.helpers import Raw
from tests.memory import House


@pytest.fixture
async def shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Server]:
    """A server that keeps a showcase, looking every 0.1 s, the next 0.5 s after one ends."""
    monkeypatch.setattr(showcase, "LOOK_EVERY", 0.1)
    limits = Limits(bot_delay=0, bot_think=0.05, showcase_pause=0.5, max_rooms_per_player=1)
    srv = Server(Config(port=0, data_dir=tmp_path, limits=limits, search_compile="demand"))
    await srv.start()
    yield srv
    await srv.stop()


async def listed_showcases(raw: Raw, **filters: Any) -> list[dict[str, Any]]:
    reply = await raw.call({"t": "rooms", **filters})
    return [r for r in reply["rooms"] if r.get("showcase")]


async def wait_for_showcase(raw: Raw, other_than: str | None = None) -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        found = [r for r in await listed_showcases(raw) if r["room"] != other_than]
        found = [r for r in found if r["status"] != "over"]
        if found:
            return found[0]
        await asyncio.sleep(0.05)
    raise AssertionError("no showcase listed")


async def made_by_a_run(config: Config) -> str:
    """Run a server on ``config`` until it lists its showcase, then stop it: the room's id."""
    server = Server(config)
    await server.start()
    try:
        raw = await Raw.open(f"ws://127.0.0.1:{server.port}", "Ada")
        made = str((await wait_for_showcase(raw))["room"])
        await raw.close()
    finally:
        await server.stop()
    return made


def test_it_is_on_by_default_and_the_host_may_turn_it_off():
    assert parse_args([]).showcase is True
    assert parse_args(["--no-showcase"]).showcase is False


@pytest.mark.slow
async def test_the_lobby_lists_it_a_client_watches_it_to_its_end_and_a_new_one_follows(
    shown: Server,
):
    url = f"ws://127.0.0.1:{shown.port}"
    ada = await Raw.open(url, "Ada")
    first = await wait_for_showcase(ada)
    assert first["game"] == "mathable" and first["status"] == "playing"
    assert [(s["name"], s["bot"]) for s in first["seats"]] == [("COMP", True), ("COMP", True)]
    assert first["paused"] == "unwatched", "nobody watches: its bots stand still"
    assert first["private"] is False and first["bots_at"] is None
    assert await listed_showcases(ada, status="playing") == [first]

    # Nobody's budget: Ada may make her one room while it runs.
    made = await ada.call({"t": "create", "game": "mathable", "seats": ["Ada", None]})
    assert made["t"] == "created", made
    assert (await ada.call({"t": "join", "room": made["room"]}))["t"] == "joined"
    # Quick match never seats anyone in it: it makes Bob a room of his own.
    bob = await Raw.open(url, "Bob")
    matched = await bob.call({"t": "match", "game": "mathable", "bots_after": 600})
    assert matched["t"] == "joined" and matched["room"] != first["room"]
    await bob.call({"t": "leave", "room": matched["room"]})
    # Nor is it joined: its seats are the bots'.
    refused = await bob.call({"t": "join", "room": first["room"]})
    assert refused["t"] == "error"

    watched = await ada.call({"t": "watch", "room": first["room"]})
    assert watched["t"] == "joined" and watched["seat"] is None, watched
    seq, status = watched["seq"], watched["view"]["status"]
    deadline = time.monotonic() + 120
    while status != "over":  # the room's summary, pushed to its members, says it ended
        assert time.monotonic() < deadline, "the showcase did not end"
        frame = await ada.recv(timeout=30)
        if frame["room"] != first["room"]:
            continue
        if frame["t"] == "update":
            assert frame["seq"] > seq
            seq = frame["seq"]
        elif frame["t"] == "room":
            status = frame["status"]
    assert seq > watched["seq"] + 5, "its bots played while watched"

    second = await wait_for_showcase(ada, other_than=first["room"])
    assert second["room"] != first["room"]
    assert len([r for r in await listed_showcases(ada) if r["status"] != "over"]) == 1

    # Nobody's game: no history, no table, no rating, no unfinished room.
    history = await ada.call({"t": "history"})
    assert history["rooms"] == []
    scores = await ada.call({"t": "scores", "game": "mathable"})
    assert scores["entries"] == [], "the bots' game is on no table"
    board = await ada.call({"t": "leaderboard", "game": "mathable"})
    assert board["entries"] == [] and board["mine"]["games"] == 0, "nor rated"
    again = await Raw.open(url)
    welcome = await again.call({"t": "hello", "v": 1, "token": ada.token})
    assert welcome["rooms"] == [made["room"]]
    for raw in (ada, bob, again):
        await raw.close()


@pytest.mark.slow
async def test_it_survives_a_restart_and_is_not_doubled(tmp_path: Path, monkeypatch):
    """A showcase is a room like any other across a restart: rebuilt, and kept."""
    monkeypatch.setattr(showcase, "LOOK_EVERY", 0.05)
    config = Config(port=0, data_dir=tmp_path, limits=Limits(bot_delay=0, showcase_pause=0))
    kept = await made_by_a_run(config)
    second = Server(config)
    await second.start()
    try:
        raw = await Raw.open(f"ws://127.0.0.1:{second.port}", "Bob")
        await asyncio.sleep(0.5)  # ten looks
        assert [r["room"] for r in await listed_showcases(raw)] == [kept]
        await raw.close()
    finally:
        await second.stop()


@pytest.mark.slow
async def test_started_without_it_a_server_closes_the_one_an_earlier_run_left(
    tmp_path: Path, monkeypatch
):
    """``--no-showcase`` after a run that kept one: the leftover is not listed as a game
    nobody will ever play on, nor can anyone watch it; a later run that keeps a showcase
    makes a new one."""
    monkeypatch.setattr(showcase, "LOOK_EVERY", 0.05)
    config = Config(port=0, data_dir=tmp_path, limits=Limits(bot_delay=0, showcase_pause=0))
    left = await made_by_a_run(config)
    second = Server(replace(config, showcase=False))
    await second.start()
    try:
        raw = await Raw.open(f"ws://127.0.0.1:{second.port}", "Bob")
        assert [r for r in await listed_showcases(raw) if r["status"] != "over"] == []
        refused = await raw.call({"t": "watch", "room": left})
        assert refused["t"] == "error", refused
        await raw.close()
    finally:
        await second.stop()
    third = Server(config)
    await third.start()
    try:
        raw = await Raw.open(f"ws://127.0.0.1:{third.port}", "Cy")
        assert (await wait_for_showcase(raw, other_than=left))["room"] != left
        await raw.close()
    finally:
        await third.stop()


# -- when one is made: the keeper's looks on the in-memory lobby ------------------------------


async def test_none_is_made_while_people_play_in_public_and_the_pause_is_kept(house: House):
    keeper = Showcase(house.lobby.registry, house.lobby.making)
    ada = await house.player("Ada")
    room = (await house.call(ada, {"t": "create", "game": "mathable", "seats": ["Ada", "COMP"]}))[
        "room"
    ]
    await house.call(ada, {"t": "join", "room": room})
    assert house.lobby.rooms[room].status.value == "playing"
    assert await keeper.step() is None, "a public game of people is the lobby's live game"

    await house.lobby.registry.close_room(house.lobby.rooms[room], "test")
    private = await house.call(
        ada, {"t": "create", "game": "mathable", "seats": ["Ada", "COMP"], "private": True}
    )
    await house.call(ada, {"t": "join", "code": private["code"]})
    made = await keeper.step()
    assert made is not None and house.lobby.rooms[made].record.showcase
    assert await keeper.step() is None, "one at a time"

    await house.lobby.registry.close_room(house.lobby.rooms[made], "test")
    assert await keeper.step() is None, "the pause after one ends"
    house.clock.advance(house.lobby.registry.config.limits.showcase_pause + 1)
    again = await keeper.step()
    assert again is not None and again != made


async def test_a_node_that_does_not_keep_it_makes_none(house: House):
    keeper = Showcase(house.lobby.registry, house.lobby.making)
    registry = house.lobby.registry
    registry.others.keeps_showcase = lambda: False  # type: ignore[method-assign]
    assert await keeper.step() is None
    assert not any(room.record.showcase for room in registry.rooms.values())


async def test_a_finished_showcase_is_deleted_a_day_after_it_ended(house: House):
    keeper = Showcase(house.lobby.registry, house.lobby.making)
    made = await keeper.step()
    assert made is not None
    await house.lobby.registry.close_room(house.lobby.rooms[made], "test")
    house.clock.advance(showcase.KEPT_FOR / 2)
    await keeper.step()
    assert await house.store.room(made) is not None, "kept a day"
    house.clock.advance(showcase.KEPT_FOR / 2 + showcase.PURGE_EVERY)
    await keeper.step()
    assert await house.store.room(made) is None and await house.store.journal(made) == []


@pytest.fixture
async def lockable(tmp_path: Path) -> AsyncIterator[tuple[House, sqlite3.Connection]]:
    """An in-memory lobby on a SQLite file with a short busy timeout, and another connection
    to that file, which takes its write lock with ``BEGIN EXCLUSIVE``: the store really
    unable to write, as another process holding the lock makes it."""
    path = tmp_path / "tilehall.sqlite3"
    house = await House.open(tmp_path, SQLiteStore(path, busy_timeout=0.2))
    other = sqlite3.connect(path, isolation_level=None)
    yield house, other
    other.close()
    await house.close()


async def test_a_store_that_cannot_write_makes_no_showcase_until_it_can(lockable):
    """The store really failing (another connection holds SQLite's write lock past the busy
    timeout): the keeper's look fails as a write does, the lobby marks the store down and
    lists no half-made room; once the lock goes, the next look makes the showcase."""
    house, other = lockable
    registry = house.lobby.registry
    keeper = Showcase(registry, house.lobby.making)
    other.execute("BEGIN EXCLUSIVE")
    with pytest.raises(StoreUnavailable):
        await keeper.step()
    assert not any(room.record.showcase for room in registry.rooms.values())
    run = asyncio.ensure_future(keeper.run_forever())  # what the server runs: it goes on
    for _ in range(3):  # three looks, each failing after the busy timeout
        house.clock.advance(showcase.LOOK_EVERY)
        await asyncio.sleep(0.3)
    assert not run.done() and registry.health.up is False
    assert not any(room.record.showcase for room in registry.rooms.values())
    other.execute("ROLLBACK")
    for _ in range(100):
        if any(room.record.showcase for room in registry.rooms.values()):
            break
        house.clock.advance(showcase.LOOK_EVERY)
        await asyncio.sleep(0.05)
    run.cancel()
    made = next(r for r in registry.rooms.values() if r.record.showcase)
    assert made.status.value == "playing" and await house.store.room(made.id) is not None


async def test_a_showcase_the_store_cannot_close_is_let_go_unlisted(lockable):
    """``--no-showcase`` at start-up with the store unable to write (SQLite's write lock held
    past the busy timeout): closing the leftover fails, the start goes on; it is no longer
    listed, and the store still holds it unfinished, for the next start to close."""
    house, other = lockable
    registry = house.lobby.registry
    keeper = Showcase(registry, house.lobby.making)
    made = await keeper.step()
    assert made is not None
    other.execute("BEGIN EXCLUSIVE")
    assert await keeper.let_go() == 1  # no StoreUnavailable out of it: the start goes on
    assert made not in registry.rooms and made not in registry.listed
    assert registry.health.up is False
    other.execute("ROLLBACK")
    assert [r.id for r in await house.store.unfinished_rooms(registry.config.node)] == [made]
