"""Ishido engine tests: explicit boards for every rule, scoring vectors, and property
tests whose checker and scorer are written here, independently of the engine."""

from __future__ import annotations

import copy
import random
from collections import Counter
from itertools import product
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tilehall.protocol import GameCode, Status
from tilehall.server.games.base import (
    GameError,
    IllegalMove,
    InvalidMove,
    OptionError,
    PositionError,
)
from tilehall.server.games.ishido import Ishido, Stone

ROWS, COLS = 8, 12
START = [(0, 0), (0, 11), (7, 0), (7, 11), (3, 5), (4, 6)]
BONUSES = [25, 50, 100, 200, 400, 600, 800, 1000, 5000, 10000, 25000, 50000]
STEPS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
OPPOSITE = [{"up", "down"}, {"left", "right"}]
OPTIONS = [
    {"scoring": s, "four_way": f} for s in ("modern", "ancient") for f in ("touching", "original")
]


# -- an independent statement of the rules ---------------------------------------


def around(board: list[list[Any]], r: int, c: int) -> list[tuple[str, list[int]]]:
    """Occupied neighbours of [r, c] on a wire board, as (direction name, [colour, symbol])."""
    out = []
    for name, (dr, dc) in STEPS.items():
        rr, cc = r + dr, c + dc
        if 0 <= rr < ROWS and 0 <= cc < COLS and board[rr][cc] is not None:
            out.append((name, list(board[rr][cc])))
    return out


def allowed(stone: list[int], nbs: list[tuple[str, list[int]]], touching: bool) -> bool:
    """Try every way of giving each neighbour a role (colour or symbol match)."""
    n = len(nbs)
    if n == 0:
        return False
    for roles in product("cs", repeat=n):
        if not all(
            (nb[0] == stone[0]) if role == "c" else (nb[1] == stone[1])
            for role, (_, nb) in zip(roles, nbs, strict=True)
        ):
            continue
        colour_matches = roles.count("c")
        if n == 1 or (n == 2 and colour_matches == 1) or (n == 3 and colour_matches in (1, 2)):
            return True
        if n == 4 and colour_matches == 2:
            dirs = {d for role, (d, _) in zip(roles, nbs, strict=True) if role == "c"}
            if not touching or dirs not in OPPOSITE:
                return True
    return False


def legal_here(board: list[list[Any]], stone: list[int], touching: bool) -> list[list[int]]:
    return [
        [r, c]
        for r in range(ROWS)
        for c in range(COLS)
        if board[r][c] is None and allowed(stone, around(board, r, c), touching)
    ]


def ring(r: int, c: int) -> bool:
    return r in (0, ROWS - 1) or c in (0, COLS - 1)


def expected_value(r: int, c: int, n: int, before: int, scoring: str) -> tuple[int, int]:
    """(points, bonus) of a placement, from the rules sheet."""
    bonus = BONUSES[min(before, 11)] if n == 4 else 0
    if scoring == "ancient" or ring(r, c):
        return 0, bonus
    return {1: 1, 2: 2, 3: 4, 4: 8}[n] * 2**before, bonus


# -- helpers ------------------------------------------------------------------------


def new_game(seed: int = 0, **options: str) -> Ishido:
    return Ishido(options=options, seats=1, rng=random.Random(seed), now=0.0)


def staged(
    stones: dict[tuple[int, int], tuple[int, int]],
    current: tuple[int, int],
    pouch: list[tuple[int, int]] | None = None,
    fourways: int = 0,
    **options: str,
) -> Ishido:
    """A game in a position set by hand; ``pouch`` is drawn from its end."""
    board: list[list[Any]] = [[None] * COLS for _ in range(ROWS)]
    for (r, c), stone in stones.items():
        board[r][c] = list(stone)
    stack = pouch if pouch is not None else [(5, 5)] * 3
    g = Ishido.from_position(
        board, current, list(reversed(stack)), fourways=fourways, options=options
    )
    assert g.view(0)["legal"] == legal_here(board, list(current), g.touching)
    return g


def place(g: Ishido, r: int, c: int) -> list[dict[str, Any]]:
    return g.act(0, {"do": "place", "at": [r, c]}, 1.0)


