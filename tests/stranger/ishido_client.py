"""A client written from protocol/PROTOCOL.md alone: it imports nothing of Tilehall.

Usage: python ishido_client.py ws://127.0.0.1:PORT [--scenarios]
Plays one Ishido game to its end on one connection while a second connection
watches it, then prints a JSON summary on stdout. With --scenarios it asks
instead what the pages promise of awkward input (the points an outside client
found in issues 30 and 42), and prints for each scenario what the pages say and
what the server answered.
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


async def raw(ws, data):
    """Send bytes packed by hand and return the answer (the frame after them)."""
    await ws.send(data)
    while True:
        reply = msgpack.unpackb(await ws.recv())
        if reply["t"] in ("error", "pong", "welcome"):
            return reply


def packed_map(*pairs):
    """A msgpack map of packed keys and values: a key may be what msgpack's packer would
    not write (a key twice)."""
    return bytes([0x80 | len(pairs) // 2]) + b"".join(pairs)


async def scenarios(url):
    """Each case as PROTOCOL.md and games/ishido.md say it is answered."""
    said = {}

    def expect(name, promised, reply):
        said[name] = {"promised": promised, "got": answer(reply)}

    def expect_re(name, promised, reply, rid):
        said[name] = {"promised": [promised, rid], "got": [answer(reply), reply.get("re")]}

    deep = 0
    for _ in range(20):
        deep = [deep]
    p = msgpack.packb
    async with websockets.connect(url) as ws:
        # PROTOCOL.md, hello: a frame is read first, then hello_first
        expect("unknown t before hello", "unknown_type", await ask(ws, {"t": "teleport"}, 1))
        expect("rooms before hello", "hello_first", await ask(ws, {"t": "rooms"}, 2))
        expect("hello, no name", "missing_field", await ask(ws, {"t": "hello", "v": 1}, 3))
        for name in ("", "x" * 25):
            hello = {"t": "hello", "v": 1, "name": name}
            expect(f"hello, name of {len(name)}", "bad_name", await ask(ws, hello, 4))
        # Transport: every map has string keys, each once; an ext is ignored where unread
        expect(
            "integer key",
            "malformed_frame",
            await raw(ws, packed_map(p(1), p(1), p("t"), p("ping"))),
        )
        twice = packed_map(p("t"), p("ping"), p("t"), p("ping"))
        expect("key twice", "malformed_frame", await raw(ws, twice))
        ext = packed_map(p("t"), p("ping"), p("later"), b"\xd4\x05\x00", p("id"), p(8))
        expect_re("ext in an unread field", "pong", await raw(ws, ext), 8)
        # hello: v is 1; a name of 25 is bad_name; a password outside 10-256 bad_password
        expect(
            "hello, v 2",
            "unsupported_version",
            await ask(ws, {"t": "hello", "v": 2, "name": "x"}, 4),
        )
        short = {"t": "hello", "v": 1, "name": "Stranger", "password": "nine char"}
        expect("hello, password of 9", "bad_password", await ask(ws, short, 4))
        # Limits: nesting has one bound for every field, read or not, answered with re
        hello = {"t": "hello", "v": 1, "name": "Stranger", "later": deep}
        expect_re("hello, deep unread field", "out_of_range", await ask(ws, hello, 5), 5)
        thousand = packed_map(
            p("t"), p("hello"), p("v"), p(1), p("later"), b"\x91" * 2000 + b"\x00", p("id"), p(6)
        )
        expect_re("hello, field 2000 deep", "out_of_range", await raw(ws, thousand), 6)
        hello = {"t": "hello", "v": 1, "name": "Stranger"}
        expect("hello", "welcome", await ask(ws, hello, 5))
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
            ("place at [true, 1]", {"do": "place", "at": [True, 1]}, "bad_field"),
            ("place at [1.0, 2]", {"do": "place", "at": [1.0, 2]}, "bad_field"),
            ("place at [1, 2, 3]", {"do": "place", "at": [1, 2, 3]}, "bad_field"),
            ("place off the board", {"do": "place", "at": [8, 0]}, "bad_cell"),
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
        # replay: a waiting room is not over; seq counts from 1
        waiting = (await ask(ws, {"t": "create", "game": "mathable"}, 60))["room"]
        await ask(ws, {"t": "join", "room": waiting}, 61)
        replay = {"t": "replay", "room": waiting, "seq": 1}
        expect("replay of a waiting room", "not_over", await ask(ws, replay, 62))
        replay = {"t": "replay", "room": waiting, "seq": 0}
        expect("replay of seq 0", "out_of_range", await ask(ws, replay, 63))
        # rooms: status is waiting, playing or over
        expect(
            "rooms, status bogus",
            "out_of_range",
            await ask(ws, {"t": "rooms", "status": "bogus"}, 64),
        )
        # create: its own codes, whichever check meets the value first
        nine = {"t": "create", "game": "mathable", "seats": [None] * 9}
        expect("create, 9 seats", "bad_seats", await ask(ws, nine, 65))
        options = {"t": "create", "game": "ishido", "options": {f"o{i}": 1 for i in range(33)}}
        expect("create, 33 options", "bad_option", await ask(ws, options, 66))
        # act: an action of another game is the room's game's unknown_action
        mathable = {"t": "create", "game": "mathable", "seats": ["Stranger", "COMP"]}
        other = (await ask(ws, mathable, 67))["room"]
        await ask(ws, {"t": "join", "room": other}, 68)
        undo = {"t": "act", "room": other, "action": {"do": "undo"}}
        expect("undo in a mathable room", "unknown_action", await ask(ws, undo, 69))
    print(json.dumps(said))


if __name__ == "__main__":
    if sys.argv[2:] == ["--scenarios"]:
        asyncio.run(scenarios(sys.argv[1]))
    else:
        asyncio.run(main(sys.argv[1]))
