"""``tilehall-bot`` from the command line, against a real server."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sys
from pathlib import Path

import pytest
from tilehall.clients.bot.app import main, parse_args
from tilehall.clients.config import load_identity
from tilehall.clients.connection import Connection, ServerError


@pytest.fixture(autouse=True)
def _own_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TILEHALL_CONFIG", str(tmp_path / "config"))


async def _run(argv: list[str]) -> int:
    """main() runs its own event loop, so it gets a thread of its own here."""
    try:
        await asyncio.to_thread(main, argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


@pytest.mark.slow
async def test_plays_games_and_prints_json(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = await _run(
        ["--url", url, "--game", "ishido", "--level", "greedy", "--games", "2", "--json"]
    )
    assert code == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    games, summary = lines[:-1], lines[-1]["summary"]
    assert [g["n"] for g in games] == [1, 2]
    assert all(g["status"] == "over" and g["game"] == "ishido" for g in games)
    assert summary["games"] == 2 and summary["over"] == 2
    assert summary["best_score"] == max(g["score"] for g in games)


async def _rival(url: str, room: str) -> None:
    """Eve takes seat 1 of a Mathable room and passes every turn, never voting to quit."""
    async with Connection(url, name="eve") as eve:
        view = (await eve.join(room, 1))["view"]
        while view["status"] != "over":
            if view["status"] == "playing" and view["to_move"] == 1:
                with contextlib.suppress(ServerError):
                    await eve.act(room, {"do": "end"})
            msg = await eve.next_pushed(20)
            if msg.get("room") == room and msg["t"] in ("update", "_rejoined"):
                view = msg["view"]


async def _room_announced(capsys: pytest.CaptureFixture[str]) -> str:
    """The room a bot with an open seat names on stderr, for others to join."""
    for _ in range(200):
        await asyncio.sleep(0.05)
        err = capsys.readouterr().err
        if "--room " in err:
            return err.split("--room ")[1].split()[0]
    raise AssertionError("the bot named no room")


async def test_max_moves_ends_endless_games(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Match-It never ends under a good bot: the cap quits it (a real end, with a result);
    Lines and Ishido are quit the same way, where they stand. Only a game our quit does not
    end (another player's Mathable vote is missing) is left where it stands."""
    code = await _run(["--url", url, "--game", "matchit", "--max-moves", "6", "--json"])
    assert code == 0
    [game, summary] = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert game["status"] == "over" and game["moves"] == 6
    assert game["result"] is not None and summary["summary"]["over"] == 1

    for name in ("lines", "ishido"):
        argv = ["--url", url, "--game", name, "--level", "greedy" if name == "ishido" else "normal"]
        assert await _run([*argv, "--max-moves", "4", "--json"]) == 0
        [game, summary] = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
        assert (game["status"], game["stopped"], game["moves"]) == ("over", "max_moves", 4)
        assert game["result"]["reason"] == "quit"
        assert summary["summary"]["over"] == 1 and summary["summary"]["capped"] == 0

    owner = asyncio.create_task(
        _run(["--url", url, "--game", "mathable", "--level", "easy", "--vs", "open",
              "--max-moves", "1", "--json"])
    )  # fmt: skip
    rival = asyncio.create_task(_rival(url, await _room_announced(capsys)))
    assert await owner == 0
    rival.cancel()
    [game, summary] = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert game["status"] == "capped" and game["moves"] == 1
    assert summary["summary"]["capped"] == 1 and summary["summary"]["abandoned"] == 0


