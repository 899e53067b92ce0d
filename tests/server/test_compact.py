"""Compact updates: every patch, applied to the view before it, gives the server's view.

Games of every kind are played in memory (the real lobby, rooms, engines, bots
and store) with, for each seat and for spectators, one member taking compact
updates and one taking whole views. At every seq the compact member's view,
patched from its first, must be exactly the whole view its twin got: for
players and spectators, with hidden racks, paused clocks and stand-ins alike.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tilehall.protocol import encode, patch
from tilehall.server.bots import find_bot
from tilehall.server.games import ishido
from tilehall.server.games.mathable import Mathable

from tests.helpers import Raw, ServerProcess
from tests.memory import House, MemoryMember

SETUPS = {
    "lines": ({}, 1),
    "ishido": ({}, 1),
    "matchit": ({}, 1),
    "linksame": ({}, 1),
    "mathable": ({"racks": "hidden", "turn_seconds": 30}, 2),
    "mathable4": ({"racks": "hidden"}, 4),
    "mathable-default": ({}, 2),
}


def follow(member: MemoryMember, room: str) -> list[tuple[int, dict, list[dict] | None]]:
    """The views ``member`` holds after each frame about ``room``, patches applied, with
    the events of each update (those sent by name rebuilt from the view)."""
    held: dict | None = None
    derived: dict = {}
    out = []
    for frame in member.frames:
        if frame.get("room") != room:
            continue
        if frame["t"] == "joined":
            held = frame["view"]
            derived = frame.get("derived", derived)
            out.append((frame["seq"], held, None))  # a snapshot: no events
        elif frame["t"] == "update":
            if "patch" in frame:
                assert held is not None
                held = patch.apply(held, frame["patch"])
            else:
                held = frame["view"]
            out.append((frame["seq"], held, patch.expand_events(frame["events"], held, derived)))
    return out


async def play(house: House, name: str, seed: int, moves: int) -> tuple[MemoryMember, MemoryMember]:
    """Play ``moves`` steps; returns seat 0's compact member and its whole-view twin."""
    options, seats = SETUPS[name]
    game = "mathable" if name.startswith("mathable") else name
    players = [await house.player(f"P{i}") for i in range(seats)]
    twins = [MemoryMember(f"twin{i}") for i in range(seats)]
    for player, twin in zip(players, twins, strict=True):
        await house.call(twin, {"t": "hello", "v": 1, "token": player.token})
    create = {"t": "create", "game": game, "options": options}
    if seats > 1:
        create["seats"] = [f"P{i}" for i in range(seats)]
    room = (await house.call(players[0], create))["room"]
    compact_watcher, full_watcher = await house.player("W1"), await house.player("W2")
    for i, (player, twin) in enumerate(zip(players, twins, strict=True)):
        await house.call(player, {"t": "join", "room": room, "compact": True})
        await house.call(twin, {"t": "join", "room": room})
        if i == 0:  # a spectator of each kind from before the start
            await house.call(compact_watcher, {"t": "watch", "room": room, "compact": True})
            await house.call(full_watcher, {"t": "watch", "room": room})
    rng = random.Random(seed)
    live = house.lobby.rooms[room]
    late = None
    for step in range(moves):
        await live.quiet()
        engine = live.engine
        if engine is None or engine.status.value != "playing":
            break
        if step == moves // 2:  # a compact spectator joining mid-game starts from its view
            late = await house.player("Late")
            await house.call(late, {"t": "watch", "room": room, "compact": True})
        house.clock.advance(rng.choice([0.2, 2.0, 45.0]))
        await live.quiet()
        engine = live.engine
        if engine.status.value != "playing":
            break
        seat = engine.to_move if engine.to_move is not None else 0
        if engine.paused is not None:
            action = {"do": "resume"}
        else:
            bot = find_bot(game, "easy" if game == "mathable" else "normal")(rng=rng, budget=0.01)
            action = bot.choose(engine.view(seat)) or {"do": "quit"}
            if game != "mathable" and rng.random() < 0.1:
                action = {"do": "undo"} if game != "linksame" or step % 2 else {"do": "pause"}
        await house.call(players[seat], {"t": "act", "room": room, "action": action})
    await live.quiet()

    def check(compact_member: MemoryMember, full_member: MemoryMember) -> None:
        full = {seq: (view, events) for seq, view, events in follow(full_member, room)}
        patched = follow(compact_member, room)
        assert len(patched) > 1
        for seq, view, events in patched:
            want = {k: v for k, v in full[seq][0].items() if k != "now"}
            got = {k: v for k, v in view.items() if k != "now"}
            assert got == want, (name, seq)
            if events is not None:
                assert events == full[seq][1], (name, seq)

    for player, twin in zip(players, twins, strict=True):
        check(player, twin)
    check(compact_watcher, full_watcher)
    if late is not None:
        check(late, full_watcher)
    assert any("patch" in f for f in players[0].frames), "compact members got patches"
    assert not any("patch" in f for f in twins[0].frames), "the others whole views"
    named = [ev for f in players[0].frames if f["t"] == "update" for ev in f["events"]]
    if game in ("ishido", "mathable"):  # the games with templates use them
        assert any(isinstance(ev, str) for ev in named), "events by name"
    if game == "mathable" and options.get("racks") != "hidden":
        assert any(isinstance(ev, list) for ev in named), "events by their values"
    assert all(
        isinstance(ev, dict) for f in twins[0].frames if f["t"] == "update" for ev in f["events"]
    ), "whole events for the others"
    return players[0], twins[0]


