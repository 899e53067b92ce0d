"""Today's deal (issue 41): one deal a day per solo game, the same for everyone, one try counts.

The day's arithmetic is pure (:mod:`tilehall.server.daily`) and tested by
property; the lobby's rules for it run in memory on a real store (SQLite and
PostgreSQL) with a clock the test moves across a UTC midnight; and the whole of
it runs over real WebSockets, on a server handed a clock set just before
midnight. Two nodes of a cluster dealing the same board: tests/cluster/test_daily.py.
"""

from __future__ import annotations

import datetime as dt
import random
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tilehall.server.app import Server
from tilehall.server.bots import find_bot
from tilehall.server.clock import SystemClock
from tilehall.server.daily import (
    KEEP_DAYS,
    daily_seed,
    day_end,
    day_of,
    day_table,
    deal_link,
    oldest_kept,
    share_text,
    table_day,
)

from tests import helpers
from tests.helpers import Raw
from tests.memory import House, MemoryMember
from tests.services import pg_schema

DAILY_GAMES = ("matchit", "linksame", "lines", "ishido")

MIDNIGHT = dt.datetime(2027, 3, 14, tzinfo=dt.UTC).timestamp()
"""A UTC midnight: 2027-03-14 begins."""


# -- the day's arithmetic, pure ------------------------------------------------------------


@given(st.floats(min_value=0, max_value=4e9, allow_nan=False))
def test_every_moment_falls_in_the_day_it_is_said_to(now):
    day = day_of(now)
    assert day_end(day) - 86400 <= now < day_end(day)
    assert table_day("daily", now) == day and table_day(day_table(day), now) == day


@given(st.text(min_size=1, max_size=40), st.sampled_from(DAILY_GAMES), st.integers(0, 20000))
def test_the_seed_is_the_days_and_the_secrets_and_nobody_elses(secret, game, n):
    day = (dt.date(2020, 1, 1) + dt.timedelta(days=n)).isoformat()
    seed = daily_seed(secret, game, day)
    assert seed == daily_seed(secret, game, day), "the same for everyone, on every node"
    assert 0 <= seed < 2**63
    assert seed != daily_seed(secret + "x", game, day), "another server deals another board"
    tomorrow = (dt.date.fromisoformat(day) + dt.timedelta(days=1)).isoformat()
    assert seed != daily_seed(secret, game, tomorrow)
    other = next(g for g in DAILY_GAMES if g != game)
    assert seed != daily_seed(secret, other, day)


def test_the_day_around_midnight_and_the_year_kept():
    assert day_of(MIDNIGHT - 1) == "2027-03-13" and day_of(MIDNIGHT) == "2027-03-14"
    assert day_end("2027-03-13") == MIDNIGHT
    assert oldest_kept(MIDNIGHT) == "2026-03-14"  # today and the 365 days before it
    assert table_day("top", MIDNIGHT) is None
    for bad in ("daily-2027-3-14", "daily-tomorrow", "daily-2027-02-30"):
        with pytest.raises(ValueError):
            table_day(bad, MIDNIGHT)


def test_the_shared_result_says_game_day_score_what_it_counts_and_the_link():
    link = deal_link("wss://play.example.org", "ishido")
    assert link == "https://play.example.org/#daily=ishido"
    assert deal_link("http://127.0.0.1:8765", "lines") == "http://127.0.0.1:8765/#daily=lines"
    text = share_text("Ishido", "2027-03-13", 412, [("4-ways", 3)], link)
    assert text.splitlines() == [
        "Tilehall · Ishido · deal of 2027-03-13",
        "Score 412 · 4-ways 3",
        "https://play.example.org/#daily=ishido",
    ]
    assert share_text("Lines", "2027-03-13", 0, [], None).splitlines()[-1] == "Score 0"


# -- the lobby's rules, in memory with a clock that crosses midnight -------------------------


@pytest.fixture(params=["sqlite", "postgres"])
async def house(request, tmp_path) -> AsyncIterator[House]:
    """The lobby on each store, its clock at 23:50 UTC on 2027-03-13."""
    if request.param == "sqlite":
        h = await House.open(tmp_path)
        h.clock.now = MIDNIGHT - 600
        yield h
        await h.close()
        return
    async with pg_schema() as url:
        h = await House.open(tmp_path, db=url)
        h.clock.now = MIDNIGHT - 600
        yield h
        await h.close()


async def daily(house: House, who: MemoryMember, game: str = "ishido") -> dict[str, Any]:
    made = await house.call(who, {"t": "create", "game": game, "daily": True})
    assert made["t"] == "created", made
    return made


