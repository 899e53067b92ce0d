"""Rated games end to end in memory: finished Mathable rooms move ratings, shown in
``welcome`` and the ``leaderboard``, on SQLite and on PostgreSQL.

The real lobby, rooms, engines, bots and stores, requests through the codec, a
clock the test moves (tests/memory.py). The expected ratings are computed with
tilehall.server.ratings, tested on its own in test_ratings.py.
"""

from __future__ import annotations

import asyncio

import pytest
from tilehall.server.ratings import RatedGame, Rating, Seat, bot_rating, bot_ratings, rate

from tests.memory import House, MemoryMember
from tests.netfault import CutProxy
from tests.server.store.test_store import room_record
from tests.services import PG_URL, pg_schema, require_postgres

NEW = Rating()


@pytest.fixture(params=["sqlite", "postgres"])
async def house(request, tmp_path):
    """The lobby in memory on a fresh store of each kind."""
    if request.param == "sqlite":
        h = await House.open(tmp_path)
        yield h
        await h.close()
        return
    async with pg_schema() as url:
        h = await House.open(tmp_path, db=url)
        yield h
        await h.close()


def vote(room: str) -> dict:
    return {"t": "act", "room": room, "action": {"do": "quit", "vote": True}}


async def welcome_again(house: House, member: MemoryMember) -> dict:
    """The welcome the same player gets on a new connection."""
    return await house.call(MemoryMember(), {"t": "hello", "v": 1, "token": member.token})


async def mine(house: House, member: MemoryMember) -> dict:
    return (await house.call(member, {"t": "leaderboard", "game": "mathable"}))["mine"]


def outcome(mine: int, theirs: int) -> float:
    return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0


def shown(rating: Rating, games: int = 1) -> dict:
    return {"rating": rating.rating, "rd": rating.rd, "games": games}


async def two_player_quit(house: House, a: MemoryMember, b: MemoryMember) -> tuple[int, int]:
    """A Mathable game of ``a`` and ``b`` that both vote to end at once: their final scores."""
    create = {"t": "create", "game": "mathable", "seats": [None, None]}
    room = (await house.call(a, create))["room"]
    seat_a = (await house.call(a, {"t": "join", "room": room}))["seat"]
    await house.call(b, {"t": "join", "room": room})
    await house.call(a, vote(room))
    end = await house.call(b, vote(room))
    assert end["view"]["status"] == "over" and end["view"]["result"]["reason"] == "quit"
    scores = end["view"]["result"]["scores"]
    return scores[seat_a], scores[1 - seat_a]


async def test_welcome_shows_a_new_players_rating_and_the_bots_published_ones(house):
    ada = MemoryMember()
    welcome = await house.call(ada, {"t": "hello", "v": 1, "name": "Ada"})
    assert welcome["ratings"] == {"mathable": shown(NEW, 0)}
    games = {g["name"]: g for g in welcome["games"]}
    assert games["mathable"]["rated"] is True
    assert games["mathable"]["bot_ratings"] == {
        level: {"rating": rating, "rd": 50.0} for level, rating in bot_ratings("mathable").items()
    }
    assert set(games["mathable"]["bot_ratings"]) == set(games["mathable"]["bots"])
    assert all(g["rated"] is False for name, g in games.items() if name != "mathable")
    assert "bot_ratings" not in games["ishido"]


async def test_two_players_ending_by_quit_votes_are_rated_the_higher_score_up(house):
    for attempt in range(20):  # the racks left decide; an exact tie is rare, and a draw
        a = await house.player(f"Ada{attempt}")
        b = await house.player(f"Bob{attempt}")
        score_a, score_b = await two_player_quit(house, a, b)
        if score_a != score_b:
            break
        assert await mine(house, a) == shown(rate(NEW, [(NEW, 0.5)]))
    else:
        pytest.fail("twenty ties in a row")
    (high, low) = (a, b) if score_a > score_b else (b, a)
    won, lost = rate(NEW, [(NEW, 1.0)]), rate(NEW, [(NEW, 0.0)])
    assert won.rating > 1500 > lost.rating and won.rd < 350
    assert (await welcome_again(house, high))["ratings"]["mathable"] == shown(won)
    assert (await welcome_again(house, low))["ratings"]["mathable"] == shown(lost)
    board = await house.call(low, {"t": "leaderboard", "game": "mathable"})
    assert board["entries"][0] == {"name": high.player.name, **shown(won)}
    assert board["entries"][-1] == {"name": low.player.name, **shown(lost)}
    assert board["mine"] == shown(lost) and board["next"] is None
    # the next game starts from there: one game, one rating period
    await two_player_quit(house, high, low)
    assert (await mine(house, high))["games"] == 2


async def test_a_game_against_comp_hard_is_rated_against_its_published_rating(house):
    ada = await house.player("Ada")
    create = {"t": "create", "game": "mathable", "seats": ["Ada", "COMP:hard"]}
    room = (await house.call(ada, create))["room"]
    seat = (await house.call(ada, {"t": "join", "room": room}))["seat"]
    end = await house.call(ada, vote(room))  # the only human seat: its vote ends the game
    assert end["view"]["status"] == "over"
    scores = end["view"]["result"]["scores"]
    result = outcome(scores[seat], scores[1 - seat])
    expected = rate(NEW, [(bot_rating("mathable", "hard"), result)])
    assert await mine(house, ada) == shown(expected)
    assert expected != rate(NEW, [(bot_rating("mathable", "normal"), result)])
    board = await house.call(ada, {"t": "leaderboard", "game": "mathable"})
    assert [e["name"] for e in board["entries"]] == ["Ada"], "a COMP is never on the board"


