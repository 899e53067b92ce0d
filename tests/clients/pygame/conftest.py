"""Every pygame test runs headless: SDL's dummy video driver, no sound."""

from __future__ import annotations

import os

import pytest

os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


@pytest.fixture(autouse=True)
def config_dir(tmp_path, monkeypatch):
    """Remember identities in the test's own folder, never the user's."""
    monkeypatch.setenv("TILEHALL_CONFIG", str(tmp_path / "config"))


@pytest.fixture
async def app(url):
    """The window, as ``ada``, on the test's real server, once welcomed."""
    from tilehall.clients.pygame.app import App

    from tests.clients.pygame.helpers import close, run_until

    window = App(url, "ada")
    await run_until(window, lambda: window.online and bool(window.lobby.games), what="welcome")
    yield window
    await close(window)
