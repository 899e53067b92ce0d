"""The lobby: every request of a connection, and the rooms of this server.

One :class:`Lobby` per server process. It turns decoded requests into replies
and refusals (:meth:`Lobby.receive`) for any :class:`~tilehall.server.room.member.Member`;
the WebSocket handling around it lives in :mod:`tilehall.server.app`, so the
lobby and its rooms can be driven in memory, with a clock the caller moves.

It is one registry and a piece per seam over it, each a module:

- :mod:`.registry`: the rooms run here, their indexes, start-up, expiry, closing;
- :mod:`.others`: the other nodes of a cluster, as the lobby sees them (none, alone);
- :mod:`.pages`: bounded, pre-packed pages (``rooms``, ``history``);
- :mod:`.listing`: ``rooms``;
- :mod:`.membership`: ``join``, ``watch``, ``leave``, ``chat``;
- :mod:`.making`: ``create`` and ``match``;
- :mod:`.records`: ``scores``, ``history``, ``replay``, ``leaderboard``;
- :mod:`.accounts`: who says ``hello``, ``set_password``, ``sign_out``, a host's bar;
- :mod:`.router`: the :class:`Lobby` itself, ``hello``, ``act``, and the routing table.
"""

from tilehall.server.lobby.others import Alone, Others
from tilehall.server.lobby.pages import PAGE_BYTES, Frame, rooms_cost
from tilehall.server.lobby.registry import Registry, hash_token
from tilehall.server.lobby.router import BEFORE_HELLO, Lobby, Reply, Route

__all__ = [
    "BEFORE_HELLO",
    "PAGE_BYTES",
    "Alone",
    "Frame",
    "Lobby",
    "Others",
    "Registry",
    "Reply",
    "Route",
    "hash_token",
    "rooms_cost",
]
