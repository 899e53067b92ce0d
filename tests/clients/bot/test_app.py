"""``tilehall-bot`` from the command line, against a real server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from clients.bot.app import main, parse_args
from clients.config import load_identity


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


async def test_max_moves_ends_endless_games(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Match-It never ends under a good bot: the cap quits it (a real end, with a result);
    Lines has no quit, so the game is left where it stands."""
    code = await _run(["--url", url, "--game", "matchit", "--max-moves", "6", "--json"])
    assert code == 0
    [game, summary] = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert game["status"] == "over" and game["moves"] == 6
    assert game["result"] is not None and summary["summary"]["over"] == 1

    code = await _run(["--url", url, "--game", "lines", "--max-moves", "4", "--json"])
    assert code == 0
    [game, summary] = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert game["status"] == "capped" and game["moves"] == 4
    assert summary["summary"]["capped"] == 1 and summary["summary"]["abandoned"] == 0


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
