"""A client written from protocol/PROTOCOL.md alone: it imports nothing of Tilehall.

Usage: python ishido_client.py ws://127.0.0.1:PORT [--scenarios]
Plays one Ishido game to its end on one connection while a second connection
watches it, then prints a JSON summary on stdout. With --scenarios it asks
instead what the pages promise of awkward input (the points an outside client
found in issue 30), and prints for each scenario what the pages say and what
the server answered.
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


async def ask(ws, msg, rid):
    """Send one request and return its answer (error or not), skipping pushed frames."""
    await ws.send(msgpack.packb({**msg, "id": rid}))
    while True:
        reply = msgpack.unpackb(await ws.recv())
        if reply.get("re") == rid:
            return reply


def answer(reply):
    """What a reply amounts to, to compare with the pages: its error code, or its type."""
    return reply["code"] if reply["t"] == "error" else reply["t"]


async def scenarios(url):
    """Each case as PROTOCOL.md and games/ishido.md say it is answered."""
    said = {}

    def expect(name, promised, reply):
        said[name] = {"promised": promised, "got": answer(reply)}

    deep = 0
    for _ in range(20):
        deep = [deep]
    async with websockets.connect(url) as ws:
        # PROTOCOL.md, hello: a frame is read first, then hello_first
        expect("unknown t before hello", "unknown_type", await ask(ws, {"t": "teleport"}, 1))
        expect("rooms before hello", "hello_first", await ask(ws, {"t": "rooms"}, 2))
        expect("hello, no name", "missing_field", await ask(ws, {"t": "hello", "v": 1}, 3))
        for name in ("", "x" * 25):
            hello = {"t": "hello", "v": 1, "name": name}
            expect(f"hello, name of {len(name)}", "bad_name", await ask(ws, hello, 4))
        # Limits: nesting counts only in fields the server reads
        hello = {"t": "hello", "v": 1, "name": "Stranger", "later": deep}
        expect("hello, deep unread field", "welcome", await ask(ws, hello, 5))
        ishido = await ask(ws, {"t": "create", "game": "ishido"}, 6)
        room = ishido["room"]
        joined = await ask(ws, {"t": "join", "room": room}, 7)
        # join: the join that starts a one-seat game is seq 1
        said["join starts at seq"] = {"promised": 1, "got": joined["seq"]}
        said["view has undos"] = {"promised": True, "got": "undos" in joined["view"]}
        at = joined["view"]["legal"][0]
        actions = [
            ("action {}", {}, "out_of_range"),
            ("action not a map", "place", "wrong_type"),
            ("action without do", {"at": at}, "missing_field"),
            ("action null at", {"do": "place", "at": None}, "missing_field"),
            ("action do fly", {"do": "fly"}, "unknown_action"),
            ("action nested 9 deep", {"do": "place", "at": [deep, 1]}, "out_of_range"),
            ("action place", {"do": "place", "at": at}, "update"),
            ("action undo", {"do": "undo"}, "update"),
            ("action quit", {"do": "quit"}, "update"),
        ]
        for rid, (name, action, promised) in enumerate(actions, 10):
            expect(name, promised, await ask(ws, {"t": "act", "room": room, "action": action}, rid))
        # every game page: every table is listed, an empty one too
        scores = await ask(ws, {"t": "scores", "game": "ishido"}, 30)
        for rid, table in enumerate(scores["tables"], 31):
            asked = {"t": "scores", "game": "ishido", "table": table}
            expect(f"scores table {table}", "scores", await ask(ws, asked, rid))
        # leaderboard: the page's own cursor is a place; junk is bad_cursor
        board = {"t": "leaderboard", "game": "mathable", "cursor": "WzE2NDIuNSwiYWRhIl0"}
        expect("leaderboard, example cursor", "leaderboard", await ask(ws, board, 40))
        board["cursor"] = "not a cursor"
        expect("leaderboard, junk cursor", "bad_cursor", await ask(ws, board, 41))
        # leave, chat: unknown_room for no such room, as act, join and watch
        nowhere = "r-nowhere"
        for rid, (t, extra) in enumerate(
            [("leave", {}), ("chat", {"text": "hi"}), ("act", {"action": {"do": "help"}})], 50
        ):
            request = {"t": t, "room": nowhere, **extra}
            expect(f"{t} on no room", "unknown_room", await ask(ws, request, rid))
        # replay: a waiting room is not over
        waiting = (await ask(ws, {"t": "create", "game": "mathable"}, 60))["room"]
        await ask(ws, {"t": "join", "room": waiting}, 61)
        replay = {"t": "replay", "room": waiting, "seq": 1}
        expect("replay of a waiting room", "not_over", await ask(ws, replay, 62))
    print(json.dumps(said))


if __name__ == "__main__":
    if sys.argv[2:] == ["--scenarios"]:
        asyncio.run(scenarios(sys.argv[1]))
    else:
        asyncio.run(main(sys.argv[1]))
