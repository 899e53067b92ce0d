"""Where clients remember who they are: every name on a server, and the old one-name file."""

from __future__ import annotations

import json
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
    forget(URL, "bea")
    assert load_identity(URL) == ("ada", "t-ada")
    assert load_identity(URL, "bea") == ("bea", None)
    forget(URL)
    assert load_identity(URL) == (None, None)
    assert known_names(URL) == []