def refused(g: Ishido, action: dict[str, Any], seat: int = 0) -> GameError:
    before = copy.deepcopy(g.view(0))
    with pytest.raises(GameError) as info:
        g.act(seat, action, 1.0)
    assert g.view(0) == before
    return info.value


# -- opening --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(20))
def test_opening_tableau(seed):
    view = new_game(seed).view(0)
    stones = [view["board"][r][c] for r, c in START]
    assert all(s is not None for s in stones)
    assert sorted(s[0] for s in stones) == list(range(6))
    assert sorted(s[1] for s in stones) == list(range(6))
    occupied = [(r, c) for r in range(ROWS) for c in range(COLS) if view["board"][r][c]]
    assert sorted(occupied) == sorted(START)
    assert view["pouch"] == 65 and view["left"] == 66 and view["current"] is not None
    assert view["status"] == Status.PLAYING and view["to_move"] == 0 and view["scores"] == [0]


def test_openings_differ_by_seed():
    assert len({str(new_game(s).view(0)["board"]) for s in range(10)}) > 1


def test_view_hides_pouch_order_and_is_msgpack_able():
    g = new_game(3)
    view = g.view(None)
    assert msgpack.unpackb(msgpack.packb(view)) == view

    def lists_of_stones(x: Any) -> int:
        if isinstance(x, dict):
            return max((lists_of_stones(v) for v in x.values()), default=0)
        if isinstance(x, list):
            flat = sum(1 for v in x if isinstance(v, list) and len(v) == 2)
            return max([flat, *(lists_of_stones(v) for v in x)])
        return 0

    # The longest list of pairs a view holds is the legal squares or a board row, never the pouch.
    assert lists_of_stones(view) <= max(12, len(view["legal"]))
    assert g.view(0) == {**view, "seat": 0}


# -- placement rules, neighbour by neighbour -------------------------------------


def test_one_neighbour_colour_or_symbol():
    stones = {(2, 2): (1, 4)}
    place(staged(stones, (1, 0)), 2, 3)  # colour
    place(staged(stones, (0, 4)), 1, 2)  # symbol
    place(staged(stones, (1, 4)), 3, 2)  # both
    err = refused(staged(stones, (0, 0)), {"do": "place", "at": [2, 1]})
    assert isinstance(err, IllegalMove) and err.code == GameCode.NO_MATCH
    assert "right [1, 4] matches nothing" in err.message


def test_two_neighbours_one_colour_one_symbol():
    stones = {(2, 1): (1, 4), (2, 3): (2, 5)}
    place(staged(stones, (1, 5)), 2, 2)
    place(staged(stones, (2, 4)), 2, 2)
    for bad in [(1, 0), (0, 4), (3, 3)]:
        err = refused(staged(stones, bad), {"do": "place", "at": [2, 2]})
        assert err.code == GameCode.NO_MATCH
    # Matching one neighbour completely is not enough if the other matches nothing.
    err = refused(staged({(2, 1): (1, 4), (2, 3): (3, 3)}, (1, 4)), {"do": "place", "at": [2, 2]})
    assert "left [1, 4] matches colour and symbol" in err.message
    assert "right [3, 3] matches nothing" in err.message
    # Two colour matches: each neighbour matches something, still illegal.
    err = refused(staged({(2, 1): (1, 4), (2, 3): (1, 3)}, (1, 0)), {"do": "place", "at": [2, 2]})
    assert err.code == GameCode.NO_MATCH


