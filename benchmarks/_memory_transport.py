"""An httpx2 transport that serves a recorded SSE body from memory (shared by the benchmarks).

Every request gets the same body, in the given chunks, so a benchmark measures the client and
the adapter, not the network.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence

import httpx2

DONE = b"data: [DONE]\n\n"
"""The OpenAI-style stream's last event."""


def sse_data(payload: object) -> bytes:
    """One SSE event carrying ``payload`` as compact JSON: ``data: {...}\\n\\n``."""
    return b"data: " + json.dumps(payload, separators=(",", ":")).encode() + b"\n\n"


def split(data: bytes, size: int = 4096) -> list[bytes]:
    """``data`` in chunks of ``size`` bytes (the last one shorter)."""
    return [data[i : i + size] for i in range(0, len(data), size)]


class _Body(httpx2.AsyncByteStream):
    def __init__(self, chunks: Sequence[bytes]) -> None:
        self._chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._chunks:
            yield chunk


class MemoryTransport(httpx2.AsyncBaseTransport):
    """Answers every request with HTTP 200, ``text/event-stream`` and ``chunks``."""

    def __init__(self, chunks: Sequence[bytes]) -> None:
        self.chunks = chunks

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        await request.aread()
        headers = {"content-type": "text/event-stream"}
        return httpx2.Response(200, headers=headers, stream=_Body(self.chunks))