@pytest.mark.parametrize("name", sorted(SETUPS))
@settings(
    max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 2**31))
@pytest.mark.slow  # whole games, every view rebuilt
async def test_patches_rebuild_every_view_for_players_and_spectators(tmp_path_factory, name, seed):
    house = await House.open(tmp_path_factory.mktemp("house"), bot_delay=0)
    try:
        await play(house, name, seed, 40)
    finally:
        await house.close()
    # Ishido's views share one list per stone and per square across every game: a view
    # changed in place anywhere on the way (room, patch, events, bots) would show here.
    assert tuple([c, s] for c in range(6) for s in range(6)) == ishido._WIRE
    assert tuple(tuple([r, c] for c in range(12)) for r in range(8)) == ishido._SQUARES


def median_update(member: MemoryMember, kind: str) -> int:
    """The median size of ``member``'s updates that carry ``kind`` (``patch`` or ``view``)."""
    sizes = sorted(len(encode(f)) for f in member.frames if f["t"] == "update" and kind in f)
    assert len(sizes) > 10
    return sizes[len(sizes) // 2]


async def test_a_game_that_does_not_track_is_diffed_for_every_audience(tmp_path, monkeypatch):
    """A game whose engine keeps no record of its changes (a plugin's may not) has each
    audience's view built and diffed: Mathable made so, hidden racks and a turn clock, every
    compact member's views against its whole-view twin's."""
    monkeypatch.setattr(Mathable, "tracks_changes", False)
    house = await House.open(tmp_path, bot_delay=0)
    try:
        compact, _ = await play(house, "mathable", 5, 40)
    finally:
        await house.close()
    assert any("patch" in f for f in compact.frames)


async def test_a_mathable_update_with_a_patch_is_under_a_sixth_of_a_whole_one(tmp_path):
    """Mathable resends its fixed squares, its board and the unseen tiles in every whole
    view; a patch carries what moved (a game on the default options, as most are).

    Measured: a median of 131-132 bytes against 1,004-1,005 (0.13). Keys by name and
    events whole were 250-260 (0.25), of which about 100 were the events.
    """
    house = await House.open(tmp_path, bot_delay=0)
    try:
        compact, full = await play(house, "mathable-default", 3, 30)
    finally:
        await house.close()
    patches, views = median_update(compact, "patch"), median_update(full, "view")
    assert patches <= 0.16 * views, (patches, views)


async def test_an_ishido_update_with_a_patch_is_at_most_150_bytes(tmp_path):
    """A placement changes a board cell, ``last``, the counters, the stone and its legal
    squares. Measured here: a median of 124-130 bytes (keys by name: about 50 more)
    against 517-523 for the whole view."""
    house = await House.open(tmp_path, bot_delay=0)
    try:
        compact, full = await play(house, "ishido", 3, 40)
    finally:
        await house.close()
    assert median_update(compact, "patch") <= 150, median_update(compact, "patch")
    assert median_update(full, "view") > 500


async def test_compact_updates_over_a_real_socket(tmp_path):
    server = ServerProcess(tmp_path)
    server.start()
    try:
        ada = await Raw.open(server.url)
        welcome = await ada.call({"t": "hello", "v": 1, "name": "Ada", "compact": True})
        assert welcome["compact"] is True
        room = (await ada.call({"t": "create", "game": "ishido"}))["room"]
        joined = await ada.call({"t": "join", "room": room})
        view = joined["view"]
        for _ in range(5):
            update = await ada.call(
                {"t": "act", "room": room, "action": {"do": "place", "at": view["legal"][0]}}
            )
            assert "patch" in update and "view" not in update
            view = patch.apply(view, update["patch"])
            assert view["legal"], "the patched view is the game's: it says where to play"
        # a join again (a resync, or a plain request) brings the whole view, equal to ours
        again = await ada.call({"t": "join", "room": room})
        assert again["view"] == view
        # a room joined without compact, by a connection that asked for it, gets whole views
        bob = await Raw.open(server.url, "Bob")
        await bob.call({"t": "watch", "room": room, "compact": False})
        await ada.call(
            {"t": "act", "room": room, "action": {"do": "place", "at": view["legal"][0]}}
        )
        pushed = await bob.recv()
        while pushed["t"] != "update":
            pushed = await bob.recv()
        assert "view" in pushed
    finally:
        server.stop()
