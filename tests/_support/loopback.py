"""A scripted HTTP/1.1 server on 127.0.0.1 for provider tests that need real sockets.

Tests that exercise what an in-process transport cannot show (TCP connection reuse, a connection
reset before the response, a server that keeps the connection open after the last event) run the
adapters against this server through the normal client path (no ``StreamOptions.client``).

Each request gets the next :class:`Step` (the last one repeats), or the one ``route(method,
target, headers, body)`` picks when a route is given (a server answering by path). A step sends
a status line, headers and body parts with chunked encoding (a 204 or 304: no body), then ends
as scripted: ``"keep"`` (finish the body, keep the connection alive), ``"hang"`` (send nothing
more until the client closes the connection or the server stops;
:attr:`LoopbackServer.client_closes` counts the first), ``"rst"`` (reset the connection: TCP
RST) or ``"close"`` (close the socket). ``rst_before_headers`` resets
the connection as soon as the request has been read, before any byte of the response.
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import pi_sdk
from _support.wire import APIS, Text, Tokens, wire_for

__all__ = [
    "APIS",
    "HTML_ERROR_PAGE",
    "LoopbackServer",
    "Route",
    "Step",
    "complete_once",
    "json_step",
    "model_at",
    "sse_step",
    "text_events",
    "text_reply",
]

_REASONS = {
    200: "OK",
    304: "Not Modified",
    400: "Bad Request",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


@dataclass
class Step:
    """One scripted response."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict[str, str])
    parts: list[bytes] = field(default_factory=list[bytes])
    end: Literal["keep", "hang", "rst", "close"] = "keep"
    rst_before_headers: bool = False
    pauses: dict[int, float] = field(default_factory=dict[int, float])
    """Part index -> seconds of silence before that part is sent."""


Route = Callable[[str, str, dict[str, str], bytes], Step]
"""``route(method, target, headers, body) -> Step``: the reply to one request."""


def sse_step(events: list[Any], *, end: Literal["keep", "hang", "rst", "close"] = "keep") -> Step:
    """A ``text/event-stream`` reply: each item is a JSON object (``data: <json>``) or raw bytes."""
    parts = [
        item if isinstance(item, bytes) else f"data: {json.dumps(item)}\n\n".encode()
        for item in events
    ]
    return Step(headers={"content-type": "text/event-stream"}, parts=parts, end=end)


def json_step(status: int, body: Any, headers: dict[str, str] | None = None) -> Step:
    """A JSON reply (``body`` as JSON; ``bytes`` sent as is with ``text/html``)."""
    if isinstance(body, bytes):
        return Step(status, {"content-type": "text/html", **(headers or {})}, [body])
    data = json.dumps(body).encode()
    return Step(status, {"content-type": "application/json", **(headers or {})}, [data])


