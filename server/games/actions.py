"""Action schemas: what every game's actions carry, declared once and checked in one place.

Each game declares a handler table: for each action (each ``do``) an
:class:`ActionSpec` with its fields (:class:`ActionField`, with types and
bounds), whether only the seat to move may send it, and the handler that plays
it. From that one table come

* :meth:`ActionSpec.normalize`, behind :meth:`Game.normalize
  <tilehall.server.games.base.Game.normalize>`: the action reduced to its
  declared fields in their canonical types (cells as 2-lists of ints), or the
  refusal. A room that journals only the normalised action never writes junk a
  client sends along (``{"do": "help", "junk": <64 KB>}``) to disk;
* the ``actions`` list of ``welcome.games`` (:meth:`ActionSpec.describe`), from
  which clients can build and check their actions.

The refusals, with their stable codes (:class:`~tilehall.protocol.GameCode`):
a field the action does not declare, or a declared one of the wrong type or out
of bounds, is ``bad_field``, except a cell of two integers off the board, which
is ``bad_cell`` (the code every game has always used for a square that is not
there); a required field that is absent is ``missing_field``. A cell that is not
two integers is of the wrong type, as any field is: ``bad_field``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from tilehall.protocol import GameCode
from tilehall.server.games.errors import InvalidMove

__all__ = [
    "Action",
    "ActionField",
    "ActionSpec",
    "Event",
    "FieldKind",
    "Handler",
    "action_table",
    "as_cell",
    "cell_field",
    "flag_field",
    "int_field",
    "ints_field",
    "on_board",
    "quote",
]

G = TypeVar("G")

Action = dict[str, Any]
"""One player action: a small msgpack-able map whose ``do`` names the move."""

Event = dict[str, Any]
"""What happened: a map whose ``e`` names the event.

