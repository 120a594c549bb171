"""The agent's prompt and tools as the transcript declares them (pi-agent-core 1.6).

In pi-agent-core 1.6 the transcript owns the system prompt and the tools: a leading
:class:`~pi_sdk.SystemMessage` declares them, and before each request the difference between
the tools the agent can run and the tools the transcript declares is announced in a system
message (``tools_added`` / ``tools_removed``), so the model learns of a change where it
happened and the cached prefix before it stays valid.

pi-sdk's agent keeps its prompt and its first tools as the context shorthand
(``AgentContext.system_prompt`` / ``declared_tools``), folded into the leading system message
of every request, unless the transcript starts with a system message of its own (a pi 1.6
transcript), which then wins: a transcript pi-sdk wrote stays as it was (no new first
message). Changes after that are system messages in the transcript, as in 1.6.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pi_sdk._wire.transcript import current_tools, tool_state_changes
from pi_sdk.types import SystemMessage, Tool

if TYPE_CHECKING:
    from pi_sdk._wire.agent_types import AgentMessage

__all__ = ["declared_tools", "shorthand", "tool_change_message"]


def shorthand(
    messages: Sequence[AgentMessage], system_prompt: str, tools: Sequence[Tool]
) -> tuple[str | None, list[Tool] | None]:
    """``(system_prompt, tools)`` to fold before ``messages`` in a request (``None``: none).

    A transcript that starts with a system message declares its own prompt and tools: then
    neither is folded (pi-agent-core 1.6 ``initialState``).
    """
    if messages and isinstance(messages[0], SystemMessage):
        return None, None
    return system_prompt or None, list(tools) or None


def declared_tools(messages: Sequence[AgentMessage], baseline: Sequence[Tool]) -> list[Tool]:
    """The tools the transcript declares: ``baseline`` (the shorthand's) then every change."""
    system = [m for m in messages if isinstance(m, SystemMessage)]
    if baseline and not (system and system[0] is messages[0]):
        system.insert(0, SystemMessage(tools_added=list(baseline), timestamp=0))
    return current_tools(system)


def tool_change_message(
    messages: Sequence[AgentMessage], baseline: Sequence[Tool], executable: Sequence[Tool]
) -> SystemMessage | None:
    """The system message announcing how ``executable`` differs from what is declared.

    ``None`` when they declare the same tools (name, description, parameters). A changed
    definition is a removal and an addition (pi-agent-core 1.6 ``declareToolChanges``).
    """
    added, removed = tool_state_changes(declared_tools(messages, baseline), executable)
    if not added and not removed:
        return None
    return SystemMessage(tools_added=added or None, tools_removed=removed or None)
