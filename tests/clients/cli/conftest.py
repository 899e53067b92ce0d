"""Fixtures for the terminal client's tests: a private config folder."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test remembers identities in its own folder, never the user's."""
    folder = tmp_path / "config"
    monkeypatch.setenv("TILEHALL_CONFIG", str(folder))
    return folder
