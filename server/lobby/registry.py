"""The lobby's registry of rooms: start-up, indexes, waiting rooms' expiry, let go, close."""

from __future__ import annotations

import asyncio
import bisect
import hashlib
import logging
from typing import Any

from tilehall.protocol import ErrorCode, ProtocolError, encode
from tilehall.server.bots import bot_levels
from tilehall.server.clock import Clock, SystemClock, Timer
from tilehall.server.config import Config
from tilehall.server.games import Game, OptionError, Status, all_games, find_game
from tilehall.server.lobby.others import Alone, Others
from tilehall.server.ops.metrics import Metrics
from tilehall.server.ratings import describe as describe_ratings
from tilehall.server.room import Room, RoomServices
from tilehall.server.room.member import Member
from tilehall.server.store.base import Store
from tilehall.server.store.health import StoreHealth
from tilehall.server.store.records import JournalEntry, RoomRecord

__all__ = ["Registry", "hash_token"]

log = logging.getLogger(__name__)


def hash_token(token: str) -> bytes:
    """Tokens are stored only as their SHA-256: a leaked database leaks no session."""
    return hashlib.sha256(token.encode()).digest()


def _levels(game: str) -> list[str]:
    """The bot levels a COMP seat of ``game`` may ask for (empty: no bots)."""
    try:
        return list(bot_levels(game))
    except KeyError:
        return []


