"""Making rooms: ``create``, and ``match`` (quick-match: a room of that game, or a new one)."""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any

from tilehall.protocol import ErrorCode, ProtocolError
from tilehall.server.bots import find_bot
from tilehall.server.daily import SECRET_NAME, daily_seed, day_of
from tilehall.server.games import Game, Status
from tilehall.server.lobby.membership import Membership
from tilehall.server.lobby.registry import Registry
from tilehall.server.names import is_bot_name, is_plain_bot_name, validate_name
from tilehall.server.room.member import Member
from tilehall.server.store.errors import RoomTaken
from tilehall.server.store.records import SHOWCASE_PREFIX, RoomRecord, SeatRecord

__all__ = ["Making"]

log = logging.getLogger(__name__)

ROOM_ID_DRAWS = 8
"""Ids drawn for a new room before giving up (:class:`RoomTaken` each time): a public
room's id has 32 random bits, so a second draw is rare and a third rarer still."""

BOTS_AFTER = 30
"""Seconds a quick-match player waits for others before bots take the open seats,
when the request does not say."""


class Making:
    """New rooms, made to order or matched, over the lobby's registry (a match is a join)."""

    def __init__(self, registry: Registry, membership: Membership) -> None:
        self.registry = registry
        self.membership = membership
        self._creating: dict[int, asyncio.Lock] = {}
        self._matching: dict[tuple[str, int], asyncio.Lock] = {}
        self._daily_secret: str | None = None

    async def create(self, session: Member, msg: dict[str, Any]) -> dict[str, Any]:
        game = self.registry.game(msg["game"])
        if msg.get("daily"):
            return await self._daily(session, game, msg)
        options = self.registry.options(game, msg.get("options"))
        seats = self._seats(game, msg.get("seats"))
        assert session.player is not None
        return await self._create_as(
            session.player.id, game, options, seats, private=bool(msg.get("private"))
        )

    # -- today's deal -----------------------------------------------------------------

    async def _daily(
        self, session: Member, game: type[Game], msg: dict[str, Any]
    ) -> dict[str, Any]:
        """A room of today's deal: the player's open one of the day, else a new one.

        The day is the clock's UTC day when asked: a game begun at 23:59 plays that
        day's deal and counts on that day's table, whenever it ends. The room is
        private (never listed, watched by nobody else: the day's best line stays
        unseen until the day ends) and its seat kept for its maker, whose first
        room of the day holds the try that counts; later ones are practice, and the
        reply says so before the game starts. A COMP seat (``seats: ["COMP"]``) may
        play it too, as practice: bots never enter the day's table (nor do bot
        programs, ``hello`` with ``bot``: the day's table lists people only).
        """
        assert session.player is not None
        player = session.player
        if not game.daily:
            raise ProtocolError(ErrorCode.NO_DAILY, f"{game.title} has no daily deal")
        if msg.get("options"):
            raise ProtocolError(
                ErrorCode.BAD_OPTION, "today's deal is played on the game's default options"
            )
        seats = self._seats(game, msg.get("seats"))
        by_bot = seats[0].bot is not None
        if not by_bot:
            if seats[0].name is not None and seats[0].name != player.name:
                raise ProtocolError(
                    ErrorCode.BAD_SEATS, "today's deal is yours: its seat is kept for you"
                )
            seats = [SeatRecord(name=player.name)]
        day = day_of(self.registry.clock.time())
        counts = not by_bot
        lock = self._creating.setdefault(player.id, asyncio.Lock())
        try:
            async with lock:  # one at a time each: a resumed room is found, not made twice
                return await self._daily_as(player.id, game, seats, day, counts)
        finally:
            if self._creating.get(player.id) is lock and not lock.locked():
                del self._creating[player.id]

    async def _daily_as(
        self, player: int, game: type[Game], seats: list[SeatRecord], day: str, counts: bool
    ) -> dict[str, Any]:
        """:meth:`_daily` under the player's lock."""
        if seats[0].bot is None:
            for kept in await self.registry.store.daily_rooms(game.name, day, player):
                here = self.registry.rooms.get(kept.id)
                if here is not None and here.status is Status.OVER:
                    continue  # just ended: the store is told a moment after its players
                if kept.seats[0].bot is None:  # theirs for the day: back to it
                    reply: dict[str, Any] = {"t": "created", "room": kept.id}
                    if kept.private_code:
                        reply["code"] = kept.private_code
                    return {**reply, "daily": day, "practice": kept.practice, "resumed": True}
        seed = daily_seed(await self._secret(), game.name, day)
        options = self.registry.options(game, None)
        return await self._create(game, options, seats, True, player, daily=(day, seed, counts))

    async def _secret(self) -> str:
        """The server's daily secret, from the store (every node shares it), made once."""
        if self._daily_secret is None:
            self._daily_secret = await self.registry.store.secret(
                SECRET_NAME, secrets.token_urlsafe(32)
            )
        return self._daily_secret

    async def _create_as(
        self,
        creator: int,
        game: type[Game],
        options: dict[str, Any],
        seats: list[SeatRecord],
        *,
        private: bool = False,
        fill: tuple[float, str] | None = None,
    ) -> dict[str, Any]:
        async with self._creating.setdefault(creator, asyncio.Lock()):  # one at a time each
            try:
                return await self._create(game, options, seats, private, creator, fill)
            finally:
                lock = self._creating.get(creator)
                if lock is not None and not lock.locked():
                    del self._creating[creator]

    async def _create(
        self,
        game: type[Game],
        options: dict[str, Any],
        seats: list[SeatRecord],
        private: bool,
        creator: int | None,
        fill: tuple[float, str] | None = None,
        *,
        daily: tuple[str, int, bool] | None = None,
    ) -> dict[str, Any]:
        """Make a room; ``daily``: today's deal, as (its day, its seed, whether it may hold
        its maker's try of the day). ``creator`` None: the server's own showcase
        (:meth:`showcase`), run on this node, on nobody's budget."""
        registry = self.registry
        bound = registry.config.limits.max_rooms_per_player
        if (
            bound
            and creator is not None
            and (open_rooms := await registry.store.open_rooms_of(creator)) >= bound
        ):
            raise ProtocolError(
                ErrorCode.TOO_MANY_ROOMS,
                f"you have {open_rooms} rooms not over yet (at most {bound}): play or leave "
                "them first; a waiting room nobody is in closes by itself",
            )
        # The showcase stays with the node that keeps it (it alone judges when to make one).
        node = registry.others.place() if creator is not None else registry.config.node
        prefix = "r" if creator is not None else SHOWCASE_PREFIX
        for attempt in range(1, ROOM_ID_DRAWS + 1):
            code = secrets.token_urlsafe(12) if private else None
            rid = secrets.token_urlsafe(12) if private else prefix + secrets.token_hex(4)
            practice = False
            if daily is not None:
                assert creator is not None
                practice = not daily[2] or (
                    await registry.store.daily_try(game.name, daily[0], creator, rid) != rid
                )
            record = RoomRecord(
                id=rid,
                game=game.name,
                options=options,
                seed=daily[1] if daily is not None else secrets.randbits(63),
                seats=tuple(seats),
                private_code=code,
                created_at=registry.clock.time(),
                node=node,
                creator=creator,
                fill_at=fill[0] if fill else None,
                fill_level=fill[1] if fill else None,
                daily=daily[0] if daily is not None else None,
                practice=practice,
            )
            try:
                await registry.store.create_room(record)
            except RoomTaken:
                log.info("room id %s drawn again (draw %d): drawing another", record.id, attempt)
                if attempt == ROOM_ID_DRAWS or (daily is not None and not practice):
                    # A try given to an id taken (72 random bits: never seen) is not
                    # handed on: refused, and the player asks again.
                    raise
                continue
            break
        reply: dict[str, Any] = {"t": "created", "room": record.id}
        if code:
            reply["code"] = code
        if daily is not None:
            reply["daily"] = daily[0]
            reply["practice"] = practice
        if record.node != registry.config.node:
            # Placed on a lighter node: it runs the room once it has announced it.
            taken_back = await registry.others.host_new_room(record)
            if taken_back is None:
                return reply
            record = taken_back
        room = registry.make(record)
        registry.add(room)
        await room.begin()  # bot-only rooms play at once; quick-match arms its bots
        registry.announce(room)
        registry.expire_later(room)
        return reply

    async def showcase(
        self, game: type[Game], options: dict[str, Any], seats: list[SeatRecord]
    ) -> str:
        """Make the server's own game (bots' seats only, public, made by nobody); its id.

        Made by nobody, it is on no player's room budget nor in anyone's games; its
        seats being bots', it is rated nowhere and enters no table; without a quick-match
        deadline it is never matched. Its record says what it is
        (:attr:`RoomRecord.showcase`), after a restart or on another node too.
        """
        created = await self._create(game, options, seats, False, None)
        return str(created["room"])

    # -- quick-match ------------------------------------------------------------------

    async def match(self, session: Member, msg: dict[str, Any]) -> dict[str, Any] | None:
        """Seat the player in a quick-match room of that game, seat count and options.

        The oldest such room with an open seat, or a new one; its open seats go
        to COMP bots (``level``) ``bots_after`` seconds after the request if
        nobody else came by then (the sooner of its players' waits). Answers as
        ``join`` does. A solo game is simply made and joined. A player already
        seated in such a room is sent back to it (a retried request).
        """
        assert session.player is not None
        player, name = session.player.id, session.player.name
        game = self.registry.game(msg["game"])
        options = self.registry.options(game, msg.get("options"))
        count = msg.get("seats", game.min_seats)
        if not game.min_seats <= count <= game.max_seats:
            raise ProtocolError(
                ErrorCode.BAD_SEATS,
                f"{game.title} takes {game.min_seats} to {game.max_seats} seats, not {count}",
            )
        level = msg.get("level", "normal")
        if count > 1:
            try:
                find_bot(game.name, level)
            except KeyError as exc:
                raise ProtocolError(ErrorCode.BAD_SEATS, str(exc.args[0])) from None
        bots_after = msg.get("bots_after", BOTS_AFTER)
        seats = [SeatRecord() for _ in range(count)]
        if count == 1:
            created = await self._create_as(player, game, options, seats)
            return await self.membership.join(session, {"t": "join", "room": created["room"]})
        fill_at = self.registry.clock.time() + bots_after
        key = (game.name, count)
        async with self._matching.setdefault(key, asyncio.Lock()):
            for _ in range(3):  # a room found may fill (bots, a player) before we sit down
                found = self._match_room(key, options, player, name)
                if found is None:
                    created = await self._create_as(
                        player, game, options, seats, fill=(fill_at, level)
                    )
                    found = created["room"]
                elif (room := self.registry.rooms.get(found)) is not None:
                    await room.fill_sooner(fill_at)
                try:
                    return await self.membership.join(session, {"t": "join", "room": found})
                except ProtocolError as exc:
                    if exc.code not in (ErrorCode.SEAT_TAKEN, ErrorCode.ROOM_FULL):
                        raise
        raise ProtocolError(
            ErrorCode.UNAVAILABLE, "quick-match rooms filled as we looked; try again", retry_after=1
        )

    def _match_room(
        self, key: tuple[str, int], options: dict[str, Any], player: int, name: str
    ) -> str | None:
        """The room ``match`` seats the player in: theirs, else the oldest with a seat open."""
        game, count = key
        matchable, rooms = self.registry.matchable, self.registry.rooms
        for rid, room in list(matchable.items()):
            if not room.matching or rooms.get(rid) is not room:
                del matchable[rid]
        local = [
            (room.record.created_at, room.id, room.seat_of(player) is not None)
            for room in matchable.values()
            if room.game.name == game
            and len(room.seats) == count
            and room.record.options == options
            and (
                room.seat_of(player) is not None
                or any(s.player is None and s.bot is None and s.name is None for s in room.seats)
            )
        ]
        for _, rid, mine in local:
            if mine:
                return rid
        if local:
            return min(local)[1]
        # another node's, as its directory entry says
        listed = sorted(
            self.registry.others.listed(game), key=lambda s: (s.get("bots_at") or 0, s["room"])
        )
        for s in listed:
            if (
                s.get("bots_at") is not None
                and s["status"] == Status.WAITING.value
                and not s.get("private")
                and len(s["seats"]) == count
                and s["options"] == options
                and any(not seat["taken"] and seat["name"] is None for seat in s["seats"])
            ):
                return str(s["room"])
        return None

    def _seats(self, game: Any, raw: list[Any] | None) -> list[SeatRecord]:
        if raw is None:
            return [SeatRecord() for _ in range(game.min_seats)]
        if not game.min_seats <= len(raw) <= game.max_seats:
            raise ProtocolError(
                ErrorCode.BAD_SEATS,
                f"{game.title} takes {game.min_seats} to {game.max_seats} seats, not {len(raw)}",
            )
        seats = []
        for entry in raw:
            if entry is None or entry == "":
                seats.append(SeatRecord())
                continue
            if not isinstance(entry, str):
                raise ProtocolError(ErrorCode.BAD_SEATS, f"a seat is a name or nil, not {entry!r}")
            name, _, level = entry.partition(":")
            name = validate_name(name)
            if is_plain_bot_name(name):
                level = level or "normal"
                try:
                    find_bot(game.name, level)
                except KeyError as exc:
                    raise ProtocolError(ErrorCode.BAD_SEATS, str(exc.args[0])) from None
                seats.append(SeatRecord(name=name, bot=level))
            elif is_bot_name(name):
                # A bot seat is spelled COMP with plain letters; one that only looks
                # like it (C0MP, or COMP in Cyrillic letters) would pass a person off as a bot.
                raise ProtocolError(
                    ErrorCode.NAME_RESERVED,
                    f"a bot seat is spelled COMP with plain letters, not {name!r}",
                )
            elif level:
                raise ProtocolError(ErrorCode.BAD_SEATS, f"only COMP seats take a level: {entry!r}")
            else:
                seats.append(SeatRecord(name=name))
        return seats
