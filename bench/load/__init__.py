"""The load harness: measure a server with many connections, rooms of bots and spectators.

Run it from a checkout (it starts the servers with the tests' helpers)::

    python -m bench.load --rooms 100 --spectators 500     # see --help

Three phases, each also run against a bare ``websockets`` server
(:mod:`bench.load.baseline`) with the same clients and frame sizes, so that
every figure comes with the transport's own limit on this machine:

``idle``
    ``--connections`` connections that said hello and sit idle: server RSS
    growth per connection (baseline: bare connections to the bare server).
``rooms``
    ``--rooms`` connections, each playing its own room with a COMP bot from
    :mod:`tilehall.server.bots`, as fast as the server answers: moves/s (each an action
    committed to the journal before its update went out) and the act -> update
    round trip (baseline: closed-loop echo with the same request/reply sizes).
``fanout``
    one bot playing a room watched by ``--spectators`` connections: update
    frames delivered to spectators per second and their lag behind the act
    (baseline: websockets' ``broadcast`` to as many connections). The player
    stays at most ``--window`` updates ahead of the slowest spectator, so no
    one is dropped for being slow and both servers are measured at the rate
    they can actually deliver.

``journal`` (no network) appends to the SQLite store from many rooms at once:
its committed actions/s ceiling.

The harness starts the server itself (``python -m tilehall.server.app`` in a subprocess,
so it can read ``/proc/<pid>/status``) unless given ``--url`` (and
``--server-pid`` for memory figures). Bots think on the event loop here, not in
a thread: a worker thread holding the GIL would delay the arrival timestamps
that the latencies are made of; thinking time is reported apart.

Results print as a table, and as JSON with ``--json`` (or to ``--out FILE``).

One module per job: :mod:`~bench.load.servers` (the server processes),
:mod:`~bench.load.players` (the clients and bots), :mod:`~bench.load.baseline`
(the bare server), :mod:`~bench.load.measure` (percentiles, /proc, fan-out
counts), :mod:`~bench.load.phases` (the runs), :mod:`~bench.load.report` (the table),
:mod:`~bench.load.cli` (the command line).
"""

from __future__ import annotations

from bench.load.cli import main, parse_args, run_load
from bench.load.config import PHASES, LoadConfig
from bench.load.report import table

__all__ = ["PHASES", "LoadConfig", "main", "parse_args", "run_load", "table"]
