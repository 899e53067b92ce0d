"""Server settings, with every limit in one place and documented where declared."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Config", "Limits", "default_data_dir"]


def default_data_dir() -> Path:
    """``$TILEHALL_DATA``, else ``$XDG_DATA_HOME/tilehall``, else ``~/.local/share/tilehall``."""
    if env := os.environ.get("TILEHALL_DATA"):
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "tilehall"


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """What one connection may cost the server.

    A client over a limit gets ``rate_limited`` errors; one that keeps it up is
    disconnected. A client that stops reading is disconnected once its send
    queue is full: the server never buffers without bound for a slow receiver,
    and a slow receiver never stalls a room.
    """

    max_frame: int = 64 * 1024
    """Largest frame accepted, in bytes; a larger one closes with 1009."""
    rate: float = 50.0
    """Sustained requests per second per connection (token bucket refill)."""
    burst: int = 100
    """Requests a connection may send at once (token bucket size)."""
    initial_burst: int = 20
    """Requests a new connection may send at once; its allowance then grows to
    ``burst`` at ``rate``. A flooder that is cut off and comes back starts small."""
    max_strikes: int = 200
    """Requests refused as rate-limited before the connection is closed (1008)."""
    send_queue: int = 256
    """Frames waiting for a slow client before it is disconnected (1008)."""
    ping_interval: float | None = 20.0
    """Seconds between keepalive pings; None disables them."""
    ping_timeout: float | None = 20.0
    """Seconds to wait for a pong before closing the connection."""
    close_timeout: float = 5.0
    """Seconds to wait for a peer's close handshake (a peer that never reads) before
    dropping the TCP connection."""
    flood_ban: float = 10.0
    """Seconds an address whose connection was cut off for flooding may not open new
    ones (HTTP 429 at the handshake, before any WebSocket or player exists); 0 disables.
    Its other open connections are left alone. Behind a proxy every client shares
    its address unless the proxy is in ``Config.trusted_proxies``: otherwise set 0."""
    max_connections_per_ip: int = 0
    """Concurrent connections from one address; 0 means unlimited."""
    finished_ttl: float = 120.0
    """Seconds a finished room stays in memory (for late spectators) before it is
    dropped; its journal and result stay in the store."""
    bot_think: float = 0.25
    """Seconds of thinking a COMP seat gets per decision."""
    bot_delay: float = 0.3
    """Pause before a COMP move so that people can follow the game."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    """Everything ``tilehall-server`` can be told."""

    host: str = "127.0.0.1"
    port: int = 8765
    data_dir: Path = field(default_factory=default_data_dir)
    db: str | None = None
    """Store URL: a SQLite path (default ``DATA_DIR/tilehall.sqlite3``) or postgresql://..."""
    certfile: Path | None = None
    """Serve ``wss://`` directly: the certificate chain (PEM); None serves plain ``ws://``."""
    keyfile: Path | None = None
    """The private key (PEM) of ``certfile``, unless that file holds it too."""
    node: str = ""
    """This node's name in a cluster (the hostname when ``mqtt`` is set and this is empty)."""
    mqtt: str | None = None
    """Cluster mode: the MQTT broker, ``mqtt://[user:password@]host:port[/prefix]``
    (``mqtts://`` for TLS). Needs a PostgreSQL store shared by the nodes."""
    mqtt_keepalive: int = 10
    """Seconds between MQTT keepalives; a node silent for 1.5 times this is declared
    dead by the broker (its Last Will) and its rooms are taken over."""
    loop: str = "asyncio"
    """The event loop ``tilehall-server`` runs on: ``asyncio`` or ``uvloop`` (an extra)."""
    trusted_proxies: tuple[str, ...] = ()
    """Reverse proxies (addresses or CIDR blocks) whose ``X-Forwarded-For`` names the
    client: the per-address limits then count players, not the proxy (see
    :mod:`server.forwarded`). Empty: the header is ignored."""
    limits: Limits = field(default_factory=Limits)

    @property
    def db_url(self) -> str:
        return self.db or str(self.data_dir / "tilehall.sqlite3")
