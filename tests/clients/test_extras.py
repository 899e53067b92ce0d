"""Client commands without their extras: a sentence that names the extra, no traceback.

Each console script runs in a real subprocess whose import system refuses the
toolkit (a meta path finder that raises ``ModuleNotFoundError`` for it, as when
it was never installed), exactly as pyproject.toml's entry point calls it.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib

import pytest

from tests.helpers import ROOT

SCRIPTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]

REFUSE = """
import sys
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name == {module!r} or name.startswith({module!r} + "."):
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, Refuse())
sys.argv = [{script!r}]
from {target} import {func}
{func}()
"""


def run_without(script: str, module: str) -> subprocess.CompletedProcess[str]:
    target, _, func = SCRIPTS[script].partition(":")
    code = REFUSE.format(module=module, script=script, target=target, func=func)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )


@pytest.mark.parametrize(
    ("script", "module", "extra"),
    [("tilehall", "textual", "cli"), ("tilehall-gui", "pygame", "gui")],
)
def test_a_client_without_its_extra_says_which_to_install(script, module, extra):
    done = run_without(script, module)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert f"pip install 'tilehall[{extra}]'" in done.stderr, done.stderr
    assert repr(module) in done.stderr
