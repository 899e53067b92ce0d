"""The room's core without an event loop: events in, effects out, every transition walked.

Plain functions, no asyncio, no store, no sockets: :class:`Shell` below does by
hand what the real shell (tilehall.server.room.shell) does, answering the
core's asks (an append, a write, a read) as each test says, as h11's
Connection is tested with bytes. The end-to-end proofs (a real store, real
sockets) are in test_room.py, test_readers.py and test_store_faults.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tilehall.protocol import ProtocolError, unpack
from tilehall.protocol.patch import apply
from tilehall.server.games import find_game
from tilehall.server.games.base import GameError
from tilehall.server.room.core import RoomCore, timed
from tilehall.server.room.events import (
    Act,
    Answer,
    Append,
    Appended,
    Arm,
    Begin,
    Close,
    Disarm,
    Due,
    Finish,
    Frames,
    Hold,
    Join,
    JournalRead,
    Leave,
    Moved,
    NotAppended,
    ReadJournal,
    Refuse,
    Release,
    ResultKept,
    StoreBack,
    Think,
    Thought,
    Timer,
    WaitStore,
    Watch,
    Write,
    Written,
)
from tilehall.server.room.lifecycle import TRANSITIONS, Phase
from tilehall.server.room.summary import summary_of
from tilehall.server.store.errors import AppendRefused, StoreUnavailable
from tilehall.server.store.records import JournalEntry, PlayerRecord, RoomRecord, SeatRecord

T0 = 1_800_000_000.0


class Health:
    def __init__(self) -> None:
        self.up = True
        self.retry_after = 0.0


class Member:
    """A member that keeps what it is pushed, decoded."""

    def __init__(self, name: str | None = None, pid: int = 0) -> None:
        self.player = PlayerRecord(id=pid, name=name) if name else None
        self.rooms: dict[str, int | None] = {}
        self.compact = False
        self.got: list[dict[str, Any]] = []
        self.peer = name or "watcher"

    def push(self, data: bytes) -> None:
        self.got.append(unpack(data))

    send = push

    def updates(self) -> list[dict[str, Any]]:
        return [f for f in self.got if f["t"] == "update"]


class Shell:
    """The shell's work, done by hand: effects kept, appends and writes answered on request."""

    def __init__(self, core: RoomCore, health: Health) -> None:
        self.core = core
        self.health = health
        self.now = T0
        self.journal: list[JournalEntry] = []
        self.appends: list[JournalEntry] = []
        self.writes: list[Write] = []
        self.effects: list[Any] = []
        self.answers: dict[object, Any] = {}
        self.armed: dict[Timer, float] = {}
        self.phases: list[tuple[Phase, Phase]] = []
        self._n = 0

    def feed(self, event: Any) -> list[Any]:
        before = self.core.phase
        effects = self.core.handle(event, self.now)
        if self.core.phase is not before:
            self.phases.append((before, self.core.phase))
        self.effects += effects
        for e in effects:
            if isinstance(e, Frames):
                for member, data in e.frames:
                    member.push(data)
            elif isinstance(e, Answer):
                assert e.ticket not in self.answers, "answered twice"
                self.answers[e.ticket] = e.value
            elif isinstance(e, Refuse):
                assert e.ticket not in self.answers, "answered twice"
                self.answers[e.ticket] = e.error
            elif isinstance(e, Append):
                self.appends.append(e.entry)
            elif isinstance(e, Write) and e.status is None:
                self.writes.append(e)
            elif isinstance(e, Arm):
                self.armed[e.timer] = e.at
            elif isinstance(e, Disarm):
                self.armed.pop(e.timer, None)
        return effects

    def ticket(self) -> str:
        self._n += 1
        return f"t{self._n}"

    def ask(self, make: Any) -> str:
        ticket = self.ticket()
        self.feed(make(ticket))
        return ticket

    # -- the store's answers

    def commit(self) -> None:
        entry = self.appends.pop(0)
        self.journal.append(entry)
        self.feed(Appended(entry.seq))

    def lose(self, *, kept: bool = False, refused: bool = False) -> None:
        """The append's answer is lost (kept or not by the journal), or it is refused."""
        entry = self.appends.pop(0)
        if kept:
            self.journal.append(entry)
        error = AppendRefused("taken") if refused else StoreUnavailable("gone")
        self.feed(NotAppended(entry.seq, error, refused))

    def written(self, error: Exception | None = None) -> None:
        self.writes.pop(0)
        self.feed(Written(error))

    def kept(self, error: Exception | None = None) -> None:
        assert any(isinstance(e, Finish) for e in self.effects)
        self.feed(ResultKept(error))

    def read_back(self, record: RoomRecord | None = None) -> None:
        self.feed(JournalRead(record or self.core.record, list(self.journal)))

    def fire(self, timer: Timer) -> None:
        at = self.armed.pop(timer)
        self.now = max(self.now, at)
        self.feed(Due(timer, at))

    def answer(self, ticket: str) -> Any:
        return self.answers[ticket]