class Registry:
    """The rooms this lobby runs: made, adopted, indexed, expired, let go, closed.

    The one piece every handler of :class:`~tilehall.server.lobby.Lobby` is
    given (each seam's handlers are a piece of their own over it). It owns the
    indexes a listing walks (public rooms by id, and by game), the private rooms
    by code, the quick-match rooms, and the timers of waiting rooms nobody is in.

    Args:
        config: the server's settings (its limits, its node name in a cluster).
        store: players, rooms, journals and scores.
        clock: wall time and timers for the lobby and every room (the system's
            by default; tests pass one they move themselves).
    """

    def __init__(self, config: Config, store: Store, *, clock: Clock | None = None) -> None:
        self.config = config
        self.store = store
        self.clock: Clock = clock or SystemClock()
        self.rooms: dict[str, Room] = {}
        self.by_code: dict[str, Room] = {}
        self.matchable: dict[str, Room] = {}
        """Quick-match rooms waiting for players (pruned as they start or close)."""
        self._expiry: dict[str, Timer] = {}
        self._closing: set[asyncio.Future[None]] = set()
        """Rooms waiting with nobody in them, and when they close if it stays so."""
        self.listed: list[str] = []
        """The public rooms' ids, sorted: a ``rooms`` page starts where its cursor says."""
        self.listed_by_game: dict[str, list[str]] = {}
        """The same, for each game: a page of one game looks at that game's rooms only."""
        self.metrics = Metrics()
        self.health = StoreHealth(store, self.clock)
        self.services = RoomServices(
            store=store,
            clock=self.clock,
            limits=config.limits,
            metrics=self.metrics,
            health=self.health,
        )
        self.others: Others = Alone(config.node, self.release)
        """The other nodes: none (:class:`Alone`), or a cluster's (``--mqtt``)."""
        self.games = [
            {**g.describe(), "bots": _levels(g.name), **describe_ratings(g.name)}
            for g in all_games()
        ]
        """Every game as ``welcome.games`` lists it."""

    # -- start-up ---------------------------------------------------------------------

    async def recover(self) -> int:
        """Rebuild every unfinished room from its journal; returns how many."""
        count = 0
        for record in await self.store.unfinished_rooms(self.config.node):
            if await self.adopt(record) is not None:
                count += 1
        return count

    async def adopt(self, record: RoomRecord) -> Room | None:
        """Rebuild one unfinished room from its journal and run it here.

        At start-up for this node's own rooms, and in a cluster for a dead
        node's rooms this node claimed. None if it cannot be rebuilt from its journal.
        """
        try:
            room = self.make(record, await self.store.journal(record.id))
        except Exception:
            log.exception("room %s could not be recovered; left as it is", record.id)
            return None
        self.add(room)
        await room.resume()
        self.expire_later(room)
        return room

    def make(self, record: RoomRecord, journal: list[JournalEntry] | None = None) -> Room:
        """The room of ``record`` (rebuilt from ``journal``, when given), not yet run here."""
        return Room(
            record,
            find_game(record.game),
            self.services,
            journal=journal,
            on_over=self.room_over,
            on_moved=self.room_moved,
            on_changed=self.announce,
        )

    def add(self, room: Room) -> None:
        """Run ``room`` here: indexed, listed (unless private), announced."""
        self.rooms[room.id] = room
        if room.matching:
            self.matchable[room.id] = room
        if room.record.private_code:
            self.by_code[room.record.private_code] = room
        else:
            bisect.insort(self.listed, room.id)
            bisect.insort(self.listed_by_game.setdefault(room.game.name, []), room.id)
        self.announce(room)

    def _drop(self, room: Room) -> None:
        """Take ``room`` out of this lobby's indexes (it stays in the store)."""
        self.rooms.pop(room.id, None)
        if room.record.private_code:
            self.by_code.pop(room.record.private_code, None)
        else:
            for ids in (self.listed, self.listed_by_game.get(room.game.name, [])):
                i = bisect.bisect_left(ids, room.id)
                if i < len(ids) and ids[i] == room.id:
                    del ids[i]

    # -- waiting rooms nobody is in --------------------------------------------------------

    def expire_later(self, room: Room) -> None:
        """A waiting room with nobody in it closes after ``waiting_ttl`` unless someone comes.

        Rooms made and never joined would otherwise stay listed, and come back
        after every restart, for ever.
        """
        ttl = self.config.limits.waiting_ttl
        if not ttl or room.members or room.status is not Status.WAITING or room.id in self._expiry:
            return
        self._expiry[room.id] = self.clock.call_later(ttl, lambda: self._expire(room))

    def keep(self, room: Room) -> None:
        """Someone is in ``room``: it does not expire."""
        timer = self._expiry.pop(room.id, None)
        if timer is not None:
            timer.cancel()

    def _expire(self, room: Room) -> None:
        self._expiry.pop(room.id, None)
        if self.rooms.get(room.id) is not room or room.members or room.status is not Status.WAITING:
            return
        minutes = self.config.limits.waiting_ttl / 60
        task = asyncio.ensure_future(
            self.close_room(room, f"nobody joined for {minutes:g} minutes", expired=True)
        )
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def quiet(self) -> None:
        """Wait for the rooms being closed now (expired) to be closed (tests, shutdown)."""
        while self._closing:
            await asyncio.wait(set(self._closing))

    def announce(self, room: Room) -> None:
        """Tell the other nodes a room hosted here is new or its summary may have changed.

        Only a room this lobby runs: one let go (to another node, or closed) may still
        change once more (an act in flight suspends it, a last summary is pushed), and
        the cluster would take that for a room hosted here again: announced, and this
        node's connections, relayed to its real host already, brought back to it.
        """
        if self.rooms.get(room.id) is room:
            self.others.room_changed(room)

    def room_over(self, room: Room) -> None:
        """A game ended: keep the room a while for late spectators, then forget it."""
        log.info("room %s (%s) is over", room.id, room.game.name, extra={"room": room.id})
        self.announce(room)
        self.clock.call_later(self.config.limits.finished_ttl, lambda: self._forget(room))

    def _forget(self, room: Room) -> None:
        if self.rooms.get(room.id) is room:
            self._drop(room)
            room.close()
            self.others.room_gone(room)

    def release(self, room: Room) -> None:
        """Stop running a room here: in a cluster, another node now owns it."""
        self._forget(room)

    def room_moved(self, room: Room) -> None:
        """The store names another node for ``room`` (taken over while this node was cut off)."""
        self.others.room_lost(room)

    async def close_room(self, room: Room, reason: str, *, expired: bool = False) -> None:
        """End a room for good (an administrator's decision, or nobody came): it is gone.

        Its members are told (``room_closed``); its journal and record stay.
        """
        self.keep(room)
        result = {"expired" if expired else "closed": reason}
        async with room.between_moves():
            room.close()
            await self.store.finish_room(room.id, result, [], self.clock.time())
        data = encode({"t": "error", "code": ErrorCode.ROOM_CLOSED, "message": reason})
        for member in list(room.members):
            member.send(data)
            room.leave(member)
        if self.rooms.get(room.id) is room:
            self._drop(room)
        self.others.room_gone(room)
        log.warning("room %s closed: %s", room.id, reason, extra={"room": room.id})

    def game(self, name: str) -> type[Game]:
        """The engine class of the game named ``name``; ``unknown_game`` if there is none."""
        try:
            return find_game(name)
        except KeyError:
            raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"there is no game {name!r}") from None

    def options(self, game: type[Game], raw: dict[str, Any] | None) -> dict[str, Any]:
        """``raw`` checked against ``game``'s options, defaults filled in; ``bad_option``."""
        try:
            return game.validate_options(raw)
        except OptionError as exc:
            raise ProtocolError(ErrorCode.BAD_OPTION, exc.message) from None

    # -- the rooms requests name --------------------------------------------------------

    def find_room(self, msg: dict[str, Any], player: int | None = None) -> Room:
        """The room named by ``room`` or ``code``; a private room by its id only for a player
        who holds a seat in it or made it."""
        if "code" in msg:
            room = self.by_code.get(msg["code"])
            if room is None:
                raise ProtocolError(ErrorCode.UNKNOWN_ROOM, "no room has that code")
            return room
        room = self.rooms.get(msg["room"])
        if room is None or (
            room.private
            and (player is None or (room.seat_of(player) is None and room.record.creator != player))
        ):
            raise ProtocolError(ErrorCode.UNKNOWN_ROOM, f"there is no room {msg['room'][:64]!r}")
        return room

    def member_of(self, session: Member, rid: str) -> Room:
        """The room ``rid`` that ``session`` is in: ``unknown_room`` if there is no such room
        (as ``act``, ``join`` and ``watch`` say), ``not_in_room`` if it is not a member."""
        room = self.rooms.get(rid)
        if room is None:
            raise ProtocolError(ErrorCode.UNKNOWN_ROOM, f"there is no room {rid[:64]!r}")
        if session not in room.members:
            raise ProtocolError(ErrorCode.NOT_IN_ROOM, f"you are not in room {rid[:64]!r}")
        return room
