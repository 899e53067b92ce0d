"""PROTOCOL.md is the reference: every message documented, every example valid."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tilehall.protocol import (
    CLIENT_MESSAGES,
    SERVER_MESSAGES,
    ErrorCode,
    Field,
    Kind,
    check,
    decode,
    encode,
)

DOC = (Path(__file__).resolve().parents[2] / "protocol" / "PROTOCOL.md").read_text()
BLOCKS = re.findall(r"```json (client|server)\n(.*?)```", DOC, re.S)


def test_there_are_examples():
    assert len(BLOCKS) >= len(CLIENT_MESSAGES) + len(SERVER_MESSAGES)


@pytest.mark.parametrize(("side", "text"), BLOCKS)
def test_every_example_passes_the_schema(side, text):
    msg = json.loads(text)
    if side == "client":
        assert decode(encode(msg)) == msg
    else:
        assert check(msg) == msg


def test_every_message_has_an_example():
    client = {json.loads(t)["t"] for s, t in BLOCKS if s == "client"}
    server = {json.loads(t)["t"] for s, t in BLOCKS if s == "server"}
    assert client == set(CLIENT_MESSAGES)
    assert server == set(SERVER_MESSAGES)


def test_every_error_code_is_documented():
    for code in ErrorCode:
        assert f"| `{code.value}` |" in DOC, code


def test_every_game_has_a_page():
    from tilehall.server.games import all_games

    for game in all_games():
        page = Path(__file__).resolve().parents[2] / "protocol" / "games" / f"{game.name}.md"
        assert page.exists(), page
        assert f"games/{game.name}.md" in DOC
        for option in game.options:
            assert f"`{option.name}`" in page.read_text(), (game.name, option.name)
            assert f"| {option.label} " in page.read_text(), (game.name, option.label)


def test_the_documented_patch_turns_the_documented_view_into_the_result():
    from tilehall.protocol.patch import apply, diff

    [view] = re.findall(r"```json view\n(.*?)```", DOC, re.S)
    [patch] = re.findall(r"```json patch\n(.*?)```", DOC, re.S)
    [result] = re.findall(r"```json result\n(.*?)```", DOC, re.S)
    view, patch, result = json.loads(view), json.loads(patch), json.loads(result)
    assert apply(view, patch) == result
    assert apply(view, diff(view, result)) == result


def test_the_documented_events_by_name_expand_to_the_documented_events():
    """The compact update example, read after the joined example that carries ``derived``."""
    from tilehall.protocol.patch import apply, expand_events

    examples = [json.loads(t) for side, t in BLOCKS if side == "server"]
    [joined] = [m for m in examples if m["t"] == "joined" and "derived" in m]
    [update] = [m for m in examples if m["t"] == "update" and "patch" in m]
    [events] = re.findall(r"```json events\n(.*?)```", DOC, re.S)
    view = apply(joined["view"], update["patch"])
    assert any(isinstance(e, str) for e in update["events"])
    assert expand_events(update["events"], view, joined["derived"]) == json.loads(events)


def test_each_game_page_gives_the_templates_of_its_events_by_name():
    from tilehall.server.games import all_games

    for game in all_games():
        page = Path(__file__).resolve().parents[2] / "protocol" / "games" / f"{game.name}.md"
        blocks = re.findall(r"```json derived\n(.*?)```", page.read_text(), re.S)
        want = {
            name: {field: None if path is None else list(path) for field, path in fields.items()}
            for name, fields in game.derived_events.items()
        }
        assert [json.loads(b) for b in blocks] == ([want] if want else []), game.name


# -- the field tables say what the codec checks (issue 42) ------------------------------------

_KINDS = {
    Kind.STR: "str",
    Kind.INT: "int",
    Kind.NUM: "float",
    Kind.BOOL: "bool",
    Kind.MAP: "map",
    Kind.LIST: "list",
    Kind.ANY: "any",
}


DASH = "\u2013"
"""The pages' en dash between two bounds (1\u201364)."""


def _number(n: int) -> str:
    return "2^53" if n == 2**53 else str(n)


def documented_type(f: Field) -> str:
    """The type column a client message's field table gives ``f``: its kind, its bounds or
    choices, the code of a value out of them when it is not ``out_of_range``, nil, optional."""
    out = _KINDS[f.kind]
    if f.choices:
        shown = [f"`{c}`" for c in f.choices]
        out += ": " + (shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1])
    elif f.hi is not None:
        unit = {Kind.LIST: " items", Kind.MAP: " fields"}.get(f.kind, "")
        if f.lo is None:
            out += f" of at most {_number(f.hi)}{unit}"
        else:
            out += f" {_number(f.lo)}{DASH}{_number(f.hi)}{unit}"
    if f.code != ErrorCode.OUT_OF_RANGE:
        out += f" (`{f.code}`)"
    if f.nullable:
        out += " or nil"
    if not f.required:
        out += ", optional"
    return out


def _client_section(t: str) -> str:
    sent = DOC.split("## Messages a client sends", 1)[1].split("## Messages the server sends")[0]
    return sent.split(f"\n### {t}\n", 1)[1].split("\n### ", 1)[0]


def _table(section: str) -> dict[str, str]:
    rows = {}
    for names, kind in re.findall(r"^\| (`[^|]*`) \| ([^|]*) \|", section, re.M):
        for name in re.findall(r"`(\w+)`", names):
            rows[name] = kind.strip()
    return rows


@pytest.mark.parametrize("t", [t for t, spec in CLIENT_MESSAGES.items() if len(spec.fields) > 1])
def test_every_field_of_a_client_message_is_in_its_table_with_its_bounds(t):
    """Issue 42: bounds the server enforced were said only in the schema (``room`` at most 64,
    ``game`` 32, the cursors, ``history.player``, ``scores.table``, ``seq`` up to 2^53), and
    codes only in the server (nine seats were ``out_of_range`` where the page said
    ``bad_seats``). Each table now gives each field as schema.py has it."""
    table = _table(_client_section(t))
    expected = {f.name: documented_type(f) for f in CLIENT_MESSAGES[t].fields if f.name != "id"}
    assert {name: table.get(name) for name in expected} == expected


def test_the_type_column_is_read_as_written():
    """The table reader itself, on rows written as the pages write them."""
    section = f"| `room` / `code` | str 1{DASH}64, optional | exactly one |\n| `seq` | int | x |\n"
    assert _table(section) == {
        "room": f"str 1{DASH}64, optional",
        "code": f"str 1{DASH}64, optional",
        "seq": "int",
    }
    seats = CLIENT_MESSAGES["create"].field("seats")
    assert documented_type(seats) == f"list 1{DASH}8 items (`bad_seats`), optional"