def record(game: str = "ishido", seats: tuple[SeatRecord, ...] = (SeatRecord(),), **kw: Any):
    return RoomRecord(
        id="r1",
        game=game,
        options=kw.pop("options", {}),
        seed=kw.pop("seed", 3),
        seats=seats,
        private_code=None,
        created_at=T0,
        **kw,
    )


def room(game: str = "ishido", **kw: Any) -> Shell:
    health = Health()
    rec = record(game, **kw)
    return Shell(RoomCore(rec, find_game(rec.game), health=health), health)


def seated(shell: Shell, name: str = "Ada", pid: int = 1, **kw: Any) -> tuple[Member, str]:
    """``name`` joins: its seat written, the start committed if it was the last; entered."""
    m = Member(name, pid)
    ticket = shell.ask(
        lambda t: Join(m, pid, name, kw.get("want"), kw.get("compact", False), None, t)
    )
    if shell.writes:
        shell.written()
    while shell.appends:
        shell.commit()
    return m, ticket


def solo(**kw: Any) -> tuple[Shell, Member]:
    """An Ishido room with Ada playing."""
    shell = room(**kw)
    ada, ticket = seated(shell)
    joined = shell.answer(ticket)
    assert joined["t"] == "joined" and joined["seq"] == 1, joined
    return shell, ada


def place(shell: Shell, i: int = 0) -> dict[str, Any]:
    legal = shell.core.view(0, shell.now)["legal"]
    return {"do": "place", "at": legal[i % len(legal)]}


def act(shell: Shell, member: Member, action: Any, seq: int | None = None) -> str:
    return shell.ask(lambda t: Act(member, action, seq, 7, t))


# -- the lifecycle ------------------------------------------------------------------------


def test_every_transition_of_the_table_is_walked():
    walked: set[tuple[Phase, Phase]] = set()

    # waiting -> playing -> over -> closed
    shell, ada = solo()
    act(shell, ada, {"do": "quit"})
    shell.commit()
    shell.kept()
    shell.feed(Close())
    walked |= set(shell.phases)

    # waiting -> suspended (the start not confirmed) -> waiting (rebuilt: it was not kept)
    shell = room()
    m = Member("Ada", 1)
    shell.ask(lambda t: Join(m, 1, "Ada", None, False, None, t))
    shell.written()
    shell.lose()
    shell.read_back()
    assert shell.core.phase is Phase.WAITING
    walked |= set(shell.phases)

    # playing -> suspended -> playing, and suspended -> over (the end was kept after all)
    shell, ada = solo()
    act(shell, ada, place(shell))
    shell.lose()
    shell.read_back()
    act(shell, ada, {"do": "quit"})
    shell.lose(kept=True)
    shell.read_back()
    assert shell.core.phase is Phase.OVER
    walked |= set(shell.phases)

    # suspended -> closed; playing -> closed
    shell, ada = solo()
    act(shell, ada, place(shell))
    shell.lose()
    shell.feed(Close())
    walked |= set(shell.phases)
    shell, ada = solo()
    shell.feed(Close())
    walked |= set(shell.phases)

    # waiting -> closed; waiting -> (rebuilt at start-up) waiting, playing, over
    shell = room()
    shell.feed(Close())
    walked |= set(shell.phases)
    done, ada = solo()
    act(done, ada, {"do": "quit"})
    done.commit()
    for upto in (0, 1, 2):
        core = RoomCore(record(), find_game("ishido"), health=Health(), journal=done.journal[:upto])
        walked.add((Phase.WAITING, core.phase))

    table = {(p, to) for (p, _), tos in TRANSITIONS.items() for to in tos}
    assert walked == table


