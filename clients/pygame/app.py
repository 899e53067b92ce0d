"""The Tilehall window: one pygame loop, a scene at a time, the network on a thread.

Run it with ``python -m tilehall.clients.pygame`` (or the ``tilehall-gui`` script)::

    python -m tilehall.clients.pygame --url ws://127.0.0.1:8765 --name ada

Without ``--name`` the window first asks for one, offering the name remembered
for that server (so one Enter resumes the same player, by its token).

The loop never waits on the network: :class:`~clients.pygame.net.Net` runs the
asyncio connection on its own thread, and :meth:`App.step` drains its inbox once
per frame, feeds the models, then lets the scene draw them.
"""

from __future__ import annotations

import argparse
import os
import queue
import time
from collections.abc import Sequence
from typing import Any, Protocol

import pygame
from tilehall.clients.config import DEFAULT_URL, forget, load_identity, save_identity
from tilehall.clients.model import LobbyModel, RoomModel
from tilehall.clients.pygame.net import Net, NullNet
from tilehall.clients.pygame.scenes import scene_for
from tilehall.clients.pygame.scenes.base import GameScene, Scene
from tilehall.clients.pygame.scenes.lobby import (
    LobbyScene,
    NameScene,
    PasswordScene,
    SetPasswordScene,
)
from tilehall.clients.words import ENDED, error_text

__all__ = ["App", "NetLike", "main", "parse_args"]

FPS = 60
MIN_SIZE = (760, 520)


class NetLike(Protocol):
    """What the window needs from the network side (:class:`Net`, or a stand-in)."""

    inbox: queue.Queue[dict[str, Any]]
    url: str

    def start(self) -> None: ...
    def stop(self, timeout: float = ...) -> None: ...
    def request(self, msg: dict[str, Any], tag: str | None = None) -> None: ...
    def join(self, room: str, seat: int | None = None) -> None: ...
    def sign_out(self, everywhere: bool = False) -> None: ...
    def join_code(self, code: str) -> None: ...
    def watch(self, room: str) -> None: ...
    def rejoin(self, room: str) -> None: ...
    def act(self, room: str, action: dict[str, Any]) -> None: ...
    def chat(self, room: str, text: str) -> None: ...


