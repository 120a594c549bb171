"""An MCP tool call on Temporal: the worker holds the MCP servers, each call is an activity."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

from _support.mcp_servers import edge_stdio, log_lines, time_server
from pi_sdk_mcp import McpServers
from pi_sdk_temporal import (
    ActivitySettings,
    AgentRegistry,
    agent_worker,
    message_from_json,
    prompt_input,
    start_agent,
)

from pi_sdk import ToolResultMessage
from pi_sdk.testing import ScriptedProvider, ScriptedReply


async def test_an_mcp_tool_call_runs_as_an_activity_and_its_result_reaches_the_model(
    client, task_queue: str
) -> None:
    provider = ScriptedProvider(
        [ScriptedReply.tool_call("get_current_time", {"timezone": "Asia/Tokyo"}), "Evening."]
    )
    async with McpServers([time_server()]) as servers:
        registry = AgentRegistry(tools=servers.tools, models={"m": provider.model})
        async with agent_worker(client, task_queue=task_queue, registry=registry):
            run = await start_agent(
                client,
                prompt_input("m", "Time in Tokyo?", tools=["get_current_time"]),
                id=f"mcp-{uuid.uuid4().hex[:8]}",
                task_queue=task_queue,
            )
            result = await run.result()
    messages = [message_from_json(m) for m in result.messages]
    [tool_result] = [m for m in messages if isinstance(m, ToolResultMessage)]
    assert not tool_result.is_error and '"timezone": "Asia/Tokyo"' in tool_result.text
    assert tool_result.details["server"] == "time"
    assert provider.calls[1].messages[-1] == tool_result


async def test_aborting_the_run_cancels_the_mcp_call_on_the_server(
    client, task_queue: str, tmp_path: Path
) -> None:
    log = tmp_path / "edge.log"
    provider = ScriptedProvider([ScriptedReply.tool_call("slow", {"seconds": 60, "tag": "t1"})])
    async with McpServers([edge_stdio(log)]) as servers:
        registry = AgentRegistry(tools=servers.tools, models={"m": provider.model})
        async with agent_worker(client, task_queue=task_queue, registry=registry):
            run = await start_agent(
                client,
                # heartbeats every 0.5 s: the cancellation reaches the activity within the
                # workflow's 2 s grace (docs/plugins/mcp.md, "Temporal")
                prompt_input(
                    "m",
                    "work",
                    tools=["slow"],
                    activities=ActivitySettings(heartbeat_timeout_s=1.5),
                ),  # fmt: skip
                id=f"mcp-abort-{uuid.uuid4().hex[:8]}",
                task_queue=task_queue,
            )
            for _ in range(1000):
                if "started t1" in log_lines(log):
                    break
                await asyncio.sleep(0.02)
            await run.abort()
            result = await run.result()
            for _ in range(500):
                if "cancelled t1" in log_lines(log):
                    break
                await asyncio.sleep(0.02)
    assert result.aborted
    [tool_result] = [m for m in map(message_from_json, result.messages) if m.role == "toolResult"]
    assert tool_result.is_error and "was cancelled: the run was aborted" in tool_result.text  # type: ignore[union-attr]
    assert "cancelled t1" in log_lines(log) and "finished t1" not in log_lines(log)
