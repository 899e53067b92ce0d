"""The admin key and where the admin listener is, in the data directory (both 0600).

Read by the server (:mod:`.listener`) and by ``tilehall-server admin``
(:mod:`.command`), which finds a running server through them.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from tilehall.server.config import Config
from tilehall.server.files import create_private, private_dir, write_private

__all__ = ["ADMIN_FILE", "ADMIN_KEY", "admin_key", "admin_port", "read_admin_key"]

ADMIN_KEY = "admin.key"
"""The admin key's file in the data directory."""
ADMIN_FILE = "admin.json"
"""Where the running server's admin listener is (``url``, ``pid``), in the data directory."""


def admin_key(data_dir: Path) -> str:
    """The admin key of this data directory, made on first use; 0600 either way.

    An empty file (a disk that filled as it was written) gets a new key: an
    empty key would let in anyone who sends none.
    """
    path = data_dir / ADMIN_KEY
    private_dir(data_dir, tighten=False)
    create_private(path)
    key = path.read_text().strip()
    if not key:
        key = secrets.token_urlsafe(32)
        write_private(path, key + "\n")
    return key


def read_admin_key(data_dir: Path) -> str | None:
    """The admin key a server made in ``data_dir``; None when there is none (or it is empty)."""
    try:
        return (data_dir / ADMIN_KEY).read_text().strip() or None
    except FileNotFoundError:
        return None


def admin_port(config: Config) -> int:
    """The port the admin listener asks for: ``--admin-port``, else the game port + 1.

    A free one (0) when the game port is itself picked freely, so that servers
    started side by side (tests) do not collide.
    """
    if config.admin_port is not None:
        return config.admin_port
    return config.port + 1 if 0 < config.port < 65535 else 0
