"""Where clients remember who they are: the player name and token for each server.

Kept in ``$XDG_CONFIG_HOME/tilehall/players.json`` (``~/.config/...`` by default,
``$TILEHALL_CONFIG`` overrides the folder), readable only by its owner since a
token is a password.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_URL", "config_dir", "forget", "load_identity", "save_identity"]

DEFAULT_URL = "ws://127.0.0.1:8765"


def config_dir() -> Path:
    if env := os.environ.get("TILEHALL_CONFIG"):
        return Path(env)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "tilehall"


def _path() -> Path:
    return config_dir() / "players.json"


def _load() -> dict[str, Any]:
    try:
        data = json.loads(_path().read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def load_identity(url: str) -> tuple[str | None, str | None]:
    """The ``(name, token)`` remembered for ``url``, or ``(None, None)``."""
    entry = _load().get(url) or {}
    return entry.get("name"), entry.get("token")


def save_identity(url: str, name: str, token: str) -> None:
    """Remember ``name`` and ``token`` for ``url`` (file mode 0600)."""
    data = _load()
    data[url] = {"name": name, "token": token}
    path = _path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2))
    tmp.chmod(0o600)
    tmp.replace(path)


def forget(url: str) -> None:
    data = _load()
    if data.pop(url, None) is not None:
        _path().write_text(json.dumps(data, indent=2))
