"""Names kept across devices (issue 29), through a real server on both stores.

Passwords set, changed and refused; signing in on a second connection; every
error; wrong passwords slowed; sign-out closing the other connections and
killing their tokens; and no password kept as itself in the data directory.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from tilehall.protocol import CloseCode
from tilehall.server.app import Server
from tilehall.server.config import Config, Limits
from tilehall.server.names.passwords import Hasher
from websockets.exceptions import ConnectionClosed

from tests.helpers import ROOT, Raw
from tests.services import pg_schema

PASSWORD = "correct horse battery"


@pytest.fixture(params=["sqlite", "postgres"])
async def server(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Server]:
    """A real server on a free port, its store SQLite in its data directory or PostgreSQL."""
    limits = Limits(bot_delay=0, ping_interval=None)
    if request.param == "sqlite":
        srv = Server(Config(showcase=False, port=0, data_dir=tmp_path, limits=limits))
        await srv.start()
        yield srv
        await srv.stop()
        return
    async with pg_schema() as db:
        srv = Server(Config(showcase=False, port=0, data_dir=tmp_path, db=db, limits=limits))
        await srv.start()
        assert type(srv.store).__name__ == "PostgresStore"
        yield srv
        await srv.stop()


@pytest.fixture
def url(server: Server) -> str:
    return f"ws://127.0.0.1:{server.port}"


async def hello(
    url: str, *, source: str | None = None, **fields: object
) -> tuple[Raw, dict[str, object]]:
    raw = await Raw.open(url, source=source)
    return raw, await raw.call({"t": "hello", "v": 1, **fields})


async def close_code(raw: Raw) -> int | None:
    """The code the server closed ``raw`` with (frames still on the way are read past)."""
    try:
        while True:
            await raw.recv(timeout=5)
    except ConnectionClosed:
        pass
    return raw.ws.close_code


async def test_a_password_is_set_changed_and_refused_when_it_does_not_fit(url: str) -> None:
    ada = await Raw.open(url, "ada")
    short = await ada.call({"t": "set_password", "password": "short"})
    assert (short["code"], "at least 10" in short["message"]) == ("bad_password", True)
    long = await ada.call({"t": "set_password", "password": "x" * 257})
    assert (long["code"], "at most 256" in long["message"]) == ("bad_password", True)
    assert (await ada.call({"t": "set_password", "password": "x" * 256}))["t"] == "password_set"
    again = await ada.call({"t": "set_password", "password": PASSWORD})
    assert (again["code"], "old_password" in again["message"]) == ("bad_password", True)
    wrong = await ada.call({"t": "set_password", "password": PASSWORD, "old_password": "y" * 20})
    assert wrong["code"] == "bad_password"
    changed = await ada.call({"t": "set_password", "password": PASSWORD, "old_password": "x" * 256})
    assert changed["t"] == "password_set"
    _, old = await hello(url, name="ada", password="x" * 256)
    assert old["code"] == "bad_password"
    await ada.close()


async def test_a_second_device_signs_in_with_the_password_and_gets_its_own_token(url: str) -> None:
    ada = await Raw.open(url, "ada")
    assert (await ada.call({"t": "set_password", "password": PASSWORD}))["t"] == "password_set"
    other, welcome = await hello(url, name="ADA", password=PASSWORD)
    assert (welcome["t"], welcome["player"]) == ("welcome", "ada")
    assert welcome["token"] != ada.token
    # both devices' tokens work, and both sessions are one player's
    for token in (ada.token, welcome["token"]):
        again, back = await hello(url, token=token)
        assert back["player"] == "ada"
        await again.close()
    assert (await ada.call({"t": "ping"}))["t"] == "pong"
    await other.close()
    await ada.close()


async def test_every_refusal_of_a_protected_name(url: str) -> None:
    ada = await Raw.open(url, "ada")
    await ada.call({"t": "set_password", "password": PASSWORD})
    raw, none = await hello(url, name="ada")
    assert none["code"] == "password_required"
    wrong = await raw.call({"t": "hello", "v": 1, "name": "ada", "password": "not the one!"})
    assert wrong["code"] == "bad_password"
    bea = await raw.call({"t": "hello", "v": 1, "name": "bea"})  # the connection survived
    assert bea["t"] == "welcome"
    _, taken = await hello(url, name="bea", password=PASSWORD)  # bea has no password
    assert taken["code"] == "name_taken"
    assert taken["message"] == "the name 'bea' is taken: pick another name"  # words to act on
    _, alike = await hello(url, name="BEA")
    assert alike["message"] == "the name 'bea' is taken ('BEA' looks like it): pick another name"
    _, bad = await hello(url, token="no such token")
    assert bad["code"] == "bad_token"
    assert "signed out" in bad["message"] and "password" in bad["message"]
    # a new name with a password is protected at once
    _, cy = await hello(url, name="cy", password=PASSWORD)
    assert cy["t"] == "welcome"
    _, cy_again = await hello(url, name="cy")
    assert cy_again["code"] == "password_required"


async def test_a_name_without_a_password_cannot_be_signed_out_and_so_is_never_lost(
    url: str,
) -> None:
    """Issue 37 (1): signing out a name that has no password lost it for good."""
    dora = await Raw.open(url)
    welcome = await dora.call({"t": "hello", "v": 1, "name": "dora"})
    assert welcome["password"] is False
    for everywhere in (False, True):
        out = await dora.call({"t": "sign_out", "everywhere": everywhere})
        assert out["code"] == "no_password"
        assert "Set a password first" in out["message"]
    assert (await dora.call({"t": "ping"}))["t"] == "pong"  # nothing was closed
    _, back = await hello(url, token=welcome["token"])
    assert (back["t"], back["player"], back["password"]) == ("welcome", "dora", False)
    assert (await dora.call({"t": "set_password", "password": PASSWORD}))["t"] == "password_set"
    out = await dora.call({"t": "sign_out"})
    assert out["t"] == "signed_out"
    _, again = await hello(url, name="dora", password=PASSWORD)
    assert (again["t"], again["password"]) == ("welcome", True)


async def test_wrong_passwords_from_one_address_never_lock_the_owner_out(url: str) -> None:
    """Issue 37 (6): five wrong guesses from anywhere locked the name for everyone."""
    ada = await Raw.open(url, "ada")
    await ada.call({"t": "set_password", "password": PASSWORD})
    guesser = await Raw.open(url, source="127.0.0.2")
    for i in range(5):
        guess = {"t": "hello", "v": 1, "name": "ada", "password": f"guess {i:05}"}
        assert (await guesser.call(guess))["code"] == "bad_password"
    right = {"t": "hello", "v": 1, "name": "ada", "password": PASSWORD}
    assert (await guesser.call(right))["code"] == "too_many_attempts"
    _, owner = await hello(url, name="ada", password=PASSWORD)  # from 127.0.0.1
    assert owner["t"] == "welcome"
    await guesser.close()


@pytest.mark.slow
async def test_new_names_are_a_budget_per_address(server: Server, url: str) -> None:
    """Issue 37 (5): new names from one address were unbounded."""
    server.lobby.accounts.new_names.per_hour = 3
    for i in range(3):
        raw, made = await hello(url, source="127.0.0.2", name=f"storm {i}", password=PASSWORD)
        assert made["t"] == "welcome"
        await raw.close()
    _, refused = await hello(url, source="127.0.0.2", name="storm 3")
    assert refused["code"] == "too_many_names"
    assert 0 < refused["retry_after"] <= 1200
    _, again = await hello(url, source="127.0.0.2", name="storm 0", password=PASSWORD)
    assert again["t"] == "welcome"  # a name made already signs in
    _, other = await hello(url, name="honest")  # another address is not touched
    assert other["t"] == "welcome"


async def test_a_barred_name_says_so_whatever_password_comes(server: Server, url: str) -> None:
    """Issue 37 (8): bad_password before name_disabled told a guesser the guess was wrong."""
    ada = await Raw.open(url, "ada")
    await ada.call({"t": "set_password", "password": PASSWORD})
    await server.lobby.accounts.bar("ada", True)
    for password in (PASSWORD, "not the password at all"):
        _, refused = await hello(url, name="ada", password=password)
        assert refused["code"] == "name_disabled"


async def test_passwords_are_normalised_and_a_hash_made_before_still_signs_in(
    server: Server, url: str
) -> None:
    """Issue 37 (8): set with a composed e-acute, a decomposed one was refused."""
    composed, decomposed = "caf\u00e9 au lait!", "cafe\u0301 au lait!"
    ada = await Raw.open(url, "ada")
    assert (await ada.call({"t": "set_password", "password": composed}))["t"] == "password_set"
    _, phone = await hello(url, name="ada", password=decomposed)
    assert phone["t"] == "welcome"
    # a hash made before passwords were normalised: of the decomposed one, as typed
    bea = await Raw.open(url, "bea")
    account = await server.store.account_by_name("bea")
    assert account is not None
    legacy = await server.lobby.accounts.hasher.hash(decomposed)
    await server.store.set_password(account.id, legacy)
    _, old = await hello(url, name="bea", password=decomposed)
    assert old["t"] == "welcome"
    rehashed = await server.store.account_by_name("bea")
    assert rehashed is not None and rehashed.password not in (None, legacy)
    _, composed_in = await hello(url, name="bea", password=composed)  # made again, normalised
    assert composed_in["t"] == "welcome"
    await bea.close()


async def test_a_reset_takes_every_token_back_so_only_the_one_time_code_signs_in(
    server: Server, url: str
) -> None:
    """Issue 37 (4): an old token still signed in after a reset, and its set_password
    without the old password cancelled the owner's one-time code."""
    ada = await Raw.open(url, "ada")
    await ada.call({"t": "set_password", "password": PASSWORD})
    thief, stolen = await hello(url, name="ada", password=PASSWORD)
    code = await server.lobby.accounts.reset_password("ada")
    assert await close_code(ada) == CloseCode.SIGNED_OUT
    assert await close_code(thief) == CloseCode.SIGNED_OUT
    for token in (ada.token, stolen["token"]):
        _, dead = await hello(url, token=token)
        assert dead["code"] == "bad_token"
    owner, welcome = await hello(url, name="ada", password=code)
    assert (welcome["t"], welcome["password"]) == ("welcome", True)
    assert (await owner.call({"t": "set_password", "password": "a brand new one"}))[
        "t"
    ] == "password_set"
    _, again = await hello(url, name="ada", password=code)  # once only
    assert again["code"] == "bad_password"


