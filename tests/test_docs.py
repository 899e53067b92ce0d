"""The repository carries its own documents: every link resolves, nothing points off the tree.

A clone holds only what is committed. A link to ``../shared``, or a path of the
machine a page was written on (``/work/...``, ``/home/...``), is a dead end for
everyone else, and a renamed heading silently breaks every ``#fragment`` that
named it. So every relative link of every Markdown file must land on a file of
the repository (and on a heading, when it names one, slugged as GitHub does),
and no document may name a path outside the repository, in a link or in prose.
"""

from __future__ import annotations

import collections
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent

OUTSIDE = re.compile(
    r"(?<![\w.~-])/(?:work|home|root|tmp)/"  # absolute paths of a machine
    r"|shared/(?:design|rules)"  # the design and rule texts the docs were drawn from
    r"|\.\./shared\b"
)
"""Names of places a clone does not have. The lookbehind keeps URLs (``host.org/home/``) out."""

_SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".mypy_cache"}


def repo_files(root: Path) -> list[Path]:
    """The repository's files: tracked ones, and new ones not ignored (about to be tracked).

    Outside a git checkout (an unpacked archive), every file not under a
    hidden or build folder.
    """
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        found = []
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d not in _SKIP_DIRS and not d.endswith(".egg-info")]
            found += [Path(folder) / f for f in files]
        return sorted(found)
    paths = (root / name for name in os.fsdecode(out).split("\0") if name)
    return sorted(p for p in paths if p.is_file())  # --cached also lists deleted files


