"""PROTOCOL.md is the reference: every message documented, every example valid."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tilehall.protocol import CLIENT_MESSAGES, SERVER_MESSAGES, ErrorCode, check, decode, encode

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