# -- one change at a time ---------------------------------------------------------------


def test_nothing_shows_before_its_commit():
    shell, ada = solo()
    spectator = Member()
    shell.ask(lambda t: Watch(spectator, True, None, t))
    kept = spectator.got and shell.core.view(None, T0)
    before = (shell.core.seq, shell.core.status, summary_of(shell.core))
    ticket = act(shell, ada, {"do": "quit"})
    assert shell.core.pending and shell.appends[-1].seq == 2
    assert (shell.core.seq, shell.core.status, summary_of(shell.core)) == before
    assert shell.core.engine is not None and shell.core.engine.status.value == "over"
    assert ticket not in shell.answers and not ada.updates(), "nothing sent before the commit"
    assert kept is not None
    shell.commit()
    assert shell.core.seq == 2 and shell.core.status.value == "over"
    [update] = ada.updates()
    assert update["seq"] == 2 and update["re"] == 7 and update["view"]["status"] == "over"
    assert ticket not in shell.answers, "the last act is answered once its result is kept"
    shell.kept()
    assert shell.answer(ticket) is None


def test_a_refused_action_changes_nothing_and_leaves_nothing_in_flight():
    shell, ada = solo()
    view = shell.core.view(0, T0)
    ticket = act(shell, ada, {"do": "place", "at": [0, 0]})  # the corners are dealt
    assert isinstance(shell.answer(ticket), GameError)
    assert shell.answer(ticket).code == "occupied"
    assert not shell.core.pending and shell.core.idle and not shell.appends
    assert shell.core.seq == 1 and shell.core.view(0, T0) == view


@pytest.mark.parametrize(
    ("who", "action", "seq", "code"),
    [
        ("stranger", {"do": "help"}, None, "not_in_room"),
        ("spectator", {"do": "help"}, None, "spectator"),
        ("ada", {"do": "_tick"}, None, "out_of_range"),
        ("ada", {"do": "fly"}, None, "unknown_action"),
        ("ada", "help", None, "unknown_action"),
        ("ada", {"do": "help"}, 0, "stale"),
    ],
)
def test_who_may_act_and_what(who, action, seq, code):
    shell, ada = solo()
    members = {"ada": ada, "stranger": Member("Bob", 2), "spectator": Member()}
    if who == "spectator":
        shell.ask(lambda t: Watch(members["spectator"], False, None, t))
    ticket = act(shell, members[who], action, seq)
    error = shell.answer(ticket)
    assert isinstance(error, ProtocolError | GameError) and error.code == code, error
    assert shell.core.seq == 1 and not shell.appends


def test_an_act_before_the_start_is_refused():
    shell = room(seats=(SeatRecord(), SeatRecord()), game="mathable")
    ada, ticket = seated(shell)
    assert shell.answer(ticket)["view"]["status"] == "waiting"
    assert shell.answer(act(shell, ada, {"do": "end"})).code == "not_started"


