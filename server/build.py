"""Which build of the server is running: pure Python, or the hot modules compiled by mypyc.

The same source makes both. ``pip install .`` installs it as it is; with
``TILEHALL_MYPYC=1`` the project's ``setup.py`` also compiles :data:`COMPILED`
with mypyc, as black and mypy ship themselves, and the compiled extension of a
module is imported ahead of its source. That list is here, in the package, so
that the build and the server's own report (its start-up line and
``/metrics``) read the same names. This module imports nothing of the project:
``setup.py`` runs it before anything is installed.
"""

from __future__ import annotations

import functools
import importlib
import importlib.machinery

__all__ = ["COMPILED", "build_name", "compiled_modules"]

COMPILED: tuple[str, ...] = (
    # The wire: every frame in and out (untrusted input is checked here, in both builds).
    "tilehall.protocol.codec",
    "tilehall.protocol.patch",
    # What the engines stand on: action schemas, refusals, the Shisen-Sho family's boards,
    # paths, solver and deals. The engine
    # classes themselves (games/base.py and each game) are not compiled yet: a native class
    # has no __dict__ (undo pickles the engine's), and its __new__ runs __init__ (a game made
    # from a position builds itself through cls.__new__); see tests/perf/RESULTS.md.
    "tilehall.server.games.errors",
    "tilehall.server.games.actions",
    "tilehall.server.games.shisensho.bitboard",
    "tilehall.server.games.shisensho.board",
    "tilehall.server.games.shisensho.deals",
    "tilehall.server.games.shisensho.movement",
    "tilehall.server.games.shisensho.paths",
    "tilehall.server.games.shisensho.solver",
    # The room's I/O-free core: every decision of a move, its view, patch and events.
    "tilehall.server.room.core",
)
"""The modules ``TILEHALL_MYPYC=1`` compiles, by the names they install as."""


def compiled_modules() -> list[str]:
    """Those of :data:`COMPILED` that were imported from a compiled extension."""
    found = []
    for name in COMPILED:
        module = importlib.import_module(name)
        origin = getattr(module, "__file__", None) or ""
        if origin.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
            found.append(name)
    return found


@functools.cache
def build_name() -> str:
    """``mypyc`` when every listed module is compiled, ``pure`` when none is, else ``mixed``.

    ``mixed`` is a broken install (a stale extension beside changed source, or
    one missing): the server says so rather than a figure being read as one build's.
    """
    compiled = len(compiled_modules())
    if compiled == 0:
        return "pure"
    return "mypyc" if compiled == len(COMPILED) else "mixed"
