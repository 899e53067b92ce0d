"""Liveness a broker restart cannot fake: a heartbeat lease in PostgreSQL.

Every node renews a lease in the ``nodes`` table a few times per lease period,
on a connection of its own. Whether another node is dead is read from there,
by the database's clock, never from the broker: a broker that stops publishes
every node's Last Will, so a Will is only a hint to come and look.

A node's rooms may be taken once its lease has lapsed **for a whole lease
period during which the taker itself renewed** (or it left cleanly, or it was
never registered). So a database outage, which stops every renewal at once,
moves nothing when the database returns: every node first renews its own
lease, and by the time any of them could judge another, all have renewed. The
claim itself re-checks the lease in the same statement
(:meth:`PostgresStore.claim_lapsed`), so a stale reading here can only delay a
takeover, never cause a wrong one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

import asyncpg
from tilehall.server.store.errors import StoreUnavailable
from tilehall.server.store.postgres import NodeRecord, PostgresStore

__all__ = ["Leases"]

log = logging.getLogger(__name__)

RENEWALS_PER_LEASE = 4
"""How many times a lease is renewed within its own length: three renewals may fail
(a slow statement, a dropped connection) before the lease lapses."""


class Leases:
    """This node's lease, and what the store says of every node's.

    Args:
        store: the cluster's shared PostgreSQL store.
        node: this node's name.
        url: where this node's players connect (for redirects), kept with its lease.
        lease: seconds without a renewal after which a node counts as dead.
        load: how many unfinished rooms this node hosts now (kept with its lease,
            read by the others to place new rooms).
        on_lapsed: called (repeatedly, while it lasts) with the name of a node that
            hosts unfinished rooms and whose lease has lapsed.
        on_superseded: called if another process registered under this node's name.
    """

    def __init__(
        self,
        store: PostgresStore,
        node: str,
        *,
        url: str,
        lease: float,
        load: Callable[[], int],
        on_lapsed: Callable[[str], None],
        on_superseded: Callable[[], None],
    ) -> None:
        self.store = store
        self.node = node
        self.url = url
        self.lease = lease
        self._load = load
        self._on_lapsed = on_lapsed
        self._on_superseded = on_superseded
        self.epoch = 0
        self.healthy_since: float | None = None
        """Database time of the first renewal of the current unbroken run of renewals."""
        self.nodes: dict[str, NodeRecord] = {}
        self._db_now = 0.0
        self._read_at = 0.0
        self._task: asyncio.Task[None] | None = None
        self._conn: asyncpg.Connection | None = None

    async def start(self) -> None:
        """Register a new incarnation of this node (its epoch), then keep renewing."""
        self.epoch = await self.store.register_node(self.node, self.url)
        self._task = asyncio.create_task(self._run(), name="cluster-lease")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        await self._close_conn()

    @property
    def interval(self) -> float:
        return self.lease / RENEWALS_PER_LEASE

    # -- judging the others (from the last reading of the table)

    def db_now(self) -> float:
        """The database's clock now, as of the last reading plus the time since."""
        return self._db_now + (asyncio.get_running_loop().time() - self._read_at)

    def lapse_in(self, node: str) -> float | None:
        """Seconds until ``node`` may be taken over (<= 0: it may now); None: cannot judge."""
        if self.healthy_since is None or node == self.node:
            return None  # this node's own lease is in doubt: it judges nobody
        record = self.nodes.get(node)
        if record is None or record.stopped:
            return 0.0
        return max(record.renewed_at, self.healthy_since) + self.lease - self.db_now()

    def lapsed(self, node: str) -> bool:
        left = self.lapse_in(node)
        return left is not None and left <= 0

    def live(self) -> list[NodeRecord]:
        """Nodes whose lease holds and that take new rooms (this one included)."""
        now = self.db_now()
        return [
            r
            for r in self.nodes.values()
            if not r.stopped and not r.draining and r.renewed_at + self.lease >= now
        ]

    async def refresh(self) -> None:
        """Read every node's lease now (the heartbeat does it anyway a few times a lease)."""
        now, nodes = await self.store.nodes()
        self._db_now, self._read_at = now, asyncio.get_running_loop().time()
        self.nodes = {r.name: r for r in nodes}

    # -- the heartbeat

    async def _close_conn(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            with contextlib.suppress(Exception):
                async with asyncio.timeout(1.0):
                    await conn.close()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            started = loop.time()
            try:
                async with asyncio.timeout(self.lease / 2):
                    await self._beat()
            except (StoreUnavailable, TimeoutError, OSError) as exc:
                if self.healthy_since is not None:
                    log.warning("node %s: lease not renewed (%s)", self.node, exc)
                self.healthy_since = None
                await self._close_conn()
            except _Superseded:
                log.critical(
                    "another process registered as node %s: this one stops (two nodes with "
                    "one name would fork rooms)",
                    self.node,
                )
                self._on_superseded()
                return
            except Exception:
                log.exception("node %s: lease renewal failed", self.node)
                self.healthy_since = None
            await asyncio.sleep(max(0.0, self.interval - (loop.time() - started)))

    async def _beat(self) -> None:
        if self._conn is None or self._conn.is_closed():
            self._conn = await self.store.connect_one()
        at = await self.store.renew_lease(self.node, self.epoch, self._load(), conn=self._conn)
        if at is None:
            raise _Superseded
        if self.healthy_since is None:
            self.healthy_since = at
            log.info("node %s: lease renewed (epoch %d)", self.node, self.epoch)
        await self.refresh()
        # Is any node with rooms gone? (Without this, a node that died while the broker
        # was down, leaving no Will, would keep its rooms until it came back.)
        for owner in await self.store.room_owners():
            if owner != self.node and self.lapsed(owner):
                self._on_lapsed(owner)


class _Superseded(Exception):
    """The store says a newer epoch owns this node's name."""
