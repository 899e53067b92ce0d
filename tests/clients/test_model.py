"""The one client-side model: which frames about a room are taken, and the lobby.

The rule is the module docstring of :mod:`tilehall.clients.model`; these tests
pin it case by case, then let hypothesis interleave updates, snapshots,
reconnects, late copies, stale replies and catch-up gaps, and check that the
model never goes back in seq, always holds the view of its seq, shows every
event exactly once, and ends at the room's newest state.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tilehall.clients.model import LobbyModel, ReplayModel, RoomModel

ROOM = "r1"


def view(seq: int) -> dict[str, Any]:
    """The room's state at ``seq``: every seq has its own."""
    return {"game": "x", "status": "playing", "to_move": 0, "n": seq}


def events(seq: int) -> list[dict[str, Any]]:
    return [{"e": "did", "seq": seq}]


def update(seq: int, evs: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "t": "update",
        "room": ROOM,
        "seq": seq,
        "events": events(seq) if evs is None else evs,
        "view": view(seq),
    }


def snapshot(t: str, seq: int, since: int | None = None, seat: int | None = 0) -> dict[str, Any]:
    """A ``joined`` (or ``_rejoined``) at ``seq``; ``since`` is the seq the request carried."""
    msg: dict[str, Any] = {"t": t, "room": ROOM, "seat": seat, "seq": seq, "view": view(seq)}
    if since is not None:
        msg["missed"] = [{"seq": s, "events": events(s)} for s in range(since + 1, seq + 1)]
    return msg


def held(seq: int = 5) -> RoomModel:
    return RoomModel.from_joined(snapshot("joined", seq))


def shown(model: RoomModel) -> list[int]:
    return [ev["seq"] for ev in model.events]


# -- the rule, case by case ---------------------------------------------------------------

RULE = [
    # (what, frame, taken, seq after, events shown, behind)
    ("the next update", update(6), True, 6, [6], False),
    ("a duplicate (an act's reply, pushed too)", update(5), False, 5, [], False),
    ("an update a snapshot covered", update(3), False, 5, [], False),
    ("an update after a gap: newest view, behind", update(8), True, 8, [8], True),
    ("a catch-up update: the skipped events in one", update(8, events(6) + events(7) + events(8)),
     True, 8, [6, 7, 8], True),
    ("a newer joined reply, with what was missed", snapshot("joined", 7, since=5), True, 7, [6, 7],
     False),
    ("a joined reply older than the view held", snapshot("joined", 4), False, 5, [], False),
    ("a joined reply at the seq held", snapshot("joined", 5, since=5), True, 5, [], False),
    ("missed updates already taken are not shown twice", snapshot("_rejoined", 8, since=3),
     True, 8, [6, 7, 8], False),
    ("a rejoin when the server went back is the truth", snapshot("_rejoined", 3, since=5), True,
     3, [], False),
    ("an update of another room", {**update(6), "room": "r2"}, False, 5, [], False),
    ("a frame the model does not hold", {"t": "pong", "room": ROOM}, False, 5, [], False),
]  # fmt: skip


@pytest.mark.parametrize(("frame", "taken", "seq", "events", "behind"),
                         [case[1:] for case in RULE], ids=[case[0] for case in RULE])  # fmt: skip
def test_the_rule(frame: dict[str, Any], taken: bool, seq: int, events: list[int], behind: bool):
    model = held(5)
    before = model.view
    assert model.apply(frame) is taken
    assert model.seq == seq and model.behind is behind
    assert model.view == (view(seq) if taken else before)
    if taken:
        assert shown(model) == events


def test_a_snapshot_takes_the_seat_and_clears_behind():
    model = held(5)
    model.apply(update(9))
    assert model.behind
    assert model.apply(snapshot("_rejoined", 9, since=9, seat=None))
    assert not model.behind and model.seat is None and model.events == []


def test_rejoin_is_due_once_per_gap():
    model = held(5)
    assert not model.rejoin_due()
    model.apply(update(7))
    assert model.rejoin_due()
    model.apply(update(8))  # more updates before the answer: no second request
    assert not model.rejoin_due() and model.behind
    model.apply(snapshot("_rejoined", 8, since=8))
    assert not model.rejoin_due()
    model.apply(update(10))
    assert model.rejoin_due()


def test_a_room_joined_late_shows_what_it_missed():
    model = RoomModel.from_joined(snapshot("joined", 4, since=2), summary={"game": "x"})
    assert (model.seq, shown(model), model.summary) == (4, [3, 4], {"game": "x"})


