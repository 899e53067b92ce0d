"""View patches: applying diff(a, b) to a gives b exactly, for any views."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tilehall.protocol.patch import PatchError, apply, diff, expand_events, shorten_events

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
        st.lists(inner, max_size=6),
        st.dictionaries(st.text(max_size=4), inner, max_size=6),
        # a map with keys other than strings takes integer keys as themselves
        st.dictionaries(st.one_of(st.text(max_size=2), st.integers(0, 5)), inner, max_size=4),
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


@pytest.mark.slow
@given(views, views, views)
def test_a_view_patched_in_place_shares_nothing_with_the_patch(old, new, newer):
    """Later patches change the view in place: none may reach into an earlier patch's values."""
    patch = diff(old, new)
    sent = msgpack.packb(patch)
    view = apply(old, patch, in_place=True)
    apply(view, diff(view, newer), in_place=True)
    assert msgpack.packb(patch) == sent


@given(
    st.lists(st.lists(st.integers(0, 9), min_size=8, max_size=8), min_size=8, max_size=8), st.data()
)
def test_one_cell_of_a_board_is_one_operation(board, data):
    r, c = data.draw(st.integers(0, 7)), data.draw(st.integers(0, 7))
    after = [row[:] for row in board]
    after[r][c] = 10
    assert diff({"board": board}, {"board": after}) == [[[0, r, c], 10]]


def test_the_six_operations():
    old = {"a": 1, "b": list(range(10)), "c": {"d": True, "x": 0}, "gone": 0}
    new = {"a": 1, "b": [*range(10), 4, 5], "c": {"d": 1, "x": 0}, "e": None}
    # keys by their place in sorted order: "gone" is 3rd of a b c gone, then of a b c,
    # "b" is 1, "c" 2 and its "d" 0; the new key "e" by name
    assert diff(old, new) == [
        [[3]],
        ["+", [1], [4, 5]],
        [[2, 0], 1],
        [["e"], None],
    ]
    assert diff([1, 2, 3], [1]) == [["<", [], 1]]
    assert diff({"a": [1, 2]}, {"a": []}) == [[[0], []]], "emptied: set, shorter than a cut"
    assert diff({"x": 1}, [1]) == [[[], [1]]]
    # a tile taken from a sorted list: one splice, however long the list
    unseen = list(range(0, 200, 2))
    taken = unseen[:40] + unseen[41:]
    assert diff({"u": unseen}, {"u": taken}) == [["~", [0], 40, 1, []]]
    assert diff(taken, unseen) == [["~", [], 40, 0, [80]]]
    assert diff([1, 2, 3, 4], [1, 9, 9, 9, 4]) == [["~", [], 1, 2, [9, 9, 9]]]
    # a changed type inside a list is sent, though 1 == True
    assert diff([[1, 2], 0], [[True, 2]]) == [[[], [[True, 2]]]]
    # several fields of one map: one "=" (at the top from three, below from two)
    assert diff({"c": 1, "b": 2, "a": 3}, {"c": 5, "b": 6, "a": 7}) == [
        ["=", [], [2, 5, 1, 6, 0, 7]]
    ]
    assert diff({"a": 1, "b": 2}, {"a": 5, "b": 6}) == [[[0], 5], [[1], 6]]
    kept = {"c": "three", "d": "four", "e": "five"}
    assert diff({"m": {"a": 1, "b": 2, **kept}}, {"m": {"a": 5, "b": 6, **kept}}) == [
        ["=", [0], [0, 5, 1, 6]]
    ]
    # a map with an int key takes keys as they are, in a "=" of a map
    assert diff({1: 0, "a": 1, "b": 2}, {1: 3, "a": 5, "b": 6}) == [
        ["=", [], {1: 3, "a": 5, "b": 6}]
    ]


def test_a_container_goes_whole_when_that_is_smaller():
    # a stone whose colour and symbol both changed: the pair, not two sets
    assert diff({"s": [1, 2], "n": 0}, {"s": [3, 4], "n": 0}) == [[[1], [3, 4]]]
    # a list with nothing kept: the list itself, not a splice of all of it
    assert diff({"l": [[0, 1], [2, 3]]}, {"l": [[4, 5]]}) == [[[0], [[4, 5]]]]
    # a one-item list that changed joins its map's other fields
    assert diff({"s": [1], "a": 1, "b": 2}, {"s": [7], "a": 3, "b": 4}) == [
        ["=", [], [2, [7], 0, 3, 1, 4]]
    ]
    # one cell of a big board stays one set
    board = [[0] * 12 for _ in range(8)]
    after = [row[:] for row in board]
    after[3][4] = 9
    assert diff({"board": board, "n": 1}, {"board": after, "n": 2}) == [
        [[0, 3, 4], 9],
        [[1], 2],
    ]


