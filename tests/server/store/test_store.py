"""The store interface, run against both implementations: SQLite and PostgreSQL.

Each PostgreSQL test gets its own schema, dropped afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
from dataclasses import replace

import pytest
from tilehall.server.store import open_store
from tilehall.server.store.base import Store
from tilehall.server.store.errors import AppendRefused, NameTaken, RoomTaken
from tilehall.server.store.records import (
    CHAT_KEPT,
    ChatLine,
    JournalEntry,
    PlayerRecord,
    RoomRecord,
    ScoreRecord,
    SeatRecord,
)
from tilehall.server.store.rows import seats_json

from tests.services import pg_schema


@pytest.fixture(params=["sqlite", "sqlite-thread", "postgres"])
async def store_url(request, tmp_path):
    """A store's URL; ``sqlite``'s connection is in a process of its own (the default),
    ``sqlite-thread``'s on a thread of the test's process (see :func:`store`)."""
    if request.param.startswith("sqlite"):
        yield str(tmp_path / "store.sqlite3")
        return
    async with pg_schema() as url:
        yield url


@pytest.fixture
async def pg_url():
    async with pg_schema() as url:
        yield url


@pytest.fixture
async def store(request, store_url):
    threaded = request.node.callspec.params.get("store_url") == "sqlite-thread"
    s = await open_store(store_url, process=not threaded)
    yield s
    await s.close()


def sqlite_file(path: str) -> sqlite3.Connection:
    """A connection of the test's own to a SQLite store's file, beside the store's."""
    return sqlite3.connect(path)


def room_record(rid: str, *, node: str = "", seats: int = 2, created: float = 1.0) -> RoomRecord:
    return RoomRecord(
        id=rid,
        game="mathable",
        options={"racks": "hidden", "turn_seconds": 0},
        seed=2**62 + 12345,
        seats=tuple(SeatRecord() for _ in range(seats)),
        private_code=None,
        created_at=created,
        node=node,
    )


def entry(room: str, seq: int, seat: int | None = 0, **action) -> JournalEntry:
    return JournalEntry(
        room=room, seq=seq, seat=seat, action={"do": "place", **action}, now=1000.0 + seq / 8
    )


# -- players --------------------------------------------------------------------------


async def test_players_are_found_by_token_and_names_are_unique_ignoring_case(store: Store):
    ada = await store.create_player("Ada", b"\x01" * 32, 1.0)
    bob = await store.create_player("Bob", b"\x02" * 32, 2.0)
    assert ada.id != bob.id
    assert ada.name == "Ada"
    assert await store.player_by_token(b"\x01" * 32) == ada
    assert await store.player_by_token(b"\x02" * 32) == bob
    assert await store.player_by_token(b"\x03" * 32) is None
    for taken in ("Ada", "ADA", "ada"):
        with pytest.raises(NameTaken):
            await store.create_player(taken, secrets_token(), 3.0)
    # the refusal left no half-made player behind
    zoe = await store.create_player("Zoe", b"\x04" * 32, 4.0)
    assert await store.player_by_token(b"\x04" * 32) == zoe


def secrets_token() -> bytes:
    return random.randbytes(32)


# -- rooms ------------------------------------------------------------------------------


async def test_rooms_seats_status_and_unfinished_by_node(store: Store):
    a = room_record("ra", node="n1", created=1.0)
    b = room_record("rb", node="n1", created=2.0)
    c = room_record("rc", node="n2", created=3.0)
    for r in (b, a, c):
        await store.create_room(r)
    assert await store.room("ra") == a
    assert await store.room("nope") is None
    seats = [SeatRecord(name="Ada", player=7), SeatRecord(name="COMP", bot="hard")]
    await store.set_seats("ra", seats)
    await store.set_status("ra", "playing")
    got = await store.room("ra")
    assert got is not None and got.seats == tuple(seats) and got.status == "playing"
    assert got.seed == 2**62 + 12345 and got.options == a.options
    assert [r.id for r in await store.unfinished_rooms("n1")] == ["ra", "rb"]  # by creation
    assert [r.id for r in await store.unfinished_rooms("n2")] == ["rc"]
    assert await store.unfinished_rooms("") == []
    await store.finish_room("rb", {"winners": [0]}, [], 9.0)
    assert [r.id for r in await store.unfinished_rooms("n1")] == ["ra"]