An event is public unless it carries ``"_to": seat``; then only that seat's
connections receive it (hidden racks, private draws). Rooms strip ``_to`` before
sending. The marker is underscored so that no game field can collide with it
(Lines' ``moved`` event has a ``to`` cell).
"""

Handler = Callable[[G, int, Action, float], list[Event]]
"""Plays a normalised action for ``seat`` at ``now``: ``handler(game, seat, action, now)``."""

QUOTE_LIMIT = 60
"""Longest quotation of client input in a refusal's message, in characters."""


def quote(value: Any) -> str:
    """``repr(value)``, cut short: refusals quote the input, but never echo a flood back."""
    text = repr(value)
    return text if len(text) <= QUOTE_LIMIT else text[: QUOTE_LIMIT - 3] + "..."


class FieldKind(enum.StrEnum):
    """The type of an action field, as ``welcome.games`` names it."""

    CELL = "cell"
    """``[row, col]``: two integers (else ``bad_field``), ``0 <= row < rows`` and
    ``0 <= col < cols`` (else ``bad_cell``)."""
    INT = "int"
    """An integer within ``min..max``."""
    BOOL = "bool"
    """``true`` or ``false``."""
    INTS = "ints"
    """A list of ``min_items..max_items`` integers, each within ``min..max``."""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionField:
    """One field of an action, with its type and bounds.

    ``lo``/``hi`` bound an int, or each int of a list; ``rows``/``cols`` bound
    a cell (for games whose board size is an option, the largest board: the
    engine then checks the room's own board, which its view gives). An optional
    field may be absent or ``null``; the normalised action leaves it out then.
    A required field that is ``null`` is present and of the wrong type.
    Build fields with :func:`cell_field`, :func:`int_field`, :func:`flag_field`
    and :func:`ints_field`.
    """

    name: str
    kind: FieldKind
    doc: str
    required: bool = True
    lo: int = 0
    hi: int = 0
    rows: int = 0
    cols: int = 0
    min_items: int = 0
    max_items: int = 0

    def __post_init__(self) -> None:
        if self.name == "do" or self.name.startswith("_"):
            raise ValueError(f"{self.name!r} cannot be the name of an action field")
        if self.kind is FieldKind.CELL and not (self.rows > 0 and self.cols > 0):
            raise ValueError(f"cell field {self.name!r} needs rows and cols")
        if self.lo > self.hi or self.min_items > self.max_items:
            raise ValueError(f"field {self.name!r} has empty bounds")

    def normalize(self, value: Any) -> Any:
        """``value`` in this field's canonical type; raise ``InvalidMove`` if it does not fit."""
        kind = self.kind
        if kind is FieldKind.CELL:
            return self._cell(value)
        if kind is FieldKind.INT:
            if not _is_int(value):
                raise _bad(f"{self.name!r} must be an integer, not {quote(value)}")
            if not self.lo <= value <= self.hi:
                raise _bad(f"{self.name!r} must be between {self.lo} and {self.hi}, not {value}")
            return int(value)
        if kind is FieldKind.BOOL:
            if not isinstance(value, bool):
                raise _bad(f"{self.name!r} must be true or false, not {quote(value)}")
            return value
        return self._ints(value)

    def _cell(self, value: Any) -> list[int]:
        # Exact-type tests first: this runs for every move of every game.
        kind = type(value)
        if (
            kind is list
            or kind is tuple
            or (isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray))
        ) and len(value) == 2:
            r, c = value
            if (type(r) is int or _is_int(r)) and (type(c) is int or _is_int(c)):
                if 0 <= r < self.rows and 0 <= c < self.cols:
                    return [int(r), int(c)]
                raise _bad_cell(f"{self.name!r} {[r, c]} is off the {self.rows}x{self.cols} board")
        raise _bad(f"{self.name!r} must be [row, col] of two integers, not {quote(value)}")

    def _ints(self, value: Any) -> list[int]:
        if (
            isinstance(value, list | tuple)
            and self.min_items <= len(value) <= self.max_items
            and all(_is_int(v) and self.lo <= v <= self.hi for v in value)
        ):
            return [int(v) for v in value]
        raise _bad(
            f"{self.name!r} must be a list of {self.min_items} to {self.max_items} integers,"
            f" each {self.lo} to {self.hi}, not {quote(value)}"
        )

    def describe(self) -> dict[str, Any]:
        """The field as it appears in ``welcome.games[].actions[].fields``."""
        out: dict[str, Any] = {"name": self.name, "kind": self.kind.value}
        if self.kind is FieldKind.CELL:
            out.update(rows=self.rows, cols=self.cols)
        elif self.kind is FieldKind.INT:
            out.update(min=self.lo, max=self.hi)
        elif self.kind is FieldKind.INTS:
            out.update(min=self.lo, max=self.hi, min_items=self.min_items, max_items=self.max_items)
        out.update(required=self.required, doc=self.doc)
        return out


def cell_field(name: str, rows: int, cols: int, doc: str) -> ActionField:
    """A required ``[row, col]`` on a board of at most ``rows x cols``."""
    return ActionField(name=name, kind=FieldKind.CELL, rows=rows, cols=cols, doc=doc)


def int_field(name: str, lo: int, hi: int, doc: str) -> ActionField:
    """A required integer within ``lo..hi``."""
    return ActionField(name=name, kind=FieldKind.INT, lo=lo, hi=hi, doc=doc)


def flag_field(name: str, doc: str, *, required: bool = True) -> ActionField:
    """A true-or-false field."""
    return ActionField(name=name, kind=FieldKind.BOOL, required=required, doc=doc)


def ints_field(name: str, lo: int, hi: int, items: tuple[int, int], doc: str) -> ActionField:
    """A required list of ``items[0]..items[1]`` integers, each within ``lo..hi``."""
    return ActionField(
        name=name,
        kind=FieldKind.INTS,
        lo=lo,
        hi=hi,
        min_items=items[0],
        max_items=items[1],
        doc=doc,
    )


