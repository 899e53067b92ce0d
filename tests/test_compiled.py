"""The compiled build (``TILEHALL_MYPYC=1 pip install .``) is the same program as the source.

The fast tests here say which build the checkout runs and that the list of
compiled modules names real modules. The slow one builds the wheel (or takes
one built before, in the folder ``TILEHALL_WHEEL`` names), installs it into
a fresh virtualenv, starts that install's server and plays an Ishido game to
its end over a real socket, with compact updates checked against whole views.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from tilehall.protocol import patch
from tilehall.server import build

from tests.helpers import Raw, ServerProcess, clone_tracked, http_get


def test_the_checkout_runs_the_pure_build():
    """An editable install is never compiled: the suite's first step tests the source."""
    if os.environ.get("TILEHALL_EXPECT_BUILD"):  # the compiled run of CI's second step
        assert build.build_name() == os.environ["TILEHALL_EXPECT_BUILD"]
    else:
        assert build.compiled_modules() == []
        assert build.build_name() == "pure"


def test_every_compiled_module_is_a_module_of_the_source():
    for name in build.COMPILED:
        module = importlib.import_module(name)
        assert module.__name__ == name
    assert len(set(build.COMPILED)) == len(build.COMPILED)
    assert "tilehall.server.room.core" in build.COMPILED
    assert "tilehall.protocol.codec" in build.COMPILED


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The compiled wheel, built with the README's command from a clone's files.

    ``TILEHALL_WHEEL`` names a folder: a wheel already there is taken as it is,
    and one built here is left there (a developer rerunning this test compiles once).
    """
    given = os.environ.get("TILEHALL_WHEEL")
    out = Path(given) if given else tmp_path_factory.mktemp("dist")
    out.mkdir(parents=True, exist_ok=True)
    if not list(out.glob("tilehall-*.whl")):
        source = clone_tracked(tmp_path_factory.mktemp("clone"))
        subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), "."],
            cwd=source,
            env={**os.environ, "TILEHALL_MYPYC": "1"},
            check=True,
            capture_output=True,
            timeout=1800,  # mypyc, then a C compiler over 18 modules: minutes when busy
        )
    (found,) = out.glob("tilehall-*.whl")
    return found


@pytest.fixture(scope="module")
def fresh_venv(wheel, tmp_path_factory) -> Path:
    """A new virtualenv with the compiled wheel and its dependencies, nothing else."""
    home = tmp_path_factory.mktemp("venv")
    venv.create(home, with_pip=True)
    python = home / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", str(wheel)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return python


class InstalledServer(ServerProcess):
    """The fresh venv's ``tilehall.server.app``, not the checkout's."""

    def __init__(self, python: Path, data_dir: Path) -> None:
        super().__init__(data_dir)
        self.python = python

    def command(self) -> list[str]:
        return [str(self.python), *super().command()[1:]]


@pytest.mark.slow  # builds the wheel with mypyc (unless CI's is given), a venv, a pip install
async def test_the_compiled_wheel_plays_a_game_in_a_fresh_venv(fresh_venv, tmp_path):
    server = InstalledServer(fresh_venv, tmp_path / "data")
    server.start(timeout=60)
    try:
        assert any("build mypyc" in line for line in server.log), server.log
        status, metrics = http_get(server.admin_url + "/metrics")
        assert status == 200
        assert 'tilehall_build_info{build="mypyc"} 1' in metrics
        ada = await Raw.open(server.url)
        await ada.call({"t": "hello", "v": 1, "name": "Ada", "compact": True})
        room = (await ada.call({"t": "create", "game": "ishido"}))["room"]
        view = (await ada.call({"t": "join", "room": room}))["view"]
        moves = 0
        while view["legal"]:
            update = await ada.call(
                {"t": "act", "room": room, "action": {"do": "place", "at": view["legal"][-1]}}
            )
            assert update["t"] == "update", update
            view = patch.apply(view, update["patch"])  # the compiled server's patch, ours applied
            moves += 1
        assert moves >= 10
        # a wrong move is refused by the compiled checks, as by the source's
        bad = await ada.call({"t": "act", "room": room, "action": {"do": "place", "at": "z99"}})
        assert bad["t"] == "error", bad
        again = await ada.call({"t": "join", "room": room})
        assert again["view"] == view
    finally:
        server.stop()
