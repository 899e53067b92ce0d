"""The optional parts a client command needs, checked before anything imports them.

``pip install tilehall`` brings the server and the bot; the terminal client needs
the ``cli`` extra (Textual) and the window the ``gui`` extra (pygame-ce). Without
them ``tilehall`` and ``tilehall-gui`` would die with an import traceback; they
say instead which extra to install (:func:`tilehall.clients.words.extra_missing`).
"""

from __future__ import annotations

import importlib
import sys

from tilehall.clients.words import extra_missing

__all__ = ["require"]


def require(module: str, *, extra: str, command: str) -> None:
    """Import ``module``, or tell the user which extra to install and exit with status 1.

    Args:
        module: the top-level module the command cannot run without (``textual``).
        extra: the name of the extra in pyproject.toml that installs it (``cli``).
        command: the command as the user typed it, for the message (``tilehall``).

    Raises:
        SystemExit: status 1, after the message on stderr, when ``module`` (or one
            of the modules it needs) is not installed.
    """
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as missing:
        print(extra_missing(command, extra, missing.name or module), file=sys.stderr)
        raise SystemExit(1) from None
