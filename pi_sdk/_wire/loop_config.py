"""The agent loop's configuration and its run-level hooks (pi-agent-core 1.6 ``AgentLoopConfig``).

Besides the tool-call hooks (``before_tool_call`` / ``after_tool_call``, in
:mod:`pi_sdk._wire.agent_types`), pi-agent-core 1.6 lets a host change course inside a run:

* ``prepare_request(request, signal)`` before every model request, the first included: replace
  the context, the model or the thinking level for this and later requests;
* ``prepare_next_turn(turn)`` between turns, before the next ``turn_start``: the same, plus
  messages to add (a model or level switch mid-run, compaction);
* ``finish_turn(turn, signal)`` after a turn's assistant message and tool results, before its
  ``turn_end``: ``"end"`` ends the run there, ``"continue"`` asks for one more request. It
  replaced ``should_stop_after_turn`` (pi-agent-core 0.73), kept here as a deprecated alias.

Every hook may be sync or async; an exception ends the run with an error assistant message.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, TypeAlias

from pi_sdk._wire.abort import AbortSignal
from pi_sdk._wire.agent_types import (
    AfterToolCall,
    AgentContext,
    AgentMessage,
    AgentThinkingLevel,
    BeforeToolCall,
    ConvertToLlm,
    GetApiKey,
    MessageSource,
    ToolExecutionMode,
    ToolSteering,
    TransformContext,
)
from pi_sdk._wire.choices import check_choice
from pi_sdk._wire.retry_policy import RetryPolicy
from pi_sdk._wire.usage_limits import UsageLimits
from pi_sdk.options import StreamOptions
from pi_sdk.types import AssistantMessage, Model, ToolResultMessage

__all__ = [
    "AgentLoopConfig",
    "AgentLoopTurnUpdate",
    "AgentRequestUpdate",
    "AgentTurnContext",
    "AgentTurnDecision",
    "FinishTurn",
    "PrepareNextTurn",
    "PrepareRequest",
    "PrepareRequestContext",
    "ShouldStopAfterTurn",
    "ShouldStopAfterTurnContext",
]


@dataclass(kw_only=True, slots=True)
class AgentTurnContext:
    """A completed turn, as ``finish_turn`` and ``prepare_next_turn`` see it (pi-agent-core 1.6)."""

    message: AssistantMessage
    """The turn's assistant message."""
    tool_results: list[ToolResultMessage]
    """The results of its tool calls (empty without calls)."""
    context: AgentContext
    """The loop's working context (the transcript so far, tools)."""
    new_messages: list[AgentMessage]
    """The messages this run added so far (the prompts included)."""


ShouldStopAfterTurnContext: TypeAlias = AgentTurnContext
"""Deprecated name of :class:`AgentTurnContext` (pi-agent-core 0.73.1)."""

AgentTurnDecision: TypeAlias = Literal["continue", "end"]
"""What ``finish_turn`` decides: ``"end"`` the run after this turn, or ``"continue"`` with one
more request (satisfied by tool results, steering or follow-ups when there are some; else the
loop asks the model again with the context as it is). pi's ``{action: "continue" | "end"}``."""

FinishTurn: TypeAlias = Callable[
    [AgentTurnContext, AbortSignal],
    "AgentTurnDecision | None | Awaitable[AgentTurnDecision | None]",
]
"""``finish_turn(turn, signal)``, sync or async, after every turn (normal, ``error`` and
``aborted`` ones) and before its ``turn_end``. ``None`` keeps the normal scheduling. A turn that
ended in ``error``/``aborted`` ends the run whatever it answers (pi-agent-core 1.6)."""

ShouldStopAfterTurn: TypeAlias = Callable[[AgentTurnContext], "bool | Awaitable[bool]"]
"""Deprecated (pi-agent-core 0.73.1): ``should_stop_after_turn(turn)``; true is ``finish_turn``'s
``"end"``, asked after ``finish_turn`` for turns that did not fail. Use ``finish_turn``."""


@dataclass(kw_only=True, slots=True)
class PrepareRequestContext:
    """What ``prepare_request`` sees: the state the next request is about to be made from."""

    context: AgentContext
    """The working context; the pending messages are already in it."""
    model: Model
    thinking_level: AgentThinkingLevel
    """The level asked for: ``"off"`` or a reasoning level."""


