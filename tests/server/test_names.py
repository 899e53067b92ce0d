"""Names and chat text: NFKC, case folding, TR39 confusables, blank letters, stacked marks.

Every refusal is checked for its code and for what it left alone: no player
created, no room, nothing journaled. The players table's unique skeleton is
proven under concurrency on SQLite and on PostgreSQL across two server nodes,
and its filling at open for players stored before it.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tilehall.protocol import ErrorCode, ProtocolError
from tilehall.server.app import Server
from tilehall.server.config import Config, Limits
from tilehall.server.names import (
    KEYS_VERSION,
    MAX_MARKS,
    check_new_name,
    clean_chat,
    folded_skeleton,
    is_bot_name,
    name_key,
    skeleton,
    validate_name,
)
from tilehall.server.store import open_store
from tilehall.server.store import postgres as pg_store
from tilehall.server.store import sqlite as sqlite_store
from tilehall.server.store.errors import NameTaken

from tests.helpers import Raw
from tests.memory import MemoryMember
from tests.server.store.test_store import sqlite_file
from tests.services import pg_schema

FULLWIDTH_COMP = "\uff23\uff2f\uff2d\uff30-1"  # COMP-1 in fullwidth letters
CYRILLIC_COMP = "\u0421\u041e\u041c\u0420-1"  # COMP-1 in Cyrillic letters
CYRILLIC_ALICE = "\u0430lice"  # alice with a Cyrillic a
FULLWIDTH_ALICE = "\uff41lice"  # alice with a fullwidth a
HANGUL_FILLER = "\u3164"  # a letter (Lo) that renders blank


def count(house, table: str) -> int:
    return house.store.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


# -- the rules, as functions ------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["COMP-1", "comp-1", "C0MP-1", "COMP-l", FULLWIDTH_COMP, CYRILLIC_COMP],
)
def test_every_spelling_of_comp_has_one_skeleton_and_is_a_bot_name(name):
    assert skeleton(name) == "cornp-l"  # UTS #39 maps m to rn
    assert is_bot_name(name)


@pytest.mark.parametrize(
    "first, second",
    [
        ("mara", "rnara"),  # UTS #39's own ASCII row: m is rn
        ("wendy", "vvendy"),  # this project's table: w is vv
        ("clara", "dara"),  # and d is cl
        ("WENDY", "VVendy"),
        ("Mara", "RNARA"),
    ],
)
def test_the_full_uts39_skeleton_and_the_projects_own_table_join_look_alikes(first, second):
    assert folded_skeleton(first) == folded_skeleton(second)
    assert skeleton(first.lower()) == skeleton(second.lower())
    assert name_key(first) != name_key(second)


@given(st.text(max_size=24))
def test_a_skeleton_is_its_own_skeleton(text):
    assert skeleton(skeleton(text)) == skeleton(text)
    assert folded_skeleton(folded_skeleton(text)) == folded_skeleton(text)


@pytest.mark.parametrize(
    "name",
    [
        "\u05d0\u05d1 12",  # the two names the bidi algorithm shows alike in a left-to-right line
        "12 \u05d0\u05d1",
        "\u05d0\u05d112",
        "ab \u05d0\u05d1",  # a left-to-right letter beside right-to-left ones
        "\u05d0\u05d1-",  # punctuation at an edge moves with the line's direction
        "_\u05d0\u05d1",
        "\u0639\u0644\u064a \u0663",  # an Arabic-Indic digit too
    ],
)
def test_a_new_name_that_mixes_right_to_left_letters_with_what_moves_is_refused(name):
    with pytest.raises(ProtocolError) as refused:
        check_new_name(validate_name(name))
    assert refused.value.code == ErrorCode.BAD_NAME
    assert "right-to-left" in refused.value.message


@pytest.mark.parametrize(
    "name", ["\u05d0\u05d1", "\u05d3\u05d5\u05d3 \u05db\u05d4\u05df", "\u05d0_\u05d1", "Ada 12"]
)
def test_names_that_show_in_one_order_everywhere_are_new_names(name):
    check_new_name(validate_name(name))


def test_keys_fold_width_and_case_and_skeletons_fold_look_alikes():
    assert name_key(FULLWIDTH_ALICE) == name_key("ALICE") == "alice"
    assert skeleton(CYRILLIC_ALICE) == skeleton(FULLWIDTH_ALICE) == skeleton("Alice") == "alice"
    assert skeleton("Ilse") == skeleton("llse")  # capital I and small L
    assert name_key("Ilse") == name_key("ILSE") != name_key("llse")
    assert is_bot_name("Compass")  # begins as COMP does, as it always was
    assert is_bot_name("cornpass")  # and so does this, as UTS #39 reads it
    assert not is_bot_name("Ada") and not is_bot_name("Cornelius")


@pytest.mark.parametrize(
    "raw, shown",
    [
        ("  Ada ", "Ada"),
        ("Zoe\u0308", "Zo\u00eb"),  # NFC: the precomposed ë
        (FULLWIDTH_ALICE, FULLWIDTH_ALICE),  # shown as typed; compared by its keys
        ("Jean-Luc P.", "Jean-Luc P."),
        ("\u674e\u5c0f\u9f8d", "\u674e\u5c0f\u9f8d"),
    ],
)
def test_names_are_shown_as_typed_in_nfc_and_trimmed(raw, shown):
    assert validate_name(raw) == shown


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "   ",
        "a  b",
        "x" * 25,
        "a\x07b",
        "a\u200bb",  # zero width space
        HANGUL_FILLER,
        HANGUL_FILLER * 3,
        f"A{HANGUL_FILLER}da",
        "\u115f",  # Hangul choseong filler
        "\u1160",
        "\uffa0",  # halfwidth Hangul filler
        "\u2800",  # Braille blank
        "-ada",
    ],
)
def test_blank_looking_and_malformed_names_are_bad_names(raw):
    with pytest.raises(ProtocolError) as refused:
        validate_name(raw)
    assert refused.value.code == ErrorCode.BAD_NAME


@given(st.text(max_size=30))
def test_a_valid_name_always_shows_something_and_is_its_own_nfc(raw):
    try:
        name = validate_name(raw)
    except ProtocolError as exc:
        assert exc.code == ErrorCode.BAD_NAME
        return
    assert name == unicodedata.normalize("NFC", name) == name.strip()
    assert 1 <= len(name) <= 24
    assert skeleton(name).strip()


# -- hello ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", [FULLWIDTH_COMP, CYRILLIC_COMP, "C0MP-1", "Comp", "cOmPuter"])
async def test_names_that_look_like_comp_are_reserved_and_create_nobody(house, name):
    err = await house.call(MemoryMember(), {"t": "hello", "v": 1, "name": name})
    assert (err["t"], err["code"]) == ("error", "name_reserved")
    assert count(house, "players") == 0


@pytest.mark.parametrize(
    "first, second",
    [
        ("alice", FULLWIDTH_ALICE),
        ("alice", CYRILLIC_ALICE),
        ("alice", "ALICE"),
        (FULLWIDTH_ALICE, "Alice"),
        ("Ilse", "llse"),
        ("Ilse", "ilse"),
        ("Bob1", "Bobl"),
        ("Zo\u00eb", "ZOE\u0308"),
        ("mara", "rnara"),
        ("vvendy", "Wendy"),
        ("clara", "Dara"),
    ],
)
async def test_a_name_confusable_with_a_players_is_taken_and_creates_nobody(house, first, second):
    a = await house.player(first)
    err = await house.call(MemoryMember(), {"t": "hello", "v": 1, "name": second})
    assert (err["t"], err["code"]) == ("error", "name_taken")
    assert house.store.db.execute("SELECT id, name FROM players").fetchall() == [
        (a.player.id, validate_name(first))
    ]


@pytest.mark.parametrize("name", [HANGUL_FILLER, f"Ada{HANGUL_FILLER}", "\u2800"])
async def test_blank_looking_names_are_refused_and_create_nobody(house, name):
    err = await house.call(MemoryMember(), {"t": "hello", "v": 1, "name": name})
    assert (err["t"], err["code"]) == ("error", "bad_name")
    assert count(house, "players") == 0


async def test_the_shown_name_is_the_one_typed(house):
    member = MemoryMember()
    welcome = await house.call(member, {"t": "hello", "v": 1, "name": f" {FULLWIDTH_ALICE} "})
    assert welcome["player"] == FULLWIDTH_ALICE
    rows = house.store.db.execute("SELECT name, name_key, skeleton, folded FROM players")
    assert rows.fetchall() == [(FULLWIDTH_ALICE, "alice", "alice", "alice")]


async def test_of_confusable_names_said_at_once_exactly_one_wins(house):
    names = ["alice", "ALICE", FULLWIDTH_ALICE, CYRILLIC_ALICE, "Alice", "\uff41\uff2c\uff29CE"]
    members = [MemoryMember() for _ in names]
    replies = await asyncio.gather(
        *(
            house.call(m, {"t": "hello", "v": 1, "name": n})
            for m, n in zip(members, names, strict=True)
        )
    )
    assert sorted(r["t"] for r in replies) == ["error"] * 5 + ["welcome"]
    assert {r["code"] for r in replies if r["t"] == "error"} == {"name_taken"}
    assert count(house, "players") == 1


# -- seats of create --------------------------------------------------------------------


@pytest.mark.parametrize("seat", [CYRILLIC_COMP, FULLWIDTH_COMP, "C0MP-1", "C0MP:easy"])
async def test_a_seat_that_only_looks_like_comp_is_refused_and_makes_no_room(house, seat):
    a = await house.player("Ada")
    err = await house.call(a, {"t": "create", "game": "mathable", "seats": [None, seat]})
    assert (err["t"], err["code"]) == ("error", "name_reserved")
    assert (count(house, "rooms"), count(house, "journal")) == (0, 0)
    assert house.lobby.rooms == {}


async def test_a_blank_seat_name_is_a_bad_name_and_makes_no_room(house):
    a = await house.player("Ada")
    seats = [None, HANGUL_FILLER]
    err = await house.call(a, {"t": "create", "game": "mathable", "seats": seats})
    assert (err["t"], err["code"]) == ("error", "bad_name")
    assert (count(house, "rooms"), count(house, "journal")) == (0, 0)


async def test_plain_comp_seats_are_still_bots(house):
    a = await house.player("Ada")
    seats = [None, "comp-2:easy"]
    created = await house.call(a, {"t": "create", "game": "mathable", "seats": seats})
    assert created["t"] == "created"
    room = house.lobby.rooms[created["room"]]
    assert [(s.name, s.bot) for s in room.record.seats] == [(None, None), ("comp-2", "easy")]


# -- chat -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, clean",
    [
        ("one\u2028two\u2029three", "one two three"),
        ("a\r\n\r\nb\x85c\vd\fe", "a b c d e"),
        ("\u202eevil\u200b", "evil"),  # bidi override, zero width space
        ("Vi\u1ec7t Nam, Zo\u00eb, na\u0131\u0308ve", "Vi\u1ec7t Nam, Zo\u00eb, na\u0131\u0308ve"),
        ("\u0928\u092e\u0938\u094d\u0924\u0947 \u0e01\u0e35\u0e48", None),  # Devanagari, Thai
        ("\u05d1\u05bc\u05b8\u0591", None),  # pointed Hebrew with its accent: three marks
        ("e\u0301", "\u00e9"),  # NFC
        ("\u0301\u0301hi", "hi"),  # marks on nothing
        (f"{HANGUL_FILLER}\u2028 {HANGUL_FILLER}", ""),
    ],
)
def test_chat_text_is_cleaned(raw, clean):
    assert clean_chat(raw) == (unicodedata.normalize("NFC", raw) if clean is None else clean)


def test_stacked_marks_are_capped_per_character():
    zalgo = "e" + "\u0301" * 480 + "x" + "\u20dd" * 100  # acutes; enclosing circles
    cleaned = clean_chat(zalgo)
    decomposed = unicodedata.normalize("NFD", cleaned)
    assert decomposed == "e" + "\u0301" * MAX_MARKS + "x" + "\u20dd" * MAX_MARKS
    assert cleaned == unicodedata.normalize("NFC", cleaned)


@given(st.text(max_size=200))
def test_clean_chat_leaves_no_line_break_nor_a_stack(raw):
    text = clean_chat(raw)
    assert text == text.strip() and len(text.splitlines()) <= 1
    run = MAX_MARKS
    for ch in unicodedata.normalize("NFD", text):
        run = run + 1 if unicodedata.category(ch)[0] == "M" else 0
        assert run <= MAX_MARKS


async def test_chat_is_cleaned_for_the_room_and_a_blank_one_is_refused(house):
    a = await house.player("Ada")
    room = (await house.call(a, {"t": "create", "game": "ishido"}))["room"]
    await house.call(a, {"t": "join", "room": room})
    b = await house.player("Bob")
    await house.call(b, {"t": "watch", "room": room})
    await house.send(
        a, {"t": "chat", "room": room, "text": "gg\u2028" + "o\u0308" * 3 + "\u0308" * 50}
    )
    assert [f["text"] for f in b.of("chat")] == ["gg \u00f6\u00f6\u00f6\u0308\u0308"]
    err = await house.call(a, {"t": "chat", "room": room, "text": HANGUL_FILLER + "\u2029"})
    assert (err["t"], err["code"]) == ("error", "out_of_range")
    assert len(b.of("chat")) == 1  # nothing more reached the room


# -- the players table: concurrency on PostgreSQL across nodes, filling at open -------------


async def test_two_nodes_on_one_postgresql_let_one_of_confusable_names_in(tmp_path):
    async with pg_schema() as url:
        servers = []
        for i in range(2):
            config = Config(
                showcase=False,
                port=0,
                data_dir=tmp_path / f"n{i}",
                db=url,
                limits=Limits(ping_interval=None),
            )
            servers.append(Server(config))
            await servers[-1].start()
        try:
            names = ["\u0410nn-1", "ANN-l", "Ann-1"]  # the first with a Cyrillic A
            names += [FULLWIDTH_ALICE, "alice", CYRILLIC_ALICE, "ALICE"]
            peers = [
                await Raw.open(f"ws://127.0.0.1:{servers[i % 2].port}") for i in range(len(names))
            ]
            replies = await asyncio.gather(
                *(
                    p.call({"t": "hello", "v": 1, "name": n})
                    for p, n in zip(peers, names, strict=True)
                )
            )
            wins = [n for n, r in zip(names, replies, strict=True) if r["t"] == "welcome"]
            # one of each group, whichever came first (ALICE's own skeleton is allce)
            assert sorted(folded_skeleton(n) for n in wins) == ["alice", "ann-l"], replies
            codes = {r["code"] for r in replies if r["t"] == "error"}
            assert codes == {"name_taken"}
            for p in peers:
                await p.close()
        finally:
            for server in servers:
                await server.stop()


OLD_PLAYERS = [
    (1, "alice"),
    (2, FULLWIDTH_ALICE),  # was distinct: only case-folded then
    (3, "Bob"),
    (4, CYRILLIC_ALICE),
    (5, "Ilse"),
    (6, "llse"),
]


FILLED = [
    (1, "alice", "alice", "alice"),
    (2, "alice\n#2", "alice\n#2", "alice\n#2"),
    (3, "bob", "bob", "bob"),
    (4, "\u0430lice", "alice\n#4", "alice\n#4"),  # its key (Cyrillic) was free, its look not
    (5, "ilse", "llse", "ilse"),
    (6, "llse", "llse\n#6", "llse"),  # as Ilse with a capital i, not as ilse
]
"""What the store fills in for OLD_PLAYERS: the later of two look-alikes is suffixed."""


def _before_skeletons(migrations: tuple[str, ...]) -> int:
    """The schema version just before the skeletons' migration."""
    return next(i for i, script in enumerate(migrations) if "players_skeleton" in script)