def test_updates_keep_their_change_with_the_view_before():
    model = held(5)
    model.apply(update(6), now=1.5)
    model.apply(update(6), now=2.0)
    model.apply(update(7), now=3.0)
    assert [(c.seq, c.before["n"], c.after["n"], c.at) for c in model.changes] == [
        (6, 5, 6, 1.5),
        (7, 6, 7, 3.0),
    ]
    assert [ev["seq"] for _, ev in model.last_events(since=2.0)] == [7]


def test_room_pushes_and_chat():
    model = held(5)
    push = {"t": "room", "room": ROOM, "spectators": 3, "seats": [{"name": "ada", "taken": True}]}
    assert model.apply(push)
    assert model.summary == {
        "room": ROOM,
        "spectators": 3,
        "seats": [{"name": "ada", "taken": True}],
    }
    assert model.apply({"t": "chat", "room": ROOM, "from": "ada", "text": "hi"})
    assert list(model.chat) == [("ada", "hi")]
    assert (model.seat_name(0), model.seat_name(1), model.spectators()) == ("ada", "seat 2", 3)


def test_joined_chat_is_the_rooms_lines_and_a_rejoin_replaces_them():
    kept = [{"from": "ada", "text": f"line {i}", "at": 1.0 + i} for i in range(100)]
    joined = {"t": "joined", "room": ROOM, "seat": None, "seq": 3, "view": view(3), "chat": kept}
    model = RoomModel.from_joined(joined)
    assert list(model.chat) == [("ada", f"line {i}") for i in range(100)]
    assert model.apply({"t": "chat", "room": ROOM, "from": "bob", "text": "new"})
    assert list(model.chat)[-2:] == [("ada", "line 99"), ("bob", "new")]
    assert len(model.chat) == 100, "the room's 100 lines, no more"
    # after a reconnect, the rejoin's answer holds every line kept: none twice
    again = {**joined, "t": "_rejoined", "chat": [*kept[1:], {"from": "bob", "text": "new"}]}
    assert model.apply(again)
    assert list(model.chat)[-2:] == [("ada", "line 99"), ("bob", "new")] and len(model.chat) == 100
    quiet = {"t": "joined", "room": ROOM, "seat": None, "seq": 3, "view": view(3)}
    assert list(RoomModel.from_joined(quiet).chat) == []


# -- the rule under any interleaving ------------------------------------------------------


class Room:
    """A room on the server, and what one client's connection yields about it, in order.

    The connection's frames go straight into the model, as a client's loop would
    hand them over. A rejoin the model asks for carries the seq the connection
    saw when it was sent; the server answers it later (``answer``), after any
    updates it broadcast meanwhile, as a room does.
    """

    def __init__(self, start: int) -> None:
        self.seq = start
        self.seen = start
        """The last seq the connection saw (what a rejoin carries)."""
        self.online = True
        self.sent: list[dict[str, Any]] = []
        self.rejoin_since: int | None = None
        """The seq a rejoin request in flight carries."""
        self.model = RoomModel.from_joined(snapshot("joined", start))
        self.shown: list[int] = []
        self.seqs = [start]

    def deliver(self, frame: dict[str, Any]) -> None:
        if self.model.apply(frame):
            self.shown += shown(self.model)
        assert self.model.seq >= self.seqs[-1], "the model went back"
        assert self.model.view == view(self.model.seq)
        self.seqs.append(self.model.seq)
        if self.model.rejoin_due():
            assert self.rejoin_since is None, "a second rejoin before the first was answered"
            self.rejoin_since = self.seen

    def answer_rejoin(self) -> None:
        since, self.rejoin_since = self.rejoin_since, None
        if since is not None and self.online:
            self.deliver(snapshot("_rejoined", self.seq, since=since))
            self.seen = self.seq

    def step(self, n: int) -> None:
        for _ in range(n):
            self.seq += 1
            if self.online:
                self.sent.append(update(self.seq))
                self.seen = self.seq
                self.deliver(self.sent[-1])

    def catch_up(self, n: int) -> None:
        """A cluster node's catch-up: one update holding the events of all it skipped."""
        if not self.online:
            return
        first, self.seq = self.seq + 1, self.seq + n
        self.seen = self.seq
        self.deliver(update(self.seq, [ev for s in range(first, self.seq + 1) for ev in events(s)]))

    def reconnect(self) -> None:
        if not self.online:
            self.online = True
            self.deliver(snapshot("_rejoined", self.seq, since=self.seen))
            self.seen = self.seq

    def run(self, op: tuple[str, int]) -> None:
        kind, n = op
        if kind == "answer":
            self.answer_rejoin()
        elif kind == "step":
            self.step(n)
        elif kind == "drop":
            self.online = False
            self.rejoin_since = None  # lost with the connection; the reconnect rejoins
        elif kind == "reconnect":
            self.reconnect()
        elif kind == "late" and self.sent:
            # an act's own update, taken when the caller resumes, after newer ones
            self.deliver(self.sent[n % len(self.sent)])
        elif kind == "stale":
            # a join reply read after the pushed updates that followed it
            self.deliver(snapshot("joined", max(0, self.model.seq - n)))
        elif kind == "catch_up":
            self.catch_up(n)


