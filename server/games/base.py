"""The engine contract every game implements.

An engine is pure: state in, action in, events out. It does no I/O, never reads a
clock (the room passes ``now``, seconds as a float) and never touches module-level
``random`` (it is handed a seeded :class:`random.Random`). Given the same options,
seat count, seed, start time and list of ``(seat, action, now)`` an engine reaches
the same state; crash recovery, replays and tests rest on that.

Every game declares its actions in a handler table (:mod:`.actions`): each
action's fields with their types and bounds, and the method that plays it.
:meth:`Game.act` is the one place that refuses what every game refuses - a
malformed action (:meth:`Game.normalize`), a seat the game does not have, any
action once the game is over, an action out of turn - and then hands the
normalised action to the game's handler. Refusals are :class:`InvalidMove`
(the client spoke badly) and :class:`IllegalMove` (against the rules now), each
with a stable :class:`~tilehall.protocol.GameCode` (see :mod:`.errors`).

Each engine also has a ``from_position`` classmethod that builds it in a given
state, as python-chess builds a board from a FEN, for tests and tools; it
checks what it is given and raises :class:`PositionError`.
"""

from __future__ import annotations

import enum
import pickle
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NamedTuple, Protocol, Self

from tilehall.protocol import GameCode, Status
from tilehall.server.games.actions import Action, ActionSpec, Event, quote
from tilehall.server.games.errors import GameError, IllegalMove, InvalidMove

__all__ = [
    "HEADLINE",
    "PAUSE_ACTIONS",
    "READERS",
    "RESUME",
    "START",
    "TICK",
    "UNDO_ACTION",
    "Action",
    "Changed",
    "Event",
    "Game",
    "GameError",
    "IllegalMove",
    "InvalidMove",
    "Only",
    "Option",
    "OptionError",
    "Path",
    "Pause",
    "PositionError",
    "ScoreEntry",
    "SoloGame",
    "SortedChange",
    "Status",
    "Table",
    "away",
    "option_values",
    "shown_rows",
    "stand_back",
    "stand_in",
    "step",
]

Path = str | tuple[str | int, ...]
"""A place in a view: a top-level field by its name, or the keys and indices down to it
(``("board", 3, 4)``); ``()`` is the whole view."""


class Only(NamedTuple):
    """A change in the views of some audiences only (:meth:`Game._touch_only`).

    A tile drawn into a hidden rack changes its owner's view of the rack; the
    others see null there before and after. Recorded for every audience, the
    unchanged value would travel to each of them again.
    """

    seats: frozenset[int | None]
    """The audiences whose view changed (a seat, or None: the spectators)."""
    path: Path


class SortedChange(NamedTuple):
    """Items gone from and come into a sorted list field in some audiences' views
    (:meth:`Game._touch_sorted`): the room sends the few operations that make the old
    list the new one (a tile drawn from 80 unseen: one removal), not the whole list."""

    seats: frozenset[int | None]
    """The audiences whose list changed so."""
    field: str
    gone: tuple[Any, ...]
    """Items the list held and holds no more (one of each occurrence)."""
    came: tuple[Any, ...]
    """Items the list holds now and did not."""


Changed = Path | Only | SortedChange
"""One entry of a step's record of changes (:meth:`Game.take_changes`)."""

_COMMON = frozenset({"game", "status", "to_move", "scores", "seat", "paused", "result", "undos"})
"""The view fields :meth:`Game.view` makes for every game (the rest are the game's own)."""

Field = Callable[[Any, "int | None"], Any]
"""What reads one field of an engine's view for a seat: ``(engine, seat) -> value``."""

READERS: dict[type[Game], dict[str, Field]] = {}
""":meth:`Game.view_readers` by class, made on first use (a room reads it every move)."""

HEADLINE = ("status", "to_move", "scores", "paused")
"""The common view fields every step is checked for (:meth:`Game._headline`)."""

TICK: Action = {"do": "_tick"}
"""The journal's record of a clock step: applying it calls ``advance(now)``."""

START: Action = {"do": "_start"}
"""The journal's first entry: play began at its ``now``."""

RESUME: Action = {"do": "_resume"}
"""The room's players are back: the clock runs again."""


class Pause(enum.StrEnum):
    """Why a game's clock is stopped (a view's ``paused``)."""

    AWAY = "away"
    """Its player has no connection in the room (the room pauses it, and resumes it on return)."""
    PLAYER = "player"
    """Its player asked (``{"do": "pause"}``); only they resume it."""


class OptionError(ValueError):
    """A game option is unknown or out of bounds; ``option`` names it."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option
        self.message = message


class PositionError(ValueError):
    """A position given to ``from_position`` that the engine cannot hold."""


def shown_rows(rows: Iterable[Iterable[Any]], before: list[list[Any]] | None) -> list[list[Any]]:
    """The board's ``rows`` as lists for a view, each the list of ``before`` (the rows of
    the last view) where that row has not changed.

    A view is read, never changed: it is packed, and kept to patch the next one
    against. A row that is the very list of the view before is skipped by the
    patch at once (``is``); an equal new list costs the patch a comparison and
    two packings (a changed type inside must be sent, ``1 == True``), for every
    row of every move. Comparing here costs one C comparison a row, because the
    engine's cells never change type (a tile number or None, a colour). Shared
    with every audience's view of the same move, too.
    """
    fresh = [list(row) for row in rows]
    if before is None or len(before) != len(fresh):
        return fresh
    return [old if old == new else new for old, new in zip(before, fresh, strict=True)]


def away() -> Action:
    """The room's players are all away: the clock stops (``Pause.AWAY``)."""
    return {"do": "_pause", "why": Pause.AWAY.value}