def _old_sqlite(path) -> None:
    """A database at the schema the server kept before skeletons."""
    db = sqlite3.connect(path, isolation_level=None)
    before = _before_skeletons(sqlite_store.MIGRATIONS)
    for script in sqlite_store.MIGRATIONS[:before]:
        for statement in filter(str.strip, script.split(";")):
            db.execute(statement)
    db.execute(f"PRAGMA user_version={before}")
    db.executemany(
        "INSERT INTO players(id, name, name_key, token_hash, created_at) VALUES (?,?,?,?,0)",
        [(pid, name, name.casefold(), bytes([pid]) * 32) for pid, name in OLD_PLAYERS],
    )
    db.close()


async def _check_filled(store) -> None:
    for pid, name in OLD_PLAYERS:  # every old player is kept, and comes back with its token
        player = await store.player_by_token(bytes([pid]) * 32)
        assert (player.id, player.name) == (pid, name)
    for name in ("ALICE", "Alice", "ILSE", "llse", "bob"):
        with pytest.raises(NameTaken):
            await store.create_player(name, b"\xee" * 32, 1.0)
    fresh = await store.create_player("Carol", b"\xef" * 32, 1.0)
    assert fresh.name == "Carol"


def read(path, sql: str) -> list[tuple]:
    """Run ``sql`` on a connection of the test's own to a SQLite store's file (the store's
    own is in its process), committed; the rows it gives."""
    with contextlib.closing(sqlite_file(str(path))) as db, db:
        return db.execute(sql).fetchall()


