"""protocol/tilehall.schema.json: generated, up to date, right about the documented frames.

The suite's conftest checks every frame of every test against the same file
(tests/helpers.py, ``FrameCheck``); here the schema itself is tested: the
checked-in file is what the tables make now, every example of PROTOCOL.md and
of the game pages passes it, and frames broken on purpose (a wrong type, an
unknown ``t``, a missing required field) do not.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from tilehall.protocol import CLIENT_MESSAGES, SERVER_MESSAGES, Kind, encode
from tilehall.server.games import all_games

from tests.helpers import FrameCheck, FrameSchema, Raw, frame_schema
from tests.protocol import node
from tools import contract
from tools.contract import jsonschema as generator
from tools.contract import shapes

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "protocol" / "PROTOCOL.md").read_text()
BLOCKS = [
    (side, json.loads(text))
    for side, text in re.findall(r"```json (client|server)\n(.*?)```", DOC, re.S)
]
GAME_PAGES = {
    game.name: (ROOT / "protocol" / "games" / f"{game.name}.md").read_text() for game in all_games()
}
SCHEMA = frame_schema()


def _ok(side: str, msg: Any) -> bool:
    return SCHEMA.problem(side, msg) is None


def _json_objects(text: str, start: str) -> list[Any]:
    """Every JSON value of ``text`` that starts with ``start`` and parses (cut ones do not)."""
    decoder = json.JSONDecoder()
    found = []
    for m in re.finditer(re.escape(start), text):
        try:
            found.append(decoder.raw_decode(text[m.start() :])[0])
        except ValueError:
            continue
    return found


# -- the file is the generator's --------------------------------------------------------------


def test_the_checked_in_schema_is_what_the_tables_make_now():
    games = generator.describe_games()
    text = (ROOT / "protocol" / generator.SCHEMA_FILE).read_text()
    assert text == generator.dump(generator.build(games)), (
        "protocol/tilehall.schema.json is out of date: run python -m tools.contract"
    )


def test_the_generator_check_mode_agrees():
    assert contract.main(["--check"]) == 0


def test_the_schema_is_a_valid_2020_12_schema():
    from jsonschema import Draft202012Validator

    doc = json.loads((ROOT / "protocol" / generator.SCHEMA_FILE).read_text())
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(doc)


def test_every_message_and_action_has_its_definition():
    defs = SCHEMA.document.schema["$defs"]
    assert {f"client.{t}" for t in CLIENT_MESSAGES} <= set(defs)
    assert {f"server.{t}" for t in SERVER_MESSAGES} <= set(defs)
    for game in all_games():
        assert {f"action.{game.name}.{do}" for do in game.actions} <= set(defs)


# -- what the docs show passes ----------------------------------------------------------------


@pytest.mark.parametrize(("side", "msg"), BLOCKS, ids=[f"{s}-{m['t']}" for s, m in BLOCKS])
def test_every_protocol_example_passes(side, msg):
    assert SCHEMA.problem(side, msg) is None
    assert SCHEMA.document.is_valid(msg)  # the document itself: a frame of either side


def test_the_compact_examples_pass():
    [view] = re.findall(r"```json view\n(.*?)```", DOC, re.S)
    [patch] = re.findall(r"```json patch\n(.*?)```", DOC, re.S)
    [events] = re.findall(r"```json events\n(.*?)```", DOC, re.S)
    update = {"t": "update", "room": "r1", "seq": 2, "events": json.loads(events)}
    assert _ok("server", {**update, "view": json.loads(view)})
    assert _ok("server", {**update, "patch": json.loads(patch)})


@pytest.mark.parametrize("game", sorted(GAME_PAGES))
def test_every_view_example_of_a_game_page_passes(game):
    views = _json_objects(GAME_PAGES[game], '{\n  "game"') + _json_objects(
        GAME_PAGES[game], '{"game"'
    )
    assert views, game
    for view in views:
        assert _ok("server", {"t": "joined", "room": "r1", "seat": 0, "seq": 3, "view": view}), view


@pytest.mark.parametrize("game", sorted(GAME_PAGES))
def test_every_whole_view_example_of_a_game_page_has_every_field(game):
    """A view example not shortened with "..." shows every field a real view carries (issue
    30: an outside client took the Ishido, Lines and Match-It examples, without ``undos``, as
    whole). The schema alone lets fields out, as PROTOCOL.md's examples shorten views."""
    views = _json_objects(GAME_PAGES[game], '{\n  "game"') + _json_objects(
        GAME_PAGES[game], '{"game"'
    )
    whole = [v for v in views if '"..."' not in json.dumps(v) and v.get("status") != "waiting"]
    assert whole, game
    needed = [f for f, shape in shapes.GAME_VIEWS[game].items() if not shape.startswith("opt ")]
    for view in whole:
        missing = [f for f in needed if f not in view]
        assert missing == [], (game, missing)