def stand_in(seat: int) -> Action:
    """A COMP stand-in plays ``seat`` (its player away on their turn)."""
    return {"do": "_standin", "seat": seat}


def stand_back(seat: int) -> Action:
    """``seat``'s player takes the seat back from its stand-in."""
    return {"do": "_standback", "seat": seat}


@dataclass(frozen=True, slots=True, kw_only=True)
class Option:
    """One declared game option, with its default and bounds.

    ``kind`` is ``"int"``, ``"bool"`` or ``"choice"``. Clients build their
    create-room forms from :meth:`describe`.

    ``name`` is the wire name (``standin_after``), fixed once deployed; ``label`` is
    what a player reads beside the form field and in a room's one-line summary of
    changed options (``Stand-in after (s) 120``), so the clients need not make
    words out of identifiers. It is required: a new option cannot reach a form
    without one.
    """

    name: str
    kind: str
    default: Any
    doc: str
    label: str
    """Short, sentence case, as a form shows it; not just the name with spaces."""
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in ("int", "bool", "choice"):
            raise ValueError(f"unknown option kind {self.kind!r}")
        if not self.label.strip():
            raise ValueError(f"option {self.name} has no label")
        if self.kind == "choice" and self.default not in self.choices:
            raise ValueError(f"default {self.default!r} of {self.name} is not a choice")

    def validate(self, value: Any) -> Any:
        """Return ``value`` if it fits this option, else raise :class:`OptionError`."""
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise OptionError(self.name, f"option {self.name!r} must be true or false")
            return value
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise OptionError(self.name, f"option {self.name!r} must be an integer")
            if (self.min is not None and value < self.min) or (
                self.max is not None and value > self.max
            ):
                raise OptionError(
                    self.name,
                    f"option {self.name!r} must be between {self.min} and {self.max}, not {value}",
                )
            return value
        if value not in self.choices:
            raise OptionError(
                self.name,
                f"option {self.name!r} must be one of {', '.join(self.choices)}, not {value!r}",
            )
        return value

    def describe(self) -> dict[str, Any]:
        """The option as it appears in ``welcome.games``."""
        out: dict[str, Any] = {
            "name": self.name,
            "label": self.label,
            "kind": self.kind,
            "default": self.default,
            "doc": self.doc,
        }
        if self.kind == "int":
            out["min"] = self.min
            out["max"] = self.max
        if self.kind == "choice":
            out["choices"] = list(self.choices)
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreEntry:
    """A finished game's claim on a high-score table.

    ``table`` names the table within the game (``"2 players"``,
    ``"hard-9"``...). The room drops entries of bot seats.
    """

    table: str
    seat: int
    score: int
    detail: Mapping[str, Any] = field(default_factory=dict)


def option_values(game: type[Game], options: Mapping[str, Any] | None) -> dict[str, Any]:
    """``options`` with defaults filled in, each checked against ``game.options``.

    Raises:
        OptionError: an option the game does not have, or a value it refuses.
    """
    known = {o.name: o for o in game.options}
    given = dict(options or {})
    for key in given:
        if key not in known:
            raise OptionError(str(key), f"{game.title} has no option {key!r}")
    return {
        name: opt.validate(given[name]) if name in given else opt.default
        for name, opt in known.items()
    }


