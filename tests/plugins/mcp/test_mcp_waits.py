"""How long a connection waits: 5 s for a server to stop, 5 s for a cancelled call, a listing.

A stop waits up to 5 s for the supervisor to end, then cancels it and waits up to 5 s more; an
aborted call is cancelled and given up to 5 s to send its cancellation; waiting for a pending
tool-list change to settle takes at most the list timeout, and none at all for a server that is
not running. The waits are read from the connection's ``asyncio.wait`` calls (a recording
stand-in for the module's ``asyncio``), so nothing here waits for seconds: a wait the scenario
needs to run out is cut to 20 ms.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer
from pi_sdk_mcp import HttpServer, McpServerError
from pi_sdk_mcp import _connection as connection_module
from pi_sdk_mcp._connection import ServerConnection

from pi_sdk import AbortController


class RecordedWaits:
    """``asyncio`` for the connection module; its ``wait`` records each timeout it is given."""

    def __init__(self, cut: bool) -> None:
        self.timeouts: list[float | None] = []
        self.cut = cut

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    async def wait(
        self, fs: Any, *, timeout: float | None = None, return_when: str = asyncio.ALL_COMPLETED
    ) -> Any:
        self.timeouts.append(timeout)
        if self.cut and timeout is not None:
            timeout = 0.02
        return await asyncio.wait(fs, timeout=timeout, return_when=return_when)


@pytest.fixture
def connection(monkeypatch: pytest.MonkeyPatch) -> ServerConnection:
    server = MCPServer("memory", version="1.0")

    @server.tool()
    def echo(text: str) -> str:
        """Say it back."""
        return text

    monkeypatch.setattr(connection_module, "open_transport", lambda config, stderr: server)
    config = HttpServer(name="mem", url="http://127.0.0.1:9/mcp")
    return ServerConnection(config, sampler=None, on_change=lambda _connection: None)


def _record(monkeypatch: pytest.MonkeyPatch, *, cut: bool) -> RecordedWaits:
    waits = RecordedWaits(cut)
    monkeypatch.setattr(connection_module, "asyncio", waits)
    return waits


async def test_a_stop_waits_5_s_for_the_supervisor(
    connection: ServerConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    await connection.start()
    waits = _record(monkeypatch, cut=False)
    await connection.stop()
    assert (waits.timeouts, connection.state) == ([5.0], "stopped")


async def test_a_supervisor_still_running_after_5_s_is_cancelled_and_given_5_s_more(
    connection: ServerConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    cancelled: list[bool] = []

    async def serve(self: ServerConnection, client: Any) -> None:
        try:
            await asyncio.Event().wait()  # deaf to the stop's wake-up
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    monkeypatch.setattr(ServerConnection, "_serve", serve)
    await connection.start()
    waits = _record(monkeypatch, cut=True)
    await connection.stop()
    assert (waits.timeouts, cancelled, connection.state) == ([5.0, 5.0], [True], "stopped")


async def test_an_aborted_call_is_given_5_s_to_unwind(
    connection: ServerConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    await connection.start()
    waits = _record(monkeypatch, cut=False)
    controller = AbortController()
    controller.abort()
    with pytest.raises(McpServerError) as caught:
        await connection.call("echo", {"text": "hi"}, signal=controller.signal)
    assert str(caught.value) == (
        "the call to 'echo' on MCP server 'mem' was cancelled: the run was aborted"
    )
    assert waits.timeouts == [5.0]
    monkeypatch.undo()
    await connection.stop()


async def test_settling_a_ready_server_waits_at_most_the_list_timeout(
    connection: ServerConnection, monkeypatch: pytest.MonkeyPatch
) -> None:
    await connection.start()
    waits = _record(monkeypatch, cut=False)
    connection.mark_stale()
    await connection.settled()
    assert waits.timeouts == [30.0]  # Timeouts.list_ms, 30,000 ms
    monkeypatch.undo()
    await connection.stop()


@pytest.mark.parametrize("stale", [True, False], ids=["a-change-waiting", "nothing-waiting"])
async def test_settling_a_stopped_server_returns_at_once(
    connection: ServerConnection, monkeypatch: pytest.MonkeyPatch, stale: bool
) -> None:
    """Nothing lists the tools of a server that is not running: there is nothing to wait for."""
    await connection.start()
    await connection.stop()
    if stale:
        connection.mark_stale()
    waits = _record(monkeypatch, cut=True)
    await connection.settled()
    assert (waits.timeouts, connection.state) == ([], "stopped")
