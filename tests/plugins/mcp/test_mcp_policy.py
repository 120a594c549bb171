"""MCP tool annotations drive pi-sdk-tool-policy rules (mcp-server-git's real annotations)."""

from __future__ import annotations

from pathlib import Path

from _support.mcp_servers import git_server
from pi_sdk_mcp import McpServers
from pi_sdk_tool_policy import Rule, ToolPolicy

from pi_sdk import Agent, ToolCall, ToolResultMessage
from pi_sdk.testing import ScriptedProvider, ScriptedReply


async def test_destructive_mcp_tools_need_approval_and_read_only_ones_run(repository: Path):
    asked: list[str] = []

    async def approver(request) -> bool:  # noqa: ANN001
        asked.append(request.tool_name)
        return False

    policy = ToolPolicy(
        [
            Rule(action="ask", annotations={"destructiveHint": True}, reason="it changes the repo"),
            Rule(action="allow", annotations={"readOnlyHint": True}),
            Rule(action="deny"),
        ],  # fmt: skip
        approver=approver,
    )
    repo = str(repository)
    provider = ScriptedProvider(
        [
            ScriptedReply(
                content=[
                    ToolCall(id="", name="git_status", arguments={"repo_path": repo}),
                    ToolCall(id="", name="git_reset", arguments={"repo_path": repo}),
                    ToolCall(id="", name="git_add", arguments={"repo_path": repo, "files": ["x"]}),
                ]
            ),  # fmt: skip
            "ok",
        ]
    )
    async with McpServers([git_server(repository)]) as servers:
        tools = {t.name: t for t in servers.tools}
        agent = Agent(model=provider.model, before_tool_call=policy.before_tool_call)
        servers.attach(agent)
        await agent.prompt("tidy up the repo")

    assert tools["git_reset"].annotations["destructiveHint"] is True
    add_hints = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True}
    assert tools["git_add"].annotations == {**add_hints, "openWorldHint": False}
    status, reset, add = (m for m in agent.messages if isinstance(m, ToolResultMessage))
    assert not status.is_error and "notes.txt" in status.text
    assert reset.is_error and reset.text == (
        "Tool call 'git_reset' needs approval (rule 0 (ask *)): it changes the repo;"
        " approval was refused"
    )
    assert add.is_error and add.text.startswith("Tool call 'git_add' denied by policy (rule 2")
    assert asked == ["git_reset"]