async def test_a_room_id_already_kept_is_refused_and_changes_nothing(store: Store):
    """Public room ids are 32 random bits: two rooms of a store do draw the same one
    (about once in 86 stores of 10,000 rooms). The store says so, for open and
    finished rooms alike, and keeps the room it had."""
    first = room_record("r0badcafe", node="n1")
    await store.create_room(first)
    second = replace(room_record("r0badcafe", node="n2", seats=4), game="ishido", options={})
    with pytest.raises(RoomTaken):
        await store.create_room(second)
    assert await store.room("r0badcafe") == first
    await store.finish_room("r0badcafe", {"winners": [0]}, [], 9.0)
    with pytest.raises(RoomTaken):
        await store.create_room(second)
    kept = await store.room("r0badcafe")
    assert kept is not None and kept.game == "mathable" and kept.status == "over"
    # the store still takes new rooms
    await store.create_room(replace(second, id="r12345678"))
    assert await store.room("r12345678") == replace(second, id="r12345678")


async def test_exactly_one_claimant_gets_a_dead_nodes_room(store_url):
    stores = [await open_store(store_url) for _ in range(3)]
    try:
        await stores[0].create_room(room_record("r1", node="dead"))
        await stores[0].create_room(room_record("r2", node="dead"))
        await stores[0].create_room(room_record("r3", node="dead"))
        await stores[0].finish_room("r3", {}, [], 5.0)
        for rid in ("r1", "r2"):
            results = await asyncio.gather(
                *(s.claim_room(rid, "dead", f"n{i}") for i, s in enumerate(stores))
            )
            winners = [r for r in results if r is not None]
            assert len(winners) == 1, results
            assert winners[0].id == rid
            assert (await stores[0].room(rid)).node == winners[0].node
        assert await stores[0].claim_room("r3", "dead", "n0") is None  # over: nothing to take
        assert await stores[0].claim_room("r1", "dead", "n0") is None  # already moved
        assert await stores[0].unfinished_rooms("dead") == []
    finally:
        for s in stores:
            await s.close()


# -- journal ----------------------------------------------------------------------------


async def test_journal_keeps_actions_exactly_and_in_seq_order(store: Store):
    await store.create_room(room_record("r1"))
    await store.create_room(room_record("r2"))
    odd = {"do": "place", "at": [3, 4], "tiles": [0, 90], "x": None, "f": 0.5, "ok": True}
    await store.append(JournalEntry(room="r1", seq=1, seat=None, action={"do": "_start"}, now=1.5))
    await store.append(JournalEntry(room="r1", seq=2, seat=1, action=odd, now=2.25))
    await store.append(entry("r2", 1))
    got = await store.journal("r1")
    assert [(e.seq, e.seat, e.action, e.now) for e in got] == [
        (1, None, {"do": "_start"}, 1.5),
        (2, 1, odd, 2.25),
    ]
    assert [e.room for e in got] == ["r1", "r1"]
    assert await store.journal("r2") == [entry("r2", 1)]
    assert await store.journal("none") == []


async def test_a_taken_seq_is_refused_without_failing_the_others(store: Store):
    await store.create_room(room_record("r1"))
    await store.create_room(room_record("r2"))
    await store.append(entry("r1", 1, at=[0, 0]))
    # arriving together: the duplicate and a good entry share one group commit
    results = await asyncio.gather(
        store.append(entry("r1", 1, at=[9, 9])),
        store.append(entry("r2", 1)),
        return_exceptions=True,
    )
    assert isinstance(results[0], AppendRefused)
    assert results[1] is None
    assert [e.action["at"] for e in await store.journal("r1")] == [[0, 0]]  # the first one stays
    assert await store.journal("r2") == [entry("r2", 1)]


async def test_a_large_batch_keeps_all_but_the_taken_seqs(store: Store):
    """Hundreds of entries in one group commit (the SQLite store inserts them in
    chunks of many rows); taken seqs in the middle of a chunk are refused alone."""
    rooms = [f"r{i}" for i in range(5)]
    for room in rooms:
        await store.create_room(room_record(room))
    await store.append(entry("r2", 50, at=[1, 1]))
    await store.append(entry("r4", 90, at=[1, 1]))
    batch = [(room, seq) for seq in range(1, 101) for room in rooms]  # 500 entries
    results = await asyncio.gather(
        *(store.append(entry(room, seq, at=[seq % 8, 0])) for room, seq in batch),
        return_exceptions=True,
    )
    refused = {at for at, result in zip(batch, results, strict=True) if result is not None}
    assert refused == {("r2", 50), ("r4", 90)}
    assert all(isinstance(r, AppendRefused) for r in results if r is not None)
    for room in rooms:
        got = await store.journal(room)
        assert [e.seq for e in got] == list(range(1, 101))
        assert [e.action["at"] for e in got] == [
            [1, 1] if (room, seq) in refused else [seq % 8, 0] for seq in range(1, 101)
        ]


