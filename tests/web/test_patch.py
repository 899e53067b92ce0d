"""The page's own patch code rebuilds every view the server sends whole.

Real sessions of each of the five games are played on a real server over real
WebSockets: every seat has one connection taking compact updates and a twin (the
same player, by token) taking whole views, and so has a pair of spectators. Then
the compact frames are applied in the browser by ``clients/web/js/patch.js`` itself
(imported into the page) and each resulting view, and each update's events rebuilt
from their short forms, must equal what the twin got whole.
"""

from __future__ import annotations

import asyncio
import itertools
import random
from typing import TYPE_CHECKING, Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tilehall.server.bots import find_bot
from websockets.asyncio.client import ClientConnection, connect

if TYPE_CHECKING:
    from playwright.async_api import Page

GAMES: dict[str, tuple[dict[str, Any], int]] = {
    "mathable": ({"racks": "hidden"}, 2),
    "matchit": ({}, 1),
    "linksame": ({"size": "easy"}, 1),
    "lines": ({"width": 7, "height": 7}, 1),
    "ishido": ({}, 1),
}
"""Each game's options and seats for a session (small boards where a game has a size)."""

APPLY = """async ([joined, updates]) => {
  const { applyPatch, expandEvents } = await import('/js/patch.js');
  let view = joined.view;
  const out = [];
  for (const u of updates) {
    view = u.view !== undefined ? u.view : applyPatch(view, u.patch);
    out.push([u.seq, view, expandEvents(u.events, view, joined.derived || {})]);
  }
  return out;
}"""
"""Applies a member's updates in the page, in order, with the page's own module."""


class Recorder:
    """One connection that keeps every frame it receives, in order, and answers calls."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []
        self.ids = itertools.count(1)
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, url: str, **hello: Any) -> tuple[Recorder, dict[str, Any]]:
        rec = cls(await connect(url, max_size=2**22))
        welcome = await rec.call({"t": "hello", "v": 1, **hello})
        assert welcome["t"] == "welcome", welcome
        return rec, welcome

    async def _read(self) -> None:
        async for data in self.ws:
            assert isinstance(data, bytes)
            msg = msgpack.unpackb(data, raw=False)
            self.frames.append(msg)
            fut = self.waiting.pop(msg.get("re", -1), None)
            if fut is not None and not fut.done():
                fut.set_result(msg)

    async def call(self, msg: dict[str, Any]) -> dict[str, Any]:
        rid = next(self.ids)
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[rid] = fut
        await self.ws.send(msgpack.packb({**msg, "id": rid}, use_bin_type=True))
        return await asyncio.wait_for(fut, 10)

    def seq(self, room: str) -> int:
        seqs = [f["seq"] for f in self.frames if f.get("room") == room and "seq" in f]
        return max(seqs, default=-1)

    def about(self, room: str) -> list[dict[str, Any]]:
        """The joined and update frames of ``room``."""
        return [f for f in self.frames if f.get("room") == room and f["t"] in ("joined", "update")]

    async def close(self) -> None:
        await self.ws.close()
        await self.reader


async def session(url: str, game: str, seed: int, moves: int) -> list[tuple[Recorder, Recorder]]:
    """Play ``moves`` steps of ``game``; the (compact, whole) pairs of every seat and of the
    spectators, their frames recorded."""
    options, seats = GAMES[game]
    rng = random.Random(seed)
    tag = f"{game[:4]}{seed % 10000}"
    players = []
    for i in range(seats):
        compact, welcome = await Recorder.open(url, name=f"{tag}p{i}")
        whole, _ = await Recorder.open(url, token=welcome["token"])
        players.append((compact, whole))
    create: dict[str, Any] = {"t": "create", "game": game, "options": options}
    if seats > 1:
        create["seats"] = [f"{tag}p{i}" for i in range(seats)]
    room = (await players[0][0].call(create))["room"]
    watchers = (
        (await Recorder.open(url, name=f"{tag}w1"))[0],
        (await Recorder.open(url, name=f"{tag}w2"))[0],
    )
    await watchers[0].call({"t": "watch", "room": room, "compact": True})
    await watchers[1].call({"t": "watch", "room": room, "compact": False})
    for compact, whole in players:
        await compact.call({"t": "join", "room": room, "compact": True})
        await whole.call({"t": "join", "room": room, "compact": False})
    pairs = [*players, watchers]
    paused = False
    for _ in range(moves):
        await settle(pairs, room)
        views = {i: latest(whole, room) for i, (_, whole) in enumerate(players)}
        view = views[0]
        if view["status"] != "playing":
            break
        seat = view["to_move"] if view.get("to_move") is not None else 0
        if paused:
            action: dict[str, Any] = {"do": "resume"}
            paused = False
        elif game != "mathable" and rng.random() < 0.1:
            action = {"do": "undo"}
        elif game == "linksame" and rng.random() < 0.05:
            action, paused = {"do": "pause"}, True
        else:
            bot = find_bot(game, "easy" if game == "mathable" else "normal")(rng=rng, budget=0.01)
            action = bot.choose(views[seat]) or {"do": "quit"}
        reply = await players[seat][0].call({"t": "act", "room": room, "action": action})
        if reply["t"] == "error" and action["do"] == "undo":
            continue  # nothing to take back yet
        assert reply["t"] == "update", (action, reply)
    await settle(pairs, room)
    return pairs


def latest(rec: Recorder, room: str) -> dict[str, Any]:
    frames = [f for f in rec.about(room) if "view" in f]
    return frames[-1]["view"]


async def settle(pairs: list[tuple[Recorder, Recorder]], room: str) -> None:
    """Wait until every connection has seen the room's newest seq."""
    for _ in range(200):
        seqs = {rec.seq(room) for pair in pairs for rec in pair}
        if len(seqs) == 1:
            await asyncio.sleep(0.01)
            if {rec.seq(room) for pair in pairs for rec in pair} == seqs:
                return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the connections did not agree on a seq: {seqs}")


