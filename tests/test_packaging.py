"""The distribution is one namespace, ``tilehall``, and it works installed on its own."""

from __future__ import annotations

import ast
import configparser
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.helpers import clone_tracked

ROOT = Path(__file__).resolve().parent.parent
SOURCES = {
    "server": "tilehall.server",
    "protocol": "tilehall.protocol",
    "clients": "tilehall.clients",
}
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_every_source_package_is_listed_under_its_tilehall_name():
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    found = {
        SOURCES[init.parent.relative_to(ROOT).parts[0]]
        + "".join("." + p for p in init.parent.relative_to(ROOT).parts[1:])
        for folder in SOURCES
        for init in (ROOT / folder).rglob("__init__.py")
    }
    assert listed == found
    assert PYPROJECT["tool"]["setuptools"]["package-dir"] == {v: k for k, v in SOURCES.items()}


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
    return names


@pytest.mark.slow
def test_nothing_imports_the_folders_by_their_bare_names():
    """``import server`` works from a checkout by accident (the root is on sys.path)."""
    bare = []
    for folder in (*SOURCES, "tests", "bench"):
        for path in (ROOT / folder).rglob("*.py"):
            bare += [
                f"{path.relative_to(ROOT)}: {name}"
                for name in _imports(path)
                if name.split(".")[0] in SOURCES
            ]
    assert bare == []


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """``pip install .`` (no dependencies: they are the environment's) into a fresh target.

    From a copy of the tracked files, as a clone has them: pip builds in the
    source tree, and the checkout's own build/ must neither feed nor receive it.
    """
    source = clone_tracked(tmp_path_factory.mktemp("clone"))
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), "."],
        cwd=source,
        check=True,
        capture_output=True,
        timeout=300,
    )
    return target


@pytest.mark.slow  # a pip install
def test_the_install_puts_only_tilehall_at_the_top(installed):
    top = {p.name for p in installed.iterdir() if p.name != "bin"}
    assert top == {"tilehall", f"tilehall-{PYPROJECT['project']['version']}.dist-info"}
    assert {p.name for p in (installed / "tilehall").iterdir()} == set(SOURCES)
    assert not (installed / "tilehall" / "__init__.py").exists()  # a namespace of three


def _run_installed(installed: Path, *code: str) -> subprocess.CompletedProcess[str]:
    # Run outside the checkout, so that only the installed copy can be imported.
    env = {**os.environ, "PYTHONPATH": str(installed), "PYGAME_HIDE_SUPPORT_PROMPT": "1"}
    return subprocess.run(
        [sys.executable, *code],
        cwd=installed.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow  # a pip install
def test_python_m_tilehall_server_runs_from_the_install(installed):
    done = _run_installed(installed, "-m", "tilehall.server", "--help")
    assert done.returncode == 0, done.stderr
    assert "tilehall-server" in done.stdout
    assert str(ROOT) not in done.stdout + done.stderr


@pytest.mark.slow  # a pip install
def test_every_console_script_points_into_the_namespace_and_starts(installed):
    dist = installed / f"tilehall-{PYPROJECT['project']['version']}.dist-info"
    entry_points = configparser.ConfigParser()
    entry_points.read(dist / "entry_points.txt")
    scripts = dict(entry_points["console_scripts"])
    assert set(scripts) == {"tilehall-server", "tilehall", "tilehall-gui", "tilehall-bot"}
    for name, target in scripts.items():
        module, _, func = target.partition(":")
        assert module.startswith("tilehall."), (name, target)
        code = f"import sys; sys.argv = [{name!r}, '--help']; from {module} import {func}; {func}()"
        done = _run_installed(installed, "-c", code)
        assert done.returncode == 0, (name, done.stderr)
        assert "usage:" in done.stdout, (name, done.stdout)


@pytest.mark.slow
def test_the_web_client_ships_as_package_data(installed):
    """``pip install .`` carries clients/web (tracked files only, but not the README's
    screenshots: they are not the page's), and the server finds it there."""
    listed = subprocess.run(
        ["git", "ls-files", "clients/web"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.split()
    tracked = {name for name in listed if not name.startswith("clients/web/screenshots/")}
    assert "clients/web/index.html" in tracked
    assert len(tracked) < len(listed)  # the screenshots are there, and left out
    shipped = {
        "clients/" + p.relative_to(installed / "tilehall" / "clients").as_posix()
        for p in (installed / "tilehall" / "clients" / "web").rglob("*")
        if p.is_file()
    }
    assert shipped == tracked
    code = (
        "from tilehall.server.net.web import WebFiles, web_folder; w = WebFiles.load(); "
        "print(web_folder()); print(sorted(w.files))"
    )
    done = _run_installed(installed, "-c", code)
    assert done.returncode == 0, done.stderr
    folder, files = done.stdout.splitlines()
    assert folder == str(installed / "tilehall" / "clients" / "web")
    assert "'/index.html'" in files


@pytest.mark.slow  # a pip install
def test_unicodes_confusables_ship_with_the_server(installed):
    """Name skeletons read server/names/confusables.txt: the install carries it, and its
    notice (Unicode's licence asks for it with every copy)."""
    shipped = installed / "tilehall" / "server" / "names" / "confusables.txt"
    assert shipped.read_bytes() == (ROOT / "server" / "names" / "confusables.txt").read_bytes()
    assert "UNICODE LICENSE V3" in shipped.read_text(encoding="utf-8")
    code = "from tilehall.server.names import skeleton; print(skeleton('mara'))"
    done = _run_installed(installed, "-c", code)
    assert (done.returncode, done.stdout) == (0, "rnara\n"), done.stderr