OPS = st.one_of(
    st.tuples(st.just("step"), st.integers(1, 3)),
    st.tuples(st.sampled_from(["drop", "reconnect", "answer"]), st.just(0)),
    st.tuples(st.just("late"), st.integers(0, 100)),
    st.tuples(st.just("stale"), st.integers(0, 4)),
    st.tuples(st.just("catch_up"), st.integers(2, 4)),
)


@given(start=st.integers(0, 5), ops=st.lists(OPS, max_size=40))
def test_any_interleaving_ends_at_the_newest_state_and_never_goes_back(
    start: int, ops: list[tuple[str, int]]
):
    room = Room(start)
    for op in ops:
        room.run(op)
    room.reconnect()
    room.answer_rejoin()
    room.step(1)
    model = room.model
    assert model.seq == room.seq and model.view == view(room.seq) and not model.behind
    assert room.seqs == sorted(room.seqs)
    # every update's events shown once, in order, whatever was lost and caught up
    assert room.shown == list(range(start + 1, room.seq + 1))


# -- the lobby ----------------------------------------------------------------------------


def summary(room: str, status: str, game: str = "x", **more: Any) -> dict[str, Any]:
    return {"room": room, "game": game, "status": status, "seats": [], "private": False, **more}


def test_the_lobby_is_fed_by_welcome_rooms_pushes_joins_and_scores():
    lobby = LobbyModel()
    lobby.apply({"t": "welcome", "player": "ada", "games": [{"name": "x", "title": "X"}],
                 "rooms": ["mine"], "token": "t", "v": 1})  # fmt: skip
    assert (lobby.player, lobby.title("x"), lobby.title("y"), lobby.mine) == (
        "ada",
        "X",
        "y",
        ["mine"],
    )
    lobby.apply({"t": "rooms", "rooms": [summary("r1", "playing"), summary("r2", "waiting")]})
    assert set(lobby.rooms) == {"r1", "r2"}
    lobby.apply({"t": "room", **summary("r1", "over"), "re": 3})
    assert lobby.rooms["r1"]["status"] == "over" and "t" not in lobby.rooms["r1"]
    secret = {"t": "room", **summary("s1", "waiting", private=True)}
    lobby.apply(secret)
    assert "s1" not in lobby.rooms and lobby.summary("s1") == summary("s1", "waiting", private=True)
    assert lobby.summary("r2") == summary("r2", "waiting")
    lobby.apply(snapshot("joined", 1) | {"room": "s1"})
    lobby.apply(snapshot("joined", 1, seat=None) | {"room": "r2"})  # watching is not a seat
    lobby.apply(snapshot("_rejoined", 1) | {"room": "s1"})
    assert lobby.mine == ["mine", "s1"]
    lobby.apply({"t": "rooms", "rooms": [summary("r3", "waiting")]})
    assert set(lobby.rooms) == {"r3"}  # the list is the server's, not a merge
    lobby.apply({"t": "scores", "game": "x", "entries": []})
    assert lobby.scores["x"]["entries"] == []


def test_the_lobby_lists_mine_first_then_by_status_game_and_id():
    lobby = LobbyModel(mine=["r9", "zz-private"])
    lobby.replace(
        [
            summary("r5", "over", "a"),
            summary("r4", "playing", "b"),
            summary("r3", "playing", "a"),
            summary("r2", "waiting", "b"),
            summary("r9", "playing", "c"),
        ]
    )
    rows = lobby.ordered()
    assert [r["room"] for r in rows] == ["r9", "zz-private", "r2", "r3", "r4", "r5"]
    assert rows[1] == {"room": "zz-private", "seats": [], "spectators": 0, "private": True,
                       "listed": False}  # fmt: skip


