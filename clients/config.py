"""Where clients remember who they are: every name used on a server, each with its token.

Kept in ``$XDG_CONFIG_HOME/tilehall/players.json`` (``~/.config/...`` by default,
``$TILEHALL_CONFIG`` overrides the folder), readable only by its owner since a
token is a password: the folder 0700, the file 0600 from the moment it is
created (never a moment readable by others). For each server URL::

    {"names": {"ada": "<token>", "bea": "<token>"}, "name": "bea", "token": "<token>"}

``names`` holds every name played there (so starting as ``bea`` never loses
``ada``'s token); ``name``/``token`` are the last one used, which is also the
whole entry as clients before this format wrote it. An entry of that old form
is read as a ``names`` of one, and nothing in it is lost when it is written
back; a client of the old form still finds its last name in the new one.
"""

from __future__ import annotations

import contextlib
import json
import os
import unicodedata
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_URL",
    "config_dir",
    "forget",
    "known_names",
    "load_identity",
    "save_identity",
]

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


def _names(entry: Any) -> dict[str, str]:
    """Every ``name: token`` of one server's entry, of either form."""
    if not isinstance(entry, dict):
        return {}
    names = entry.get("names")
    found = (
        {k: v for k, v in names.items() if isinstance(k, str) and isinstance(v, str)}
        if isinstance(names, dict)
        else {}
    )
    name, token = entry.get("name"), entry.get("token")
    if isinstance(name, str) and isinstance(token, str):
        found.setdefault(name, token)  # the old form's one name, or the last one used
    return found


def _same(a: str, b: str) -> bool:
    """Whether two names are one as the server's name key has it (NFKC, case): ``ADA`` typed in
    fullwidth letters is ``ada``. Look-alikes of other scripts the server alone knows."""
    return _key(a) == _key(b)


def _key(name: str) -> str:
    folded = unicodedata.normalize("NFKC", name).casefold()
    return unicodedata.normalize("NFKC", folded)


def known_names(url: str) -> list[str]:
    """Every name remembered for ``url``, the last one used first."""
    entry = _load().get(url)
    names = list(_names(entry))
    last = entry.get("name") if isinstance(entry, dict) else None
    if isinstance(last, str) and last in names:
        names.remove(last)
        names.insert(0, last)
    return names


def load_identity(url: str, name: str | None = None) -> tuple[str | None, str | None]:
    """The ``(name, token)`` remembered for ``url``: of ``name`` if given, else the last used.

    ``name`` is matched ignoring case; ``(name, None)`` when it has no token here
    (a new name, or one taken back), ``(None, None)`` when nothing is remembered.
    """
    entry = _load().get(url)
    names = _names(entry)
    if name is None:
        last = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(last, str) or last not in names:
            return None, None
        return last, names[last]
    for known, token in names.items():
        if _same(known, name):
            return known, token
    return name, None


def save_identity(url: str, name: str, token: str) -> None:
    """Remember ``name`` and its ``token`` for ``url`` beside the others (file mode 0600)."""
    data = _load()
    names = {k: v for k, v in _names(data.get(url)).items() if not _same(k, name)}
    names[name] = token
    data[url] = {"names": names, "name": name, "token": token}
    _write(data)


def forget(url: str, name: str | None = None) -> None:
    """Forget ``name``'s token for ``url`` (signed out), or every name there.

    When ``name`` was the last one used, no other becomes the default: the next
    start asks who plays rather than sign in silently as someone else.
    """
    data = _load()
    if name is None:
        if data.pop(url, None) is None:
            return
    else:
        entry = data.get(url)
        names = {k: v for k, v in _names(entry).items() if not _same(k, name)}
        last = entry.get("name") if isinstance(entry, dict) else None
        data[url] = {"names": names}
        if isinstance(last, str) and last in names:
            data[url].update(name=last, token=names[last])
    _write(data)


def _write(data: dict[str, Any]) -> None:
    """Replace the file in one step, 0600 from the start, in a folder of its owner's alone."""
    path = _path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    with contextlib.suppress(PermissionError):  # a folder not ours: the file is 0600 anyway
        path.parent.chmod(0o700)  # mkdir's mode passes through the umask
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # a leftover of that name keeps its mode otherwise
    with open(fd, "w", encoding="utf-8") as out:
        out.write(json.dumps(data, indent=2))
    os.replace(tmp, path)
