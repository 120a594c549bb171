"""The MCP clients get the configured timeouts in seconds, fractions kept (``Timeouts`` is ms).

A server's start-up limit is the connect/handshake timeout and its call limit the read
timeout between a call's bytes, on both HTTP transports (streamable HTTP and the older
HTTP+SSE): 1,500 ms is 1.5 s, not 1 s.
"""

from __future__ import annotations

from typing import Any

import httpx2
import pytest
from pi_sdk_mcp import HttpServer
from pi_sdk_mcp import _transport as transport_module
from pi_sdk_mcp._config import Timeouts

TIMEOUTS = Timeouts(startup_ms=2_500, list_ms=1_000, call_ms=1_500)


class _Given(Exception):
    """Raised by a stand-in client once it has recorded what it was given."""


def test_the_sse_client_gets_start_up_and_call_limits_in_seconds(monkeypatch: pytest.MonkeyPatch):
    given: dict[str, Any] = {}
    monkeypatch.setattr(transport_module, "sse_client", lambda url, **kw: given.update(kw, url=url))
    server = HttpServer(
        name="team",
        url="http://127.0.0.1:9/sse",
        transport="sse",
        headers={"x-team": "a"},
        timeouts=TIMEOUTS,
    )
    transport_module.open_transport(server, None)
    assert given == {
        "url": "http://127.0.0.1:9/sse",
        "headers": {"x-team": "a"},
        "timeout": 2.5,
        "sse_read_timeout": 1.5,
        "auth": None,
    }


async def test_the_streamable_http_client_gets_start_up_and_call_limits_in_seconds(
    monkeypatch: pytest.MonkeyPatch,
):
    given: dict[str, Any] = {}

    def client(**kw: Any) -> Any:
        given.update(kw)
        raise _Given

    monkeypatch.setattr(transport_module.httpx2, "AsyncClient", client)
    server = HttpServer(
        name="team", url="http://127.0.0.1:9/mcp", headers={"x-team": "a"}, timeouts=TIMEOUTS
    )
    with pytest.raises(_Given):
        async with transport_module.open_transport(server, None):
            pass
    assert given["headers"] == {"x-team": "a"}
    assert given["timeout"] == httpx2.Timeout(2.5, read=1.5)
