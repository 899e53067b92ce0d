"""The two kinds of refused action, kept apart as python-chess does.

* :class:`InvalidMove` - the action is malformed (missing field, wrong type, a
  square off the board). The client spoke badly.
* :class:`IllegalMove` - the action is well formed but the rules forbid it now.

Both carry a stable snake_case ``code`` that goes on the wire (a
:class:`~tilehall.protocol.GameCode`) and a message that quotes the offending
input. An engine that raises has changed nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["GameError", "IllegalMove", "InvalidMove"]


class GameError(Exception):
    """A refused action; ``code`` is stable and goes on the wire.

    ``cells`` (``[row, col]`` squares) and ``tiles`` (tiles, stones or numbers as the
    game's view holds them) are what the refusal is about, as fields of the ``error``
    frame: a client names them the way its board does ("g6", "the 6 of characters"),
    in words shared by every client, where the message can only quote them raw.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        cells: Sequence[Sequence[int]] = (),
        tiles: Sequence[Any] = (),
    ) -> None:
        super().__init__(message)
        # The plain string, as ProtocolError keeps it: what is sent is the value.
        self.code = str(code)
        self.message = message
        self.cells = [[int(v) for v in cell] for cell in cells]
        self.tiles = [list(t) if isinstance(t, tuple | list) else t for t in tiles]


class InvalidMove(GameError):
    """The action is malformed: the client spoke badly."""


class IllegalMove(GameError):
    """The action is well formed but against the rules at this moment."""