async def test_failed_sign_ins_and_lockouts_are_logged_without_the_password(
    url: str, caplog: pytest.LogCaptureFixture
) -> None:
    ada = await Raw.open(url, "ada")
    await ada.call({"t": "set_password", "password": PASSWORD})
    caplog.set_level("INFO", logger="tilehall.server.lobby.accounts")
    guesser = await Raw.open(url, source="127.0.0.2")
    for i in range(5):
        await guesser.call({"t": "hello", "v": 1, "name": "ada", "password": f"guess {i:05}"})
    text = caplog.text
    assert text.count("sign-in refused: 'ada' from 127.0.0.2: wrong password") == 5
    # the lock counts from the first wrong password: on a loaded machine the fifth comes
    # a few seconds later, and the lock has that much less to run
    locked = re.search(r"sign-in locked: 'ada' from 127\.0\.0\.2 for (\d+) s", text)
    assert locked is not None and 590 < int(locked[1]) <= 600, text
    assert "guess 0" not in text and PASSWORD not in text


async def test_six_wrong_passwords_are_slowed_and_signed_in_devices_go_on(url: str) -> None:
    ada = await Raw.open(url, "ada")
    await ada.call({"t": "set_password", "password": PASSWORD})
    guesser = await Raw.open(url)
    codes = []
    for i in range(6):
        guess = {"t": "hello", "v": 1, "name": "ada", "password": f"guess {i:05}"}
        reply = await guesser.call(guess)
        codes.append(reply["code"])
    assert codes == ["bad_password"] * 5 + ["too_many_attempts"]
    assert 590 < reply["retry_after"] <= 600
    # now even the right password waits, from this address...
    right = await guesser.call({"t": "hello", "v": 1, "name": "ada", "password": PASSWORD})
    assert right["code"] == "too_many_attempts"
    # ...while ada's devices carry on, and come back with their tokens
    assert (await ada.call({"t": "ping"}))["t"] == "pong"
    _, back = await hello(url, token=ada.token)
    assert back["t"] == "welcome"
    await guesser.close()