@pytest.mark.parametrize("game", sorted(GAME_PAGES))
def test_every_event_example_of_a_game_page_passes(game):
    events = _json_objects(GAME_PAGES[game], '{"e": ')
    assert events, game
    for event in events:
        assert _ok(
            "server", {"t": "update", "room": "r1", "seq": 3, "events": [event], "patch": []}
        ), event


@pytest.mark.parametrize("game", sorted(GAME_PAGES))
def test_every_action_example_of_a_game_page_passes(game):
    actions = [
        a for a in _json_objects(GAME_PAGES[game], '{"do": ') if a["do"] in find(game).actions
    ]
    assert actions, game
    for action in actions:
        assert _ok("client", {"t": "act", "room": "r1", "action": action}), action


def find(name: str) -> Any:
    return next(g for g in all_games() if g.name == name)


@pytest.mark.parametrize("game", sorted(GAME_PAGES))
def test_the_view_table_of_each_game_page_names_the_shapes_fields(game):
    """The game's view fields and its page's View table list the same fields."""
    section = GAME_PAGES[game].split("\n## View", 1)[1].split("\n## ", 1)[0]
    documented = set()
    for row in re.findall(r"^\| (`[^|]*) \|", section, re.M):
        documented |= set(re.findall(r"`(\w+)`", row))
    assert documented == set(shapes.GAME_VIEWS[game])


# -- every example of every page, whatever it shows (issue 42) -----------------------------------


def _def(name: str) -> Any:
    """A validator of one definition of the schema (msgpack's integers, as FrameSchema's)."""
    doc = SCHEMA.document.schema
    return type(SCHEMA.document)(
        {"$schema": doc["$schema"], "$defs": doc["$defs"], "$ref": f"#/$defs/{name}"}
    )


def _values(text: str) -> list[Any]:
    """Every JSON value of a block, one after another; a block that is anything else (cut with
    "...", say) fails: an example is whole, or it is no example a client can check."""
    decoder, values, at = json.JSONDecoder(), [], 0
    text = text.strip()
    while at < len(text):
        value, at = decoder.raw_decode(text, at)
        values.append(value)
        while at < len(text) and text[at].isspace():
            at += 1
    return values


def _blocks(text: str) -> list[tuple[str, str]]:
    return re.findall(r"```json([^\n]*)\n(.*?)```", text, re.S)


def _example_of(game: str | None, tag: str, value: Any) -> tuple[str, Any]:
    """The definition an example is one of, and the value to check against it."""
    tag = tag.strip()
    if tag in ("client", "server"):
        return tag, value
    if tag in ("view", "result"):
        return "view", value
    if tag == "patch":
        return "patch", value
    if tag == "events":
        return "event_item", value
    if tag == "derived":
        return "derived", value
    assert tag == "" and game is not None, (tag, value)
    if isinstance(value, list):
        return f"event_item.{game}", value
    if "game" in value:
        return f"view.{game}", value
    if "e" in value:
        return f"event.{game}", value
    if "do" in value:
        return f"act.{game}", {"t": "act", "room": "r1", "action": value}
    raise AssertionError(f"an example of nothing known: {value}")