async def test_concurrent_appends_are_group_committed_durable_and_in_order(
    store: Store, store_url, monkeypatch
):
    rooms, per_room = 40, 15
    for i in range(rooms):
        await store.create_room(room_record(f"r{i}"))
    commits = count_commits(store, monkeypatch)

    async def play(room: str) -> None:
        # a room appends one entry at a time, as Room._apply does
        for seq in range(1, per_room + 1):
            await store.append(entry(room, seq, seat=seq % 2, n=seq))
            await asyncio.sleep(0)

    await asyncio.gather(*(play(f"r{i}") for i in range(rooms)))
    total = rooms * per_room
    # rooms acting at once shared their commits (counted where the store's thread is ours)
    if commits is not None:
        print(f"{total} appends in {commits[0]} commits")
        assert 0 < commits[0] < total / 4, commits
    # durable: a second, independent connection sees every entry, in order
    other = await open_store(store_url)
    try:
        for i in range(rooms):
            got = await other.journal(f"r{i}")
            assert [e.seq for e in got] == list(range(1, per_room + 1))
            assert [e.action["n"] for e in got] == list(range(1, per_room + 1))
    finally:
        await other.close()


@pytest.mark.parametrize("process", [True, False], ids=["process", "thread"])
async def test_writes_share_the_journals_commit_and_a_refused_one_costs_the_others_nothing(
    tmp_path, monkeypatch, process
):
    """SQLite commits a room's other writes (a room made, a game's result, a player) with
    the journal rows queued beside them, one fsync for all; a write refused there (a
    room id taken, a name taken) is undone alone, and the rows and writes around it stay.
    In the store's own process the answers are the same (the commits counted on a thread)."""
    store = await open_store(str(tmp_path / "store.sqlite3"), process=process)
    try:
        for rid in ("r1", "r2", "rtaken"):
            await store.create_room(room_record(rid))
        await store.create_player("Ada", b"t" * 32, 1.0)
        commits = count_commits(store, monkeypatch)

        async def append(e: JournalEntry) -> None:
            await store.append(e)

        # Tasks, so that each is queued in this order within one turn of the loop.
        queued = [
            asyncio.create_task(work)
            for work in (
                append(entry("r1", 1, n=1)),
                store.create_room(room_record("r3")),
                append(entry("r2", 1, n=2)),
                store.create_room(room_record("rtaken")),  # refused: the id is kept
                store.create_player("ada", b"u" * 32, 1.0),  # refused: the name is taken
                append(entry("r1", 2, n=3)),
                store.finish_room("r2", {"winners": [0]}, [], 9.0),
                store.create_player("Grace", b"v" * 32, 1.0),
                append(entry("r3", 1, n=4)),  # in the room made in the same group
            )
        ]
        got = await asyncio.gather(*queued, return_exceptions=True)
        assert isinstance(got[3], RoomTaken) and isinstance(got[4], NameTaken), got
        assert not [g for i, g in enumerate(got) if i not in (3, 4) and isinstance(g, Exception)]
        # the first item may go alone while the rest queue
        assert commits is None or commits[0] <= 2, commits
    finally:
        await store.close()
    again = await open_store(str(tmp_path / "store.sqlite3"))  # durable, as answered
    try:
        assert [e.action["n"] for e in await again.journal("r1")] == [1, 3]
        assert [e.action["n"] for e in await again.journal("r3")] == [4]
        r2 = await again.room("r2")
        assert r2 is not None and r2.status == "over"
        assert await again.player_by_name("Grace") is not None
        assert (await again.room("rtaken")) == room_record("rtaken")
        ada = await again.player_by_name("ADA")
        assert ada is not None and ada.name == "Ada"
    finally:
        await again.close()


