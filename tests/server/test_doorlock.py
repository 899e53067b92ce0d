"""The door lock keeps asyncio.Lock's promises: one holder, first come first served,
a cancelled waiter passes its turn on; and a free lock is taken without waiting."""

from __future__ import annotations

import asyncio

import pytest
from tilehall.server.doorlock import DoorLock


async def test_a_free_lock_is_taken_at_once_and_a_held_one_refused() -> None:
    lock = DoorLock()
    assert lock.take() and lock.locked()
    assert not lock.take()
    lock.release()
    assert not lock.locked()
    with pytest.raises(RuntimeError):
        lock.release()


async def test_waiters_get_the_lock_in_the_order_they_came() -> None:
    lock = DoorLock()
    order: list[int] = []

    async def holder(i: int) -> None:
        async with lock:
            order.append(i)
            await asyncio.sleep(0)
            order.append(i)

    assert lock.take()
    tasks = [asyncio.create_task(holder(i)) for i in range(4)]
    await asyncio.sleep(0)
    lock.release()
    # released to the first waiter, which has not run yet: a newcomer may not pass it
    assert not lock.take()
    await asyncio.gather(*tasks)
    assert order == [0, 0, 1, 1, 2, 2, 3, 3]
    assert not lock.locked()


async def test_a_waiter_cancelled_after_being_woken_passes_its_turn_on() -> None:
    lock = DoorLock()
    got: list[str] = []

    async def waiter(name: str) -> None:
        await lock.acquire()
        got.append(name)
        lock.release()

    assert lock.take()
    first = asyncio.create_task(waiter("first"))
    second = asyncio.create_task(waiter("second"))
    await asyncio.sleep(0)
    lock.release()  # wakes first ...
    first.cancel()  # ... which is cancelled before it runs
    await asyncio.gather(first, second, return_exceptions=True)
    assert first.cancelled() and got == ["second"]
    assert not lock.locked() and lock.take()
