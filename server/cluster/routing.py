"""Routing around the lobby: a request about a room another node hosts goes there.

The lobby's handlers know only the rooms run here (:mod:`tilehall.server.lobby`);
none of them asks whether a room is remote. The cluster wraps the routes of the
requests that name a room (``join``, ``watch``, ``leave``, ``act``, ``chat``): a
room this node runs (by id or private code) goes to the lobby's handler as it
would alone; one another node hosts goes to its proxy
(:class:`~.relay.RemoteRoom`), which sends the reply itself, in order with the
host's frames.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from tilehall.server.cluster.hosting import RELAYED
from tilehall.server.cluster.relay import RemoteRoom
from tilehall.server.lobby import Lobby, Reply, Route
from tilehall.server.room.member import Member

__all__ = ["route_remote_first"]

Find = Callable[[Member, dict[str, Any]], Awaitable[RemoteRoom | None]]
"""The proxy of the room a request names, if another node hosts it."""


def route_remote_first(lobby: Lobby, find: Find) -> None:
    """Wrap ``lobby``'s routes of the requests that name a room: remote rooms first."""
    for op in RELAYED:
        lobby.routes[op] = _remote_first(op, lobby, lobby.routes[op], find)


def _remote_first(op: str, lobby: Lobby, here: Route, find: Find) -> Route:
    registry = lobby.registry

    async def route(member: Member, msg: dict[str, Any]) -> Reply:
        if msg.get("room") not in registry.rooms and msg.get("code") not in registry.by_code:
            remote = await find(member, msg)
            if remote is not None:
                await getattr(remote, op)(member, msg)  # it sends the reply itself, in order
                return None
        return await here(member, msg)

    return route
