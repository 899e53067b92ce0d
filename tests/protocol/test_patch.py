"""View patches: applying diff(a, b) to a gives b exactly, for any views."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tilehall.protocol.patch import PatchError, apply, diff

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
)
views = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6), st.dictionaries(st.text(max_size=4), inner, max_size=6)
    ),
    max_leaves=40,
)


def exactly(a, b) -> bool:
    """Equal, and of the same types all the way down (True is not 1 on the wire)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(exactly(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(exactly(x, y) for x, y in zip(a, b, strict=True))
    return a == b


@given(views, views)
def test_applying_the_diff_gives_the_new_view_exactly(old, new):
    patch = diff(old, new)
    got = apply(old, patch)
    assert exactly(got, new)
    # patches travel as msgpack
    assert msgpack.unpackb(msgpack.packb(patch), strict_map_key=False) == patch


@given(views)
def test_no_change_is_an_empty_patch_and_apply_leaves_the_view_alone(view):
    assert diff(view, view) == []
    before = msgpack.packb(view)
    apply(view, diff(view, {"x": [view]}))
    assert msgpack.packb(view) == before


@given(
    st.lists(st.lists(st.integers(0, 9), min_size=8, max_size=8), min_size=8, max_size=8), st.data()
)
def test_one_cell_of_a_board_is_one_operation(board, data):
    r, c = data.draw(st.integers(0, 7)), data.draw(st.integers(0, 7))
    after = [row[:] for row in board]
    after[r][c] = 10
    assert diff({"board": board}, {"board": after}) == [[["board", r, c], 10]]


def test_the_five_operations():
    old = {"a": 1, "b": [1, 2, 3], "c": {"d": True}, "gone": 0}
    new = {"a": 1, "b": [1, 2, 3, 4, 5], "c": {"d": 1}, "e": None}
    patch = diff(old, new)
    assert patch == [
        ["+", ["b"], [4, 5]],
        [["c", "d"], 1],
        [["e"], None],
        [["gone"]],
    ]
    assert diff([1, 2, 3], [1]) == [["<", [], 1]]
    assert diff({"a": [1, 2]}, {"a": []}) == [[["a"], []]], "emptied: set, shorter than a cut"
    assert diff({"x": 1}, [1]) == [[[], [1]]]
    # a tile taken from a sorted list: one splice, however long the list
    unseen = list(range(0, 200, 2))
    taken = unseen[:40] + unseen[41:]
    assert diff({"u": unseen}, {"u": taken}) == [["~", ["u"], 40, 1, []]]
    assert diff(taken, unseen) == [["~", [], 40, 0, [80]]]
    assert diff([1, 2, 3, 4], [1, 9, 9, 9, 4]) == [["~", [], 1, 2, [9, 9, 9]]]
    # a changed type inside a list is sent, though 1 == True
    assert diff([[1, 2], 0], [[True, 2]]) == [["~", [], 0, 2, [[True, 2]]]]


@pytest.mark.parametrize(
    ("view", "op"),
    [
        ({"a": 1}, [["b", "c"], 1]),
        ({"a": [1]}, [["a", 3], 1]),
        ({"a": [1]}, [["a", 0]]),
        ({"a": [1]}, [["a", 0], 1, 2]),
        ({"a": 1}, ["+", ["a"], [2]]),
        ({"a": [1]}, ["<", ["a"], 5]),
        ({"a": [1]}, ["~", ["a"], 1, 1, []]),
        ({"a": [1]}, ["~", ["a"], 0, 1, 7]),
        ({"a": 1}, ["~", ["a"], 0, 0, [1]]),
        ({"a": 1}, ["?", ["a"]]),
    ],
)
def test_a_patch_that_does_not_fit_is_refused_clearly(view, op):
    with pytest.raises(PatchError):
        apply(view, [op])