async def check_in_page(
    page: Page, game: str, compact: Recorder, whole: Recorder, room: str
) -> int:
    """Apply ``compact``'s updates with the page's patch.js; compare with ``whole``'s."""
    frames = compact.about(room)
    joined = frames[0]
    assert joined["t"] == "joined"
    updates = [
        {k: f[k] for k in ("seq", "patch", "view", "events") if k in f}
        for f in frames[1:]
        if f["t"] == "update"
    ]
    assert any("patch" in u for u in updates), f"{game}: no compact update to check"
    want = {f["seq"]: f for f in whole.about(room) if f["t"] == "update"}
    assert not any("patch" in f for f in want.values())
    got = await page.evaluate(APPLY, [joined, updates])
    assert [seq for seq, _, _ in got] == [u["seq"] for u in updates]
    for seq, view, events in got:
        expected = want[seq]
        strip = lambda v: {k: x for k, x in v.items() if k != "now"}  # noqa: E731
        assert strip(view) == strip(expected["view"]), (game, seq)
        assert events == expected["events"], (game, seq)
    return len(got)


async def run(page: Page, url: str, game: str, seed: int, moves: int) -> None:
    pairs = await session(url, game, seed, moves)
    try:
        room = next(f["room"] for f in pairs[0][0].frames if f["t"] == "joined")
        checked = 0
        for compact, whole in pairs:
            checked += await check_in_page(page, game, compact, whole, room)
        assert checked > 3
        named = [ev for f in pairs[0][0].about(room) if f["t"] == "update" for ev in f["events"]]
        if game in ("ishido", "mathable"):  # the games with templates sent events short
            assert any(not isinstance(ev, dict) for ev in named), game
    finally:
        for pair in pairs:
            for rec in pair:
                await rec.close()


@pytest.mark.parametrize("game", sorted(GAMES))
async def test_the_pages_patches_rebuild_every_view_of_a_session(page, base_url, url, game):
    await page.goto("/")
    await run(page, url, game, seed=1, moves=40)


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))
@given(game=st.sampled_from(sorted(GAMES)), seed=st.integers(0, 2**31), moves=st.integers(5, 60))
async def test_patches_of_sessions_hypothesis_picks(page, base_url, url, game, seed, moves):
    if page.url == "about:blank":
        await page.goto("/")
    await run(page, url, game, seed, moves)
