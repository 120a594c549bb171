"""The Agent's state: the transcript, the settings a run reads, and the current run's fields.

:class:`AgentState` is what ``agent.state`` returns (pi-mono ``AgentState``): the transcript and
the runtime fields (streaming, the message being streamed, pending tool calls, the last error)
are reduced from the run's events before any listener sees them. :class:`ActiveRun` is the
bookkeeping of one ``prompt()`` / ``continue_()``.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from pi_sdk._agent.listeners import ListenerFailures
from pi_sdk._agent.tool_declarations import shorthand
from pi_sdk._wire.argument_kinds import check_model
from pi_sdk._wire.levels import AgentThinkingLevel, check_thinking_level
from pi_sdk._wire.transcript import current_system_prompt
from pi_sdk.types import AssistantMessage, Context, Message, Model, SystemMessage, Tool

if TYPE_CHECKING:
    import asyncio

    from pi_sdk._wire.abort import AbortController
    from pi_sdk._wire.agent_types import AgentEvent, AgentMessage, AgentTool

__all__ = ["ActiveRun", "AgentState", "Runtime"]


@dataclass(slots=True)
class Runtime:
    messages: list[AgentMessage] = field(default_factory=list["AgentMessage"])
    is_streaming: bool = False
    stream_message: AgentMessage | None = None
    pending_tool_calls: frozenset[str] = frozenset()
    error: str | None = None

    def reduce(self, event: AgentEvent) -> None:
        """Update the runtime fields for ``event`` (before any listener sees it; pi-mono)."""
        if event.type == "message_start" or event.type == "message_update":
            self.stream_message = event.message
        elif event.type == "message_end":
            self.stream_message = None
            self.messages = [*self.messages, event.message]
        elif event.type == "tool_execution_start":
            self.pending_tool_calls = self.pending_tool_calls | {event.tool_call_id}
        elif event.type == "tool_execution_end":
            self.pending_tool_calls = self.pending_tool_calls - {event.tool_call_id}
        elif event.type == "turn_end":
            if isinstance(event.message, AssistantMessage) and event.message.error_message:
                self.error = event.message.error_message
        elif event.type == "agent_end":
            self.is_streaming = False
            self.stream_message = None


class AgentState:
    """The agent's live state (pi-mono ``AgentState``).

    ``model`` and ``thinking_level`` are plain attributes. ``tools`` and ``messages`` are
    copied when assigned (later changes to your list do not leak in) and each message the
    agent adds creates a new list, so a list you read stays as it was. The runtime fields
    (``is_streaming``, ``stream_message``, ``pending_tool_calls``, ``error``) are read-only.

    The prompt and tools live in the transcript, as in pi-agent-core 1.6: ``system_prompt``
    reads the current prompt (the base prompt, replayed through the transcript's system
    messages); assigning ``tools`` changes what the agent can run, and the difference is
    announced in a system message before the next request (``base_tools`` are the tools the
    transcript starts with).
    """

    __slots__ = ("_base_prompt", "_model", "_runtime", "_thinking_level", "_tools", "base_tools")
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
        self._base_prompt = system_prompt
        self.model = model
        self.thinking_level = thinking_level
        self._tools = _unique_names(tools)
        self.base_tools: list[Tool] = [t.to_tool() for t in self._tools]
        """The tool declarations the transcript starts with (folded into the leading system
        message of each request; a transcript that starts with a system message has its own)."""
        runtime.messages = list(messages)

    @property
    def base_prompt(self) -> str:
        """The prompt the transcript starts with (the agent's ``system_prompt`` argument)."""
        return self._base_prompt

    @property
    def system_prompt(self) -> str:
        """The current system prompt (pi-agent-core 1.6 ``systemPrompt``).

        The base prompt (or the transcript's leading system message) replayed through every
        system message of the transcript.

        Assigning it replaces the base prompt (the leading system message's content when the
        transcript starts with one). Once the conversation has started that rewrites the
        prompt every earlier turn was made with (and loses the prompt cache), so it warns
        (``DeprecationWarning``): append a :class:`pi_sdk.SystemMessage` to change the prompt
        from that point on instead.
        """
        messages = self._runtime.messages
        prompt, _ = shorthand(messages, self._base_prompt, ())
        return current_system_prompt(Context(system_prompt=prompt, messages=_system(messages)))

    @system_prompt.setter
    def system_prompt(self, value: str) -> None:
        messages = self._runtime.messages
        if any(not isinstance(m, SystemMessage) for m in messages):
            warnings.warn(
                "setting system_prompt after the conversation started rewrites the prompt of"
                " every earlier turn; append a pi_sdk.SystemMessage to change it from here on"
                " (pi-agent-core 1.6)",
                DeprecationWarning,
                stacklevel=3,
            )
        first = messages[0] if messages else None
        if isinstance(first, SystemMessage):
            lead = first.model_copy(update={"content": value})
            self._runtime.messages = [lead, *messages[1:]]
        else:
            self._base_prompt = value

    @property
    def model(self) -> Model | None:
        """The model every call uses; ``prompt()`` raises while it is ``None``.

        Assigning anything but a :class:`pi_sdk.Model` or ``None`` raises :class:`TypeError`
        (a ``"provider/id"`` string included: ``pi_sdk.get_model`` makes the model).
        """
        return self._model

    @model.setter
    def model(self, model: Model | None) -> None:
        if model is not None:
            check_model(model, "Agent model")
        self._model = model

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
        """The tools offered to the model (read-only list; assign a new one to change it).

        Assigning two tools with one name raises :class:`ValueError` (vendors answer such a
        request with HTTP 400).
        """
        return self._tools

    @tools.setter
    def tools(self, tools: Iterable[AgentTool]) -> None:
        self._tools = _unique_names(tools)
        if not self._runtime.messages:  # nothing declared yet: the transcript starts with them
            self.base_tools = [t.to_tool() for t in self._tools]

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
    new_messages: list[AgentMessage] = field(default_factory=list["AgentMessage"])
    listener_failures: dict[int, ListenerFailures] = field(
        default_factory=dict[int, ListenerFailures]
    )
    """``id(listener)`` -> failures in this run."""


def _system(messages: Sequence[AgentMessage]) -> list[Message]:
    return [m for m in messages if isinstance(m, SystemMessage)]


def _unique_names(tools: Iterable[AgentTool]) -> list[AgentTool]:
    listed = list(tools)
    repeated = [name for name, n in Counter(t.name for t in listed).items() if n > 1]
    if repeated:
        raise ValueError(
            f"two tools are named {repeated[0]!r}: tool names must be unique (vendors reject"
            " the request)"
        )
    return listed