async def test_sign_out_everywhere_closes_the_others_and_kills_their_tokens(url: str) -> None:
    ada = await Raw.open(url, "ada")
    await ada.call({"t": "set_password", "password": PASSWORD})
    same, _ = await hello(url, token=ada.token)  # a second tab of the first device
    phone, welcome = await hello(url, name="ada", password=PASSWORD)
    bea = await Raw.open(url, "bea")
    out = await phone.call({"t": "sign_out", "everywhere": True})
    assert (out["t"], out["everywhere"]) == ("signed_out", True)
    assert await close_code(phone) == 1000
    assert await close_code(ada) == CloseCode.SIGNED_OUT
    assert await close_code(same) == CloseCode.SIGNED_OUT
    for token in (ada.token, welcome["token"]):
        _, dead = await hello(url, token=token)
        assert dead["code"] == "bad_token"
    assert (await bea.call({"t": "ping"}))["t"] == "pong"  # nobody else is touched
    _, back = await hello(url, name="ada", password=PASSWORD)  # the password still works
    assert back["t"] == "welcome"


async def test_sign_out_of_one_device_leaves_the_others_signed_in(url: str) -> None:
    ada = await Raw.open(url, "ada")
    await ada.call({"t": "set_password", "password": PASSWORD})
    same, _ = await hello(url, token=ada.token)
    phone, welcome = await hello(url, name="ada", password=PASSWORD)
    out = await ada.call({"t": "sign_out"})
    assert (out["t"], out["everywhere"]) == ("signed_out", False)
    assert await close_code(ada) == 1000
    assert await close_code(same) == CloseCode.SIGNED_OUT  # it held the same token
    assert (await phone.call({"t": "ping"}))["t"] == "pong"
    _, dead = await hello(url, token=ada.token)
    assert dead["code"] == "bad_token"
    _, alive = await hello(url, token=welcome["token"])
    assert alive["t"] == "welcome"


