"""Glicko-2 ratings: one player over one rating period, and one finished game's seats.

The algorithm is Mark Glickman's, as his "Example of the Glicko-2 system"
(Boston University, 2013, revised 2022) spells it out step by step; the step
numbers below are the paper's. System constant tau 0.5, the volatility found by
the Illinois algorithm to a tolerance of 1e-6, new players at 1500/350/0.06.

Why a module of our own rather than a library: the one on PyPI (``glicko2``
2.1.0) is untyped, keeps its state in a mutable ``Player`` with camelCase,
name-mangled attributes, and has no release discipline, while the algorithm is
some eighty lines. Here it is pure (no I/O, no clock), typed, its values frozen,
and tested against the paper's worked example and with property tests.

How Tilehall uses it (:func:`rate_game`): **one game is one rating period** for
each seat. A finished game of a rated game (Mathable) rates every seat held by
a person, unless a stand-in played it at some time or its player is a bot
program (``hello`` said ``bot: true``): each such seat is rated against every
other seat, pairwise, by final score (higher 1, equal 0.5, lower 0). A COMP seat
is an opponent at its level's fixed, published rating (:data:`BOT_RATINGS`);
another person's seat at that player's rating before the game. Time alone never
moves a rating: only games do, so the "unplayed period" of the algorithm
(:func:`rate` with no games) is not applied by the server.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from tilehall.server.games import all_games, find_game

__all__ = [
    "BOT_RD",
    "EPSILON",
    "SCALE",
    "TAU",
    "RatedGame",
    "Rating",
    "Seat",
    "board_cursor",
    "board_position",
    "bot_rating",
    "bot_ratings",
    "describe",
    "expected",
    "is_rated",
    "rate",
    "rate_game",
    "rated_games",
]

SCALE = 173.7178
"""Glicko points per unit of the Glicko-2 scale (step 2)."""

TAU = 0.5
"""The system constant: how much the volatility may change in one period. Glickman
suggests 0.3 to 1.2; 0.5 is his example's, a middle way for a game with luck."""

EPSILON = 1e-6
"""The volatility's convergence tolerance (step 5)."""

_MAX_ITERATIONS = 200
"""The Illinois algorithm converges in a dozen steps; this only bounds a float pathology."""


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's rating as Glicko-2 keeps it (Glicko scale: 1500 is a new player).

    ``rd`` is the rating deviation (one standard deviation of the estimate: about
    95 % of the time the true strength lies within two of it), ``vol`` the
    volatility (how erratic the player's results are).
    """

    rating: float = 1500.0
    rd: float = 350.0
    vol: float = 0.06

    def __post_init__(self) -> None:
        if not (math.isfinite(self.rating) and self.rd > 0 and self.vol > 0):
            raise ValueError(f"not a rating: {self!r}")


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, g_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-g_j * (mu - mu_j)))


def expected(player: Rating, opponent: Rating) -> float:
    """The score ``player`` expects against ``opponent`` (0 to 1), on their ratings and
    the opponent's deviation."""
    g_j = _g(opponent.rd / SCALE)
    return _e((player.rating - 1500.0) / SCALE, (opponent.rating - 1500.0) / SCALE, g_j)


def rate(player: Rating, games: Iterable[tuple[Rating, float]], *, tau: float = TAU) -> Rating:
    """``player``'s rating after one rating period.

    Args:
        player: the rating at the start of the period.
        games: each game of the period as (the opponent's rating at the start of
            the period, the outcome for ``player``: 1 a win, 0.5 a draw, 0 a
            loss). Only an opponent's ``rating`` and ``rd`` count.
        tau: the system constant.

    Returns:
        The rating at the end of the period. With no games only the deviation
        changes: it grows by the volatility (step 6 alone).

    Raises:
        ValueError: an outcome outside 0..1.
    """
    mu = (player.rating - 1500.0) / SCALE  # step 2
    phi = player.rd / SCALE
    sigma = player.vol
    played = []
    for opponent, score in games:
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"an outcome is 0, 0.5 or 1, not {score!r}")
        g_j = _g(opponent.rd / SCALE)
        played.append((g_j, _e(mu, (opponent.rating - 1500.0) / SCALE, g_j), score))
    if not played:
        return Rating(player.rating, math.hypot(phi, sigma) * SCALE, sigma)
    v = 1.0 / sum(g_j * g_j * e * (1.0 - e) for g_j, e, _ in played)  # step 3
    gain = sum(g_j * (s - e) for g_j, e, s in played)
    delta = v * gain  # step 4
    sigma = _volatility(phi, sigma, v, delta, tau)  # step 5
    phi_star = math.hypot(phi, sigma)  # step 6
    phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)  # step 7
    mu += phi * phi * gain
    return Rating(mu * SCALE + 1500.0, phi * SCALE, sigma)  # step 8


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, the root of ``f`` by the Illinois algorithm (regula falsi).

    ``A`` takes ``B``'s place when ``f(C)·f(B) <= 0``, as the 2022 text has it: with
    the 2013 text's ``< 0`` a ``C`` that hits the root exactly would make every
    later ``C`` the same point and the loop would never narrow.
    """
    a = math.log(sigma * sigma)
    phi2, delta2, tau2 = phi * phi, delta * delta, tau * tau

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / tau2

    big_a = a
    if delta2 > phi2 + v:
        big_b = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    for _ in range(_MAX_ITERATIONS):
        if abs(big_b - big_a) <= EPSILON:
            break
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


# -- games --------------------------------------------------------------------------------

BOT_RD = 50.0
"""The deviation of every bot level's rating: they are fixed, but not exact."""