class LoopbackServer:
    """Serve ``steps`` on 127.0.0.1; counts connections and records requests.

    Use as ``async with LoopbackServer([...]) as server:``; ``server.url`` is the base URL.
    """

    def __init__(self, steps: list[Step], *, route: Route | None = None) -> None:
        self.steps = steps
        self.route = route
        self.connections = 0
        self.requests: list[tuple[str, str, bytes]] = []
        self.headers: list[dict[str, str]] = []
        """Each request's headers (names lower-cased), in request order."""
        self.client_closes = 0
        """Hanging replies (``end="hang"``) the client ended by closing its connection."""
        self._server: asyncio.Server | None = None
        self._stop = asyncio.Event()
        self._handlers: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    @property
    def open_connections(self) -> int:
        """Connections the server still serves (a hanging reply the client never closed...)."""
        return len(self._handlers)

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
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                lines = head.decode("latin-1").split("\r\n")
                method, target, _ = lines[0].split(" ", 2)
                length = 0
                headers: dict[str, str] = {}
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    if name.strip():
                        headers[name.strip().lower()] = value.strip()
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                self.headers.append(headers)
                body = await reader.readexactly(length) if length else b""
                self.requests.append((method, target, body))
                if self.route is not None:
                    step = self.route(method, target, headers, body)
                else:
                    step = self.steps[min(len(self.requests), len(self.steps)) - 1]
                if not await self._respond(reader, writer, step):
                    return
        except (ConnectionError, asyncio.CancelledError):
            return
        finally:
            self._handlers.discard(task)
            writer.close()

    async def _respond(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, step: Step
    ) -> bool:
        if step.rst_before_headers:
            _reset(writer)
            return False
        reason = _REASONS.get(step.status, "Unknown")
        bodyless = step.status in (204, 304)  # no body, so no body framing either
        framing = "" if bodyless else "transfer-encoding: chunked\r\n"
        head = f"HTTP/1.1 {step.status} {reason}\r\n{framing}"
        for name, value in step.headers.items():
            head += f"{name}: {value}\r\n"
        writer.write((head + "\r\n").encode("latin-1"))
        if bodyless:
            await writer.drain()
            return True
        for number, part in enumerate(step.parts):
            pause = step.pauses.get(number)
            if pause:
                await writer.drain()
                await asyncio.sleep(pause)
            if part:
                writer.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
        await writer.drain()
        if step.end == "hang":
            await self._hang(reader)
            return False
        if step.end == "rst":
            _reset(writer)
            return False
        if step.end == "close":
            writer.close()
            return False
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True

    async def _hang(self, reader: asyncio.StreamReader) -> None:
        """Wait until the client closes the connection (counted) or the server stops."""
        stop = asyncio.ensure_future(self._stop.wait())
        closed = asyncio.ensure_future(_until_eof(reader))
        try:
            await asyncio.wait({stop, closed}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            closed.cancel()
        if closed.done() and not closed.cancelled():
            self.client_closes += 1


async def _until_eof(reader: asyncio.StreamReader) -> None:
    """Return once the peer closed (EOF or reset); bytes it sends meanwhile are dropped."""
    try:
        while await reader.read(4096):
            pass
    except ConnectionError:
        return


def _reset(writer: asyncio.StreamWriter) -> None:
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


HTML_ERROR_PAGE = (
    b"<!DOCTYPE html><html><head><title>500 Internal Server Error</title>"
    b"<style>body { color: red }</style><script>var x = '<b>';</script></head><body>"
    b"<h1>Internal   Server\n\nError</h1>"
    + b"<p>upstream &amp; friends failed</p>" * 400
    + b"</body></html>"
)
"""A proxy's 16 KB HTML error page (what an error message must not quote whole)."""


# --- minimal replies per wire API (the APIs and their wire formats: _support.wire) ----------


def model_at(api: str, base: str) -> Any:
    """The catalog model of ``api``'s test provider, sending to ``base`` (the server's URL)."""
    return wire_for(api).model(base)


def text_events(api: str, pieces: list[str]) -> tuple[list[Any], list[Any]]:
    """``(body events, terminal events)`` of a text reply made of ``pieces`` on ``api``.

    The terminal part is the vendor's end of the reply (``message_stop``, ``[DONE]``,
    ``response.completed``, the chunk with ``finishReason``), so a test can put more after it.
    Usage: 5 input tokens, 3 output tokens.
    """
    return wire_for(api).events([Text(tuple(pieces))], Tokens())


def text_reply(api: str, text: str = "Hello", **kwargs: Any) -> Step:
    """A complete streamed text reply on ``api``."""
    body, terminal = text_events(api, [text[: len(text) // 2], text[len(text) // 2 :]])
    return sse_step(body + terminal, **kwargs)


async def complete_once(api: str, step: Step) -> pi_sdk.AssistantMessage:
    """``pi_sdk.complete`` of a "hi" prompt on ``api`` against a server playing ``step`` (no retry).

    Returns the final ``AssistantMessage`` (an error reply is returned, not raised).
    """
    async with LoopbackServer([step]) as server:
        return await pi_sdk.complete(
            model_at(api, server.url),
            pi_sdk.Context(messages=[pi_sdk.UserMessage(content="hi")]),
            pi_sdk.StreamOptions(api_key="test-key-123", max_retries=0),
        )