EXAMPLES = [
    pytest.param(page, tag, value, id=f"{page}-{n}")
    for page, text in [("PROTOCOL", DOC), *GAME_PAGES.items()]
    for n, (tag, block) in enumerate(_blocks(text))
    for value in (_values(block) if tag.strip() != "events" else [_values(block)[0]])
]


@pytest.mark.parametrize(("page", "tag", "value"), EXAMPLES)
def test_every_fenced_example_of_every_page_is_whole_and_passes(page, tag, value):
    """PROTOCOL.md's and every game page's examples, each against what it is an example of: a
    frame, a view, a patch, events, templates, a game's own view, event or action (issue 42:
    Mathable's view and LinkSame's shuffled board were cut with "...", and no test read them)."""
    game = None if page == "PROTOCOL" else page
    name, checked = _example_of(game, tag, value)
    items = checked if name == "event_item" else [checked]
    for item in items:
        errors = sorted(_def(name).iter_errors(item), key=str)
        assert errors == [], (name, item, errors[0].message if errors else "")


def _inline(text: str) -> list[Any]:
    """The JSON of every inline code span that is an event, an action or a compact event."""
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    found = []
    for span in re.findall(r"`([\[{][^`]*)`", prose):
        try:
            value = json.loads(span)
        except ValueError:
            continue  # a notation (`[row, col]`, `{"scores": [s], ...}`), not an example
        event_or_action = isinstance(value, dict) and bool({"e", "do"} & set(value))
        compact_event = isinstance(value, list) and bool(value) and isinstance(value[0], str)
        if event_or_action or compact_event:
            found.append(value)
    return found


@pytest.mark.parametrize("page", ["PROTOCOL", *sorted(GAME_PAGES)])
def test_every_inline_event_and_action_passes(page):
    text = DOC if page == "PROTOCOL" else GAME_PAGES[page]
    values = _inline(text)
    assert values, page
    for value in values:
        game = None if page == "PROTOCOL" else page
        if isinstance(value, list):
            name = f"event_item.{game}" if game else "event_item"
        elif "e" in value:
            name = f"event.{game}" if game else "event"
        else:
            name, value = f"act.{game}", {"t": "act", "room": "r1", "action": value}
        assert _def(name).is_valid(value), (name, value)


@pytest.mark.parametrize("game", sorted(GAME_PAGES))
def test_each_pages_templates_are_the_servers(game):
    """A page's ``json derived`` block is what a compact ``joined`` of that game carries."""
    pages = [
        v
        for tag, block in _blocks(GAME_PAGES[game])
        if tag.strip() == "derived"
        for v in _values(block)
    ]
    served = next(g["derived"] for g in generator.describe_games() if g["name"] == game)
    assert pages == ([served] if served else [])


# -- what breaks them does not pass -----------------------------------------------------------

_WRONG = {
    Kind.STR: 7,
    Kind.INT: "7",
    Kind.NUM: "7.5",
    Kind.BOOL: 1,
    Kind.MAP: [1],
    Kind.LIST: {"a": 1},
}


