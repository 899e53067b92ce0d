"""Cluster mode: several nodes act as one server, over MQTT and one PostgreSQL store.

Loaded only when ``--mqtt`` is given; a single process never imports it (nor
aiomqtt). The topic layout is documented in ``protocol/CLUSTER.md``; each
module here has one job:

- :mod:`.wire`: topics, payloads, pure helpers;
- :mod:`.bus`: the connection to the broker;
- :mod:`.leases`: the heartbeat lease in PostgreSQL that says who is alive;
- :mod:`.directory`: which node hosts which room;
- :mod:`.relay`: this node's connections in rooms hosted elsewhere;
- :mod:`.hosting`: other nodes' connections in rooms hosted here;
- :mod:`.node`: the node itself: takeovers, handovers, placement.
"""

from tilehall.server.cluster.hosting import Link, StandIn
from tilehall.server.cluster.node import Cluster
from tilehall.server.cluster.relay import RemoteRoom
from tilehall.server.cluster.wire import Entry, Presence, Topics, catch_up_update, code_hash

__all__ = [
    "Cluster",
    "Entry",
    "Link",
    "Presence",
    "RemoteRoom",
    "StandIn",
    "Topics",
    "catch_up_update",
    "code_hash",
]