async def test_sqlite_fills_skeletons_at_open_and_keeps_clashing_old_players(tmp_path):
    path = tmp_path / "old.sqlite3"
    _old_sqlite(path)
    store = await open_store(str(path))
    try:
        await _check_filled(store)
        rows = read(
            path, "SELECT id, name_key, skeleton, folded FROM players WHERE id <= 6 ORDER BY id"
        )
    finally:
        await store.close()
    assert rows == FILLED
    again = await open_store(str(path))  # a second open finds nothing left to fill
    try:
        filled = "SELECT count(*) FROM players WHERE skeleton IS NULL"
        assert read(path, filled) == [(0,)]
        assert read(path, "SELECT count(*) FROM players") == [(7,)]
    finally:
        await again.close()


async def test_postgresql_fills_skeletons_at_open_and_keeps_clashing_old_players():
    import asyncpg

    async with pg_schema() as url:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute("CREATE TABLE schema_version (version INTEGER)")
            before = _before_skeletons(pg_store.MIGRATIONS)
            for number, script in enumerate(pg_store.MIGRATIONS[:before], start=1):
                await conn.execute(script)
                await conn.execute("INSERT INTO schema_version VALUES ($1)", number)
            await conn.executemany(
                "INSERT INTO players(id, name, name_key, token_hash, created_at)"
                " OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3, $4, 0)",
                [(pid, name, name.casefold(), bytes([pid]) * 32) for pid, name in OLD_PLAYERS],
            )
            await conn.execute("SELECT setval(pg_get_serial_sequence('players', 'id'), 6)")
        finally:
            await conn.close()
        store = await open_store(url)
        try:
            await _check_filled(store)
            rows = await store.pool.fetch(
                "SELECT id, name_key, skeleton, folded FROM players WHERE id <= 6 ORDER BY id"
            )
        finally:
            await store.close()
        assert [tuple(r) for r in rows] == FILLED


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_keys_made_with_other_rules_are_made_again_at_open(tmp_path, kind):
    async with contextlib.AsyncExitStack() as stack:
        url = str(tmp_path / "k.sqlite3")
        if kind == "postgres":
            url = await stack.enter_async_context(pg_schema())
        store = await open_store(url)
        await store.create_player("alice", b"\x01" * 32, 1.0)
        await store.create_player("Bob", b"\x02" * 32, 1.0)
        # as if an older disarm had made them, with tables that saw nothing alike
        stale = [
            "UPDATE name_keys SET version = 'disarm 0.0.1'",
            "UPDATE players SET skeleton = 'old ' || name, folded = 'old ' || name",
        ]
        for sql in stale:
            if kind == "sqlite":
                read(url, sql)
            else:
                await store.pool.execute(sql)
        await store.close()

        store = await open_store(url)
        try:
            for name in (CYRILLIC_ALICE, FULLWIDTH_ALICE, "B0b"):
                with pytest.raises(NameTaken):
                    await store.create_player(name, b"\x03" * 32, 2.0)
            sql = "SELECT version FROM name_keys"
            if kind == "sqlite":
                made = read(url, sql)
            else:
                made = [tuple(r) for r in await store.pool.fetch(sql)]
            assert made == [(KEYS_VERSION,)]
        finally:
            await store.close()