def test_keys_by_place_are_read_on_the_map_as_it_is_then():
    """A place counts among the keys the client holds when it applies that operation:
    keys gone are removed first, the last place first; new keys come by name, after."""
    old = {"b": 1, "d": 2, "f": 3, "h": {"x": 1, "y": 2}}
    new = {"a": 0, "d": 5, "h": {"x": 2, "y": 2}}
    patch = diff(old, new)  # f, b gone; then d is 0 and h 1 of d h; a new
    assert patch == [[[2]], [[0]], [[1, 0], 2], [[0], 5], [["a"], 0]]
    assert apply(old, patch) == new
    # in one "=", every place is read before any key is set
    new["e"] = 4
    assert diff(old, new)[-1] == ["=", [], ["a", 0, 0, 5, "e", 4]]
    assert apply(old, diff(old, new)) == new
    # a place is the same whatever order the client's map holds its keys in
    assert apply({"y": 0, "x": 0}, [[[1], 7], ["=", [], [0, 1, "z", 2]]]) == {
        "x": 1,
        "y": 7,
        "z": 2,
    }
    # a new int key on a map of strings: by itself, in a map; integers are then keys
    assert diff({"a": 1}, {"a": 2, 5: 0}) == [[[0], 2], ["=", [], {5: 0}]]
    assert apply({"a": 1, 5: 0}, [[[5], 1]]) == {"a": 1, 5: 1}


@given(views, views)
def test_a_patch_below_the_top_never_packs_larger_than_the_value_itself(old, new):
    """The size rules: below the top of the view, a container is sent whole rather than
    in operations that pack larger."""
    patch = diff({"v": old}, {"v": new})
    assert len(msgpack.packb(patch)) <= len(msgpack.packb([[["v"], new]]))


TEMPLATES = {
    "placed": {"at": ["last", "at"], "score": ["scores", 0]},
    "drew": {"stone": ["current"]},
}


def test_events_the_view_says_all_of_go_by_name_and_come_back_whole():
    view = {"last": {"at": [3, 4]}, "scores": [12], "current": [1, 5]}
    events = [
        {"e": "placed", "at": [3, 4], "score": 12},
        {"e": "drew", "stone": [1, 2]},  # not the view's: sent whole
        {"e": "help", "at": [0, 0]},  # no template
        {"e": "placed", "at": [3, 4], "score": 12, "extra": 1},  # more than the template
        {"e": "placed", "at": [3, 4], "score": 12.0},  # 12.0 is not 12 on the wire
    ]
    short = shorten_events(events, view, TEMPLATES)
    assert short == ["placed", *events[1:]]
    assert expand_events(short, view, TEMPLATES) == events
    # a rebuilt event is the client's own copy, not a piece of its view
    again = expand_events(["placed"], view, TEMPLATES)
    again[0]["at"].append(0)
    assert view["last"]["at"] == [3, 4]
    # a template the view cannot fill is not used
    assert shorten_events(events[:1], {"scores": [12]}, TEMPLATES) == events[:1]


def test_events_whose_values_travel_go_as_a_list_and_come_back_whole():
    templates = {
        "ended": {"seat": None, "placed": None, "turn": ["turn"]},
        "turn": {"seat": ["to_move"]},
    }
    view = {"turn": 4, "to_move": 1}
    events = [
        {"e": "ended", "seat": 0, "placed": [1, 2], "turn": 4},
        {"e": "ended", "seat": 0, "placed": 2, "turn": 5},  # not the view's turn: whole
        {"e": "ended", "seat": 0, "turn": 4},  # a field missing: whole
        {"e": "turn", "seat": 1},
    ]
    short = shorten_events(events, view, templates)
    assert short == [["ended", 0, [1, 2]], *events[1:3], "turn"]
    assert expand_events(short, view, templates) == events
    again = expand_events(short, view, templates)
    again[0]["placed"].append(3)
    assert short[0][2] == [1, 2], "the client's own copy"
    for odd in (["ended", 0], ["ended", 0, 1, 2], ["turn", 1], ["nothing", 1]):
        with pytest.raises(PatchError):
            expand_events([odd], view, templates)


@pytest.mark.parametrize(
    ("events", "view"),
    [(["turn"], {"to_move": 0}), (["placed"], {"scores": [1]}), (["drew"], {"current": 0})],
)
def test_a_name_that_cannot_be_read_is_refused_clearly(events, view):
    with pytest.raises(PatchError):
        expand_events(events, view, {**TEMPLATES, "drew": {"stone": ["current", 1]}})


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
        ({"a": [1]}, ["=", ["a"], {"b": 1}]),
        ({"a": {}}, ["=", ["a"], [1]]),
        ({"a": {}}, ["=", ["a"], {"b": 1}, 2]),
        ({"a": {}}, ["=", [0], [0, 1]]),
        ({"a": {"b": 1}}, [[0, 1], 2]),
        ({"a": {"b": 1}}, ["=", [0], 7]),
    ],
)
def test_a_patch_that_does_not_fit_is_refused_clearly(view, op):
    with pytest.raises(PatchError):
        apply(view, [op])
