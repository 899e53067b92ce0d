"""Ratings in the store, on SQLite and PostgreSQL: rated with the finish, once a room, paged.

The rating arithmetic is tilehall.server.ratings' (tested in tests/server/test_ratings.py);
here, what the stores add: one transaction with the room's finish, a room never
rated twice, concurrent finishes that share a player, and one leaderboard order
in both databases.
"""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest
from tilehall.server.ratings import RatedGame, Rating, Seat, bot_rating, rate
from tilehall.server.store import open_store
from tilehall.server.store.base import Store

from tests.server.store.test_store import room_record, secrets_token, sqlite_file, store, store_url

__all__ = ["store", "store_url"]


async def players(store: Store, *names: str) -> list[int]:
    return [(await store.create_player(n, secrets_token(), 1.0)).id for n in names]


def duel(room: str, a: int, a_score: int, b: int | None, b_score: int, *, level: str | None = None):
    return RatedGame(
        game="mathable",
        room=room,
        seats=(Seat(score=a_score, player=a), Seat(score=b_score, player=b, level=level)),
    )


async def finish(store: Store, game: RatedGame, now: float = 50.0) -> None:
    if await store.room(game.room) is None:
        await store.create_room(room_record(game.room))
    await store.finish_room(game.room, {}, [], now, rated=game)


async def test_a_finish_rates_its_players_and_counts_once(store: Store):
    ada, bob = await players(store, "Ada", "Bob")
    assert await store.ratings_of(ada) == {}
    game = duel("g1", ada, 90, bob, 40)
    await finish(store, game)
    await store.finish_room("g1", {}, [], 60.0, rated=game)  # a finish done again
    won, lost = rate(Rating(), [(Rating(), 1.0)]), rate(Rating(), [(Rating(), 0.0)])
    mine = (await store.ratings_of(ada))["mathable"]
    assert (mine.name, mine.games, mine.updated_at) == ("Ada", 1, 50.0)
    assert mine.current == won
    assert (await store.ratings_of(bob))["mathable"].current == lost
    board = await store.leaderboard("mathable", 10)
    assert [(r.name, r.games) for r in board] == [("Ada", 1), ("Bob", 1)]


async def test_the_rated_rooms_record_says_what_changed(store: Store, store_url: str):
    (ada,) = await players(store, "Ada")
    await finish(store, duel("g1", ada, 10, None, 50, level="hard"))
    after = rate(Rating(), [(bot_rating("mathable", "hard"), 0.0)])
    sql = "SELECT changes FROM rated_rooms WHERE room = 'g1'"
    if store_url.startswith("postgresql"):
        raw = await store.pool.fetchval(sql)
    else:
        raw = sqlite_file(store_url).execute(sql).fetchone()[0]
    changed = {"before": [1500.0, 350.0], "after": [after.rating, after.rd]}
    assert json.loads(raw) == {str(ada): changed}


async def test_bot_programs_are_opponents_but_never_rated_nor_listed(store: Store):
    ada, prog = await players(store, "Ada", "prog-1")
    await store.mark_bot(prog)
    await finish(store, duel("g1", ada, 10, prog, 30))
    assert await store.ratings_of(prog) == {}
    assert [r.name for r in await store.leaderboard("mathable", 10)] == ["Ada"]
    assert (await store.ratings_of(ada))["mathable"].current == rate(Rating(), [(Rating(), 0.0)])


async def test_a_player_marked_a_program_later_leaves_the_leaderboard(store: Store):
    ada, bob = await players(store, "Ada", "Bob")
    await finish(store, duel("g1", ada, 10, bob, 30))
    await store.mark_bot(bob)
    assert [r.name for r in await store.leaderboard("mathable", 10)] == ["Ada"]


