"""Players who go away: solo clocks pause, Mathable seats get a stand-in, views carry ``now``.

In memory, with the real lobby, rooms, engines, bots and store, and a clock the
test moves: an absence of ten minutes costs nothing to wait for.
"""

from __future__ import annotations

from tests.memory import House, MemoryMember


async def solo(house, game, **options):
    ada = await house.player("Ada")
    wes = await house.player("Wes")
    create = {"t": "create", "game": game} | ({"options": options} if options else {})
    room = (await house.call(ada, create))["room"]
    joined = await house.call(ada, {"t": "join", "room": room})
    await house.call(wes, {"t": "watch", "room": room})
    return ada, wes, room, joined


def last(member, room):
    return member.of("update", room)[-1]


async def test_matchit_pauses_while_its_player_is_away_and_loses_no_time(house):
    ada, wes, room, joined = await solo(house, "matchit")
    deadline = joined["view"]["deadline"]
    assert joined["view"]["now"] == house.clock.time(), "the server's clock, for counting down"
    house.clock.advance(30)
    await house.call(ada, {"t": "leave", "room": room})
    paused = await wes.update(room, joined["seq"] + 1)
    assert paused["events"] == [{"e": "paused", "why": "away"}]
    view = paused["view"]
    assert view["paused"] == "away" and view["board"] is None and view["deadline"] is None
    assert view["time_left"] == deadline - (joined["view"]["now"] + 30)
    listed = await house.call(wes, {"t": "rooms"})
    assert [r["paused"] for r in listed["rooms"]] == ["away"], "the lobby says why it waits"
    house.clock.advance(3600)  # an hour away: far past the sheet's 400 s
    assert house.clock.pending() == [], "no clock runs"
    assert house.lobby.rooms[room].seq == paused["seq"], "no time-out, no life lost"
    back = await house.call(ada, {"t": "join", "room": room})
    resumed = await wes.update(room, paused["seq"] + 1)
    assert resumed["events"] == [{"e": "resumed", "paused_for": 3600.0}]
    assert resumed["view"]["deadline"] == deadline + 3600
    assert resumed["view"]["lives"] == joined["view"]["lives"]
    assert back["view"]["paused"] is None or back["seq"] < resumed["seq"]


async def test_a_pause_the_player_asked_for_outlasts_leaving_and_coming_back(house):
    ada, _wes, room, _joined = await solo(house, "matchit")
    upd = await house.call(ada, {"t": "act", "room": room, "action": {"do": "pause"}})
    assert upd["view"]["paused"] == "player"
    await house.call(ada, {"t": "leave", "room": room})
    await house.call(ada, {"t": "join", "room": room})
    room_now = house.lobby.rooms[room]
    await room_now.quiet()
    assert house.lobby.rooms[room].engine.paused.value == "player"
    refused = await house.call(ada, {"t": "act", "room": room, "action": {"do": "help"}})
    assert refused["code"] == "paused"
    resumed = await house.call(ada, {"t": "act", "room": room, "action": {"do": "resume"}})
    assert resumed["view"]["paused"] is None and resumed["view"]["board"] is not None


async def test_a_dropped_connection_pauses_like_leaving(house):
    ada, wes, room, joined = await solo(house, "linksame")
    house.lobby.disconnect(ada)  # the connection went
    paused = await wes.update(room, joined["seq"] + 1)
    assert paused["view"]["paused"] == "away" and paused["view"]["board"] is None
    house.clock.advance(900)
    assert house.lobby.rooms[room].seq == paused["seq"], "no shot-clock point while away"
    back = MemoryMember()
    await house.call(back, {"t": "hello", "v": 1, "token": ada.token})
    await house.call(back, {"t": "join", "room": room})
    resumed = await wes.update(room, paused["seq"] + 1)
    assert resumed["view"]["score"] == joined["view"]["score"]


async def test_a_mathable_seat_away_on_its_turn_gets_a_stand_in_then_its_player_back(tmp_path):
    house = await House.open(tmp_path, bot_delay=0)
    try:
        ada, bob = await house.player("Ada"), await house.player("Bob")
        create = {
            "t": "create",
            "game": "mathable",
            "seats": ["Ada", "Bob"],
            "options": {"standin_after": 30},
        }
        room = (await house.call(ada, create))["room"]
        await house.call(ada, {"t": "join", "room": room})
        joined = await house.call(bob, {"t": "join", "room": room})
        away, stays = (ada, bob) if joined["view"]["to_move"] == 0 else (bob, ada)
        away_seat = joined["view"]["to_move"]
        await house.call(away, {"t": "leave", "room": room})
        house.clock.advance(29.5)
        assert house.lobby.rooms[room].seq == joined["seq"], "not yet"
        house.clock.advance(0.5)
        stood = await stays.wait_for(
            lambda f: f["t"] == "update" and any(e["e"] == "stand_in" for e in f["events"])
        )
        assert stood["events"] == [{"e": "stand_in", "seat": away_seat}]
        assert stood["view"]["standins"] == [away_seat]
        # the stand-in plays the turn; then it is the other player's
        turn = await stays.wait_for(
            lambda f: f["t"] == "update" and f["view"]["to_move"] == 1 - away_seat
        )
        assert turn["view"]["standins"] == [away_seat]
        await house.call(away, {"t": "join", "room": room})  # back, not on their turn
        back = await stays.wait_for(
            lambda f: f["t"] == "update" and any(e["e"] == "stand_back" for e in f["events"])
        )
        assert back["view"]["standins"] == []
        # the game ends by votes: the seat a stand-in played is out of the Hall of Fame
        await house.call(ada, {"t": "act", "room": room, "action": {"do": "quit", "vote": True}})
        end = await house.call(
            bob, {"t": "act", "room": room, "action": {"do": "quit", "vote": True}}
        )
        assert end["view"]["status"] == "over"
        table = await house.call(ada, {"t": "scores", "game": "mathable"})
        names = [e["name"] for e in table["entries"]]
        assert names == [stays.player.name], names
    finally:
        await house.close()


