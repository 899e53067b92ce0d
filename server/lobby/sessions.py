"""Sessions and the routing of requests: ``hello``, then each type to its handler.

:data:`ROUTES` is the table of the requests a connection may send, by type,
each to its handler in the module of its seam (:mod:`.listing`,
:mod:`.making`, :mod:`.membership`, :mod:`.records`); :meth:`Lobby.receive`
turns a handler's reply or refusal into the frame sent back.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from tilehall.protocol import VERSION, ErrorCode, ProtocolError
from tilehall.protocol.schema import PAGE_MAX
from tilehall.server.games.base import GameError
from tilehall.server.lobby.accounts import Accounts
from tilehall.server.lobby.pages import ROOMS_PER_REQUEST, Frame
from tilehall.server.member import Member
from tilehall.server.session import BYTES_PER_REQUEST
from tilehall.server.store.base import (
    StoreUnavailable,
)

if TYPE_CHECKING:
    pass

__all__ = ["ROUTES", "Lobby"]

log = logging.getLogger(__name__)

Reply = dict[str, Any] | Frame | bool | None
"""A handler's answer: a message, a :class:`Frame` already encoded, or None or a bool (updates
say it: ``act`` hands back its room's coroutine, which says whether the move was journaled)."""

Handler = Callable[["Lobby", Member, dict[str, Any]], Awaitable[Reply]]


class Lobby(Accounts):
    """The rooms of this server and the requests about them.

    Args:
        config: the server's settings (its limits, its node name in a cluster).
        store: players, rooms, journals and scores.
        clock: wall time and timers for the lobby and every room (the system's
            by default; tests pass one they move themselves).
    """

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
            # The handler's coroutine is awaited here, not through request's: one
            # coroutine less for every frame (and alive while an act waits for its append).
            reply = await self._route(member, msg)(self, member, msg)
        except ProtocolError as exc:
            self.refuse(
                member,
                exc.code,
                exc.message,
                exc.re if exc.re is not None else re,
                retry_after=exc.retry_after,
            )
        except StoreUnavailable as exc:
            self.health.failed(exc)
            self.refuse(
                member,
                ErrorCode.UNAVAILABLE,
                "the server cannot reach its database now; nothing was done, try again",
                re,
                retry_after=self.health.retry_after,
            )
        except GameError as exc:
            self.refuse(member, exc.code, exc.message, re)
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
    ) -> None:
        """Send ``member`` an ``error`` frame (counted by code for ``/metrics``)."""
        self.metrics.errors[code] += 1
        err = ProtocolError(code, message, re, retry_after=retry_after).to_message()
        member.send_msg(err)

    async def request(self, member: Member, msg: dict[str, Any]) -> Reply:
        """Route one valid request by its type (:data:`ROUTES`); return the reply.

        A reply is a message, a :class:`Frame` already encoded with its ``re``,
        or None when updates say it all.

        Raises:
            ProtocolError, GameError: the refusal, with its stable code.
        """
        return await self._route(member, msg)(self, member, msg)

    def _route(self, member: Member, msg: dict[str, Any]) -> Handler:
        """The handler of ``msg``'s type, if ``member`` may send it now.

        Raises:
            ProtocolError: an unknown type, or anything but ``hello``/``ping`` before hello.
        """
        t = msg["t"]
        handler = ROUTES.get(t)
        if handler is None:
            raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {t!r}")
        if member.player is None and t not in BEFORE_HELLO:
            raise ProtocolError(ErrorCode.HELLO_FIRST, f"say hello before {t!r}")
        return handler

    # -- sessions ---------------------------------------------------------------------

    async def hello(self, session: Member, msg: dict[str, Any]) -> dict[str, Any]:
        if session.player is not None:
            raise ProtocolError(ErrorCode.ALREADY_WELCOMED, "this connection already said hello")
        if msg["v"] != VERSION:
            raise ProtocolError(
                ErrorCode.UNSUPPORTED_VERSION,
                f"protocol version {msg['v']} is not supported; this server speaks {VERSION}",
            )
        player, token = await self.identify(session, msg)
        if msg.get("bot"):
            await self.store.mark_bot(player.id)  # its scores stand apart from people's
        session.player = player
        self.signed_on(session, token)
        session.compact = bool(msg.get("compact"))
        mine = [r.id for r in self.rooms.values() if r.seat_of(player.id) is not None]
        if self.bus is not None:
            mine += self.bus.seated(player.id)
        return {
            "t": "welcome",
            "v": VERSION,
            "player": player.name,
            "token": token,
            "games": self._games,
            "rooms": mine,
            "limits": self.limits_for(bot=bool(msg.get("bot"))),
            "compact": session.compact,
            "ratings": await self._ratings_of(player.id),
        }

    def limits_for(self, *, bot: bool) -> dict[str, Any]:
        """What ``welcome.limits`` tells a client: pace yourself by these and never be refused."""
        limits = self.config.limits
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


async def _ping(lobby: Lobby, member: Member, msg: dict[str, Any]) -> Reply:
    return {"t": "pong"}


async def _rooms(lobby: Lobby, member: Member, msg: dict[str, Any]) -> Reply:
    return lobby.list_rooms(msg)


ROUTES: dict[str, Handler] = {
    "ping": _ping,
    "hello": Lobby.hello,
    "act": Lobby.act,  # None: the actor's update, carrying re, is its reply
    "rooms": _rooms,
    "create": Lobby.create,
    "match": Lobby.match,
    "join": Lobby.join,
    "watch": Lobby.watch,
    "leave": Lobby.leave,
    "scores": Lobby.scores,
    "history": Lobby.history,
    "replay": Lobby.replay,
    "leaderboard": Lobby.leaderboard,
    "chat": Lobby.chat,
    "set_password": Lobby.set_password,
    "sign_out": Lobby.sign_out,  # None: it sends signed_out itself, then closes
}
"""Each request type a connection may send, to its handler (its module: the seam it is of)."""

BEFORE_HELLO = frozenset({"ping", "hello"})
"""The requests answered before ``hello``; any other is refused ``hello_first``."""