# -- Markdown, as far as links and headings go -------------------------------------------

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,}).*?^ {0,3}\1[`~]*[ \t]*$", re.M | re.S)
_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
_INLINE_LINK = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]"  # [text], one level of nested brackets allowed
    r"\(\s*(?:<([^>]*)>|([^\s()]*(?:\([^\s()]*\)[^\s()]*)*))"  # (target) or (<target>)
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)"  # an optional title
)
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*<?([^\s>]+)>?", re.M)
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$", re.M)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _blank(match: re.Match[str]) -> str:
    """Code becomes spaces, keeping its newlines, so that line numbers stay true."""
    return re.sub(r"[^\n]", " ", match.group(0))


def without_code(text: str) -> str:
    """``text`` with fenced blocks and code spans blanked: a link written as code is no link."""
    return _CODE_SPAN.sub(_blank, _FENCE.sub(_blank, text))


def links(text: str) -> list[tuple[int, str]]:
    """Every link target of a Markdown text (inline, image, reference), with its line number."""
    prose = without_code(text)
    found = []
    for m in _INLINE_LINK.finditer(prose):
        found.append((m.start(), m.group(1) if m.group(1) is not None else m.group(2)))
    found += [(m.start(), m.group(1)) for m in _REFERENCE.finditer(prose)]
    return sorted((prose.count("\n", 0, at) + 1, target) for at, target in found)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to '-'.

    The heading is taken as rendered: link and image syntax gives way to its
    text, code keeps its content without the backticks, HTML tags vanish.
    """
    text = re.sub(r"!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The fragment names of a Markdown text's headings; repeats get ``-1``, ``-2``...."""
    seen: collections.Counter[str] = collections.Counter()
    out = set()
    for m in _HEADING.finditer(without_code(text)):
        base = slug(m.group(2))
        out.add(f"{base}-{seen[base]}" if seen[base] else base)
        seen[base] += 1
    return out


# -- the checks -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    file: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.what}"


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def check_links(doc: Path, root: Path, files: set[Path]) -> list[Problem]:
    """Every link of ``doc`` that does not land on a file (or heading) of the repository."""
    problems = []
    name = doc.relative_to(root).as_posix()
    for line, target in links(doc.read_text(encoding="utf-8")):
        if _SCHEME.match(target):
            if target.lower().startswith("file:"):
                problems.append(Problem(name, line, f"{target!r} is a file of one machine"))
            continue  # a web address: not the repository's business
        raw_path, _, fragment = target.partition("#")
        path = unquote(raw_path)
        if not path:
            dest = doc
        elif path.startswith("/"):
            dest = Path(os.path.normpath(root / path.lstrip("/")))  # GitHub: the repository root
        else:
            dest = Path(os.path.normpath(doc.parent / path))
        if not _inside(dest, root):
            problems.append(Problem(name, line, f"{target!r} leads out of the repository"))
            continue
        if dest not in files and not any(dest in f.parents for f in files):
            problems.append(Problem(name, line, f"{target!r}: no such file in the repository"))
            continue
        if (
            fragment
            and dest.suffix == ".md"
            and dest in files
            and unquote(fragment) not in anchors(dest.read_text(encoding="utf-8"))
        ):
            problems.append(Problem(name, line, f"{target!r}: no heading #{fragment}"))
    return problems


def check_outside_names(doc: Path, root: Path) -> list[Problem]:
    """Every place where ``doc`` names a path outside the repository."""
    name = doc.relative_to(root).as_posix()
    text = doc.read_text(encoding="utf-8")
    return [
        Problem(name, text.count("\n", 0, m.start()) + 1, f"names {m.group(0)!r}")
        for m in OUTSIDE.finditer(text)
    ]


FILES = repo_files(ROOT)
FILE_SET = set(FILES)
MARKDOWN = [p for p in FILES if p.suffix == ".md"]
DOCUMENTS = [p for p in FILES if p.suffix in (".md", ".txt")]
SOURCES = [p for p in FILES if p.suffix == ".py" and p != Path(__file__).resolve()]
"""Docstrings and comments are documents too (the checker's own test data is not)."""


def _id(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_the_documents_are_found():
    names = {_id(p) for p in DOCUMENTS}
    for expected in (
        "README.md",
        "CHANGELOG.md",
        "docs/README.md",
        "docs/architecture.md",
        "protocol/PROTOCOL.md",
        "protocol/games/ishido.md",
        "clients/cli/screens/lobby.txt",
    ):
        assert expected in names


@pytest.mark.parametrize("doc", MARKDOWN, ids=_id)
def test_every_relative_link_lands_in_the_repository(doc: Path):
    problems = check_links(doc, ROOT, FILE_SET)
    assert not problems, "\n".join(map(str, problems))


@pytest.mark.parametrize("doc", DOCUMENTS, ids=_id)
def test_no_document_names_a_path_outside_the_repository(doc: Path):
    problems = check_outside_names(doc, ROOT)
    assert not problems, "\n".join(map(str, problems))


def test_no_source_file_names_a_path_outside_the_repository():
    problems = [p for doc in SOURCES for p in check_outside_names(doc, ROOT)]
    problems += [
        Problem(_id(doc), 0, "names GAMES.md (now docs/rules/)")
        for doc in SOURCES
        if "GAMES.md" in doc.read_text(encoding="utf-8")
    ]
    assert len(SOURCES) > 100
    assert not problems, "\n".join(map(str, problems))


def test_readme_links_the_docs():
    targets = {target for _, target in links((ROOT / "README.md").read_text())}
    assert "docs/README.md" in targets
    assert "docs/architecture.md" in targets


def test_every_game_has_a_rules_page_linked_from_its_wire_page_and_the_index():
    from tilehall.server.games import all_games

    index = {target for _, target in links((ROOT / "docs" / "README.md").read_text())}
    for game in all_games():
        assert (ROOT / "docs" / "rules" / f"{game.name}.md") in FILE_SET, game.name
        assert f"rules/{game.name}.md" in index, game.name
        page = (ROOT / "protocol" / "games" / f"{game.name}.md").read_text()
        assert f"../../docs/rules/{game.name}.md" in {t for _, t in links(page)}, game.name


ENGINE_INTERNALS = re.compile(
    r"OptionError|InvalidMove|IllegalMove|GameError|score_entries|\badvance\b|next_deadline"
    r"|`_to`|\"_to\"|\bBOTS\b|server/(?:games|bots)/|state_view"
)
"""Names a bot author cannot see: the game pages describe the wire, not the engine."""


@pytest.mark.parametrize("page", sorted((ROOT / "protocol" / "games").glob("*.md")), ids=_id)
def test_game_pages_speak_of_the_wire_not_the_engine(page: Path):
    text = page.read_text()
    found = [
        f"{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
        for m in ENGINE_INTERNALS.finditer(text)
    ]
    assert not found, found


def test_game_pages_list_every_bot_level():
    from tilehall.server.bots import bot_levels
    from tilehall.server.games import all_games

    for game in all_games():
        text = (ROOT / "protocol" / "games" / f"{game.name}.md").read_text()
        bots = text.split("\n## Bots\n", 1)[1].split("\n## ", 1)[0]
        for level in bot_levels(game.name):
            assert f"`{level}`" in bots, (game.name, level)


# -- the checker itself: it must catch what it is there to catch -------------------------------


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("The rules as Tilehall plays them", "the-rules-as-tilehall-plays-them"),
        ("Mathable (`mathable`)", "mathable-mathable"),
        (
            "protocol/: the one source of truth for the wire",
            "protocol-the-one-source-of-truth-for-the-wire",
        ),
        (
            "Shisen-Sho: what Match-It and LinkSame share",
            "shisen-sho-what-match-it-and-linksame-share",
        ),
        ("2x and 3x — premium squares", "2x-and-3x--premium-squares"),
        ("A [linked](x.md) `code_name`", "a-linked-code_name"),
        ("Ça va, Ishido?", "ça-va-ishido"),
    ],
)
def test_slugs_follow_github(heading: str, anchor: str):
    assert slug(heading) == anchor


def test_repeated_headings_are_numbered():
    assert anchors("# Events\n\n## Events\n\n### Events\n") == {"events", "events-1", "events-2"}


def test_links_in_code_are_not_links():
    text = '`[a](gone.md)`\n\n```\n[b](gone.md)\n```\n\n[c](here.md "title") ![d](<pic one.png>)\n'
    assert links(text) == [(7, "here.md"), (7, "pic one.png")]


def test_the_checker_catches_broken_links_and_outside_paths(tmp_path: Path):
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "page.md").write_text("# Page\n\n## A section\n")
    (root / "notes.txt").write_text("see /home/ada/notes and host.org/home/ but not ~/home/\n")
    (root / "README.md").write_text(
        "[fine](docs/page.md) [fine too](docs/page.md#a-section) [folder](docs/)\n"
        "[web](https://example.org/x) [self](#readme)\n"
        "[missing](docs/gone.md)\n"
        "[bad heading](docs/page.md#no-such-section)\n"
        "[escapes](../elsewhere/design.md)\n"
        "[machine](file:///work/x.md)\n"
        "Rules: `/work/shared/rules/x.txt`, see ../shared/design too\n"
        "\n# Readme\n"
    )
    files = {root / "README.md", root / "docs" / "page.md", root / "notes.txt"}
    found = [(p.line, p.what.split(": ")[-1]) for p in check_links(root / "README.md", root, files)]
    assert found == [
        (3, "no such file in the repository"),
        (4, "no heading #no-such-section"),
        (5, "'../elsewhere/design.md' leads out of the repository"),
        (6, "'file:///work/x.md' is a file of one machine"),
    ]
    named = [(p.line, p.what) for p in check_outside_names(root / "README.md", root)]
    assert named == [
        (6, "names '/work/'"),
        (7, "names '/work/'"),
        (7, "names 'shared/rules'"),
        (7, "names '../shared'"),
    ]
    assert [p.what for p in check_outside_names(root / "notes.txt", root)] == ["names '/home/'"]
