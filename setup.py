"""Optional compiled build: ``TILEHALL_MYPYC=1 pip install .`` compiles the hot modules.

Everything about the package is in pyproject.toml; this file only adds the
extension modules, and only when asked, so that ``pip install .`` and
``pip install -e .`` stay pure Python. mypyc (part of mypy) compiles the
modules listed in ``server/build.py`` from the same source, as black and mypy
ship themselves; the ``.py`` files are installed too and the extension is
imported ahead of them.

mypyc names a module by its path, and the sources sit in ``server/`` and
``protocol/``, which install as ``tilehall.server`` and ``tilehall.protocol``.
So the compile runs over a tree of symbolic links, ``build/mypyc-src/tilehall/``,
as ``python -m tests.typecheck`` does for mypy.
"""

from __future__ import annotations

import os
import runpy
import tomllib
from pathlib import Path
from typing import Any

from setuptools import setup

ROOT = Path(__file__).resolve().parent
MYPYC = os.environ.get("TILEHALL_MYPYC") == "1"


def _compiled() -> list[Any]:
    """The mypyc extensions, or none: pure unless TILEHALL_MYPYC=1."""
    if not MYPYC:
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        # pip's first pass asks for the build's requirements (setup_requires below,
        # mypy) before it installs them; the real build comes back with mypy.
        return []
    modules = runpy.run_path(str(ROOT / "server" / "build.py"))["COMPILED"]
    # An extension left in build/ by an earlier compile of a longer list would be packed
    # into this wheel beside its module's source, and imported ahead of it.
    for stale in Path("build").glob("lib*/tilehall/**/*.so"):
        stale.unlink()
    stage = Path("build") / "mypyc-src"
    tree = stage / "tilehall"
    tree.mkdir(parents=True, exist_ok=True)
    for name in ("server", "protocol"):
        link = tree / name
        if not link.is_symlink():
            link.symlink_to(ROOT / name, target_is_directory=True)
    paths = []
    for module in modules:
        parts = module.split(".")
        base = tree.joinpath(*parts[1:])
        paths.append(str(base / "__init__.py") if base.is_dir() else str(base) + ".py")
    old = Path.cwd()
    os.chdir(stage)  # mypy names the modules from here: tilehall.server.roomcore, ...
    try:
        return mypycify(
            [
                "--config-file",
                str(ROOT / "pyproject.toml"),
                "--explicit-package-bases",
                *(os.path.relpath(p, stage) for p in paths),
            ],
            opt_level="3",
            # The runtime's shared library lives inside the namespace, not at the top
            # of site-packages (tests/test_packaging.py).
            group_name="tilehall.server._mypyc",
            target_dir=str(ROOT / "build" / "mypyc-c"),
        )
    finally:
        os.chdir(old)


def _build_requires() -> list[str]:
    """What the compiled build needs in pip's isolated build: mypy, and the project's own
    dependencies, which mypy reads the types of (a module it cannot find is an error)."""
    if not MYPYC:
        return []
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return ["mypy>=1.10", *project["dependencies"]]


setup(
    ext_modules=_compiled(),
    setup_requires=_build_requires(),
)
