"""The client-side model and the text helpers, without a server."""

from __future__ import annotations

from tilehall.clients.cli.games.generic import format_view
from tilehall.clients.cli.lobby import seats_text
from tilehall.clients.cli.look import cell_name
from tilehall.clients.model import LobbyModel, RoomModel


def joined(seq: int = 3, **view: object) -> dict:
    return {"t": "joined", "room": "r1", "seat": 0, "seq": seq, "view": {"game": "x", **view}}


def update(seq: int, **view: object) -> dict:
    return {
        "t": "update",
        "room": "r1",
        "seq": seq,
        "events": [{"e": "n", "seq": seq}],
        "view": {"game": "x", **view},
    }


def test_updates_replace_the_view_and_stale_ones_are_dropped():
    model = RoomModel.from_joined(joined(3, n=3))
    assert model.apply(update(4, n=4)) and model.view["n"] == 4
    assert model.events == [{"e": "n", "seq": 4}]
    assert not model.apply(update(4, n=99)) and model.view["n"] == 4  # a duplicate
    assert not model.apply(update(2, n=2))  # overtaken by a rejoin snapshot
    assert not model.apply({**update(5, n=5), "room": "other"})
    rejoined = {
        **joined(7, n=7),
        "t": "_rejoined",
        "missed": [{"seq": 6, "events": [{"e": "a"}]}, {"seq": 7, "events": [{"e": "b"}]}],
    }
    assert model.apply(rejoined) and model.view["n"] == 7
    assert [e["e"] for e in model.events] == ["a", "b"]


def test_names_come_from_room_pushes():
    model = RoomModel.from_joined(joined(0, scores=[0, 0, 0]))
    assert model.names() == ["seat 1", "seat 2", "seat 3"]
    model.apply(
        {
            "t": "room",
            "room": "r1",
            "game": "x",
            "spectators": 2,
            "status": "playing",
            "options": {},
            "private": False,
            "seats": [
                {"name": "ada", "bot": False, "taken": True, "connected": True},
                {"name": "COMP", "bot": True, "taken": True, "connected": True},
                {"name": None, "bot": False, "taken": False, "connected": False},
            ],
        }
    )
    assert model.names() == ["ada", "COMP", "(free)"]
    model.summary["seats"][0] = {"name": "COMP", "bot": True, "taken": True}
    assert model.names() == ["COMP1", "COMP2", "(free)"]
    assert model.spectators() == 2 and not model.away(2)  # a free seat is not away


def test_turn_is_mine_only_when_seated_playing_and_to_move():
    model = RoomModel.from_joined(joined(0, status="playing", to_move=0))
    assert model.my_turn
    model.seat = None
    assert not model.my_turn
    model.seat = 0
    model.view["status"] = "over"
    assert not model.my_turn and model.over


def test_lobby_lists_mine_first_and_private_seats_too():
    lobby = LobbyModel(mine=["r9", "secret"])
    lobby.replace(
        [
            {"room": "r1", "status": "waiting", "seats": []},
            {"room": "r2", "status": "over", "seats": []},
            {"room": "r9", "status": "playing", "seats": []},
        ]
    )
    lobby.push({"t": "room", "room": "r3", "status": "playing", "seats": []})
    assert [r["room"] for r in lobby.ordered()] == ["r9", "secret", "r1", "r3", "r2"]


def test_text_helpers():
    assert cell_name([6, 7]) == "h7" and cell_name(None) == "-"
    room = {
        "seats": [
            {"name": "ada", "taken": True, "connected": False},
            {"name": "bob", "taken": False},
            {"name": None, "taken": False},
            {"name": "COMP", "bot": True, "taken": True, "connected": True},
        ]
    }
    assert seats_text(room) == "ada~, (bob?), (free), COMP"
    text = format_view({"game": "x", "board": [[None, [1, 2]], [3, None], [None, None]]})
    assert text.splitlines() == ['game: "x"', "board:", "   . 12", "   3  .", "   .  ."]