class App:
    """The window, its scenes, and the hand-off between the network and the models.

    Args:
        url: the server.
        name: the player name asked for on the command line; None asks for one
            first, offering the one remembered for ``url``.
        net: an already made network side (tests pass a stand-in); None makes a
            :class:`Net` for ``url`` once the name is known.
        size: the first window size.
        remember: save the name and token the server gives us (clients/config.py).
    """

    def __init__(
        self,
        url: str = DEFAULT_URL,
        name: str | None = None,
        *,
        net: NetLike | None = None,
        size: tuple[int, int] = (1180, 780),
        remember: bool = True,
    ) -> None:
        pygame.display.init()
        pygame.font.init()
        pygame.key.set_repeat(400, 40)
        self.screen = pygame.display.set_mode(size, pygame.RESIZABLE)
        pygame.display.set_caption("Tilehall")
        self.clock = pygame.time.Clock()
        self.url = url
        self.remember = remember
        self.lobby = LobbyModel()
        self.codes: dict[str, str] = {}
        """Private room codes we created, by room, to show to the player."""
        self.online = False
        self.offline_reason = ""
        self.running = True
        self.wanted: str | None = name
        """The name the last hello asked for (a refusal's password is asked for it)."""
        self.scene: Scene = LobbyScene(self)
        if net is None and name is None:
            # Nobody connects before the player has said who they are.
            net = NullNet()
            self.scene = NameScene(self, "", suggested=load_identity(url)[0] or "")
        elif net is None:
            net = self._make_net(name)
        self.net: NetLike = net
        self.net.start()

    def _make_net(self, name: str | None, password: str | None = None) -> Net:
        saved_name, token = load_identity(self.url, name)  # that name's own token, if any
        if password is not None:
            token = None  # signing in on this device with the name's password
        self.wanted = saved_name
        return Net(self.url, name=saved_name, token=token, password=password)

    def reconnect_as(self, name: str, password: str | None = None) -> None:
        """After the server refused our name: try again with another (or with its password)."""
        self.net.stop(0.5)
        # That session is over: until the next welcome we are nobody, and not online
        # (the lobby's header said "playing as" the old name beside a refusal).
        self.online, self.offline_reason, self.lobby.player = False, "", None
        self.net = self._make_net(name, password)
        self.net.start()
        self.scene = LobbyScene(self)

    # -- scenes --------------------------------------------------------------------------

    def to_lobby(self) -> None:
        self.scene = LobbyScene(self)

    def open_room(self, joined: dict[str, Any]) -> GameScene:
        """Show the room we just joined or watch."""
        # the server pushes a room's summary just before its ``joined`` reply
        model = RoomModel.from_joined(joined, self.lobby.summary(joined["room"]))
        scene = scene_for(model.game)(self, model)
        self.scene = scene
        return scene

    # -- the loop ----------------------------------------------------------------------

    def run(self) -> None:
        """Until the window closes: step, at most :data:`FPS` times a second."""
        try:
            while self.step():
                self.clock.tick(FPS)
        finally:
            self.close()

    def close(self) -> None:
        self.net.stop()
        pygame.display.quit()

    def step(self) -> bool:
        """One frame: input, network news, drawing. False once the window is closed."""
        for ev in pygame.event.get():
            if ev.type == pygame.QUIT:
                self.running = False
            elif ev.type == pygame.VIDEORESIZE:
                w, h = max(MIN_SIZE[0], ev.w), max(MIN_SIZE[1], ev.h)
                if (w, h) != (ev.w, ev.h):
                    self.screen = pygame.display.set_mode((w, h), pygame.RESIZABLE)
            self.scene.handle_event(ev)
        self.pump()
        self.scene.update(time.monotonic())
        self.screen = pygame.display.get_surface() or self.screen
        self.scene.draw(self.screen)
        pygame.display.flip()
        return self.running

    def pump(self, limit: int = 200) -> None:
        """Take what the network has brought (at most ``limit`` frames, to keep drawing)."""
        for _ in range(limit):
            try:
                msg = self.net.inbox.get_nowait()
            except queue.Empty:
                return
            self.handle(msg)

    def handle(self, msg: dict[str, Any]) -> None:
        """Route one inbox message to the models and the scene."""
        t = msg.get("t")
        scene = self.scene
        if t == "welcome":
            self.online = True
            self.lobby.apply(msg)
            if self.remember:
                save_identity(self.url, msg["player"], msg["token"])
        elif t in ("_offline", "_reconnecting"):
            self.online = False
            self.offline_reason = msg.get("message", "reconnecting...")
        elif t == "_reconnected":
            self.online = True
        elif t == "_closed":
            self.online = False
            self.offline_reason = "disconnected"
        elif t == "_hello_failed":
            self.online, self.lobby.player = False, None
            reason = error_text(msg["code"], msg["message"])
            if msg["code"] == "bad_token" and self.wanted:
                forget(self.url, self.wanted)  # taken back: it will never work again
            if msg["code"] in ("password_required", "bad_password") and self.wanted:
                self.scene = PasswordScene(self, self.wanted, reason)
            else:
                self.scene = NameScene(self, reason, suggested=self.wanted or "", remembered="")
            return
        elif t == "_signed_out":
            self.online = False
            player = self.lobby.player
            # A barred name's key is kept (4002): the host may lift the bar, and this
            # device then plays on with it; each start until then says it is barred.
            if player and msg["code"] != 4002:
                forget(self.url, player)
            why = ENDED.get(msg["code"], ENDED[1000])
            keep = player or "" if msg["code"] == 4002 else ""
            self.scene = NameScene(self, why, suggested=keep, remembered="")
            return
        elif t == "password_set":
            self.lobby.apply(msg)
            if isinstance(scene, SetPasswordScene):
                self.scene = scene = LobbyScene(self)
            scene.notice("Password set: sign in with it on your other devices.")
            return
        elif t == "joined":
            self.lobby.apply(msg)
            self.open_room(msg)
            return
        elif t == "created" and msg.get("code"):
            self.codes[msg["room"]] = msg["code"]
        elif t in ("rooms", "scores", "room", "_rejoined", "leaderboard", "history"):
            self.lobby.apply(msg)
        if t == "_error":
            if msg.get("code") == "connection_lost" and isinstance(scene, NameScene):
                return  # a request cut off by the end of the session: the scene says why
            scene.error(msg)
            return
        room = msg.get("room")
        if isinstance(scene, GameScene) and room == scene.model.room:
            model = scene.model
            if model.apply(msg, time.monotonic()):
                if t == "update":
                    scene.on_change(model.changes[-1])
                elif t == "_rejoined":
                    scene.on_snapshot(model.events)
            if model.rejoin_due():
                self.net.rejoin(model.room)
        scene.handle_message(msg)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="tilehall-gui", description="Tilehall in a window.")
    p.add_argument("--url", default=DEFAULT_URL, help=f"server (default {DEFAULT_URL})")
    p.add_argument(
        "--name", default=None, help="player name (default: ask, offering the remembered one)"
    )
    p.add_argument("--size", default="1180x780", help="first window size, WxH")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    """The ``tilehall-gui`` entry point."""
    args = parse_args(argv)
    w, _, h = args.size.partition("x")
    os.environ.setdefault("SDL_VIDEO_CENTERED", "1")
    App(args.url, args.name, size=(int(w), int(h))).run()


if __name__ == "__main__":
    main()
