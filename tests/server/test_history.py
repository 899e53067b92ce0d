"""History and replays: finished games listed by player, and stepped through from the journal.

In memory (the real lobby, rooms, engines and SQLite store, a clock the test
moves), a property test that a replay is exactly what was played, and end to
end over a real socket.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tilehall.protocol import encode
from tilehall.server.bots import find_bot
from tilehall.server.games import find_game
from tilehall.server.games.base import START, step
from tilehall.server.lobby import PAGE_BYTES
from tilehall.server.room.replays import Replays
from tilehall.server.store.records import JournalEntry, RoomRecord, SeatRecord

from tests.helpers import Raw, ServerProcess
from tests.memory import House, MemoryMember
from tests.server.test_rooms_bounds import longest_name


async def quit_linksame(house: House, member: MemoryMember) -> tuple[str, dict]:
    """A LinkSame game played one pair, then quit: a finished room with a few entries."""
    room = (await house.call(member, {"t": "create", "game": "linksame"}))["room"]
    joined = await house.call(member, {"t": "join", "room": room})
    view = joined["view"]
    bot = find_bot("linksame", "normal")(rng=random.Random(1), budget=0.05)
    await house.call(member, {"t": "act", "room": room, "action": bot.choose(view)})
    house.clock.advance(1)
    over = await house.call(member, {"t": "act", "room": room, "action": {"do": "quit"}})
    assert over["view"]["status"] == "over"
    await house.lobby.rooms[room].quiet()
    return room, over


async def test_history_lists_your_games_newest_first_with_their_outcome(house):
    ada = await house.player("Ada")
    first, _ = await quit_linksame(house, ada)
    house.clock.advance(60)
    second, over = await quit_linksame(house, ada)
    page = await house.call(ada, {"t": "history"})
    assert page["player"] == "Ada" and page["next"] is None
    assert [r["room"] for r in page["rooms"]] == [second, first]
    entry = page["rooms"][0]
    assert entry["game"] == "linksame" and entry["outcome"] == "finished"
    assert entry["players"] == [{"name": "Ada", "bot": None}] and entry["seat"] == 0
    assert entry["scores"] == over["view"]["scores"]
    assert entry["finished"] == house.clock.time()
    # pages of one, following next
    one = await house.call(ada, {"t": "history", "limit": 1})
    two = await house.call(ada, {"t": "history", "limit": 1, "cursor": one["next"]})
    assert [one["rooms"][0]["room"], two["rooms"][0]["room"]] == [second, first]
    assert two["next"] is None


async def test_someone_elses_history_hides_their_private_rooms(house):
    ada, wes = await house.player("Ada"), await house.player("Wes")
    public, _ = await quit_linksame(house, ada)
    made = await house.call(ada, {"t": "create", "game": "linksame", "private": True})
    await house.call(ada, {"t": "join", "room": made["room"]})
    await house.call(ada, {"t": "act", "room": made["room"], "action": {"do": "quit"}})
    await house.lobby.rooms[made["room"]].quiet()
    mine = await house.call(ada, {"t": "history"})
    assert {r["room"] for r in mine["rooms"]} == {public, made["room"]}
    theirs = await house.call(wes, {"t": "history", "player": "ADA"})
    assert theirs["player"] == "Ada" and [r["room"] for r in theirs["rooms"]] == [public]
    refused = await house.call(wes, {"t": "replay", "room": made["room"], "seq": 1})
    assert refused["code"] == "unknown_room", "a private room is not replayed for others"
    assert (await house.call(ada, {"t": "replay", "room": made["room"], "seq": 1}))["seq"] == 1


@pytest.mark.slow  # whole games played and replayed
async def test_a_history_page_of_the_longest_names_stays_under_the_frame_limit(tmp_path):
    """A hundred four-seat Mathable games whose four players took the longest names (24
    letters of four UTF-8 bytes) come to about 66.5 KB, past the 64 KiB frame limit: a
    page ends at PAGE_BYTES and its next goes on, until every game was listed once."""
    house = await House.open(tmp_path, max_rooms_per_player=0)
    try:
        names = [longest_name(i) for i in range(4)]
        players = [await house.player(name) for name in names]
        create = {"t": "create", "game": "mathable", "seats": names}
        played = []
        for _ in range(130):
            room = (await house.call(players[0], create))["room"]
            for p in players:
                assert (await house.call(p, {"t": "join", "room": room}))["t"] == "joined"
            for p in players:  # every seat votes to quit: the game ends with its result
                await house.call(p, {"t": "act", "room": room, "action": {"do": "quit"}})
            await house.lobby.rooms[room].quiet()
            played.append(room)
            house.clock.advance(1)
        whole = await house.call(players[0], {"t": "history", "limit": 100})
        assert 0 < len(whole["rooms"]) < 100 and whole["next"] is not None
        assert len(encode(whole)) <= PAGE_BYTES + 200
        assert all(r["outcome"] in ("won", "lost", "drawn") for r in whole["rooms"])
        walked, entries, sizes, cursor = [], [], [], None
        while True:
            req = {"t": "history", "limit": 100} | ({"cursor": cursor} if cursor else {})
            page = await house.call(players[2], req | {"player": names[0]})
            sizes.append(len(encode(page)))
            walked += [r["room"] for r in page["rooms"]]
            entries += page["rooms"]
            cursor = page["next"]
            if cursor is None:
                break
        assert walked == played[::-1], "every game once, newest first"
        assert max(sizes) <= PAGE_BYTES + 200 and len(sizes) >= 2, sizes
        uncut = sum(len(encode(e)) for e in entries[:100])
        assert uncut > 64 * 1024, f"a page of 100 would be {uncut} bytes"
        # a page that fits is not cut: the default 20 come whole
        assert len((await house.call(players[1], {"t": "history"}))["rooms"]) == 20
    finally:
        await house.close()


async def test_a_mathable_game_against_a_bot_replays_with_every_rack_shown(tmp_path):
    house = await House.open(tmp_path, bot_delay=0)
    try:
        ada = await house.player("Ada")
        create = {"t": "create", "game": "mathable", "seats": ["Ada", "COMP:easy"]}
        create["options"] = {"racks": "hidden"}
        room = (await house.call(ada, create))["room"]
        await house.call(ada, {"t": "join", "room": room})
        # the only person votes to quit: the game ends there, scored as it stands
        over = await house.call(ada, {"t": "act", "room": room, "action": {"do": "quit"}})
        assert over["view"]["status"] == "over"
        await house.lobby.rooms[room].quiet()
        [entry] = (await house.call(ada, {"t": "history"}))["rooms"]
        scores, winners = entry["scores"], entry["result"]["winners"]
        assert scores == over["view"]["scores"]
        assert entry["outcome"] == (
            "drawn" if len(winners) == 2 else "won" if 0 in winners else "lost"
        )
        assert entry["players"][1] == {"name": "COMP", "bot": "easy"}
        first = await house.call(ada, {"t": "replay", "room": room, "seq": 1})
        assert first["events"][0] == {"e": "started"} and first["players"] == ["Ada", "COMP"]
        view = first["view"]
        assert view["seat"] is None and view["racks"] == [None, None], "a spectator's view"
        racks = first["revealed"]["racks"]
        assert [len(r) for r in racks] == [7, 7], "and every rack, the game being over"
        # a room an administrator closed mid-game is listed as closed, without scores
        house.clock.advance(1)
        other = (await house.call(ada, create))["room"]
        await house.call(ada, {"t": "join", "room": other})
        await house.lobby.registry.close_room(house.lobby.rooms[other], "closed for the test")
        closed = (await house.call(ada, {"t": "history"}))["rooms"][0]
        assert (closed["room"], closed["outcome"], closed["scores"]) == (other, "closed", None)
    finally:
        await house.close()


async def test_replay_refusals_say_why(house):
    ada = await house.player("Ada")
    room, over = await quit_linksame(house, ada)
    last = (await house.call(ada, {"t": "replay", "room": room, "seq": 1}))["last"]
    assert last == over["seq"]
    refused = await house.call(ada, {"t": "replay", "room": room, "seq": last + 1})
    assert refused["code"] == "out_of_range" and f"1 to {last}" in refused["message"]
    # No room has an entry 0: refused as the field's bound (issue 42), whatever the room
    refused = await house.call(ada, {"t": "replay", "room": room, "seq": 0})
    assert refused["code"] == "out_of_range" and "at least 1" in refused["message"]
    playing = (await house.call(ada, {"t": "create", "game": "ishido"}))["room"]
    await house.call(ada, {"t": "join", "room": playing})
    assert (await house.call(ada, {"t": "replay", "room": playing, "seq": 1}))["code"] == "not_over"
    assert (await house.call(ada, {"t": "replay", "room": "rnope", "seq": 1}))["code"] == (
        "unknown_room"
    )
    assert (await house.call(ada, {"t": "history", "player": "Nobody"}))["code"] == (
        "unknown_player"
    )
    assert (await house.call(ada, {"t": "history", "cursor": "soon"}))["code"] == "bad_cursor"
    assert (await house.call(ada, {"t": "history", "game": "chess"}))["code"] == "unknown_game"


async def test_purged_games_leave_history_and_say_so_on_replay(tmp_path):
    house = await House.open(tmp_path, replay_days=1)
    try:
        ada = await house.player("Ada")
        room, _ = await quit_linksame(house, ada)
        house.clock.advance(2 * 86400)
        purge = house.lobby.records.purge_forever()
        task = __import__("asyncio").ensure_future(purge)
        await house.call(ada, {"t": "ping"})  # let the purge run its first round
        while await house.store.journal(room):
            await __import__("asyncio").sleep(0.01)
        task.cancel()
        assert (await house.call(ada, {"t": "history"}))["rooms"] == []
        refused = await house.call(ada, {"t": "replay", "room": room, "seq": 1})
        assert refused["code"] == "replay_gone" and "1 days" in refused["message"]
        best = await house.call(ada, {"t": "scores", "game": "linksame"})
        assert best["t"] == "scores", "results and scores stay"
    finally:
        await house.close()


# -- the property: a replay is the game as it was played -----------------------------------

T0 = 1_800_000_000.0


def played(name: str, seed: int, moves: int, options: dict) -> tuple[RoomRecord, list, list]:
    """A game driven as a room drives it; its journal and a spectator's view after each entry."""
    cls = find_game(name)
    seats = 2 if cls.max_seats > 1 else 1
    record = RoomRecord(
        id="r1",
        game=name,
        options=cls.validate_options(options),
        seed=seed,
        seats=tuple(SeatRecord(name="COMP", bot="easy") for _ in range(seats))
        if seats > 1
        else (SeatRecord(name="Ada", player=1),),
        private_code=None,
        created_at=T0,
        status="over",
    )
    rng = random.Random(seed)
    engine, now = None, T0
    journal: list[JournalEntry] = []
    seen: list[tuple[list, dict]] = []
    entry_seat, action = None, START
    for seq in range(1, moves + 2):
        entry = JournalEntry(room="r1", seq=seq, seat=entry_seat, action=action, now=now)
        engine, events = step(find_game(record.game), record, engine, entry)
        journal.append(entry)
        seen.append((events, engine.view(None)))
        if engine.status.value != "playing":
            break
        now += rng.choice([0.5, 3.0, 40.0])
        deadline = engine.next_deadline()
        if deadline is not None and deadline <= now:  # the room's clock step comes first
            entry_seat, action, now = None, {"do": "_tick"}, deadline
            continue
        to_move = engine.to_move if engine.to_move is not None else 0
        bot = find_bot(name, "easy" if name == "mathable" else "normal")(rng=rng, budget=0.01)
        move = bot.choose(engine.view(to_move))
        if move is None:
            break
        if cls.max_seats == 1 and getattr(cls, "undo_moves", None) and rng.random() < 0.15:
            move = {"do": "undo"}
        entry_seat, action = to_move, move
        try:  # a refused move (an undo with nothing to undo) is never journaled
            probe = __import__("copy").deepcopy(engine)
            probe.apply_entry(entry_seat, action, now)
        except Exception:
            entry_seat, action = to_move, bot.choose(engine.view(to_move))
            if action is None:
                break
    return record, journal, seen


