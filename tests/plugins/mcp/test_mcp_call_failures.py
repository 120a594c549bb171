"""Every way a ``tools/call`` can fail, and the one error text each gives (``_result``).

The server answered with an error (its text, redacted), the limit passed (the call
cancelled), the connection closed or broke (the server is then failed, its text says why), or
the SDK raised anything else on the result (a structured result failing the tool's output
schema): each is a :class:`pi_sdk_mcp.McpServerError` naming the server and the tool.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
import httpx2
import mcp.types as mcp
import pytest
from mcp.shared.exceptions import MCPError
from pi_sdk_mcp import HttpServer, McpServerError
from pi_sdk_mcp._config import Timeouts
from pi_sdk_mcp._connection import ServerConnection

SECRET = "sk-live-abcdefghijklmnopqrstuvwxyz012345"


def _failed_with(exc: BaseException) -> asyncio.Future[Any]:
    future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    future.set_exception(exc)
    return future


def _connection() -> tuple[ServerConnection, list[str]]:
    states: list[str] = []
    config = HttpServer(
        name="db",
        url="http://127.0.0.1:9/mcp",
        headers={"authorization": f"Bearer {SECRET}"},
        timeouts=Timeouts(call_ms=2_500),
    )
    return ServerConnection(
        config, sampler=None, on_change=lambda c: states.append(c.state)
    ), states


LOST = "MCP server 'db' stopped during the call to 'query': "


@pytest.mark.parametrize(
    ("raised", "text", "lost"),
    [
        (TimeoutError(), "MCP server 'db' did not answer the call to 'query' within 2.5 s;"
         " the call was cancelled", False),
        (MCPError(code=-32602, message=f"bad arguments for {SECRET}"),
         "MCP server 'db' refused the call to 'query': bad arguments for [REDACTED]", False),
        (MCPError(code=mcp.CONNECTION_CLOSED, message="closed"),
         LOST + "the connection closed during a call to 'query'", True),
        (asyncio.CancelledError(), LOST + "the connection was lost during a call to 'query'", True),
        (anyio.BrokenResourceError(), LOST + "BrokenResourceError during a call to 'query'", True),
        (ConnectionResetError("peer reset"),
         LOST + "ConnectionResetError: peer reset during a call to 'query'", True),
        (httpx2.ReadError("read failed"), LOST + "ReadError: read failed during a call to 'query'",
         True),
        (RuntimeError(f"Invalid structured content returned by tool query: {SECRET}"),
         "MCP server 'db': the call to 'query' failed: RuntimeError: Invalid structured content"
         " returned by tool query: [REDACTED]", False),
    ],
    ids=["timeout", "refused", "closed", "cancelled", "broken", "os-error", "http-error",
         "anything-else"],
)  # fmt: skip
async def test_each_failure_of_a_call_is_one_error_naming_server_and_tool(
    raised: BaseException, text: str, lost: bool
) -> None:
    connection, states = _connection()
    with pytest.raises(McpServerError) as failed:
        connection._result(_failed_with(raised), "query")  # noqa: SLF001 - the mapping itself
    assert str(failed.value) == text
    assert SECRET not in str(failed.value)
    assert (connection.state == "failed") is lost
    assert states == (["failed"] if lost else [])
