"""Where clients remember who they are: every name on a server, and the old one-name file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tilehall.clients.config import forget, known_names, load_identity, save_identity

URL = "ws://127.0.0.1:8765"


@pytest.fixture(autouse=True)
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TILEHALL_CONFIG", str(tmp_path))
    return tmp_path


def test_every_name_keeps_its_token_and_the_last_one_is_the_default() -> None:
    save_identity(URL, "ada", "t-ada")
    save_identity(URL, "bea", "t-bea")
    save_identity("ws://other:1", "cy", "t-cy")
    assert load_identity(URL) == ("bea", "t-bea")
    assert load_identity(URL, "ADA") == ("ada", "t-ada")
    assert load_identity(URL, "dee") == ("dee", None)
    assert known_names(URL) == ["bea", "ada"]
    save_identity(URL, "Ada", "t-ada-2")  # the same name again: its token replaced
    assert load_identity(URL, "ada") == ("Ada", "t-ada-2")
    assert known_names(URL) == ["Ada", "bea"]


def test_the_old_one_name_file_is_read_and_nothing_in_it_is_lost(folder: Path) -> None:
    old = {URL: {"name": "ada", "token": "t-ada"}, "ws://b:1": {"name": "zed", "token": "t-z"}}
    (folder / "players.json").write_text(json.dumps(old))
    assert load_identity(URL) == ("ada", "t-ada")
    save_identity(URL, "bea", "t-bea")
    assert load_identity(URL, "ada") == ("ada", "t-ada")
    assert load_identity("ws://b:1") == ("zed", "t-z")
    data = json.loads((folder / "players.json").read_text())
    # a client of the old form still finds the last name it would have saved
    assert (data[URL]["name"], data[URL]["token"]) == ("bea", "t-bea")
    assert (folder / "players.json").stat().st_mode & 0o777 == 0o600


def test_forgetting_one_name_keeps_the_others() -> None:
    save_identity(URL, "ada", "t-ada")
    save_identity(URL, "bea", "t-bea")
    forget(URL, "ada")
    assert load_identity(URL) == ("bea", "t-bea")
    forget(URL, "bea")
    # issue 37: the default no longer becomes another stored name without a word
    assert load_identity(URL) == (None, None)
    assert load_identity(URL, "bea") == ("bea", None)
    assert known_names(URL) == []
    forget(URL)
    assert load_identity(URL) == (None, None)
    assert known_names(URL) == []


def test_a_name_typed_in_fullwidth_letters_finds_its_token() -> None:
    """Issue 37 (8): --name ADA (fullwidth) with ada's token here said hello by name."""
    save_identity(URL, "ada", "t-ada")
    assert load_identity(URL, "\uff21\uff24\uff21") == ("ada", "t-ada")


def test_the_file_is_never_readable_by_others_not_even_while_written(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 37 (8): players.tmp was written 0644 before its chmod, the folder 0755."""
    config = folder / "deep" / "tilehall"
    monkeypatch.setenv("TILEHALL_CONFIG", str(config))
    seen: list[int] = []
    real_replace = os.replace

    def replace(src: str, dst: str) -> None:  # the moment before the rename
        seen.append(os.stat(src).st_mode & 0o777)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    os.umask(0o022)
    save_identity(URL, "ada", "t-ada")
    assert seen == [0o600]
    assert config.stat().st_mode & 0o777 == 0o700
    assert (config / "players.json").stat().st_mode & 0o777 == 0o600
    assert [p.name for p in config.iterdir()] == ["players.json"]