def test_acts_wait_in_line_while_one_is_in_flight_and_are_answered_in_order():
    shell, ada = solo()
    first = act(shell, ada, place(shell, 0))
    second = act(shell, ada, {"do": "help"})  # decided on the state the first leaves
    stale = act(shell, ada, {"do": "help"}, seq=1)
    assert len(shell.appends) == 1, "one change in flight at a time"
    assert second not in shell.answers and stale not in shell.answers
    shell.commit()
    assert shell.answer(first) is None
    assert len(shell.appends) == 1 and shell.appends[0].action == {"do": "help"}
    assert stale not in shell.answers, "it waits behind the second, in order"
    shell.commit()
    assert shell.answer(second) is None
    assert shell.answer(stale).code == "stale", "seq 1 is behind once both are in"
    assert [u["seq"] for u in ada.updates()] == [2, 3]


def test_time_never_goes_back_in_the_journal():
    shell, ada = solo()
    shell.now = T0 - 50
    act(shell, ada, place(shell))
    assert shell.appends[0].now == T0


def test_a_store_known_down_refuses_at_once_and_takes_nothing():
    shell, ada = solo()
    shell.health.up, shell.health.retry_after = False, 2.0
    error = shell.answer(act(shell, ada, place(shell)))
    assert error.code == "unavailable" and error.retry_after == 2.0
    assert not shell.appends and shell.core.seq == 1


# -- faults of the journal -------------------------------------------------------------------


def test_an_entry_not_confirmed_suspends_the_room_until_the_journal_is_read():
    shell, ada = solo()
    view = shell.core.view(0, T0)
    ticket = act(shell, ada, place(shell))
    waiting = act(shell, ada, {"do": "help"})
    shell.lose()
    assert shell.answer(ticket).code == "unavailable"
    assert shell.answer(waiting).code == "unavailable", "what waited is refused too"
    assert shell.core.suspended and shell.core.engine is None
    assert any(isinstance(e, ReadJournal) for e in shell.effects)
    late = Member("Bob", 2)
    assert shell.answer(shell.ask(lambda t: Watch(late, False, None, t))).code == "unavailable"
    shell.read_back()  # it was not kept: everyone's last view is still right
    assert not shell.core.suspended and shell.core.seq == 1
    assert shell.core.view(0, T0) == view
    assert ada.updates() == []


def test_an_entry_kept_after_all_is_shown_once_rebuilt():
    shell, ada = solo()
    act(shell, ada, place(shell))
    shell.lose(kept=True)
    shell.read_back()
    assert shell.core.seq == 2
    [update] = ada.updates()
    assert update["seq"] == 2 and "re" not in update


def test_a_refused_append_means_the_room_moved_when_the_store_names_another_node():
    shell, ada = solo()
    act(shell, ada, place(shell))
    shell.lose(refused=True)
    elsewhere = RoomRecord(**{**_fields(shell.core.record), "node": "other"})
    shell.read_back(elsewhere)
    assert any(isinstance(e, Moved) for e in shell.effects)


def _fields(rec: RoomRecord) -> dict[str, Any]:
    return {f: getattr(rec, f) for f in rec.__dataclass_fields__}


def test_a_journal_that_cannot_be_replayed_is_read_again_later():
    shell, ada = solo()
    act(shell, ada, place(shell))
    shell.lose()
    broken = [*shell.journal, JournalEntry(room="r1", seq=2, seat=0, action={"do": "x"}, now=T0)]
    shell.feed(JournalRead(shell.core.record, broken))
    assert shell.core.suspended
    again = [e for e in shell.effects if isinstance(e, ReadJournal)]
    assert [e.after for e in again] == [0.0, 0.1]
    shell.read_back()
    assert not shell.core.suspended


# -- the end, and a result waiting for the store ----------------------------------------------


def test_a_result_the_store_cannot_keep_is_tried_again_once_it_answers():
    shell, ada = solo()
    ticket = act(shell, ada, {"do": "quit"})
    shell.commit()
    shell.kept(StoreUnavailable("gone"))
    assert shell.answer(ticket) is None, "the act is done; its result waits for the store"
    assert any(isinstance(e, WaitStore) for e in shell.effects)
    watcher = Member()
    joined = shell.answer(shell.ask(lambda t: Watch(watcher, False, None, t)))
    assert joined["view"]["status"] == "over", "a finished game is watched meanwhile"
    finishes = len([e for e in shell.effects if isinstance(e, Finish)])
    shell.feed(StoreBack())
    assert len([e for e in shell.effects if isinstance(e, Finish)]) == finishes + 1
    shell.kept()
    assert any(type(e).__name__ == "Over" for e in shell.effects)