# -- the server's clock, quick-match, replays --------------------------------------------


def test_countdowns_follow_the_servers_clock_not_this_machines():
    local = [1000.0]
    model = RoomModel(room="r1", seat=0, seq=0, view={})
    model.clock.wall = lambda: local[0]
    # the server's clock is 3600 s ahead of ours (a machine on the wrong time zone setting)
    view = {"status": "playing", "deadline": 4690.0, "now": 4600.0}
    model.apply({"t": "update", "room": "r1", "seq": 1, "events": [], "view": view})
    assert model.clock.left(view["deadline"]) == 90.0
    local[0] += 30
    assert model.clock.left(view["deadline"]) == 60.0
    local[0] += 600
    assert model.clock.left(view["deadline"]) == 0.0, "never below zero"
    assert model.clock.left(None) is None


def test_paused_stood_in_and_bots_due_read_from_view_and_summary():
    model = RoomModel(room="r1", seat=0, seq=0, view={"status": "waiting"})
    model.clock.wall = lambda: 100.0
    model.clock.skew = 0.0
    model.summary = {"seats": [], "bots_at": 130.0, "paused": None}
    assert model.bots_in() == 30.0 and model.paused is None
    model.view = {"status": "playing", "paused": "away", "standins": [1]}
    assert model.bots_in() is None, "a game under way waits for no bots"
    assert model.paused == "away" and model.stood_in(1) and not model.stood_in(0)


def test_a_replay_steps_and_keeps_what_it_saw():
    replay = ReplayModel(room="r1")
    assert replay.current is None and replay.target("first") == 1

    def reply(seq: int) -> dict:
        return {
            "t": "replayed",
            "room": "r1",
            "seq": seq,
            "last": 5,
            "events": [],
            "view": {"seq": seq},
            "revealed": {},
            "players": ["a"],
            "game": "lines",
        }

    assert replay.take(reply(1)) and replay.current["view"] == {"seq": 1}
    assert (replay.target("back"), replay.target("forward"), replay.target("last")) == (1, 2, 5)
    replay.take(reply(5))
    assert replay.at_end and replay.target("forward") == 5
    assert replay.cached(1) and replay.seq == 1, "back to a position seen: no request"
    assert not replay.cached(3)
    assert not replay.take({**reply(2), "room": "r2"}), "another room's reply is not taken"


def test_the_lobby_keeps_ratings_leaderboards_and_history():
    lobby = LobbyModel()
    lobby.apply(
        {
            "t": "welcome",
            "player": "ada",
            "games": [],
            "rooms": [],
            "ratings": {"mathable": {"rating": 1500.0, "rd": 350.0, "games": 0}},
        }
    )
    assert lobby.ratings["mathable"]["games"] == 0
    mine = {"rating": 1540.0, "rd": 300.0, "games": 1}
    lobby.apply({"t": "leaderboard", "game": "mathable", "entries": [], "next": None, "mine": mine})
    assert lobby.ratings["mathable"] == mine and lobby.leaderboards["mathable"]["entries"] == []
    lobby.apply({"t": "history", "player": "ada", "rooms": [], "next": None})
    assert lobby.history is not None and lobby.history["player"] == "ada"


def test_compact_updates_patch_the_view_held_and_a_misfit_asks_for_the_whole():
    model = RoomModel.from_joined(
        {"room": ROOM, "seat": 0, "seq": 4, "view": {"status": "playing", "board": [0, 0]}}
    )
    step = {"t": "update", "room": ROOM, "seq": 5, "events": [], "patch": [[["board", 1], 7]]}
    assert model.apply(step) and model.view == {"status": "playing", "board": [0, 7]}
    # our own act's reply, ahead of a pushed update not taken yet: wait for it in order
    ahead = {"t": "update", "room": ROOM, "seq": 7, "events": [], "patch": [[["board", 0], 3]]}
    assert not model.apply({**ahead, "re": 9}) and not model.behind
    middle = {"t": "update", "room": ROOM, "seq": 6, "events": [], "patch": [[["status"], "x"]]}
    assert model.apply(middle) and model.apply(ahead)
    assert (model.seq, model.view) == (7, {"status": "x", "board": [3, 7]})
    # a pushed patch after a gap, or one that does not fit: the whole view is asked for
    gap = {"t": "update", "room": ROOM, "seq": 9, "events": [], "patch": []}
    assert not model.apply(gap) and model.behind and model.rejoin_due()
    model.apply({"t": "_rejoined", "room": ROOM, "seat": 0, "seq": 9, "view": {"board": [1]}})
    misfit = {"t": "update", "room": ROOM, "seq": 10, "events": [], "patch": [[["x", "y"], 1]]}
    assert not model.apply(misfit) and model.behind and model.view == {"board": [1]}