async def test_no_file_in_the_data_directory_holds_a_password_as_itself(
    server: Server, url: str, tmp_path: Path
) -> None:
    ada = await Raw.open(url, "ada")
    assert (await ada.call({"t": "set_password", "password": PASSWORD}))["t"] == "password_set"
    phone, welcome = await hello(url, name="ada", password=PASSWORD)
    assert welcome["t"] == "welcome"
    await phone.close()
    await ada.close()
    kept: dict[str, bytes] = {}
    pool = getattr(server.store, "pool", None)
    if pool is not None:  # PostgreSQL: what its tables hold
        for table in ("players", "tokens"):
            rows = await pool.fetch(f"SELECT * FROM {table}")
            kept[table] = repr([tuple(r) for r in rows]).encode()
    await server.stop()  # every write is in the files now (the WAL checkpointed)
    for path in tmp_path.rglob("*"):
        if path.is_file():
            kept[path.name] = path.read_bytes()
    assert kept
    assert pool is not None or any(name.endswith(".sqlite3") for name in kept), list(kept)
    secrets = [PASSWORD.encode(), str(ada.token).encode(), str(welcome["token"]).encode()]
    for name, data in kept.items():
        for secret in secrets:
            assert secret not in data, f"{name} holds a secret as itself"


def admin(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``tilehall-server admin --data-dir DATA_DIR ...`` as a host types it."""
    return subprocess.run(
        [sys.executable, "-m", "tilehall.server.app", "admin", "--data-dir", str(data_dir), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=30,
    )


async def test_a_sign_in_hashes_the_password_again_when_a_release_raised_the_costs(
    server: Server, url: str
) -> None:
    """Only a sign-in has the password at hand: a hash made with older parameters is made
    again then, and the password goes on working; a token's sign-in changes nothing."""
    ada = await Raw.open(url, "ada")
    assert (await ada.call({"t": "set_password", "password": PASSWORD}))["t"] == "password_set"
    account = await server.store.account_by_name("ada")
    assert account is not None and account.password is not None
    before = account.password
    assert ",t=2," in before
    server.lobby.accounts.hasher = Hasher(time_cost=3)  # a release raised the cost
    _, back = await hello(url, token=ada.token)
    assert back["t"] == "welcome"
    assert (await server.store.account_by_name("ada")).password == before  # type: ignore[union-attr]
    _, phone = await hello(url, name="ada", password=PASSWORD)
    assert phone["t"] == "welcome"
    after = (await server.store.account_by_name("ada")).password  # type: ignore[union-attr]
    assert after is not None and after != before and ",t=3," in after
    _, again = await hello(url, name="ada", password=PASSWORD)
    assert again["t"] == "welcome"
    assert (await server.store.account_by_name("ada")).password == after  # type: ignore[union-attr]
    _, wrong = await hello(url, name="ada", password="not the password at all")
    assert wrong["code"] == "bad_password"


@pytest.mark.slow  # admin commands run as processes
async def test_a_host_bars_restores_and_resets_a_name(server: Server, url: str) -> None:
    ada = await Raw.open(url, "ada")
    await ada.call({"t": "set_password", "password": PASSWORD})
    bea = await Raw.open(url, "bea")
    data = server.config.data_dir
    shown = await asyncio.to_thread(admin, data, "player", "ADA")
    assert shown.returncode == 0, shown.stderr
    assert "ada (id " in shown.stdout and "enabled, password, 1 connection(s)" in shown.stdout
    barred = await asyncio.to_thread(admin, data, "player", "ada", "--disable")
    assert "DISABLED" in barred.stdout, barred.stderr
    assert "0 connection(s)" in barred.stdout  # the one it closed is not counted
    assert await close_code(ada) == CloseCode.NAME_DISABLED
    for fields in ({"token": ada.token}, {"name": "ada", "password": PASSWORD}):
        _, refused = await hello(url, **fields)
        assert refused["code"] == "name_disabled"
    assert (await bea.call({"t": "ping"}))["t"] == "pong"
    await asyncio.to_thread(admin, data, "player", "ada", "--enable")
    _, back = await hello(url, token=ada.token)
    assert back["t"] == "welcome"
    reset = await asyncio.to_thread(admin, data, "player", "ada", "--reset-password")
    assert "no password, a one-time code waiting" in reset.stdout, reset.stderr
    code = reset.stdout.rsplit(": ", 1)[1].strip()
    _, old = await hello(url, name="ada", password=PASSWORD)
    assert old["code"] == "bad_password"
    phone, welcome = await hello(url, name="ada", password=code)
    assert welcome["t"] == "welcome"
    _, twice = await hello(url, name="ada", password=code)  # once only: no guard is left
    assert twice["code"] == "name_taken"
    _, old_key = await hello(url, token=ada.token)  # the reset took every device's key
    assert old_key["code"] == "bad_token"
    new = await phone.call({"t": "set_password", "password": "a brand new one"})
    assert new["t"] == "password_set"
    missing = await asyncio.to_thread(admin, data, "player", "nobody")
    assert (missing.returncode, missing.stderr) == (1, "no player 'nobody'\n")
