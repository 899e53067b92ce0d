"""What a compact Mathable update costs the browser's main thread: patch, events, redraw.

A real server plays an all-COMP Mathable game (bots at once, in this process) while a
Python client watches it with compact updates and keeps every frame. Then Debian's
Chromium opens the page from that server and, in the page, with the page's own
``js/patch.js`` and ``js/games/mathable.js``, replays those frames: for each update,
``performance.now()`` around applying the patch, rebuilding the events sent by name,
``update(view, events)`` of a mounted read-only board and a forced layout (reading
``offsetHeight``: the style and layout work the next frame would do). Paint is the
compositor's, and not counted. The median (and p90, max) of the per-update milliseconds
is printed::

    python -m bench.web_patch                 # one game, every update of it, 5 passes
    python -m bench.web_patch --games 3 --passes 10 --json
    python -m bench.web_patch --web DIR   # another copy of clients/web, to compare

The figures go in tests/perf/RESULTS.md ("Web client (issue 27)", "Patch and redraw").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import msgpack
from tilehall.server.app import Server
from tilehall.server.config import Config, Limits
from tilehall.server.net.web import WebFiles
from websockets.asyncio.client import connect

from tests.web.browser import CHROMIUM, MISSING, launch

MEASURE = """async ([games, passes]) => {
  const { applyPatch, expandEvents } = await import('/js/patch.js');
  const board = await import('/js/games/mathable.js');
  const times = [];
  const script = [];
  const layout = [];
  for (let pass = 0; pass < passes; pass++) {
    for (const [joined, updates] of games) {
      const root = document.createElement('div');
      root.id = 'bench-board';
      document.body.append(root);
      const ctx = { game: 'mathable', room: joined.room, seat: null, readOnly: true,
        act: () => Promise.reject(new Error('read-only')), say: () => {},
        prefs: { symbols: false, reducedMotion: true }, options: {} };
      const handle = board.mount(root, ctx);
      let view = joined.view;
      handle.update(view, []);
      void root.offsetHeight;
      for (const u of updates) {
        const t0 = performance.now();
        view = u.view !== undefined ? u.view : applyPatch(view, u.patch);
        const events = expandEvents(u.events, view, joined.derived || {});
        handle.update(view, events);
        const t1 = performance.now();
        void root.offsetHeight;  // the style and layout the next frame would need
        const t2 = performance.now();
        times.push(t2 - t0);
        script.push(t1 - t0);
        layout.push(t2 - t1);
        await new Promise((r) => requestAnimationFrame(() => r()));  // a frame between
      }
      handle.destroy();
      root.remove();
    }
  }
  return [times, script, layout];
}"""


async def record(port: int, games: int) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Watch ``games`` all-COMP Mathable games with compact updates, to their end."""
    out = []
    async with connect(f"ws://127.0.0.1:{port}", max_size=2**22) as ws:

        async def call(msg: dict[str, Any]) -> dict[str, Any]:
            await ws.send(msgpack.packb(msg, use_bin_type=True))
            while True:
                reply = msgpack.unpackb(await ws.recv(), raw=False)
                if reply.get("re") == msg["id"]:
                    return dict(reply)

        await call({"t": "hello", "v": 1, "name": "bench", "compact": True, "id": 1})
        for n in range(games):
            seats = ["COMP:easy", "COMP:normal"]
            made = await call({"t": "create", "game": "mathable", "seats": seats, "id": 2})
            room = made["room"]
            joined = await call({"t": "watch", "room": room, "id": 3})
            updates = []
            status = joined["view"]["status"]
            while status != "over":
                async with asyncio.timeout(60):
                    data = await ws.recv()
                frame = msgpack.unpackb(data, raw=False)
                if frame.get("t") != "update" or frame.get("room") != room:
                    continue
                keys = ("seq", "patch", "view", "events")
                updates.append({k: frame[k] for k in keys if k in frame})
                if "view" in frame:
                    status = frame["view"]["status"]
                elif any(_ended(ev) for ev in frame["events"]):
                    status = "over"
            await call({"t": "leave", "room": room, "id": 4})
            out.append((joined, updates))
            print(f"game {n + 1}: {len(updates)} updates", file=sys.stderr)
    return out


def _ended(event: Any) -> bool:
    """Whether an event of a compact update (maybe sent by name) ends the game."""
    name = event.get("e") if isinstance(event, dict) else event
    return name == "game_over"


def summary(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {
        "updates": len(ms),
        "median_ms": round(statistics.median(ordered), 3),
        "p90_ms": round(ordered[int(len(ordered) * 0.9)], 3),
        "max_ms": round(ordered[-1], 3),
    }


async def run(games: int, passes: int, web: Path | None = None) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    if not CHROMIUM.exists():
        raise SystemExit(MISSING.format(path=CHROMIUM))
    with tempfile.TemporaryDirectory() as data:
        server = Server(
            Config(port=0, data_dir=Path(data), limits=Limits(bot_delay=0, ping_interval=None))
        )
        await server.start()
        if web is not None:
            server.web = WebFiles.load(web)
        try:
            recorded = await record(server.port, games)
            async with async_playwright() as pw:
                browser = await launch(pw)
                page = await browser.new_page(viewport={"width": 1200, "height": 900})
                await page.goto(f"http://127.0.0.1:{server.port}/")
                times, script, layout = await page.evaluate(MEASURE, [recorded, passes])
                version = browser.version
                await browser.close()
        finally:
            await server.stop()
    return {
        "chromium": version,
        "games": games,
        "passes": passes,
        "apply_update_layout": summary(times),
        "script_only": summary(script),
        "layout_only": summary(layout),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1, help="all-COMP games to record")
    parser.add_argument("--passes", type=int, default=5, help="times each game is replayed")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--web", type=Path, help="serve this copy of clients/web instead")
    args = parser.parse_args(argv)
    result = asyncio.run(run(args.games, args.passes, args.web))
    if args.json:
        print(json.dumps(result, indent=1))
        return
    a, js, lay = result["apply_update_layout"], result["script_only"], result["layout_only"]
    print(f"Chromium {result['chromium']}, {result['games']} game(s) x {result['passes']} passes")
    print(
        f"patch + events + board update + layout: median {a['median_ms']} ms, "
        f"p90 {a['p90_ms']} ms, max {a['max_ms']} ms over {a['updates']} updates"
    )
    print(f"of which script: median {js['median_ms']} ms, p90 {js['p90_ms']} ms")
    print(f"of which layout: median {lay['median_ms']} ms, p90 {lay['p90_ms']} ms")


if __name__ == "__main__":
    main()
