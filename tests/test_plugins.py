"""Games are plugins: a game from a distribution of its own plays through a real server.

``tests/example_game/`` is Pile, the example of docs/writing-a-game.md: a
distribution that registers its engine, its bots and a terminal board in the
entry-point groups Tilehall's own games use. It is installed into a folder of
its own (nothing of the project is edited) and a real server process started
with that folder on its path finds it: ``welcome`` lists it, a raw client plays
it to the end against its bot, the schema generator describes it, and a client
that has no board for it says so and shows its log.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import helpers
from tests.helpers import ROOT, FrameCheck, FrameSchema, Raw, ServerProcess

pytestmark = pytest.mark.slow  # a pip install and a server process

EXAMPLE = ROOT / "tests" / "example_game"


def _project_state() -> tuple[str, list[tuple[str, int]]]:
    """What git says of the checkout, and every file of the example with its mtime."""
    status = subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "--untracked-files=all"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    files = sorted((str(p), p.stat().st_mtime_ns) for p in EXAMPLE.rglob("*") if p.is_file())
    return status, files


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """tilehall-pile installed (from a copy: a build writes beside its sources) into a folder;
    the checkout is the same after the install as before it."""
    tmp = tmp_path_factory.mktemp("plugin")
    before = _project_state()
    shutil.copytree(EXAMPLE, tmp / "src")
    target = tmp / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
         str(tmp / "src")],
        check=True, timeout=600, capture_output=True,
    )  # fmt: skip
    SITE_STATE["before"], SITE_STATE["after"] = before, _project_state()
    yield target


SITE_STATE: dict[str, tuple[str, list[tuple[str, int]]]] = {}
"""The checkout before and after the plugin's install (:func:`site`)."""


async def next_update(raw: Raw) -> dict[str, object]:
    """The next ``update`` pushed to ``raw``: one a call set aside while it waited, or to come."""
    for i, frame in enumerate(raw.pushed):
        if frame["t"] == "update":
            return raw.pushed.pop(i)
    while (frame := await raw.recv(10))["t"] != "update":
        pass
    return frame


def take(count: int) -> dict[str, object]:
    return {"do": "take", "count": count}


def _with(site: Path) -> dict[str, str]:
    """The environment of a process that has the plugin installed."""
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path}


@pytest.fixture(scope="module")
def pile_schema(site: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The contract as the generator writes it where Pile is installed: Pile in it."""
    code = "from tools.contract import jsonschema as j; print(j.dump(j.build(j.describe_games())))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT, env=_with(site), check=True, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    path = tmp_path_factory.mktemp("schema") / "tilehall.schema.json"
    path.write_text(out.stdout, encoding="utf-8")
    return path


@pytest.fixture
def frames_match_the_schema(pile_schema: Path) -> Iterator[FrameCheck]:
    """Every frame checked against the contract that describes Pile (the checked-in one
    describes Tilehall's own five games: a server with plugins publishes its own)."""
    helpers.hook_frames()
    check = FrameCheck(FrameSchema(pile_schema))
    helpers.FRAME_CHECK = check
    try:
        yield check
    finally:
        helpers.FRAME_CHECK = None
    if check.problems:
        pytest.fail(check.report(), pytrace=False)


@pytest.fixture
def server(site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("PYTHONPATH", _with(site)["PYTHONPATH"])
    proc = ServerProcess(tmp_path, "--bot-delay", "0")
    try:
        yield proc.start()
    finally:
        proc.stop()


def test_the_schema_generator_finds_the_plugin(pile_schema: Path) -> None:
    doc = json.loads(pile_schema.read_text())
    assert "view.pile" in doc["$defs"] and "event.pile.took" in doc["$defs"]
    assert doc["$defs"]["action.pile"] or doc["$defs"]["act.pile"]


async def test_a_plugin_game_plays_to_its_end_through_a_real_server(server: str) -> None:
    ada = await Raw.open(server)
    welcome = await ada.call({"t": "hello", "v": 1, "name": "Ada"})
    names = [g["name"] for g in welcome["games"]]
    assert {"ishido", "lines", "linksame", "matchit", "mathable", "pile"} == set(names)
    pile = next(g for g in welcome["games"] if g["name"] == "pile")
    assert pile["title"] == "Pile" and pile["bots"] == ["easy", "normal"]
    assert [o["name"] for o in pile["options"]] == ["counters", "most"]
    assert [a["do"] for a in pile["actions"]] == ["take"]
    create = {"t": "create", "game": "pile", "seats": [None, "COMP"], "options": {"counters": 9}}
    room = (await ada.call(create))["room"]
    joined = await ada.call({"t": "join", "room": room})
    assert joined["seat"] == 0 and joined["view"]["left"] + sum(joined["view"]["taken"]) == 9
    view, seq = joined["view"], joined["seq"]
    refused = await ada.call({"t": "act", "room": room, "action": {"do": "take", "count": 12}})
    assert refused["code"] == "bad_field", "the action's schema bounds count to 1-9"
    while view["status"] == "playing":
        if view["to_move"] == 0:
            count = 4 if view["left"] > 4 else 1  # 4 is over the room's most: refused
            reply = await ada.call({"t": "act", "room": room, "action": take(count)})
            if count == 4:
                assert reply["code"] == "too_many", reply
                reply = await ada.call({"t": "act", "room": room, "action": take(1)})
            assert reply["t"] == "update", reply
            update = reply
        else:  # the COMP's move comes as an update nobody asked for (maybe while a call waited)
            update = await next_update(ada)
        assert update["seq"] == seq + 1, (update, seq)
        view, seq = update["view"], update["seq"]
    result = view["result"]
    assert result["loser"] in (0, 1) and result["winners"] == [1 - result["loser"]]
    assert view["left"] == 0 and sum(view["taken"]) == 9


async def test_a_client_without_a_board_for_it_says_so_and_shows_its_log(server: str) -> None:
    """This test's own process has no Pile: its terminal client finds no board for it."""
    from tilehall.clients.cli.games import GenericScreen, screen_for

    from tests.clients.cli.util import app_for, create_room, screen_of, text_of, until

    assert screen_for("pile") is GenericScreen
    async with app_for(server).run_test() as pilot:
        await create_room(pilot, "pile", seats=["ada", "COMP"])
        screen = await screen_of(pilot, GenericScreen)
        await until(pilot, lambda: "left:" in text_of(screen, "#view-text"))
        header = text_of(screen, "#header")
        assert "no board for Pile in this client" in header, header
        await pilot.press("a", *'{"do": "take", "count": 1}', "enter")
        await until(pilot, lambda: '"e":"took"' in text_of(screen, "#msg"))


def test_the_plugins_own_board_is_found_where_it_is_installed(site: Path) -> None:
    code = "from tilehall.clients.cli.games import screen_for; print(screen_for('pile').__module__)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT, env=_with(site), check=True, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.stdout.strip() == "tilehall_pile.terminal"


def test_installing_it_edited_no_file_of_the_project(site: Path) -> None:
    """The install went to its own folder: nothing of the checkout changed, nor appeared."""
    assert (site / "tilehall_pile" / "game.py").exists()
    assert SITE_STATE["after"] == SITE_STATE["before"]
