"""No import circle anywhere in the project: layers point one way.

The graph is built from the sources (every ``import`` statement, those under
``if TYPE_CHECKING:`` and inside functions included: a late import is a circle
hidden, not a circle gone), so the test needs nothing installed and catches a
circle whatever the order modules happen to load in.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("server", "protocol", "clients", "tools")
"""The project's folders that the installed package ``tilehall`` maps (tools: the repo's own)."""


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            out[_module_of(path)] = path
    return out


def _local(name: str, modules: dict[str, Path]) -> str | None:
    """The project module an imported name refers to (the longest known prefix), or None."""
    if name.startswith("tilehall."):
        name = name.removeprefix("tilehall.")
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def _imports(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                drop = node.level - 1 if is_package else node.level
                base = base[: len(base) - drop] if drop else base
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            names = [prefix] + [f"{prefix}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            target = _local(name, modules)
            if target is not None and target != module:
                out.add(target)
    # a package's submodule importing its own package's __init__ is how Python loads it:
    # only the reverse direction (the package importing the submodule) counts then
    return {t for t in out if not module.startswith(t + ".")}


@functools.cache
def graph() -> dict[str, set[str]]:
    """The project's import graph, read once a run (the sources don't change during one)."""
    modules = _modules()
    return {m: _imports(m, p, modules) for m, p in modules.items()}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


@pytest.mark.slow
def test_the_graph_sees_an_import_under_type_checking_and_in_a_function():
    """The detector itself: a circle hidden behind TYPE_CHECKING or a late import is found."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(edges) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []
    modules = _modules()
    # the core reaches the games only through games.base; the events module is a leaf
    assert "server.room.events" in graph()["server.room.core"]
    assert "server.room.core" in modules


@pytest.mark.slow
def test_no_import_circle_anywhere():
    found = circles(graph())
    assert found == [], "import circles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_protocol_imports_nothing_of_the_server_or_the_clients():
    edges = graph()
    bad = sorted(
        f"{m} -> {t}"
        for m, targets in edges.items()
        if m.split(".")[0] == "protocol"
        for t in targets
        if t.split(".")[0] in ("server", "clients", "tools")
    )
    assert bad == []
