"""tests/web/screenshots.py, the README pictures' maker, still takes a picture: one of them,
here, into a temporary folder, so that a change to the page or the protocol that breaks
the script fails a test instead of waiting for the next time someone needs the pictures."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Browser

from tests.web.screenshots import LOBBY, OUT, SHOTS, png_size, take


async def test_the_lobby_picture_is_taken_at_the_readmes_size(browser: Browser, tmp_path: Path):
    path = await take(browser, "lobby", tmp_path)
    assert path == tmp_path / "lobby.png"
    assert png_size(path) == (LOBBY["width"], LOBBY["height"])
    assert path.stat().st_size > 10_000  # a page, not a blank
    # the checked-in picture is the one the script makes, at the same size
    assert png_size(OUT / "lobby.png") == png_size(path)


def test_every_readme_picture_has_a_scene() -> None:
    """Each PNG of clients/web/screenshots is one the script can make again, and no more."""
    assert sorted(SHOTS) == sorted(p.stem for p in OUT.glob("*.png"))