@pytest.mark.slow
async def test_takes_a_seat_in_someone_elses_room(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    owner = asyncio.create_task(
        _run(
            ["--url", url, "--game", "mathable", "--level", "easy", "--vs", "open", "--name", "ann"]
        )
    )
    room = None
    for _ in range(100):  # the owner says on stderr where to join
        await asyncio.sleep(0.05)
        err = capsys.readouterr().err
        if "--room " in err:
            room = err.split("--room ")[1].split()[0]
            break
    assert room is not None
    guest = await _run(["--url", url, "--room", room, "--seat", "1", "--level", "easy"])
    assert guest == 0 and await owner == 0
    out = capsys.readouterr().out
    assert f"room {room} seat 1" in out and f"room {room} seat 0" in out
    # A named bot is remembered, so the same name works again next time.
    name, token = load_identity(f"{url}#bot:ann")
    assert name == "ann" and token


@pytest.mark.slow
async def test_named_bot_comes_back_with_its_token(url: str) -> None:
    argv = ["--url", url, "--game", "ishido", "--level", "greedy", "--name", "bob"]
    assert await _run(argv) == 0
    assert await _run(argv) == 0  # the name is taken by now: only the token lets us in


async def test_unknown_level_and_unreachable_server(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert await _run(["--url", url, "--game", "ishido", "--level", "grandmaster"]) == 2
    assert "grandmaster" in capsys.readouterr().err
    assert await _run(["--url", "ws://127.0.0.1:9", "--game", "ishido"]) == 2
    assert "cannot reach" in capsys.readouterr().err


def test_options_are_typed() -> None:
    a = parse_args(["--game", "ishido", "--option", "scoring=ancient", "--option", "n=3",
                    "--option", "preview=true"])  # fmt: skip
    assert a.options == {"scoring": "ancient", "n": 3, "preview": True}
    with pytest.raises(SystemExit):
        parse_args(["--game", "ishido", "--option", "nonsense"])
    with pytest.raises(SystemExit):
        parse_args(["--seat", "1"])


async def test_a_new_name_plays_a_room_found_by_its_id(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The game comes from the room list; the hello that read it also took the name."""
    async with Connection(url, name="host") as host:
        small = {"width": 5, "height": 5, "min_line": 6}
        made = await host.request(
            {"t": "create", "game": "lines", "options": small, "seats": [None]}
        )
    assert await _run(["--url", url, "--room", made["room"], "--name", "dee", "--json"]) == 0
    [game] = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert (game["game"], game["status"], game["room"]) == ("lines", "over", made["room"])
    assert load_identity(f"{url}#bot:dee")[0] == "dee"


async def test_a_game_the_server_does_not_have(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert await _run(["--url", url, "--game", "chess"]) == 2
    err = capsys.readouterr().err
    assert "no game 'chess'" in err and "ishido" in err


@pytest.mark.slow
async def test_the_summary_agrees_with_the_games(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game stopped at --max-moves is neither 'finished' nor 'given up', and says how it ended."""
    assert await _run(["--url", url, "--game", "matchit", "--max-moves", "6"]) == 0
    game, summary = capsys.readouterr().out.splitlines()
    assert game.endswith("stopped at --max-moves: quit") and "GAVE UP" not in game
    assert summary.startswith("1 game: 0 played to the end, 1 stopped at --max-moves, 0 given up;")

    argv = ["--url", url, "--game", "lines", "--max-moves", "3", "--games", "2"]
    assert await _run(argv) == 0
    *games, summary = capsys.readouterr().out.splitlines()  # Lines is quit: no room left open
    assert len(games) == 2 and all(g.endswith("stopped at --max-moves: quit") for g in games)
    assert summary.startswith("2 games: 0 played to the end, 2 stopped at --max-moves, 0 given up")

    argv = ["--url", url, "--game", "mathable", "--level", "easy", "--vs", "open"]
    owner = asyncio.create_task(_run([*argv, "--max-moves", "1"]))
    rival = asyncio.create_task(_rival(url, await _room_announced(capsys)))
    assert await owner == 0
    rival.cancel()
    game, summary, left = capsys.readouterr().out.splitlines()
    assert "left the room, which plays on without us (our quit did not end it)" in game
    assert summary.startswith("1 game: 0 played to the end, 1 stopped at --max-moves, 0 given up")
    room = game.split(" room ")[1].split()[0]
    assert left == (
        f"1 room still playing without us (the other players have not voted to quit): {room}"
    )

    argv = ["--url", url, "--game", "ishido", "--level", "greedy", "--json"]
    assert await _run(argv) == 0
    game, summary = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert game["stopped"] is None and game["status"] == "over"
    assert summary["summary"]["finished"] == 1 and summary["summary"]["stopped"] == 0


async def test_mathable_at_max_moves_votes_to_quit(url: str, server, capsys) -> None:
    """Against COMP our vote is every human seat's: the game ends rather than wait for us."""
    argv = ["--url", url, "--game", "mathable", "--level", "easy", "--max-moves", "2", "--json"]
    assert await _run(argv) == 0
    game, summary = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert (game["status"], game["stopped"]) == ("over", "max_moves")
    assert game["result"]["reason"] == "quit"
    assert summary["summary"]["stopped"] == 1 and summary["summary"]["left_open"] == []


def default_sigint() -> None:
    """In the child: SIGINT as a terminal gives it, whatever the test runner inherited.

    A shell that starts pytest as a background job (``pytest &``) ignores SIGINT,
    every child inherits that, and Python installs its Ctrl-C handler only where
    SIGINT is at its default: the bot would never hear the signal this test sends.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize(
    ("which", "sig", "code"),
    [
        ("matchit", signal.SIGINT, 130),
        ("lines", signal.SIGINT, 130),
        # `kill` or a container stopping: the same as Ctrl-C (issue 30 item 4, point 13)
        ("matchit", signal.SIGTERM, 143),
    ],
)
async def test_ctrl_c_prints_the_summary_and_quits_the_game(
    url: str, server, which: str, sig: signal.Signals, code: int
) -> None:
    """Progress on stderr while it plays; on SIGINT (or SIGTERM) the game under way is quit
    and counted (Lines too, whose quit came later: its game used to be left playing)."""
    bot = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tilehall.clients.bot", "--url", url, "--game", which,
        "--games", "2", "--progress", "0.2",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        preexec_fn=default_sigint,
    )  # fmt: skip
    try:
        await _interrupted(bot, server, sig, code)
    finally:  # a failed check leaves no bot playing on for good
        if bot.returncode is None:
            bot.kill()
            await bot.wait()


async def _interrupted(
    bot: asyncio.subprocess.Process, server, sig: signal.Signals, code: int
) -> None:
    assert bot.stderr is not None and bot.stdout is not None
    line = ""
    while "playing room" not in line:  # a strong Match-It bot plays on until stopped
        line = (await asyncio.wait_for(bot.stderr.readline(), 20)).decode()
        assert line, "the bot ended without a progress line"
    assert line.startswith("tilehall-bot: ") and "0/2 done; playing room r" in line
    room = line.split("playing room ")[1].split()[0]
    bot.send_signal(sig)
    out, _ = await asyncio.wait_for(bot.communicate(), 20)
    assert bot.returncode == code
    lines = out.decode().splitlines()
    assert len(lines) == 2, lines
    game, summary = lines
    assert f"room {room} seat 0" in game and game.endswith("interrupted: quit")
    assert summary.startswith("1 of 2 games: 0 played to the end, 1 interrupted, 0 given up")
    assert server.lobby.rooms[room].engine.view(0)["status"] == "over"


@pytest.mark.slow
async def test_quick_match_instead_of_create(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    """--match: the server seats us; with nobody else about, COMP players fill the seats."""
    argv = ["--url", url, "--game", "mathable", "--level", "easy", "--match", "--seats", "3"]
    assert await _run([*argv, "--bots-after", "0", "--max-moves", "2", "--json"]) == 0
    game, summary = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert game["seat"] == 0 and len(game["scores"]) == 3
    assert (game["status"], game["stopped"]) == ("over", "max_moves")
    assert summary["summary"]["over"] == 1

    # Two bots asking for the same kind of game meet in one room. The first to stop leaves
    # on its turn: a stand-in finishes it at once, so the other's turn comes.
    argv = ["--url", url, "--game", "mathable", "--level", "easy", "--match", "--seats", "2",
            "--bots-after", "30", "--option", "standin_after=1", "--max-moves", "1",
            "--json"]  # fmt: skip
    first = asyncio.create_task(_run(argv))
    await asyncio.sleep(0.5)
    second = asyncio.create_task(_run(argv))
    assert await first == 0 and await second == 0
    games = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    played = [g for g in games if "room" in g]
    assert len(played) == 2 and played[0]["room"] == played[1]["room"]
    assert sorted(g["seat"] for g in played) == [0, 1]


def test_match_options_are_checked() -> None:
    with pytest.raises(SystemExit):
        parse_args(["--game", "mathable", "--seats", "3"])  # --seats goes with --match
    with pytest.raises(SystemExit):
        parse_args(["--game", "mathable", "--match", "--vs", "COMP"])
    with pytest.raises(SystemExit):
        parse_args(["--game", "mathable", "--match", "--parallel", "2"])
    a = parse_args(["--game", "mathable", "--match", "--seats", "4", "--bots-after", "5"])
    assert (a.match, a.seats, a.bots_after) == (True, 4, 5)
