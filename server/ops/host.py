"""What operations read of the running server: :class:`Host` (``tilehall.server.app.Server``).

A protocol rather than the class itself, so that operations depend on the few
things they read, and the server, which starts them, on operations; not both
ways round.
"""

from __future__ import annotations

from collections.abc import Sized
from typing import Any, Protocol

from tilehall.server.config import Config
from tilehall.server.lobby import Lobby
from websockets.asyncio.server import ServerConnection
from websockets.http11 import Request, Response

__all__ = ["ClusterOps", "Host", "WebAnswers"]


class ClusterOps(Protocol):
    """What the admin requests ask of a cluster node (``tilehall.server.cluster.Cluster``)."""

    async def cluster_rooms(self) -> list[dict[str, Any]]: ...

    def nodes(self) -> list[dict[str, Any]]: ...

    async def drain_node(self, node: str) -> None: ...

    async def undrain_node(self, node: str) -> None: ...


class WebAnswers(Protocol):
    """The web client's files, as the game port's HTTP answers with them."""

    def answer(self, request: Request) -> Response: ...


class Host(Protocol):
    """The running server, as ``/healthz``, ``/readyz``, ``/metrics`` and ``/admin`` see it."""

    config: Config
    lobby: Lobby | None
    accepting: bool

    @property
    def sessions(self) -> Sized: ...

    @property
    def web(self) -> WebAnswers | None: ...

    @property
    def cluster(self) -> ClusterOps | None: ...

    def not_ready(self) -> list[str]: ...

    def banned_for(self, ip: str) -> float: ...

    def ban(self, ip: str, reason: str = "flooding") -> None: ...

    def address_of(self, ws: ServerConnection, request: Request | None = None) -> str: ...
