"""Lines (CLines): move chips along free paths so that chips of one colour line up.

One seat plays against the computer's random throws. Every turn the player moves
one chip to an empty cell it can reach through empty cells by horizontal and
vertical steps. Lines of at least ``min_line`` chips of one colour through the
moved chip (horizontal, vertical and both diagonals) are removed and score; a
chip on two lines is removed and counted once. A scoring move earns another move
at once; any other move lets the computer throw ``throw`` chips of random
colours on random empty cells, and lines those chips form are removed and score
too. The game ends when the computer has no room for its throw.

Points for one removal of ``n`` chips: ``n + n*(n - min_line) + b*b``, ``b`` the
number of consecutive scoring player moves before this one (0 for a throw; a
throw resets it). This is the man page's ``b*b + n*(n - min)`` with one point per
chip on top, as ``protocol/games/lines.md`` has it.

Choices where the man page is silent (documented in ``protocol/games/lines.md``):

* ``initial`` may not exceed the board's cells (:class:`OptionError` names it);
  ``throw`` may: such a game simply ends at the first computer turn.
* A player with no chip left to move (a scoring move emptied the board) cannot
  move, so the computer throws at once.
* A throw whose lines empty the board is followed by another throw, for the
  same reason. If a throw onto an empty board empties it again, the game ends
  (``board_empty``): on tiny boards with short lines every throw could clear
  itself, and the game must not loop forever.
* The game also ends when the throw fills the board (``board_full``): no chip
  can move, and the man page's objective is to keep the board from filling up.
* The colours of the next throw are drawn as soon as the previous throw landed,
  whether or not ``preview`` shows them, so a seed plays the same with and
  without preview; where the chips land is drawn when they are thrown.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from tilehall.protocol import GameCode
from tilehall.server.games.actions import (
    Action,
    ActionSpec,
    action_table,
    cell_field,
    on_board,
)
from tilehall.server.games.base import (
    UNDO_ACTION,
    Event,
    IllegalMove,
    Option,
    OptionError,
    PositionError,
    ScoreEntry,
    SoloGame,
    option_values,
)

__all__ = [
    "LINE_DIRECTIONS",
    "PATH_STEPS",
    "EndReason",
    "Lines",
    "find_path",
    "line_points",
    "lines_through",
]

LINE_DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (1, 0), (1, 1), (1, -1))
"""Horizontal, vertical, down-right and down-left: the four ways a line can run."""

PATH_STEPS: tuple[tuple[int, int], ...] = ((-1, 0), (1, 0), (0, -1), (0, 1))
"""A moving chip steps up, down, left or right (tried in this order, so paths are stable)."""


class EndReason(enum.StrEnum):
    """Why the game ended; sent in ``game_over`` and in the view."""

    NO_ROOM = "no_room"
    """Fewer empty cells than chips to throw: the man page's end."""
    BOARD_FULL = "board_full"
    """The throw filled the board: no chip can move."""
    BOARD_EMPTY = "board_empty"
    """A throw onto an empty board removed itself: no chip to move."""
    QUIT = "quit"
    """The player stopped (CLines saves the score then too)."""


def line_points(n: int, min_line: int, streak: int) -> int:
    """Points for removing ``n`` chips at once after ``streak`` consecutive scoring moves."""
    return n + n * (n - min_line) + streak * streak


def lines_through(board: list[int], width: int, height: int, index: int, min_line: int) -> set[int]:
    """The cells (flat indices) of every line of ``min_line`` or more through ``index``.

    ``board`` is flat, row-major, 0 for empty. The chip at ``index`` is included
    once however many lines cross it; the set is empty when no line is long enough.
    """
    colour = board[index]
    if colour == 0:
        return set()
    r0, c0 = divmod(index, width)
    found: set[int] = set()
    for dr, dc in LINE_DIRECTIONS:
        run = [index]
        for sign in (1, -1):
            r, c = r0 + sign * dr, c0 + sign * dc
            while 0 <= r < height and 0 <= c < width and board[r * width + c] == colour:
                run.append(r * width + c)
                r, c = r + sign * dr, c + sign * dc
        if len(run) >= min_line:
            found.update(run)
    return found


