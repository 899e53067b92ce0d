"""Shared test helpers: views from real engines, and a window drawn offline."""

from __future__ import annotations

import asyncio
import importlib
import os
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pygame
from tilehall.clients.pygame.app import App
from tilehall.clients.pygame.net import NullNet
from tilehall.clients.pygame.scenes.base import GameScene
from tilehall.server.games import all_games, find_game
from tilehall.server.games.base import Game
from tilehall.server.ratings import describe as describe_ratings

SIZE = (1180, 780)


UNREGISTERED = {
    "lines": "tilehall.server.games.lines:Lines",
    "matchit": "tilehall.server.games.matchit:MatchIt",
    "linksame": "tilehall.server.games.linksame:LinkSame",
}
"""Engines written but not yet in the server's registry (their doc and tests are done)."""


def game_class(game: str) -> type[Game]:
    """The registered engine of ``game``, or its module's class while it waits to be."""
    try:
        return find_game(game)
    except KeyError:
        module, _, name = UNREGISTERED[game].partition(":")
        cls: type[Game] = getattr(importlib.import_module(module), name)
        return cls


def engine(game: str, *, seats: int = 1, seed: int = 1, **options: Any) -> Game:
    """A real engine, as a room would start it."""
    return game_class(game)(options=options, seats=seats, rng=random.Random(seed), now=0.0)


def welcome(player: str = "ada") -> dict[str, Any]:
    """The welcome a server would send (its games as the server describes them)."""
    registered = {g.name for g in all_games()}
    games = [g.describe() for g in all_games()]
    games += [game_class(n).describe() for n in UNREGISTERED if n not in registered]
    return {
        "t": "welcome",
        "v": 1,
        "player": player,
        "token": "t",
        "games": [{**g, **describe_ratings(g["name"])} for g in games],
        "rooms": [],
        "ratings": {"mathable": {"rating": 1642.5, "rd": 71.3, "games": 18}},
    }


def offline_app(size: tuple[int, int] = SIZE) -> tuple[App, NullNet]:
    net = NullNet()
    app = App("ws://offline", net=net, size=size, remember=False)
    app.handle(welcome())
    return app, net


def show(
    view: dict[str, Any],
    *,
    seat: int | None = 0,
    names: list[str] | None = None,
    size: tuple[int, int] = SIZE,
) -> tuple[App, NullNet, GameScene]:
    """Open ``view`` in a window with no server and draw one frame."""
    app, net = offline_app(size)
    room = "r0000test"
    scene = app.open_room({"t": "joined", "room": room, "seat": seat, "seq": 1, "view": view})
    if names:
        app.handle(
            {
                "t": "room",
                "room": room,
                "game": view["game"],
                "seats": [
                    {"name": n, "bot": n.startswith("COMP"), "taken": True, "connected": True}
                    for n in names
                ],
                "spectators": 0,
                "status": view["status"],
                "options": {},
                "private": False,
            }
        )
    app.step()
    return app, net, scene


def colour_at(app: App, pos: tuple[int, int]) -> tuple[int, int, int]:
    c = app.screen.get_at(pos)
    return (c.r, c.g, c.b)


def shot(app: App, tmp_path: Path, name: str, *, keep: bool = True) -> Path:
    """Save the window as ``<name>.png`` in ``tmp_path``.

    With ``TILEHALL_SHOTS=<dir>`` in the environment the picture is also kept
    there (unless ``keep`` is false): that is how clients/pygame/screenshots/ is
    refreshed.
    """
    path = tmp_path / f"{name}.png"
    pygame.image.save(app.screen, str(path))
    folder = os.environ.get("TILEHALL_SHOTS")
    if folder and keep:
        Path(folder).mkdir(parents=True, exist_ok=True)  # a folder named but not made yet
        pygame.image.save(app.screen, str(Path(folder) / f"{name}.png"))
    return path


async def run_until(
    app: App, cond: Callable[[], bool], timeout: float = 10.0, what: str = "condition"
) -> None:
    """Step the window (and let the test's event loop run the server) until ``cond``."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        app.step()
        await asyncio.sleep(0.01)
    app.step()


def click(app: App, pos: tuple[int, int], button: int = 1) -> None:
    """A real mouse click, through pygame's event queue, then one frame."""
    pygame.mouse.set_pos(pos)
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=button))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=button))
    app.step()


def drag(app: App, start: tuple[int, int], end: tuple[int, int], *, drop: bool = True) -> None:
    """Press at ``start``, move to ``end`` a frame per step, and release there (if ``drop``)."""
    pygame.mouse.set_pos(start)
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=start, button=1))
    app.step()
    for i in range(1, 5):
        pos = (start[0] + (end[0] - start[0]) * i // 4, start[1] + (end[1] - start[1]) * i // 4)
        pygame.mouse.set_pos(pos)
        pygame.event.post(
            pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(1, 0, 0))
        )
        app.step()
    if drop:
        pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=end, button=1))
        app.step()


async def close(app: App) -> None:
    """Close the window without blocking the loop that runs the test's server."""
    app.net.stop(0)
    deadline = time.monotonic() + 5
    while getattr(app.net, "alive", False) and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    app.close()
