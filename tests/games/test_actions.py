"""Action schemas: normalize() against each game's declared schema, and act() agreeing with it.

The strategies below are built from the schemas themselves (every action,
every field, every bound), so a game that declares a new action is covered
without touching this file.
"""

from __future__ import annotations

import contextlib
import copy
import pickle
import random
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tilehall.protocol import GameCode, Status, check
from tilehall.server.games import all_games
from tilehall.server.games.actions import (
    QUOTE_LIMIT,
    ActionField,
    ActionSpec,
    FieldKind,
    action_table,
    cell_field,
    flag_field,
    int_field,
    ints_field,
    quote,
)
from tilehall.server.games.base import Game, GameError, InvalidMove

GAMES = all_games()
INVALID = {
    GameCode.UNKNOWN_ACTION,
    GameCode.MISSING_FIELD,
    GameCode.BAD_FIELD,
    GameCode.BAD_CELL,
    GameCode.BAD_SEAT,
}


def fresh(cls: type[Game], seed: int = 0) -> Game:
    return cls(options={}, seats=cls.min_seats, rng=random.Random(seed), now=0.0)


# Dealing a Match-It sheet or a LinkSame stage costs milliseconds: deal once, copy per example.
STARTS = {cls.name: fresh(cls) for cls in GAMES}


def snapshot(game: Game) -> tuple[bytes, Any]:
    state = {k: v for k, v in vars(game).items() if k != "rng"}
    return pickle.dumps(state), game.rng.getstate()


def refusal(fn: Any, *args: Any) -> GameError:
    with pytest.raises(GameError) as info:
        fn(*args)
    return info.value


# -- strategies from the schemas ------------------------------------------------------


def values(f: ActionField) -> st.SearchStrategy[Any]:
    """Values ``f`` accepts, in every form it accepts them."""
    if f.kind is FieldKind.CELL:
        cell = st.tuples(st.integers(0, f.rows - 1), st.integers(0, f.cols - 1))
        return st.one_of(cell.map(list), cell)
    if f.kind is FieldKind.INT:
        return st.integers(f.lo, f.hi)
    if f.kind is FieldKind.BOOL:
        return st.booleans()
    items = st.integers(f.lo, f.hi)
    return st.lists(items, min_size=f.min_items, max_size=f.max_items)