# -- seats, joins and holds ------------------------------------------------------------------


def test_a_join_writes_its_seat_then_starts_then_enters():
    shell = room(game="mathable", seats=(SeatRecord(), SeatRecord()))
    ada, first = seated(shell)
    assert shell.answer(first)["view"]["status"] == "waiting"
    bob = Member("Bob", 2)
    ticket = shell.ask(lambda t: Join(bob, 2, "Bob", None, False, None, t))
    assert shell.writes[0].seats[1].name == "Bob"
    assert ticket not in shell.answers
    shell.written()
    assert shell.appends[0].action == {"do": "_start"}, "the last seat taken starts the game"
    assert ticket not in shell.answers, "the joiner enters the game started"
    shell.commit()
    joined = shell.answer(ticket)
    assert joined["seq"] == 1 and joined["view"]["status"] == "playing"
    assert [u["seq"] for u in ada.updates()] == [1]
    assert bob.updates() == [], "the start is in its view, not an update"


def test_a_seat_the_store_cannot_write_is_refused_and_nobody_sits():
    shell = room(game="mathable", seats=(SeatRecord(), SeatRecord()))
    bob = Member("Bob", 2)
    ticket = shell.ask(lambda t: Join(bob, 2, "Bob", None, False, None, t))
    shell.written(StoreUnavailable("gone"))
    assert isinstance(shell.answer(ticket), StoreUnavailable)
    assert shell.core.seats[0].player is None and bob not in shell.core.members


def test_a_hold_waits_for_the_change_in_flight_and_holds_back_the_next():
    shell, ada = solo()
    act(shell, ada, place(shell))
    hold = shell.ask(Hold)
    later = act(shell, ada, {"do": "help"})
    assert hold not in shell.answers
    shell.commit()
    assert shell.answer(hold) is None and later not in shell.answers and not shell.appends
    shell.feed(Release())
    assert len(shell.appends) == 1


def test_closing_answers_everything_that_waited():
    shell, ada = solo()
    act(shell, ada, place(shell))
    waiting = act(shell, ada, {"do": "help"})
    late = Member("Bob", 2)
    watching = shell.ask(lambda t: Watch(late, False, None, t))
    shell.feed(Close())
    assert shell.answer(waiting) is None
    assert shell.answer(watching).code == "unknown_room"
    assert shell.core.closed and shell.armed == {}
    shell.commit()  # the store's late answer changes nothing
    assert shell.core.seq == 1


# -- clocks, presence, stand-ins, bots, quick-match --------------------------------------------


def two(options: dict[str, Any], *, bots: int = 0) -> tuple[Shell, Member, Member | None]:
    seats = tuple(SeatRecord(name="COMP", bot="normal") for _ in range(bots))
    seats = (SeatRecord(), *(seats or (SeatRecord(),)))
    shell = room(game="mathable", seats=seats, options=options)
    ada, _ = seated(shell)
    bob = None
    if not bots:
        bob, _ = seated(shell, "Bob", 2)
    return shell, ada, bob


def test_the_clock_is_armed_once_per_deadline_and_its_step_journaled():
    shell, ada, bob = two({"turn_seconds": 60})
    deadline = shell.core.deadline
    assert shell.armed[Timer.TICK] == deadline
    arms = sum(isinstance(e, Arm) and e.timer is Timer.TICK for e in shell.effects)
    mover = ada if shell.core.to_move == 0 else bob
    act(shell, mover, {"do": "hint"})  # the turn goes on: its deadline stays
    shell.commit()
    assert sum(isinstance(e, Arm) and e.timer is Timer.TICK for e in shell.effects) == arms
    shell.fire(Timer.TICK)
    assert shell.appends[0].action == {"do": "_tick"} and shell.appends[0].now == deadline
    shell.commit()
    assert shell.armed[Timer.TICK] == shell.core.deadline > deadline


