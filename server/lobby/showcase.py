"""The server's own game: an all-COMP Mathable kept going while nobody plays in public.

A lobby opens on a live game to watch (the busiest public room). On a server where
nobody is playing there would be none, so the server keeps one of its own: two COMP
seats of Mathable, a public room made by nobody (:attr:`RoomRecord.showcase` says so
from its record alone). Its summary carries ``showcase: true``.

What keeps it cheap: a room of bots only stands still while nobody is in it
(``paused: "unwatched"``), so its bots think only while someone watches it, at the
pace of every bot game (``--bot-delay``). What keeps it out of the way: made by
nobody, it is on no player's room budget and in nobody's games; its seats being
bots', it is rated nowhere and enters no high-score table; it has no quick-match
deadline, so ``match`` never seats anyone in it; its seats are all taken, so nobody
joins it either.

Its life: it is made at once on a server that has none (a fresh server's lobby shows
a live game), never while a public game of people is being played, and again
``--showcase-pause`` seconds after the last one ended. It is a room like any other
across a restart (rebuilt from its journal, and the keeper makes no second one while
it is there). Finished showcases are deleted, record and moves, a day after they
ended (:meth:`Store.purge_showcases`), whatever ``--replay-days`` says: nobody's
history lists them.

In a cluster one node keeps it (:meth:`Others.keeps_showcase`: the first live node by
name) and makes it on itself; every node looks at the others' rooms too before making
one, so a showcase handed on (its node stopped or died) is kept, not doubled.
"""

from __future__ import annotations

import asyncio
import logging
import math

from tilehall.server.games import Game, Status, find_game
from tilehall.server.lobby.making import Making
from tilehall.server.lobby.registry import Registry
from tilehall.server.store.errors import StoreUnavailable
from tilehall.server.store.records import SeatRecord

__all__ = ["GAME", "KEPT_FOR", "Showcase"]

log = logging.getLogger(__name__)

GAME = "mathable"
"""The game it plays: the one the rules are about, two computers at it."""

LEVELS = ("normal", "normal")
"""Its COMP seats' levels: ``normal`` thinks little, and a game between two is close."""

LOOK_EVERY = 2.0
"""Seconds between two looks at the lobby (a walk of its rooms until one is played)."""

KEPT_FOR = 86400.0
"""Seconds a finished showcase is kept (replayable, in the store) before it is deleted."""

PURGE_EVERY = 3600.0
"""Seconds between two deletions of old finished showcases."""


class Showcase:
    """Keeps the server's own game going on this node, when this node is the one to.

    Args:
        registry: the lobby's rooms (and the other nodes', as announced).
        making: makes the room (:meth:`Making.showcase`).
    """

    def __init__(self, registry: Registry, making: Making) -> None:
        self.registry = registry
        self.making = making
        self.gone_since: float = -math.inf
        """Since when no showcase runs (-inf: none ever did here, make one at once)."""
        self.purged_at: float = -math.inf

    def game(self) -> type[Game] | None:
        """The game it plays; None where it is not installed (games are plugins)."""
        try:
            return find_game(GAME)
        except KeyError:
            return None

    def current(self) -> str | None:
        """The showcase not over yet, here or on another node (its id); None if none."""
        for room in self.registry.rooms.values():
            if room.record.showcase and room.status is not Status.OVER:
                return room.id
        for s in self.registry.others.listed(GAME):
            if s.get("showcase") and s["status"] != Status.OVER.value:
                return str(s["room"])
        return None

    def played(self) -> bool:
        """Whether a public game other than a showcase is being played (and not standing
        still for its players: one paused while its people are away is no game to watch)."""
        for room in self.registry.rooms.values():
            if room.status is not Status.PLAYING or room.private or room.record.showcase:
                continue
            if not room.suspended and room.core.paused_why() in (None, "unwatched"):
                return True
        return any(
            s["status"] == Status.PLAYING.value
            and not s.get("showcase")
            and not s.get("private")
            and not s.get("suspended")
            and s.get("paused") in (None, "unwatched")
            for s in self.registry.others.listed(None)
        )

    async def step(self) -> str | None:
        """Look once: make a showcase if one is due; its id, else None."""
        registry = self.registry
        now = registry.clock.time()
        if now - self.purged_at >= PURGE_EVERY:
            self.purged_at = now
            while await registry.store.purge_showcases(now - KEPT_FOR) > 0:
                await asyncio.sleep(0)
        if not registry.others.keeps_showcase():
            return None
        if self.current() is not None:
            self.gone_since = now  # the pause counts from when it is seen gone
            return None
        if now - self.gone_since < registry.config.limits.showcase_pause or self.played():
            return None
        game = self.game()
        if game is None:
            return None
        seats = [SeatRecord(name="COMP", bot=level) for level in LEVELS[: game.max_seats]]
        rid = await self.making.showcase(game, registry.options(game, None), seats)
        self.gone_since = now
        log.info("showcase: room %s (%s, all COMP) made for the lobby", rid, game.name)
        return rid

    async def let_go(self) -> int:
        """Close the showcases this node runs (``--no-showcase``): how many.

        A server that kept one and is started again with ``--no-showcase`` rebuilds
        it from its journal like any other room; without this it would stay listed
        for good, standing still (nobody keeps it), with nothing for anyone to do
        there. Its record and moves stay; a later run that keeps a showcase
        deletes them a day on, as any finished one's.

        A store that cannot write now (a full disk) does not keep the server from
        starting for this: the room is let go unlisted, still unfinished in the store,
        and the next start closes it.
        """
        registry = self.registry
        kept = [r for r in registry.rooms.values() if r.record.showcase and not r.closed]
        for room in kept:
            try:
                await registry.close_room(room, "this server keeps no showcase now")
            except StoreUnavailable as exc:
                registry.health.failed(exc)
                log.warning(
                    "showcase %s not closed (%s); let go, closed at the next start", room.id, exc
                )
                registry.release(room)
        return len(kept)

    async def run_forever(self) -> None:
        """:meth:`step` every :data:`LOOK_EVERY` seconds; a store that is down is tried
        again at the next look."""
        registry = self.registry
        while True:
            try:
                await self.step()
            except StoreUnavailable as exc:
                registry.health.failed(exc)
            except Exception:  # never the end of the lobby's live game for one bad look
                log.exception("showcase: a look failed; looking again")
            await registry.clock.sleep(LOOK_EVERY)
