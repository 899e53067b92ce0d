"""Operations: metrics, health checks, the admin listener and its command, JSON logs.

One module per job:

- :mod:`.metrics`: counters, latency histograms and collector pauses (a leaf);
- :mod:`.http`: the game port's ``/healthz``, ``/readyz`` and web client hook,
  and the Prometheus exposition of ``/metrics``;
- :mod:`.listener`: the admin listener (``/admin/...``, ``/metrics``), on a port
  of its own, 127.0.0.1 by default;
- :mod:`.keys`: the admin key and ``admin.json`` in the data directory;
- :mod:`.command`: ``tilehall-server admin ...``, the listener's client;
- :mod:`.logs`: ``--log-format json``;
- :mod:`.host`: what all of them read of the running server.

Only :mod:`.metrics`, which every part of the server counts with, is named here;
the others are imported by what uses them (the server process, the command):
they read the lobby, which counts with this package's metrics.
"""

from tilehall.server.ops.metrics import GC_PAUSES, LATENCY_BUCKETS, Histogram, Metrics, watch_gc

__all__ = ["GC_PAUSES", "LATENCY_BUCKETS", "Histogram", "Metrics", "watch_gc"]
