"""The engine contract every game implements.

An engine is pure: state in, action in, events out. It does no I/O, never reads a
clock (the room passes ``now``, seconds as a float) and never touches module-level
``random`` (it is handed a seeded :class:`random.Random`). Given the same options,
seat count, seed, start time and list of ``(seat, action, now)`` an engine reaches
the same state; crash recovery, replays and tests rest on that.

Two kinds of refusal are kept apart (as python-chess does):

* :class:`InvalidMove` - the action is malformed (missing field, wrong type, a
  square off the board). The client spoke badly.
* :class:`IllegalMove` - the action is well formed but the rules forbid it now.

Both carry a stable snake_case ``code`` that goes on the wire and a message that
quotes the offending input. An engine that raises has changed nothing.
"""

from __future__ import annotations

import enum
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

__all__ = [
    "TICK",
    "Action",
    "Event",
    "Game",
    "GameError",
    "IllegalMove",
    "InvalidMove",
    "Option",
    "OptionError",
    "ScoreEntry",
    "Status",
    "require",
    "require_cell",
    "require_int",
]

Action = dict[str, Any]
"""One player action: a small msgpack-able map whose ``do`` names the move."""

Event = dict[str, Any]
"""What happened: a map whose ``e`` names the event.

An event is public unless it carries ``"_to": seat``; then only that seat's
connections receive it (hidden racks, private draws). Rooms strip ``_to`` before
sending. The marker is underscored so that no game field can collide with it
(Lines' ``moved`` event has a ``to`` cell).
"""

TICK: Action = {"do": "_tick"}
"""The journal's record of a clock step: replay calls ``advance(now)`` for it."""


class Status(enum.StrEnum):
    """A room's lifecycle, as shown in every view."""

    WAITING = "waiting"
    PLAYING = "playing"
    OVER = "over"


class GameError(Exception):
    """A refused action; ``code`` is stable and goes on the wire."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class InvalidMove(GameError):
    """The action is malformed: the client spoke badly."""


class IllegalMove(GameError):
    """The action is well formed but against the rules at this moment."""


class OptionError(ValueError):
    """A game option is unknown or out of bounds; ``option`` names it."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option
        self.message = message


@dataclass(frozen=True, slots=True, kw_only=True)
class Option:
    """One declared game option, with its default and bounds.

    ``kind`` is ``"int"``, ``"bool"`` or ``"choice"``. Clients build their
    create-room forms from :meth:`describe`.
    """

    name: str
    kind: str
    default: Any
    doc: str
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in ("int", "bool", "choice"):
            raise ValueError(f"unknown option kind {self.kind!r}")
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


class Game(ABC):
    """Base class of every engine. Subclasses set the class-level settings.

    The room calls, and nothing else does:

    * ``Game(options=..., seats=n, rng=Random(seed), now=t, bots=...)`` when play
      starts (``bots``: the seats a computer plays, for rules such as Mathable's
      "all human players vote to quit");
    * :meth:`act` for each player action, :meth:`advance` at :meth:`next_deadline`;
    * :meth:`view` for each audience after every accepted action.
    """

    name: ClassVar[str]
    """Registry key and wire name, e.g. ``"ishido"``."""
    title: ClassVar[str]
    """Human name, e.g. ``"Ishido"``."""
    min_seats: ClassVar[int] = 1
    max_seats: ClassVar[int] = 1
    options: ClassVar[tuple[Option, ...]] = ()

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

    # -- class-level helpers -------------------------------------------------

    @classmethod
    def validate_options(cls, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Fill defaults and check every given option; raise :class:`OptionError`."""
        known = {o.name: o for o in cls.options}
        given = dict(options or {})
        for key in given:
            if key not in known:
                raise OptionError(str(key), f"{cls.title} has no option {key!r}")
        return {
            name: opt.validate(given[name]) if name in given else opt.default
            for name, opt in known.items()
        }

    @classmethod
    def describe(cls) -> dict[str, Any]:
        """The game as listed in ``welcome.games``."""
        return {
            "name": cls.name,
            "title": cls.title,
            "min_seats": cls.min_seats,
            "max_seats": cls.max_seats,
            "options": [o.describe() for o in cls.options],
        }

    # -- the contract ----------------------------------------------------------

    @abstractmethod
    def act(self, seat: int, action: Action, now: float) -> list[Event]:
        """Apply one action of ``seat`` at time ``now``.

        Returns:
            The events that say exactly what happened.

        Raises:
            InvalidMove: the action is malformed.
            IllegalMove: the action is against the rules now (includes acting
                out of turn, code ``not_your_turn``, and acting after the end,
                code ``game_over``).
        """

    def advance(self, now: float) -> list[Event]:
        """Let the clock run to ``now``; return what it caused (time-outs...)."""
        return []

    def next_deadline(self) -> float | None:
        """The next ``now`` at which :meth:`advance` would do something, if any."""
        return None

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
        if self.status is Status.OVER:
            out["result"] = self.result()
        return out


# -- action parsing helpers: every engine validates its input the same way ---------


def require(action: Mapping[str, Any], key: str) -> Any:
    """Return ``action[key]`` or raise ``InvalidMove('missing_field')``."""
    if key not in action:
        raise InvalidMove("missing_field", f"action {action.get('do')!r} needs {key!r}")
    return action[key]


def require_int(action: Mapping[str, Any], key: str, lo: int, hi: int) -> int:
    """Return an int field within ``lo..hi`` inclusive, or raise :class:`InvalidMove`."""
    value = require(action, key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidMove("bad_field", f"{key!r} must be an integer, not {value!r}")
    if not lo <= value <= hi:
        raise InvalidMove("bad_field", f"{key!r} must be between {lo} and {hi}, not {value}")
    return value


def require_cell(action: Mapping[str, Any], key: str, rows: int, cols: int) -> tuple[int, int]:
    """Return ``[row, col]`` as a tuple, or raise ``InvalidMove('bad_cell')``."""
    value = require(action, key)
    if (
        not isinstance(value, Sequence)
        or isinstance(value, str | bytes)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise InvalidMove("bad_cell", f"{key!r} must be [row, col], not {value!r}")
    r, c = value
    if not (0 <= r < rows and 0 <= c < cols):
        raise InvalidMove("bad_cell", f"{key!r} {[r, c]} is off the {rows}x{cols} board")
    return (r, c)