async def test_a_seat_kept_for_a_name_goes_to_that_player_however_the_name_was_typed(house):
    """Seats keep names as typed; the player who owns the name in any look-alike form gets it."""
    ada = await house.player("Ada")
    alice = await house.player("alice")
    made = await house.call(
        ada, {"t": "create", "game": "mathable", "seats": ["Ada", "\uff41lice"]}
    )
    room = made["room"]
    assert made["t"] == "created", made
    joined = await house.call(alice, {"t": "join", "room": room})
    assert joined["seat"] == 1, joined


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_two_names_taken_apart_that_the_new_rule_joins_both_keep_working(tmp_path, kind):
    """``mara`` and ``rnara`` were two names before UTS #39's ASCII rows counted: after the
    keys are made again, each still finds its own player by name and by token, and the
    later one blocks nothing new that the first does not."""
    async with contextlib.AsyncExitStack() as stack:
        url = str(tmp_path / "k.sqlite3")
        if kind == "postgres":
            url = await stack.enter_async_context(pg_schema())
        store = await open_store(url)
        mara = await store.create_player("mara", b"\x01" * 32, 1.0)
        await store.set_password(mara.id, "mara's hash")
        # rnara as the rule before this one let it in: its keys were its own
        insert = (
            "INSERT INTO players(name, name_key, skeleton, folded, token_hash, created_at)"
            " VALUES ('rnara', 'rnara', 'old rnara', 'old rnara', {token}, 1)"
        )
        stale = [
            insert.format(token="x'02020202'" if kind == "sqlite" else "'\\x02020202'::bytea"),
            "INSERT INTO tokens(hash, player, created_at)"
            " SELECT token_hash, id, 1 FROM players WHERE name = 'rnara'",
            "UPDATE players SET password = 'rnara''s hash' WHERE name = 'rnara'",
            "UPDATE name_keys SET version = 'disarm 0.17.2, Unicode 14.0.0'",
        ]
        for sql in stale:
            if kind == "sqlite":
                read(url, sql)
            else:
                await store.pool.execute(sql)
        await store.close()

        store = await open_store(url)
        try:
            for name in ("mara", "MARA", "rnara", "RNARA"):
                account = await store.account_by_name(name)
                assert account is not None
                assert (account.name, account.password) == (
                    name.lower(),
                    f"{name.lower()}'s hash",
                )
            assert (await store.player_by_token(b"\x02\x02\x02\x02")).name == "rnara"
            assert (await store.player_by_token(b"\x01" * 32)).name == "mara"
            for name in ("rn\u0430ra", "M\u0410RA", "\uff4dara"):  # a, A Cyrillic; a fullwidth m
                with pytest.raises(NameTaken):
                    await store.create_player(name, b"\x03" * 32, 2.0)
        finally:
            await store.close()
