"""A real TCP relay between the server and one of its services, to break on cue.

The network is one of the server's dependencies: a connection can drop after
the database committed a statement and before its answer arrived. That is the
one fault after which nobody knows whether a move was saved, so it is tested
for real: the relay passes every byte both ways, and when told to, drops the
connection at the moment the service's answer containing a given marker would
have been passed on.
"""

from __future__ import annotations

import asyncio
import contextlib


class CutProxy:
    """Listen on 127.0.0.1 and relay to ``host:port``; :meth:`cut_before` breaks it once."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.listen_port = 0
        self._server: asyncio.Server | None = None
        self._marker: bytes | None = None
        self.cuts = 0
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.listen_port = self._server.sockets[0].getsockname()[1]
        return self.listen_port

    def cut_before(self, marker: bytes) -> None:
        """Drop the next connection whose service sends ``marker``, before passing it on."""
        self._marker = marker

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
        except OSError:
            writer.close()
            return
        both = (writer, up_writer)
        to_service = asyncio.create_task(self._pump(reader, up_writer, both, check=False))
        to_client = asyncio.create_task(self._pump(up_reader, writer, both, check=True))
        self._tasks |= {to_service, to_client}
        await asyncio.gather(to_service, to_client, return_exceptions=True)
        self._tasks -= {to_service, to_client}

    async def _pump(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        both: tuple[asyncio.StreamWriter, asyncio.StreamWriter],
        *,
        check: bool,
    ) -> None:
        try:
            while data := await reader.read(65536):
                if check and self._marker is not None and self._marker in data:
                    self._marker = None
                    self.cuts += 1
                    for w in both:  # a reset, not a polite close: as a network failure looks
                        transport = w.transport
                        if transport is not None:
                            transport.abort()
                    return
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


class Gate:
    """Listen on 127.0.0.1 and relay to ``host:port`` while open; :meth:`shut` cuts it off.

    Shut, it resets the connections it carries and every new one at once: the
    service behind it is unreachable for this one client while it stays up for
    the others (a node cut off from the broker, say).
    """

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.listen_port = 0
        self.open = True
        self._server: asyncio.Server | None = None
        self._links: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.listen_port = self._server.sockets[0].getsockname()[1]
        return self.listen_port

    def shut(self) -> None:
        self.open = False
        for w in list(self._links):
            if w.transport is not None:
                w.transport.abort()
        self._links.clear()

    def reopen(self) -> None:
        self.open = True

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not self.open:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
        except OSError:
            writer.transport.abort()
            return
        self._links |= {writer, up_writer}
        pumps = {
            asyncio.create_task(_pump(reader, up_writer)),
            asyncio.create_task(_pump(up_reader, writer)),
        }
        self._tasks |= pumps
        await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        for w in (writer, up_writer):
            self._links.discard(w)
            if w.transport is not None:
                w.transport.abort()
        self._tasks -= pumps

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError, OSError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