def test_three_neighbours():
    stones = {(1, 2): (1, 4), (3, 2): (1, 5), (2, 1): (2, 0)}
    place(staged(stones, (1, 0)), 2, 2)  # colour, colour, symbol
    stones2 = {(1, 2): (3, 0), (3, 2): (4, 0), (2, 1): (1, 2)}
    place(staged(stones2, (1, 0)), 2, 2)  # symbol, symbol, colour
    for bad in [(1, 1), (5, 0), (2, 4)]:  # colour x2 + nothing; symbol x1; colour x1 only
        assert refused(staged(stones, bad), {"do": "place", "at": [2, 2]}).code == GameCode.NO_MATCH
    # All three by colour does not do: one must match by symbol.
    triple = {(1, 2): (1, 1), (3, 2): (1, 2), (2, 1): (1, 3)}
    assert refused(staged(triple, (1, 0)), {"do": "place", "at": [2, 2]}).code == GameCode.NO_MATCH
    # An identical neighbour may play either part.
    twin = {(1, 2): (1, 0), (3, 2): (2, 2), (2, 1): (3, 0)}
    assert refused(staged(twin, (1, 0)), {"do": "place", "at": [2, 2]}).code == GameCode.NO_MATCH
    twin[(3, 2)] = (2, 0)  # the twin matches by colour, the other two by symbol
    place(staged(twin, (1, 0)), 2, 2)
    twin[(3, 2)] = (1, 5)  # the twin matches by symbol, the other two by colour
    place(staged(twin, (1, 0)), 2, 2)


def four(colour_dirs: set[str]) -> dict[tuple[int, int], tuple[int, int]]:
    """Four stones around [3, 3]: colour matches of (1, 0) at colour_dirs, symbol elsewhere."""
    out = {}
    for i, (name, (dr, dc)) in enumerate(STEPS.items()):
        out[(3 + dr, 3 + dc)] = (1, i + 1) if name in colour_dirs else (i + 2, 0)
    return out


@pytest.mark.parametrize(
    "dirs", [{"up", "left"}, {"up", "right"}, {"down", "left"}, {"down", "right"}]
)
def test_four_way_touching_is_legal_under_both_rules(dirs):
    for rule in ("touching", "original"):
        events = place(staged(four(dirs), (1, 0), four_way=rule), 3, 3)
        assert events[0]["fourway"] is True and events[0]["neighbours"] == 4


@pytest.mark.parametrize("dirs", [{"up", "down"}, {"left", "right"}])
def test_four_way_opposite_needs_original_rule(dirs):
    err = refused(staged(four(dirs), (1, 0)), {"do": "place", "at": [3, 3]})
    assert err.code == GameCode.NO_MATCH and "touch at a corner" in err.message
    events = place(staged(four(dirs), (1, 0), four_way="original"), 3, 3)
    assert events[0]["fourway"] is True


def test_four_way_needs_two_and_two():
    stones = four({"up", "left"})
    stones[(4, 3)] = (1, 5)  # down now matches by colour: three colours, one symbol
    for rule in ("touching", "original"):
        g = staged(stones, (1, 0), four_way=rule)
        assert refused(g, {"do": "place", "at": [3, 3]}).code == GameCode.NO_MATCH


def test_legal_list_greys_out_the_rest():
    g = staged(four({"up", "down"}), (1, 0))
    assert [3, 3] not in g.view(0)["legal"]
    g = staged(four({"up", "down"}), (1, 0), four_way="original")
    assert [3, 3] in g.view(0)["legal"]


# -- refusals -------------------------------------------------------------------------


def test_occupied_no_neighbour_and_malformed():
    g = new_game(1)
    assert refused(g, {"do": "place", "at": [3, 5]}).code == GameCode.OCCUPIED
    assert refused(g, {"do": "place", "at": [5, 2]}).code == GameCode.NO_NEIGHBOUR
    for at in ([8, 0], [0, 12], [-1, 0]):
        err = refused(g, {"do": "place", "at": at})
        assert isinstance(err, InvalidMove) and err.code == GameCode.BAD_CELL
    for at in ([1], "a1", [True, 0], [1.0, 2], [1, 2, 3]):  # not [row, col]: of the wrong type
        err = refused(g, {"do": "place", "at": at})
        assert isinstance(err, InvalidMove) and err.code == GameCode.BAD_FIELD
    assert refused(g, {"do": "place"}).code == GameCode.MISSING_FIELD
    assert refused(g, {"do": "place", "at": None}).code == GameCode.MISSING_FIELD
    for action in ({"do": "fly"}, {}, {"do": 3}):
        err = refused(g, action)
        assert isinstance(err, InvalidMove) and err.code == GameCode.UNKNOWN_ACTION
    assert refused(g, {"do": "help"}, seat=1).code == GameCode.NOT_YOUR_TURN