def count_commits(store: Store, monkeypatch) -> list[int] | None:
    """Count the journal's group commits (one transaction each); None for a store whose
    connection is in a process of its own (its SQLiteStore is not this process's)."""
    commits = [0]
    if type(store).__name__ == "ProcessStore":
        return None
    if type(store).__name__ == "PostgresStore":
        real = store._insert

        async def counted(entries):
            commits[0] += 1
            return await real(entries)

        monkeypatch.setattr(store, "_insert", counted)
    else:
        real_fn = store._commit

        def counted_fn(group):
            commits[0] += 1
            return real_fn(group)

        monkeypatch.setattr(store, "_commit", counted_fn)
    return commits


async def test_a_fenced_postgres_store_appends_only_to_its_own_rooms(pg_url):
    from tilehall.server.store.postgres import PostgresStore

    mine = PostgresStore(pg_url, owner="n1")
    await mine.open()
    try:
        await mine.create_room(room_record("r1", node="n1"))
        await mine.create_room(room_record("r2", node="n1"))
        await mine.append(entry("r1", 1))
        assert await mine.claim_room("r1", "n1", "n2") is not None  # n1 was declared dead
        results = await asyncio.gather(
            mine.append(entry("r1", 2)), mine.append(entry("r2", 1)), return_exceptions=True
        )
        assert isinstance(results[0], AppendRefused)  # n1 no longer owns r1
        assert results[1] is None
        assert [e.seq for e in await mine.journal("r1")] == [1]
    finally:
        await mine.close()


# -- results and scores -----------------------------------------------------------------