@pytest.mark.parametrize("name", ["mathable", "lines", "ishido", "matchit", "linksame"])
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), order=st.randoms(use_true_random=False))
@pytest.mark.slow  # whole games played and replayed
def test_every_position_of_a_replay_is_the_one_that_was_played(name, seed, order):
    record, journal, seen = played(name, seed, 80, {})
    # copies close together, so the test crosses many of them (and a step back from a
    # copy replays at most three entries: the engines' own cost, not the point, is the time)
    replays = Replays(every=4)
    replays.load(record, journal)
    seqs = list(range(1, len(journal) + 1))
    order.shuffle(seqs)  # forward, back and jumping around, as a viewer steps
    for seq in seqs:
        position = replays.at("r1", seq)
        events, view = seen[seq - 1]
        assert position.view == view, f"seq {seq}"
        assert position.events == [{k: v for k, v in e.items() if k != "_to"} for e in events]
        assert position.last == len(journal)


# -- end to end ----------------------------------------------------------------------------


async def test_history_and_replay_over_a_real_socket(tmp_path):
    server = ServerProcess(tmp_path)
    server.start()
    try:
        ada = await Raw.open(server.url, "Ada")
        room = (await ada.call({"t": "create", "game": "linksame"}))["room"]
        joined = await ada.call({"t": "join", "room": room})
        bot = find_bot("linksame", "normal")(rng=random.Random(3), budget=0.05)
        moved = await ada.call({"t": "act", "room": room, "action": bot.choose(joined["view"])})
        over = await ada.call({"t": "act", "room": room, "action": {"do": "quit"}})
        assert over["view"]["status"] == "over"
        listed = await ada.call({"t": "history", "game": "linksame"})
        for _ in range(50):  # the result is kept just after the last update is sent
            if listed["rooms"]:
                break
            listed = await ada.call({"t": "history", "game": "linksame"})
        assert [r["room"] for r in listed["rooms"]] == [room]
        steps = [await ada.call({"t": "replay", "room": room, "seq": s}) for s in (3, 1, 2)]
        assert [s["seq"] for s in steps] == [3, 1, 2] and steps[0]["last"] == over["seq"]
        assert steps[2]["events"] == moved["events"]
        assert steps[0]["view"]["status"] == "over"
    finally:
        server.stop()