def test_game_over_refuses_everything():
    g = staged({(2, 2): (1, 1)}, (1, 0), pouch=[(5, 5)])
    events = place(g, 2, 3)
    assert [e["e"] for e in events] == ["placed", "drew", "game_over"]
    assert g.status is Status.OVER and g.to_move is None
    for action in ({"do": "place", "at": [2, 4]}, {"do": "help"}):
        assert refused(g, action).code == GameCode.GAME_OVER


def test_bad_options():
    with pytest.raises(OptionError):
        Ishido(options={"scoring": "future"}, seats=1, rng=random.Random(0), now=0.0)
    with pytest.raises(OptionError):
        Ishido(options={"four_way": True}, seats=1, rng=random.Random(0), now=0.0)
    with pytest.raises(OptionError):
        Ishido(options={}, seats=2, rng=random.Random(0), now=0.0)


# -- scoring vectors --------------------------------------------------------------------


def test_ring_squares_score_nothing():
    g = staged({(0, 3): (1, 1), (1, 4): (2, 0)}, (1, 0), fourways=3)
    assert place(g, 0, 4)[0]["points"] == 0  # two neighbours, on the ring
    g = staged({(1, 3): (1, 1), (2, 4): (2, 0)}, (1, 0))
    assert place(g, 1, 4)[0]["points"] == 2  # same shape, one row in
    for r, c in [(7, 5), (4, 0), (4, 11)]:  # bottom row, left and right columns
        g = staged({(r, c + (1 if c < 11 else -1)): (1, 1)}, (1, 0), fourways=1)
        assert place(g, r, c)[0]["points"] == 0
    g = staged({(4, 9): (1, 1)}, (1, 0), fourways=1)
    assert place(g, 4, 10)[0]["points"] == 2  # next to the ring, inside


@pytest.mark.parametrize(("before", "expected"), [(0, 1), (1, 2), (2, 4), (5, 32)])
def test_points_double_per_earlier_fourway(before, expected):
    g = staged({(2, 2): (1, 1)}, (1, 0), fourways=before)
    events = place(g, 2, 3)
    assert events[0]["points"] == expected and events[0]["bonus"] == 0
    assert g.scores == [expected]


@pytest.mark.parametrize("before", range(14))
def test_fourway_points_and_bonus(before):
    g = staged(four({"up", "left"}), (1, 0), fourways=before)
    events = place(g, 3, 3)
    bonus = BONUSES[min(before, 11)]
    assert events[0]["points"] == 8 * 2**before and events[0]["bonus"] == bonus
    assert g.scores == [8 * 2**before + bonus] and g.view(0)["fourways"] == before + 1


def test_successive_fourways_follow_the_bonus_sequence():
    """Build four 4-way holes and fill them one after another."""
    holes = [(2, 2), (2, 5), (5, 2), (5, 5)]
    stones: dict[tuple[int, int], tuple[int, int]] = {}
    for r, c in holes:
        for (dr, dc), s in zip(STEPS.values(), [(1, 1), (2, 0), (1, 2), (3, 0)], strict=True):
            stones[(r + dr, c + dc)] = s
    g = staged(stones, (1, 0), pouch=[(5, 5)] * 3 + [(1, 0)] * 3)  # ends 3 stones short
    total = 0
    for i, (r, c) in enumerate(holes):
        ev = place(g, r, c)[0]
        assert (ev["points"], ev["bonus"]) == (8 * 2**i, BONUSES[i])
        total += ev["points"] + ev["bonus"]
        assert g.scores == [total]


def test_ancient_counts_only_fourway_bonuses():
    g = staged({(2, 2): (1, 1)}, (1, 0), scoring="ancient", fourways=2)
    assert place(g, 2, 3)[0]["points"] == 0 and g.scores == [0]
    g = staged(four({"up", "left"}), (1, 0), scoring="ancient", fourways=2)
    ev = place(g, 3, 3)[0]
    assert (ev["points"], ev["bonus"]) == (0, 100) and g.scores == [100]


