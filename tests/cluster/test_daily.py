"""Today's deal on a two-node cluster (PostgreSQL + MQTT): one deal, one try, whichever node.

The nodes share the daily secret through the store, so a player on each node is
dealt the same board and the same stream for the same moves; the try of the day
is kept in the store too, so a second try on the other node is practice.
"""

from __future__ import annotations

import random

import pytest
from tilehall.server.bots import find_bot

from tests.cluster.conftest import until


@pytest.mark.slow
async def test_two_nodes_deal_the_same_deal_and_count_one_try(cluster):
    from tests.cluster.conftest import Peer

    u1, u2 = await cluster.start("n1", "n2")
    ada, bo = await Peer.open(u1, "Ada"), await Peer.open(u2, "Bo")
    made = [await p.call({"t": "create", "game": "ishido", "daily": True}) for p in (ada, bo)]
    assert made[0]["daily"] == made[1]["daily"] and not made[0]["practice"]
    joined = [
        await p.call({"t": "join", "room": m["room"]}) for p, m in zip((ada, bo), made, strict=True)
    ]
    assert joined[0]["t"] == "joined", joined[0]
    assert joined[0]["view"] == joined[1]["view"], "the same first board on both nodes"
    bot = find_bot("ishido", "normal")(rng=random.Random(4), budget=0.05)
    view = joined[0]["view"]
    for _ in range(6):
        action = bot.choose(view)
        ups = [await p.act(m["room"], action) for p, m in zip((ada, bo), made, strict=True)]
        assert ups[0]["t"] == "update", ups[0]
        assert ups[0]["events"] == ups[1]["events"], "the same stones dealt on both nodes"
        assert ups[0]["view"] == ups[1]["view"]
        view = ups[0]["view"]
    over = await ada.act(made[0]["room"], {"do": "quit"})
    assert over["view"]["status"] == "over"

    async def kept():  # the result is kept just after the last update is sent
        table = await ada.call({"t": "scores", "game": "ishido", "table": "daily"})
        return table["entries"]

    await until(kept)
    # Ada's second try, on the other node: practice, since the store keeps her try
    ada2 = await ada.open(u2, token=ada.token)
    again = await ada2.call({"t": "create", "game": "ishido", "daily": True})
    assert again["practice"] is True and again["daily"] == made[0]["daily"]
    # Bo's room, still open, is his for the day on either node
    bo1 = await bo.open(u1, token=bo.token)
    back = await bo1.call({"t": "create", "game": "ishido", "daily": True})
    assert back["room"] == made[1]["room"] and back["resumed"] is True

    table = await bo1.call({"t": "scores", "game": "ishido", "table": "daily"})
    assert [(e["name"], e["room"]) for e in table["entries"]] == [("Ada", made[0]["room"])]
    refused = await bo1.call({"t": "replay", "room": made[0]["room"], "seq": 1})
    assert refused["t"] == "error" and refused["code"] == "day_not_over"
    for p in (ada, bo, ada2, bo1):
        await p.close()
