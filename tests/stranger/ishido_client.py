"""A client written from protocol/PROTOCOL.md alone: it imports nothing of Tilehall.

Usage: python ishido_client.py ws://127.0.0.1:PORT
Plays one Ishido game to its end on one connection while a second connection
watches it, then prints a JSON summary on stdout.
"""

import asyncio
import json
import sys

import msgpack
import websockets


async def call(ws, msg, rid, pushed):
    """Send a request and return its reply; on rate_limited, wait and send it again."""
    pause = 0.1
    while True:
        await ws.send(msgpack.packb({**msg, "id": rid}))
        while True:
            reply = msgpack.unpackb(await ws.recv())
            if reply.get("re") == rid:
                break
            pushed.append(reply)
        if reply["t"] != "error":
            return reply
        if reply["code"] != "rate_limited":
            raise RuntimeError(f"{reply['code']}: {reply['message']}")
        await asyncio.sleep(pause)
        pause = min(2.0, pause * 2)


async def watch(ws, updates):
    while True:
        frame = msgpack.unpackb(await ws.recv())
        if frame["t"] == "update":
            updates.append(frame)
            if frame["view"]["status"] == "over":
                return


async def main(url):
    async with websockets.connect(url) as player, websockets.connect(url) as watcher:
        pushed = []
        welcome = await call(player, {"t": "hello", "v": 1, "name": "Stranger"}, 1, pushed)
        assert any(g["name"] == "ishido" for g in welcome["games"])
        room = (await call(player, {"t": "create", "game": "ishido"}, 2, pushed))["room"]
        await call(watcher, {"t": "hello", "v": 1, "name": "Watcher"}, 1, [])
        watched = await call(watcher, {"t": "watch", "room": room}, 2, [])
        updates = []
        watching = asyncio.create_task(watch(watcher, updates))
        joined = await call(player, {"t": "join", "room": room}, 3, pushed)
        view, seq, rid, moves = joined["view"], joined["seq"], 10, 0
        while view["status"] == "playing":
            help_update = await call(
                player,
                {"t": "act", "room": room, "action": {"do": "help"}, "seq": seq},
                rid,
                pushed,
            )
            rid += 1
            best = next(e for e in help_update["events"] if e["e"] == "help")["at"]
            update = await call(
                player,
                {
                    "t": "act",
                    "room": room,
                    "action": {"do": "place", "at": best},
                    "seq": help_update["seq"],
                },
                rid,
                pushed,
            )
            rid += 1
            moves += 1
            view, seq = update["view"], update["seq"]
        await asyncio.wait_for(watching, 10)
        seqs = [u["seq"] for u in updates]
        print(
            json.dumps(
                {
                    "room": room,
                    "moves": moves,
                    "final_seq": seq,
                    "score": view["scores"][0],
                    "result": view["result"],
                    "watched_from": watched["seq"],
                    "watched_seqs": seqs,
                    "watcher_final_view_status": updates[-1]["view"]["status"],
                    "watcher_final_scores": updates[-1]["view"]["scores"],
                }
            )
        )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