def test_events_sent_by_name_are_rebuilt_from_the_new_view():
    derived = {"drew": {"stone": ["current"], "pouch": ["pouch"]}}
    model = RoomModel.from_joined(
        {
            "room": ROOM,
            "seat": 0,
            "seq": 4,
            "view": {"current": [1, 2], "pouch": 9},
            "derived": derived,
        }
    )
    placed = {"e": "placed", "at": [0, 1]}
    step = {
        "t": "update",
        "room": ROOM,
        "seq": 5,
        "events": [placed, "drew"],
        "patch": [["=", [], {"current": [3, 4], "pouch": 8}]],
    }
    assert model.apply(step)
    assert model.events == [placed, {"e": "drew", "stone": [3, 4], "pouch": 8}]
    assert model.changes[-1].events == model.events
    # a whole view with names (the first update after a join) reads them the same way
    whole = {**step, "seq": 6, "view": {"current": [5, 5], "pouch": 7}}
    del whole["patch"]
    assert model.apply(whole) and model.events[1] == {"e": "drew", "stone": [5, 5], "pouch": 7}
    # a rejoin without templates keeps those it had; a name it cannot read asks for the view
    model.apply({"t": "_rejoined", "room": ROOM, "seat": 0, "seq": 6, "view": whole["view"]})
    assert model.derived == derived
    odd = {"t": "update", "room": ROOM, "seq": 7, "events": ["turn"], "patch": []}
    assert not model.apply(odd) and model.behind and model.seq == 6


def test_names_number_repeated_players_but_not_open_seats():
    model = RoomModel(room=ROOM, seat=0, seq=0, view={"status": "waiting"})
    free = {"name": None, "bot": False, "taken": False, "connected": False}
    comp = {"name": "COMP", "bot": True, "taken": True, "connected": True}
    ada = {"name": "ada", "bot": False, "taken": True, "connected": True}
    model.summary = {"seats": [ada, free, free, comp, comp]}
    assert model.names() == ["ada", "(free)", "(free)", "COMP4", "COMP5"]


def test_a_quit_vote_ends_the_game_when_every_other_person_voted_or_is_comp():
    playing = {"status": "playing", "scores": [0, 0, 0], "quit_votes": [2]}
    model = RoomModel(room=ROOM, seat=0, seq=3, view=playing)
    person = {"name": "bea", "bot": False, "taken": True, "connected": True}
    comp = {"name": "COMP", "bot": True, "taken": True, "connected": True}
    assert model.vote_ends_game() is None  # who plays COMP is not known yet
    model.summary = {"seats": [person, person, person]}
    assert model.vote_ends_game() is False  # seat 1 has not voted
    model.summary = {"seats": [person, comp, person]}
    assert model.vote_ends_game() is True
    model.view = {**playing, "quit_votes": [1, 2]}
    model.summary = None
    assert model.vote_ends_game() is True  # every other seat voted: known without a summary


def test_a_listed_room_of_mine_missing_from_the_whole_list_is_gone():
    lobby = LobbyModel()
    lobby.apply({"t": "welcome", "player": "ada", "games": [], "rooms": ["r1", "r2", "r3"]})
    r1 = {"room": "r1", "game": "ishido", "seats": [], "status": "over", "private": False}
    lobby.apply({"t": "room", "room": "r3", "game": "ishido", "private": True, "seats": []})
    lobby.apply({"t": "rooms", "rooms": [r1], "next": None})
    assert lobby.mine == ["r1", "r2", "r3"]  # r2 never seen listed; r3 is private
    lobby.apply({"t": "rooms", "rooms": [], "next": "r0"})  # a page: proves nothing
    assert "r1" in lobby.mine
    lobby.apply({"t": "rooms", "rooms": [r1], "next": None})
    lobby.apply({"t": "rooms", "rooms": [], "next": None})  # the whole list, without r1
    assert lobby.mine == ["r2", "r3"] and lobby.summary("r1") is None
    lobby.forget("r3")  # unknown_room on entering it
    assert lobby.mine == ["r2"] and [r["room"] for r in lobby.ordered()] == ["r2"]