class Game(ABC):
    """Base class of every engine. Subclasses set the class-level settings.

    The room calls, and nothing else does:

    * ``Game(options=..., seats=n, rng=Random(seed), now=t, bots=...)`` when play
      starts (``bots``: the seats a computer plays, for rules such as Mathable's
      "all human players vote to quit");
    * :meth:`act` for each player action, :meth:`advance` at :meth:`next_deadline`;
    * :meth:`view` for each audience after every accepted action.

    A subclass declares its actions in :attr:`actions` and writes one handler
    per action; it never parses an action or repeats the standard refusals.
    """

    name: ClassVar[str]
    """Registry key and wire name, e.g. ``"ishido"``."""
    title: ClassVar[str]
    """Human name, e.g. ``"Ishido"``."""
    summary: ClassVar[str] = ""
    """One line on what the game is, for a lobby's card of it (``welcome.games[].summary``):
    a player picks a game from it before reading any rules. Empty: the card shows none."""
    min_seats: ClassVar[int] = 1
    max_seats: ClassVar[int] = 1
    options: ClassVar[tuple[Option, ...]] = ()
    actions: ClassVar[Mapping[str, ActionSpec[Any]]] = {}
    """The handler table: every action by its ``do``, with its schema and handler."""
    daily: ClassVar[bool] = False
    """It offers today's deal (``create`` with ``daily``): a solo game whose deal is its
    seed, on its default options (:mod:`tilehall.server.daily`)."""
    daily_counts: ClassVar[Mapping[str, str]] = {}
    """What a result of today's deal shares besides its score: fields of its table entry's
    ``detail``, each with the words it is shared with (Ishido's ``fourways``: ``4-ways``)."""
    pausable: ClassVar[bool] = False
    """Its clock can stop (:meth:`pause`): the time paused does not count."""
    derived_events: ClassVar[Mapping[str, Mapping[str, tuple[str | int, ...] | None]]] = {}
    """Event templates: for each event name, each field and the path of the view (after
    the event) that holds it, or None for a field whose value the event carries. A
    compact update sends such an event as its name alone, or as its name and the values
    of its None fields (``[name, value, ...]``, without the field names), when the
    template rebuilds it exactly (``joined.derived`` tells the client the templates;
    :func:`tilehall.protocol.patch.shorten_events`)."""
    view_fields: ClassVar[Mapping[str, str]] = {}
    """The game's own view fields, each with its *shape*, as the published JSON Schema
    types them (the view's common fields come first, whatever the game). A shape is a
    kind (``int``, ``num``, ``str``, ``bool``, ``map``, ``list``, ``any``; ``cell`` is
    ``[row, col]``, ``ints`` a list of ints, ``strs`` a list of strings), ``?`` after it
    when nil is allowed too, and ``opt`` before it for a field that may be absent."""
    event_fields: ClassVar[Mapping[str, Mapping[str, str]]] = {}
    """The game's events by ``e``, each field with its shape (as :attr:`view_fields`)."""
    result_fields: ClassVar[Mapping[str, str]] = {}
    """What the game's ``result`` adds to ``scores`` and ``winners``, with shapes."""
    bot_ratings: ClassVar[Mapping[str, float]] = {}
    """A rated game's bot levels and their fixed, published ratings (empty: the game is not
    rated): measured, not guessed (:func:`tilehall.server.ratings.bot_ratings`)."""
    hidden_when_paused: ClassVar[tuple[str, ...]] = ()
    """View fields shown as null while paused, so that a pause cannot be used to study
    the position (as KShisen hides its board)."""

    tracks_changes: ClassVar[bool] = False
    """Its steps record the view paths they change (:meth:`take_changes`), and
    :attr:`state_fields` reads each field of its state view alone: a compact update is
    built from the record, without a view or a diff. False: the room builds each
    audience's view and diffs it against the one before."""
    state_fields: ClassVar[Mapping[str, Field]] = {}
    """An engine that tracks its changes: each field of its state view, in order, with the
    function that reads it for a seat (``(engine, seat) -> value``); its
    :meth:`state_view` is these, one by one (:meth:`fields_view`)."""

    # Class-level starting values, so that an engine built by from_position (which
    # skips __init__) starts from them too.
    _paused: Pause | None = None
    _paused_at: float = 0.0
    _changed: dict[Changed, None] | None = None
    """The view paths changed since :meth:`take_changes` last took them, in order."""

    def __init__(
        self,
        *,
        options: Mapping[str, Any],
        seats: int,
        rng: random.Random,
        now: float,
        bots: frozenset[int] = frozenset(),
    ) -> None:
        self.opts = self.validate_options(options)
        self.bots = bots
        if not self.min_seats <= seats <= self.max_seats:
            raise OptionError(
                "seats", f"{self.title} takes {self.min_seats} to {self.max_seats} seats"
            )
        self.seats = seats
        self.rng = rng

    @classmethod
    def _bare(
        cls,
        *,
        options: Mapping[str, Any] | None,
        seats: int,
        rng: random.Random | None,
        now: float,
        bots: frozenset[int] = frozenset(),
    ) -> Self:
        """An engine with only the common settings made: ``from_position`` adds the state.

        The game's own ``__init__`` is skipped because it deals: it would draw
        from ``rng`` what the position already says.
        """
        game = cls.__new__(cls)
        Game.__init__(
            game,
            options=options or {},
            seats=seats,
            rng=rng if rng is not None else random.Random(0),
            now=now,
            bots=bots,
        )
        return game

    # -- class-level helpers -------------------------------------------------

    @classmethod
    def validate_options(cls, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Fill defaults and check every given option; raise :class:`OptionError`.

        A game whose options depend on each other overrides this and starts from
        :func:`option_values`, not ``super()``: mypyc (the compiled build) hands a
        classmethod's ``super()`` call the metaclass for ``cls``.
        """
        return option_values(cls, options)

    @classmethod
    def describe(cls) -> dict[str, Any]:
        """The game as listed in ``welcome.games``."""
        return {
            "name": cls.name,
            "title": cls.title,
            "summary": cls.summary,
            "min_seats": cls.min_seats,
            "max_seats": cls.max_seats,
            "daily": cls.daily,
            "options": [o.describe() for o in cls.options],
            "actions": [a.describe() for a in cls.actions.values()],
        }

    @classmethod
    def normalize(cls, action: Any) -> Action:
        """``action`` checked against the game's schema, with only its declared fields.

        Pure: it reads no state, so the room can journal the result before (and
        whatever) the engine decides. Fields come in canonical types (a cell is
        a 2-list of ints), optional fields left out when absent or null.
        ``act`` accepts exactly what this accepts, in either form.

        Raises:
            InvalidMove: ``unknown_action`` when ``action`` is not a map, is
                empty, or its ``do`` is not one of the game's actions (the
                room's own ``_start`` and ``_tick`` are not); ``missing_field``
                when a non-empty map has no ``do`` or lacks a required field;
                ``bad_field`` for an undeclared field or a declared one of the
                wrong type or out of bounds (``bad_cell`` for a cell off the board).
        """
        return cls._parse(action)[1]

    @classmethod
    def _parse(cls, action: Any) -> tuple[ActionSpec[Any], Action]:
        if type(action) is not dict and not isinstance(action, Mapping):
            raise InvalidMove(GameCode.UNKNOWN_ACTION, f"an action is a map, not {quote(action)}")
        if "do" not in action:
            if not action:
                raise InvalidMove(GameCode.UNKNOWN_ACTION, "an empty map names no action")
            raise InvalidMove(
                GameCode.MISSING_FIELD, f"an action needs 'do', one of {', '.join(cls.actions)}"
            )
        do = action["do"]
        spec = cls.actions.get(do) if isinstance(do, str) else None
        if spec is None:
            raise InvalidMove(GameCode.UNKNOWN_ACTION, f"{cls.title} has no action {quote(do)}")
        return spec, spec.normalize(action)

    # -- the contract ----------------------------------------------------------

    def act(self, seat: int, action: Action, now: float) -> list[Event]:
        """Apply one action of ``seat`` at time ``now``.

        The refusals every game shares come first, in this order: the action
        (:meth:`normalize`), the seat (``bad_seat`` in games of several seats;
        in a one-seat game any other seat is simply not to move), the end
        (``game_over``), the turn (``not_your_turn``, for actions only the seat
        to move may send), then the game's own (:meth:`_check_action`, then the
        handler's).

        Returns:
            The events that say exactly what happened.

        Raises:
            InvalidMove: the action is malformed.
            IllegalMove: the action is against the rules now (includes acting
                out of turn, code ``not_your_turn``, and acting after the end,
                code ``game_over``).
        """
        spec, action = self._parse(action)
        if self.max_seats > 1 and not (
            isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < self.seats
        ):
            raise InvalidMove(
                GameCode.BAD_SEAT,
                f"{self.title} has seats 0 to {self.seats - 1}, not {quote(seat)}",
            )
        if self.status is Status.OVER:
            raise IllegalMove(GameCode.GAME_OVER, "the game is over")
        if self._paused is not None and spec.do != "resume":
            raise IllegalMove(GameCode.PAUSED, f"the game is paused ({self._paused}); resume it")
        if spec.turn and seat != self.to_move:
            raise IllegalMove(GameCode.NOT_YOUR_TURN, self._not_your_turn(seat))
        self._check_action(seat, spec, now)
        return spec.handler(self, seat, action, now)

    def _not_your_turn(self, seat: int) -> str:
        if self.max_seats == 1:
            return f"{self.title} has one seat, 0, not {quote(seat)}"
        return f"it is seat {self.to_move}'s turn, not {quote(seat)}'s"

    def _check_action(self, seat: int, spec: ActionSpec[Any], now: float) -> None:
        """Refuse what this game forbids for every action at ``now``; by default, nothing.

        Runs after the standard refusals, before the handler (Match-It's
        ``time_up``). Raises :class:`IllegalMove`.
        """
        return

    def advance(self, now: float) -> list[Event]:
        """Let the clock run to ``now``; return what it caused (time-outs...)."""
        return []

    # -- journal entries: how a room, and anything replaying its journal, drives an engine --

    def apply_entry(self, seat: int | None, action: Action, now: float) -> list[Event]:
        """Apply one journal entry after the start: a seat's action, or one of the room's own
        (``_tick``: let the clock run; ``_pause``/``_resume``; ``_standin``/``_standback``).

        Raises:
            GameError: the engine refused (nothing changed).
            ValueError: an entry of the room's own that this engine does not know.
        """
        before = self._headline() if self.tracks_changes else None
        if seat is None:
            events = self._room_entry(action, now)
        else:
            do = action.get("do")
            spec = self.actions.get(do) if isinstance(do, str) else None
            if spec is not None:  # an entry of an older journal may carry fields ignored then
                action = spec.declared(action)
            events = self.act(seat, action, now)
        self._entered(seat, action, now)
        if before is not None:
            after = self._headline()
            if after != before:
                for key, old, new in zip(HEADLINE, before, after, strict=True):
                    if old != new:
                        self._touch(key)
                if before[0] != after[0]:  # the result comes, or goes, with the status
                    self._touch("result")
        return events

    # -- change tracking: what a step changed in the view, as paths -----------------------

    def _headline(self) -> tuple[Any, ...]:
        """The common fields that any step may change (:data:`HEADLINE`), compared around
        each entry by :meth:`apply_entry`: no handler has to remember them."""
        return (self.status, self.to_move, self.scores, self._paused)

    def _touch(self, *paths: Changed) -> None:
        """Record that the view changed at each of ``paths``: a top-level field by its
        name, or a tuple of keys and indices below it (``("board", r, c)``); the empty
        tuple: everything (the room sends the whole view)."""
        changed = self._changed
        if changed is None:
            changed = self._changed = {}
        for path in paths:
            changed[path] = None

    def _touch_only(self, seats: Iterable[int | None], *paths: Path) -> None:
        """Record changes at ``paths`` in the views of ``seats`` only (:class:`Only`); the
        other audiences' views of those places stay as they were."""
        seen = frozenset(seats)
        self._touch(*(Only(seen, path) for path in paths))

    def _touch_sorted(
        self, seats: Iterable[int | None], field: str, gone: Iterable[Any], came: Iterable[Any]
    ) -> None:
        """Record that the sorted list ``field`` lost ``gone`` and gained ``came`` in the
        views of ``seats`` (:class:`SortedChange`)."""
        self._touch(SortedChange(frozenset(seats), field, tuple(gone), tuple(came)))

    def take_changes(self) -> list[Changed] | None:
        """The view paths changed since the last call, and forget them; None when this
        engine does not track its changes (:attr:`tracks_changes`)."""
        if not self.tracks_changes:
            return None
        changed = self._changed
        self._changed = None
        return [] if changed is None else list(changed)

    def _room_entry(self, action: Action, now: float) -> list[Event]:
        do = action.get("do")
        if do == "_tick":
            return self.advance(now)
        if do == "_pause":
            return self.pause(now, Pause(action["why"]))
        if do == "_resume":
            return self.resume(now)
        if do == "_standin":
            return self.stand_in(int(action["seat"]), now)
        if do == "_standback":
            return self.stand_back(int(action["seat"]), now)
        raise ValueError(f"journal entry {action!r} has no seat")

    def _entered(self, seat: int | None, action: Action, now: float) -> None:  # noqa: B027
        """An entry was applied (a game that can take moves back keeps them); a hook."""

    # -- pausing the clock: the room does it for an absent player, a player may ask ----

    @property
    def paused(self) -> Pause | None:
        """Why the clock is stopped, or None while it runs."""
        return self._paused

    def pause(self, now: float, why: Pause) -> list[Event]:
        """Stop the game's clock at ``now``: no deadline falls due, nothing but ``resume``
        is accepted, and the view hides :attr:`hidden_when_paused`.

        Raises:
            IllegalMove: ``not_pausable``, ``game_over``, or ``paused`` (already).
        """
        if not self.pausable:
            raise IllegalMove(GameCode.NOT_PAUSABLE, f"{self.title} is not paused this way")
        if self.status is Status.OVER:
            raise IllegalMove(GameCode.GAME_OVER, "the game is over")
        if self._paused is not None:
            raise IllegalMove(GameCode.PAUSED, f"the game is paused already ({self._paused})")
        events = self.advance(now)  # the time before the pause counts: what fell due, falls
        if self.result() is not None:  # ...and it ended the game
            return events
        self._paused, self._paused_at = why, now
        self._clock_stops(now)
        return [*events, {"e": "paused", "why": why.value}]

    def resume(self, now: float) -> list[Event]:
        """Start the clock again: every deadline moves on by the time paused.

        Raises:
            IllegalMove: ``not_paused``.
        """
        if self._paused is None:
            raise IllegalMove(GameCode.NOT_PAUSED, "the game is not paused")
        gap = max(0.0, now - self._paused_at)
        self._paused = None
        self._clock_resumes(now, gap)
        return [{"e": "resumed", "paused_for": round(gap, 3)}]

    def stand_in(self, seat: int, now: float) -> list[Event]:
        """A COMP stand-in plays ``seat`` for its away player (games of several players)."""
        raise IllegalMove(GameCode.NOT_PAUSABLE, f"{self.title} has no stand-ins")

    def stand_back(self, seat: int, now: float) -> list[Event]:
        """``seat``'s player takes the seat back from its stand-in."""
        raise IllegalMove(GameCode.NOT_PAUSABLE, f"{self.title} has no stand-ins")

    @property
    def stood_in_seats(self) -> frozenset[int]:
        """Seats a COMP stand-in plays now."""
        return frozenset()

    @property
    def ever_stood_in(self) -> frozenset[int]:
        """Seats a stand-in played at some time in this game: their players' ratings stay."""
        return self.stood_in_seats

    def _clock_stops(self, now: float) -> None:  # noqa: B027 (optional hook: most have none)
        """A pause began at ``now`` (the engine keeps its own idea of the time)."""

    def _clock_resumes(self, now: float, gap: float) -> None:  # noqa: B027 (an optional hook)
        """The clock runs again after ``gap`` seconds: move every deadline on by it."""

    def next_deadline(self) -> float | None:
        """The next ``now`` at which :meth:`advance` would do something, if any."""
        return None

    @property
    def clock_runs(self) -> bool:
        """Time counts in this game now (a pause would stop something): by default, while a
        deadline is set. A Mathable game without a turn clock has nothing to stop."""
        return self.next_deadline() is not None

    @property
    @abstractmethod
    def status(self) -> Status:
        """``PLAYING`` or ``OVER`` (rooms own ``WAITING``)."""

    @property
    @abstractmethod
    def to_move(self) -> int | None:
        """The seat expected to act, or None when the game is over."""

    @property
    @abstractmethod
    def scores(self) -> list[int]:
        """One number per seat."""

    _rows_shown: list[list[Any]] | None = None
    """The board's rows as the last view showed them (:meth:`_view_rows`); not game state."""

    def _view_rows(self, rows: Iterable[Iterable[Any]]) -> list[list[Any]]:
        """The board's rows for a view, sharing the lists of rows that did not change with
        the view before (:func:`shown_rows`)."""
        out = self._rows_shown = shown_rows(rows, self._rows_shown)
        return out

    @abstractmethod
    def state_view(self, seat: int | None) -> dict[str, Any]:
        """The game's own state as ``seat`` may see it (None: a spectator).

        Hidden information (another seat's hidden rack, the pouch order) must
        never appear here.
        """

    def result(self) -> dict[str, Any] | None:
        """The outcome once the game is over: at least ``scores`` and ``winners``."""
        if self.status is not Status.OVER:
            return None
        scores = self.scores
        best = max(scores)
        return {"scores": scores, "winners": [i for i, s in enumerate(scores) if s == best]}

    def score_entries(self) -> list[ScoreEntry]:
        """High-score claims of a finished game; empty when none is eligible."""
        return []

    @classmethod
    def tables(cls) -> list[str]:
        """Every high-score table this game can fill, default first (``scores`` lists them
        all, empty or not)."""
        return []

    def revealed(self) -> dict[str, Any]:
        """What a spectator's view hides now and a replay of the finished game shows.

        The game is over when a replay is asked for, so nothing is left to hide:
        the board a pause covers here, other players' racks and coming colours in
        the games that have them.
        """
        if self._paused is None or not self.hidden_when_paused:
            return {}
        state = self.state_view(None)
        return {key: state[key] for key in self.hidden_when_paused if key in state}

    def fields_view(self, seat: int | None) -> dict[str, Any]:
        """The state view made of :attr:`state_fields`, for an engine's :meth:`state_view`."""
        return {key: read(self, seat) for key, read in self.state_fields.items()}

    @classmethod
    def view_readers(cls) -> dict[str, Field]:
        """Each view field this class reads alone, with its reader: the common fields and
        :attr:`state_fields` (a field hidden while paused reads None then). Made once."""
        readers = READERS.get(cls)
        if readers is None:
            readers = READERS[cls] = cls._make_readers()
        return readers

    @classmethod
    def _make_readers(cls) -> dict[str, Field]:
        readers: dict[str, Field] = {
            "game": _read_game,
            "status": _read_status,
            "to_move": _read_to_move,
            "scores": _read_scores,
            "seat": _read_seat,
            "result": _read_result,
        }
        if cls.pausable:
            readers["paused"] = _read_paused
        for key, read in cls.state_fields.items():
            readers[key] = _hidden_when_paused(read) if key in cls.hidden_when_paused else read
        return readers

    def view_value(self, seat: int | None, key: str) -> Any:
        """The field ``key`` of :meth:`view` for ``seat``, without building the rest: what a
        compact update built from :meth:`take_changes` sets.

        Raises:
            KeyError: the view has no such field now.
        """
        read = self.view_readers().get(key)
        if read is not None:
            return read(self, seat)
        if key in _COMMON or self.state_fields:  # a tracking engine's readers: its whole view
            raise KeyError(key)  # not this game's (paused), or not now (undos)
        if self._paused is not None and key in self.hidden_when_paused:
            return None
        return self.state_view(seat)[key]

    def view(self, seat: int | None) -> dict[str, Any]:
        """The full view: the common fields of the wire outline, then the game's own."""
        out: dict[str, Any] = {
            "game": self.name,
            "status": self.status.value,
            "to_move": self.to_move,
            "scores": self.scores,
            "seat": seat,
        }
        out.update(self.state_view(seat))
        if self.pausable:
            out["paused"] = None if self._paused is None else self._paused.value
            if self._paused is not None:
                for key in self.hidden_when_paused:
                    out[key] = None
        if self.status is Status.OVER:
            out["result"] = self.result()
        return out


class SoloGame(Game):
    """A game of one seat: seat 0 is to move from the start until the game ends.

    Match-It, LinkSame, Lines and Ishido keep their score in ``_score`` and
    set ``_end`` to their own end reason (a :class:`enum.StrEnum`) when the
    game ends; the status, the seat to move and the scores follow from these.
    """

    min_seats: ClassVar[int] = 1
    max_seats: ClassVar[int] = 1

    # Class-level starting values, so that an engine built by from_position
    # (which skips __init__) starts from them too.
    _score: int = 0
    _end: enum.StrEnum | None = None

    @property
    def status(self) -> Status:
        """``OVER`` once an end reason is set."""
        return Status.PLAYING if self._end is None else Status.OVER

    @property
    def to_move(self) -> int | None:
        """Seat 0 while playing."""
        return 0 if self._end is None else None

    @property
    def scores(self) -> list[int]:
        """The one seat's score."""
        return [self._score]

    # -- undo: the last move taken back exactly -------------------------------------
    #
    # The engine keeps the journal entries applied to it (apply_entry) and, every
    # CHECKPOINT_EVERY entries, a copy of its state. Undo rebuilds the game from the
    # last copy before the move, replaying every later entry but that move: what
    # followed it (a clock step, a pause) still happens, the random stream is
    # exactly where it was before the move (so Lines' next throw is what it was),
    # and nothing costs a player's move until someone undoes.
    #
    # Both are kept pickled. A thousand games' entries as tuples of dicts and lists
    # were most of what the server's full collections walked (three tracked objects
    # a move, for the whole game), and each copy a second board of lists; bytes and
    # a tuple of atoms are objects the collector does not track at all. Pickle
    # keeps every type as it was, which replaying an entry needs.

    undo_moves: ClassVar[frozenset[str]] = frozenset()
    """The actions ``undo`` takes back (a Lines move, an Ishido stone, a pair); empty:
    the game has no ``undo``."""
    rebuilt_fields: ClassVar[tuple[str, ...]] = ()
    """Fields undo's copies leave out, because :meth:`_rebuild` makes them again from
    the rest (indexes over the board that every move keeps up)."""
    _undos: int = 0
    _entries: list[tuple[int | None, str | None, bytes, float]] | None = None
    """(seat, the action's ``do``, the action pickled, now) of each entry applied."""
    _checkpoints: list[tuple[int, bytes]] | None = None
    """(entries applied, the state pickled) of the copies kept."""

    def apply_entry(self, seat: int | None, action: Action, now: float) -> list[Event]:
        if self.undo_moves and self._entries is None:  # the state as dealt: the first copy
            self._checkpoints = [(0, self._state())]
            self._entries = []
        return super().apply_entry(seat, action, now)

    def _entered(self, seat: int | None, action: Action, now: float) -> None:
        if self._entries is None or action.get("do") == "undo":
            return  # undo rewrote the entries itself
        self._entries.append((seat, action.get("do"), pickle.dumps(action, _PICKLE), now))
        assert self._checkpoints is not None
        if len(self._entries) % CHECKPOINT_EVERY == 0:
            self._checkpoints.append((len(self._entries), self._state()))
            if len(self._checkpoints) > CHECKPOINTS_KEPT:
                del self._checkpoints[1]  # keep the first: any undo can start from it

    def _state(self) -> bytes:
        """Everything but the bookkeeping of undo itself, pickled.

        Pickle copies in C what ``deepcopy`` walked in Python (the random stream
        too, through its state), and the copy is one untracked object.
        """
        skip = ("_entries", "_checkpoints", "_rows_shown", "_changed", *self.rebuilt_fields)
        return pickle.dumps({k: v for k, v in self.__dict__.items() if k not in skip}, _PICKLE)

    def _rebuild(self) -> None:
        """Make :attr:`rebuilt_fields` again after a copy was restored (a hook)."""

    @property
    def undos(self) -> int:
        """Moves taken back in this game: one is enough to keep it off the record tables."""
        return self._undos

    def score_entries(self) -> list[ScoreEntry]:
        """A game with a move taken back enters no record table (a hinted Mathable neither)."""
        return [] if self._undos else self._score_entries()

    def _score_entries(self) -> list[ScoreEntry]:
        """The game's own claims, for a game played without undo."""
        return []

    def view(self, seat: int | None) -> dict[str, Any]:
        out = super().view(seat)
        if self.undo_moves:
            out["undos"] = self._undos
        return out

    @classmethod
    def _make_readers(cls) -> dict[str, Field]:
        readers = super()._make_readers()
        if cls.undo_moves:
            readers["undos"] = _read_undos
        return readers

    def _undo(self, now: float) -> list[Event]:
        """Take back the last of :attr:`undo_moves` exactly.

        Raises:
            IllegalMove: ``nothing_to_undo`` (no move yet, or the engine was made
                from a position rather than dealt).
        """
        entries = self._entries or []
        moves = [
            i
            for i, (seat, do, _, _) in enumerate(entries)
            if seat is not None and do in self.undo_moves
        ]
        if not moves or self._checkpoints is None:
            raise IllegalMove(GameCode.NOTHING_TO_UNDO, "there is no move to take back")
        target = moves[-1]
        kept = entries[:target] + entries[target + 1 :]
        start, state = max((c for c in self._checkpoints if c[0] <= target), key=lambda c: c[0])
        rebuilt = type(self).__new__(type(self))
        rebuilt.__dict__.update(pickle.loads(state))
        rebuilt._rebuild()
        rebuilt._entries = kept[:start]
        rebuilt._checkpoints = [c for c in self._checkpoints if c[0] <= start]
        for seat, _, action, at in kept[start:]:
            rebuilt.apply_entry(seat, pickle.loads(action), at)
        rebuilt._undos = self._undos + 1
        undone: Action = pickle.loads(entries[target][2])
        self.__dict__.clear()
        self.__dict__.update(rebuilt.__dict__)
        self._changed = None
        self._touch(())  # the whole state was put back: the whole view goes
        return [{"e": "undone", "action": undone, "undos": self._undos}]


_PICKLE = pickle.HIGHEST_PROTOCOL

CHECKPOINT_EVERY = 64
"""Entries between two copies of a game's state kept for undo."""
CHECKPOINTS_KEPT = 4
"""Copies kept: the first (as dealt) and the latest ones; an undo further back than the
latest starts from an earlier one."""


def _act_undo(game: SoloGame, seat: int, action: Action, now: float) -> list[Event]:
    return game._undo(now)


UNDO_ACTION: ActionSpec[Any] = ActionSpec(
    do="undo",
    handler=_act_undo,
    doc="take back your last move exactly (the game then stays off the record tables)",
)
"""Undo, for the handler table of a game with :attr:`SoloGame.undo_moves`."""


def _act_pause(game: Game, seat: int, action: Action, now: float) -> list[Event]:
    return game.pause(now, Pause.PLAYER)


def _act_resume(game: Game, seat: int, action: Action, now: float) -> list[Event]:
    return game.resume(now)


PAUSE_ACTIONS: tuple[ActionSpec[Any], ...] = (
    ActionSpec(
        do="pause",
        handler=_act_pause,
        doc="stop the clock; the board is hidden until you resume",
    ),
    ActionSpec(do="resume", handler=_act_resume, doc="start the clock again after a pause"),
)
"""The player's own pause and resume, for the handler table of a pausable game."""


# -- how a journal entry drives an engine: one function for every reader of a journal ------


class SeatLike(Protocol):
    """What :func:`step` reads of a seat: whether a COMP holds it (its level, or None)."""

    @property
    def bot(self) -> str | None: ...


class Table(Protocol):
    """What :func:`step` reads of a room (a ``RoomRecord`` is one; so is a room's core)."""

    @property
    def options(self) -> dict[str, Any]: ...

    @property
    def seed(self) -> int: ...

    @property
    def seats(self) -> Sequence[SeatLike]: ...


class Entry(Protocol):
    """What :func:`step` reads of a journal entry (a ``JournalEntry`` is one)."""

    @property
    def seat(self) -> int | None: ...

    @property
    def action(self) -> dict[str, Any]: ...

    @property
    def now(self) -> float: ...


def step(
    game: type[Game], table: Table, engine: Game | None, entry: Entry
) -> tuple[Game, list[Event]]:
    """Apply one journal ``entry`` of a room of ``game`` (its ``table``) to ``engine``.

    A room's journal holds, besides the players' actions, entries of the room's
    own: ``_start`` (play began: build the engine from the room's options, seed
    and seats, those a COMP holds being its bots), ``_tick``, ``_pause``/``_resume``
    and ``_standin``/``_standback`` (:meth:`Game.apply_entry`). Whatever reads a
    journal calls this one function: a room's moves and its rebuild (recovery, a
    takeover), a finished game's replay, ``admin replay``, tests; so each makes
    exactly the same game. (A game's *undo* plays its own entries again from a copy.)

    Returns:
        The engine (new after ``_start``) and the events the entry caused.

    Raises:
        ValueError: an entry other than ``_start`` comes before the start.
        GameError: the engine refused the action (nothing changed).
    """
    action = entry.action
    if engine is not None:
        return engine, engine.apply_entry(entry.seat, action, entry.now)
    if action != START:
        raise ValueError(f"journal entry {action!r} comes before the start")
    seats = table.seats
    fresh = game(
        options=table.options,
        seats=len(seats),
        rng=random.Random(table.seed),
        now=entry.now,
        bots=frozenset(i for i, s in enumerate(seats) if s.bot is not None),
    )
    return fresh, [{"e": "started"}]


# -- the readers of the common view fields (Game.view_readers) ------------------------------


def _read_game(game: Game, seat: int | None) -> Any:
    return game.name


def _read_status(game: Game, seat: int | None) -> Any:
    return game.status.value


def _read_to_move(game: Game, seat: int | None) -> Any:
    return game.to_move


def _read_scores(game: Game, seat: int | None) -> Any:
    return game.scores


def _read_seat(game: Game, seat: int | None) -> Any:
    return seat


def _read_result(game: Game, seat: int | None) -> Any:
    if game.status is not Status.OVER:
        raise KeyError("result")  # the view has none before the end
    return game.result()


def _read_paused(game: Game, seat: int | None) -> Any:
    paused = game.paused
    return None if paused is None else paused.value


def _read_undos(game: SoloGame, seat: int | None) -> Any:
    return game.undos


def _hidden_when_paused(read: Field) -> Field:
    def hidden(game: Game, seat: int | None) -> Any:
        return None if game.paused is not None else read(game, seat)

    return hidden
