"""The lobby: every request of a connection, and the rooms of this server.

One :class:`Lobby` per server process. It turns decoded requests into replies
and refusals (:meth:`Lobby.receive`) for any :class:`~tilehall.server.member.Member`;
the WebSocket handling around it lives in :mod:`tilehall.server.app`, so the
lobby and its rooms can be driven in memory, with a clock the caller moves.

It is built along its seams, one module each, each layer on the one before:

- :mod:`.registry`: the rooms run here, their indexes, start-up, expiry, closing;
- :mod:`.pages`: bounded, pre-packed pages (``rooms``, ``history``);
- :mod:`.listing`: ``rooms``;
- :mod:`.membership`: ``join``, ``watch``, ``leave``, ``act``, ``chat``;
- :mod:`.making`: ``create`` and ``match``;
- :mod:`.records`: ``scores``, ``history``, ``replay``, ``leaderboard``;
- :mod:`.accounts`: who says ``hello``, ``set_password``, ``sign_out``, a host's bar;
- :mod:`.sessions`: ``hello`` and the routing table (:data:`ROUTES`).
"""

from tilehall.server.lobby.pages import PAGE_BYTES, Frame, rooms_cost
from tilehall.server.lobby.registry import hash_token
from tilehall.server.lobby.sessions import ROUTES, Lobby

__all__ = ["PAGE_BYTES", "ROUTES", "Frame", "Lobby", "hash_token", "rooms_cost"]
