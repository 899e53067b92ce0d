"""The protocol as an AsyncAPI 3.0 document: one WebSocket channel, its two directions.

``protocol/asyncapi.yaml`` is this module's output (written by ``python -m
tilehall.protocol.jsonschema`` with the JSON Schema it refers to), checked in
and tested like it. Each message's payload is a ``$ref`` into
``tilehall.schema.json``: the fields are said once, there.

The document describes the server: it *receives* the frames clients send and
*sends* the others. Pure: no I/O.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from tilehall.protocol.jsonschema import SCHEMA_FILE
from tilehall.protocol.schema import CLIENT_MESSAGES, SERVER_MESSAGES, VERSION, MessageSpec

__all__ = ["ASYNCAPI_FILE", "build", "dump"]

ASYNCAPI_FILE = "asyncapi.yaml"
SCHEMA_FORMAT = "application/schema+json;version=2020-12"
CONTENT_TYPE = "application/msgpack"


def _message(side: str, spec: MessageSpec) -> dict[str, Any]:
    return {
        "name": spec.t,
        "title": f"{spec.t} ({side})",
        "summary": spec.doc,
        "contentType": CONTENT_TYPE,
        "payload": {
            "schemaFormat": SCHEMA_FORMAT,
            "schema": {"$ref": f"{SCHEMA_FILE}#/$defs/{side}.{spec.t}"},
        },
    }


def build(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The AsyncAPI document whose messages refer to ``schema``'s ``$defs``."""
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
        "asyncapi": "3.0.0",
        "info": {
            "title": "Tilehall",
            "version": str(VERSION),
            "description": (
                "An authoritative game server for tile and board games. One WebSocket per"
                " client; every frame is one binary message holding one msgpack map whose"
                " `t` names it. The fields of each message are in tilehall.schema.json"
                " (generated from the same tables as this document); the prose reference is"
                " PROTOCOL.md."
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
        "components": {"messages": messages},
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
    head = "# Generated by `python -m tilehall.protocol.jsonschema`: do not edit by hand.\n"
    return head + "\n".join(_lines(document, 0)) + "\n"
