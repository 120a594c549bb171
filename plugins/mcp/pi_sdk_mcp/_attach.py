"""An Agent that keeps the MCP servers' current tools: ``McpServers.attach(agent)``.

The Agent takes its tool list when a run starts (docs/agent.md: a run works on a snapshot).
Attaching does three things so that a change reaches the next model request:

* now: ``agent.tools`` becomes the agent's own tools followed by the servers' tools (the own
  tools' names are reserved, so an MCP tool never takes one);
* on every change of the tool set (a list change, a server that died): ``agent.tools`` is
  rebuilt, for the next run;
* during a run: ``agent.after_tool_call`` is wrapped (the previous callable still runs first,
  and its answer is returned). After each tool call it waits for announced list changes to be
  listed (:meth:`~pi_sdk_mcp.McpServers.sync`) and updates the run's own tool list, so the
  next model request of the same run already offers the new tools and no longer offers the
  tools of a server that died. A server tells of a change before it answers the call that made
  it (same stream), so a tool that adds tools is followed by a request that has them.

Assigning ``agent.after_tool_call`` later replaces the wrapper (the tools still change between
runs). The returned ``detach()`` restores the previous callable and removes the MCP tools.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING

from pi_sdk import AbortSignal, AfterToolCallContext, AfterToolCallResult, AgentTool

if TYPE_CHECKING:
    from pi_sdk import Agent

    from ._servers import McpServers

__all__ = ["attach"]


def attach(servers: McpServers, agent: Agent) -> Callable[[], None]:
    """Offer ``servers``' tools to ``agent`` and keep them current.

    Returns:
        ``detach()``: stop updating, restore ``after_tool_call``, remove the MCP tools.
    """
    servers.reserve(t.name for t in agent.tools if not servers.owns(t))
    agent.tools = _merged(list(agent.tools), servers)
    previous = agent.after_tool_call

    async def after_tool_call(
        context: AfterToolCallContext, signal: AbortSignal
    ) -> AfterToolCallResult | None:
        answer = previous(context, signal) if previous is not None else None
        if inspect.isawaitable(answer):
            answer = await answer
        await servers.sync()
        tools = context.context.tools
        tools[:] = _merged(tools, servers)  # the run's list: read again for its next request
        return answer

    agent.after_tool_call = after_tool_call
    unsubscribe = servers.subscribe(lambda _tools: _refresh(agent, servers))

    def detach() -> None:
        unsubscribe()
        if agent.after_tool_call is after_tool_call:
            agent.after_tool_call = previous
        agent.tools = [t for t in agent.tools if not servers.owns(t)]

    return detach


def _refresh(agent: Agent, servers: McpServers) -> None:
    agent.tools = _merged(list(agent.tools), servers)


def _merged(tools: list[AgentTool], servers: McpServers) -> list[AgentTool]:
    """``tools`` without ``servers``' old tools, followed by their current ones."""
    return [*(t for t in tools if not servers.owns(t)), *servers.tools]
