"""An Agent on the scripted provider calling real MCP servers (issue 30's "Done when").

Real servers: mcp-server-time and mcp-server-git from PyPI, and the edge server written with the
``mcp`` SDK's server API, over stdio and streamable HTTP on a loopback port.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from _support.mcp_servers import edge_stdio, git_server, log_lines, time_server
from pi_sdk_mcp import HttpServer, McpServers, StdioServer

import pi_sdk
from pi_sdk import Agent, AgentEvent, ToolCall, ToolResultMessage
from pi_sdk.testing import ScriptedProvider, ScriptedReply


def calls(*tool_calls: tuple[str, dict[str, object]]) -> ScriptedReply:
    """One assistant reply calling several tools at once."""
    return ScriptedReply(content=[ToolCall(id="", name=n, arguments=a) for n, a in tool_calls])


def results(agent: Agent) -> list[ToolResultMessage]:
    return [m for m in agent.messages if isinstance(m, ToolResultMessage)]


def offered(provider: ScriptedProvider, index: int) -> set[str]:
    """The tool names of the model call ``index``."""
    return {t.name for t in pi_sdk.current_tools(provider.calls[index].context)}


async def wait_for(condition, what: str, seconds: float = 20) -> None:  # noqa: ANN001
    """Poll ``condition()`` until it holds (a wait with a deadline, not a timing assertion)."""
    for _ in range(int(seconds / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


async def test_two_real_servers_are_called_in_parallel_and_the_results_reach_the_model(
    repository: Path,
):
    provider = ScriptedProvider(
        [
            calls(
                ("get_current_time", {"timezone": "Asia/Tokyo"}),
                ("git_status", {"repo_path": str(repository)}),
            ),
            "It is evening in Tokyo, and notes.txt is untracked.",
        ]
    )
    events: list[AgentEvent] = []
    async with McpServers([time_server(), git_server(repository)]) as servers:
        agent = Agent(model=provider.model)
        servers.attach(agent)
        agent.subscribe(events.append)
        await agent.prompt("What time is it in Tokyo, and what is uncommitted?")

    assert {"get_current_time", "convert_time", "git_status", "git_log"} <= offered(provider, 0)
    sent = [m for m in provider.calls[1].messages if isinstance(m, ToolResultMessage)]
    assert [m.tool_name for m in sent] == ["get_current_time", "git_status"]
    assert not any(m.is_error for m in sent)
    assert json.loads(sent[0].text)["timezone"] == "Asia/Tokyo"
    assert sent[0].details["structured_content"]["timezone"] == "Asia/Tokyo"
    assert "notes.txt" in sent[1].text and sent[1].details["server"] == "git"
    steps = [e.type for e in events if e.type in ("tool_execution_start", "tool_execution_end")]
    assert steps == ["tool_execution_start"] * 2 + ["tool_execution_end"] * 2  # parallel mode


@pytest.mark.slow  # two MCP servers, half-second calls
async def test_calls_to_two_servers_overlap_on_the_servers(edge_log: Path):
    """Each server notes when a call starts and finishes: both start before either finishes."""
    provider = ScriptedProvider(
        [
            calls(
                ("slow", {"seconds": 0.5, "tag": "a"}), ("two__slow", {"seconds": 0.5, "tag": "b"})
            ),
            "Both done.",
        ]
    )
    async with McpServers([edge_stdio(edge_log, "one"), edge_stdio(edge_log, "two")]) as servers:
        agent = Agent(model=provider.model)
        servers.attach(agent)
        await agent.prompt("work")
    assert [r.text for r in results(agent)] == ["a done", "b done"]
    lines = log_lines(edge_log)
    assert sorted(lines[:2]) == ["started a", "started b"]
    assert sorted(lines[2:]) == ["finished a", "finished b"]


async def test_abort_during_a_slow_tool_cancels_the_request_on_the_server(
    edge: StdioServer | HttpServer, edge_log: Path
):
    provider = ScriptedProvider([ScriptedReply.tool_call("slow", {"seconds": 60, "tag": "slow-1"})])
    updates: list[str] = []

    def listener(event: AgentEvent) -> None:
        if event.type == "tool_execution_update":
            updates.append(event.partial_result.content[0].text)  # type: ignore[union-attr]

    async with McpServers([edge]) as servers:
        agent = Agent(model=provider.model)
        servers.attach(agent)
        agent.subscribe(listener)
        run = asyncio.create_task(agent.prompt("work for a minute"))
        await wait_for(lambda: len(updates) >= 2, "progress updates")
        agent.abort()
        await asyncio.wait_for(run, 30)
        await wait_for(lambda: "cancelled slow-1" in log_lines(edge_log), "the server's cancel")
        assert servers.statuses[0].state == "ready"  # the server still runs: it was told

    [result] = results(agent)
    assert result.is_error
    assert result.text == (
        "the call to 'slow' on MCP server 'edge' was cancelled: the run was aborted"
    )  # the tool's own answer: it stopped before the grace period ran out
    assert agent.messages[-1].stop_reason == "aborted"
    assert updates[:2] == ["slow-1 step 1 (1/1200)", "slow-1 step 2 (2/1200)"]
    assert "finished slow-1" not in log_lines(edge_log)


@pytest.mark.cold_server  # the server process's own end, as a reader's program starts it
async def test_a_server_killed_mid_call_gives_an_error_naming_it_and_its_tools_go(
    edge: StdioServer | HttpServer,
):
    provider = ScriptedProvider([ScriptedReply.tool_call("crash"), "The edge server is gone."])
    async with McpServers([edge, time_server()]) as servers:
        agent = Agent(model=provider.model)
        servers.attach(agent)
        await agent.prompt("crash it")
        status = servers.statuses[0]
        assert [t.server for t in agent.tools] == ["time", "time"]  # the next run too

    [result] = results(agent)
    assert result.is_error
    assert result.text.startswith("MCP server 'edge' stopped during the call to 'crash'")
    assert "crash" in offered(provider, 0) and "get_current_time" in offered(provider, 0)
    assert offered(provider, 1) == {"get_current_time", "convert_time"}  # the next turn
    assert agent.messages[-1].stop_reason == "stop"  # the agent kept running
    assert status.state == "failed" and status.tools == []
    if isinstance(edge, StdioServer):  # its stderr is quoted
        assert "edge server: crashing on purpose" in (status.error or "")


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
async def test_a_tool_that_adds_tools_is_followed_by_a_request_that_offers_them(
    edge_log: Path, protocol: str
):
    """Over stdio the server's change notification precedes the call's result on the pipe."""
    provider = ScriptedProvider(
        [
            ScriptedReply.tool_call("grow", {"name": "extra"}),
            ScriptedReply.tool_call("extra", {"text": "hi"}),
            "Done.",
            ScriptedReply.tool_call("shrink", {"name": "extra"}),
            "Removed.",
        ]
    )
    async with McpServers([edge_stdio(edge_log, protocol=protocol)]) as servers:
        agent = Agent(model=provider.model)
        servers.attach(agent)
        await agent.prompt("grow a tool and use it")
        assert "extra" in {t.name for t in agent.tools}  # for the next run as well
        await agent.prompt("remove it")

    assert "extra" not in offered(provider, 0)
    assert "extra" in offered(provider, 1) and "extra" in offered(provider, 3)
    assert "extra" not in offered(provider, 4)
    assert [r.text for r in results(agent)] == ["added extra", "extra: hi", "removed extra"]


async def test_a_list_change_between_runs_over_http_reaches_the_next_request(edge_http):
    """Over HTTP the notification has its own stream: it is applied once it arrives."""
    grow = ScriptedReply.tool_call("grow", {"name": "late"})
    use = ScriptedReply.tool_call("late", {"text": "yo"})
    provider = ScriptedProvider([grow, "Grown.", use, "Used."])
    async with McpServers([edge_http.config()]) as servers:
        agent = Agent(model=provider.model)
        servers.attach(agent)
        await agent.prompt("grow")
        await wait_for(lambda: "late" in {t.name for t in agent.tools}, "the list change")
        await agent.prompt("use it")
    assert "late" not in offered(provider, 0) and "late" in offered(provider, 2)
    assert results(agent)[-1].text == "late: yo"


async def test_results_map_structured_content_images_and_other_media(
    edge: StdioServer | HttpServer,
):
    provider = ScriptedProvider(
        [
            calls(
                ("weather", {"city": "Oslo"}),
                ("weather_json_only", {"city": "Oslo"}),
                ("picture", {}),
                ("media", {}),
                ("fail", {"reason": "no such city"}),
            ),
            "ok",
        ]  # fmt: skip
    )
    async with McpServers([edge]) as servers:
        agent = Agent(model=provider.model)
        servers.attach(agent)
        await agent.prompt("show me everything")

    weather, plain, picture, media, failed = results(agent)
    assert json.loads(weather.text) == {"city": "Oslo", "celsius": 21.5}
    assert weather.details["structured_content"] == {"city": "Oslo", "celsius": 21.5}
    assert json.loads(plain.text) == {"city": "Oslo", "celsius": 21.5}
    assert "structured_content" not in plain.details
    assert [b.type for b in picture.content] == ["image"]
    assert picture.content[0].mime_type == "image/png"  # type: ignore[union-attr]
    assert [b.type for b in media.content] == ["text", "text", "image", "text", "text"]
    assert media.content[0].text == "[audio: audio/wav, 64 bytes, not shown]"  # type: ignore[union-attr]
    assert media.content[1].text == "[resource file:///notes.txt (text/plain)]\nremember the milk"  # type: ignore[union-attr]
    assert [u["type"] for u in media.details["unseen"]] == ["audio", "resource", "resource_link"]
    assert failed.is_error and "no such city" in failed.text
    assert not any(r.is_error for r in (weather, plain, picture, media))


async def test_sampling_is_answered_by_the_chosen_model_when_the_server_may_sample(edge_log: Path):
    sampler = ScriptedProvider(["Paris is large and old."])
    provider = ScriptedProvider([ScriptedReply.tool_call("summarize", {"text": "Paris..."}), "ok"])
    config = edge_stdio(edge_log, allow_sampling=True)
    async with McpServers([config], sampling_model=sampler.model) as servers:
        agent = Agent(model=provider.model)
        servers.attach(agent)
        await agent.prompt("summarize Paris")

    [result] = results(agent)
    assert result.text == "summary: Paris is large and old." and not result.is_error
    [sampled] = sampler.calls
    assert sampled.context.system_prompt == "Answer in five words."
    assert [m.text for m in sampled.messages] == ["Summarize: Paris..."]  # type: ignore[union-attr]
    assert sampled.options.max_tokens == 64


@pytest.mark.parametrize("allowed, with_model", [(False, True), (True, False)])
async def test_sampling_is_off_unless_both_the_model_and_the_server_switch_say_so(
    edge_log: Path, allowed: bool, with_model: bool
):
    sampler = ScriptedProvider(["never used"])
    provider = ScriptedProvider([ScriptedReply.tool_call("summarize", {"text": "x"}), "ok"])
    config = edge_stdio(edge_log, allow_sampling=allowed)
    model = sampler.model if with_model else None
    async with McpServers([config], sampling_model=model) as servers:
        agent = Agent(model=provider.model)
        servers.attach(agent)
        await agent.prompt("summarize")
    [result] = results(agent)
    assert result.is_error and "MCP server 'edge'" in result.text
    assert sampler.calls == []
