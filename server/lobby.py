"""Sessions and the lobby: hello, rooms, create, join, watch, leave, scores, leaderboard, chat.

One :class:`Lobby` per server process. It turns decoded requests into replies
and refusals (:meth:`Lobby.receive`) for any :class:`~tilehall.server.member.Member`;
the WebSocket handling around it lives in :mod:`tilehall.server.app`, so the
lobby and its rooms can be driven in memory, with a clock the caller moves.
"""

from __future__ import annotations

import asyncio
import bisect
import functools
import hashlib
import heapq
import itertools
import logging
import secrets
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

import msgpack
from tilehall.protocol import VERSION, ErrorCode, ProtocolError, encode, encode_with, pack_array
from tilehall.protocol.schema import PAGE_MAX
from tilehall.server.bots import bot_levels, find_bot
from tilehall.server.clock import Clock, SystemClock, Timer
from tilehall.server.games import Game, OptionError, Status, all_games, find_game
from tilehall.server.games.base import GameError
from tilehall.server.member import Member
from tilehall.server.names import clean_chat, is_bot_name, is_plain_bot_name, validate_name
from tilehall.server.ops import Metrics
from tilehall.server.ratings import RATED_GAMES, Rating, board_cursor, board_position, is_rated
from tilehall.server.ratings import describe as describe_ratings
from tilehall.server.replays import Replays
from tilehall.server.room import Room, RoomServices
from tilehall.server.store.base import (
    FinishedRoom,
    NameTaken,
    RoomRecord,
    RoomTaken,
    SeatRecord,
    Store,
    StoreUnavailable,
)
from tilehall.server.store.health import StoreHealth

if TYPE_CHECKING:
    from tilehall.server.cluster import Cluster, RemoteRoom
    from tilehall.server.config import Config

__all__ = ["Lobby", "hash_token", "validate_name"]

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


PAGE_DEFAULT = 50
"""Rooms in a ``rooms`` page when the request names no ``limit`` (at most 200)."""

ROOM_ID_DRAWS = 8
"""Ids drawn for a new room before giving up (:class:`RoomTaken` each time): a public
room's id has 32 random bits, so a second draw is rare and a third rarer still."""

PAGE_SCAN = 1000
"""Rooms a ``rooms`` request looks at, at most: what bounds its cost (about 1 ms)."""

PAGE_BYTES = 16 * 1024
"""Bytes of summaries a ``rooms`` or ``history`` page holds at most, whatever its ``limit``.

A summary grows with its seats' names: 200 four-seat Mathable rooms whose players
took the longest names (24 letters of four UTF-8 bytes each) come to 130 KiB, twice
the frame limit. A page cut short by this bound says so as a filter's page does, by
a ``next`` that is not null. Why 16 KiB and not just under the frame limit: with
48 KiB pages, three clients walking the list within their budget tripled another
client's ping p99 on a two-core host (the large writes, not the page building, per
``tests/perf/HARDENING.md``); with 16 KiB it stayed within 1.5x. A page of 50
rooms of ordinary names (about 250 bytes each) still comes whole."""

ROOMS_PER_REQUEST = 50
"""Rooms a ``rooms`` reply may hold for the price of one request (``welcome.limits``)."""

STATUSES = tuple(s.value for s in Status)

HISTORY_DEFAULT = 20
"""Rooms in a ``history`` page when the request names no ``limit`` (at most 100)."""

PURGE_EVERY = 3600.0
"""Seconds between two deletions of the moves of games older than ``--replay-days``."""

BOTS_AFTER = 30
"""Seconds a quick-match player waits for others before bots take the open seats,
when the request does not say."""


class _Listed(NamedTuple):
    """A room as the listing sees it, ordered by id; summarised only if it is on the page."""

    room: str
    game: str
    status: str
    packed: Callable[[], bytes]
    """Its summary, packed as msgpack."""


def _by_room(item: _Listed) -> str:
    return item.room


def _packed(value: Any) -> bytes:
    """``value`` in msgpack, as the frame carrying it will hold it."""
    data: bytes = msgpack.packb(value, use_bin_type=True)
    return data


class Frame(NamedTuple):
    """A reply already encoded (``re`` included), and how many requests it counts as."""

    data: bytes
    cost: int


