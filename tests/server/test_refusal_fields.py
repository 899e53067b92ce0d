"""A game's refusal names what it is about as fields (``cells``, ``tiles``), over a real
WebSocket: a client words them the board's way instead of quoting the message."""

from __future__ import annotations

from tilehall.clients.words import error_text

from tests.helpers import Raw


async def test_refusals_carry_their_squares_and_tiles(url):
    ada = await Raw.open(url, "Ada")
    room = (await ada.call({"t": "create", "game": "ishido"}))["room"]
    view = (await ada.call({"t": "join", "room": room}))["view"]
    board = view["board"]
    r, c = next((r, c) for r, row in enumerate(board) for c, s in enumerate(row) if s is not None)
    refused = await ada.call({"t": "act", "room": room, "action": {"do": "place", "at": [r, c]}})
    assert refused["t"] == "error" and refused["code"] == "occupied"
    assert refused["cells"] == [[r, c]] and refused["tiles"] == [board[r][c]]
    said = error_text(
        refused["code"], refused["message"], game="ishido", cells=refused["cells"],
        tiles=refused["tiles"],
    )  # fmt: skip
    assert said.startswith(f"square {'abcdefghijkl'[c]}{r + 1} already holds the ")
    assert "[" not in said

    sheet = (await ada.call({"t": "create", "game": "matchit"}))["room"]
    tiles = (await ada.call({"t": "join", "room": sheet}))["view"]["board"]
    cells = [(r, c) for r, row in enumerate(tiles) for c, t in enumerate(row) if t is not None]
    kind = {cell: tiles[cell[0]][cell[1]] for cell in cells}
    # two suit tiles of different kinds (they match only their own kind; flowers match flowers)
    a, b = next(
        (a, b) for a in cells for b in cells if kind[a] < 27 and kind[b] < 27 and kind[a] != kind[b]
    )
    pair = {"do": "pair", "a": list(a), "b": list(b)}
    refused = await ada.call({"t": "act", "room": sheet, "action": pair})
    assert refused["code"] == "no_match"
    assert refused["cells"] == [list(a), list(b)] and refused["tiles"] == [kind[a], kind[b]]
    said = error_text("no_match", refused["message"], game="matchit", **_about(refused))
    assert said.endswith("do not match") and " of " in said and "[" not in said
    same = await ada.call({"t": "act", "room": sheet, "action": {**pair, "b": list(a)}})
    assert same["code"] == "same_cell" and same["cells"] == [list(a)] and "tiles" not in same
    await ada.close()


def _about(frame: dict) -> dict:
    return {"cells": frame.get("cells"), "tiles": frame.get("tiles")}
