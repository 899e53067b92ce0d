"""What the clients say about Mathable's events: equations that read true, and recent turns.

The events come from the real engine; the equations are checked by evaluating
them as written, so ``17=1-18`` (board order) fails where ``17=18-1`` passes.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tilehall.clients.mathable import Placement, TurnLog, operands
from tilehall.server.bots.mathable import BOTS
from tilehall.server.games.mathable import SIZE, Mathable, equations, operation_results

OPS = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y}


def holds(tile: int, x: int, op: str, y: int) -> bool:
    """Whether ``tile = x op y`` is true as written (``/`` exact)."""
    if op == "/":
        return y != 0 and x == tile * y
    return OPS[op](x, y) == tile


@given(a=st.integers(0, 90), b=st.integers(0, 90), data=st.data())
def test_every_equation_the_engine_sends_reads_true(a: int, b: int, data: st.DataObject) -> None:
    """``a`` next to the tile, ``b`` beyond, whichever is bigger: written larger first."""
    board: list[list[int | None]] = [[None] * SIZE for _ in range(SIZE)]
    board[0][1], board[0][2] = a, b  # [0, 0] is a 3x square: no operator restricts it
    tile = data.draw(st.sampled_from(sorted(operation_results(a, b))))
    [eq] = [e.wire() for e in equations(board, (0, 0), tile)]
    x, op, y = operands(tile, eq)
    assert holds(tile, x, op, y), (tile, eq, (x, op, y))
    assert {x, y} == {a, b}
    if op == "-" or (op == "/" and tile != 0):
        assert x >= y


@pytest.mark.parametrize(
    ("tile", "a", "b", "op", "text"),
    [
        (17, 1, 18, "-", "17=18-1"),
        (3, 2, 6, "/", "3=6/2"),
        (3, 6, 2, "/", "3=6/2"),
        (0, 0, 5, "/", "0=0/5"),
        (0, 5, 0, "/", "0=0/5"),
        (7, 3, 4, "+", "7=3+4"),
    ],
)
def test_the_issue_examples(tile: int, a: int, b: int, op: str, text: str) -> None:
    ev = {"e": "placed", "seat": 1, "tile": tile, "at": [2, 5], "points": tile}
    ev["equations"] = [{"dir": "up", "a": a, "b": b, "op": op}]
    assert Placement.from_event(ev).equation() == text


def test_two_directions_chain_and_operators_can_be_renamed() -> None:
    ev = {
        "e": "placed",
        "seat": 0,
        "tile": 8,
        "at": [4, 4],
        "points": 16,
        "equations": [
            {"dir": "left", "a": 2, "b": 4, "op": "*"},
            {"dir": "up", "a": 2, "b": 10, "op": "-"},
        ],
    }
    p = Placement.from_event(ev)
    assert p.equation() == "8=2*4=10-2"
    assert p.equation(ops={"*": "x"}, space=" ") == "8 = 2 x 4 = 10 - 2"


def play(seats: int, turns: int, seed: int) -> tuple[Mathable, list[list[dict[str, Any]]]]:
    """A game of normal bots; every action's events, as a seat-0 client receives them."""
    game = Mathable(options={}, seats=seats, rng=random.Random(seed), now=0.0)
    bot = BOTS["normal"](rng=random.Random(seed))
    updates: list[list[dict[str, Any]]] = []
    ended = 0
    while ended < turns and game.view(0)["status"] == "playing":
        action = bot.choose(game.view(game.to_move))
        assert action is not None
        events = game.act(game.to_move, action, 0.0)
        updates.append([ev for ev in events if ev.get("_to", 0) == 0])
        ended += action["do"] in ("end", "exchange")
    return game, updates


def test_the_log_follows_a_real_game() -> None:
    game, updates = play(seats=3, turns=7, seed=3)
    log = TurnLog()
    for events in updates:
        log.feed(events)
    placed = [ev for events in updates for ev in events if ev["e"] == "placed"]
    ends = [ev for events in updates for ev in events if ev["e"] == "turn_ended"]
    assert len(log.ended) == len(ends) == 7
    assert [t.seat for t in log.ended] == [ev["seat"] for ev in ends]
    # every tile placed is in the turn of the seat that placed it, in order
    assert [(p.seat, p.tile, list(p.at)) for t in log.ended for p in t.placed] == [
        (ev["seat"], ev["tile"], ev["at"]) for ev in placed
    ]
    board = game.view(0)["board"]
    for turn in log.ended:
        for p in turn.placed:
            assert board[p.at[0]][p.at[1]] == p.tile
            assert all(holds(p.tile, *eq) for eq in p.equations)
        assert turn.points == sum(p.points for p in turn.placed) + turn.bonus


def test_since_a_seat_last_played() -> None:
    def turn_of(seat: int, tile: int) -> list[dict[str, Any]]:
        eq = {"dir": "up", "a": 1, "b": tile + 1, "op": "-"}
        return [
            {"e": "placed", "seat": seat, "tile": tile, "at": [0, tile], "equations": [eq]},
            {"e": "turn_ended", "seat": seat, "placed": 1, "reason": "end"},
        ]

    log = TurnLog()
    assert log.since(0) == [] and log.since(None) == []
    log.feed(turn_of(1, 5))
    assert [t.seat for t in log.since(0)] == [1]  # our own last turn is not known yet
    log.feed(turn_of(0, 6))
    assert log.since(0) == []  # we just played: nothing new
    log.feed(turn_of(1, 7) + turn_of(2, 8))
    assert [(t.seat, t.placed[0].tile) for t in log.since(0)] == [(1, 7), (2, 8)]
    assert [t.seat for t in log.since(None)] == [2]  # a spectator: the last turn
    log.feed([{"e": "placed", "seat": 0, "tile": 9, "at": [1, 1], "equations": []}])
    assert log.current is not None and log.current.seat == 0
    assert [t.seat for t in log.since(0)] == [1, 2]  # ours is on, not ended


def test_turn_summaries() -> None:
    log = TurnLog()
    log.feed(
        [
            {"e": "exchanged", "seat": 0, "count": 2},
            {"e": "turn_ended", "seat": 0, "placed": 0, "reason": "exchange"},
            {"e": "turn_ended", "seat": 1, "placed": 0, "reason": "end"},
            {"e": "timeout", "seat": 0},
            {"e": "turn_ended", "seat": 0, "placed": 0, "reason": "timeout"},
        ]
    )
    assert [t.summary() for t in log.ended] == ["exchanged 2 tiles", "passed", "ran out of time"]