def rooms_cost(rooms: int) -> int:
    """Requests a ``rooms`` reply of ``rooms`` rooms counts as: one per
    :data:`ROOMS_PER_REQUEST`, rounded up, and at least one.

    Why: a page of 200 rooms costs the server some 50 times what a ping does
    (it was up to 48 KiB to write); counted as one request, three clients polling
    pages of 200 within their budget held the loop enough to multiply another
    client's ping time by ten (``tests/perf/HARDENING.md``).
    """
    return max(1, -(-rooms // ROOMS_PER_REQUEST))


def _packed_finished(room: FinishedRoom, player: int) -> bytes:
    """A ``history`` entry, packed as the reply will hold it."""
    return _packed(_finished(room, player))


class _Page:
    """A ``rooms`` or ``history`` page being filled: at most ``limit`` entries, each packed,
    and at most :data:`PAGE_BYTES` of them; ``next`` is the key of its last entry if more
    follow."""

    __slots__ = ("last", "limit", "next", "parts", "size")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[bytes] = []
        self.size = 0
        self.last = ""
        self.next: str | None = None
        """The cursor of the following page; None on the last."""

    def add(self, key: str, packed: Callable[[], bytes]) -> bool:
        """Add the entry ``key`` (packed only if it fits the count); False, with
        :attr:`next` set, once the page is full."""
        if len(self.parts) == self.limit:
            self.next = self.last
            return False
        data = packed()
        if self.parts and self.size + len(data) > PAGE_BYTES:  # long names: fewer to a page
            self.next = self.last
            return False
        self.parts.append(data)
        self.size += len(data)
        self.last = key
        return True

    def frame(self, re: int | None) -> Frame:
        """The reply, encoded, priced by the rooms it holds."""
        reply: dict[str, Any] = {"t": "rooms", "rooms": pack_array(self.parts), "next": self.next}
        if re is not None:
            reply["re"] = re
        return Frame(encode_with(reply), rooms_cost(len(self.parts)))


class Lobby:
    """The rooms of this server and the requests about them.

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
        self._creating: dict[int, asyncio.Lock] = {}
        self._matching: dict[tuple[str, int], asyncio.Lock] = {}
        self._matchable: dict[str, Room] = {}
        """Quick-match rooms waiting for players (pruned as they start or close)."""
        self._expiry: dict[str, Timer] = {}
        self._closing: set[asyncio.Future[None]] = set()
        """Rooms waiting with nobody in them, and when they close if it stays so."""
        self._listed: list[str] = []
        """The public rooms' ids, sorted: a ``rooms`` page starts where its cursor says."""
        self._listed_by_game: dict[str, list[str]] = {}
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
        self.bus: Cluster | None = None
        """The cluster bus (``--mqtt``): rooms of other nodes, and news of this node's."""
        self._games = [
            {**g.describe(), "bots": _levels(g.name), **describe_ratings(g.name)}
            for g in all_games()
        ]
        self.replays = Replays()

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
            room = self._room(record)
            room.rebuild(await self.store.journal(record.id))
        except Exception:
            log.exception("room %s could not be recovered; left as it is", record.id)
            return None
        self._add(room)
        room.resume()
        await room.maybe_start()
        room.arm_fill()
        self._expire_later(room)
        return room

    def _room(self, record: RoomRecord) -> Room:
        return Room(
            record,
            find_game(record.game),
            self.services,
            on_over=self.room_over,
            on_moved=self.room_moved,
            on_changed=self._announce,
        )

    def _add(self, room: Room) -> None:
        self.rooms[room.id] = room
        if room.matching:
            self._matchable[room.id] = room
        if room.record.private_code:
            self.by_code[room.record.private_code] = room
        else:
            bisect.insort(self._listed, room.id)
            bisect.insort(self._listed_by_game.setdefault(room.game.name, []), room.id)
        self._announce(room)

    def _drop(self, room: Room) -> None:
        """Take ``room`` out of this lobby's indexes (it stays in the store)."""
        self.rooms.pop(room.id, None)
        if room.record.private_code:
            self.by_code.pop(room.record.private_code, None)
        else:
            for ids in (self._listed, self._listed_by_game.get(room.game.name, [])):
                i = bisect.bisect_left(ids, room.id)
                if i < len(ids) and ids[i] == room.id:
                    del ids[i]

    # -- waiting rooms nobody is in --------------------------------------------------------

    def _expire_later(self, room: Room) -> None:
        """A waiting room with nobody in it closes after ``waiting_ttl`` unless someone comes.

        Rooms made and never joined would otherwise stay listed, and come back
        after every restart, for ever.
        """
        ttl = self.config.limits.waiting_ttl
        if not ttl or room.members or room.status is not Status.WAITING or room.id in self._expiry:
            return
        self._expiry[room.id] = self.clock.call_later(ttl, lambda: self._expire(room))

    def _keep(self, room: Room) -> None:
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

    def _announce(self, room: Room) -> None:
        """Tell the cluster a room hosted here is new or its summary may have changed.

        Only a room this lobby runs: one let go (to another node, or closed) may still
        change once more (an act in flight suspends it, a last summary is pushed), and
        the cluster would take that for a room hosted here again: announced, and this
        node's connections, relayed to its real host already, brought back to it.
        """
        if self.bus is not None and self.rooms.get(room.id) is room:
            self.bus.room_changed(room)

    async def _remote(self, session: Member, msg: dict[str, Any]) -> RemoteRoom | None:
        """In a cluster: the proxy of the room ``msg`` names when another node hosts it."""
        if self.bus is None or msg.get("room") in self.rooms or msg.get("code") in self.by_code:
            return None
        return await self.bus.remote_room(session, msg)

    def room_over(self, room: Room) -> None:
        """A game ended: keep the room a while for late spectators, then forget it."""
        log.info("room %s (%s) is over", room.id, room.game.name, extra={"room": room.id})
        self._announce(room)
        self.clock.call_later(self.config.limits.finished_ttl, lambda: self._forget(room))

    def _forget(self, room: Room) -> None:
        if self.rooms.get(room.id) is room:
            self._drop(room)
            room.close()
            if self.bus is not None:
                self.bus.room_gone(room)

    def release(self, room: Room) -> None:
        """Stop running a room here: in a cluster, another node now owns it."""
        self._forget(room)

    def room_moved(self, room: Room) -> None:
        """The store names another node for ``room`` (taken over while this node was cut off)."""
        if self.bus is not None:
            self.bus.room_lost(room.id)
        else:
            self.release(room)

    async def close_room(self, room: Room, reason: str, *, expired: bool = False) -> None:
        """End a room for good (an administrator's decision, or nobody came): it is gone.

        Its members are told (``room_closed``); its journal and record stay.
        """
        self._keep(room)
        result = {"expired" if expired else "closed": reason}
        async with room.between_moves():
            room.close()
            await self.store.finish_room(room.id, result, [], self.clock.time())
        data = encode({"t": "error", "code": ErrorCode.ROOM_CLOSED, "message": reason})
        for member in list(room.members):
            member.send(data)
            room.remove_member(member)
        if self.rooms.get(room.id) is room:
            self._drop(room)
        if self.bus is not None:
            self.bus.room_gone(room)
        log.warning("room %s closed: %s", room.id, reason, extra={"room": room.id})

    # -- requests -----------------------------------------------------------------------

    async def receive(self, member: Member, msg: dict[str, Any]) -> int:
        """Answer one decoded, valid request of ``member``: its reply or its refusal.

        Either carries ``re`` when the request had an ``id``. A refusal changes
        nothing; an unexpected failure is logged and answered ``internal_error``
        without its detail (the connection and the rooms go on).

        Returns how many requests of the member's budget this one counts as: 1,
        or more for a ``rooms`` page of many rooms (:func:`rooms_cost`).
        """
        re = msg.get("id")
        try:
            reply = await self.request(member, msg)
        except ProtocolError as exc:
            self.refuse(
                member,
                exc.code,
                exc.message,
                exc.re if exc.re is not None else re,
                retry_after=exc.retry_after,
            )
        except StoreUnavailable as exc:
            self.health.failed(exc)
            self.refuse(
                member,
                ErrorCode.UNAVAILABLE,
                "the server cannot reach its database now; nothing was done, try again",
                re,
                retry_after=self.health.retry_after,
            )
        except GameError as exc:
            self.refuse(member, exc.code, exc.message, re)
        except Exception:
            log.exception("request from %s failed", member.peer)
            self.refuse(member, ErrorCode.INTERNAL_ERROR, "internal error", re)
        else:
            if isinstance(reply, Frame):
                member.send(reply.data)
                return reply.cost
            if reply is not None:
                if re is not None:
                    reply["re"] = re
                member.send_msg(reply)
        return 1

    def refuse(
        self,
        member: Member,
        code: str,
        message: str,
        re: int | None,
        *,
        retry_after: float | None = None,
    ) -> None:
        """Send ``member`` an ``error`` frame (counted by code for ``/metrics``)."""
        self.metrics.errors[code] += 1
        err = ProtocolError(code, message, re, retry_after=retry_after).to_message()
        member.send_msg(err)

    async def request(self, member: Member, msg: dict[str, Any]) -> dict[str, Any] | Frame | None:
        """Route one valid request; return the reply (None when updates say it all).

        A reply is a message, or a :class:`Frame` already encoded with its ``re``.

        Raises:
            ProtocolError, GameError: the refusal, with its stable code.
        """
        t = msg["t"]
        if t == "ping":
            return {"t": "pong"}
        if t == "hello":
            return await self.hello(member, msg)
        if member.player is None:
            raise ProtocolError(ErrorCode.HELLO_FIRST, f"say hello before {t!r}")
        if t == "act":
            await self.act(member, msg)
            return None
        if t == "rooms":
            return self.list_rooms(msg)
        if t == "create":
            return await self.create(member, msg)
        if t == "match":
            return await self.match(member, msg)
        if t == "join":
            return await self.join(member, msg)
        if t == "watch":
            return await self.watch(member, msg)
        if t == "leave":
            return await self.leave(member, msg)
        if t == "scores":
            return await self.scores(member, msg)
        if t == "history":
            return await self.history(member, msg)
        if t == "replay":
            return await self.replay(member, msg)

        if t == "leaderboard":
            return await self.leaderboard(member, msg)
        if t == "chat":
            await self.chat(member, msg)
            return None
        raise ProtocolError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {t!r}")

    # -- sessions ---------------------------------------------------------------------

    async def hello(self, session: Member, msg: dict[str, Any]) -> dict[str, Any]:
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
                    ErrorCode.NAME_RESERVED,
                    f"names that start with or look like COMP are for bots: {name!r}",
                )
            token = secrets.token_urlsafe(24)
            try:
                player = await self.store.create_player(name, hash_token(token), self.clock.time())
            except NameTaken:
                raise ProtocolError(
                    ErrorCode.NAME_TAKEN,
                    f"the name {name!r}, or one that looks like it, is taken;"
                    " come back with its token",
                ) from None
        if msg.get("bot"):
            await self.store.mark_bot(player.id)  # its scores stand apart from people's
        session.player = player
        session.compact = bool(msg.get("compact"))
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
            "limits": self.limits_for(bot=bool(msg.get("bot"))),
            "compact": session.compact,
            "ratings": await self._ratings_of(player.id),
        }

    def limits_for(self, *, bot: bool) -> dict[str, Any]:
        """What ``welcome.limits`` tells a client: pace yourself by these and never be refused."""
        limits = self.config.limits
        rate = (limits.bot_rate or limits.rate) if bot else limits.rate
        burst = (limits.bot_burst or limits.burst) if bot else limits.burst
        return {
            "rate": rate,
            "burst": burst,
            "initial_burst": min(limits.initial_burst, burst),
            "backlog": limits.pace_backlog,
            "frame": limits.max_frame,
            "action": limits.max_action,
            "rooms": limits.max_rooms_per_player,
            "page": PAGE_MAX,
            "rooms_per_request": ROOMS_PER_REQUEST,
        }

    # -- lobby --------------------------------------------------------------------------

    def list_rooms(self, msg: dict[str, Any]) -> Frame:
        """One page of the public rooms, by id, filtered by game and status.

        A page holds at most ``limit`` rooms (default 50, at most 200) and at
        most ``PAGE_BYTES`` of their summaries, so a reply stays far under the
        frame limit however many rooms there are and however long their
        players' names; ``next`` is the cursor of the following page (null on
        the last one). Only the rooms of the page are summarised, and at most
        ``PAGE_SCAN`` rooms are looked at (of the game asked for, when it is):
        a filter that matches few rooms gets a short page (maybe empty) and a
        ``next`` to go on from, so no request costs more than a bounded amount
        however many rooms there are.

        Each room's summary is kept packed (:meth:`Room.packed_summary`) and the
        reply is joined from those bytes, not packed again: a page of 200 costs
        tens of microseconds, not milliseconds of the loop other clients wait
        on. The reply counts as :func:`rooms_cost` requests of the asker's budget.
        """
        game, status = msg.get("game"), msg.get("status")
        if status is not None and status not in STATUSES:
            raise ProtocolError(
                ErrorCode.OUT_OF_RANGE,
                f"rooms.status is one of {', '.join(STATUSES)}, not {status!r}",
            )
        limit: int = msg.get("limit") or PAGE_DEFAULT
        after: str = msg.get("cursor") or ""
        ids = self._listed if game is None else self._listed_by_game.get(game, [])
        start = bisect.bisect_right(ids, after)
        if self.bus is None:
            return self._local_page(ids, start, status, limit, msg.get("id"))
        rooms = self.rooms
        candidates: Iterable[_Listed] = (
            # Status is a StrEnum: it compares equal to its wire string as it is.
            _Listed(rid, room.game.name, room.status, room.packed_summary)
            for rid in itertools.islice(ids, start, None)
            if (room := rooms.get(rid)) is not None
        )
        if self.bus is not None:  # the other nodes' rooms, as their directory entries say
            remote = sorted(
                (
                    _Listed(s["room"], s["game"], s["status"], functools.partial(_packed, s))
                    for s in self.bus.listed(game)
                    if s["room"] > after
                ),
                key=_by_room,
            )
            candidates = heapq.merge(candidates, remote, key=_by_room)
        page = _Page(limit)
        seen = ""
        for looked, item in enumerate(candidates):
            if looked == PAGE_SCAN:
                page.next = seen
                break
            if item.room == seen:
                continue  # moving between nodes this instant: listed once
            seen = item.room
            if (game is not None and item.game != game) or (
                status is not None and item.status != status
            ):
                continue
            if not page.add(item.room, item.packed):
                break
        return page.frame(msg.get("id"))

    def _local_page(
        self, ids: list[str], start: int, status: str | None, limit: int, re: int | None
    ) -> Frame:
        """:meth:`list_rooms` without a cluster: the same page, walked straight on the index.

        ``ids`` holds only the game asked for, if any. No record is made per room
        looked at: a room that does not match costs a lookup and a comparison,
        so a filter that matches nothing costs about 0.1 ms for its 1,000 rooms.
        """
        rooms = self.rooms
        page = _Page(limit)
        end = min(len(ids), start + PAGE_SCAN)
        for i in range(start, end):
            room = rooms.get(ids[i])
            # Status is a StrEnum: it compares equal to its wire string as it is.
            if room is None or (status is not None and room.status != status):
                continue
            if not page.add(ids[i], room.packed_summary):
                break
        else:
            if end < len(ids):  # looked at PAGE_SCAN rooms: the next page goes on from here
                page.next = ids[end - 1]
        return page.frame(re)

    def _game(self, name: str) -> type[Game]:
        try:
            return find_game(name)
        except KeyError:
            raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"there is no game {name!r}") from None

    def _options(self, game: type[Game], raw: dict[str, Any] | None) -> dict[str, Any]:
        try:
            return game.validate_options(raw)
        except OptionError as exc:
            raise ProtocolError(ErrorCode.BAD_OPTION, exc.message) from None

    async def create(self, session: Member, msg: dict[str, Any]) -> dict[str, Any]:
        game = self._game(msg["game"])
        options = self._options(game, msg.get("options"))
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
        bound = self.config.limits.max_rooms_per_player
        if bound and (open_rooms := await self.store.open_rooms_of(creator)) >= bound:
            raise ProtocolError(
                ErrorCode.TOO_MANY_ROOMS,
                f"you have {open_rooms} rooms not over yet (at most {bound}): play or leave "
                "them first; a waiting room nobody is in closes by itself",
            )
        node = self.bus.place() if self.bus is not None else self.config.node
        for attempt in range(1, ROOM_ID_DRAWS + 1):
            code = secrets.token_urlsafe(12) if private else None
            record = RoomRecord(
                id=secrets.token_urlsafe(12) if private else "r" + secrets.token_hex(4),
                game=game.name,
                options=options,
                seed=secrets.randbits(63),
                seats=tuple(seats),
                private_code=code,
                created_at=self.clock.time(),
                node=node,
                creator=creator,
                fill_at=fill[0] if fill else None,
                fill_level=fill[1] if fill else None,
            )
            try:
                await self.store.create_room(record)
            except RoomTaken:
                log.info("room id %s drawn again (draw %d): drawing another", record.id, attempt)
                if attempt == ROOM_ID_DRAWS:
                    raise
                continue
            break
        reply: dict[str, Any] = {"t": "created", "room": record.id}
        if code:
            reply["code"] = code
        if self.bus is not None and record.node != self.config.node:
            # Placed on a lighter node: it runs the room once it has announced it.
            taken_back = await self.bus.host_new_room(record)
            if taken_back is None:
                return reply
            record = taken_back
        room = self._room(record)
        self._add(room)
        await room.maybe_start()  # bot-only rooms play at once
        room.arm_fill()
        self._announce(room)
        self._expire_later(room)
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
        game = self._game(msg["game"])
        options = self._options(game, msg.get("options"))
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
            return await self.join(session, {"t": "join", "room": created["room"]})
        fill_at = self.clock.time() + bots_after
        key = (game.name, count)
        async with self._matching.setdefault(key, asyncio.Lock()):
            for _ in range(3):  # a room found may fill (bots, a player) before we sit down
                found = self._match_room(key, options, player, name)
                if found is None:
                    created = await self._create_as(
                        player, game, options, seats, fill=(fill_at, level)
                    )
                    found = created["room"]
                elif (room := self.rooms.get(found)) is not None:
                    await room.fill_sooner(fill_at)
                try:
                    return await self.join(session, {"t": "join", "room": found})
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
        for rid, room in list(self._matchable.items()):
            if not room.matching or self.rooms.get(rid) is not room:
                del self._matchable[rid]
        local = [
            (room.record.created_at, room.id, room.seat_of(player) is not None)
            for room in self._matchable.values()
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
        if self.bus is not None:  # another node's, as its directory entry says
            listed = sorted(self.bus.listed(game), key=lambda s: (s.get("bots_at") or 0, s["room"]))
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

    async def join(self, session: Member, msg: dict[str, Any]) -> dict[str, Any] | None:
        if (remote := await self._remote(session, msg)) is not None:
            await remote.join(session, msg)  # it sends the reply itself, in order
            return None
        assert session.player is not None
        room = self.find_room(msg, session.player.id)
        room.check_open()
        seat = room.choose_seat(session.player.id, session.player.name, msg.get("seat"))
        await room.take_seat(seat, session.player.id, session.player.name)
        return await self._enter(session, room, seat, msg)

    async def watch(self, session: Member, msg: dict[str, Any]) -> dict[str, Any] | None:
        if (remote := await self._remote(session, msg)) is not None:
            await remote.watch(session, msg)  # it sends the reply itself, in order
            return None
        player = session.player.id if session.player else None
        room = self.find_room(msg, player)
        room.check_open()
        # Watching a room where you hold a seat is being in your seat: a spectator's view
        # would hide your own tiles and show your seat as away.
        seat = room.seat_of(player) if player is not None else None
        return await self._enter(session, room, seat, msg)

    async def _enter(
        self, session: Member, room: Room, seat: int | None, msg: dict[str, Any]
    ) -> dict[str, Any]:
        """Make ``session`` a member and give it the room's view at its journal's seq.

        The view is the committed one (:class:`~tilehall.server.roomcore.RoomCore`):
        while a move waits for its append the engine holds it already, and a
        newcomer shown it would see a move the journal may never hold (the node
        killed, the disk full), then get it again as an update: a forked game.
        When the core kept no view of the committed seq for this seat, the
        newcomer waits for the append to settle (never for the room's lock).
        """
        await room.settled(seat)
        room.check_open()  # the append it waited for may have suspended the room
        return self._enter_now(session, room, seat, msg)

    def _enter_now(
        self, session: Member, room: Room, seat: int | None, msg: dict[str, Any]
    ) -> dict[str, Any]:
        since: int | None = msg.get("seq")
        compact = bool(msg.get("compact", session.compact))
        room.add_member(session, seat, compact=compact)
        self._keep(room)
        self._announce(room)
        reply: dict[str, Any] = {
            "t": "joined",
            "room": room.id,
            "seat": seat,
            "seq": room.seq,
            "view": room.base_view(seat) if compact else room.view(seat),
        }
        if compact:  # how to read the events that updates send by name
            reply["derived"] = {
                name: {f: None if path is None else list(path) for f, path in fields.items()}
                for name, fields in room.game.derived_events.items()
            }
        if since is not None:
            missed = room.missed(seat, since)
            if missed is not None:
                reply["missed"] = missed
        return reply

    async def leave(self, session: Member, msg: dict[str, Any]) -> dict[str, Any] | None:
        if (remote := await self._remote(session, msg)) is not None:
            await remote.leave(session, msg)  # it sends the reply itself, in order
            return None
        room = self.rooms.get(msg["room"])
        if room is None or session not in room.members:
            raise ProtocolError(ErrorCode.NOT_IN_ROOM, f"you are not in room {msg['room'][:64]!r}")
        room.remove_member(session)
        self._announce(room)
        self._expire_later(room)
        return {"t": "left", "room": room.id}

    def disconnect(self, session: Member) -> None:
        for room_id in list(session.rooms):
            room = self.rooms.get(room_id)
            if room is not None:
                room.remove_member(session)
                self._announce(room)
                self._expire_later(room)
        if self.bus is not None:
            self.bus.disconnect(session)

    async def act(self, session: Member, msg: dict[str, Any]) -> None:
        if (remote := await self._remote(session, msg)) is not None:
            return await remote.act(session, msg)
        room = self.rooms.get(msg["room"])
        if room is None:
            raise ProtocolError(ErrorCode.UNKNOWN_ROOM, f"there is no room {msg['room'][:64]!r}")
        await room.act(session, msg["action"], msg.get("seq"), msg.get("id"))

    async def chat(self, session: Member, msg: dict[str, Any]) -> None:
        if (remote := await self._remote(session, msg)) is not None:
            return await remote.chat(session, msg)
        room = self.rooms.get(msg["room"])
        if room is None or session not in room.members:
            raise ProtocolError(ErrorCode.NOT_IN_ROOM, f"you are not in room {msg['room'][:64]!r}")
        text = clean_chat(msg["text"])
        if not text:
            raise ProtocolError(ErrorCode.OUT_OF_RANGE, "chat.text is empty once cleaned")
        assert session.player is not None
        said = {"t": "chat", "room": room.id, "from": session.player.name, "text": text}
        data = encode(said)
        re = msg.get("id")
        for member in room.members:
            # The sender's own copy answers its request: it carries re, as act's update does.
            member.send(
                encode({**said, "re": re}) if member is session and re is not None else data
            )

    async def scores(self, session: Member, msg: dict[str, Any]) -> dict[str, Any]:
        """A high-score table: people's, or with ``bots`` the bot programs' (kept apart).

        ``tables`` lists every table the game defines, empty or not, then any
        older one the store still holds.
        """
        game = msg["game"]
        try:
            cls = find_game(game)
        except KeyError:
            raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"there is no game {game!r}") from None
        defined = cls.tables()
        tables = defined + [t for t in await self.store.score_tables(game) if t not in defined]
        table = msg.get("table") or (tables[0] if tables else None)
        entries = []
        if table is not None:
            if "table" in msg and table not in tables:
                raise ProtocolError(ErrorCode.UNKNOWN_TABLE, f"{game} has no table {table!r}")
            entries = [
                {"name": s.name, "score": s.score, "at": s.at, "room": s.room, "detail": s.detail}
                for s in await self.store.top_scores(game, table, bots=bool(msg.get("bots")))
            ]
        reply: dict[str, Any] = {
            "t": "scores",
            "game": game,
            "table": table,
            "tables": tables,
            "entries": entries,
            "bots": bool(msg.get("bots")),
        }
        if session.player is not None:
            reply["mine"] = [
                {"table": s.table, "score": s.score, "at": s.at, "room": s.room}
                for s in await self.store.best_of(game, session.player.id)
            ]
        return reply

    # -- history and replays ---------------------------------------------------------------

    async def history(self, session: Member, msg: dict[str, Any]) -> Frame:
        """One page of a player's finished games (yours by default), newest first.

        Someone else's history lists only public rooms; yours lists your private
        ones too. ``next`` is the cursor of the following page (null on the last).
        A page holds at most ``limit`` games and at most ``PAGE_BYTES`` of them, as
        a ``rooms`` page: a hundred four-seat games whose players took the longest
        names come to 66 KB, past the frame limit, so such a page ends early and
        says so by a ``next`` that is not null.
        """
        assert session.player is not None
        asker = session.player
        if "player" in msg:
            target = await self.store.player_by_name(msg["player"])
            if target is None:
                raise ProtocolError(
                    ErrorCode.UNKNOWN_PLAYER, f"there is no player {msg['player']!r}"
                )
        else:
            target = asker
        game = self._game(msg["game"]).name if "game" in msg else None
        limit: int = msg.get("limit") or HISTORY_DEFAULT
        before = _history_cursor(msg["cursor"]) if "cursor" in msg else None
        rooms = await self.store.history(
            target.id, game=game, limit=limit + 1, before=before, private=target.id == asker.id
        )
        page = _Page(limit)
        for room in rooms:  # limit + 1 of them: one past the limit says more follow
            entry = functools.partial(_packed_finished, room, target.id)
            if not page.add(f"{room.finished_at!r}/{room.id}", entry):
                break
        reply: dict[str, Any] = {
            "t": "history",
            "player": target.name,
            "rooms": pack_array(page.parts),
            "next": page.next,
        }
        if (re := msg.get("id")) is not None:
            reply["re"] = re
        return Frame(encode_with(reply), 1)

    async def replay(self, session: Member, msg: dict[str, Any]) -> dict[str, Any]:
        """A finished room just after its entry ``seq``, rebuilt from its journal.

        A private room is replayed only for the players who held a seat in it
        and the one who made it; any other asker is told it does not exist, as
        ``join`` would.
        """
        assert session.player is not None
        rid: str = msg["room"]
        if not self.replays.has(rid):
            record = await self.store.room(rid)
            if record is None or not _may_replay(record, session.player.id):
                raise ProtocolError(ErrorCode.UNKNOWN_ROOM, f"there is no room {rid[:64]!r}")
            if record.status != Status.OVER.value:
                raise ProtocolError(
                    ErrorCode.NOT_OVER, f"room {rid} is still being played: watch it instead"
                )
            entries = await self.store.journal(rid)
            if not entries:
                raise ProtocolError(
                    ErrorCode.REPLAY_GONE,
                    f"room {rid} has no moves to replay: it was never played, or its moves "
                    f"were deleted (this server keeps them {self._kept_for()})",
                )
            self.replays.load(record, entries)
        record = self.replays.record(rid)
        if not _may_replay(record, session.player.id):
            raise ProtocolError(ErrorCode.UNKNOWN_ROOM, f"there is no room {rid[:64]!r}")
        try:
            position = self.replays.at(rid, msg["seq"])
        except IndexError:
            raise ProtocolError(
                ErrorCode.OUT_OF_RANGE,
                f"room {rid} has seqs 1 to {self.replays.last(rid)}, not {msg['seq']}",
            ) from None
        return {
            "t": "replayed",
            "room": rid,
            "game": record.game,
            "players": [s.name for s in record.seats],
            "seq": position.seq,
            "last": position.last,
            "events": position.events,
            "view": position.view,
            "revealed": position.revealed,
        }

    def _kept_for(self) -> str:
        days = self.config.limits.replay_days
        return f"{days:g} days" if days else "for ever"

    async def purge_forever(self) -> None:
        """Delete the moves of games finished more than ``replay_days`` ago, hourly.

        A few rooms at a time, so no transaction holds the store for long; a
        store that is down is tried again at the next hour.
        """
        days = self.config.limits.replay_days
        while days:
            before = self.clock.time() - days * 86400
            purged = 0
            try:
                while (n := await self.store.purge_journals(before)) > 0:
                    purged += n
                    await asyncio.sleep(0)
            except StoreUnavailable as exc:
                self.health.failed(exc)
            if purged:
                log.info("deleted the moves of %d games finished over %g days ago", purged, days)
            await self.clock.sleep(PURGE_EVERY)

    async def _ratings_of(self, player: int) -> dict[str, dict[str, Any]]:
        """``player``'s rating in each rated game, a new player's where they have none yet."""
        kept = await self.store.ratings_of(player)
        out = {}
        for game in sorted(RATED_GAMES):
            record = kept.get(game)
            current = record.current if record is not None else Rating()
            games = record.games if record is not None else 0
            out[game] = {"rating": current.rating, "rd": current.rd, "games": games}
        return out

    async def leaderboard(self, session: Member, msg: dict[str, Any]) -> dict[str, Any]:
        """One page of a rated game's players, best first, and the asker's own rating.

        Pages are cut by the last entry's (rating, name), not by an offset, so
        ratings that change between two pages move players but never repeat or
        skip one who stayed where they were.
        """
        game = msg["game"]
        try:
            find_game(game)
        except KeyError:
            raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"there is no game {game!r}") from None
        if not is_rated(game):
            raise ProtocolError(ErrorCode.NOT_RATED, f"{game} games are not rated")
        after = None
        if "cursor" in msg:
            try:
                after = board_position(msg["cursor"])
            except ValueError as exc:
                raise ProtocolError(ErrorCode.BAD_CURSOR, str(exc)) from None
        limit: int = msg.get("limit") or PAGE_DEFAULT
        rows = await self.store.leaderboard(game, limit + 1, after)
        page = rows[:limit]
        assert session.player is not None
        return {
            "t": "leaderboard",
            "game": game,
            "entries": [
                {"name": r.name, "rating": r.rating, "rd": r.rd, "games": r.games} for r in page
            ],
            "next": board_cursor(page[-1].rating, page[-1].name) if len(rows) > limit else None,
            "mine": (await self._ratings_of(session.player.id))[game],
        }


