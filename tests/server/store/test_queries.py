"""The shared statements in each dialect's spelling (the stores run them: tests/server/store)."""

from __future__ import annotations

import re
from dataclasses import fields

from tilehall.server.store.queries import POSTGRES, SQLITE, Queries, history


def test_each_statement_has_as_many_parameters_in_both_spellings_numbered_in_order():
    sqlite, postgres = Queries().render(SQLITE), Queries().render(POSTGRES)
    for f in fields(Queries):
        mine, theirs = getattr(sqlite, f.name), getattr(postgres, f.name)
        count = mine.count("?")
        assert count > 0, f.name  # every statement is about something given
        assert "$" not in mine and "?" not in theirs, f.name
        assert [int(n) for n in re.findall(r"\$(\d+)", theirs)] == list(range(1, count + 1))
        assert "{" not in mine + theirs, f.name  # every dialect field was filled


def test_json_parameters_and_ordered_text_take_postgres_casts_only():
    sqlite, postgres = Queries().render(SQLITE), Queries().render(POSTGRES)
    assert postgres.set_seats == "UPDATE rooms SET seats = $1::jsonb WHERE id = $2"
    assert sqlite.set_seats == "UPDATE rooms SET seats = ? WHERE id = ?"
    assert 'p.name COLLATE "C" ASC' in postgres.leaderboard
    assert "COLLATE" not in sqlite.leaderboard


def test_history_numbers_only_the_parameters_it_uses():
    sql, args = history(POSTGRES, 7, game=None, limit=5, before=(1.5, "r1"), private=True)
    assert args == [7, 1.5, "r1", 5]
    assert '(rp.finished_at, rp.room COLLATE "C") < ($2, $3)' in sql
    assert sql.endswith("LIMIT $4") and "private_code IS NULL" not in sql
    sql, args = history(SQLITE, 7, game="lines", limit=5, before=None, private=False)
    assert args == [7, "lines", 5]
    assert sql.count("?") == 3 and "r.private_code IS NULL" in sql