def accepted(spec: ActionSpec[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Actions the schema of ``spec`` accepts; optional fields absent, null or set."""
    required = {f.name: values(f) for f in spec.fields if f.required}
    optional = {f.name: st.one_of(st.none(), values(f)) for f in spec.fields if not f.required}
    return st.fixed_dictionaries({"do": st.just(spec.do), **required}, optional=optional).map(dict)


def game_actions(cls: type[Game]) -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(*(accepted(spec) for spec in cls.actions.values()))


games = st.sampled_from(GAMES)
junk_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.binary(max_size=20),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


# -- the properties ----------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), cls=games, seat=st.integers(-1, 4), now=st.floats(0, 1000))
def test_act_applies_or_refuses_what_normalize_accepts(data, cls, seat, now):
    """An accepted action is played, or refused with a stable code and no change at all.

    The raw action and its normalised form do exactly the same thing. The game
    first takes a few accepted actions of its own, so that later positions
    (a finished game, a sheet past its time) are reached too.
    """
    game = copy.deepcopy(STARTS[cls.name])
    for n, warmup in enumerate(data.draw(st.lists(game_actions(cls), max_size=6))):
        with contextlib.suppress(GameError):  # refused: the position stays as it was
            game.act(game.to_move or 0, warmup, now * n / 6)
    action = data.draw(game_actions(cls))
    normal = cls.normalize(action)
    assert cls.normalize(normal) == normal
    assert set(normal) <= {"do", *(f.name for f in cls.actions[action["do"]].fields)}
    twin = copy.deepcopy(game)
    before = snapshot(game)
    try:
        events = game.act(seat, action, now)
    except GameError as err:
        assert err.code in set(GameCode), err.code
        assert snapshot(game) == before
        assert refusal(twin.act, seat, normal, now).code == err.code
    else:
        assert twin.act(seat, normal, now) == events
        assert snapshot(twin) == snapshot(game)
        msgpack.packb(events)


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    cls=games,
    key=st.one_of(st.text(min_size=1, max_size=30), st.integers(), st.binary(max_size=5)),
    value=junk_values,
    seat=st.integers(0, 1),
)
def test_junk_fields_are_refused_and_change_nothing(data, cls, key, value, seat):
    action = data.draw(game_actions(cls))
    if key in action or key == "do":
        return
    junk = {**action, key: value}
    err = refusal(cls.normalize, junk)
    assert isinstance(err, InvalidMove) and err.code == GameCode.BAD_FIELD
    assert quote(key) in err.message
    game = copy.deepcopy(STARTS[cls.name])
    before = snapshot(game)
    err = refusal(game.act, seat, junk, 1.0)
    assert isinstance(err, InvalidMove) and err.code == GameCode.BAD_FIELD
    assert snapshot(game) == before


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    cls=games,
    action=st.one_of(
        junk_values,
        st.dictionaries(
            st.one_of(st.sampled_from(["do", "at", "a", "b", "from", "to", "tile", "tiles"])),
            st.one_of(junk_values, st.sampled_from(["place", "pair", "move", "help", "_tick"])),
            max_size=4,
        ),
    ),
)
def test_normalize_accepts_only_the_schema(cls, action):
    """Arbitrary input: a malformed-action code, or a normal form that is its own normal form."""
    try:
        normal = cls.normalize(action)
    except GameError as err:
        assert isinstance(err, InvalidMove) and err.code in INVALID
        return
    spec = cls.actions[normal["do"]]
    assert normal["do"] == action["do"]
    assert set(normal) <= {"do", *(f.name for f in spec.fields)}
    assert cls.normalize(normal) == normal
    msgpack.packb(normal)


# -- the standard refusals, the same in every game ------------------------------------------


@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.name)
def test_the_standard_refusals(cls):
    for action, code in [
        ([], GameCode.UNKNOWN_ACTION),
        ("help", GameCode.UNKNOWN_ACTION),
        ({}, GameCode.UNKNOWN_ACTION),
        ({"do": "fly"}, GameCode.UNKNOWN_ACTION),
        ({"do": 3}, GameCode.UNKNOWN_ACTION),
        ({"do": "_tick"}, GameCode.UNKNOWN_ACTION),  # the room's own, never a player's
        ({"do": "_start"}, GameCode.UNKNOWN_ACTION),
        ({"x": 1}, GameCode.MISSING_FIELD),
    ]:
        err = refusal(cls.normalize, action)
        assert isinstance(err, InvalidMove) and err.code == code, action
        game = copy.deepcopy(STARTS[cls.name])
        assert refusal(game.act, game.to_move, action, 1.0).code == code


@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.name)
def test_a_flood_is_refused_without_being_echoed(cls):
    do = next(iter(cls.actions))
    err = refusal(cls.normalize, {"do": do, "junk": "x" * 65536})
    assert err.code == GameCode.BAD_FIELD and "'junk'" in err.message
    err = refusal(cls.normalize, {"do": do, "x" * 65536: 1})
    assert len(err.message) < 2 * QUOTE_LIMIT
    err = refusal(cls.normalize, {"do": "y" * 65536})
    assert err.code == GameCode.UNKNOWN_ACTION and len(err.message) < 2 * QUOTE_LIMIT


def finished(cls: type[Game]) -> Game:
    """A game of ``cls`` that is over, reached by its own rules."""
    game = copy.deepcopy(STARTS[cls.name])
    if "quit" in cls.actions:
        vote = {"vote": True} if "vote" in [f.name for f in cls.actions["quit"].fields] else {}
        for seat in range(game.seats):  # Mathable ends when every seat votes
            if game.status is Status.PLAYING:
                game.act(seat, {"do": "quit", **vote}, 1.0)
        return game
    while game.status is Status.PLAYING:  # Lines and Ishido: play the first legal move
        view = game.view(0)
        if cls.name == "ishido":
            game.act(0, {"do": "place", "at": view["legal"][0]}, 1.0)
            continue
        board = view["board"]
        chips = [[r, c] for r, row in enumerate(board) for c, v in enumerate(row) if v]
        empty = [[r, c] for r, row in enumerate(board) for c, v in enumerate(row) if not v]
        for src, dst in ((s, d) for s in chips for d in empty):
            try:
                game.act(0, {"do": "move", "from": src, "to": dst}, 1.0)
                break
            except GameError:
                continue
    return game


@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.name)
def test_a_finished_game_refuses_every_action_as_over(cls):
    game = finished(cls)
    assert game.status is Status.OVER
    for spec in cls.actions.values():
        action = {"do": spec.do, **{f.name: example(f) for f in spec.fields if f.required}}
        for seat in range(game.seats):
            assert refusal(game.act, seat, action, 2.0).code == GameCode.GAME_OVER


def example(f: ActionField) -> Any:
    return {
        FieldKind.CELL: [0, 0],
        FieldKind.INT: f.lo,
        FieldKind.BOOL: True,
        FieldKind.INTS: [f.lo] * max(1, f.min_items),
    }[f.kind]


# -- fields, one by one ----------------------------------------------------------------


CELL = cell_field("at", 8, 12, "a square")
TILE = int_field("tile", 0, 90, "a tile")
VOTE = flag_field("vote", "a vote", required=False)
TILES = ints_field("tiles", 0, 90, (1, 7), "tiles")


@pytest.mark.parametrize(
    ("value", "normal"),
    [([0, 0], [0, 0]), ((7, 11), [7, 11]), ([3, 4], [3, 4]), (range(2), [0, 1])],
)
def test_cells_come_out_as_two_lists_of_ints(value, normal):
    assert CELL.normalize(value) == normal and type(CELL.normalize(value)) is list


@pytest.mark.parametrize("value", [[8, 0], [0, 12], [-1, 0]])
def test_cells_off_the_board_are_bad_cell(value):
    err = refusal(CELL.normalize, value)
    assert isinstance(err, InvalidMove) and err.code == GameCode.BAD_CELL


@pytest.mark.parametrize(
    "value", [[1], [1, 2, 3], "a1", b"ab", [True, 0], [1.0, 2], None, 5, {"r": 1, "c": 2}]
)
def test_cells_of_the_wrong_type_are_bad_field(value):
    """Issue 42: a square that is not two integers is a field of the wrong type, as
    PROTOCOL.md says of every field (it was ``bad_cell``)."""
    err = refusal(CELL.normalize, value)
    assert isinstance(err, InvalidMove) and err.code == GameCode.BAD_FIELD


def test_ints_bools_and_lists():
    assert TILE.normalize(90) == 90 and VOTE.normalize(False) is False
    assert TILES.normalize((1, 2)) == [1, 2]
    for field, bad in [
        (TILE, 91),
        (TILE, -1),
        (TILE, True),
        (TILE, "7"),
        (TILE, 7.0),
        (VOTE, 1),
        (VOTE, "yes"),
        (TILES, []),
        (TILES, [1] * 8),
        (TILES, [1, "x"]),
        (TILES, [91]),
        (TILES, "x"),
    ]:
        err = refusal(field.normalize, bad)
        assert err.code == GameCode.BAD_FIELD and repr(field.name) in err.message, (field, bad)


def test_an_action_keeps_only_its_declared_fields_in_order():
    spec = ActionSpec(do="place", handler=lambda *_: [], fields=(TILE, CELL, VOTE), doc="")
    assert spec.normalize({"at": (1, 2), "do": "place", "tile": 5}) == {
        "do": "place",
        "tile": 5,
        "at": [1, 2],
    }
    assert list(spec.normalize({"do": "place", "at": [1, 2], "tile": 5, "vote": None})) == [
        "do",
        "tile",
        "at",
    ]
    assert refusal(spec.normalize, {"do": "place", "tile": 5}).code == GameCode.MISSING_FIELD
    # null is as good as left out, for a required field too (issue 30: as the pages say)
    null = refusal(spec.normalize, {"do": "place", "tile": 5, "at": None})
    assert null.code == GameCode.MISSING_FIELD


def test_schemas_that_cannot_work_are_refused_when_declared():
    with pytest.raises(ValueError):
        cell_field("at", 0, 12, "")
    with pytest.raises(ValueError):
        int_field("do", 0, 1, "")
    with pytest.raises(ValueError):
        int_field("n", 2, 1, "")
    with pytest.raises(ValueError):
        ActionSpec(do="_tick", handler=lambda *_: [], doc="")
    with pytest.raises(ValueError):
        ActionSpec(do="x", handler=lambda *_: [], fields=(TILE, TILE), doc="")
    spec = ActionSpec(do="x", handler=lambda *_: [], doc="")
    with pytest.raises(ValueError):
        action_table(spec, spec)


# -- the schema on the wire ------------------------------------------------------------------


@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.name)
def test_describe_lists_every_action_with_its_fields(cls):
    described = cls.describe()["actions"]
    assert [a["do"] for a in described] == list(cls.actions)
    for entry, spec in zip(described, cls.actions.values(), strict=True):
        assert entry["turn"] is spec.turn and entry["doc"]
        assert [f["name"] for f in entry["fields"]] == [f.name for f in spec.fields]
        for f in entry["fields"]:
            assert f["kind"] in set(FieldKind) and isinstance(f["required"], bool)
            if f["kind"] == "cell":
                assert f["rows"] > 0 and f["cols"] > 0
            if f["kind"] in ("int", "ints"):
                assert f["min"] <= f["max"]
    welcome = {"t": "welcome", "v": 1, "player": "p", "token": "t", "games": [cls.describe()]}
    assert check({**welcome, "rooms": [], "limits": {}, "compact": False})["games"] == [
        cls.describe()
    ]
    assert msgpack.unpackb(msgpack.packb(cls.describe())) == cls.describe()


OPTIONS = [(cls, option) for cls in GAMES for option in cls.options]


@pytest.mark.parametrize(("cls", "option"), OPTIONS, ids=[f"{c.name}.{o.name}" for c, o in OPTIONS])
def test_every_option_has_a_label_of_words_not_its_name(cls, option):
    """The clients show the label beside the form field and in a room's summary
    ("Stand-in after (s) 120"): a label that is the wire name with spaces
    ("standin after", "Four way") would bring the old words back."""
    label = option.label
    assert label == label.strip() and "_" not in label, label
    assert label.casefold() != option.name.replace("_", " ").casefold(), label
    assert label[0].isupper() or label[0].isdigit(), f"{label!r}: sentence case"
    assert label[1:] == label[1:].lower(), f"{label!r}: sentence case"
    assert len(label) <= 20, f"{label!r}: too long for a form's key column"
    entry = next(o for o in cls.describe()["options"] if o["name"] == option.name)
    assert entry["label"] == label


def test_an_option_without_a_label_is_refused():
    from tilehall.server.games.base import Option

    with pytest.raises(TypeError):
        Option(name="x", kind="bool", default=False, doc="d")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="no label"):
        Option(name="x", kind="bool", default=False, doc="d", label=" ")


def test_mathable_declares_its_bounds():
    place, exchange, quit_ = (
        {f["name"]: f for f in a["fields"]}
        for a in find("mathable").describe()["actions"]
        if a["do"] in ("place", "exchange", "quit")
    )
    assert place["tile"] == {
        "name": "tile",
        "kind": "int",
        "min": 0,
        "max": 90,
        "required": True,
        "doc": "a tile of the rack",
    }
    assert (place["at"]["rows"], place["at"]["cols"]) == (14, 14)
    assert (exchange["tiles"]["min_items"], exchange["tiles"]["max_items"]) == (1, 7)
    assert quit_["vote"]["required"] is False
    assert [a["turn"] for a in find("mathable").describe()["actions"]] == [True] * 5 + [False]


def find(name: str) -> type[Game]:
    return next(cls for cls in GAMES if cls.name == name)


def schema_rows(cls: type[Game]) -> list[str]:
    """The rows ``protocol/games/<game>.md`` must show for the game's schema."""
    to = "\N{EN DASH}"  # the pages write ranges with an en dash
    rows = []
    for a in cls.describe()["actions"]:
        if not a["fields"]:
            rows.append(f"| `{a['do']}` | \N{EM DASH} |")
        for f in a["fields"]:
            if f["kind"] == "cell":
                kind = f"`[row, col]` | row 0{to}{f['rows'] - 1}, col 0{to}{f['cols'] - 1}"
            elif f["kind"] == "int":
                kind = f"int | {f['min']}{to}{f['max']}"
            elif f["kind"] == "bool":
                kind = "bool | `true` or `false`"
            else:
                items = f"{f['min_items']}{to}{f['max_items']} items"
                kind = f"list of int | {items}, each {f['min']}{to}{f['max']}"
            required = "yes" if f["required"] else "no"
            rows.append(f"| `{a['do']}` | `{f['name']}` | {kind} | {required} |")
    return rows


@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.name)
def test_the_game_page_documents_the_schema(cls):
    page = Path(__file__).resolve().parents[2] / "protocol" / "games" / f"{cls.name}.md"
    section = page.read_text().split("\n## Action schema\n", 1)[1].split("\n## ", 1)[0]
    for row in schema_rows(cls):
        assert row in section, row