async def play(house: House, who: MemoryMember, room: str, moves: int) -> dict[str, Any]:
    """Join ``room``, place ``moves`` stones (the first legal cell each time), then quit."""
    view = (await house.call(who, {"t": "join", "room": room}))["view"]
    for _ in range(moves):
        view = (
            await house.call(
                who, {"t": "act", "room": room, "action": {"do": "place", "at": view["legal"][0]}}
            )
        )["view"]
    over = await house.call(who, {"t": "act", "room": room, "action": {"do": "quit"}})
    assert over["view"]["status"] == "over", over
    await house.lobby.rooms[room].quiet()
    return over


@pytest.mark.parametrize("game", DAILY_GAMES)
async def test_two_players_get_the_same_deal_and_the_same_stream_for_the_same_moves(house, game):
    ada, bo = await house.player("Ada"), await house.player("Bo")
    rooms = [(await daily(house, p, game))["room"] for p in (ada, bo)]
    assert rooms[0] != rooms[1], "each their own room"
    views = [
        (await house.call(p, {"t": "join", "room": r}))["view"]
        for p, r in zip((ada, bo), rooms, strict=True)
    ]
    assert views[0] == views[1], "the same first board for everyone"
    bot = find_bot(game, "normal")(rng=random.Random(5), budget=0.05)
    for _ in range(4):
        action = bot.choose(views[0])
        if action is None:
            break
        house.clock.advance(1)
        updates = [
            await house.call(p, {"t": "act", "room": r, "action": action})
            for p, r in zip((ada, bo), rooms, strict=True)
        ]
        assert updates[0]["t"] == "update", updates[0]
        assert updates[0]["events"] == updates[1]["events"], "the same tiles, chips or stones dealt"
        views = [u["view"] for u in updates]
        assert views[0] == views[1]
    another_day = house.clock.now + 86400
    house.clock.advance(another_day - house.clock.now)
    tomorrow = await daily(house, ada, game)
    joined = await house.call(ada, {"t": "join", "room": tomorrow["room"]})
    assert tomorrow["daily"] == "2027-03-14" and joined["view"] != views[0], "a new deal a day"


async def test_the_first_try_counts_on_its_own_day_and_later_ones_are_practice(house):
    ada = await house.player("Ada")
    top_tables = (await house.call(ada, {"t": "scores", "game": "ishido"}))["tables"]
    first = await daily(house, ada)
    assert first["daily"] == "2027-03-13" and first["practice"] is False
    assert "resumed" not in first and first["code"], "private: nobody watches it live"
    await house.call(ada, {"t": "join", "room": first["room"]})
    summary = ada.of("room", first["room"])[-1]
    assert summary["daily"] == "2027-03-13" and summary["practice"] is False
    house.clock.advance(9 * 60 + 30)  # 23:59:30: a move, then past midnight
    house.clock.advance(60)
    assert day_of(house.clock.time()) == "2027-03-14"
    over = await play(house, ada, first["room"], 3)
    score = over["view"]["scores"][0]
    # it counts for the day whose deal it played, not the day it ended
    theirs = await house.call(ada, {"t": "scores", "game": "ishido", "table": "daily-2027-03-13"})
    assert [(e["name"], e["score"], e["room"]) for e in theirs["entries"]] == [
        ("Ada", score, first["room"])
    ]
    assert theirs["day"] == "2027-03-13" and theirs["replays"] is True
    assert [m["table"] for m in theirs["mine"]] == ["daily-2027-03-13"]
    assert theirs["share"].splitlines()[:2] == [
        "Tilehall · Ishido · deal of 2027-03-13",
        f"Score {score} · 4-ways {theirs['entries'][0]['detail']['fourways']}",
    ]
    today = await house.call(ada, {"t": "scores", "game": "ishido", "table": "daily"})
    assert today["table"] == "daily-2027-03-14" and today["entries"] == []
    assert "share" not in today, "nothing to share before playing"
    assert today["replays"] is False
    assert today["tables"] == top_tables, "days are asked for by name, not listed"
    # the game's own tables are left to deals at random
    top = await house.call(ada, {"t": "scores", "game": "ishido"})
    assert top["entries"] == []
    # today's first try, then a second: practice, said before it starts
    counted = await daily(house, ada)
    assert counted["daily"] == "2027-03-14" and counted["practice"] is False
    await play(house, ada, counted["room"], 1)
    again = await daily(house, ada)
    assert again["practice"] is True and again["room"] != counted["room"]
    await play(house, ada, again["room"], 6)
    table = await house.call(ada, {"t": "scores", "game": "ishido", "table": "daily"})
    assert [e["room"] for e in table["entries"]] == [counted["room"]], "the first try only"


