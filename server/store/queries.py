"""The SQL that both stores speak, written once.

Each statement is a template in one spelling that SQLite and PostgreSQL both
read, but for three things a :class:`Dialect` fills in:

- parameters: ``?`` in the template, each one once and in the order its values
  are passed; PostgreSQL's come out numbered (``$1``, ``$2``, ...);
- ``{jsonb}`` after a parameter kept in a JSON column: PostgreSQL's columns are
  ``jsonb`` and its parameters text, SQLite's columns are text;
- ``{C}`` after a text that is ordered or compared: names and room ids compare
  by code point, as SQLite's ``BINARY`` does, and not by the locale of one
  PostgreSQL server (which would page the same rows differently on another).

What stays in each store is what only it has: the schema's types (the
migrations), the journal's group insert, the JSON functions that list a room's
seats, the rating upsert's locking, and PostgreSQL's cluster leases.

Every listing orders by a key that no two rows share, so that both stores give
the same rows in the same order, and a page ends where the next one starts:

- high scores: the higher score first; of equal scores, the one made first (the
  earlier game); of scores made at the same time, the one kept first (its id);
- a player's history: the latest finished first; at the same time, by room id;
- the rooms a node hosts: the oldest first; created at the same time, by id;
- the leaderboard: the higher rating first, then by name (names are unique).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any

from tilehall.server.store.rows import (
    ACCOUNT_COLUMNS,
    FINISHED_COLUMNS,
    RATING_COLUMNS,
    ROOM_COLUMNS,
)

__all__ = ["POSTGRES", "SQLITE", "Dialect", "Queries", "history"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Dialect:
    """What one database spells its own way in the shared statements."""

    name: str
    numbered: bool
    """Parameters are ``$1``, ``$2``, ... (PostgreSQL), not ``?`` (SQLite)."""
    jsonb: str
    """Follows a parameter kept in a JSON column."""
    code_point: str
    """Follows a text that is ordered or compared, so that it goes by code point."""

    def render(self, template: str) -> str:
        """``template`` in this dialect's spelling."""
        sql = template.format(jsonb=self.jsonb, C=self.code_point)
        if not self.numbered:
            return sql
        numbers = iter(range(1, sql.count("?") + 1))
        return re.sub(r"\?", lambda _: f"${next(numbers)}", sql)


SQLITE = Dialect(name="sqlite", numbered=False, jsonb="", code_point="")
POSTGRES = Dialect(name="postgres", numbered=True, jsonb="::jsonb", code_point=' COLLATE "C"')

SCORE_COLUMNS = "game, tbl, player, name, score, room, at, detail"
"""The columns :func:`~tilehall.server.store.base.score_from_row` reads, in its order."""

