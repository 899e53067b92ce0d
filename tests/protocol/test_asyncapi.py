"""protocol/asyncapi.yaml: generated, valid YAML, AsyncAPI 3 in shape, every $ref resolving."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
import yaml
from tilehall.protocol import CLIENT_MESSAGES, SERVER_MESSAGES

from tests.protocol import node
from tests.test_docs import links
from tools.contract import asyncapi
from tools.contract import jsonschema as generator

HERE = Path(__file__).resolve().parents[2] / "protocol"
DOCUMENT = yaml.safe_load((HERE / asyncapi.ASYNCAPI_FILE).read_text())
SCHEMA = json.loads((HERE / generator.SCHEMA_FILE).read_text())


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def _pointer(doc: Any, fragment: str) -> Any:
    """The value a JSON pointer names (RFC 6901), or KeyError."""
    node = doc
    for part in fragment.lstrip("/").split("/") if fragment else []:
        part = unquote(part).replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def resolve(ref: str) -> Any:
    """What a ``$ref`` of the AsyncAPI document names: in itself, or in the JSON Schema."""
    target, _, fragment = ref.partition("#")
    if target == "":
        return _pointer(DOCUMENT, fragment)
    if target == generator.SCHEMA_FILE:
        return _pointer(SCHEMA, fragment)
    raise KeyError(f"{ref}: neither this document nor {generator.SCHEMA_FILE}")


def test_the_checked_in_document_is_what_the_generator_makes_now():
    text = (HERE / asyncapi.ASYNCAPI_FILE).read_text()
    assert text == asyncapi.dump(asyncapi.build(SCHEMA)), (
        "protocol/asyncapi.yaml is out of date: run python -m tools.contract"
    )
    assert asyncapi.build(SCHEMA) == DOCUMENT  # YAML reads back what was written


def test_it_is_an_asyncapi_3_document_of_one_websocket_channel():
    assert DOCUMENT["asyncapi"] == "3.1.0"
    assert {"title", "version"} <= set(DOCUMENT["info"])
    assert DOCUMENT["defaultContentType"] == "application/msgpack"
    assert [s["protocol"] for s in DOCUMENT["servers"].values()] == ["ws"]
    [channel] = DOCUMENT["channels"].values()
    assert channel["address"] == "/"
    actions = sorted(op["action"] for op in DOCUMENT["operations"].values())
    assert actions == ["receive", "send"]


@pytest.mark.parametrize("ref", sorted(set(_refs(DOCUMENT))))
def test_every_ref_resolves(ref):
    assert resolve(ref) is not None


def test_the_operations_carry_every_message_of_their_side():
    by_action = {
        op["action"]: {resolve(resolve(m["$ref"])["$ref"])["name"] for m in op["messages"]}
        for op in DOCUMENT["operations"].values()
    }
    assert by_action["receive"] == set(CLIENT_MESSAGES)
    assert by_action["send"] == set(SERVER_MESSAGES)


def test_each_payload_is_its_message_in_the_json_schema():
    for name, message in DOCUMENT["components"]["messages"].items():
        assert message["contentType"] == "application/msgpack"
        payload = resolve(message["payload"]["schema"]["$ref"])
        assert payload["properties"]["t"] == {"const": message["name"]}, name


def test_a_ref_that_names_nothing_is_caught():
    with pytest.raises(KeyError):
        resolve("#/components/messages/client.nothing")
    with pytest.raises(KeyError):
        resolve(f"{generator.SCHEMA_FILE}#/$defs/nothing")
    with pytest.raises(KeyError):
        resolve("elsewhere.json#/x")


def test_protocol_md_links_both_files():
    targets = {t for _, t in links((HERE / "PROTOCOL.md").read_text())}
    assert {generator.SCHEMA_FILE, asyncapi.ASYNCAPI_FILE} <= targets


def test_the_yaml_writer_reads_back_what_it_was_given():
    value = {
        "yes": "a key YAML 1.1 reads as true",
        "a b": [1, 2.5, None, True, {"c": "d", "e": [{"f": []}]}, [], {}],
        'quote"d': "line\nbreak: and # not a comment",
        "ünï": "çödé",
        "$ref": "#/x",
    }
    assert yaml.safe_load(asyncapi.dump(value)) == value


# -- AsyncAPI's own parser, from the npm registry (issue 42) ----------------------------------


def _errors(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [d for d in report["diagnostics"] if d["severity"] == 0]


@pytest.mark.slow
def test_asyncapis_parser_checks_the_payloads_and_fails_on_one_broken_on_purpose(tmp_path):
    """The parser (what ``asyncapi validate`` runs) reads the document with no diagnostic at
    all, and refuses it once a payload is broken: published as 2020-12, the payloads were
    skipped, and a copy with two errors in them passed with none (issue 42)."""
    report = node.run("asyncapi_check.mjs", HERE / asyncapi.ASYNCAPI_FILE)
    assert report == {"parsed": True, "diagnostics": []}

    broken = copy.deepcopy(DOCUMENT)
    schemas = broken["components"]["schemas"]
    schemas["client.hello"]["properties"]["v"]["type"] = "integr"  # no such type
    schemas["server.update"]["required"] = "seq"  # not a list
    (tmp_path / asyncapi.ASYNCAPI_FILE).write_text(asyncapi.dump(broken))
    report = node.run("asyncapi_check.mjs", tmp_path / asyncapi.ASYNCAPI_FILE)
    errors = _errors(report)
    assert errors, report
    where = " ".join("/".join(map(str, e["path"])) for e in errors)
    assert "client.hello" in where and "server.update" in where, errors