@pytest.mark.parametrize(
    ("pouch", "fits", "left", "bonus"),
    [
        ([], True, 0, 1000),  # last stone placed: won
        ([], False, 1, 500),  # the last stone fits nowhere
        ([(5, 5)], False, 2, 100),
        ([(5, 5), (5, 5)], False, 3, 0),
    ],
)
def test_end_bonus(pouch, fits, left, bonus):
    for scoring in ("modern", "ancient"):
        stuck = [(4, 4)]  # fits nowhere next to (1, 1) and (1, 0)
        g = staged(
            {(2, 2): (1, 1)}, (1, 0), pouch=(pouch + ([] if fits else stuck)), scoring=scoring
        )
        events = place(g, 2, 3)
        end = events[-1]
        assert end["e"] == ("won" if fits and not pouch else "game_over")
        assert end["left"] == left
        expected = bonus if scoring == "modern" else 0
        assert end["bonus"] == expected
        assert g.scores == [events[0]["points"] + expected] == [end["score"]]
        assert g.result()["won"] is (end["e"] == "won")
        (entry,) = g.score_entries()
        assert entry.table == f"{scoring}/touching" and entry.seat == 0
        assert entry.score == g.scores[0] and entry.detail["placed"] == 1


def test_no_score_entries_while_playing():
    assert new_game().score_entries() == []


# -- help -----------------------------------------------------------------------------


def test_help_names_the_best_square_and_is_counted():
    stones = {(2, 5): (1, 1), (3, 4): (2, 0), (4, 5): (3, 0), (0, 1): (1, 4)}
    g = staged(stones, (1, 0))
    # [3, 5]: three neighbours, 4 points; every other legal square earns 2 or less.
    events = g.act(0, {"do": "help"}, 1.0)
    assert events == [{"e": "help", "at": [3, 5], "points": 4, "helps": 1}]
    g.act(0, {"do": "help"}, 2.0)
    assert g.view(0)["helps"] == 2
    assert place(g, 3, 5)[0]["points"] == 4


def test_help_prefers_more_neighbours_on_equal_points():
    # Only ring squares are legal, all worth 0: the two-neighbour [0, 4] beats [0, 2] and [0, 6].
    stones = {(0, 3): (1, 1), (0, 5): (2, 0), (1, 3): (4, 4), (1, 5): (4, 4)}
    g = staged(stones, (1, 0))
    assert g.view(0)["legal"] == [[0, 2], [0, 4], [0, 6]]
    assert g.act(0, {"do": "help"}, 1.0)[0]["at"] == [0, 4]


def best_by_hand(board: list[list[Any]], stone: list[int], legal, fourways: int, scoring: str):
    def key(at: list[int]) -> tuple[int, int, int, int]:
        n = len(around(board, *at))
        return (-sum(expected_value(*at, n, fourways, scoring)), -n, *at)

    return min(legal, key=key)


# -- property tests ------------------------------------------------------------------

palette = st.tuples(st.integers(0, 2), st.integers(0, 2))


@settings(max_examples=300, deadline=None)
@given(
    cells=st.lists(st.one_of(st.none(), palette), min_size=4, max_size=4),
    stone=palette,
    rule=st.sampled_from(["touching", "original"]),
)
def test_engine_agrees_with_independent_checker(cells, stone, rule):
    """Any neighbourhood of [3, 3] (few colours and symbols, so matches are common)."""
    stones = {
        (3 + dr, 3 + dc): cell
        for (dr, dc), cell in zip(STEPS.values(), cells, strict=True)
        if cell is not None
    }
    g = staged(stones, stone, four_way=rule)
    nbs = around(g.view(0)["board"], 3, 3)
    if allowed(list(stone), nbs, rule == "touching"):
        assert place(g, 3, 3)[0]["neighbours"] == len(nbs)
    else:
        err = refused(g, {"do": "place", "at": [3, 3]})
        assert err.code == (GameCode.NO_NEIGHBOUR if not nbs else GameCode.NO_MATCH)


# -- property tests: random play ---------------------------------------------------------

junk_actions = st.one_of(
    st.builds(lambda r, c: {"do": "place", "at": [r, c]}, st.integers(-2, 9), st.integers(-2, 13)),
    st.sampled_from([{"do": "jump"}, {"do": "place"}, {"do": "place", "at": "x"}, {}]),
)