def find_path(board: list[int], width: int, height: int, start: int, goal: int) -> list[int] | None:
    """A shortest path of flat indices from ``start`` to the empty ``goal``, or None.

    Every cell after ``start`` is empty; steps are horizontal or vertical. The
    breadth-first search tries :data:`PATH_STEPS` in order, so the same board
    always gives the same path (clients animate it; replays must agree).
    """
    parent: dict[int, int] = {start: start}
    frontier = [start]
    while frontier:
        nxt: list[int] = []
        for cell in frontier:
            r, c = divmod(cell, width)
            for dr, dc in PATH_STEPS:
                rr, cc = r + dr, c + dc
                if not (0 <= rr < height and 0 <= cc < width):
                    continue
                step = rr * width + cc
                if step in parent or board[step] != 0:
                    continue
                parent[step] = cell
                if step == goal:
                    path = [goal]
                    while path[-1] != start:
                        path.append(parent[path[-1]])
                    path.reverse()
                    return path
                nxt.append(step)
        frontier = nxt
    return None


MAX_SIDE = 20
"""The largest board width and height (options ``width`` and ``height``)."""


class Lines(SoloGame):
    """The CLines puzzle for one seat; see the module docstring for the rules."""

    view_fields: ClassVar[Mapping[str, str]] = {
        "width": "int",
        "height": "int",
        "colours": "int",
        "min_line": "int",
        "throw": "int",
        "preview": "bool",
        "board": "list",
        "score": "int",
        "streak": "int",
        "moves": "int",
        "next": "ints?",
        "warning": "str?",
        "eligible": "bool",
        "undos": "int",
        "reason": "str?",
    }
    """This game's own view fields and their shapes (its page's View table)."""
    event_fields: ClassVar[Mapping[str, Mapping[str, str]]] = {
        "moved": {"from": "cell", "to": "cell", "path": "list", "colour": "int"},
        "removed": {
            "cells": "list",
            "n": "int",
            "points": "int",
            "streak": "int",
            "by": "str",
        },
        "thrown": {"cells": "list", "colours": "ints"},
        "game_over": {"reason": "str", "score": "int"},
    }
    """This game's events by ``e`` and the shapes of their fields (its page's Events)."""
    result_fields: ClassVar[Mapping[str, str]] = {"reason": "str", "moves": "int"}
    """What this game's ``result`` adds to ``scores`` and ``winners``."""

    name = "lines"
    daily = True
    daily_counts: ClassVar[Mapping[str, str]] = {"moves": "moves"}
    title = "Lines"
    summary = "Move chips to line up five of a colour before the board fills up."
    undo_moves: ClassVar[frozenset[str]] = frozenset({"move"})
    tracks_changes: ClassVar[bool] = True
    options: ClassVar[tuple[Option, ...]] = (
        Option(
            name="width",
            label="Board width",
            kind="int",
            default=9,
            min=3,
            max=MAX_SIDE,
            doc="Board width (-w).",
        ),
        Option(
            name="height",
            label="Board height",
            kind="int",
            default=9,
            min=3,
            max=MAX_SIDE,
            doc="Board height (-t).",
        ),
        Option(
            name="colours",
            label="Chip colours",
            kind="int",
            default=5,
            min=2,
            max=9,
            doc="Chip colours (-c).",
        ),
        Option(
            name="min_line",
            label="Shortest line",
            kind="int",
            default=5,
            min=2,
            max=25,
            doc="Shortest line that is removed (-i); longer than the board means no line scores.",
        ),
        Option(
            name="throw",
            label="Chips per throw",
            kind="int",
            default=3,
            min=1,
            max=20,
            doc="Chips per computer turn (-n).",
        ),
        Option(
            name="initial",
            label="Starting chips",
            kind="int",
            default=3,
            min=1,
            max=400,
            doc="Chips thrown before the first move (-N); at most the board's cells.",
        ),
        Option(
            name="preview",
            label="Show next colours",
            kind="bool",
            default=False,
            doc="Show the colours of the next throw (not in CLines; no records).",
        ),
    )

    @classmethod
    def validate_options(cls, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Check each option's bounds, then that the initial chips fit on the board."""
        opts = option_values(cls, options)
        cells = opts["width"] * opts["height"]
        if opts["initial"] > cells:
            raise OptionError(
                "initial",
                f"option 'initial' ({opts['initial']}) is more than the {cells} cells"
                f" of a {opts['width']}x{opts['height']} board",
            )
        return opts

    _next: list[int]

    def __init__(
        self,
        *,
        options: Mapping[str, Any],
        seats: int,
        rng: random.Random,
        now: float,
        bots: frozenset[int] = frozenset(),
    ) -> None:
        super().__init__(options=options, seats=seats, rng=rng, now=now, bots=bots)
        self._settle()
        # The opening throw is the computer's first turn; what it does is in the view.
        self._next = self._draw_colours(self.opts["initial"])
        self._computer_turn()

    @classmethod
    def from_position(
        cls,
        board: Sequence[Sequence[int]],
        *,
        score: int = 0,
        streak: int = 0,
        moves: int = 0,
        next_colours: Sequence[int] | None = None,
        end: EndReason | None = None,
        options: Mapping[str, Any] | None = None,
        rng: random.Random | None = None,
        now: float = 0.0,
    ) -> Lines:
        """A game in the position ``board``, for tests and tools.

        Args:
            board: rows of colours (0 for an empty cell), as a view's ``board``;
                its shape gives the options ``width`` and ``height``. While the
                game is on it holds at least one chip and one empty cell. It may
                hold a line of ``min_line`` no move made (the rules would have
                removed it): a test may want the next chip to lengthen it.
            score, streak, moves: as in the view.
            next_colours: the colours of the computer's next throw (``throw``
                of them); by default drawn from ``rng`` as the game would.
            end: why the game ended, for a finished position.
            options: the other options; ``width`` and ``height``, if given,
                must match the board.
            rng: the game's random stream from here on (where throws land).
            now: unused by Lines, taken for the common signature.

        Raises:
            PositionError: the position breaks one of the above.
            OptionError: an option is unknown or out of bounds.
        """
        height = len(board)
        width = len(board[0]) if board else 0
        given = dict(options or {})
        for name, size in (("width", width), ("height", height)):
            if given.setdefault(name, size) != size:
                raise PositionError(f"option {name} is {given[name]}, the board's {size}")
        if any(len(row) != width for row in board):
            raise PositionError("every row of the board must be as long as the first")
        game = cls._bare(options=given, seats=1, rng=rng, now=now)
        game._settle()
        for row in board:
            for v in row:
                if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= game.colours:
                    raise PositionError(f"cells hold 0 to {game.colours}, not {v!r}")
        if score < 0 or streak < 0 or moves < 0:
            raise PositionError(f"score {score}, streak {streak}, moves {moves} are counts")
        game._board = [v for row in board for v in row]
        game._score, game._streak, game._moves = score, streak, moves
        game._end = end
        if end is None and (all(game._board) or not any(game._board)):
            raise PositionError("a game in play needs a chip to move and a cell to move to")
        if next_colours is None:
            game._next = game._draw_colours(game.throw)
        elif len(next_colours) != game.throw or not all(
            isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= game.colours
            for k in next_colours
        ):
            raise PositionError(
                f"the next throw is {game.throw} colours of 1 to {game.colours},"
                f" not {list(next_colours)}"
            )
        else:
            game._next = list(next_colours)
        return game

    def _settle(self) -> None:
        """The settings, and an empty board before the opening throw."""
        self.width: int = self.opts["width"]
        self.height: int = self.opts["height"]
        self.colours: int = self.opts["colours"]
        self.min_line: int = self.opts["min_line"]
        self.throw: int = self.opts["throw"]
        self.preview: bool = self.opts["preview"]
        self._board = [0] * (self.width * self.height)
        self._score = 0
        self._streak = 0
        self._moves = 0
        self._end = None
        self._next = []

    # -- the contract ----------------------------------------------------------

    @property
    def eligible(self) -> bool:
        """True when every option is at its default and no move was taken back: only such
        games make records.

        ``preview`` counts: CLines disables records for every option that changes
        the game's conditions, and seeing the next colours makes it easier.
        """
        return not self._undos and all(self.opts[o.name] == o.default for o in self.options)

    def revealed(self) -> dict[str, Any]:
        """The next colours, when ``preview`` is off."""
        return {} if self.preview else {"next": list(self._next)}

    def state_view(self, seat: int | None) -> dict[str, Any]:
        """Everything is public except the next colours when ``preview`` is off: each field
        read by its reader (:data:`Game.state_fields`), which a compact update reads alone
        for the fields a step recorded."""
        return self.fields_view(seat)

    def result(self) -> dict[str, Any] | None:
        """The base result plus the end reason and the number of moves."""
        out = super().result()
        if out is not None and self._end is not None:
            out["reason"] = self._end.value
            out["moves"] = self._moves
        return out

    @classmethod
    def tables(cls) -> list[str]:
        """Only games on the default options are ranked."""
        return ["default"]

    def _score_entries(self) -> list[ScoreEntry]:
        """The final score on table ``default``, for finished games on default options."""
        if self._end is None or not self.eligible:
            return []
        return [
            ScoreEntry(table="default", seat=0, score=self._score, detail={"moves": self._moves})
        ]

    # -- actions -------------------------------------------------------------------

    def _act_move(self, seat: int, action: Action, now: float) -> list[Event]:
        """Move a chip; then remove lines, or let the computer throw.

        Raises:
            IllegalMove: ``empty_source``, ``occupied`` or ``unreachable``.
            InvalidMove: ``bad_cell`` (off this room's board).
        """
        src = self._index(on_board(action["from"], "from", self.height, self.width))
        dst = self._index(on_board(action["to"], "to", self.height, self.width))
        if self._board[src] == 0:
            raise IllegalMove(
                GameCode.EMPTY_SOURCE, f"no chip at {self._cell(src)}", cells=[self._cell(src)]
            )
        if self._board[dst] != 0:
            raise IllegalMove(
                GameCode.OCCUPIED, f"{self._cell(dst)} is not empty", cells=[self._cell(dst)]
            )
        path = find_path(self._board, self.width, self.height, src, dst)
        if path is None:
            raise IllegalMove(
                GameCode.UNREACHABLE,
                f"no free path from {self._cell(src)} to {self._cell(dst)}",
                cells=[self._cell(src), self._cell(dst)],
            )
        return self._move(src, dst, path)

    def _act_quit(self, seat: int, action: Action, now: float) -> list[Event]:
        return [self._finish(EndReason.QUIT)]

    # -- rules -------------------------------------------------------------------

    def _move(self, src: int, dst: int, path: list[int]) -> list[Event]:
        """Apply a validated move and everything it causes."""
        colour = self._board[src]
        self._board[src] = 0
        self._board[dst] = colour
        self._moves += 1
        self._touch(self._cell_path(src), self._cell_path(dst), "moves")
        events: list[Event] = [
            {
                "e": "moved",
                "from": self._cell(src),
                "to": self._cell(dst),
                "path": [self._cell(i) for i in path],
                "colour": colour,
            }
        ]
        line = lines_through(self._board, self.width, self.height, dst, self.min_line)
        if not line:
            return events + self._computer_turn()
        events.append(self._remove(line, streak=self._streak, by="move"))
        self._streak += 1
        self._touch("streak")
        if not any(self._board):
            # Nothing left to move: the player's free move is void, the computer throws.
            events += self._computer_turn()
        return events

    def _computer_turn(self) -> list[Event]:
        """Throw the prepared colours on random empty cells; remove the lines they make."""
        empty = [i for i, v in enumerate(self._board) if v == 0]
        was_empty = len(empty) == len(self._board)
        colours = self._next
        if len(empty) < len(colours):
            return [self._finish(EndReason.NO_ROOM)]
        cells = self.rng.sample(empty, len(colours))
        for cell, colour in zip(cells, colours, strict=True):
            self._board[cell] = colour
            self._touch(self._cell_path(cell))
        self._streak = 0
        self._touch("streak")
        events: list[Event] = [
            {"e": "thrown", "cells": [self._cell(i) for i in cells], "colours": list(colours)}
        ]
        removed: set[int] = set()
        for cell in cells:
            removed |= lines_through(self._board, self.width, self.height, cell, self.min_line)
        if removed:
            events.append(self._remove(removed, streak=0, by="throw"))
        self._next = self._draw_colours(self.throw)
        self._touch("next")
        if all(self._board):
            events.append(self._finish(EndReason.BOARD_FULL))
        elif not any(self._board):
            # No chip to move: throw again, unless this throw already fell on an empty board.
            if was_empty:
                events.append(self._finish(EndReason.BOARD_EMPTY))
            else:
                events += self._computer_turn()
        return events

    def _remove(self, cells: set[int], *, streak: int, by: str) -> Event:
        """Clear ``cells``, score them, and say so."""
        for cell in cells:
            self._board[cell] = 0
            self._touch(self._cell_path(cell))
        n = len(cells)
        points = line_points(n, self.min_line, streak)
        self._score += points
        self._touch("score")
        return {
            "e": "removed",
            "cells": [self._cell(i) for i in sorted(cells)],
            "n": n,
            "points": points,
            "streak": streak,
            "by": by,
        }

    def _finish(self, reason: EndReason) -> Event:
        self._end = reason
        self._touch("reason")
        return {"e": "game_over", "reason": reason.value, "score": self._score}

    def _draw_colours(self, count: int) -> list[int]:
        return [self.rng.randint(1, self.colours) for _ in range(count)]

    def _warning(self) -> str | None:
        if self.min_line > max(self.width, self.height):
            return (
                f"min_line {self.min_line} is longer than the {self.width}x{self.height}"
                " board: no line can score"
            )
        return None

    def _index(self, cell: tuple[int, int]) -> int:
        return cell[0] * self.width + cell[1]

    def _cell(self, index: int) -> list[int]:
        return list(divmod(index, self.width))

    def _cell_path(self, index: int) -> tuple[str, int, int]:
        """The view path of the board's square ``index`` (a change to record)."""
        r, c = divmod(index, self.width)
        return ("board", r, c)


# The handler table is set after the class, not in its body: a class body compiled by
# mypyc (the compiled build, tilehall.server.build) cannot name its own methods.
# Each field of the view read alone (Game.state_fields), in the view's order.
Lines.state_fields = {
    "width": lambda game, seat: game.width,
    "height": lambda game, seat: game.height,
    "colours": lambda game, seat: game.colours,
    "min_line": lambda game, seat: game.min_line,
    "throw": lambda game, seat: game.throw,
    "preview": lambda game, seat: game.preview,
    "board": lambda game, seat: game._view_rows(
        game._board[r * game.width : (r + 1) * game.width] for r in range(game.height)
    ),
    "score": lambda game, seat: game._score,
    "streak": lambda game, seat: game._streak,
    "moves": lambda game, seat: game._moves,
    "next": lambda game, seat: list(game._next) if game.preview else None,
    "warning": lambda game, seat: game._warning(),
    "eligible": lambda game, seat: game.eligible,
    "reason": lambda game, seat: None if game._end is None else game._end.value,
}

Lines.actions = action_table(
    ActionSpec(
        do="move",
        handler=Lines._act_move,
        fields=(
            cell_field("from", MAX_SIDE, MAX_SIDE, "a chip, on the room's board"),
            cell_field("to", MAX_SIDE, MAX_SIDE, "an empty cell the chip can reach"),
        ),
        doc="move a chip along a free path; lines of min_line or more are removed",
    ),
    ActionSpec(
        do="quit",
        handler=Lines._act_quit,
        doc="end the game; the score counts, as when CLines is quit",
    ),
    UNDO_ACTION,
)