async def test_games_rate_on_the_ratings_as_they_are_then(store: Store):
    ada, bob = await players(store, "Ada", "Bob")
    await finish(store, duel("g1", ada, 10, None, 50, level="easy"), 10.0)
    first = (await store.ratings_of(ada))["mathable"].current
    await finish(store, duel("g2", ada, 60, bob, 20), 20.0)
    second = (await store.ratings_of(ada))["mathable"]
    assert second.games == 2 and second.updated_at == 20.0
    assert second.current == rate(first, [(Rating(), 1.0)])
    assert (await store.ratings_of(bob))["mathable"].current == rate(Rating(), [(first, 0.0)])


async def test_the_leaderboard_orders_by_rating_then_name_by_code_point_and_pages(store: Store):
    names = ["zoë", "Émile", "bob", "Ada", "Zed", "ünal"]
    ids = await players(store, *names, "nobody")
    # the same result each against COMP:hard: equal ratings, ordered by name alone
    for i, pid in enumerate(ids[:-1]):
        await finish(store, duel(f"h{i}", pid, 10, None, 50, level="hard"))
    (winner,) = await players(store, "Winner")
    await finish(store, duel("w", winner, 90, None, 50, level="hard"))
    board = await store.leaderboard("mathable", 100)
    assert [r.name for r in board] == ["Winner", *sorted(names)]  # "Ada" < "Zed" < "bob" < "Émile"
    assert board[1].rating == board[-1].rating < board[0].rating
    paged, after = [], None
    while True:
        page = await store.leaderboard("mathable", 3, after)
        paged += [r.name for r in page]
        if len(page) < 3:
            break
        after = (page[-1].rating, page[-1].name)
    assert paged == [r.name for r in board]
    assert await store.leaderboard("ishido", 10) == []


async def test_rooms_finishing_at_once_with_a_player_in_common_both_count(store_url):
    """On PostgreSQL each finish runs on its own connection: neither may lose the other's update."""
    stores = [await open_store(store_url) for _ in range(2)]
    try:
        ada, bob, cy = await players(stores[0], "Ada", "Bob", "Cy")
        for rid in ("g1", "g2"):
            await stores[0].create_room(room_record(rid))
        await asyncio.gather(
            stores[0].finish_room("g1", {}, [], 10.0, rated=duel("g1", ada, 50, bob, 10)),
            stores[1].finish_room("g2", {}, [], 10.0, rated=duel("g2", ada, 50, cy, 10)),
        )
        mine = (await stores[0].ratings_of(ada))["mathable"]
        assert mine.games == 2
        once = rate(Rating(), [(Rating(), 1.0)])
        assert mine.current == rate(once, [(Rating(), 1.0)])
    finally:
        for s in stores:
            await s.close()


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
async def test_a_comp_seat_is_never_given_a_rating_row(store: Store, level: str):
    (ada,) = await players(store, "Ada")
    await finish(store, duel("g1", ada, 50, None, 50, level=level))
    board = await store.leaderboard("mathable", 10)
    assert [r.name for r in board] == ["Ada"]
    assert board[0].current == rate(Rating(), [(bot_rating("mathable", level), 0.5)])


async def test_a_room_rated_once_is_never_rated_again_even_if_its_finish_is_undone(
    store: Store, store_url: str
):
    """The store keeps the rooms it rated: a room set back to playing (by hand, say)
    and finished again keeps its scores' and ratings' first count."""
    ada, bob = await players(store, "Ada", "Bob")
    game = duel("g1", ada, 90, bob, 40)
    await finish(store, game)
    sql = "UPDATE rooms SET status = 'playing' WHERE id = 'g1'"
    if store_url.startswith("postgresql"):
        await store.pool.execute(sql)
    else:
        with contextlib.closing(sqlite_file(store_url)) as db, db:
            db.execute(sql)
    await store.finish_room("g1", {}, [], 70.0, rated=game)
    assert (await store.room("g1")).status == "over"
    assert [r.games for r in await store.leaderboard("mathable", 10)] == [1, 1]