class ActionSpec(Generic[G]):
    """One entry of a game's handler table: an action's schema and what plays it.

    ``turn``: only the seat to move may send the action (Mathable's ``quit``
    vote is the one action any seat may send at any time).

    A plain class with read-only attributes, not a frozen dataclass: mypyc
    (the compiled build, see :mod:`tilehall.server.build`) cannot make a
    generic dataclass.
    """

    __slots__ = ("_names", "do", "doc", "fields", "handler", "turn")

    def __init__(
        self,
        *,
        do: str,
        doc: str,
        handler: Handler[G],
        fields: tuple[ActionField, ...] = (),
        turn: bool = True,
    ) -> None:
        if not do or do.startswith("_"):
            raise ValueError(f"{do!r} cannot name an action: '_' marks the room's own")
        names = [f.name for f in fields]
        if len(set(names)) != len(names):
            raise ValueError(f"action {do!r} declares a field twice: {names}")
        self.do: Final = do
        self.doc: Final = doc
        self.handler: Final = handler
        self.fields: Final = fields
        self.turn: Final = turn
        self._names: Final = frozenset(("do", *names))

    def __repr__(self) -> str:
        return f"ActionSpec(do={self.do!r}, fields={self.fields!r}, turn={self.turn!r})"

    def normalize(self, action: Mapping[Any, Any]) -> Action:
        """``action`` (whose ``do`` is this one) with only declared fields, in canonical types.

        Raises:
            InvalidMove: ``bad_field`` for a field the action does not declare,
                then, field by field in declared order, ``missing_field`` (absent
                or null) or ``bad_field`` (``bad_cell``: a cell off the board).
        """
        names = self._names
        for key in action:
            if key not in names:
                raise _bad(f"action {self.do!r} has no field {quote(key)}")
        out: Action = {"do": self.do}
        for f in self.fields:
            value = action.get(f.name)
            if value is None:  # left out or sent as null: the same, for every field
                if f.required:
                    raise _missing(f"action {self.do!r} needs {f.name!r} (not null)")
                continue
            out[f.name] = f.normalize(value)
        return out

    def declared(self, action: Mapping[Any, Any]) -> Action:
        """``action`` without the fields this action does not declare, otherwise as it is.

        For journals written before actions were normalised, whose accepted
        entries may carry fields the engine ignored then and refuses now.
        """
        names = self._names
        return {k: v for k, v in action.items() if k in names}

    def describe(self) -> dict[str, Any]:
        """The action as it appears in ``welcome.games[].actions``."""
        return {
            "do": self.do,
            "turn": self.turn,
            "fields": [f.describe() for f in self.fields],
            "doc": self.doc,
        }


def action_table(*specs: ActionSpec[G]) -> Mapping[str, ActionSpec[G]]:
    """A game's handler table, keyed by ``do``, in the order given."""
    table: dict[str, ActionSpec[G]] = {}
    for spec in specs:
        if spec.do in table:
            raise ValueError(f"action {spec.do!r} is declared twice")
        table[spec.do] = spec
    return table


def as_cell(value: Sequence[int]) -> tuple[int, int]:
    """A normalised cell field (a 2-list) as the ``(row, col)`` tuple engines index with."""
    return (value[0], value[1])


def on_board(cell: Iterable[int], name: str, rows: int, cols: int) -> tuple[int, int]:
    """A normalised cell checked against this room's own ``rows x cols`` board.

    For games whose board size is an option: the schema bounds a cell by the
    largest board, the engine by the one it plays on.
    """
    r, c = cell
    if not (0 <= r < rows and 0 <= c < cols):
        raise _bad_cell(f"{name!r} {[r, c]} is off the {rows}x{cols} board")
    return (r, c)


def _bad(message: str) -> InvalidMove:
    return InvalidMove(GameCode.BAD_FIELD, message)


def _bad_cell(message: str) -> InvalidMove:
    return InvalidMove(GameCode.BAD_CELL, message)


def _missing(message: str) -> InvalidMove:
    return InvalidMove(GameCode.MISSING_FIELD, message)
