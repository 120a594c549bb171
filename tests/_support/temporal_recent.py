"""An AgentWorkflow subclass that sends the model the prompt and the last three turns only.

What a real thousand-turn agent does (compaction, a sliding window): the context stays small
while the transcript grows. Shared with the workflow sandbox (``passthrough_modules``).
"""

from __future__ import annotations

from typing import Any

from pi_sdk_temporal import AgentRunInput, AgentRunResult, AgentWorkflow
from temporalio import workflow

from pi_sdk import Agent

KEEP_TURNS = 3


def recent(messages: list[Any], signal: object) -> list[Any]:
    """The first message and everything from the third-last assistant message on."""
    starts = [i for i, m in enumerate(messages) if m.role == "assistant"]
    if len(starts) <= KEEP_TURNS:
        return messages
    return [messages[0], *messages[starts[-KEEP_TURNS] :]]


@workflow.defn(name="RecentContextAgent")
class RecentContextAgent(AgentWorkflow):
    """The durable agent whose model calls see only :func:`recent`'s messages; the
    transcript keeps every turn."""

    @workflow.run
    async def run(self, input: AgentRunInput) -> AgentRunResult:  # noqa: A002
        return await super().run(input)

    def configure_agent(self, agent: Agent) -> None:
        agent.transform_context = recent