def choose(board: list[list[Any]], legal: list[list[int]], pick: int) -> list[int]:
    """Odd picks pack tightly (long games, more 4-ways), even picks play anywhere."""
    if pick % 2:
        most = max(len(around(board, *at)) for at in legal)
        legal = [at for at in legal if len(around(board, *at)) == most]
    return legal[(pick // 2) % len(legal)]


def play(
    seed: int, options: dict[str, str], picks: list[int], junk: list[dict[str, Any]]
) -> tuple[Ishido, list[tuple[int, dict[str, Any], float]], list[list[dict[str, Any]]]]:
    """Play a game to its end, checking every invariant along the way."""
    g = Ishido(options=options, seats=1, rng=random.Random(seed), now=0.0)
    touching = options["four_way"] == "touching"
    view = g.view(0)
    board = copy.deepcopy(view["board"])
    log: list[tuple[int, dict[str, Any], float]] = []
    all_events: list[list[dict[str, Any]]] = []
    score = fourways = placed = 0
    current = view["current"]
    step = 0
    while g.status is Status.PLAYING:
        assert step <= 66
        assert view["legal"] == legal_here(board, current, touching)
        assert view["legal"], "a playing game always has somewhere to put the stone"
        # The stones: board + current + pouch always make the full set of 72.
        on_board = Counter(tuple(s) for row in view["board"] for s in row if s is not None)
        seen = on_board + Counter([tuple(current)])
        assert sum(seen.values()) + view["pouch"] == 72
        assert (
            all(n <= 2 for n in seen.values())
            and len(seen.keys() - set(product(range(6), repeat=2))) == 0
        )
        # Illegal and malformed actions change nothing.
        if junk:
            action = junk[step % len(junk)]
            at = action.get("at")
            if not (action.get("do") == "place" and isinstance(at, list) and at in view["legal"]):
                refused(g, action)
            refused(g, {"do": "help"}, seat=1)
        action = {"do": "place", "at": choose(board, view["legal"], picks[step % len(picks)])}
        if step % 7 == 3:
            help_events = g.act(0, {"do": "help"}, float(step))
            log.append((0, {"do": "help"}, float(step)))
            all_events.append(help_events)
            best = best_by_hand(board, current, view["legal"], fourways, options["scoring"])
            assert help_events[0]["at"] == best
        events = g.act(0, action, float(step) + 0.5)
        log.append((0, action, float(step) + 0.5))
        all_events.append(events)
        ev = events[0]
        r, c = ev["at"]
        assert ev["e"] == "placed" and ev["stone"] == current
        nbs = around(board, r, c)
        assert board[r][c] is None and allowed(current, nbs, touching)
        assert ev["neighbours"] == len(nbs) and ev["fourway"] is (len(nbs) == 4)
        assert not (ev["fourway"] and ring(r, c))
        points, bonus = expected_value(r, c, len(nbs), fourways, options["scoring"])
        assert (ev["points"], ev["bonus"]) == (points, bonus)
        score += points + bonus
        fourways += ev["fourway"]
        placed += 1
        board[r][c] = current
        view = g.view(0)
        assert view["board"] == board and view["fourways"] == fourways
        assert view["last"] == {k: v for k, v in ev.items() if k not in ("e", "score")}
        kinds = [e["e"] for e in events[1:]]
        if kinds == ["won"]:
            assert view["pouch"] == 0 and view["current"] is None and placed == 66
        else:
            assert kinds[0] == "drew" and kinds in (["drew"], ["drew", "game_over"])
            current = events[1]["stone"]
            assert view["current"] == current and view["pouch"] == events[1]["pouch"]
            if kinds[-1] == "game_over":
                assert legal_here(board, current, touching) == []
        step += 1
    left = 66 - placed
    end = all_events[-1][-1]
    assert end["left"] == left == view["left"]
    score += {0: 1000, 1: 500, 2: 100}.get(left, 0) if options["scoring"] == "modern" else 0
    assert g.scores == [score] == [end["score"]] == view["scores"]
    assert view["legal"] == [] and view["result"]["won"] is (left == 0)
    (entry,) = g.score_entries()
    assert entry.detail["placed"] == placed and entry.detail["fourways"] == fourways
    assert entry.table == f"{options['scoring']}/{options['four_way']}"
    return g, log, all_events


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    options=st.sampled_from(OPTIONS),
    picks=st.lists(st.integers(0, 200), min_size=1, max_size=20),
    junk=st.lists(junk_actions, max_size=5),
)
def test_random_playouts_keep_every_rule(seed, options, picks, junk):
    play(seed, options, picks, junk)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    options=st.sampled_from(OPTIONS),
    picks=st.lists(st.integers(0, 200), min_size=1, max_size=10),
)
def test_replay_is_deterministic(seed, options, picks):
    g, log, events = play(seed, options, picks, [])
    again = Ishido(options=options, seats=1, rng=random.Random(seed), now=0.0)
    replayed = [again.act(seat, action, now) for seat, action, now in log]
    assert replayed == events
    assert again.view(0) == g.view(0) and again.view(None) == g.view(None)
    assert again.score_entries() == g.score_entries()