def _mutations(side: str, msg: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    spec = (CLIENT_MESSAGES if side == "client" else SERVER_MESSAGES)[msg["t"]]
    out = [
        ("unknown t", {**msg, "t": "no_such_message"}),
        ("no t", {k: v for k, v in msg.items() if k != "t"}),
    ]
    out.append(("t not a string", {**msg, "t": 3}))
    for f in spec.fields:
        if f.name in msg and f.kind in _WRONG:
            out.append((f"{f.name} of the wrong type", {**msg, f.name: _WRONG[f.kind]}))
        if f.name in msg and f.kind is Kind.STR:
            out.append((f"{f.name} as msgpack bin", {**msg, f.name: b"bytes"}))
        if f.required and f.name in msg:
            out.append((f"no {f.name}", {k: v for k, v in msg.items() if k != f.name}))
    return out


MUTATED = [
    pytest.param(side, why, bad, id=f"{side}-{msg['t']}-{why}")
    for side, msg in BLOCKS
    for why, bad in _mutations(side, msg)
]


@pytest.mark.parametrize(("side", "why", "bad"), MUTATED)
def test_a_frame_broken_on_purpose_is_rejected(side, why, bad):
    problem = SCHEMA.problem(side, bad)
    assert problem is not None, (why, bad)
    assert "schema:" in problem  # says where in the schema


def _fast_verdict(side: str, msg: Any) -> bool:
    try:
        SCHEMA.fast({side: msg})
    except Exception:
        return False
    return True


@pytest.mark.parametrize(
    ("side", "msg"), [(s, m) for s, m in BLOCKS] + [(p.values[0], p.values[2]) for p in MUTATED]
)
def test_the_fast_validator_agrees_with_the_reference(side, msg):
    """fastjsonschema reads a draft-07 translation: it must judge as jsonschema (2020-12) does."""
    reference = SCHEMA.validators[side].is_valid(msg)
    assert _fast_verdict(side, msg) == reference


def test_the_fast_validator_takes_no_integral_float_for_an_integer():
    assert SCHEMA.strict_integers  # else every such frame is read by the reference too
    ping = {"t": "ping", "id": 7.0}
    assert not _fast_verdict("client", ping)  # draft-07 alone would take 7.0
    assert SCHEMA.problem("client", ping) is not None
    assert _fast_verdict("server", {"t": "error", "code": "x", "message": "y", "retry_after": 1.0})


def test_there_are_mutations_of_each_kind():
    whys = [p.values[1] for p in MUTATED]
    assert sum("wrong type" in w for w in whys) > 50
    assert sum(w.startswith("no ") for w in whys) > 50
    assert sum(w == "unknown t" for w in whys) == len(BLOCKS)


@pytest.mark.parametrize(
    ("why", "action"),
    [
        ("an undeclared field", {"do": "place", "at": [4, 7], "junk": 1}),
        ("off the largest board", {"do": "place", "at": [40, 7]}),
        ("a cell of three", {"do": "place", "at": [4, 7, 1]}),
        ("a cell of floats", {"do": "place", "at": [4.0, 7.0]}),
        ("no such do in any game", {"do": "castle"}),
        ("no do", {"at": [4, 7]}),
        ("a missing required field", {"do": "move", "from": [0, 0]}),
    ],
)
def test_a_broken_action_is_rejected(why, action):
    assert not _ok("client", {"t": "act", "room": "r1", "action": action}), why


def test_exactly_one_of_is_kept():
    assert not _ok("client", {"t": "hello", "v": 1})
    assert not _ok("client", {"t": "hello", "v": 1, "name": "ada", "token": "x"})
    assert _ok("client", {"t": "hello", "v": 1, "name": "ada"})


def test_an_update_has_a_view_or_a_patch():
    update = {"t": "update", "room": "r1", "seq": 2, "events": []}
    assert not _ok("server", update)
    assert _ok("server", {**update, "patch": []})
    assert not _ok("server", {**update, "patch": [["?", [0], 1]]})


def test_unknown_fields_are_allowed_where_the_protocol_says_they_are_ignored():
    assert _ok("client", {"t": "ping", "id": 1, "newer": True})
    assert _ok("server", {"t": "pong", "re": 1, "newer": True})
    assert not _ok("client", {"t": "act", "room": "r1", "action": {"do": "help", "newer": 1}})


# -- the hook of the suite: real frames, checked ----------------------------------------------


async def test_the_hook_sees_the_frames_of_a_real_game(url, frames_match_the_schema):
    if frames_match_the_schema is None:
        pytest.skip("TILEHALL_FRAME_SCHEMA=0")
    ada = await Raw.open(url, "ada")
    room = (await ada.call({"t": "create", "game": "ishido"}))["room"]
    joined = await ada.call({"t": "join", "room": room})
    update = await ada.call({"t": "act", "room": room, "action": {"do": "help"}})
    assert update["t"] == "update", update
    await ada.close()
    assert frames_match_the_schema.frames >= 8
    assert frames_match_the_schema.problems == []

    check = FrameCheck(SCHEMA)
    broken = copy.deepcopy(joined)
    broken["view"]["pouch"] = "many"
    check.received(encode(broken))
    del update["seq"]
    check.received(encode(update))
    check.received(encode({**joined, "t": "jumped"}))
    assert len(check.problems) == 3, check.problems
    assert "'many' is not of type 'integer'" in check.problems[0]
    assert "view.ishido" in check.problems[0]  # the schema path
    assert "'seq' is a required property" in check.problems[1]
    assert "'jumped' is not one of" in check.problems[2]

    # What the schema leaves to the game pages: a real view or event lacking a field
    short = copy.deepcopy(joined)
    del short["view"]["pouch"]
    check.received(encode(short))
    update["seq"] = joined["seq"] + 1
    assert update["events"][0]["e"] == "help", update
    del update["events"][0]["points"]
    check.received(encode(update))
    assert "the ishido view lacks ['pouch']" in check.problems[3]
    assert "the ishido event 'help' lacks ['points']" in check.problems[4]


def test_a_sent_frame_the_schema_refuses_is_a_problem_only_if_the_server_takes_it(tmp_path):
    doc = copy.deepcopy(SCHEMA.document.schema)
    doc["$defs"]["client.ping"]["required"].append("seven")  # a schema stricter than the server
    (tmp_path / "strict.json").write_text(json.dumps(doc))
    check = FrameCheck(FrameSchema(tmp_path / "strict.json"))
    check.sent(encode({"t": "ping", "id": 7}))  # the server takes it: a problem
    check.sent(encode({"t": "act", "room": "r1", "action": {"do": "place", "at": [1, 2], "x": 1}}))
    check.sent(encode({"t": "join"}))  # refused by the codec too: sent on purpose
    check.sent(b"\xc1")  # not msgpack
    assert len(check.problems) == 1, check.problems
    assert "'seven' is a required property" in check.problems[0]
    assert "client.ping" in check.problems[0]


async def test_the_hook_sees_the_frames_of_a_house_without_sockets(house, frames_match_the_schema):
    if frames_match_the_schema is None:
        pytest.skip("TILEHALL_FRAME_SCHEMA=0")
    ada = await house.player("ada")
    room = await house.call(ada, {"t": "create", "game": "mathable", "seats": ["ada", "COMP"]})
    joined = await house.call(ada, {"t": "join", "room": room["room"]})
    assert joined["view"]["status"] == "playing"
    assert frames_match_the_schema.frames >= 6  # hello, welcome, create, created, join, joined
    assert frames_match_the_schema.problems == []


# -- Ajv, from the npm registry, in its strict mode (issue 42) ---------------------------------


def _json_able(value: Any) -> bool:
    """Whether ``value`` says the same in JSON: no bin, no ext, no integral float (JSON's
    ``1.0`` is an integer to Ajv, never to msgpack), string keys only."""
    if isinstance(value, float):
        return not value.is_integer()
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_able(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_json_able(v) for v in value)
    return value is None or isinstance(value, str | int | bool)


@pytest.mark.slow
def test_ajv_compiles_the_schema_in_its_strict_mode_without_a_warning(tmp_path):
    """Ajv 8 (Ajv2020) with ``strict: true`` refused the schema: 6 strictRequired, 8
    strictTypes (union types) and 1 strictTuples. It compiles now, and logs nothing."""
    assert node.run("ajv_check.mjs", ROOT / "protocol" / generator.SCHEMA_FILE) == {
        "error": None,
        "warnings": [],
        "verdicts": [],
    }
    # The check sees what it is for: the schema's old union type and open tuple again.
    for name, broken in [
        ("client.join", {"room": {"type": ["string", "integer"]}}),
        ("event_item", None),
    ]:
        doc = copy.deepcopy(SCHEMA.document.schema)
        if broken is None:
            doc["$defs"][name]["anyOf"].append(
                {"type": "array", "minItems": 1, "prefixItems": [{"type": "string"}]}
            )
        else:
            doc["$defs"][name]["properties"].update(broken)
        (tmp_path / "broken.json").write_text(json.dumps(doc))
        report = node.run("ajv_check.mjs", tmp_path / "broken.json")
        assert report["error"] is not None and "strict" in report["error"], (name, report)


async def _real_frames(url: str) -> list[tuple[str, Any]]:
    """Frames of real games: what a client sends and what the server answers and pushes."""
    frames: list[tuple[str, Any]] = []
    ada = await Raw.open(url, "Ada")

    async def call(msg: dict[str, Any]) -> dict[str, Any]:
        frames.append(("client", msg))
        reply = await ada.call(msg)
        frames.extend(("server", f) for f in [*ada.pushed, reply])
        ada.pushed.clear()
        return reply

    room = (await call({"t": "create", "game": "ishido"}))["room"]
    joined = await call({"t": "join", "room": room, "compact": True})
    for _ in range(3):
        await call({"t": "act", "room": room, "action": {"do": "help"}})
        at = (await call({"t": "join", "room": room}))["view"]["legal"][0]
        await call({"t": "act", "room": room, "action": {"do": "place", "at": at}})
    await call({"t": "act", "room": room, "action": {"do": "undo"}})
    await call({"t": "act", "room": room, "action": {"do": "place", "at": [99, 0]}})
    await call({"t": "act", "room": room, "action": {"do": "quit"}})
    mathable = (await call({"t": "create", "game": "mathable", "seats": ["Ada", "COMP"]}))["room"]
    await call({"t": "join", "room": mathable, "compact": True})
    for _ in range(4):
        await call({"t": "act", "room": mathable, "action": {"do": "end"}})
    await call({"t": "act", "room": mathable, "action": {"do": "quit"}})
    await call({"t": "replay", "room": room, "seq": 2})
    for msg in (
        {"t": "rooms"},
        {"t": "history"},
        {"t": "scores", "game": "ishido"},
        {"t": "leaderboard", "game": "mathable"},
        {"t": "chat", "room": room, "text": "gg"},
        {"t": "join", "room": joined["room"], "seq": 1},
    ):
        await call(msg)
    await ada.close()
    return frames


@pytest.mark.slow
async def test_ajv_judges_every_frame_as_the_reference_does(url, tmp_path):
    """Ajv (JavaScript, 2020-12) and jsonschema (Python, 2020-12, the suite's reference) agree
    on the pages' examples, the frames broken on purpose and the frames of real games."""
    frames = [(s, m) for s, m in BLOCKS]
    frames += [(p.values[0], p.values[2]) for p in MUTATED]
    real = await _real_frames(url)
    assert len({m["t"] for s, m in real if s == "server"}) >= 11  # 11 kinds of server frame
    frames = [(side, msg) for side, msg in frames + real if _json_able(msg)]
    (tmp_path / "frames.json").write_text(json.dumps(frames))
    report = node.run(
        "ajv_check.mjs", ROOT / "protocol" / generator.SCHEMA_FILE, tmp_path / "frames.json"
    )
    assert report["error"] is None and report["warnings"] == []
    reference = [
        SCHEMA.validators[side].is_valid(msg) and SCHEMA.document.is_valid(msg)
        for side, msg in frames
    ]
    assert len(report["verdicts"]) == len(frames)
    differ = [
        frames[i]
        for i, (a, b) in enumerate(zip(report["verdicts"], reference, strict=False))
        if a != b
    ]
    assert differ == []
    assert sum(reference) > 100 and not all(reference)