def bot_ratings(game: str) -> Mapping[str, float]:
    """``game``'s bot levels and their fixed, published ratings (empty: not rated).

    Each game declares them (:attr:`Game.bot_ratings
    <tilehall.server.games.Game.bot_ratings>`). They are measured, not guessed: the
    levels play a seeded round robin (``python -m bench.calibrate``) fitted by
    maximum likelihood on this module's scale with ``normal`` fixed at 1500, and
    the published ones are that fit rounded to 10 points, each inside its 95 %
    interval (the run is kept in ``tests/perf/<game>_calibration.json``;
    ``tests/bench/test_calibrate.py`` fails when the numbers or the docs differ
    from it). Between calibrations they never change, so a game against a COMP
    counts and means the same every time. A new calibration changes only the
    games rated after it: a rating already stored is never computed again. A game
    is rated exactly when it has them.
    """
    try:
        return find_game(game).bot_ratings
    except KeyError:
        return {}


def rated_games() -> list[str]:
    """The games whose finished rooms are rated, by name."""
    return sorted(g.name for g in all_games() if g.bot_ratings)


def is_rated(game: str) -> bool:
    """Whether finished games of ``game`` are rated (it has a leaderboard)."""
    return bool(bot_ratings(game))


def bot_rating(game: str, level: str) -> Rating:
    """The fixed rating of ``game``'s bot ``level``; KeyError if it has none."""
    return Rating(bot_ratings(game)[level], BOT_RD)


def describe(game: str) -> dict[str, Any]:
    """What ``welcome.games`` says of ``game``'s ratings: whether it is rated, and its bots'."""
    if not is_rated(game):
        return {"rated": False}
    return {
        "rated": True,
        "bot_ratings": {
            level: {"rating": rating, "rd": BOT_RD} for level, rating in bot_ratings(game).items()
        },
    }


@dataclass(frozen=True, slots=True, kw_only=True)
class Seat:
    """One seat of a finished game, as the ratings see it."""

    score: int
    """The seat's final score."""
    player: int | None = None
    """The player who held it; None for a COMP seat."""
    level: str | None = None
    """A COMP seat's bot level."""
    stood_in: bool = False
    """A stand-in played it at some time: its player's rating does not move."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RatedGame:
    """A finished room of a rated game, to be rated once."""

    game: str
    room: str
    seats: tuple[Seat, ...]

    def players(self) -> list[int]:
        """Every player holding a seat, in id order (the order the store locks them in)."""
        return sorted({s.player for s in self.seats if s.player is not None})

    def to_rate(self, programs: AbstractSet[int]) -> list[int]:
        """The players whose rating this game moves, in id order.

        Args:
            programs: the players who are bot programs (their ``hello`` said ``bot``).
        """
        return sorted(
            {
                s.player
                for s in self.seats
                if s.player is not None and s.level is None and not s.stood_in
            }
            - set(programs)
        )


def _outcome(mine: int, theirs: int) -> float:
    return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0


def rate_game(
    game: RatedGame, before: Mapping[int, Rating], programs: AbstractSet[int]
) -> dict[int, Rating]:
    """The new rating of each player this game rates (see the module's docstring).

    Args:
        game: the finished game.
        before: the players' ratings before it (a player missing has a new one's).
        programs: the players who are bot programs: not rated, but opponents at
            their rating like anyone.

    Returns:
        The rating after the game of each player of :meth:`RatedGame.to_rate`.

    Raises:
        KeyError: a COMP seat of a level (or a game) without a published rating.
    """
    seats: Sequence[Seat] = game.seats
    out = {}
    for player in game.to_rate(programs):
        mine = next(s for s in seats if s.player == player)
        results = []
        for other in seats:
            if other is mine:
                continue
            if other.level is not None:
                opponent = bot_rating(game.game, other.level)
            elif other.player is not None and other.player != player:
                opponent = before.get(other.player, Rating())
            else:
                continue  # nobody (never in a finished game)
            results.append((opponent, _outcome(mine.score, other.score)))
        if results:
            out[player] = rate(before.get(player, Rating()), results)
    return out


# -- leaderboard pages ----------------------------------------------------------------------


def board_cursor(rating: float, name: str) -> str:
    """The opaque cursor of a leaderboard page that ends with this entry.

    A page is ordered by rating (best first), then name, and names are unique,
    so the last entry's two say exactly where the next page starts, however
    the board moves meanwhile.
    """
    raw = json.dumps([rating, name], ensure_ascii=False, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def board_position(cursor: str) -> tuple[float, str]:
    """The (rating, name) a :func:`board_cursor` holds.

    Raises:
        ValueError: the cursor is not one :func:`board_cursor` made.
    """
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        rating, name = json.loads(raw.decode())
    except (binascii.Error, UnicodeDecodeError, ValueError, TypeError) as exc:
        raise ValueError(f"not a leaderboard cursor: {cursor[:64]!r}") from exc
    if (
        not isinstance(rating, int | float)
        or isinstance(rating, bool)
        or not math.isfinite(rating)
        or not isinstance(name, str)
    ):
        raise ValueError(f"not a leaderboard cursor: {cursor[:64]!r}")
    return float(rating), name