async def test_a_player_who_leaves_mid_game_comes_back_to_the_same_room(house):
    ada = await house.player("Ada")
    made = await daily(house, ada)
    view = (await house.call(ada, {"t": "join", "room": made["room"]}))["view"]
    await house.call(
        ada, {"t": "act", "room": made["room"], "action": {"do": "place", "at": view["legal"][0]}}
    )
    assert (await house.call(ada, {"t": "leave", "room": made["room"]}))["t"] == "left"
    back = await daily(house, ada)
    assert back["room"] == made["room"] and back["resumed"] is True and back["practice"] is False
    joined = await house.call(ada, {"t": "join", "room": back["room"]})
    assert joined["seq"] == 2, "where it was left"
    # the seat is theirs: nobody else takes it, nobody else even finds the room
    bo = await house.player("Bo")
    refused = await house.call(bo, {"t": "join", "room": made["room"]})
    assert refused["t"] == "error" and refused["code"] == "unknown_room"
    refused = await house.call(bo, {"t": "watch", "room": made["room"]})
    assert refused["t"] == "error" and refused["code"] == "unknown_room"


async def test_a_room_made_and_never_played_gives_the_try_back(tmp_path):
    house = await House.open(tmp_path, waiting_ttl=60)
    try:
        house.clock.now = MIDNIGHT + 3600
        ada = await house.player("Ada")
        made = await daily(house, ada)
        house.clock.advance(60)  # nobody came in: the waiting room closes
        await house.lobby.registry.quiet()
        assert made["room"] not in house.lobby.rooms
        assert (await house.store.room(made["room"])).status == "over"
        again = await daily(house, ada)
        assert again["room"] != made["room"] and again["practice"] is False
    finally:
        await house.close()


async def test_replays_of_the_day_wait_for_the_day_to_end_then_the_top_three_are_served(house):
    players = [await house.player(n) for n in ("Ada", "Bo", "Cy", "Di")]
    for moves, who in zip((5, 2, 4, 1), players, strict=True):
        await play(house, who, (await daily(house, who))["room"], moves)
    table = await house.call(players[0], {"t": "scores", "game": "ishido", "table": "daily"})
    assert len(table["entries"]) == 4 and table["replays"] is False
    top = table["entries"][:3]
    mine = next(e["room"] for e in table["entries"] if e["name"] == "Ada")
    own = await house.call(players[0], {"t": "replay", "room": mine, "seq": 1})
    assert own["t"] == "replayed", "your own game is yours to look at"
    for entry in top:
        if entry["name"] == "Di":
            continue
        refused = await house.call(players[3], {"t": "replay", "room": entry["room"], "seq": 1})
        assert refused["t"] == "error" and refused["code"] == "day_not_over", refused
        assert "2027-03-13" in refused["message"]
    house.clock.advance(MIDNIGHT - house.clock.now)  # the day is over
    after = await house.call(
        players[3], {"t": "scores", "game": "ishido", "table": "daily-2027-03-13"}
    )
    assert after["replays"] is True
    for entry in after["entries"][:3]:
        last = await house.call(players[3], {"t": "replay", "room": entry["room"], "seq": 1})
        assert last["t"] == "replayed" and last["players"] == [entry["name"]]


async def test_bots_play_the_deal_but_never_enter_its_table(house):
    ada = await house.player("Ada")
    comp = await house.call(
        ada, {"t": "create", "game": "ishido", "daily": True, "seats": ["COMP:normal"]}
    )
    assert comp["practice"] is True, "a COMP plays it as practice"
    program = MemoryMember("bot")
    welcome = await house.call(program, {"t": "hello", "v": 1, "name": "Robo", "bot": True})
    assert welcome["t"] == "welcome"
    await play(house, program, (await daily(house, program))["room"], 2)
    mine = await daily(house, ada)
    assert mine["practice"] is False, "the COMP room did not take Ada's try"
    for bots in (False, True):
        table = await house.call(
            ada, {"t": "scores", "game": "ishido", "table": "daily", "bots": bots}
        )
        assert table["entries"] == []


async def test_a_year_of_days_is_kept(house):
    ada = await house.player("Ada")
    await play(house, ada, (await daily(house, ada))["room"], 2)
    day = "2027-03-13"
    house.clock.advance((KEEP_DAYS - 1) * 86400)
    kept = await house.call(ada, {"t": "scores", "game": "ishido", "table": f"daily-{day}"})
    assert len(kept["entries"]) == 1, "still kept a year on"
    assert await house.store.purge_days(oldest_kept(house.clock.time())) == 0
    house.clock.advance(86400)
    refused = await house.call(ada, {"t": "scores", "game": "ishido", "table": f"daily-{day}"})
    assert refused["t"] == "error" and refused["code"] == "unknown_table"
    assert await house.store.purge_days(oldest_kept(house.clock.time())) == 2  # entry and try
    assert await house.store.score_tables("ishido") == []