@dataclass(kw_only=True, slots=True)
class AgentRequestUpdate:
    """Answer of ``prepare_request`` (pi-agent-core 1.6 ``AgentRequestUpdate``).

    Each field that is not ``None`` replaces the run's value for this request and later ones.
    """

    context: AgentContext | None = None
    model: Model | None = None
    thinking_level: AgentThinkingLevel | None = None


@dataclass(kw_only=True, slots=True)
class AgentLoopTurnUpdate:
    """Answer of ``prepare_next_turn`` (pi-agent-core 1.6 ``AgentLoopTurnUpdate``).

    As :class:`AgentRequestUpdate`, plus ``messages`` to add (with their ``message_start`` /
    ``message_end``) before the next request.
    """

    context: AgentContext | None = None
    messages: list[AgentMessage] | None = None
    model: Model | None = None
    thinking_level: AgentThinkingLevel | None = None


PrepareRequest: TypeAlias = Callable[
    [PrepareRequestContext, AbortSignal],
    "AgentRequestUpdate | None | Awaitable[AgentRequestUpdate | None]",
]
"""``prepare_request(request, signal)``, sync or async, immediately before every model request
(retries included); ``None`` keeps everything. It does not poll the queues."""

PrepareNextTurn: TypeAlias = Callable[
    [AgentTurnContext], "AgentLoopTurnUpdate | None | Awaitable[AgentLoopTurnUpdate | None]"
]
"""``prepare_next_turn(turn)``, sync or async, after a ``turn_end`` when the loop goes on,
before the next ``turn_start``. Long work (compaction) is fine: steering queued meanwhile is
picked up."""


@dataclass(kw_only=True)
class AgentLoopConfig(StreamOptions):
    """Configuration of one agent-loop run (pi-mono ``AgentLoopConfig``).

    Every :class:`pi_sdk.StreamOptions` field is forwarded to each model call (``signal`` and
    ``api_key`` are filled per call).
    """

    model: Model
    convert_to_llm: ConvertToLlm | None = None
    """Transcript -> LLM messages before each call; ``None``: the loop uses
    :func:`pi_sdk.default_convert_to_llm`."""
    transform_context: TransformContext | None = None
    get_api_key: GetApiKey | None = None
    get_steering_messages: MessageSource | None = None
    """Polled at the start, after each tool (preparation) and after each turn."""
    get_follow_up_messages: MessageSource | None = None
    """Polled only when the agent would otherwise stop."""
    tool_execution: ToolExecutionMode = "parallel"
    tool_abort_grace_ms: float = 2000
    """After an abort, how long a running tool may take to stop before its task is cancelled,
    and how long after the cancel before it is left behind (milliseconds). Default 2 s."""
    tool_steering: ToolSteering = "wait"
    """Steering during a tool batch: ``"wait"`` for the batch, or ``"skip"`` the calls not yet
    run (see :data:`ToolSteering`)."""
    before_tool_call: BeforeToolCall | None = None
    after_tool_call: AfterToolCall | None = None
    prepare_request: PrepareRequest | None = None
    """Before every model request (:data:`PrepareRequest`)."""
    prepare_next_turn: PrepareNextTurn | None = None
    """Between turns (:data:`PrepareNextTurn`)."""
    finish_turn: FinishTurn | None = None
    """After each turn, before its ``turn_end`` (:data:`FinishTurn`)."""
    should_stop_after_turn: ShouldStopAfterTurn | None = None
    """Deprecated: use ``finish_turn`` (:data:`ShouldStopAfterTurn`)."""
    retry: RetryPolicy | None = None
    """Retries of a turn that failed, after the first byte too (:class:`pi_sdk.RetryPolicy`);
    ``None``: a failed turn ends the run."""
    usage_limits: UsageLimits | None = None
    """Per-run limits on tokens, cost, requests and tool calls (:class:`pi_sdk.UsageLimits`)."""

    def __post_init__(self) -> None:
        """Check the settings as :class:`pi_sdk.StreamOptions` does, and the loop's own.

        Raises:
            ValueError: a :class:`pi_sdk.StreamOptions` setting is wrong, or
                ``tool_execution`` or ``tool_steering`` is none of its names (named).
        """
        super().__post_init__()
        check_choice("tool_execution", self.tool_execution, ToolExecutionMode)
        check_choice("tool_steering", self.tool_steering, ToolSteering)
