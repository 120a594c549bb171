"""Starting, failing, timing out and stopping MCP servers; ``attach`` and ``detach``."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path

import pytest
from _support.mcp_servers import EdgeProcess, edge_stdio, log_lines, time_server
from pi_sdk_mcp import HttpServer, McpServerError, McpServers, StdioServer, Timeouts

from pi_sdk import AbortController, Agent, AgentToolResult, ConfigurationError, tool
from pi_sdk.testing import ScriptedProvider, ScriptedReply

SECRET = "tok-9f8e7d6c5b4a"


def signal():  # noqa: ANN201
    return AbortController().signal


def ignore(_partial: AgentToolResult) -> None:
    pass


async def gone(pid: int) -> bool:
    for _ in range(250):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        await asyncio.sleep(0.02)
    return False


async def test_servers_that_fail_to_start_are_reported_by_name_and_the_others_work(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    pid_file = tmp_path / "pid"
    sleeper = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(60)"
    crasher = f"import sys; print('bad token {SECRET}', file=sys.stderr); sys.exit(2)"
    servers = McpServers(
        [
            StdioServer(name="missing", command="no-such-mcp-server-here"),
            StdioServer(
                name="exits", command=sys.executable, args=("-c", crasher), env={"MY_TOKEN": SECRET}
            ),
            StdioServer(
                name="silent",
                command=sys.executable,
                args=("-c", sleeper, str(pid_file)),
                timeouts=Timeouts(startup_ms=1500),
            ),
            HttpServer(
                name="nowhere",
                url="http://127.0.0.1:9/mcp",
                headers={"Authorization": f"Bearer {SECRET}"},
            ),
            time_server(),
        ]  # fmt: skip
    )
    with caplog.at_level(logging.WARNING, logger="pi_sdk_mcp"):
        async with servers:
            statuses = {s.name: s for s in servers.statuses}
            assert [t.name for t in servers.tools] == ["get_current_time", "convert_time"]
        pid = int(pid_file.read_text())

    assert [s.state for s in statuses.values()] == ["failed"] * 4 + ["ready"]
    assert statuses["missing"].error == "command 'no-such-mcp-server-here' not found"
    assert statuses["exits"].error == (
        "the server closed the connection\nstderr:\nbad token [REDACTED]"
    )
    assert statuses["silent"].error == "did not start within 1.5 s"
    assert (statuses["nowhere"].error or "").startswith("cannot connect to http://127.0.0.1:9/mcp")
    assert await gone(pid), "the server that never answered was left running"
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "MCP server 'missing' failed" in logged and "MCP server 'silent' failed" in logged
    assert SECRET not in logged and all(SECRET not in (s.error or "") for s in statuses.values())


async def test_a_call_past_its_timeout_is_cancelled_on_the_server(edge_log: Path):
    config = edge_stdio(edge_log, timeouts=Timeouts(call_ms=400))
    async with McpServers([config]) as servers:
        slow = next(t for t in servers.tools if t.name == "slow")
        with pytest.raises(McpServerError) as caught:
            await slow.execute("c1", {"seconds": 30, "tag": "late"}, signal(), ignore)
        for _ in range(500):
            if "cancelled late" in log_lines(edge_log):
                break
            await asyncio.sleep(0.02)
        echo = next(t for t in servers.tools if t.name == "echo")
        answer = await echo.execute("c2", {"text": "still here"}, signal(), ignore)
    assert str(caught.value) == (
        "MCP server 'edge' did not answer the call to 'slow' within 0.4 s; the call was cancelled"
    )
    assert "cancelled late" in log_lines(edge_log)
    assert answer.content[0].text == "still here"  # type: ignore[union-attr]


async def test_a_tool_the_server_no_longer_offers_answers_with_an_error(edge_log: Path):
    async with McpServers([edge_stdio(edge_log)]) as servers:
        tools = {t.name: t for t in servers.tools}
        changed = asyncio.Event()
        servers.subscribe(lambda _tools: changed.set())
        await tools["shrink"].execute("c1", {"name": "echo"}, signal(), ignore)
        # A 2026-07-28 server announces the change on its listen stream, which may deliver it
        # after the call's result: wait for the announcement (a deadline, not a timing check).
        await asyncio.wait_for(changed.wait(), 20)
        await servers.sync()
        assert "echo" not in {t.name for t in servers.tools}
        with pytest.raises(
            McpServerError, match="MCP server 'edge' no longer offers the tool 'echo'"
        ):
            await tools["echo"].execute("c2", {"text": "x"}, signal(), ignore)


async def test_the_sse_transport_works(edge_log: Path):
    process = EdgeProcess(edge_log, kind="sse")
    try:
        async with McpServers([process.config()]) as servers:
            [status] = servers.statuses
            echo = next(t for t in servers.tools if t.name == "echo")
            answer = await echo.execute("c1", {"text": "over sse"}, signal(), ignore)
    finally:
        process.stop()
    assert status.transport == "sse" and status.state == "ready"
    assert answer.content[0].text == "over sse"  # type: ignore[union-attr]


async def test_attach_keeps_the_agents_own_tools_and_chains_its_hook(edge_log: Path):
    @tool
    def echo(text: str) -> str:
        """The agent's own echo.

        Args:
            text: Anything.
        """
        return f"own {text}"

    seen: list[str] = []

    def after(context, _signal):  # noqa: ANN001, ANN202
        seen.append(context.tool_call.name)

    provider = ScriptedProvider(
        [
            ScriptedReply.tool_call("echo", {"text": "a"}),
            ScriptedReply.tool_call("edge__echo", {"text": "b"}),
            "done",
        ]  # fmt: skip
    )
    async with McpServers([edge_stdio(edge_log)]) as servers:
        agent = Agent(model=provider.model, tools=[echo], after_tool_call=after)
        detach = servers.attach(agent)
        assert agent.tools[0] is echo and "edge__echo" in {t.name for t in agent.tools}
        await agent.prompt("echo twice")
        detach()
        assert list(agent.tools) == [echo] and agent.after_tool_call is after
    answers = [m.text for m in agent.messages if m.role == "toolResult"]  # type: ignore[union-attr]
    assert answers == ["own a", "b"]
    assert seen == ["echo", "edge__echo"]


def test_two_servers_with_one_name_are_refused():
    with pytest.raises(ConfigurationError, match="MCP server names must be unique: a"):
        McpServers([StdioServer(name="a", command="x"), StdioServer(name="a", command="y")])


async def test_stopped_servers_say_so_when_called(edge_log: Path):
    servers = McpServers([edge_stdio(edge_log, warm=False)])  # stopped as a cold one is
    async with servers:
        echo = next(t for t in servers.tools if t.name == "echo")
        assert repr(servers) == "McpServers(edge=ready)"
    assert servers.tools == [] and repr(servers) == "McpServers(edge=stopped)"
    with pytest.raises(McpServerError, match=r"MCP server 'edge' is not running \(stopped\)"):
        await echo.execute("c1", {"text": "x"}, signal(), ignore)
    async with servers:  # started again
        again = next(t for t in servers.tools if t.name == "echo")
        answer = await again.execute("c2", {"text": "back"}, signal(), ignore)
    assert answer.content[0].text == "back"  # type: ignore[union-attr]


async def test_http_headers_and_auth_reach_the_server(edge_http: EdgeProcess):
    import httpx2

    class Stamp(httpx2.Auth):
        """An auth flow (what the mcp SDK's OAuthClientProvider is) that sets a header."""

        def auth_flow(self, request: httpx2.Request):  # noqa: ANN201
            request.headers["X-Signed"] = "yes"
            yield request

    config = edge_http.config(headers={"X-Team": "blue"}, auth=Stamp())
    async with McpServers([config]) as servers:
        header = next(t for t in servers.tools if t.name == "header")
        team = await header.execute("c1", {"name": "X-Team"}, signal(), ignore)
        signed = await header.execute("c2", {"name": "X-Signed"}, signal(), ignore)
    assert team.content[0].text == "blue"  # type: ignore[union-attr]
    assert signed.content[0].text == "yes"  # type: ignore[union-attr]
