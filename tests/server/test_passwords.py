"""Passwords: what may protect a name, Argon2id off the loop, guesses per name and address."""

from __future__ import annotations

import asyncio

import pytest
from argon2 import PasswordHasher
from tilehall.protocol import ProtocolError
from tilehall.server.names.passwords import (
    Attempts,
    Busy,
    Hasher,
    check_password,
    code_hash,
    normalized,
    same_code,
)


def test_passwords_of_10_to_256_characters_may_protect_a_name() -> None:
    assert check_password("x" * 10) == "x" * 10
    assert check_password("é" * 256) == "é" * 256
    for bad in ("x" * 9, "x" * 257):
        with pytest.raises(ProtocolError) as err:
            check_password(bad)
        assert err.value.code == "bad_password"


async def test_hashes_are_argon2id_with_owasp_parameters_at_least() -> None:
    hasher = Hasher()
    try:
        encoded = await hasher.hash("correct horse battery")
        assert encoded.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
        assert "correct horse" not in encoded
        assert await hasher.verify(encoded, "correct horse battery")
        assert not await hasher.verify(encoded, "correct horse battery!")
        assert not await hasher.verify("not a hash", "correct horse battery")
    finally:
        hasher.close()


async def test_a_full_pool_refuses_at_once_rather_than_queue() -> None:
    hasher = Hasher(threads=1, backlog=1)
    try:  # a check costs what the stored hash says: make it slow enough to overlap
        stored = PasswordHasher(memory_cost=65536, time_cost=3, parallelism=1).hash("x")
        checks = [asyncio.ensure_future(hasher.verify(stored, "x")) for _ in range(4)]
        results = await asyncio.gather(*checks, return_exceptions=True)
        assert sum(isinstance(r, Busy) for r in results) == 2  # one hashing, one waiting
        assert results[:2] == [True, True]
    finally:
        hasher.close()


def test_five_wrong_from_one_address_lock_that_address_out_of_that_name_only() -> None:
    attempts = Attempts(failures=5, window=600)
    for i in range(5):  # one address guesses ada's password five times
        assert attempts.retry_after("ada", "1.2.3.4", 100.0 + i) == (0.0, None)
        attempts.failed("ada", "1.2.3.4", 100.0 + i)
    assert attempts.retry_after("ada", "1.2.3.4", 110.0) == (590.0, "pair")
    assert attempts.retry_after("ada", "5.6.7.8", 110.0) == (0.0, None)  # the owner's address
    assert attempts.retry_after("bea", "1.2.3.4", 110.0) == (0.0, None)  # another name
    assert attempts.retry_after("ada", "1.2.3.4", 700.0) == (0.0, None)  # the window passed


def test_five_addresses_guessing_once_each_lock_nobody_out() -> None:
    """Issue 37: five wrong guesses from anywhere used to lock the name for everyone."""
    attempts = Attempts(failures=5, window=600)
    for i in range(5):
        attempts.failed("ada", f"10.0.0.{i}", 100.0 + i)
    for who in ("10.0.0.0", "10.0.0.9"):
        assert attempts.retry_after("ada", who, 110.0) == (0.0, None)


def test_one_address_spraying_many_names_is_held_back_for_every_name() -> None:
    attempts = Attempts(failures=5, window=600, address_failures=20)
    for i in range(20):
        attempts.failed(f"n{i}", "1.2.3.4", 200.0)
    assert attempts.retry_after("zed", "1.2.3.4", 300.0) == (500.0, "address")
    assert attempts.retry_after("zed", "5.6.7.8", 300.0) == (0.0, None)


def test_a_right_password_starts_the_address_count_for_the_name_again() -> None:
    attempts = Attempts(failures=5, window=600)
    for i in range(4):
        attempts.failed("ada", "1.2.3.4", 100.0 + i)
    attempts.failed("ada", "1.2.3.4", 104.0)
    attempts.right("ada", "1.2.3.4", 104.0)  # the fifth was the password
    assert attempts.retry_after("ada", "1.2.3.4", 105.0) == (0.0, None)
    assert len(attempts.names._seen["ada"]) == 4


def test_past_a_hundred_wrong_a_day_a_name_is_checked_once_a_minute_from_anywhere() -> None:
    attempts = Attempts(failures=5, window=600, daily=100, day=86400, slow_every=60)
    for i in range(100):  # twenty addresses, five guesses each
        address = f"10.0.{i // 5}.1"
        assert attempts.retry_after("ada", address, 1000.0 + i)[0] == 0
        attempts.failed("ada", address, 1000.0 + i)
    assert attempts.slowed("ada", 1100.0)
    assert attempts.retry_after("ada", "192.0.2.1", 1100.0) == (0.0, None)  # a first check
    attempts.failed("ada", "192.0.2.1", 1100.0)
    assert attempts.retry_after("ada", "192.0.2.2", 1130.0) == (30.0, "slowed")
    assert attempts.retry_after("ada", "192.0.2.2", 1160.0) == (0.0, None)
    assert attempts.retry_after("bea", "192.0.2.2", 1130.0) == (0.0, None)
    assert not attempts.slowed("ada", 1000.0 + 86400 + 1)  # a day later the first are gone


def test_passwords_are_nfkc_normalised() -> None:
    composed, decomposed = "caf\u00e9 au lait!", "cafe\u0301 au lait!"
    assert check_password(decomposed) == check_password(composed) == composed
    assert normalized("\uff21\uff22\uff23") == "ABC"  # fullwidth letters


@pytest.mark.slow
async def test_one_address_holds_at_most_its_share_and_another_goes_next() -> None:
    hasher = Hasher(threads=1, backlog=8, per_source=2)
    try:  # a check costs what the stored hash says: make it slow enough to overlap
        stored = PasswordHasher(memory_cost=65536, time_cost=3, parallelism=1).hash("x")
        done: list[str] = []

        async def check(source: str) -> None:
            await hasher.verify(stored, "x", source=source)
            done.append(source)

        storm = [asyncio.ensure_future(check("storm")) for _ in range(3)]
        await asyncio.sleep(0)
        honest = asyncio.ensure_future(check("honest"))
        results = await asyncio.gather(*storm, honest, return_exceptions=True)
        assert sum(isinstance(r, Busy) for r in results) == 1  # the storm's third
        assert done == ["storm", "honest", "storm"]  # the honest check jumped the queue
    finally:
        hasher.close()


def test_one_time_codes_are_kept_as_their_hash() -> None:
    stored = code_hash("abc")
    assert stored != b"abc" and len(stored) == 32
    assert same_code("abc", stored) and not same_code("abd", stored)