def test_everyone_away_pauses_a_clocked_game_and_a_return_resumes_it():
    shell, ada, bob = two({"turn_seconds": 60, "standin_after": 0})
    shell.feed(Leave(ada))
    assert not shell.appends, "one of them is still here"
    shell.feed(Leave(bob))
    assert shell.appends[0].action == {"do": "_pause", "why": "away"}
    shell.commit()
    assert shell.core.paused is not None and Timer.TICK not in shell.armed
    shell.ask(lambda t: Watch(ada, False, None, t))
    assert shell.appends[0].action == {"do": "_resume"}
    shell.commit()
    assert shell.core.paused is None


def test_a_stand_in_plays_an_away_seat_and_gives_it_back():
    shell, ada, bob = two({"standin_after": 30})
    mover = ada if shell.core.to_move == 0 else bob
    seat = shell.core.to_move
    shell.feed(Leave(mover))
    assert shell.armed[Timer.STANDIN] == T0 + 30
    shell.fire(Timer.STANDIN)
    assert shell.appends[0].action == {"do": "_standin", "seat": seat}
    shell.commit()
    assert seat in shell.core.stood_in
    assert [e for e in shell.effects if isinstance(e, Think)][-1].seat == seat
    shell.ask(lambda t: Watch(mover, False, None, t))  # back: given back after its turn
    assert seat in shell.core.stood_in


def test_bots_think_only_while_someone_watches_and_a_stale_thought_is_thought_again():
    shell = room(game="mathable", seats=(SeatRecord(name="COMP", bot="easy"),) * 2)
    shell.ask(Begin)
    shell.commit()
    assert shell.core.unattended() and not any(isinstance(e, Think) for e in shell.effects)
    watcher = Member()
    shell.ask(lambda t: Watch(watcher, False, None, t))
    [think] = [e for e in shell.effects if isinstance(e, Think)]
    assert think.seq == 1 and think.seat == shell.core.to_move
    shell.feed(Thought(think.seat, 0, {"do": "end"}))  # thought about an older seq
    thinks = [e for e in shell.effects if isinstance(e, Think)]
    assert len(thinks) == 2 and not shell.appends
    shell.feed(Thought(think.seat, 1, {"do": "end"}))
    assert shell.appends[0].seat == think.seat
    shell.commit()
    shell.feed(Leave(watcher))
    assert shell.core.unattended()


def test_a_bot_with_no_move_three_times_stops_until_the_next_change():
    shell = room(game="mathable", seats=(SeatRecord(name="COMP", bot="easy"),) * 2)
    shell.ask(Begin)
    shell.commit()
    shell.ask(lambda t: Watch(Member(), False, None, t))
    for _ in range(3):
        seat = shell.core.to_move
        shell.feed(Thought(seat, 1, None))
    assert shell.core.idle and len([e for e in shell.effects if isinstance(e, Think)]) == 3


def test_quick_match_gives_the_open_seats_to_bots_at_its_time():
    seats = (SeatRecord(), SeatRecord())
    shell = room(game="mathable", seats=seats, fill_at=T0 + 30, fill_level="easy")
    shell.ask(Begin)
    assert shell.armed[Timer.FILL] == T0 + 30 and shell.core.matching
    seated(shell)
    shell.fire(Timer.FILL)
    assert shell.writes[0].seats[1] == SeatRecord(name="COMP", bot="easy")
    shell.written()
    assert shell.appends[0].action == {"do": "_start"} and shell.core.fill_at is None
    shell.commit()
    assert shell.core.status.value == "playing" and not shell.core.matching


# -- frames ---------------------------------------------------------------------------------