@pytest.mark.slow
def test_fits_agrees_with_the_independent_checker_everywhere():
    """Every neighbourhood over three colours and three symbols, both 4-way rules.

    The engine's fits() counts instead of enumerating, and the engine's draw uses
    _fit_mask(), every stone that fits coded neighbours as a set of bits; this walks
    all 10^4 neighbour fillings for 9 stones through both.
    """
    from tilehall.server.games.ishido import DIRECTIONS, _fit_mask, _kind, fits

    names = [name for name, _, _ in DIRECTIONS]
    cells = [None, *product(range(3), repeat=2)]
    checked = 0
    for stone in product(range(3), repeat=2):
        for filling in product(cells, repeat=4):
            nbs = [(names[d], list(s)) for d, s in enumerate(filling) if s is not None]
            engine_around = [(d, Stone(*s)) for d, s in enumerate(filling) if s is not None]
            coded = tuple(d << 6 | _kind(nb) for d, nb in engine_around)
            bit = 1 << _kind(Stone(*stone))
            for touching in (True, False):
                expected = allowed(list(stone), nbs, touching)
                assert fits(Stone(*stone), engine_around, touching=touching) is expected, (
                    stone,
                    filling,
                    touching,
                )
                if coded:
                    mask = _fit_mask(coded, touching)
                    assert bool(mask & bit) is expected, (stone, filling, touching)
                checked += 1
    assert checked == 9 * 10**4 * 2


# -- positions ------------------------------------------------------------------------


def test_from_position_takes_up_a_game_where_it_stands():
    g = new_game(5)
    for step in range(20):
        legal = g.view(0)["legal"]
        place(g, *legal[step % len(legal)])
    g.act(0, {"do": "help"}, 2.0)
    view = g.view(0)
    again = Ishido.from_position(
        view["board"],
        view["current"],
        [list(s) for s in reversed(g.pouch)],  # the engine draws from the end
        score=view["scores"][0],
        fourways=view["fourways"],
        placed=view["placed"],
        helps=view["helps"],
    )
    assert again.view(0) == {**view, "last": None}
    while g.status is Status.PLAYING:
        action = {"do": "place", "at": g.view(0)["legal"][0]}
        assert again.act(0, action, 3.0) == g.act(0, action, 3.0)
    assert again.view(0) == g.view(0)


@pytest.mark.parametrize(
    ("board", "current", "pouch", "counts"),
    [
        ([[None] * COLS] * (ROWS - 1), [0, 0], [], {}),
        ([[None] * (COLS + 1)] * ROWS, [0, 0], [], {}),
        ([[[6, 0]] + [None] * (COLS - 1)] * ROWS, [0, 0], [], {}),
        ([[None] * COLS] * ROWS, [0], [], {}),
        ([[None] * COLS] * ROWS, [0, 0], [[True, 0]], {}),
        ([[None] * COLS] * ROWS, "ab", [], {}),
        ([[None] * COLS] * ROWS, [0, 0], [], {"fourways": -1}),
    ],
)
def test_from_position_refuses_what_no_board_holds(board, current, pouch, counts):
    with pytest.raises(PositionError):
        Ishido.from_position(board, current, pouch, **counts)


def test_from_position_checks_the_options():
    with pytest.raises(OptionError):
        Ishido.from_position([[None] * COLS] * ROWS, [0, 0], options={"scoring": "future"})
