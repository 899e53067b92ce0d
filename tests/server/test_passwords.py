"""Passwords: what may protect a name, Argon2id off the loop, guesses per name and address."""

from __future__ import annotations

import asyncio

import pytest
from argon2 import PasswordHasher
from tilehall.protocol import ProtocolError
from tilehall.server.passwords import Attempts, Busy, Hasher, check_password, code_hash, same_code


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


def test_guesses_are_counted_per_name_and_per_address_within_the_window() -> None:
    attempts = Attempts(failures=5, window=600)
    for i in range(5):  # five addresses guess ada's password once each
        assert attempts.retry_after(("name:ada", f"address:{i}"), 100.0 + i) == 0
        attempts.failed(("name:ada", f"address:{i}"), 100.0 + i)
    assert attempts.retry_after(("name:ada", "address:9"), 110.0) == 590.0  # the name is barred
    assert attempts.retry_after(("name:bea", "address:9"), 110.0) == 0  # others are not
    for i in range(5):  # one address guesses five names
        attempts.failed((f"name:n{i}", "address:x"), 200.0)
    assert attempts.retry_after(("name:zed", "address:x"), 300.0) == 500.0
    assert attempts.retry_after(("name:ada", "address:9"), 700.0) == 0  # the window passed
    attempts.forget("name:n0")
    assert attempts.retry_after(("name:n0", "address:y"), 300.0) == 0


def test_one_time_codes_are_kept_as_their_hash() -> None:
    stored = code_hash("abc")
    assert stored != b"abc" and len(stored) == 32
    assert same_code("abc", stored) and not same_code("abd", stored)