async def test_refusals_of_a_daily_deal_say_why(house):
    ada = await house.player("Ada")
    cases = [
        ({"game": "mathable"}, "no_daily"),
        ({"game": "ishido", "options": {"scoring": "ancient"}}, "bad_option"),
        ({"game": "ishido", "seats": ["Bo"]}, "bad_seats"),
    ]
    for extra, code in cases:
        refused = await house.call(ada, {"t": "create", "daily": True, **extra})
        assert refused["t"] == "error" and refused["code"] == code, (extra, refused)
        assert refused["message"]
    for table in ("daily-2027-3-1", "daily-2027-03-14", "daily-2020-01-01"):
        refused = await house.call(ada, {"t": "scores", "game": "ishido", "table": table})
        assert refused["code"] == "unknown_table", (table, refused)
    refused = await house.call(ada, {"t": "scores", "game": "mathable", "table": "daily"})
    assert refused["code"] == "unknown_table"
    welcome = await house.call(MemoryMember(), {"t": "hello", "v": 1, "name": "Eve"})
    assert {g["name"] for g in welcome["games"] if g["daily"]} == set(DAILY_GAMES)


# -- over real WebSockets, on a server handed a clock ------------------------------------------


class ShiftedClock(SystemClock):
    """The system's timers, at a wall time moved by ``offset`` seconds (a test sets it)."""

    def __init__(self, offset: float) -> None:
        self.offset = offset

    def time(self) -> float:  # type: ignore[override]
        return time.time() + self.offset


async def test_the_deal_over_real_sockets_across_midnight(tmp_path: Path):
    clock = ShiftedClock(MIDNIGHT - 120 - time.time())  # 23:58 UTC
    config = helpers.in_process_config(tmp_path)
    server = Server(config, clock=clock)
    await server.start()
    url = f"ws://127.0.0.1:{server.port}"
    try:
        ada, bo = await Raw.open(url, "Ada"), await Raw.open(url, "Bo")
        made = [await p.call({"t": "create", "game": "lines", "daily": True}) for p in (ada, bo)]
        assert [m["daily"] for m in made] == ["2027-03-13"] * 2
        joined = [
            await p.call({"t": "join", "room": m["room"]})
            for p, m in zip((ada, bo), made, strict=True)
        ]
        assert joined[0]["view"] == joined[1]["view"]
        clock.offset += 180  # 00:01 the next day: the game still plays 2027-03-13's deal
        bot = find_bot("lines", "normal")(rng=random.Random(2), budget=0.05)
        view = joined[0]["view"]
        for _ in range(3):
            action = bot.choose(view)
            ups = [
                await p.call({"t": "act", "room": m["room"], "action": action})
                for p, m in zip((ada, bo), made, strict=True)
            ]
            assert ups[0]["events"] == ups[1]["events"]
            view = ups[0]["view"]
        for p, m in zip((ada, bo), made, strict=True):
            over = await p.call({"t": "act", "room": m["room"], "action": {"do": "quit"}})
            assert over["view"]["status"] == "over"
        for _ in range(100):  # the result is kept just after the last update is sent
            table = await ada.call({"t": "scores", "game": "lines", "table": "daily-2027-03-13"})
            if len(table["entries"]) == 2:
                break
        assert {e["name"] for e in table["entries"]} == {"Ada", "Bo"}
        mine = next(e for e in table["entries"] if e["name"] == "Ada")
        share = table["share"].splitlines()
        assert share[0] == "Tilehall · Lines · deal of 2027-03-13"
        assert share[1] == f"Score {mine['score']} · moves {mine['detail']['moves']}"
        assert share[2] == f"http://127.0.0.1:{server.port}/#daily=lines", "the server's link"
        assert table["replays"] is True, "that day is over"
        replayed = await bo.call({"t": "replay", "room": made[0]["room"], "seq": 2})
        assert replayed["t"] == "replayed"
        # today's deal: a first try, then practice, and no replay for others today
        today = await ada.call({"t": "create", "game": "lines", "daily": True})
        assert today["daily"] == "2027-03-14" and today["practice"] is False
        await ada.call({"t": "join", "room": today["room"]})
        await ada.call({"t": "act", "room": today["room"], "action": {"do": "quit"}})
        practice = await ada.call({"t": "create", "game": "lines", "daily": True})
        assert practice["practice"] is True
        for _ in range(100):
            refused = await bo.call({"t": "replay", "room": today["room"], "seq": 1})
            if refused.get("code") != "not_over":
                break
        assert refused["t"] == "error" and refused["code"] == "day_not_over"
    finally:
        await server.stop()
