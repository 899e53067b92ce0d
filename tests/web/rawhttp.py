"""Raw HTTP/1.1 over a socket: the request line goes out byte for byte as written.

http.client and browsers normalise a path (``..``, ``//``, backslashes) before
sending it; an attacker's client does not, so the static route's tests send
theirs as bytes. The server closes the connection after each answer that is not
a WebSocket handshake, so an answer is read to the end of the stream.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    """Header names in lower case; a repeated header's values joined with ", "."""
    body: bytes
    size: int
    """Bytes on the wire, status line and headers included."""


async def request(
    port: int,
    target: str | bytes,
    headers: dict[str, str] | None = None,
    method: str = "GET",
    timeout: float = 5.0,
) -> Reply:
    """Send one request for ``target`` (exactly these bytes) to 127.0.0.1:``port``."""
    raw_target = target if isinstance(target, bytes) else target.encode("latin-1")
    lines = [method.encode() + b" " + raw_target + b" HTTP/1.1", f"Host: 127.0.0.1:{port}".encode()]
    lines += [f"{k}: {v}".encode() for k, v in (headers or {}).items()]
    async with asyncio.timeout(timeout):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            writer.write(b"\r\n".join(lines) + b"\r\n\r\n")
            await writer.drain()
            data = await reader.read()
        finally:
            writer.close()
    return parse(data)


def parse(data: bytes) -> Reply:
    """The answer in ``data``; status 0 when the server closed without answering."""
    if not data:
        return Reply(0, {}, b"", 0)
    head, sep, body = data.partition(b"\r\n\r\n")
    assert sep, f"no complete answer: {data[:200]!r}"
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    version, status, *_ = status_line.split(" ", 2)
    assert version == "HTTP/1.1", status_line
    headers: dict[str, str] = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        key = name.strip().lower()
        headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
    if "content-length" in headers:
        assert len(body) == int(headers["content-length"]) or not body, (headers, len(body))
    return Reply(int(status), headers, body, len(data))