def test_each_distinct_update_is_encoded_once_and_compact_members_get_patches():
    shell, ada = solo(game="lines", seed=5)
    wes, vic, cid = Member(), Member(), Member()
    for m, compact in ((wes, False), (vic, False), (cid, True)):
        shell.ask(lambda t, m=m, compact=compact: Watch(m, compact, None, t))
    base = shell.answers[f"t{shell._n}"]["view"]
    move = _a_lines_move(shell.core.view(0, T0))
    act(shell, ada, move)
    shell.commit()
    [frames] = [e.frames for e in shell.effects if isinstance(e, Frames)][-1:]
    data = dict(frames)
    assert data[wes] is data[vic], "one encoding for one view"
    assert unpack(data[ada])["re"] == 7 and "re" not in unpack(data[wes])
    patched = unpack(data[cid])
    assert "patch" in patched and "view" not in patched
    assert apply(_as_sent(base), patched["patch"]) == unpack(data[wes])["view"]


def _as_sent(view: dict) -> dict:
    from tilehall.protocol import encode

    return unpack(encode({"t": "x", "v": view}))["v"]


def _a_lines_move(view: dict) -> dict:
    import random

    from tilehall.server.bots import find_bot

    action = find_bot("lines", "easy")(rng=random.Random(1), budget=0.01).choose(view)
    assert action is not None
    return action


def test_a_view_with_a_clock_is_sent_with_the_time_it_is_sent_at():
    shell, _ = solo(game="matchit", seed=2)
    raw = shell.core.engine.view(0)  # type: ignore[union-attr]
    sent = timed(raw, T0 + 7)
    assert sent["now"] == T0 + 7 and raw.get("now") != T0 + 7, "timed() copies a shared view"


def test_missed_updates_come_from_commits_only():
    shell, ada = solo()
    act(shell, ada, place(shell, 0))
    shell.commit()
    act(shell, ada, place(shell, 1))
    assert [m["seq"] for m in shell.core.missed(0, 1) or []] == [2]
    assert shell.core.missed(0, 3) is None, "ahead of the journal: the view alone is the truth"
    shell.commit()
    assert [m["seq"] for m in shell.core.missed(0, 1) or []] == [2, 3]


# -- the promise, as a property -----------------------------------------------------------


SCRIPT = st.lists(
    st.tuples(
        st.sampled_from(["place", "place", "place", "bad", "quit", "help"]),
        st.integers(0, 50),  # which legal cell
        st.sampled_from(["kept", "kept", "lost", "lost-kept", "refused"]),
        st.booleans(),  # a compact spectator comes before the entry
    ),
    max_size=20,
)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**16), script=SCRIPT)
def test_what_readers_see_is_the_journal_replayed(seed, script):
    """Whatever is acted, kept, lost or refused, readers see the journal and nothing else."""
    shell, ada = solo(seed=seed)
    for kind, pick, fate, looks in script:
        shell.now += 1.0
        if shell.core.status.value != "playing":
            break
        if looks:
            shell.ask(lambda t: Watch(Member(), True, None, t))
        action = {
            "place": place(shell, pick) if kind == "place" else None,
            "bad": {"do": "place", "at": [0, 0]},
            "quit": {"do": "quit"},
            "help": {"do": "help"},
        }[kind]
        shown = (shell.core.seq, shell.core.status, summary_of(shell.core))
        ticket = act(shell, ada, action)
        if not shell.appends:
            assert isinstance(shell.answer(ticket), GameError)
            continue
        assert (shell.core.seq, shell.core.status, summary_of(shell.core)) == shown
        if fate == "kept":
            shell.commit()
            if shell.core.status.value == "over":
                shell.kept()
        else:
            shell.lose(kept=fate == "lost-kept", refused=fate == "refused")
            shell.read_back()
        again = RoomCore(record(seed=seed), find_game("ishido"), health=Health(),
                         journal=shell.journal)  # fmt: skip
        assert shell.core.seq == again.seq == len(shell.journal)
        assert shell.core.status == again.status
        assert shell.core.view(0, T0) == again.view(0, T0)
        assert shell.core.view(None, T0) == again.view(None, T0)
