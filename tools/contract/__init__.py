"""The published contract: ``protocol/tilehall.schema.json`` and ``protocol/asyncapi.yaml``.

Both are generated from the tables the server validates with and the games it
finds (their action tables, view, event and result fields), and checked in, so
that programs in other languages can validate frames without reading Python.
Run from a checkout::

    python -m tools.contract            # write both files
    python -m tools.contract --check    # exit 1 if either is out of date

- :mod:`.jsonschema`: the JSON Schema (2020-12) of every frame;
- :mod:`.asyncapi`: the AsyncAPI 3.1 document, its payloads in draft-07;
- :mod:`.shapes`: what views, events and replies hold, as data.

The generator lives here, not in ``protocol/``: the protocol package a client
installs needs none of it, and imports nothing of the server.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from tools.contract import asyncapi, jsonschema

__all__ = ["PROTOCOL", "main"]

PROTOCOL = Path(__file__).resolve().parent.parent.parent / "protocol"
"""Where the contract is published: the checkout's ``protocol/``."""


def main(argv: Sequence[str] | None = None) -> int:
    """Write ``tilehall.schema.json`` and ``asyncapi.yaml`` in ``protocol/``.

    With ``--check``, write nothing: exit 1 if either file differs from what
    would be written.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    schema = jsonschema.build(jsonschema.describe_games())
    outputs = {
        PROTOCOL / jsonschema.SCHEMA_FILE: jsonschema.dump(schema),
        PROTOCOL / asyncapi.ASYNCAPI_FILE: asyncapi.dump(asyncapi.build(schema)),
    }
    stale = [p for p, text in outputs.items() if not p.exists() or p.read_text() != text]
    if "--check" in args:
        for path in stale:
            print(f"protocol/{path.name} is out of date: run python -m tools.contract")
        return 1 if stale else 0
    for path in stale:
        path.write_text(outputs[path], encoding="utf-8")
        print(f"wrote protocol/{path.name}")
    return 0