def _may_replay(record: RoomRecord, player: int) -> bool:
    """Public rooms for anyone; a private one for its players and its maker."""
    return (
        record.private_code is None
        or record.creator == player
        or any(s.player == player for s in record.seats)
    )


def _history_cursor(raw: str) -> tuple[float, str]:
    at, sep, room = raw.partition("/")
    try:
        if not sep or not room:
            raise ValueError(raw)
        return float(at), room
    except ValueError:
        raise ProtocolError(
            ErrorCode.BAD_CURSOR, f"history.cursor is a reply's next, not {raw[:64]!r}"
        ) from None


def _finished(room: FinishedRoom, player: int) -> dict[str, Any]:
    """A finished room as ``history`` lists it, its outcome as ``player`` saw it."""
    seat = next(i for i, s in enumerate(room.seats) if s.player == player)
    result = room.result
    winners = result.get("winners", [])
    if "scores" not in result:
        outcome = "closed"  # an administrator ended it before the end
    elif len(room.seats) == 1:
        outcome = "finished"
    elif seat in winners:
        outcome = "won" if len(winners) == 1 else "drawn"
    else:
        outcome = "lost"
    return {
        "room": room.id,
        "game": room.game,
        "options": room.options,
        "players": [{"name": s.name, "bot": s.bot} for s in room.seats],
        "seat": seat,
        "scores": result.get("scores"),
        "outcome": outcome,
        "result": result,
        "created": room.created_at,
        "finished": room.finished_at,
        "private": room.private,
    }
