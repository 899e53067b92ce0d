"""``bench/names_storm.py``: a storm of new names from one address, sign-ins from another."""

from __future__ import annotations

import pytest

from bench.names_storm import run


@pytest.mark.slow  # a server process, a storm process and a few seconds of each
async def test_the_storm_is_refused_and_every_sign_in_from_elsewhere_is_welcomed() -> None:
    report = await run(storm=5, seconds=3.0, count=4)
    assert report["sign_ins_alone"]["answers"] == {"welcome": 4}
    assert report["sign_ins_during_storm"]["answers"] == {"welcome": 4}
    storm = report["storm"]
    assert 0 < storm["names_made"] <= 20  # the server's default budget
    assert storm["answers"]["too_many_names"] > 0
