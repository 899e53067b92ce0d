"""The two kinds of refused action, kept apart as python-chess does.

* :class:`InvalidMove` - the action is malformed (missing field, wrong type, a
  square off the board). The client spoke badly.
* :class:`IllegalMove` - the action is well formed but the rules forbid it now.

Both carry a stable snake_case ``code`` that goes on the wire (a
:class:`~tilehall.protocol.GameCode`) and a message that quotes the offending
input. An engine that raises has changed nothing.
"""

from __future__ import annotations

__all__ = ["GameError", "IllegalMove", "InvalidMove"]


class GameError(Exception):
    """A refused action; ``code`` is stable and goes on the wire."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        # The plain string, as ProtocolError keeps it: what is sent is the value.
        self.code = str(code)
        self.message = message


class InvalidMove(GameError):
    """The action is malformed: the client spoke badly."""


class IllegalMove(GameError):
    """The action is well formed but against the rules at this moment."""