def score(player: int, name: str, value: int, at: float, table: str = "2 players") -> ScoreRecord:
    return ScoreRecord(
        game="mathable",
        table=table,
        player=player,
        name=name,
        score=value,
        room=f"room{at:g}",
        at=at,
        detail={"tiles_placed": value // 10, "reason": "blocked"},
    )


async def test_finish_room_keeps_scores_and_tables_rank_them(store: Store):
    ada = await store.create_player("Ada", b"\x01" * 32, 1.0)
    bob = await store.create_player("Bob", b"\x02" * 32, 1.0)
    games = [
        [score(ada.id, "Ada", 120, 10.0), score(bob.id, "Bob", 300, 10.0)],
        [score(ada.id, "Ada", 300, 20.0), score(bob.id, "Bob", 50, 20.0)],
        [score(ada.id, "Ada", 80, 30.0, "3 players")],
    ]
    for i, scores in enumerate(games):
        rid = f"g{i}"
        await store.create_room(room_record(rid))
        await store.finish_room(rid, {"scores": [s.score for s in scores]}, scores, 40.0 + i)
    top = await store.top_scores("mathable", "2 players")
    # best first; a tie goes to the earlier score
    assert [(s.name, s.score, s.at) for s in top] == [
        ("Bob", 300, 10.0),
        ("Ada", 300, 20.0),
        ("Ada", 120, 10.0),
        ("Bob", 50, 20.0),
    ]
    assert top[0].detail == {"tiles_placed": 30, "reason": "blocked"}
    assert [s.score for s in await store.top_scores("mathable", "2 players", limit=2)] == [300, 300]
    assert await store.top_scores("ishido", "2 players") == []
    best = await store.best_of("mathable", ada.id)
    assert [(s.table, s.score) for s in best] == [("2 players", 300), ("3 players", 80)]
    assert [(s.table, s.score) for s in await store.best_of("mathable", bob.id)] == [
        ("2 players", 300)
    ]
    assert await store.score_tables("mathable") == ["2 players", "3 players"]
    assert await store.score_tables("lines") == []
    assert await store.unfinished_rooms("") == []  # every room finished


async def test_equal_scores_rank_the_earlier_game_first_then_the_one_kept_first(store: Store):
    """Ties, the same in both stores: of equal scores the one made first ranks first (the
    later player had to beat it, not equal it); of equal scores made at the same time (two
    seats of one game), the one kept first, in seat order. Kept here in another order
    than their times, so that neither the insertion order nor the times alone pass."""
    ada = await store.create_player("Ada", b"\x01" * 32, 1.0)
    bob = await store.create_player("Bob", b"\x02" * 32, 1.0)
    cy = await store.create_player("Cy", b"\x03" * 32, 1.0)
    games = {  # kept in this order; at = when each game ended
        "late": [score(ada.id, "Ada", 200, 30.0), score(bob.id, "Bob", 200, 30.0)],
        "early": [score(cy.id, "Cy", 200, 10.0)],
        "middle": [score(bob.id, "Bob", 200, 20.0), score(ada.id, "Ada", 200, 20.0)],
        "best": [score(cy.id, "Cy", 250, 40.0)],
    }
    for rid, scores in games.items():
        scores = [replace(s, room=rid) for s in scores]
        await store.create_room(room_record(rid))
        await store.finish_room(rid, {"scores": [s.score for s in scores]}, scores, 50.0)
    order = [("Cy", "best"), ("Cy", "early"), ("Bob", "middle"), ("Ada", "middle")]
    order += [("Ada", "late"), ("Bob", "late")]
    top = await store.top_scores("mathable", "2 players")
    assert [(s.name, s.room) for s in top] == order
    # a page cut inside the ties takes the first of them, as the whole list has them
    for n in range(1, len(order) + 1):
        got = await store.top_scores("mathable", "2 players", limit=n)
        assert [(s.name, s.room) for s in got] == order[:n]
    # a player's best of a table is their first of it, as the table ranks them
    assert [s.room for s in await store.best_of("mathable", ada.id)] == ["middle"]
    assert [s.room for s in await store.best_of("mathable", bob.id)] == ["middle"]
    assert [s.room for s in await store.best_of("mathable", cy.id)] == ["best"]


async def test_rooms_created_at_the_same_time_are_listed_by_id(store: Store):
    for rid in ("rc", "ra", "rb"):
        await store.create_room(room_record(rid, node="n1", created=5.0))
    await store.create_room(room_record("rz", node="n1", created=4.0))
    assert [r.id for r in await store.unfinished_rooms("n1")] == ["rz", "ra", "rb", "rc"]


# -- history, quick-match rooms, retention ----------------------------------------------


async def played(store: Store, rid: str, seats: list, finished: float, **kw) -> None:
    """A room with a journal, finished at ``finished``."""
    record = room_record(rid, seats=len(seats))
    record = RoomRecord(**{**_fields(record), "seats": tuple(seats), **kw})
    await store.create_room(record)
    await store.append(entry(rid, 1, None))
    await store.finish_room(rid, {"scores": [0] * len(seats)}, [], finished)


def _fields(record: RoomRecord) -> dict:
    return {f: getattr(record, f) for f in RoomRecord.__dataclass_fields__}


async def test_history_lists_a_players_played_rooms_newest_first_by_pages(store: Store):
    ada = await store.create_player("Ada", b"\x01" * 32, 1.0)
    bob = await store.create_player("Bob", b"\x02" * 32, 1.0)
    a, b, comp = (
        SeatRecord(name="Ada", player=ada.id),
        SeatRecord(name="Bob", player=bob.id),
        SeatRecord(name="COMP", bot="easy"),
    )
    await played(store, "r1", [a, b], 10.0)
    await played(store, "r2", [a, comp], 30.0)
    await played(store, "r3", [b, a], 20.0, private_code="secret")
    await played(store, "r4", [a, comp], 30.0)  # the same second as r2: the id breaks the tie
    # a room that expired waiting (never played) is not history
    await store.create_room(room_record("r5"))
    await store.set_seats("r5", [a, SeatRecord()])
    await store.finish_room("r5", {"expired": "nobody came"}, [], 40.0)

    mine = await store.history(ada.id, private=True)
    assert [r.id for r in mine] == ["r4", "r2", "r3", "r1"]
    assert mine[2].private and mine[2].seats == (b, a) and mine[2].finished_at == 20.0
    assert mine[0].result == {"scores": [0, 0]} and mine[0].game == "mathable"
    page = await store.history(ada.id, private=True, limit=2)
    rest = await store.history(ada.id, private=True, before=(page[-1].finished_at, page[-1].id))
    assert [r.id for r in page + rest] == ["r4", "r2", "r3", "r1"]
    assert [r.id for r in await store.history(ada.id)] == ["r4", "r2", "r1"], "private ones hidden"
    assert [r.id for r in await store.history(bob.id, private=True)] == ["r3", "r1"]
    assert await store.history(ada.id, game="lines") == []
    # a finish done again enters nobody's history twice
    await store.finish_room("r1", {"scores": [1, 1]}, [], 99.0)
    assert [r.id for r in await store.history(bob.id, private=True)] == ["r3", "r1"]


async def test_history_pages_through_rooms_finished_at_the_same_time_by_code_point(
    store: Store,
):
    """A page may end inside a run of rooms finished at the same second: the next page
    starts right after it. Private room ids have capitals, ``-`` and ``_``: they compare
    by code point in both stores, whatever the PostgreSQL server's locale."""
    ada = await store.create_player("Ada", b"\x01" * 32, 1.0)
    a = SeatRecord(name="Ada", player=ada.id)
    ids = ["r0a", "Zq-1", "zq_1", "Aq_1", "q-Z1", "_q1"]
    for rid in ids:
        await played(store, rid, [a], 60.0, private_code=f"code-{rid}")
    await played(store, "r1b", [a], 70.0)
    expected = ["r1b", *sorted(ids, reverse=True)]  # Python's str order is by code point
    assert [r.id for r in await store.history(ada.id, private=True)] == expected
    for size in (1, 2, 4):
        pages: list[str] = []
        before = None
        while page := await store.history(ada.id, private=True, limit=size, before=before):
            pages += [r.id for r in page]
            before = (page[-1].finished_at, page[-1].id)
        assert pages == expected, size


async def test_players_are_found_by_name_as_names_compare(store: Store):
    ada = await store.create_player("Ada", b"\x01" * 32, 1.0)
    assert await store.player_by_name("ada") == ada
    assert await store.player_by_name("\u0410da") == ada  # a Cyrillic A: the same skeleton
    assert await store.player_by_name("Eve") is None


async def test_purged_journals_leave_results_but_no_history_or_replay(store: Store):
    ada = await store.create_player("Ada", b"\x01" * 32, 1.0)
    a = SeatRecord(name="Ada", player=ada.id)
    for i in range(5):
        await played(store, f"old{i}", [a], 100.0 + i)
    await played(store, "bots", [SeatRecord(name="COMP", bot="easy")] * 2, 100.0)
    await played(store, "new", [a], 500.0)
    for rid in ("old0", "new"):
        await store.add_chat(ChatLine(room=rid, name="Ada", text="gg", at=1.0))
    assert await store.purge_journals(300.0, batch=4) == 4
    assert await store.purge_journals(300.0, batch=4) == 2
    assert await store.purge_journals(300.0, batch=4) == 0
    assert [r.id for r in await store.history(ada.id)] == ["new"]
    assert await store.journal("old0") == [] and await store.journal("bots") == []
    assert len(await store.journal("new")) == 1
    assert await store.chat("old0") == [], "a purged room's chat goes with its journal"
    assert len(await store.chat("new")) == 1
    kept = await store.room("old0")
    assert kept is not None and kept.status == "over", "the room and its result stay"


async def test_a_quick_match_room_keeps_when_it_fills_with_bots(store: Store):
    await store.create_room(
        RoomRecord(**{**_fields(room_record("q")), "fill_at": 50.0, "fill_level": "easy"})
    )
    got = await store.room("q")
    assert got is not None and (got.fill_at, got.fill_level) == (50.0, "easy")
    await store.set_fill("q", 40.0)
    assert (await store.unfinished_rooms(""))[0].fill_at == 40.0


async def test_history_is_filled_in_for_rooms_played_before_it_was_kept(store_url, monkeypatch):
    """The migration that brought history enters the rooms already over."""
    if store_url.startswith("postgresql"):
        from tilehall.server.store import postgres as module
    else:
        from tilehall.server.store import sqlite as module
    full = module.MIGRATIONS
    monkeypatch.setattr(module, "MIGRATIONS", full[:5])
    old = await open_store(store_url, process=False)  # MIGRATIONS patched here
    ada = await old_player(old, store_url, "Ada", b"\x01" * 32)
    seats = seats_json([SeatRecord(name="Ada", player=ada.id), SeatRecord()])
    rows = [  # as the code of that version wrote them
        ("played", "mathable", "{}", 1, seats, "over", "", 1.0, 77.0, '{"scores": [3, 1]}'),
        ("expired", "mathable", "{}", 2, seats, "over", "", 1.0, 78.0, '{"expired": "x"}'),
    ]
    columns = "id, game, options, seed, seats, status, node, created_at, finished_at, result"
    if store_url.startswith("postgresql"):
        await old.pool.executemany(
            f"INSERT INTO rooms({columns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)", rows
        )
        await old.pool.execute(
            "INSERT INTO journal(room, seq, seat, action, at) VALUES ('played', 1, NULL, '', 1)"
        )
    else:
        with old.db:
            old.db.executemany(f"INSERT INTO rooms({columns}) VALUES (?,?,?,?,?,?,?,?,?,?)", rows)
            old.db.execute("INSERT INTO journal VALUES ('played', 1, NULL, x'', 1)")
    await old.close()
    monkeypatch.setattr(module, "MIGRATIONS", full)
    new = await open_store(store_url, process=False)  # MIGRATIONS patched here
    try:
        [room] = await new.history(ada.id)
        assert (room.id, room.finished_at, room.result) == ("played", 77.0, {"scores": [3, 1]})
    finally:
        await new.close()


async def old_player(store, url: str, name: str, token_hash: bytes) -> PlayerRecord:
    """A player as the schema before tokens (migration 8) kept one: its token in players."""
    sql = "INSERT INTO players(name, name_key, token_hash, created_at) VALUES (?, ?, ?, 1)"
    if hasattr(store, "pool"):
        sql = sql.replace("?", "$1", 1).replace("?", "$2", 1).replace("?", "$3", 1)
        pid = await store.pool.fetchval(sql + " RETURNING id", name, name.casefold(), token_hash)
    else:
        with contextlib.closing(sqlite_file(url)) as db, db:
            pid = db.execute(sql, (name, name.casefold(), token_hash)).lastrowid
    return PlayerRecord(id=pid, name=name)


async def test_tokens_kept_before_the_tokens_table_still_work(store_url, monkeypatch):
    """The migration that brought one token per device keeps every player's token."""
    if store_url.startswith("postgresql"):
        from tilehall.server.store import postgres as module
    else:
        from tilehall.server.store import sqlite as module
    full = module.MIGRATIONS
    monkeypatch.setattr(module, "MIGRATIONS", full[:7])
    old = await open_store(store_url, process=False)  # MIGRATIONS patched here
    ada = await old_player(old, store_url, "Ada", b"\x01" * 32)
    await old.close()
    monkeypatch.setattr(module, "MIGRATIONS", full)
    new = await open_store(store_url, process=False)  # MIGRATIONS patched here
    try:
        assert await new.player_by_token(b"\x01" * 32) == ada
        await new.add_token(ada.id, b"\x02" * 32, 2.0)
        assert (await new.account_by_token(b"\x02" * 32)).player == ada
        await new.revoke_token(b"\x01" * 32)
        assert await new.player_by_token(b"\x01" * 32) is None
        assert await new.player_by_token(b"\x02" * 32) == ada
    finally:
        await new.close()


async def test_accounts_keep_a_password_hash_a_code_and_a_bar(store):
    ada = await store.create_player("Ada", b"\x01" * 32, 1.0)
    await store.add_token(ada.id, b"\x02" * 32, 2.0)
    account = await store.account_by_name("ADA")
    assert (account.id, account.protected, account.disabled) == (ada.id, False, False)
    await store.set_password(ada.id, "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA")
    await store.set_disabled(ada.id, True)
    account = await store.account(ada.id)
    assert account.password.startswith("$argon2id$") and account.disabled and account.protected
    await store.set_password(ada.id, None, b"\x09" * 32)
    account = await store.account_by_token(b"\x02" * 32)
    assert (account.password, account.reset_code) == (None, b"\x09" * 32)
    assert account.protected
    assert await store.revoke_tokens(ada.id) == 2
    assert await store.account_by_token(b"\x02" * 32) is None
    assert await store.account_by_name("Eve") is None


async def test_a_password_is_hashed_again_only_while_its_old_hash_stands(store):
    ada = await store.create_player("Ada", b"\x01" * 32, 1.0)
    await store.set_password(ada.id, "old-hash", b"\x07" * 32)
    assert await store.rehash_password(ada.id, "old-hash", "new-hash")
    account = await store.account(ada.id)
    assert (account.password, account.reset_code) == ("new-hash", b"\x07" * 32)
    # changed meanwhile on another connection: that password stands
    await store.set_password(ada.id, "changed")
    assert not await store.rehash_password(ada.id, "new-hash", "stale")
    assert (await store.account(ada.id)).password == "changed"
    assert not await store.rehash_password(ada.id + 999, "changed", "x")


async def test_reopening_keeps_data_and_does_not_migrate_twice(store_url):
    first = await open_store(store_url)
    await first.create_player("Ada", b"\x01" * 32, 1.0)
    await first.close()
    again = await open_store(store_url)  # the migrations must see the schema is current
    try:
        assert (await again.player_by_token(b"\x01" * 32)).name == "Ada"
        if store_url.startswith("postgresql"):
            from tilehall.server.store.postgres import MIGRATIONS

            versions = await again.pool.fetch("SELECT version FROM schema_version ORDER BY 1")
            assert [r[0] for r in versions] == list(range(1, len(MIGRATIONS) + 1))
        else:
            from tilehall.server.store.sqlite import MIGRATIONS

            version = sqlite_file(store_url).execute("PRAGMA user_version").fetchone()[0]
            assert version == len(MIGRATIONS)
    finally:
        await again.close()


async def test_nodes_opening_one_new_postgres_schema_together_migrate_it_once(pg_url):
    stores = await asyncio.gather(*(open_store(pg_url) for _ in range(3)))
    try:
        from tilehall.server.store.postgres import MIGRATIONS

        versions = await stores[0].pool.fetch("SELECT version FROM schema_version ORDER BY 1")
        assert [r[0] for r in versions] == list(range(1, len(MIGRATIONS) + 1))  # each once
    finally:
        for s in stores:
            await s.close()


# -- chat -------------------------------------------------------------------------------


async def test_a_room_keeps_its_latest_chat_lines_oldest_first(store: Store):
    await store.create_room(room_record("r1"))
    await store.create_room(room_record("r2"))
    assert await store.chat("r1") == []
    said = [
        ChatLine(room="r1", name=f"p{i % 3}", text=f"line {i} \u00e9\u263a", at=100.0 + i)
        for i in range(CHAT_KEPT + 7)
    ]
    for i, line in enumerate(said):
        await store.add_chat(line)
        if i == 2:  # another room's line, between: neither room sees the other's
            await store.add_chat(ChatLine(room="r2", name="eve", text="hi", at=1.0))
    assert await store.chat("r1") == said[-CHAT_KEPT:]
    assert await store.chat("r1", limit=3) == said[-3:]
    assert await store.chat("r2") == [ChatLine(room="r2", name="eve", text="hi", at=1.0)]
    await store.add_chat(ChatLine(room="r2", name="eve", text="again", at=2.0), keep=1)
    assert [line.text for line in await store.chat("r2")] == ["again"]


async def test_chat_lines_survive_reopening_the_store(store_url):
    first = await open_store(store_url)
    await first.create_room(room_record("r1"))
    await first.add_chat(ChatLine(room="r1", name="ada", text="still here?", at=5.0))
    await first.close()
    again = await open_store(store_url)
    try:
        assert await again.chat("r1") == [
            ChatLine(room="r1", name="ada", text="still here?", at=5.0)
        ]
    finally:
        await again.close()


async def test_purged_showcases_are_gone_and_nothing_else(store: Store):
    """The server's own finished games go whole (record, moves, chat), a batch at a time;
    a room that only looks like one (its id, a private code, a maker) stays."""
    comp = [SeatRecord(name="COMP", bot="normal")] * 2
    for i in range(3):
        await played(store, f"s0ld{i}", comp, 100.0 + i)
    await store.add_chat(ChatLine(room="s0ld0", name="Ada", text="gg", at=1.0))
    await played(store, "snew", comp, 500.0)
    await played(store, "rbots", comp, 100.0)  # a public room's id
    await played(store, "sPriv", comp, 100.0, private_code="code")
    await played(store, "smade", comp, 100.0, creator=1)
    running = room_record("srun", seats=2)
    await store.create_room(RoomRecord(**{**_fields(running), "seats": tuple(comp)}))
    assert (await store.room("s0ld0")).showcase and not (await store.room("smade")).showcase
    assert await store.purge_showcases(300.0, batch=2) == 2
    assert await store.purge_showcases(300.0, batch=2) == 1
    assert await store.purge_showcases(300.0, batch=2) == 0
    for rid in ("s0ld0", "s0ld1", "s0ld2"):
        assert await store.room(rid) is None and await store.journal(rid) == []
    assert await store.chat("s0ld0") == []
    for rid in ("snew", "rbots", "sPriv", "smade", "srun"):
        assert await store.room(rid) is not None, rid
    assert len(await store.journal("snew")) == 1
