"""Making rooms: ``create``, and ``match`` (quick-match: a room of that game, or a new one)."""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any

from tilehall.protocol import ErrorCode, ProtocolError
from tilehall.server.bots import find_bot
from tilehall.server.games import Game, Status
from tilehall.server.lobby.membership import Membership
from tilehall.server.lobby.registry import Registry
from tilehall.server.names import is_bot_name, is_plain_bot_name, validate_name
from tilehall.server.room.member import Member
from tilehall.server.store.errors import RoomTaken
from tilehall.server.store.records import RoomRecord, SeatRecord

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

    async def create(self, session: Member, msg: dict[str, Any]) -> dict[str, Any]:
        game = self.registry.game(msg["game"])
        options = self.registry.options(game, msg.get("options"))
        seats = self._seats(game, msg.get("seats"))
        assert session.player is not None
        return await self._create_as(
            session.player.id, game, options, seats, private=bool(msg.get("private"))
        )

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
        creator: int,
        fill: tuple[float, str] | None = None,
    ) -> dict[str, Any]:
        registry = self.registry
        bound = registry.config.limits.max_rooms_per_player
        if bound and (open_rooms := await registry.store.open_rooms_of(creator)) >= bound:
            raise ProtocolError(
                ErrorCode.TOO_MANY_ROOMS,
                f"you have {open_rooms} rooms not over yet (at most {bound}): play or leave "
                "them first; a waiting room nobody is in closes by itself",
            )
        node = registry.others.place()
        for attempt in range(1, ROOM_ID_DRAWS + 1):
            code = secrets.token_urlsafe(12) if private else None
            record = RoomRecord(
                id=secrets.token_urlsafe(12) if private else "r" + secrets.token_hex(4),
                game=game.name,
                options=options,
                seed=secrets.randbits(63),
                seats=tuple(seats),
                private_code=code,
                created_at=registry.clock.time(),
                node=node,
                creator=creator,
                fill_at=fill[0] if fill else None,
                fill_level=fill[1] if fill else None,
            )
            try:
                await registry.store.create_room(record)
            except RoomTaken:
                log.info("room id %s drawn again (draw %d): drawing another", record.id, attempt)
                if attempt == ROOM_ID_DRAWS:
                    raise
                continue
            break
        reply: dict[str, Any] = {"t": "created", "room": record.id}
        if code:
            reply["code"] = code
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
