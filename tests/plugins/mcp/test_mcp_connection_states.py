"""A connection's states: refused calls while starting, a listen stream only when announced.

The connection is ready only once its tools are listed; until then a call names the state
instead of looking the tool up in a list that is still empty. A ``subscriptions/listen`` stream
is opened only to a server whose tools capability announces list changes.
"""

from __future__ import annotations

import asyncio
from typing import Any

import mcp
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from pi_sdk_mcp import HttpServer, McpServerError
from pi_sdk_mcp import _connection as connection_module
from pi_sdk_mcp._connection import ServerConnection


async def test_a_call_while_the_tools_are_being_listed_is_refused_as_starting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = MCPServer("memory", version="1.0")

    @server.tool()
    def echo(text: str) -> str:
        """Say it back."""
        return text

    monkeypatch.setattr(connection_module, "open_transport", lambda config, stderr: server)
    listing, listed = asyncio.Event(), asyncio.Event()
    list_tools = connection_module._list_tools  # noqa: SLF001

    async def slow(client: Any) -> Any:
        listing.set()
        await listed.wait()
        return await list_tools(client)

    monkeypatch.setattr(connection_module, "_list_tools", slow)
    config = HttpServer(name="mem", url="http://127.0.0.1:9/mcp")
    connection = ServerConnection(config, sampler=None, on_change=lambda _connection: None)
    starting = asyncio.ensure_future(connection.start())
    await asyncio.wait_for(listing.wait(), timeout=30)
    assert (connection.state, connection._client is not None) == ("starting", True)  # noqa: SLF001
    with pytest.raises(McpServerError) as caught:
        await connection.call("echo", {"text": "hi"})
    assert str(caught.value) == "MCP server 'mem' is not running (starting)"
    listed.set()
    await starting
    result = await connection.call("echo", {"text": "hi"})
    assert (connection.state, result.content[0].text) == ("ready", "hi")  # type: ignore[union-attr]
    await connection.stop()


@pytest.mark.parametrize(
    ("tools", "listens"),
    [
        (mcp.ToolsCapability(list_changed=True), True),
        (mcp.ToolsCapability(list_changed=False), False),
        (None, False),
    ],
    ids=["list-changed", "no-list-changed", "no-tools-capability"],
)
async def test_only_a_server_announcing_tool_list_changes_gets_a_listen_stream(
    monkeypatch: pytest.MonkeyPatch, tools: mcp.ToolsCapability | None, listens: bool
) -> None:
    """The capability the server declared decides; the connection is ready either way."""
    server = MCPServer("memory", version="1.0")

    @server.tool()
    def echo(text: str) -> str:
        """Say it back."""
        return text

    class DeclaringClient(Client):
        @property
        def server_capabilities(self) -> mcp.ServerCapabilities:
            declared = super().server_capabilities
            return declared.model_copy(update={"tools": tools})

    listened: list[bool] = []

    async def listen(self: ServerConnection, client: Any) -> None:
        listened.append(True)

    monkeypatch.setattr(connection_module, "open_transport", lambda config, stderr: server)
    monkeypatch.setattr(connection_module, "Client", DeclaringClient)
    monkeypatch.setattr(ServerConnection, "_listen", listen)
    config = HttpServer(name="mem", url="http://127.0.0.1:9/mcp")
    connection = ServerConnection(config, sampler=None, on_change=lambda _connection: None)
    await connection.start()
    await asyncio.sleep(0)  # the task group's first turn: a listen started would have run
    assert (connection.state, [t.name for t in connection.tools]) == ("ready", ["echo"])
    assert listened == ([True] if listens else [])
    await connection.stop()
