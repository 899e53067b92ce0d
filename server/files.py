"""The server's own files are its user's alone, whatever the umask.

The data directory holds the SQLite database, whose rooms carry their seeds
and journals: from those anyone could rebuild a Mathable player's hidden rack
or Ishido's pouch order. It also holds the admin key. So the directory is
0700 and every file in it 0600, made so when created (a mode the umask cannot
widen) and corrected at each start for files an older version or another tool
left open.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
from pathlib import Path

__all__ = ["create_private", "private_dir", "private_file", "write_private"]

log = logging.getLogger(__name__)

DIR_MODE = 0o700
FILE_MODE = 0o600


def private_dir(path: Path, *, tighten: bool = True) -> None:
    """Make ``path`` a directory only its owner can enter, creating it (and its parents) so.

    Args:
        tighten: also correct the mode of an existing ``path``. Left alone, with
            a warning, when it is shared by design (sticky, as ``/tmp`` is):
            only a directory of the server's own is made private.
    """
    missing = []
    at = path
    while not at.exists():
        missing.append(at)
        at = at.parent
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by someone else
            folder.mkdir(mode=DIR_MODE)
        os.chmod(folder, DIR_MODE)  # mkdir's mode passes through the umask
    if tighten and not missing:
        mode = path.stat().st_mode
        if mode & stat.S_ISVTX:
            log.warning("%s is a shared directory: its mode is left as it is", path)
        elif stat.S_IMODE(mode) != DIR_MODE:
            try:
                os.chmod(path, DIR_MODE)
            except PermissionError:
                # Not ours: its files are still 0600, which is what keeps them secret.
                log.warning("%s is mode %o and not ours to change", path, stat.S_IMODE(mode))
            else:
                log.warning("%s was mode %o: made %o", path, stat.S_IMODE(mode), DIR_MODE)


def private_file(path: Path) -> bool:
    """Correct an existing file's mode to 0600; whether it exists."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return False
    if mode != FILE_MODE:
        log.warning("%s was mode %o: made %o", path, mode, FILE_MODE)
        os.chmod(path, FILE_MODE)
    return True


def create_private(path: Path) -> None:
    """Create ``path`` empty and 0600 unless it exists (then only correct its mode)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        private_file(path)
        return
    try:
        os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)


def write_private(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` in one step, 0600 from the start.

    Written beside it under a temporary name, then renamed over it: a reader
    never sees half a file, nor the file with a wider mode.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    os.fchmod(fd, FILE_MODE)  # an old leftover of that name keeps its mode otherwise
    with open(fd, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(tmp, path)