SCORE_ORDER = "score DESC, at ASC, id ASC"
"""Best first: the higher score; of equal ones the earlier; of those the one kept first."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Queries:
    """Every statement both stores share; the defaults are the templates.

    ``Queries().render(SQLITE)`` is the set a store runs. Each statement's
    parameters are listed after it, in their order.
    """

    # players
    create_player: str = (
        "INSERT INTO players(name, name_key, skeleton, folded, token_hash, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?) RETURNING id"
    )
    """name, name_key, skeleton, folded, token_hash, now -> id"""
    player_by_token: str = (
        "SELECT p.id, p.name FROM tokens t JOIN players p ON p.id = t.player WHERE t.hash = ?"
    )
    """token_hash"""
    player_by_name: str = (
        "SELECT id, name FROM players WHERE name_key = ? OR skeleton = ?"
        " ORDER BY name_key = ? DESC LIMIT 1"
    )
    """name_key, skeleton, name_key: the same key first, a confusable one else"""
    # what guards a name (players.token_hash is the first token's, kept for its
    # constraint only: tokens holds every device's, and is the one read)
    account: str = f"SELECT {ACCOUNT_COLUMNS} FROM players p WHERE p.id = ?"
    """player"""
    account_by_token: str = (
        f"SELECT {ACCOUNT_COLUMNS} FROM tokens t JOIN players p ON p.id = t.player WHERE t.hash = ?"
    )
    """token_hash"""
    account_by_name: str = (
        f"SELECT {ACCOUNT_COLUMNS} FROM players p WHERE p.name_key = ? OR p.skeleton = ?"
        " ORDER BY p.name_key = ? DESC LIMIT 1"
    )
    """name_key, skeleton, name_key: as :attr:`player_by_name`"""
    add_token: str = "INSERT INTO tokens(hash, player, created_at) VALUES (?, ?, ?)"
    """token_hash, player, now"""
    revoke_token: str = "DELETE FROM tokens WHERE hash = ?"
    """token_hash"""
    revoke_tokens: str = "DELETE FROM tokens WHERE player = ?"
    """player"""
    set_password: str = "UPDATE players SET password = ?, reset_code = ? WHERE id = ?"
    """password hash, reset code hash, player"""
    rehash_password: str = "UPDATE players SET password = ? WHERE id = ? AND password = ?"
    """new hash, player, old hash: only while the old one stands"""
    set_disabled: str = "UPDATE players SET disabled = ? WHERE id = ?"
    """disabled, player"""
    mark_bot: str = "UPDATE players SET bot = TRUE WHERE id = ? AND NOT bot"
    """player"""

    # rooms
    create_room: str = (
        f"INSERT INTO rooms({ROOM_COLUMNS})"
        " VALUES (?, ?, ?{jsonb}, ?, ?{jsonb}, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    )
    """:func:`~tilehall.server.store.base.room_row`"""
    set_seats: str = "UPDATE rooms SET seats = ?{jsonb} WHERE id = ?"
    """seats_json, room"""
    set_status: str = "UPDATE rooms SET status = ? WHERE id = ?"
    """status, room"""
    set_fill: str = "UPDATE rooms SET fill_at = ? WHERE id = ?"
    """at, room"""
    unfinished_rooms: str = (
        f"SELECT {ROOM_COLUMNS} FROM rooms WHERE status <> 'over' AND node = ?"
        " ORDER BY created_at, id{C}"
    )
    """node"""
    room: str = f"SELECT {ROOM_COLUMNS} FROM rooms WHERE id = ?"
    """room"""
    open_rooms_of: str = "SELECT count(*) FROM rooms WHERE creator = ? AND status <> 'over'"
    """creator"""
    claim_room: str = (
        "UPDATE rooms SET node = ? WHERE id = ? AND node = ? AND status <> 'over'"
        f" RETURNING {ROOM_COLUMNS}"
    )
    """new_node, room, old_node"""

    # today's deal: the server's secret, each player's try of the day
    keep_secret: str = (
        "INSERT INTO secrets(name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING"
    )
    """name, value: kept unless one is kept already (the first node's wins)"""
    secret: str = "SELECT value FROM secrets WHERE name = ?"
    """name"""
    daily_try: str = (
        "INSERT INTO daily_tries(game, day, player, room) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (game, day, player) DO UPDATE SET room = excluded.room"
        " WHERE EXISTS (SELECT 1 FROM rooms r WHERE r.id = daily_tries.room"
        "  AND r.status = 'over' AND NOT EXISTS (SELECT 1 FROM journal j WHERE j.room = r.id))"
    )
    """game, day, player, room: the try is the room's, unless another room holds it
    already; a room that closed unplayed (a waiting room that expired) gives it back"""
    daily_try_room: str = "SELECT room FROM daily_tries WHERE game = ? AND day = ? AND player = ?"
    """game, day, player"""
    daily_rooms: str = (
        f"SELECT {ROOM_COLUMNS} FROM rooms"
        " WHERE game = ? AND daily = ? AND creator = ? AND status <> 'over'"
        " ORDER BY practice, created_at, id{C}"
    )
    """game, day, creator: the player's unfinished rooms of that deal, the counted one first"""
    purge_day_scores: str = "DELETE FROM scores WHERE tbl{C} >= 'daily-' AND tbl{C} < ?"
    """the table of the oldest day kept"""
    purge_day_tries: str = "DELETE FROM daily_tries WHERE day{C} < ?"
    """the oldest day kept"""

    # journal
    journal: str = "SELECT seq, seat, action, at FROM journal WHERE room = ? ORDER BY seq"
    """room"""

    # chat: a room's latest lines, by the order they were kept (id)
    add_chat: str = "INSERT INTO chat(room, name, text, at) VALUES (?, ?, ?, ?)"
    """room, name, text, at"""
    trim_chat: str = (
        "DELETE FROM chat WHERE room = ? AND id < (SELECT min(id) FROM"
        " (SELECT id FROM chat WHERE room = ? ORDER BY id DESC LIMIT ?) AS kept)"
    )
    """room, room, keep: every line older than the latest ``keep``"""
    chat: str = (
        "SELECT room, name, text, at FROM ("
        " SELECT id, room, name, text, at FROM chat WHERE room = ? ORDER BY id DESC LIMIT ?"
        ") AS latest ORDER BY id"
    )
    """room, limit: the latest lines, oldest first"""

    # results and scores
    finish_room: str = (
        "UPDATE rooms SET status = 'over', finished_at = ?, result = ?{jsonb}"
        " WHERE id = ? AND status <> 'over'"
    )
    """now, result, room"""
    insert_score: str = (
        f"INSERT INTO scores({SCORE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?{{jsonb}})"
    )
    """a :class:`~tilehall.server.store.base.ScoreRecord`'s fields, in SCORE_COLUMNS' order"""
    top_scores: str = (
        f"SELECT {SCORE_COLUMNS} FROM scores s"
        " WHERE game = ? AND tbl = ?"
        " AND EXISTS (SELECT 1 FROM players p WHERE p.id = s.player AND p.bot = ?)"
        f" ORDER BY {SCORE_ORDER} LIMIT ?"
    )
    """game, table, bots, limit"""
    best_of: str = (
        f"SELECT {SCORE_COLUMNS} FROM ("
        f" SELECT {SCORE_COLUMNS}, row_number() OVER (PARTITION BY tbl ORDER BY {SCORE_ORDER})"
        "  AS place FROM scores WHERE game = ? AND player = ?"
        ") AS best WHERE place = 1 ORDER BY tbl{C}"
    )
    """game, player: the player's first of each table, as :attr:`top_scores` ranks them"""
    score_tables: str = "SELECT DISTINCT tbl{C} FROM scores WHERE game = ? ORDER BY 1"
    """game"""

    # history
    purge_listed: str = "SELECT DISTINCT room FROM room_players WHERE finished_at < ? LIMIT ?"
    """finished_before, batch"""
    purge_unlisted: str = (
        "SELECT id FROM rooms r WHERE status = 'over' AND finished_at < ?"
        " AND EXISTS (SELECT 1 FROM journal j WHERE j.room = r.id)"
        " AND NOT EXISTS (SELECT 1 FROM room_players p WHERE p.room = r.id)"
        " LIMIT ?"
    )
    """finished_before, batch: rooms played before history was kept, or by bots alone"""
    purge_showcases: str = (
        "SELECT id FROM rooms WHERE status = 'over' AND finished_at < ? AND creator IS NULL"
        " AND private_code IS NULL AND substr(id, 1, 1) = ? LIMIT ?"
    )
    """finished_before, SHOWCASE_PREFIX, batch: the server's own games, over (see
    RoomRecord.showcase)"""

    # ratings
    ratings_of: str = (
        f"SELECT {RATING_COLUMNS} FROM ratings r JOIN players p ON p.id = r.player"
        " WHERE r.player = ? ORDER BY r.game"
    )
    """player"""
    leaderboard: str = (
        f"SELECT {RATING_COLUMNS} FROM ratings r JOIN players p ON p.id = r.player"
        " WHERE r.game = ? AND r.games > 0 AND NOT p.bot"
        " AND (r.rating < ? OR (r.rating = ? AND p.name{C} > ?))"
        " ORDER BY r.rating DESC, p.name{C} ASC LIMIT ?"
    )
    """game, rating, rating, name, limit: the page after (rating, name)"""

    def render(self, dialect: Dialect) -> Queries:
        """Every statement in ``dialect``'s spelling."""
        return Queries(**{f.name: dialect.render(getattr(self, f.name)) for f in fields(self)})


def history(
    dialect: Dialect,
    player: int,
    *,
    game: str | None,
    limit: int,
    before: tuple[float, str] | None,
    private: bool,
) -> tuple[str, list[Any]]:
    """The statement that lists ``player``'s finished rooms, and its parameters.

    See :meth:`~tilehall.server.store.base.Store.history`: newest first, a room
    finished at the same time as another after it by id, so that ``before``
    (the last room of the page before) starts the next page where it ended.
    """
    where = ["rp.player = ?"]
    args: list[Any] = [player]
    if game is not None:
        where.append("rp.game = ?")
        args.append(game)
    if before is not None:
        where.append("(rp.finished_at, rp.room{C}) < (?, ?)")
        args.extend(before)
    if not private:
        where.append("r.private_code IS NULL")
    args.append(limit)
    template = (
        f"SELECT {FINISHED_COLUMNS} FROM room_players rp JOIN rooms r ON r.id = rp.room"
        f" WHERE {' AND '.join(where)}"
        " ORDER BY rp.finished_at DESC, rp.room{C} DESC LIMIT ?"
    )
    return dialect.render(template), args
