"""Connections: one per WebSocket, where players' frames come in and go out.

- :mod:`.session`: a connection's identity, rate limit and bounded send queue;
- :mod:`.forwarded`: who a client is behind trusted reverse proxies;
- :mod:`.web`: the web client's files, served on the game port.

The server process that accepts connections and reads their frames is
:mod:`tilehall.server.app`.
"""
