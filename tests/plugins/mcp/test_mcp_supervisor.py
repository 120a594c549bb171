"""A server connection's supervisor in process: the ``mcp`` SDK connected to an in-memory server.

``open_transport`` is replaced by an ``MCPServer`` (the SDK's ``Client`` connects to one in
process), so no subprocess runs: a server that dies after it was ready reports the change once
and refuses calls naming why; a stop waits for the supervisor, then cancels one that does not
end; a listed tool is called and a tool-list change lists again, while a failed or timed-out
relisting keeps the tools it had and warns (secrets redacted).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer
from pi_sdk_mcp import HttpServer, McpServerError, Timeouts
from pi_sdk_mcp import _connection as connection_module
from pi_sdk_mcp._connection import ServerConnection


def _server() -> MCPServer:
    server = MCPServer("memory", version="1.0")

    @server.tool()
    def echo(text: str) -> str:
        """Say it back."""
        return text

    return server


@pytest.fixture
def changes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[str]]]:
    server = _server()
    monkeypatch.setattr(connection_module, "open_transport", lambda config, stderr: server)
    return []


def _connection(changes: list[tuple[str, list[str]]], **options: Any) -> ServerConnection:
    def on_change(connection: ServerConnection) -> None:
        changes.append((connection.state, [t.name for t in connection.tools]))

    config = HttpServer(name="mem", url="http://127.0.0.1:9/mcp", **options)
    return ServerConnection(config, sampler=None, on_change=on_change)


async def test_a_listed_tool_is_called_and_a_stop_ends_the_connection(
    changes: list[tuple[str, list[str]]],
) -> None:
    connection = _connection(changes)
    await connection.start()
    assert (connection.state, [t.name for t in connection.tools]) == ("ready", ["echo"])
    result = await connection.call("echo", {"text": "hi"})
    assert (result.is_error, result.content[0].text) == (False, "hi")  # type: ignore[union-attr]
    await connection.stop()
    assert (connection.state, connection.tools, changes) == ("stopped", [], [])
    with pytest.raises(McpServerError, match=r"^MCP server 'mem' is not running \(stopped\)$"):
        await connection.call("echo", {"text": "hi"})


async def test_a_tool_list_change_lists_again_and_reports_the_new_tools(
    changes: list[tuple[str, list[str]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    connection = _connection(changes)
    await connection.start()
    listed: list[Any] = []
    relist = connection_module._list_tools  # noqa: SLF001

    async def counting(client: Any) -> Any:
        listed.append(client)
        return [*(await relist(client)), *(await relist(client))]  # "two" tools now

    monkeypatch.setattr(connection_module, "_list_tools", counting)
    connection.mark_stale()
    await connection.settled()
    assert len(listed) == 1
    assert changes == [("ready", ["echo", "echo"])]
    await connection.stop()


async def test_a_server_that_dies_after_it_was_ready_reports_it_once_and_refuses_calls(
    changes: list[tuple[str, list[str]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    dying = asyncio.Event()

    async def serve(self: ServerConnection, client: Any) -> None:
        await dying.wait()
        raise ConnectionResetError("peer went away")

    monkeypatch.setattr(ServerConnection, "_serve", serve)
    connection = _connection(changes)
    await connection.start()
    assert connection.state == "ready"
    task = connection._task  # noqa: SLF001
    dying.set()
    assert task is not None
    await asyncio.wait({task}, timeout=10)
    assert changes == [("failed", [])]
    assert connection.error == "ConnectionResetError: peer went away"
    with pytest.raises(McpServerError) as caught:
        await connection.call("echo", {"text": "hi"})
    assert str(caught.value) == (
        "MCP server 'mem' is not running: ConnectionResetError: peer went away"
    )
    await connection.stop()
    assert (connection.state, changes) == ("failed", [("failed", [])])  # a stop keeps the why


async def test_a_server_that_fails_while_stopping_is_not_a_failure(
    changes: list[tuple[str, list[str]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    async def serve(self: ServerConnection, client: Any) -> None:
        await self._wake.wait()  # noqa: SLF001 - the stop's wake-up
        raise ConnectionResetError("closed under the stop")

    monkeypatch.setattr(ServerConnection, "_serve", serve)
    connection = _connection(changes)
    await connection.start()
    await connection.stop()
    assert (connection.state, connection.error, changes) == ("stopped", None, [])


async def test_a_stop_cancels_a_supervisor_that_does_not_end_in_time(
    changes: list[tuple[str, list[str]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    cancelled: list[bool] = []

    async def serve(self: ServerConnection, client: Any) -> None:
        try:
            await asyncio.Event().wait()  # deaf to the stop's wake-up
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    monkeypatch.setattr(ServerConnection, "_serve", serve)
    monkeypatch.setattr(connection_module, "_STOP_WAIT_S", 0.05)
    connection = _connection(changes)
    await connection.start()
    task = connection._task  # noqa: SLF001
    await connection.stop()
    assert task is not None and task.done()
    assert cancelled == [True]
    assert (connection.state, connection._task) == ("stopped", None)  # noqa: SLF001


SECRET = "sk-header-secret-0123456789"


@pytest.mark.parametrize(
    ("how", "logged"),
    [
        ("raises", "RuntimeError: boom with [REDACTED]"),
        ("hangs", "TimeoutError"),  # past the list timeout
    ],
)
async def test_a_failed_relisting_keeps_the_tools_and_warns_with_secrets_redacted(
    changes: list[tuple[str, list[str]]],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    how: str,
    logged: str,
) -> None:
    connection = _connection(
        changes, headers={"Authorization": SECRET}, timeouts=Timeouts(list_ms=50)
    )
    await connection.start()

    async def failing(client: Any) -> Any:
        if how == "hangs":
            await asyncio.Event().wait()
        raise RuntimeError(f"boom with {SECRET}")

    monkeypatch.setattr(connection_module, "_list_tools", failing)
    with caplog.at_level("WARNING", logger="pi_sdk_mcp"):
        connection.mark_stale()
        await asyncio.wait_for(connection._settled.wait(), 10)  # noqa: SLF001 - relisting over
    assert [t.name for t in connection.tools] == ["echo"] and changes == []
    assert connection.state == "ready"
    assert [r.getMessage() for r in caplog.records] == [
        f"MCP server 'mem': listing its tools again failed: {logged}"
    ]
    await connection.stop()


async def test_a_server_lost_during_a_call_is_closed_at_once_and_stays_failed(
    changes: list[tuple[str, list[str]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loss ends the supervisor by itself (its client closed, no relisting, no retry): the
    connection stays failed with the reason until a stop, which keeps the reason."""
    connection = _connection(changes)
    await connection.start()
    task = connection._task  # noqa: SLF001
    listed: list[Any] = []

    async def lost(*args: Any) -> Any:
        raise ConnectionResetError("peer went away")

    async def listing(client: Any) -> Any:
        listed.append(client)
        return []

    monkeypatch.setattr(ServerConnection, "_call", lost)
    monkeypatch.setattr(connection_module, "_list_tools", listing)
    with pytest.raises(McpServerError) as caught:
        await connection.call("echo", {"text": "hi"})
    reason = "ConnectionResetError: peer went away during a call to 'echo'"
    assert str(caught.value) == f"MCP server 'mem' stopped during the call to 'echo': {reason}"
    assert task is not None
    await asyncio.wait({task}, timeout=10)  # a safety net: it ends at once
    assert task.done() and connection._client is None  # noqa: SLF001
    connection.mark_stale()  # a late list change: nobody lists for a failed server
    await connection.settled()
    assert (connection.state, connection.error, listed) == ("failed", reason, [])
    assert changes == [("failed", [])]
    with pytest.raises(McpServerError, match=r"^MCP server 'mem' is not running: Connection"):
        await connection.call("echo", {"text": "hi"})
    await connection.stop()
    assert (connection.state, connection.error, changes) == ("failed", reason, [("failed", [])])


async def test_a_server_that_answers_after_its_start_timeout_stays_failed_and_is_closed(
    changes: list[tuple[str, list[str]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A supervisor deaf to the start timeout's cancellation lists its tools late: the
    connection keeps the timeout's failure, offers no tools and closes its client."""
    relist = connection_module._list_tools  # noqa: SLF001
    late = asyncio.Event()

    async def deaf(client: Any) -> Any:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            await late.wait()
        return await relist(client)

    monkeypatch.setattr(connection_module, "_list_tools", deaf)
    monkeypatch.setattr(connection_module, "_STOP_WAIT_S", 0.01)
    connection = _connection(changes, timeouts=Timeouts(startup_ms=20))
    await connection.start()
    task = connection._task  # noqa: SLF001
    assert task is not None and not task.done()
    late.set()
    await asyncio.wait({task}, timeout=10)
    assert task.done() and connection._client is None  # noqa: SLF001
    assert (connection.state, connection.error, connection.tools, changes) == (
        "failed",
        "did not start within 0.02 s",
        [],
        [],
    )
    await connection.stop()
    assert (connection.state, connection.error) == ("failed", "did not start within 0.02 s")
