"""Sessions and the lobby: hello, rooms, create, join, watch, leave, scores, chat.

One :class:`Lobby` per server process. It turns decoded requests into replies;
the WebSocket handling around it lives in :mod:`server.app`.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import secrets
import time
import unicodedata
from typing import TYPE_CHECKING, Any

from protocol import VERSION, ErrorCode, ProtocolError, encode
from server.bots import bot_levels, find_bot
from server.games import OptionError, all_games, find_game
from server.ops import Metrics
from server.room import Room
from server.store.base import NameTaken, RoomRecord, SeatRecord, Store

if TYPE_CHECKING:
    from server.cluster import Cluster, RemoteRoom
    from server.config import Config
    from server.session import Session

__all__ = ["Lobby", "hash_token", "validate_name"]

log = logging.getLogger(__name__)

_NAME = re.compile(r"^[\w][\w .\-]*$")


def hash_token(token: str) -> bytes:
    """Tokens are stored only as their SHA-256: a leaked database leaks no session."""
    return hashlib.sha256(token.encode()).digest()


def validate_name(raw: str) -> str:
    """A player name: 1-24 letters, digits, spaces, ``_ . -``; no controls; trimmed."""
    name = unicodedata.normalize("NFC", raw).strip()
    if not name or len(name) > 24 or not _NAME.match(name) or "  " in name:
        raise ProtocolError(
            ErrorCode.BAD_NAME,
            f"{raw[:40]!r} is not a name: use 1-24 letters, digits, spaces, '_', '.', '-'",
        )
    return name


def _levels(game: str) -> list[str]:
    """The bot levels a COMP seat of ``game`` may ask for (empty: no bots)."""
    try:
        return list(bot_levels(game))
    except KeyError:
        return []


def is_bot_name(name: str) -> bool:
    return name[:4].upper() == "COMP"


class Lobby:
    """The rooms of this server and the requests about them."""

    def __init__(self, config: Config, store: Store) -> None:
        self.config = config
        self.store = store
        self.rooms: dict[str, Room] = {}
        self.by_code: dict[str, Room] = {}
        self.metrics = Metrics()
        self.bus: Cluster | None = None
        """The cluster bus (``--mqtt``): rooms of other nodes, and news of this node's."""
        self._games = [{**g.describe(), "bots": _levels(g.name)} for g in all_games()]

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
        node's rooms this node claimed. None if the journal cannot be replayed.
        """
        try:
            room = Room(record, find_game(record.game), self)
            room.replay(await self.store.journal(record.id))
        except Exception:
            log.exception("room %s could not be recovered; left as it is", record.id)
            return None
        self._add(room)
        room.resume()
        await room.maybe_start()
        return room

    def _add(self, room: Room) -> None:
        self.rooms[room.id] = room
        if room.record.private_code:
            self.by_code[room.record.private_code] = room
        self._announce(room)

    def _announce(self, room: Room) -> None:
        """Tell the cluster a room hosted here is new or its summary may have changed."""
        if self.bus is not None:
            self.bus.room_changed(room)

    def _remote(self, session: Session, msg: dict[str, Any]) -> RemoteRoom | None:
        """In a cluster: the proxy of the room ``msg`` names when another node hosts it."""
        if self.bus is None or msg.get("room") in self.rooms or msg.get("code") in self.by_code:
            return None
        return self.bus.remote_room(session, msg)

    def metrics_action(self, room: Room) -> None:
        self.metrics.actions[room.game.name] += 1

    def room_over(self, room: Room) -> None:
        """A game ended: keep the room a while for late spectators, then forget it."""
        log.info("room %s (%s) is over", room.id, room.game.name, extra={"room": room.id})
        self._announce(room)
        asyncio.get_running_loop().call_later(self.config.limits.finished_ttl, self._forget, room)

    def _forget(self, room: Room) -> None:
        if self.rooms.get(room.id) is room:
            del self.rooms[room.id]
            if room.record.private_code:
                self.by_code.pop(room.record.private_code, None)
            room.close()
            if self.bus is not None:
                self.bus.room_gone(room)

    def release(self, room: Room) -> None:
        """Stop running a room here: in a cluster, another node now owns it."""
        self._forget(room)

    async def close_room(self, room: Room, reason: str) -> None:
        """End a room for good (an administrator's decision): members are told, it is gone."""
        async with room.lock:
            room.close()
            await self.store.finish_room(room.id, {"closed": reason}, [], time.time())
        data = encode({"t": "error", "code": ErrorCode.ROOM_CLOSED, "message": reason})
        for member in list(room.members):
            member.send(data)
            room.remove_member(member)
        self.rooms.pop(room.id, None)
        if room.record.private_code:
            self.by_code.pop(room.record.private_code, None)
        if self.bus is not None:
            self.bus.room_gone(room)
        log.warning("room %s closed: %s", room.id, reason, extra={"room": room.id})

    # -- sessions ---------------------------------------------------------------------

    async def hello(self, session: Session, msg: dict[str, Any]) -> dict[str, Any]:
        if session.player is not None:
            raise ProtocolError(ErrorCode.ALREADY_WELCOMED, "this connection already said hello")
        if msg["v"] != VERSION:
            raise ProtocolError(
                ErrorCode.UNSUPPORTED_VERSION,
                f"protocol version {msg['v']} is not supported; this server speaks {VERSION}",
            )
        if "token" in msg:
            token = msg["token"]
            player = await self.store.player_by_token(hash_token(token))
            if player is None:
                raise ProtocolError(ErrorCode.BAD_TOKEN, "that token belongs to no player")
        else:
            name = validate_name(msg["name"])
            if is_bot_name(name):
                raise ProtocolError(
                    ErrorCode.NAME_RESERVED, f"names starting with COMP are for bots: {name!r}"
                )
            token = secrets.token_urlsafe(24)
            try:
                player = await self.store.create_player(name, hash_token(token), time.time())
            except NameTaken:
                raise ProtocolError(
                    ErrorCode.NAME_TAKEN, f"the name {name!r} is taken; come back with its token"
                ) from None
        session.player = player
        mine = [r.id for r in self.rooms.values() if r.seat_of(player.id) is not None]
        if self.bus is not None:
            mine += self.bus.seated(player.id)
        return {
            "t": "welcome",
            "v": VERSION,
            "player": player.name,
            "token": token,
            "games": self._games,
            "rooms": mine,
        }

    # -- lobby --------------------------------------------------------------------------

    def list_rooms(self, msg: dict[str, Any]) -> dict[str, Any]:
        game = msg.get("game")
        rooms = [
            r.summary()
            for r in self.rooms.values()
            if not r.private and (game is None or r.game.name == game)
        ]
        if self.bus is not None:
            rooms += self.bus.listed(game)
        return {"t": "rooms", "rooms": rooms}

    async def create(self, session: Session, msg: dict[str, Any]) -> dict[str, Any]:
        try:
            game = find_game(msg["game"])
        except KeyError:
            raise ProtocolError(
                ErrorCode.UNKNOWN_GAME, f"there is no game {msg['game']!r}"
            ) from None
        try:
            options = game.validate_options(msg.get("options"))
        except OptionError as exc:
            raise ProtocolError(ErrorCode.BAD_OPTION, exc.message) from None
        seats = self._seats(game, msg.get("seats"))
        private = bool(msg.get("private"))
        code = secrets.token_urlsafe(12) if private else None
        room_id = secrets.token_urlsafe(12) if private else "r" + secrets.token_hex(4)
        record = RoomRecord(
            id=room_id,
            game=game.name,
            options=options,
            seed=secrets.randbits(63),
            seats=tuple(seats),
            private_code=code,
            created_at=time.time(),
            node=self.config.node,
        )
        await self.store.create_room(record)
        room = Room(record, game, self)
        self._add(room)
        await room.maybe_start()  # bot-only rooms play at once
        self._announce(room)
        reply: dict[str, Any] = {"t": "created", "room": room.id}
        if code:
            reply["code"] = code
        return reply

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
            if is_bot_name(name):
                level = level or "normal"
                try:
                    find_bot(game.name, level)
                except KeyError as exc:
                    raise ProtocolError(ErrorCode.BAD_SEATS, str(exc.args[0])) from None
                seats.append(SeatRecord(name=name, bot=level))
            elif level:
                raise ProtocolError(ErrorCode.BAD_SEATS, f"only COMP seats take a level: {entry!r}")
            else:
                seats.append(SeatRecord(name=name))
        return seats

    def find_room(self, msg: dict[str, Any], player: int | None = None) -> Room:
        """The room named by ``room`` or ``code``; private rooms need the code or a seat."""
        if "code" in msg:
            room = self.by_code.get(msg["code"])
            if room is None:
                raise ProtocolError(ErrorCode.UNKNOWN_ROOM, "no room has that code")
            return room
        room = self.rooms.get(msg["room"])
        if room is None or (room.private and (player is None or room.seat_of(player) is None)):
            raise ProtocolError(ErrorCode.UNKNOWN_ROOM, f"there is no room {msg['room'][:64]!r}")
        return room

    async def join(self, session: Session, msg: dict[str, Any]) -> dict[str, Any] | None:
        if (remote := self._remote(session, msg)) is not None:
            await remote.join(session, msg)  # it sends the reply itself, in order
            return None
        assert session.player is not None
        room = self.find_room(msg, session.player.id)
        seat = room.choose_seat(session.player.id, session.player.name, msg.get("seat"))
        await room.take_seat(seat, session.player.id, session.player.name)
        return self._enter(session, room, seat, msg.get("seq"))

    async def watch(self, session: Session, msg: dict[str, Any]) -> dict[str, Any] | None:
        if (remote := self._remote(session, msg)) is not None:
            await remote.watch(session, msg)  # it sends the reply itself, in order
            return None
        player = session.player.id if session.player else None
        room = self.find_room(msg, player)
        return self._enter(session, room, None, msg.get("seq"))

    def _enter(
        self, session: Session, room: Room, seat: int | None, since: int | None
    ) -> dict[str, Any]:
        room.add_member(session, seat)
        self._announce(room)
        reply: dict[str, Any] = {
            "t": "joined",
            "room": room.id,
            "seat": seat,
            "seq": room.seq,
            "view": room.view(seat),
        }
        if since is not None:
            missed = room.missed(seat, since)
            if missed is not None:
                reply["missed"] = missed
        return reply

    async def leave(self, session: Session, msg: dict[str, Any]) -> dict[str, Any] | None:
        if (remote := self._remote(session, msg)) is not None:
            await remote.leave(session, msg)  # it sends the reply itself, in order
            return None
        room = self.rooms.get(msg["room"])
        if room is None or session not in room.members:
            raise ProtocolError(ErrorCode.NOT_IN_ROOM, f"you are not in room {msg['room'][:64]!r}")
        room.remove_member(session)
        self._announce(room)
        return {"t": "left", "room": room.id}

    def disconnect(self, session: Session) -> None:
        for room_id in list(session.rooms):
            room = self.rooms.get(room_id)
            if room is not None:
                room.remove_member(session)
                self._announce(room)
        if self.bus is not None:
            self.bus.disconnect(session)

    async def act(self, session: Session, msg: dict[str, Any]) -> None:
        if (remote := self._remote(session, msg)) is not None:
            return await remote.act(session, msg)
        room = self.rooms.get(msg["room"])
        if room is None:
            raise ProtocolError(ErrorCode.UNKNOWN_ROOM, f"there is no room {msg['room'][:64]!r}")
        await room.act(session, msg["action"], msg.get("seq"), msg.get("id"))

    async def chat(self, session: Session, msg: dict[str, Any]) -> None:
        if (remote := self._remote(session, msg)) is not None:
            return await remote.chat(session, msg)
        room = self.rooms.get(msg["room"])
        if room is None or session not in room.members:
            raise ProtocolError(ErrorCode.NOT_IN_ROOM, f"you are not in room {msg['room'][:64]!r}")
        text = "".join(ch for ch in msg["text"] if unicodedata.category(ch)[0] != "C").strip()
        if not text:
            raise ProtocolError(ErrorCode.OUT_OF_RANGE, "chat.text is empty once cleaned")
        assert session.player is not None
        data = encode({"t": "chat", "room": room.id, "from": session.player.name, "text": text})
        for member in room.members:
            member.send(data)

    async def scores(self, session: Session, msg: dict[str, Any]) -> dict[str, Any]:
        game = msg["game"]
        try:
            find_game(game)
        except KeyError:
            raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"there is no game {game!r}") from None
        tables = await self.store.score_tables(game)
        table = msg.get("table") or (tables[0] if tables else None)
        entries = []
        if table is not None:
            if "table" in msg and table not in tables:
                raise ProtocolError(ErrorCode.UNKNOWN_TABLE, f"{game} has no table {table!r}")
            entries = [
                {"name": s.name, "score": s.score, "at": s.at, "room": s.room, "detail": s.detail}
                for s in await self.store.top_scores(game, table)
            ]
        reply: dict[str, Any] = {
            "t": "scores",
            "game": game,
            "table": table,
            "tables": tables,
            "entries": entries,
        }
        if session.player is not None:
            reply["mine"] = [
                {"table": s.table, "score": s.score, "at": s.at, "room": s.room}
                for s in await self.store.best_of(game, session.player.id)
            ]
        return reply
