"""What the server says in its log: a line per connection with its address, none per probe."""

from __future__ import annotations

import asyncio

from tests.helpers import Raw, ServerProcess, http_get


async def test_health_checks_log_nothing_and_connections_name_their_address(tmp_path):
    proc = ServerProcess(tmp_path)
    url = proc.start()
    try:
        start = len(proc.log)
        for _ in range(5):
            assert await asyncio.to_thread(http_get, f"http://127.0.0.1:{proc.port}/healthz")
        a = await Raw.open(url, "Ada")
        await a.close()
        for _ in range(50):
            if any("closed" in line for line in proc.log[start:]):
                break
            await asyncio.sleep(0.05)
        lines = proc.log[start:]
        assert not [line for line in lines if "healthz" in line or "HTTP response" in line]
        opened = [line for line in lines if "connection from 127.0.0.1:" in line]
        assert len(opened) == 2, lines  # opened, then closed with its code and player
        assert "closed (1000), player Ada" in opened[1]
    finally:
        proc.stop()
