"""Today's deal: which UTC day a time falls on, the day's seed and its table.

Pure: given a time (the lobby's injected clock) and the server's secret, it
says everything about a day's deal, so every node of a cluster, sharing the
secret through the store, deals the same board, and nobody without the secret
can compute tomorrow's deal today (the seed is an HMAC of the day, not the day
itself: a plain hash of the date would be the same on every Tilehall server and
public in advance).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
from collections.abc import Sequence
from urllib.parse import quote, urlsplit, urlunsplit

__all__ = [
    "DAILY_TABLE",
    "KEEP_DAYS",
    "SECRET_NAME",
    "daily_seed",
    "day_end",
    "day_of",
    "day_table",
    "deal_link",
    "is_day_table",
    "oldest_kept",
    "parse_day",
    "share_text",
    "table_day",
]

DAILY_TABLE = "daily"
"""The ``scores`` table name that means today's table, whichever day today is."""
TABLE_PREFIX = "daily-"
"""A past (or today's) day's table is ``daily-YYYY-MM-DD``."""
KEEP_DAYS = 366
"""Days of tables each game keeps: a year, leap years included."""
SECRET_NAME = "daily"
"""The name the daily secret is kept under in the store (shared by every node)."""
SEED_BITS = 63
"""A room's seed fits a signed 64-bit column (as the seeds :mod:`secrets` draws)."""


def day_of(now: float) -> str:
    """The UTC day ``now`` falls on, as ``YYYY-MM-DD``."""
    return dt.datetime.fromtimestamp(now, dt.UTC).date().isoformat()


def parse_day(day: str) -> dt.date:
    """``YYYY-MM-DD`` as a date; ValueError for anything else (no other spelling)."""
    if len(day) != 10:
        raise ValueError(day)
    return dt.date.fromisoformat(day)


def day_end(day: str) -> float:
    """When ``day`` ends: the first second of the next UTC day, in epoch seconds."""
    start = dt.datetime.combine(parse_day(day), dt.time(), dt.UTC)
    return (start + dt.timedelta(days=1)).timestamp()


def daily_seed(secret: str, game: str, day: str) -> int:
    """The seed of ``game``'s deal on ``day``: the same for everyone, unknowable without
    ``secret``; another game's deal of the same day is unrelated."""
    mac = hmac.new(secret.encode(), f"{game}\n{day}".encode(), hashlib.sha256).digest()
    return int.from_bytes(mac[:8], "big") >> (64 - SEED_BITS)


def day_table(day: str) -> str:
    """The ``scores`` table of ``day``."""
    return TABLE_PREFIX + day


def is_day_table(table: str) -> bool:
    """Whether ``table`` names a day's table (``daily`` or ``daily-...``)."""
    return table == DAILY_TABLE or table.startswith(TABLE_PREFIX)


def table_day(table: str, now: float) -> str | None:
    """The day a ``scores`` table names: today's for ``daily``; None when it names no day.

    Raises:
        ValueError: ``daily-`` followed by something that is no date.
    """
    if table == DAILY_TABLE:
        return day_of(now)
    if not table.startswith(TABLE_PREFIX):
        return None
    day = table.removeprefix(TABLE_PREFIX)
    parse_day(day)
    return day


def oldest_kept(now: float) -> str:
    """The first day whose table is still kept at ``now`` (:data:`KEEP_DAYS` back)."""
    today = parse_day(day_of(now))
    return (today - dt.timedelta(days=KEEP_DAYS - 1)).isoformat()


def deal_link(base: str, game: str) -> str:
    """The web client's address of ``game``'s deal of the day on the server at ``base``.

    ``base`` is how players reach the server: its ``--public-url`` (``ws://`` and
    ``wss://`` are given as the ``http://`` and ``https://`` the web client is served
    on) or the origin a player connected to. The link names no day: whoever follows
    it plays the deal of their day, which is the point of sharing it.
    """
    parts = urlsplit(base)
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    return urlunsplit((scheme, parts.netloc, "/", "", f"daily={quote(game)}"))


def share_text(
    title: str, day: str, score: int, counts: Sequence[tuple[str, object]], link: str | None
) -> str:
    """A result of today's deal as a player shares it: game, day, score, what the game
    counts, and the link to the same deal.

    Written here once, for every client alike (the server sends it with the day's
    table): a result pasted from the web client reads as one pasted from the terminal.
    """
    counted = "".join(f" · {label} {value}" for label, value in counts)
    lines = [f"Tilehall · {title} · deal of {day}", f"Score {score}{counted}"]
    if link:
        lines.append(link)
    return "\n".join(lines)