async def test_a_seat_a_stand_in_played_is_not_rated_and_its_opponent_is(house):
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
    await house.call(away, {"t": "leave", "room": room})
    house.clock.advance(30)
    await stays.wait_for(
        lambda f: f["t"] == "update" and any(e["e"] == "stand_in" for e in f["events"])
    )
    await house.call(away, {"t": "join", "room": room})
    await house.call(away, vote(room))
    end = await house.call(stays, vote(room))
    assert end["view"]["status"] == "over"
    scores = end["view"]["result"]["scores"]
    seat_stays = 1 - joined["view"]["to_move"]
    result = outcome(scores[seat_stays], scores[1 - seat_stays])
    assert await mine(house, away) == shown(NEW, 0)
    assert await mine(house, stays) == shown(rate(NEW, [(NEW, result)]))
    board = await house.call(away, {"t": "leaderboard", "game": "mathable"})
    assert [e["name"] for e in board["entries"]] == [stays.player.name]


async def test_a_bot_programs_seat_is_not_rated(house):
    prog = MemoryMember()
    await house.call(prog, {"t": "hello", "v": 1, "name": "prog-1", "bot": True})
    prog.token = prog.frames[-1]["token"]
    ada = await house.player("Ada")
    await two_player_quit(house, ada, prog)
    assert await mine(house, prog) == shown(NEW, 0)
    assert (await mine(house, ada))["games"] == 1


async def seed(house: House, results: dict[str, tuple[str, int]]) -> None:
    """Rate each named player (already said hello) by one game against a COMP level."""
    store = house.store
    for i, (name, (level, score)) in enumerate(results.items()):
        member = MemoryMember()
        await house.call(member, {"t": "hello", "v": 1, "name": name})
        await store.create_room(room_record(f"s{i}"))
        game = RatedGame(
            game="mathable",
            room=f"s{i}",
            seats=(Seat(score=score, player=member.player.id), Seat(score=50, level=level)),
        )
        await store.finish_room(f"s{i}", {}, [], 10.0, rated=game)


async def test_the_leaderboard_pages_best_first_with_an_opaque_cursor(house):
    results = {
        "ann": ("hard", 90),
        "Bea": ("hard", 10),
        "cy": ("easy", 90),
        "Dov": ("easy", 90),
        "eve": ("normal", 50),
        "Fay": ("easy", 10),
        "gus": ("normal", 90),
    }
    await seed(house, results)
    asker = await house.player("Zed")
    whole = await house.call(asker, {"t": "leaderboard", "game": "mathable", "limit": 200})
    names = [e["name"] for e in whole["entries"]]
    ratings = [e["rating"] for e in whole["entries"]]
    assert ratings == sorted(ratings, reverse=True)
    assert names[0] == "ann" and names[-1] == "Fay"
    assert names.index("Dov") < names.index("cy"), "equal ratings: by name, code point order"
    assert len(names) == len(results) and "Zed" not in names, "unrated players are not listed"
    assert whole["mine"] == shown(NEW, 0)
    paged, cursor, pages = [], None, 0
    while True:
        ask = {"t": "leaderboard", "game": "mathable", "limit": 3}
        page = await house.call(asker, ask | ({"cursor": cursor} if cursor else {}))
        assert page["t"] == "leaderboard" and len(page["entries"]) <= 3
        paged += page["entries"]
        pages += 1
        cursor = page["next"]
        if cursor is None:
            break
    assert paged == whole["entries"] and pages == 3


async def test_a_leaderboard_is_refused_what_it_cannot_answer(house):
    ada = await house.player("Ada")

    async def code(**msg):
        return (await house.call(ada, {"t": "leaderboard", **msg}))["code"]

    assert await code(game="chess") == "unknown_game"
    assert await code(game="ishido") == "not_rated"
    assert await code(game="mathable", cursor="not-a-cursor") == "bad_cursor"
    assert await code(game="mathable", limit=201) == "out_of_range"
    assert await code(game="mathable", limit=0) == "out_of_range"
    stranger = MemoryMember()
    refused = await house.call(stranger, {"t": "leaderboard", "game": "mathable"})
    assert refused["code"] == "hello_first"


async def test_a_finish_whose_commit_answer_was_lost_rates_the_room_once(tmp_path):
    """The finish commits, its answer is lost, the room finishes again: one rating period."""
    await require_postgres()
    async with pg_schema() as url:
        host_port = PG_URL.split("@", 1)[1].split("/", 1)[0]
        host, port = host_port.rsplit(":", 1)
        proxy = CutProxy(host, int(port))
        listen = await proxy.start()
        house = await House.open(tmp_path, url.replace(host_port, f"127.0.0.1:{listen}"))
        try:
            ada = await house.player("Ada")
            create = {"t": "create", "game": "mathable", "seats": ["Ada", "COMP:easy"]}
            room = (await house.call(ada, create))["room"]
            seat = (await house.call(ada, {"t": "join", "room": room}))["seat"]
            proxy.cut_before(b"COMMIT")  # the finish's transaction commits; its answer is lost
            mark = len(ada.frames)
            end = await house.call(ada, vote(room))
            assert end["view"]["status"] == "over"
            assert proxy.cuts == 1
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 30
            # the room says it is over once its result is stored: here, by the finish done again
            while not any(f["t"] == "room" and f["status"] == "over" for f in ada.frames[mark:]):
                assert loop.time() < deadline, "the finish was never done again"
                house.clock.advance(1.0)
                await asyncio.sleep(0.05)
            scores = end["view"]["result"]["scores"]
            easy = bot_rating("mathable", "easy")
            assert await mine(house, ada) == shown(
                rate(NEW, [(easy, outcome(scores[seat], scores[1 - seat]))])
            )
        finally:
            await house.close()
            await proxy.close()
