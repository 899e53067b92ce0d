"""Run mypy --strict over the sources as the package they install as: ``tilehall.*``.

The fixed top-level folders (server/, protocol/, clients/) become
``tilehall.server`` and so on only through the install's package-dir mapping,
which mypy cannot follow in an editable install. So the check runs over a
throw-away tree of symbolic links, ``tilehall/{server,protocol,clients}``,
with the project's own mypy settings. The load harness (``bench.load``),
the fault bench (``bench.chaos``), the COMP calibration (``bench.calibrate``)
and the web benches (``bench.web_page``, ``bench.web_spectators``), run from
a checkout, are checked there too, with the test helpers they import::

    python -m tests.typecheck
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("server", "protocol", "clients")
CHECKOUT = ("bench", "tests", "tools")
"""Folders linked under their own names: ``bench.load`` and what it imports."""


def run(*extra: str) -> subprocess.CompletedProcess[str]:
    """mypy over ``tilehall``; returns the finished process (its output captured)."""
    with tempfile.TemporaryDirectory(prefix="tilehall-mypy-") as tmp:
        tree = Path(tmp) / "tilehall"
        tree.mkdir()
        for name in PACKAGES:
            (tree / name).symlink_to(ROOT / name, target_is_directory=True)
        for name in CHECKOUT:
            (Path(tmp) / name).symlink_to(ROOT / name, target_is_directory=True)
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "mypy",
                "--config-file",
                str(ROOT / "pyproject.toml"),
                "--cache-dir",
                str(ROOT / ".mypy_cache"),
                *extra,
                "-p",
                "tilehall",
                "-p",
                "tools",
                "-p",
                "bench.load",
                "-m",
                "bench.calibrate",
                "-m",
                "bench.chaos",
                "-m",
                "bench.web_page",
                "-m",
                "bench.web_spectators",
            ],
            cwd=tmp,
            capture_output=True,
            text=True,
            timeout=900,
        )


if __name__ == "__main__":
    done = run(*sys.argv[1:])
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    sys.exit(done.returncode)