async def test_mathable_pauses_when_every_human_is_away(house):
    ada, bob = await house.player("Ada"), await house.player("Bob")
    create = {
        "t": "create",
        "game": "mathable",
        "seats": ["Ada", "Bob"],
        "options": {"turn_seconds": 60, "standin_after": 0},
    }
    room = (await house.call(ada, create))["room"]
    await house.call(ada, {"t": "join", "room": room})
    joined = await house.call(bob, {"t": "join", "room": room})
    await house.call(ada, {"t": "leave", "room": room})
    await house.call(bob, {"t": "leave", "room": room})
    live = house.lobby.rooms[room]
    await live.quiet()
    entries = await house.journal(room)
    assert entries[-1].action == {"do": "_pause", "why": "away"}
    house.clock.advance(600)
    assert house.clock.pending() == [] and live.seq == entries[-1].seq, "no time-outs"
    back = await house.call(bob, {"t": "join", "room": room})
    await live.quiet()
    resumed = (await house.journal(room))[-1]
    assert resumed.action == {"do": "_resume"}
    assert live.engine.next_deadline() == joined["view"]["deadline"] + 600
    assert back["view"]["to_move"] == joined["view"]["to_move"]


async def test_an_untimed_mathable_game_writes_no_pause_when_everyone_is_away(house):
    """Without a turn clock there is nothing to stop: the journal stays as it was (a room
    taken over by another node, where nobody is connected yet, writes nothing either)."""
    ada, bob = await house.player("Ada"), await house.player("Bob")
    create = {"t": "create", "game": "mathable", "seats": ["Ada", "Bob"]}
    create["options"] = {"standin_after": 0}
    room = (await house.call(ada, create))["room"]
    await house.call(ada, {"t": "join", "room": room})
    await house.call(bob, {"t": "join", "room": room})
    before = await house.journal(room)
    await house.call(ada, {"t": "leave", "room": room})
    await house.call(bob, {"t": "leave", "room": room})
    await house.lobby.rooms[room].quiet()
    assert await house.journal(room) == before
    assert house.lobby.rooms[room].engine.paused is None


async def test_after_a_restart_the_pause_counts_from_the_last_move(tmp_path):
    first = await House.open(tmp_path)
    ada = await first.player("Ada")
    room = (await first.call(ada, {"t": "create", "game": "matchit"}))["room"]
    joined = await first.call(ada, {"t": "join", "room": room})
    first.clock.advance(40)
    help_ = await first.call(ada, {"t": "act", "room": room, "action": {"do": "help"}})
    last_move = (await first.journal(room))[-1].now
    for live in list(first.lobby.rooms.values()):
        live.close()  # the process dies: nothing more is written
    await first.store.close()
    second = await House.open(tmp_path)  # a new process, an hour later
    try:
        second.clock.advance(3600)
        await second.lobby.registry.recover()
        live = second.lobby.rooms[room]
        await live.quiet()
        pause = (await second.journal(room))[-1]
        assert pause.action == {"do": "_pause", "why": "away"} and pause.now == last_move
        back = MemoryMember()
        await second.call(back, {"t": "hello", "v": 1, "token": ada.token})
        rejoined = await second.call(back, {"t": "join", "room": room})
        await live.quiet()
        left = live.engine.view(0)["time_left"]
        assert abs(left - help_["view"]["time_left"]) < 1e-6, "the hour of downtime was not charged"
        assert rejoined["view"]["lives"] == joined["view"]["lives"]
    finally:
        await second.close()


async def test_a_snapshot_taken_later_says_the_time_left_at_its_own_now(house):
    """A watch or rejoin some time after the last update carries a fresh ``now``; its
    ``time_left`` must be counted from that ``now``, not from the last update's."""
    _ada, _wes, room, joined = await solo(house, "matchit")
    deadline = joined["view"]["deadline"]
    house.clock.advance(25)
    late = await house.player("Late")
    view = (await house.call(late, {"t": "watch", "room": room}))["view"]
    assert view["now"] == joined["view"]["now"] + 25
    assert view["deadline"] == deadline
    assert view["time_left"] == deadline - view["now"]
