"""The protocol as an AsyncAPI 3.1 document: one WebSocket channel, its two directions.

``protocol/asyncapi.yaml`` is this module's output (written by ``python -m
tools.contract`` with the JSON Schema it is made from), checked in and tested
like it.

Its payloads are the JSON Schema's definitions in JSON Schema draft-07, the
form AsyncAPI's own schema format extends, in ``components.schemas``: AsyncAPI's
tools (its parser, ``asyncapi validate``) have no reader for 2020-12 and skip a
payload they cannot read, so a payload published as 2020-12 was never checked
by them (issue 42). :func:`draft07` translates, and the test suite checks that
the translation judges frames as the 2020-12 schema does.

The document describes the server: it *receives* the frames clients send and
*sends* the others. Pure: no I/O.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from tilehall.protocol.schema import (
    CLIENT_MESSAGES,
    MAX_DEPTH,
    SERVER_MESSAGES,
    VERSION,
    MessageSpec,
)

__all__ = ["ASYNCAPI_FILE", "build", "draft07", "dump"]

ASYNCAPI_FILE = "asyncapi.yaml"
SCHEMA_FORMAT = "application/schema+json;version=draft-07"
CONTENT_TYPE = "application/msgpack"
SCHEMAS = "#/components/schemas/"
"""Where the payloads' definitions are, in the AsyncAPI document."""


def draft07(node: Any, refs: str = SCHEMAS) -> Any:
    """A JSON Schema 2020-12 (sub)schema as draft-07 says the same.

    ``prefixItems`` becomes draft-07's list form of ``items`` (this schema never
    has both); a ``$ref`` beside other keywords, which draft-07 reads alone,
    moves into an ``allOf``; ``#/$defs/NAME`` refers to ``refs + NAME``;
    ``$schema`` and ``$id`` go (the definitions stand in another document).

    Raises:
        ValueError: a schema with ``prefixItems`` and ``items`` both.
    """
    if isinstance(node, list):
        return [draft07(v, refs) for v in node]
    if not isinstance(node, Mapping):
        return node
    out = {k: draft07(v, refs) for k, v in node.items() if k not in ("$schema", "$id")}
    if isinstance(out.get("$ref"), str) and out["$ref"].startswith("#/$defs/"):
        out["$ref"] = refs + out["$ref"][len("#/$defs/") :]
    if "prefixItems" in out:
        if "items" in out:
            raise ValueError("prefixItems with items has no draft-07 form here")
        out["items"] = out.pop("prefixItems")
    if "$ref" in out and len(out) > 1 and "$defs" not in out:
        out["allOf"] = [*out.get("allOf", []), {"$ref": out.pop("$ref")}]
    return out


def _message(side: str, spec: MessageSpec) -> dict[str, Any]:
    return {
        "name": spec.t,
        "title": f"{spec.t} ({side})",
        "summary": spec.doc,
        "contentType": CONTENT_TYPE,
        "payload": {
            "schemaFormat": SCHEMA_FORMAT,
            "schema": {"$ref": f"{SCHEMAS}{side}.{spec.t}"},
        },
    }


def build(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The AsyncAPI document of ``schema``: its messages, and its ``$defs`` in draft-07."""
    sides = (("client", CLIENT_MESSAGES), ("server", SERVER_MESSAGES))
    messages = {
        f"{side}.{t}": _message(side, spec) for side, specs in sides for t, spec in specs.items()
    }
    missing = [m for m in messages if m not in schema["$defs"]]
    if missing:
        raise ValueError(f"the schema has no $defs for {missing}")
    channel_messages = {name: {"$ref": f"#/components/messages/{name}"} for name in messages}

    def refs(side: str) -> list[dict[str, str]]:
        return [
            {"$ref": f"#/channels/game/messages/{name}"}
            for name in messages
            if name.startswith(f"{side}.")
        ]

    return {
        "asyncapi": "3.1.0",
        "info": {
            "title": "Tilehall",
            "version": str(VERSION),
            "description": (
                "An authoritative game server for tile and board games. One WebSocket per"
                " client; every frame is one binary message holding one msgpack map whose"
                " `t` names it. Each payload is in components.schemas, JSON Schema draft-07"
                " made from tilehall.schema.json (2020-12; generated from the same tables);"
                " the prose reference is PROTOCOL.md. A client's frame nests at most"
                f" {MAX_DEPTH} levels in every field, read or not: components.schemas.client"
                " says so, once for every message."
            ),
        },
        "defaultContentType": CONTENT_TYPE,
        "servers": {
            "local": {
                "host": "127.0.0.1:8765",
                "protocol": "ws",
                "description": "The default address; wss when the host puts TLS in front.",
            },
        },
        "channels": {
            "game": {
                "address": "/",
                "title": "The game connection",
                "description": (
                    "Binary WebSocket messages, one msgpack map each; text frames are refused."
                    " A request's id comes back as re in its reply."
                ),
                "messages": channel_messages,
                "bindings": {"ws": {"method": "GET", "bindingVersion": "0.1.0"}},
            },
        },
        "operations": {
            "receiveClientFrame": {
                "action": "receive",
                "channel": {"$ref": "#/channels/game"},
                "summary": "A frame a client sends: a request, answered by its reply or error.",
                "messages": refs("client"),
            },
            "sendServerFrame": {
                "action": "send",
                "channel": {"$ref": "#/channels/game"},
                "summary": "A reply (with re), or a push: update, room, chat, error, reconnect.",
                "messages": refs("server"),
            },
        },
        "components": {"messages": messages, "schemas": draft07(schema["$defs"])},
    }


def _scalar(value: Any) -> str:
    # JSON's scalars are YAML's (a JSON string is a YAML double-quoted string).
    return json.dumps(value, ensure_ascii=False)


_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_RESERVED = {"true", "false", "null", "yes", "no", "on", "off", "y", "n"}
"""Words YAML 1.1 readers take for booleans or null: such a key stays quoted."""


def _key(key: str) -> str:
    """A key as it reads best: bare when YAML reads it back as that string, else quoted."""
    if _PLAIN.fullmatch(key) and key.lower() not in _RESERVED:
        return key
    return _scalar(key)


def _lines(value: Any, indent: int) -> list[str]:
    pad = "  " * indent
    out: list[str] = []
    if isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(item, Mapping | list) and item:
                out.append(f"{pad}{_key(key)}:")
                out += _lines(item, indent + 1)
            else:
                out.append(f"{pad}{_key(key)}: {_inline(item)}")
    else:
        for item in value:
            if isinstance(item, Mapping | list) and item:
                first, *rest = _lines(item, indent + 1)
                out.append(f"{pad}- {first.lstrip()}")
                out += rest
            else:
                out.append(f"{pad}- {_inline(item)}")
    return out


def _inline(value: Any) -> str:
    if isinstance(value, Mapping):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return _scalar(value)


def dump(document: Mapping[str, Any]) -> str:
    """The document as YAML: block style, strings quoted as JSON quotes them."""
    head = "# Generated by `python -m tools.contract`: do not edit by hand.\n"
    return head + "\n".join(_lines(document, 0)) + "\n"
