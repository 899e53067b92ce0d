"""The room's core without an event loop: propose, then commit or drop; readers see commits.

Plain functions, no sockets, no store, no asyncio: the core is handed entries
and times and answers with pending changes and frames, as h11's Connection is
tested with bytes. The end-to-end proof that a room shows nothing ahead of its
journal is in test_readers.py; here, that the core alone keeps that promise.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tilehall.protocol import unpack
from tilehall.protocol.patch import apply
from tilehall.server.games.base import TICK, GameError
from tilehall.server.games.replay import START
from tilehall.server.roomcore import RoomCore, timed
from tilehall.server.store.base import JournalEntry

from tests.tables import table

T0 = 1_800_000_000.0


def started(game: str = "ishido", seed: int = 3, **kw: object) -> tuple[RoomCore, list]:
    """A core whose start is committed, and its journal."""
    core = RoomCore(table(game, seed=seed, **kw))  # type: ignore[arg-type]
    pending = core.propose(None, START, T0)
    core.commit(pending, {}, set(), wall=T0)
    return core, [pending.entry]


def place(core: RoomCore, i: int = 0) -> dict:
    view = core.view(0)
    assert view is not None
    return {"do": "place", "at": view["legal"][i % len(view["legal"])]}


def test_nothing_shows_before_its_commit():
    core, _ = started()
    kept = core.base_view(0, T0)  # a compact member of seat 0 holds this view
    before = {"seq": core.seq, "status": core.status, "player": core.view(0)}
    assert before["player"] == kept
    pending = core.propose(0, {"do": "quit"}, T0 + 1)
    assert core.pending and pending.entry.seq == 2
    assert core.engine is not None and core.engine.status.value == "over"  # the engine moved
    assert core.seq == before["seq"] and core.status == before["status"]  # readers did not
    assert core.view(0) == before["player"], "the view kept for the seq is the one shown"
    assert core.view(None) is None, "no view can be made of an engine that moved on"
    frames = core.commit(pending, {"ada": 0}, set(), wall=T0 + 1)
    assert core.seq == 2 and core.status is not None and core.status.value == "over"
    [(member, data)] = frames
    update = unpack(data)
    assert member == "ada" and update["seq"] == 2 and update["view"]["status"] == "over"
    assert core.view(None) is not None and core.view(None)["status"] == "over"


def test_a_refused_entry_changes_nothing_and_leaves_nothing_pending():
    core, _ = started()
    view = core.view(0)
    with pytest.raises(GameError):
        core.propose(0, {"do": "place", "at": [0, 0]}, T0 + 1)  # the corners are dealt
    assert not core.pending and core.seq == 1 and core.view(0) == view
    core.commit(core.propose(0, place(core), T0 + 2), {}, set(), wall=T0 + 2)
    assert core.seq == 2


def test_one_change_at_a_time_and_none_after_a_drop_until_rebuilt():
    core, journal = started()
    spectator = core.base_view(None, T0)
    pending = core.propose(0, place(core), T0 + 1)
    with pytest.raises(RuntimeError):
        core.propose(0, {"do": "quit"}, T0 + 2)
    core.drop(pending)
    assert core.stale and not core.pending and core.engine is None
    assert core.seq == 1 and core.view(None) == spectator, "what was committed is still shown"
    assert core.view(0) is None, "a view not kept cannot be made until rebuilt"
    with pytest.raises(RuntimeError):
        core.propose(0, {"do": "quit"}, T0 + 3)
    core.rebuild(journal)
    assert not core.stale and core.seq == 1 and core.view(None) == spectator
    assert core.view(0) is not None


def test_a_game_over_takes_nothing_but_the_clock():
    core, _ = started()
    core.commit(core.propose(0, {"do": "quit"}, T0 + 1), {}, set(), wall=T0 + 1)
    with pytest.raises(GameError) as err:
        core.propose(0, {"do": "quit"}, T0 + 2)
    assert err.value.code == "game_over" and not core.pending


def test_time_never_goes_back_in_the_journal():
    core, _ = started()
    pending = core.propose(0, place(core), T0 - 50)
    assert pending.entry.now == T0


def test_each_distinct_update_is_encoded_once_and_compact_members_get_patches():
    core, _ = started("lines", seed=5)
    members = {"ada": 0, "wes": None, "vic": None, "cid": None}
    compact = {"cid"}
    base = core.base_view(None, T0)  # cid joined: its next update patches this
    assert base is not None
    move = core.engine.view(0)  # type: ignore[union-attr]
    src, dst = _a_lines_move(move)
    frames = dict(core.commit(core.propose(0, {"do": "move", "from": src, "to": dst}, T0 + 1),
                              members, compact, wall=T0 + 1, origin="ada", re=9))  # fmt: skip
    assert frames["wes"] is frames["vic"], "one encoding for one view"
    assert unpack(frames["ada"])["re"] == 9 and "re" not in unpack(frames["wes"])
    patched = unpack(frames["cid"])
    assert "patch" in patched and "view" not in patched
    assert apply(unpack_view(base), patched["patch"]) == unpack(frames["wes"])["view"]


def unpack_view(view: dict) -> dict:
    """A view as a client holds it: decoded from the wire (lists, not tuples)."""
    from tilehall.protocol import encode

    return unpack(encode({"t": "x", "v": view}))["v"]


def _a_lines_move(view: dict) -> tuple[list[int], list[int]]:
    """Any ball, to any empty cell it can reach (the view lists the balls and the board)."""
    import random

    from tilehall.server.bots import find_bot

    action = find_bot("lines", "easy")(rng=random.Random(1), budget=0.01).choose(view)
    assert action is not None
    return action["from"], action["to"]


def test_a_view_with_a_clock_is_sent_with_the_time_it_is_sent_at():
    core, _ = started("matchit", seed=2)
    raw = core.view(0)
    assert raw is not None and raw.get("deadline") is not None
    sent = timed(raw, T0 + 7)
    assert sent["now"] == T0 + 7
    assert raw.get("now") != T0 + 7, "a kept view is shared: timed() copies it"
    if isinstance(sent.get("time_left"), float | int):
        assert sent["time_left"] == max(0.0, sent["deadline"] - (T0 + 7))


def test_missed_updates_come_from_commits_only():
    core, _ = started()
    core.commit(core.propose(0, place(core, 0), T0 + 1), {}, set(), wall=T0 + 1)
    pending = core.propose(0, place(core, 1), T0 + 2)
    assert [m["seq"] for m in core.missed(0, 1) or []] == [2]
    assert core.missed(0, 3) is None, "ahead of the journal: the view alone is the truth"
    core.commit(pending, {}, set(), wall=T0 + 2)
    assert [m["seq"] for m in core.missed(0, 1) or []] == [2, 3]


ENTRIES = st.lists(
    st.tuples(
        st.sampled_from(["place", "place", "place", "bad", "tick", "quit"]),
        st.integers(0, 50),  # which legal cell
        st.booleans(),  # the journal keeps it (else: dropped, and rebuilt)
        st.booleans(),  # a compact spectator joins before the entry
    ),
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**16), script=ENTRIES)
def test_the_committed_state_is_the_committed_entries_replayed(seed, script):
    """Whatever is proposed, committed or dropped, readers see the journal replayed."""
    core, journal = started(seed=seed)
    now = T0
    for kind, pick, kept, looks in script:
        now += 1.0
        if looks:
            core.base_view(None, now)
        if kind == "place" and core.status is not None and core.status.value == "playing":
            action = place(core, pick)
        elif kind == "bad":
            action = {"do": "place", "at": [0, 0]}
        elif kind == "tick":
            action = TICK
        else:
            action = {"do": "quit"}
        seat = None if action is TICK else 0
        shown = (core.seq, core.status, core.view(None) if looks else None)
        seen = (core.seq, core.status, core.view(0))
        try:
            pending = core.propose(seat, action, now)
        except GameError:
            assert (core.seq, core.status, core.view(0)) == seen and not core.pending
            continue
        watched = core.view(None) if looks else None
        assert (core.seq, core.status, watched) == shown, "a pending entry was shown"
        assert core.view(0) is None, "seat 0's view was not kept: none while pending"
        if kept:
            core.commit(pending, {"ada": 0}, set(), wall=now)
            journal.append(pending.entry)
        else:
            core.drop(pending)
            assert (core.seq, core.status, core.view(None) if looks else None) == shown
            core.rebuild(journal)  # the journal, read back: what the room does on recovery
        again = RoomCore(core.record)
        again.rebuild(journal)
        assert core.seq == again.seq == len(journal)
        assert core.status == again.status
        assert core.view(0) == again.view(0) and core.view(None) == again.view(None)
        assert [e.seq for e in journal] == list(range(1, len(journal) + 1))
        assert all(isinstance(e, JournalEntry) for e in journal)
