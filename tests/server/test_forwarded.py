"""The client's address through trusted proxies (X-Forwarded-For)."""

from __future__ import annotations

import ipaddress
import logging

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tilehall.server.app import parse_args
from tilehall.server.net.forwarded import client_ip, network

PROXIES = [network("10.0.0.0/8"), network("127.0.0.1"), network("fd00::/8")]


@pytest.mark.parametrize(
    ("peer", "header", "expected"),
    [
        # a trusted proxy names its client
        ("127.0.0.1", "203.0.113.7", "203.0.113.7"),
        # through a chain of trusted proxies, the nearest untrusted hop is the client
        ("10.0.0.5", "203.0.113.7, 10.0.0.9", "203.0.113.7"),
        # what the client wrote itself (left of its own address) is not believed
        ("127.0.0.1", "1.2.3.4, 203.0.113.7", "203.0.113.7"),
        # an untrusted peer's header is ignored
        ("198.51.100.2", "203.0.113.7", "198.51.100.2"),
        # no header, an empty one, or garbage nearest: the proxy itself
        ("127.0.0.1", None, "127.0.0.1"),
        ("127.0.0.1", "", "127.0.0.1"),
        ("127.0.0.1", "unknown", "127.0.0.1"),
        ("10.0.0.5", "203.0.113.7, junk, 10.0.0.9", "10.0.0.9"),
        # only trusted hops: the farthest of them
        ("127.0.0.1", "10.1.1.1, 10.0.0.9", "10.1.1.1"),
        # IPv6, and an IPv4 peer on a dual-stack socket
        ("fd00::1", "2001:db8::7", "2001:db8::7"),
        ("::ffff:127.0.0.1", "203.0.113.7", "203.0.113.7"),
    ],
)
def test_client_ip(peer, header, expected):
    assert client_ip(peer, header, PROXIES) == expected


def test_nothing_trusted_means_the_socket_address():
    assert client_ip("127.0.0.1", "203.0.113.7", []) == "127.0.0.1"


addresses = st.one_of(
    st.ip_addresses(v=4).map(str),
    st.sampled_from(["127.0.0.1", "10.0.0.1", "10.9.9.9", "fd00::2", "unknown", ""]),
)


@given(peer=addresses, hops=st.lists(addresses, max_size=6))
def test_a_client_only_gets_what_trusted_proxies_wrote(peer, hops):
    """The answer is the peer or a hop; every hop right of it is a trusted proxy's."""
    got = client_ip(peer, ", ".join(hops), PROXIES)
    if got == peer:
        return
    assert got in hops
    nearer = hops[len(hops) - hops[::-1].index(got) :]
    for hop in [*nearer, peer]:
        ip = ipaddress.ip_address(hop)
        assert any(ip in net for net in PROXIES), (peer, hops, got)


def test_the_option_takes_addresses_and_networks_and_refuses_the_rest(capsys, monkeypatch):
    monkeypatch.setattr(logging, "basicConfig", lambda **kwargs: None)  # parse_args sets it up
    config = parse_args(["--trusted-proxy", "127.0.0.1", "--trusted-proxy", "10.0.0.0/8"])
    assert config.trusted_proxies == ("127.0.0.1/32", "10.0.0.0/8")
    assert parse_args([]).trusted_proxies == ()
    with pytest.raises(SystemExit):
        parse_args(["--trusted-proxy", "proxy.internal"])
    assert "not an address or network: 'proxy.internal'" in capsys.readouterr().err
