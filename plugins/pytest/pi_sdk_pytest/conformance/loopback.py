"""The kit's vendor: an HTTP/1.1 server on 127.0.0.1 that plays scripted replies and counts.

Each request, whatever its path, gets the next :class:`Reply` of the script (the last one
repeats). A reply is a status line, headers and its body parts in chunked encoding, then ends
as scripted: ``"keep"`` (finish the body, keep the connection for the next request),
``"hang"`` (send nothing more until the client closes the connection), ``"rst"`` (reset the
connection, TCP RST) or ``"close"`` (close it); ``rst_before_headers`` resets it as soon as
the request is read, before any byte of the response. ``pauses`` holds the server silent before
a part (a slow vendor).

:attr:`LoopbackServer.in_flight` counts the responses a client has not let go of: a ``"hang"``
reply stays in flight until the client closes its connection, so after a call is aborted or
closed it must fall back to 0 (:meth:`LoopbackServer.released`): the kit's measure of a
released connection, read from the server side of the socket, never from timing.
"""

from __future__ import annotations

import asyncio
import socket
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Literal

__all__ = ["LoopbackServer", "Reply", "Request", "body_reply"]

End = Literal["keep", "hang", "rst", "close"]


@dataclass
class Reply:
    """One scripted response (a test may adjust it before the server plays it)."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict[str, str])
    parts: tuple[bytes, ...] = ()
    """Body parts, each sent as one chunk (empty parts are skipped)."""
    end: End = "keep"
    rst_before_headers: bool = False
    pauses: Mapping[int, float] = field(default_factory=dict[int, float])
    """Part index -> seconds of silence before that part is sent."""


@dataclass(frozen=True)
class Request:
    """One request the server read: method, target (path and query), headers, body."""

    method: str
    target: str
    headers: dict[str, str]
    """Header names lower-cased."""
    body: bytes


class LoopbackServer:
    """``async with LoopbackServer() as server:``; ``server.url``, ``server.play(...)``."""

    def __init__(self) -> None:
        self.received: list[Request] = []
        """Every request read, in order."""
        self.connections = 0
        """Connections accepted."""
        self.client_closes = 0
        """``"hang"`` replies the client ended by closing its connection."""
        self.in_flight = 0
        """Responses begun and not yet over (a ``"hang"`` reply is over when the client
        closes its connection)."""
        self._script: tuple[Reply, ...]
        self._played: int
        self._route: Callable[[Request], Reply] | None
        self.play()  # the default script: one Reply() for every request
        self._server: asyncio.Server | None = None
        self._stop = asyncio.Event()
        self._handlers: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``, no trailing slash."""
        assert self._server is not None, "the server is not running"
        port: int = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    @property
    def open_connections(self) -> int:
        """Connections the server still serves (idle ones kept alive included)."""
        return len(self._handlers)

    def play(self, *script: Reply) -> None:
        """Answer the next requests with ``script``, in order (the last reply repeats)."""
        self._script = script or (Reply(),)
        self._played = 0
        self._route = None

    def route(self, choose: Callable[[Request], Reply]) -> None:
        """Answer each request with ``choose(request)`` (a server answering by path)."""
        self._route = choose

    async def released(self, deadline_s: float) -> bool:
        """Wait until no response is in flight; False if one still is after ``deadline_s``."""
        loop = asyncio.get_running_loop()
        until = loop.time() + deadline_s
        while self.in_flight:
            if loop.time() >= until:
                return False
            await asyncio.sleep(0.005)
        return True

    async def __aenter__(self) -> LoopbackServer:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self._stop.set()
        assert self._server is not None
        self._server.close()
        for task in list(self._handlers):
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        self.connections += 1
        try:
            while (request := await _read_request(reader)) is not None:
                self.received.append(request)
                if self._route is not None:
                    reply = self._route(request)
                else:
                    reply = self._script[min(self._played, len(self._script) - 1)]
                self._played += 1
                self.in_flight += 1
                try:
                    if not await self._respond(reader, writer, reply):
                        return
                finally:
                    self.in_flight -= 1
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            return
        finally:
            self._handlers.discard(task)
            writer.close()

    async def _respond(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, reply: Reply
    ) -> bool:
        """Send ``reply``; whether the connection stays open for another request."""
        if reply.rst_before_headers:
            _reset(writer)
            return False
        phrase = HTTPStatus(reply.status).phrase if reply.status in _STATUSES else "Unknown"
        bodyless = reply.status in (204, 304)  # no body, so no body framing either
        framing = "" if bodyless else "transfer-encoding: chunked\r\n"
        head = f"HTTP/1.1 {reply.status} {phrase}\r\n{framing}"
        head += "".join(f"{name}: {value}\r\n" for name, value in reply.headers.items())
        writer.write((head + "\r\n").encode("latin-1"))
        if bodyless:
            await writer.drain()
            return reply.end == "keep"
        for number, part in enumerate(reply.parts):
            if pause := reply.pauses.get(number):
                await writer.drain()
                await asyncio.sleep(pause)
            if part:
                writer.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
        await writer.drain()
        if reply.end == "hang":
            await self._until_client_closes(reader)
            return False
        if reply.end == "rst":
            _reset(writer)
            return False
        if reply.end == "close":
            return False
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True

    async def _until_client_closes(self, reader: asyncio.StreamReader) -> None:
        stop = asyncio.ensure_future(self._stop.wait())
        closed = asyncio.ensure_future(_until_eof(reader))
        try:
            await asyncio.wait({stop, closed}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            closed.cancel()
        if closed.done() and not closed.cancelled():
            self.client_closes += 1


_STATUSES = {status.value for status in HTTPStatus}


async def _read_request(reader: asyncio.StreamReader) -> Request | None:
    """The next request on the connection; ``None`` when the client closed it."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip():
            headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = await _read_chunked(reader)
    else:
        length = int(headers.get("content-length", "0") or 0)
        body = await reader.readexactly(length) if length else b""
    return Request(method, target, headers, body)


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts: list[bytes] = []
    while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)
    await reader.readuntil(b"\r\n")
    return b"".join(parts)


async def _until_eof(reader: asyncio.StreamReader) -> None:
    """Return once the peer closed (EOF or reset); bytes it sends meanwhile are dropped."""
    try:
        while await reader.read(4096):
            pass
    except ConnectionError:
        return


def _reset(writer: asyncio.StreamWriter) -> None:
    sock: socket.socket = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


def body_reply(body: bytes, content_type: str, *, end: End = "keep") -> Reply:
    """A 200 reply carrying ``body`` as ``content_type``, ending as ``end`` says."""
    return Reply(headers={"content-type": content_type}, parts=(body,), end=end)
