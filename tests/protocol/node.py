"""The outside tools the published protocol is checked with: Node packages from the npm registry.

A JSON Schema or an AsyncAPI document is only as good as the tools that read
it: Ajv (the JSON Schema validator most generators build on) in its strict
mode, and AsyncAPI's parser (what ``asyncapi validate`` runs). Their versions
are pinned in ``tests/protocol/npm/package-lock.json``; :func:`tools` installs
them with ``npm ci`` under ``build/protocol-npm`` (not committed) once per lock,
and :func:`run` runs a script of that folder with Node.

The tests that use them are slow (an install, then seconds of Node) and skip
only when Node or npm is not installed at all: an install that fails (no
registry) fails the test, as a broken tool would.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent / "npm"
ROOT = HERE.parents[2]
BUILD = ROOT / "build" / "protocol-npm"
INSTALL_TIMEOUT = 900
"""Seconds ``npm ci`` may take (a cold cache on a slow network)."""


def _programs() -> tuple[str, str]:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are not installed: the protocol's outside tools cannot run")
    return node, npm


def tools() -> Path:
    """The folder with the pinned packages installed and the check scripts beside them.

    Installs when the lock changed since the last install (a stamp holds its hash);
    two test processes at once (``pytest -n 2``) take turns on a file lock.
    """
    _, npm = _programs()
    BUILD.mkdir(parents=True, exist_ok=True)
    wanted = hashlib.sha256(
        (HERE / "package.json").read_bytes() + (HERE / "package-lock.json").read_bytes()
    ).hexdigest()
    with (BUILD.parent / "protocol-npm.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = BUILD / ".installed"
        if not (stamp.exists() and stamp.read_text() == wanted):
            shutil.rmtree(BUILD / "node_modules", ignore_errors=True)
            for name in ("package.json", "package-lock.json"):
                shutil.copy2(HERE / name, BUILD / name)
            # --ignore-scripts: nothing of a package runs at install (one of the parser's
            # dependencies has a postinstall that reports home).
            subprocess.run(
                [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=BUILD,
                check=True,
                timeout=INSTALL_TIMEOUT,
            )
            stamp.write_text(wanted)
        for script in HERE.glob("*.mjs"):
            shutil.copy2(script, BUILD / script.name)
    return BUILD


def run(script: str, *args: str | Path, timeout: float = 600) -> Any:
    """Run ``script`` of :func:`tools` with Node; its one line of JSON on stdout, read."""
    node, _ = _programs()
    folder = tools()
    done = subprocess.run(
        [node, script, *map(str, args)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)
