"""The client-side models: fed by server frames only, duplicates and gaps handled."""

from __future__ import annotations

from tilehall.clients.model import LobbyModel, RoomModel

from tests.clients.pygame.helpers import engine, welcome


def joined(view, seq=1, seat=0):
    return {"t": "joined", "room": "r1", "seat": seat, "seq": seq, "view": view}


def test_updates_move_the_view_on_and_keep_the_change():
    e = engine("ishido", seed=1)
    model = RoomModel.from_joined(joined(e.view(0)))
    before = model.view
    at = e.view(0)["legal"][0]
    events = e.act(0, {"do": "place", "at": at}, 0.0)
    assert model.apply(
        {"t": "update", "room": "r1", "seq": 2, "events": events, "view": e.view(0)}, now=7.0
    )
    change = model.changes[-1]
    assert change.before is before and change.after == e.view(0) and change.at == 7.0
    assert model.seq == 2 and model.view["placed"] == 1 and not model.behind
    # the same update again (an act's reply also arrives pushed) changes nothing
    assert not model.apply(
        {"t": "update", "room": "r1", "seq": 2, "events": events, "view": e.view(0)}
    )
    assert len(model.changes) == 1
    # a skipped seq is noted, and the newer view still wins
    assert model.apply({"t": "update", "room": "r1", "seq": 5, "events": [], "view": before})
    assert model.changes[-1].seq == 5 and model.behind and model.view is before


def test_seat_names_come_from_the_room_summary():
    model = RoomModel.from_joined(joined(engine("mathable", seats=2).view(1), seat=1))
    assert model.seat_name(0) == "seat 1"
    model.apply({"t": "room", "room": "r1", "seats": [{"name": "bea"}, {"name": "ada"}]})
    assert (model.seat_name(0), model.seat_name(1)) == ("bea", "ada")
    assert model.my_turn == (model.view["to_move"] == 1)


def test_rejoining_takes_the_servers_view_and_seq():
    e = engine("lines", seed=1)
    model = RoomModel.from_joined(joined(e.view(0), seq=3))
    model.apply({"t": "_rejoined", "room": "r1", "seat": 0, "seq": 9, "view": e.view(0)})
    assert model.seq == 9


def test_lobby_orders_open_rooms_first_and_keeps_scores():
    lobby = LobbyModel()
    lobby.apply(welcome("ada"))
    assert lobby.player == "ada" and lobby.title("mathable") == "Mathable"
    lobby.apply(
        {
            "t": "rooms",
            "rooms": [
                {"room": "b", "game": "ishido", "status": "over"},
                {"room": "a", "game": "ishido", "status": "playing"},
                {"room": "c", "game": "mathable", "status": "waiting"},
            ],
        }
    )
    assert [r["room"] for r in lobby.ordered()] == ["c", "a", "b"]
    lobby.apply({"t": "scores", "game": "ishido", "table": None, "tables": [], "entries": []})
    assert lobby.scores["ishido"]["entries"] == []
