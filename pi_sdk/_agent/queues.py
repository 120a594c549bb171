"""The Agent's steering and follow-up queues: how much one poll takes, and the mode checks.

pi-agent-core's ``steeringMode`` / ``followUpMode``: ``"one-at-a-time"`` takes the oldest
queued message per poll, ``"all"`` takes every one. :func:`check_modes` refuses a mode setting
that is none of its names, when the Agent is built and again when each run starts (the
settings are public attributes a caller may change between runs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from pi_sdk._wire.choices import QueueMode, ToolExecutionMode, ToolSteering, check_choice

if TYPE_CHECKING:
    from pi_sdk._wire.agent_types import AgentMessage

__all__ = ["check_modes", "dequeue"]


class _Modes(Protocol):
    steering_mode: QueueMode
    follow_up_mode: QueueMode
    tool_execution: ToolExecutionMode
    tool_steering: ToolSteering


def check_modes(agent: _Modes) -> None:
    """Refuse a mode setting of ``agent`` that is none of its names.

    Raises:
        ValueError: ``steering_mode``, ``follow_up_mode``, ``tool_execution`` or
            ``tool_steering`` is wrong; the message names the setting and its valid values.
    """
    check_choice("steering_mode", agent.steering_mode, QueueMode)
    check_choice("follow_up_mode", agent.follow_up_mode, QueueMode)
    check_choice("tool_execution", agent.tool_execution, ToolExecutionMode)
    check_choice("tool_steering", agent.tool_steering, ToolSteering)


def dequeue(queue: list[AgentMessage], mode: QueueMode) -> list[AgentMessage]:
    """Take what one poll takes from ``queue``: every message (``"all"``) or the oldest."""
    if not queue:
        return []
    if mode == "all":
        taken = list(queue)
        queue.clear()
        return taken
    return [queue.pop(0)]
