"""The ``mcp`` SDK transport for a configured server: stdio, streamable HTTP or SSE.

MCP spec, "Transports". stdio: the SDK spawns the command with its minimal environment plus
``env`` (``get_default_environment``) and, on close, closes stdin, waits, then terminates and
kills; the server's stderr goes to a temporary file (:class:`StderrLog`), quoted when the
server fails. Streamable HTTP: an ``httpx2`` client carrying the headers and ``auth``, with the
start timeout for connect and write and the call timeout for reads (a response stream may stay
open as long as a call runs). SSE: the SDK's ``sse_client`` with the same settings.
"""

from __future__ import annotations

import tempfile
from collections.abc import AsyncGenerator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, TextIO, cast

import httpx2
from mcp.client import Transport
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from ._config import HttpServer, ServerConfig, StdioServer

__all__ = ["StderrLog", "open_transport"]

_STDERR_LINES = 12
_STDERR_BYTES = 4_000


class StderrLog:
    """A stdio server's stderr, kept in a temporary file; :meth:`tail` quotes its end."""

    def __init__(self) -> None:
        file = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        self.file: TextIO = cast(TextIO, file)

    def tail(self) -> str:
        """The last lines the server wrote (at most 12 lines, 4,000 characters), or ``""``."""
        try:
            self.file.flush()
            size = self.file.seek(0, 2)
            self.file.seek(max(0, size - _STDERR_BYTES * 4))
            text = self.file.read()
        except (OSError, ValueError):  # closed, or not seekable
            return ""
        lines = [line.rstrip() for line in text.splitlines() if line.strip()]
        return "\n".join(lines[-_STDERR_LINES:])[-_STDERR_BYTES:]

    def close(self) -> None:
        """Delete the file."""
        self.file.close()


def open_transport(config: ServerConfig, stderr: StderrLog | None) -> Transport:
    """The transport that ``mcp.Client(transport)`` enters for ``config``.

    Args:
        config: The server.
        stderr: Where a stdio server's stderr goes (required for :class:`StdioServer`).
    """
    if isinstance(config, StdioServer):
        assert stderr is not None
        params = StdioServerParameters(
            command=config.command,
            args=list(config.args),
            env=dict(config.env) or None,
            cwd=config.cwd,
        )
        return stdio_client(params, errlog=stderr.file)
    if config.transport == "sse":
        return sse_client(
            config.url,
            headers=dict(config.headers) or None,
            timeout=config.timeouts.startup_ms / 1000,
            sse_read_timeout=config.timeouts.call_ms / 1000,
            auth=config.auth,
        )
    return _streamable_http(config)


@asynccontextmanager
async def _streamable_http(config: HttpServer) -> AsyncGenerator[Any]:
    start, call = config.timeouts.startup_ms / 1000, config.timeouts.call_ms / 1000
    client = httpx2.AsyncClient(
        headers=dict(config.headers),
        auth=config.auth,
        timeout=httpx2.Timeout(start, read=call),
    )
    async with client:
        transport: AbstractAsyncContextManager[Any] = streamable_http_client(
            config.url, http_client=client
        )
        async with transport as streams:
            yield streams
