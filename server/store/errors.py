"""What a store raises: a name or room id taken, an append refused, the store away."""

from __future__ import annotations

__all__ = ["AppendRefused", "NameTaken", "RoomTaken", "StoreUnavailable"]


class NameTaken(Exception):
    """A player name is already used: the same ignoring case, or confusable with it.

    See :mod:`tilehall.server.names`: the players table keeps each name's
    :func:`~tilehall.server.names.name_key` and
    :func:`~tilehall.server.names.skeleton` under unique indexes.
    """


class RoomTaken(Exception):
    """A new room's id is already used by a room of the store, open or finished: the
    lobby draws another.

    A public room's id is short (``r`` and 8 hex digits, 32 random bits) so that
    people can read and type it. Two of 10,000 rooms share one about once in 86
    stores, and a store that has kept 100,000 rooms (finished games stay for
    their replays) has seen about one such draw.
    """


class AppendRefused(Exception):
    """The journal kept no entry: its seq is already taken, or the room moved to another node."""


class StoreUnavailable(Exception):
    """The store did not answer, or could not write (server down, connection lost, disk full).

    The outcome of the operation is unknown: a write may or may not have been
    committed. Whoever needs to know reads it back once :meth:`Store.ping`
    succeeds again. The driver's own exception is chained as ``__cause__``.
    """
