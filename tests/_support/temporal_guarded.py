"""An AgentWorkflow subclass with a ``before_tool_call`` (shared with the sandbox)."""

from __future__ import annotations

from pi_sdk_temporal import AgentRunInput, AgentRunResult, AgentWorkflow
from temporalio import workflow

from pi_sdk import Agent, BeforeToolCallContext, BeforeToolCallResult


def refuse_weather(context: BeforeToolCallContext, signal: object) -> BeforeToolCallResult | None:
    if context.tool_call.name == "weather":
        return BeforeToolCallResult(
            block=True, reason=f"no weather for {context.tool_call.arguments['city']}"
        )
    return None


@workflow.defn(name="GuardedAgent")
class GuardedAgent(AgentWorkflow):
    """The durable agent, its tool calls checked by :func:`refuse_weather` first."""

    @workflow.run
    async def run(self, input: AgentRunInput) -> AgentRunResult:  # noqa: A002
        return await super().run(input)

    def configure_agent(self, agent: Agent) -> None:
        agent.before_tool_call = refuse_weather
