"""Which address a connection comes from, when a reverse proxy stands in front.

Behind a proxy every connection's socket address is the proxy's, so the
per-address limits (``--max-conns-per-ip``, ``--flood-ban``) would treat all
players as one. A proxy the host names with ``--trusted-proxy`` may say who its
client was in ``X-Forwarded-For``; the server believes that header only from
such a proxy, and only as far back as the first address it does not trust
(anything left of that was written by the client and may be forged).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

__all__ = ["Network", "client_ip", "network"]

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def network(text: str) -> Network:
    """Parse ``--trusted-proxy``: an address or a CIDR block (``10.0.0.0/8``).

    Raises:
        ValueError: not an address or a network.
    """
    return ipaddress.ip_network(text.strip(), strict=False)


def _trusted(address: str, trusted: Sequence[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # a dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d
    return any(ip in net for net in trusted)


def client_ip(peer: str, forwarded_for: str | None, trusted: Sequence[Network]) -> str:
    """The address to hold a connection's limits against.

    ``peer`` is the socket's address. When it is a trusted proxy, the hops of
    ``X-Forwarded-For`` are read from the right (the nearest first): trusted
    proxies are skipped and the first other address is the client. A hop that
    is not an address (``unknown``, garbage) ends the walk at the hop before it,
    as does an empty header, so a broken or forged header can never lend a
    client somebody else's address beyond what trusted proxies wrote.
    """
    if not trusted or not forwarded_for or not _trusted(peer, trusted):
        return peer
    client = peer
    for hop in reversed(forwarded_for.split(",")):
        hop = hop.strip()
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return client
        client = hop
        if not _trusted(hop, trusted):
            return hop
    return client
