"""The project's own promises: style is clean, CI runs the README's test command."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import typecheck

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def _commands() -> list[str]:
    return re.findall(r"```sh\n(.*?)\n```", README, re.S)


def test_readme_opens_with_exactly_two_setup_commands():
    setup = README.split("## Set-up: two commands", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)\n```", setup, re.S)
    assert len(blocks) == 2
    assert all("\n" not in b for b in blocks)
    assert "tilehall-server" in blocks[0]
    assert "pytest" in blocks[1]


def test_ci_runs_the_readme_test_command():
    test_command = _commands()[1]
    assert test_command in (ROOT / ".ci" / "run").read_text()


def test_ruff_is_clean():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff, "ruff is part of the dev extra"
    out = subprocess.run([ruff, "check", str(ROOT)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    out = subprocess.run([ruff, "format", "--check", str(ROOT)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.slow  # mypy over the whole tree
def test_mypy_strict_is_clean():
    out = typecheck.run()
    assert out.returncode == 0, out.stdout + out.stderr
