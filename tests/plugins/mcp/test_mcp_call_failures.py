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


async def test_a_closed_stream_during_a_call_is_a_lost_server() -> None:
    connection, states = _connection()
    with pytest.raises(McpServerError) as failed:
        connection._result(_failed_with(anyio.ClosedResourceError()), "query")  # noqa: SLF001
    assert str(failed.value) == LOST + "ClosedResourceError during a call to 'query'"
    assert states == ["failed"]
    with pytest.raises(McpServerError):  # a second loss reports nothing new
        connection._result(_failed_with(OSError("gone")), "query")  # noqa: SLF001
    assert states == ["failed"]


def _status_error(status: int) -> httpx2.HTTPStatusError:
    request = httpx2.Request("GET", "http://127.0.0.1:9/mcp")
    return httpx2.HTTPStatusError(
        "bad", request=request, response=httpx2.Response(status, request=request)
    )


@pytest.mark.parametrize(
    ("stdio", "raised", "text"),
    [
        (True, FileNotFoundError("srv"), "command 'srv' not found"),
        (False, FileNotFoundError("srv"), "FileNotFoundError: srv"),
        (False, _status_error(401), "HTTP 401 from http://127.0.0.1:9/mcp"),
        (
            False,
            httpx2.ConnectError("refused"),
            "cannot connect to http://127.0.0.1:9/mcp: refused",
        ),
        (True, httpx2.ConnectError("refused"), "ConnectError: refused"),
        (
            False,
            MCPError(code=mcp.CONNECTION_CLOSED, message="x"),
            "the server closed the connection",
        ),
        (False, MCPError(code=-32602, message="x"), "MCPError: x"),
        (
            False,
            ExceptionGroup("g", [ExceptionGroup("h", [ExceptionGroup("i", [ValueError("deep")])])]),
            "ValueError: deep",
        ),
        (False, ValueError(), "ValueError"),
    ],
)
def test_each_failure_of_a_server_is_described_by_what_went_wrong(
    stdio: bool, raised: BaseException, text: str
) -> None:
    from pi_sdk_mcp import StdioServer

    config = (
        StdioServer(name="s", command="srv")
        if stdio
        else HttpServer(name="s", url="http://127.0.0.1:9/mcp")
    )
    connection = ServerConnection(config, sampler=None, on_change=lambda c: None)
    assert connection._describe(raised) == text  # noqa: SLF001


class _Pages:
    """A client whose ``tools/list`` has ``pages`` pages (``None``: a cursor that never ends)."""

    def __init__(self, pages: int | None) -> None:
        self.pages = pages
        self.cursors: list[str | None] = []

    async def list_tools(self, *, cursor: str | None) -> Any:
        self.cursors.append(cursor)
        index = len(self.cursors)
        last = self.pages is not None and index >= self.pages
        tool = mcp.Tool(name=f"t{index}", input_schema={"type": "object"})
        return mcp.ListToolsResult(tools=[tool], next_cursor=None if last else f"c{index}")


@pytest.mark.parametrize(("pages", "read"), [(1, 1), (3, 3), (None, 100)])
async def test_tool_pages_are_read_by_cursor_up_to_a_hundred(pages: int | None, read: int):
    from pi_sdk_mcp._connection import _list_tools

    client = _Pages(pages)
    tools = await _list_tools(client)  # type: ignore[arg-type]
    assert [t.name for t in tools] == [f"t{n}" for n in range(1, read + 1)]
    assert client.cursors == [None, *(f"c{n}" for n in range(1, read))]


async def test_a_call_ends_at_its_answer_or_at_the_abort() -> None:
    from pi_sdk_mcp._connection import _until_done_or_aborted

    from pi_sdk import AbortController

    loop = asyncio.get_running_loop()
    answered = loop.create_future()
    answered.set_result(1)
    assert await _until_done_or_aborted(answered, None) is False
    assert await _until_done_or_aborted(answered, AbortController().signal) is False
    controller = AbortController()
    controller.abort()
    assert await _until_done_or_aborted(loop.create_future(), controller.signal) is True
    pending = loop.create_future()
    controller = AbortController()
    loop.call_soon(controller.abort)
    assert await _until_done_or_aborted(pending, controller.signal) is True
    assert not pending.done()  # the caller cancels it


async def test_a_call_to_a_server_not_ready_or_a_tool_it_dropped_is_refused() -> None:
    connection, _ = _connection()
    with pytest.raises(McpServerError) as caught:
        await connection.call("query", {})
    assert str(caught.value) == "MCP server 'db' is not running (stopped)"
    connection.state = "ready"
    connection._client = object()  # noqa: SLF001 - a client is held
    connection.tools = [mcp.Tool(name="other", input_schema={"type": "object"})]
    with pytest.raises(McpServerError) as caught:
        await connection.call("query", {})
    assert str(caught.value) == "MCP server 'db' no longer offers the tool 'query'"
    connection.tools.append(mcp.Tool(name="query", input_schema={"type": "object"}))
    with pytest.raises(McpServerError) as caught:
        await connection.call("query", {})  # offered: the call goes to the (stand-in) client
    assert str(caught.value).startswith("MCP server 'db': the call to 'query' failed: ")
