"""The Agent's state: the transcript, the settings a run reads, and the current run's fields.

:class:`AgentState` is what ``agent.state`` returns (pi-mono ``AgentState``): the transcript and
the runtime fields (streaming, the message being streamed, pending tool calls, the last error)
are reduced from the run's events before any listener sees them. :class:`ActiveRun` is the
bookkeeping of one ``prompt()`` / ``continue_()``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import cast

from pi_sdk._agent.listeners import ListenerFailures
from pi_sdk._wire.abort import AbortController
from pi_sdk._wire.agent_types import AgentMessage, AgentThinkingLevel, AgentTool
from pi_sdk._wire.levels import check_thinking_level
from pi_sdk.types import Model

__all__ = ["ActiveRun", "AgentState", "Runtime"]


@dataclass(slots=True)
class Runtime:
    messages: list[AgentMessage] = field(default_factory=list[AgentMessage])
    is_streaming: bool = False
    stream_message: AgentMessage | None = None
    pending_tool_calls: frozenset[str] = frozenset()
    error: str | None = None


class AgentState:
    """The agent's live state (pi-mono ``AgentState``).

    ``system_prompt``, ``model`` and ``thinking_level`` are plain attributes. ``tools`` and
    ``messages`` are copied when assigned (later changes to your list do not leak in) and each
    message the agent adds creates a new list, so a list you read stays as it was. The runtime
    fields (``is_streaming``, ``stream_message``, ``pending_tool_calls``, ``error``) are
    read-only.
    """

    __slots__ = ("_runtime", "_thinking_level", "_tools", "model", "system_prompt")
    _thinking_level: AgentThinkingLevel

    def __init__(
        self,
        runtime: Runtime,
        *,
        system_prompt: str,
        model: Model | None,
        thinking_level: AgentThinkingLevel,
        tools: Iterable[AgentTool],
        messages: Iterable[AgentMessage],
    ) -> None:
        self._runtime = runtime
        self.system_prompt = system_prompt
        self.model = model
        """The model every call uses; ``prompt()`` raises while it is ``None``."""
        self.thinking_level = thinking_level
        self._tools = list(tools)
        runtime.messages = list(messages)

    @property
    def thinking_level(self) -> AgentThinkingLevel:
        """``"off"`` or a reasoning level (``"minimal"`` .. ``"xhigh"``), mapped per provider.

        Assigning anything else raises :class:`ValueError` naming the valid levels.
        """
        return self._thinking_level

    @thinking_level.setter
    def thinking_level(self, value: AgentThinkingLevel) -> None:
        self._thinking_level = cast("AgentThinkingLevel", check_thinking_level(value))

    @property
    def tools(self) -> Sequence[AgentTool]:
        """The tools offered to the model (read-only list; assign a new one to change it)."""
        return self._tools

    @tools.setter
    def tools(self, tools: Iterable[AgentTool]) -> None:
        self._tools = list(tools)

    @property
    def messages(self) -> Sequence[AgentMessage]:
        """The transcript (read-only list; assign a new one to replace it)."""
        return self._runtime.messages

    @messages.setter
    def messages(self, messages: Iterable[AgentMessage]) -> None:
        self._runtime.messages = list(messages)

    @property
    def is_streaming(self) -> bool:
        """True from the start of a run until its ``agent_end`` (pi-mono ``isStreaming``)."""
        return self._runtime.is_streaming

    @property
    def stream_message(self) -> AgentMessage | None:
        """The message being streamed (between its ``message_start`` and ``message_end``)."""
        return self._runtime.stream_message

    @property
    def pending_tool_calls(self) -> frozenset[str]:
        """Ids of the tool calls started and not yet ended."""
        return self._runtime.pending_tool_calls

    @property
    def error(self) -> str | None:
        """The error message of the last failed turn of the current or last run."""
        return self._runtime.error


@dataclass(eq=False)
class ActiveRun:
    controller: AbortController
    done: asyncio.Future[None]
    steering_polled: bool = False
    repairs: int = 0
    """Repair turns this run added for a typed answer that did not validate."""
    new_messages: list[AgentMessage] = field(default_factory=list[AgentMessage])
    listener_failures: dict[int, ListenerFailures] = field(
        default_factory=dict[int, ListenerFailures]
    )
    """``id(listener)`` -> failures in this run."""
