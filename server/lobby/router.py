"""The lobby: its pieces, and the routing of each request to its handler.

:class:`Lobby` is made of one :class:`~.registry.Registry` (the rooms run here)
and a piece per seam over it: :class:`~.listing.Listing`,
:class:`~.membership.Membership`, :class:`~.making.Making`,
:class:`~.records.Records`, :class:`~.accounts.Accounts`. Its routing table,
:attr:`Lobby.routes`, sends each request type to its piece's handler;
:meth:`Lobby.receive` turns a handler's reply or refusal into the frame sent
back. In a cluster, the requests about rooms another node hosts are routed
there before they reach these handlers (:mod:`tilehall.server.cluster.routing`).

``act`` goes straight from here to its room: the one request of every move
needs nothing else of the lobby.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from tilehall.protocol import VERSION, ErrorCode, ProtocolError
from tilehall.protocol.schema import PAGE_MAX
from tilehall.server.clock import Clock
from tilehall.server.config import Config
from tilehall.server.games.base import GameError
from tilehall.server.lobby.accounts import Accounts
from tilehall.server.lobby.listing import Listing
from tilehall.server.lobby.making import Making
from tilehall.server.lobby.membership import Membership
from tilehall.server.lobby.pages import ROOMS_PER_REQUEST, Frame
from tilehall.server.lobby.records import Records
from tilehall.server.lobby.registry import Registry
from tilehall.server.lobby.showcase import Showcase
from tilehall.server.names.passwords import Hasher
from tilehall.server.net.session import BYTES_PER_REQUEST
from tilehall.server.ops.metrics import Metrics
from tilehall.server.room import Room
from tilehall.server.room.member import Member
from tilehall.server.store.base import Store
from tilehall.server.store.errors import StoreUnavailable
from tilehall.server.store.health import StoreHealth

__all__ = ["BEFORE_HELLO", "Lobby", "Reply", "Route"]

log = logging.getLogger(__name__)

Reply = dict[str, Any] | Frame | None
"""A handler's answer: a message, a :class:`Frame` already encoded, or None (the handler
sent what answers, or updates say it: ``act``'s is the actor's update, carrying ``re``)."""

Route = Callable[[Member, dict[str, Any]], Awaitable[Reply]]
"""A request's handler: the member who sent it and the request, to its reply."""

BEFORE_HELLO = frozenset({"ping", "hello"})
"""The requests answered before ``hello``; any other is refused ``hello_first``."""


class Lobby:
    """The rooms of this server and the requests about them.

    Args:
        config: the server's settings (its limits, its node name in a cluster).
        store: players, rooms, journals and scores.
        clock: wall time and timers for the lobby and every room (the system's
            by default; tests pass one they move themselves).
        hasher: the Argon2id pool for passwords (tests pass a cheaper one).
    """

    def __init__(
        self,
        config: Config,
        store: Store,
        *,
        clock: Clock | None = None,
        hasher: Hasher | None = None,
    ) -> None:
        self.registry = registry = Registry(config, store, clock=clock)
        self.listing = Listing(registry)
        self.membership = membership = Membership(registry)
        self.making = making = Making(registry, membership)
        self.records = records = Records(registry)
        self.accounts = accounts = Accounts(registry, hasher=hasher)
        self.showcase = Showcase(registry, making)
        """The server's own game for the lobby to show (run by the server unless
        ``--no-showcase``)."""
        self.routes: dict[str, Route] = {
            "ping": self._ping,
            "hello": self.hello,
            "act": self.act,
            "rooms": self.listing.rooms,
            "create": making.create,
            "match": making.match,
            "join": membership.join,
            "watch": membership.watch,
            "leave": membership.leave,
            "scores": records.scores,
            "history": records.history,
            "replay": records.replay,
            "leaderboard": records.leaderboard,
            "chat": membership.chat,
            "set_password": accounts.set_password,
            "sign_out": accounts.sign_out,  # it sends signed_out itself, then closes
        }
        """Each request type a connection may send, to its handler."""

    # -- the lobby's face: what the server and its operators read ----------------------

    @property
    def rooms(self) -> dict[str, Room]:
        """The rooms run here, by id."""
        return self.registry.rooms

    @property
    def metrics(self) -> Metrics:
        return self.registry.metrics

    @property
    def health(self) -> StoreHealth:
        return self.registry.health

    @property
    def store(self) -> Store:
        return self.registry.store

    # -- requests -----------------------------------------------------------------------

    async def receive(self, member: Member, msg: dict[str, Any]) -> int:
        """Answer one decoded, valid request of ``member``: its reply or its refusal.

        Either carries ``re`` when the request had an ``id``. A refusal changes
        nothing; an unexpected failure is logged and answered ``internal_error``
        without its detail (the connection and the rooms go on).

        Returns how many requests of the member's budget this one counts as: 1,
        or more for a ``rooms`` page of many rooms (:func:`rooms_cost`).
        """
        re = msg.get("id")
        try:
            t = msg["t"]
            route = self.routes.get(t)
            if route is None:
                raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {t!r}")
            if member.player is None and t not in BEFORE_HELLO:
                raise ProtocolError(ErrorCode.HELLO_FIRST, f"say hello before {t!r}")
            reply = await route(member, msg)
        except ProtocolError as exc:
            self.refuse(
                member,
                exc.code,
                exc.message,
                exc.re if exc.re is not None else re,
                retry_after=exc.retry_after,
                cells=exc.cells,  # a game's refusal relayed from the room's host
                tiles=exc.tiles,
            )
        except StoreUnavailable as exc:
            health = self.registry.health
            health.failed(exc)
            self.refuse(
                member,
                ErrorCode.UNAVAILABLE,
                "the server cannot reach its database now; nothing was done, try again",
                re,
                retry_after=health.retry_after,
            )
        except GameError as exc:
            self.refuse(member, exc.code, exc.message, re, cells=exc.cells, tiles=exc.tiles)
        except Exception:
            log.exception("request from %s failed", member.peer)
            self.refuse(member, ErrorCode.INTERNAL_ERROR, "internal error", re)
        else:
            if isinstance(reply, Frame):
                member.send(reply.data)
                return reply.cost
            if isinstance(reply, dict):
                if re is not None:
                    reply["re"] = re
                member.send_msg(reply)
        return 1

    def refuse(
        self,
        member: Member,
        code: str,
        message: str,
        re: int | None,
        *,
        retry_after: float | None = None,
        cells: list[list[int]] | None = None,
        tiles: list[Any] | None = None,
    ) -> None:
        """Send ``member`` an ``error`` frame (counted by code for ``/metrics``); a game's
        refusal names the ``cells`` and ``tiles`` it is about."""
        self.registry.metrics.errors[code] += 1
        err = ProtocolError(
            code, message, re, retry_after=retry_after, cells=cells, tiles=tiles
        ).to_message()
        member.send_msg(err)

    def act(self, member: Member, msg: dict[str, Any]) -> Awaitable[None]:
        """``msg``'s action, to its room: done once its update is sent or it is refused."""
        room = self.registry.rooms.get(msg["room"])
        if room is None:
            raise ProtocolError(ErrorCode.UNKNOWN_ROOM, f"there is no room {msg['room'][:64]!r}")
        return room.act(member, msg["action"], msg.get("seq"), msg.get("id"))

    async def _ping(self, member: Member, msg: dict[str, Any]) -> Reply:
        return {"t": "pong"}

    def disconnect(self, session: Member) -> None:
        """A connection ended: signed in no more, and out of every room it was in."""
        self.accounts.disconnect(session)
        self.membership.disconnect(session)

    # -- hello -----------------------------------------------------------------------------

    async def hello(self, session: Member, msg: dict[str, Any]) -> dict[str, Any]:
        if session.player is not None:
            raise ProtocolError(ErrorCode.ALREADY_WELCOMED, "this connection already said hello")
        if msg["v"] != VERSION:
            raise ProtocolError(
                ErrorCode.UNSUPPORTED_VERSION,
                f"protocol version {msg['v']} is not supported; this server speaks {VERSION}",
            )
        accounts, registry = self.accounts, self.registry
        player, token, protected = await accounts.identify(session, msg)
        if msg.get("bot"):
            await registry.store.mark_bot(player.id)  # its scores stand apart from people's
        session.player = player
        accounts.signed_on(session, token)
        session.compact = bool(msg.get("compact"))
        mine = [r.id for r in registry.rooms.values() if r.seat_of(player.id) is not None]
        mine += registry.others.seated(player.id)
        return {
            "t": "welcome",
            "v": VERSION,
            "player": player.name,
            "token": token,
            "password": protected,
            "games": registry.games,
            "rooms": mine,
            "limits": self.limits_for(bot=bool(msg.get("bot"))),
            "compact": session.compact,
            "ratings": await self.records.ratings_of(player.id),
        }

    def limits_for(self, *, bot: bool) -> dict[str, Any]:
        """What ``welcome.limits`` tells a client: pace yourself by these and never be refused."""
        limits = self.registry.config.limits
        rate = (limits.bot_rate or limits.rate) if bot else limits.rate
        burst = (limits.bot_burst or limits.burst) if bot else limits.burst
        return {
            "rate": rate,
            "burst": burst,
            "initial_burst": min(limits.initial_burst, burst),
            "backlog": limits.pace_backlog,
            "frame": limits.max_frame,
            "action": limits.max_action,
            "rooms": limits.max_rooms_per_player,
            "page": PAGE_MAX,
            "rooms_per_request": ROOMS_PER_REQUEST,
            "bytes_per_request": BYTES_PER_REQUEST,
        }
