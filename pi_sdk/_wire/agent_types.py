"""Agent-loop types: tool results, the loop context and config, hook contexts, and AgentEvent.

pi-mono ``packages/agent/src/types.ts`` (pi-spec §8.1). Events are light slotted dataclasses
discriminated by ``type``; :func:`agent_event_to_dict` gives pi-mono's JSON shape (camelCase
keys, messages as their wire JSON), so event logs and UIs interoperate with pi-mono.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias

from pydantic import BaseModel, ValidationError

from pi_sdk._wire.abort import AbortSignal
from pi_sdk._wire.choices import QueueMode, ToolExecutionMode, ToolSteering, check_choice
from pi_sdk._wire.levels import AgentThinkingLevel
from pi_sdk._wire.validation import (
    compile_validator,
    empty_object_schema,
    format_validation_error,
    schema_from_model,
    validate_arguments,
)
from pi_sdk.errors import ToolArgumentsError
from pi_sdk.events import AssistantMessageEvent, event_to_dict
from pi_sdk.options import StreamOptions
from pi_sdk.types import (
    AssistantMessage,
    Context,
    DocumentContent,
    ImageContent,
    Message,
    Model,
    SystemMessage,
    TextContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = [
    "AfterToolCall",
    "AfterToolCallContext",
    "AfterToolCallResult",
    "AgentContext",
    "AgentEndEvent",
    "AgentEvent",
    "AgentStartEvent",
    "AgentStreamFn",
    "AgentMessage",
    "AgentThinkingLevel",
    "AgentTool",
    "AgentToolResult",
    "AssistantStream",
    "BeforeToolCall",
    "BeforeToolCallContext",
    "BeforeToolCallResult",
    "ConvertToLlm",
    "CustomAgentMessage",
    "GetApiKey",
    "MessageEndEvent",
    "MessageSource",
    "MessageStartEvent",
    "MessageUpdateEvent",
    "PrepareArguments",
    "QueueMode",
    "ToolExecutionEndEvent",
    "ToolExecutionMode",
    "ToolExecutionStartEvent",
    "ToolExecute",
    "ToolExecutionUpdateEvent",
    "ToolResultContent",
    "ToolSteering",
    "ToolUpdateCallback",
    "TransformContext",
    "TurnEndEvent",
    "TurnStartEvent",
    "agent_event_to_dict",
]

PrepareArguments: TypeAlias = Callable[[dict[str, Any]], dict[str, Any]]
"""``prepare_arguments(arguments) -> arguments``: a tool's repair of the parsed arguments."""

ToolResultContent: TypeAlias = TextContent | ImageContent | DocumentContent


class CustomAgentMessage(Protocol):
    """What the type checker knows of a custom transcript entry: a ``role`` and a ``timestamp``.

    Any object with these two attributes fits (structural typing); in practice a pydantic model,
    since registration, conversion and session files need one::

        class Note(BaseModel):
            role: Literal["note"] = "note"
            text: str
            timestamp: int = Field(default_factory=pi_sdk.now_ms)

    With it, ``m.role`` and ``m.timestamp`` type-check on every :data:`AgentMessage`; anything
    else is read after narrowing (``isinstance(m, Note)``, ``isinstance(m, AssistantMessage)``).
    A model without ``timestamp`` still works at run time (nothing in pi-sdk reads it; only
    ``role`` is checked by :func:`pi_sdk.register_message_type`), but a type checker rejects it
    where an :data:`AgentMessage` is expected.
    """

    @property
    def role(self) -> str:
        """The message's own role: not ``system``, ``user``, ``assistant`` or ``toolResult``."""
        ...

    @property
    def timestamp(self) -> int:
        """Milliseconds since the Unix epoch, as on the LLM messages (pi-mono)."""
        ...


AgentMessage: TypeAlias = (
    SystemMessage | UserMessage | AssistantMessage | ToolResultMessage | CustomAgentMessage
)
"""A transcript entry: an LLM message, or a custom message (:class:`CustomAgentMessage`)."""


@dataclass(kw_only=True, slots=True)
class AgentToolResult:
    """What a tool returns (pi-mono ``AgentToolResult``); also a partial result in updates."""

    content: list[ToolResultContent] = field(default_factory=list[ToolResultContent])
    """Text and image blocks the model sees."""
    details: Any = None
    """Free-form data for the application (UI, logs); never sent to the model."""
    terminate: bool = False
    """Ask the loop to stop after this batch: when every tool call of one assistant message
    asks for it, the model is not called again for these results (pi-agent-core 1.6)."""
    is_error: bool = False
    """Report a failure without raising: the model reads ``content`` as an error result, and
    ``details`` / ``structured_content`` are kept (pi-agent-core 1.6 ``isError``)."""
    structured_content: Any = None
    """Machine-readable result (JSON data) matching the tool's ``output_schema``, for
    programmatic callers (:func:`pi_sdk.agent.run_tool_call`); never sent to the model
    (pi-agent-core 1.6 ``structuredContent``). ``None``: none."""
    usage: Usage | None = None
    """What the tool's own model calls used (a sub-agent), copied to the tool-result message;
    not counted in the run's context accounting (pi-agent-core 1.6 ``usage``)."""

    @classmethod
    def text(cls, text: str, *, details: Any = None, terminate: bool = False) -> AgentToolResult:
        """Return a result holding one text block."""
        return cls(content=[TextContent(text=text)], details=details, terminate=terminate)


ToolUpdateCallback: TypeAlias = Callable[[AgentToolResult], None]
"""``on_update(partial_result)``: stream progress; emits ``tool_execution_update``.

Fire-and-forget and thread-safe: the event is delivered in call order, and before the tool's
``tool_execution_end``.
"""


# --- tools ------------------------------------------------------------------------------------

ToolExecute: TypeAlias = Callable[
    [str, Any, AbortSignal, ToolUpdateCallback], Awaitable[AgentToolResult | Any]
]
"""``execute(tool_call_id, args, signal, on_update) -> AgentToolResult``.

Contract: honour ``signal`` (return or raise soon after it aborts; the loop does not cancel
tools); raise to report failure (the message becomes an error result). A return value that is
not an :class:`AgentToolResult` is converted by :func:`to_tool_result`.
"""


class AgentTool:
    """A tool the agent can run.

    Subclass and override :meth:`execute`, or pass ``execute=``. Example:

    ```python
    class Add(BaseModel):
        a: int
        b: int

    async def add(call_id, args: Add, signal, on_update):
        return AgentToolResult.text(str(args.a + args.b))

    adder = AgentTool(name="add", description="Add two integers.", parameters=Add, execute=add)
    ```

    Attributes:
        name: Tool name the model calls (exact match).
        label: Human-readable name for UIs (default: ``name``).
        description: What the tool does, for the model.
        parameters: JSON Schema of the arguments (``{"type": "object", ...}``).
        args_model: The pydantic model arguments are validated into, or ``None`` (plain dict).
    """

    def __init__(
        self,
        *,
        name: str,
        description: str = "",
        parameters: dict[str, Any] | type[BaseModel] | None = None,
        execute: ToolExecute | None = None,
        label: str | None = None,
        execution_mode: ToolExecutionMode | None = None,
        prepare_arguments: PrepareArguments | None = None,
        output_schema: dict[str, Any] | None = None,
        constrained_sampling: Any = None,
    ) -> None:
        """Define a tool.

        Args:
            name: Tool name; what the model calls.
            description: What the tool does and when to use it.
            parameters: A JSON Schema dict, or a pydantic model class from which the schema is
                derived (then ``execute`` receives validated model instances). ``None``: no
                arguments.
            execute: The implementation; omit it when subclassing and overriding
                :meth:`execute`.
            label: Display name for UIs.
            execution_mode: ``"sequential"``: a batch that calls this tool runs one call at a
                time, whatever the loop's ``tool_execution`` (pi-agent-core 0.73
                ``executionMode``); ``None`` / ``"parallel"``: the loop's mode.
            prepare_arguments: ``prepare_arguments(arguments) -> arguments``, run on the
                model's parsed arguments before validation, to repair what a model commonly
                gets wrong (a renamed key, a string for a list); pi-agent-core 0.73
                ``prepareArguments``. An exception becomes the call's error result. Never
                called for arguments that were not valid JSON
                (:attr:`pi_sdk.ToolCall.invalid_arguments`).
            output_schema: JSON Schema of ``structured_content`` in successful results
                (pi-agent-core 1.6 ``outputSchema``); a tool that declares it should always set
                ``structured_content``. Documentation for callers: not validated, not sent.
            constrained_sampling: Strict or grammar sampling of the arguments, sent with the
                tool (:attr:`pi_sdk.Tool.constrained_sampling`, pi-agent-core 1.6's
                ``AgentTool`` is a ``Tool``; docs/constrained-tools.md).

        Raises:
            ValueError: ``execution_mode`` is none of ``"sequential"``, ``"parallel"``, ``None``.
        """
        check_choice("execution_mode", execution_mode, ToolExecutionMode, optional=True)
        self.name = name
        self.label = label or name
        self.description = description
        if isinstance(parameters, type):
            self.args_model: type[BaseModel] | None = parameters
            self.parameters: dict[str, Any] = schema_from_model(parameters)
        else:
            self.args_model = None
            self.parameters = parameters if parameters is not None else empty_object_schema()
        self._execute = execute
        self.execution_mode: ToolExecutionMode | None = execution_mode
        self._prepare_arguments = prepare_arguments
        self.output_schema = output_schema
        self.constrained_sampling = constrained_sampling
        self._validator: Validator | None = None
        self._wire: Tool | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"

    async def execute(
        self, tool_call_id: str, args: Any, signal: AbortSignal, on_update: ToolUpdateCallback
    ) -> AgentToolResult | Any:
        """Run the tool with validated ``args``; see :data:`ToolExecute` for the contract.

        Raises:
            NotImplementedError: no ``execute`` was given and the subclass did not override it.
            TypeError: the ``execute`` given returned something not awaitable (a sync
                function: ``@pi_sdk.tool`` runs one in a worker thread).
        """
        if self._execute is None:
            raise NotImplementedError(f"tool {self.name!r} has no execute implementation")
        running = self._execute(tool_call_id, args, signal, on_update)
        if not inspect.isawaitable(running):
            raise TypeError(
                f"tool {self.name!r}: execute returned {type(running).__name__}, not an"
                " awaitable: give AgentTool an async execute, or make the function a tool with"
                " @pi_sdk.tool (a sync function then runs in a worker thread)"
            )
        return await running

    def prepare_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Repair the model's arguments before validation.

        Default: the ``prepare_arguments`` given to the constructor, else unchanged. Override
        in a subclass as an alternative.
        """
        if self._prepare_arguments is None:
            return arguments
        return self._prepare_arguments(arguments)

    def to_tool(self) -> Tool:
        """Return the wire :class:`pi_sdk.Tool` sent to the model.

        Its name, description, schema and constrained sampling.

        Raises:
            pydantic.ValidationError: ``constrained_sampling`` is not pi's shape.
        """
        if self._wire is None:
            self._wire = Tool(
                name=self.name,
                description=self.description,
                parameters=self.parameters,
                constrained_sampling=self.constrained_sampling,
            )
        return self._wire

    def validate_arguments(self, arguments: dict[str, Any]) -> Any:
        """Coerce and validate the model's arguments (pi-spec §6.2).

        Returns:
            A coerced copy of the arguments (``dict``), or an ``args_model`` instance.

        Raises:
            ToolArgumentsError: the arguments do not fit; the text is pi-mono's and is shown
                to the model.
        """
        if self._validator is None:
            self._validator = compile_validator(self.parameters)
        args = validate_arguments(self.name, self.parameters, arguments, self._validator)
        if self.args_model is None:
            return args
        try:
            return self.args_model.model_validate(args)
        except ValidationError as exc:
            lines = [
                ("/".join(str(p) for p in err["loc"]) or "root", err["msg"]) for err in exc.errors()
            ]
            raise ToolArgumentsError(format_validation_error(self.name, lines, arguments)) from None


@dataclass(kw_only=True, slots=True)
class AgentContext:
    """What the loop works on: system prompt, transcript and tools (pi-mono ``AgentContext``).

    ``system_prompt`` and ``declared_tools`` are the shorthand the transcript starts from,
    folded into the leading system message of every request unless ``messages`` starts with
    a :class:`~pi_sdk.SystemMessage` (a pi 1.6 transcript, which declares its own).
    ``tools`` are the tools the loop can run; before each request, how they differ from what
    the transcript declares is announced in a system message (pi-agent-core 1.6).
    """

    system_prompt: str = ""
    messages: list[AgentMessage] = field(default_factory=list[AgentMessage])
    tools: list[AgentTool] = field(default_factory=list[AgentTool])
    declared_tools: list[Tool] | None = None
    """The tools the transcript starts with (the shorthand); ``None``: ``tools`` as they are
    when the loop starts."""


# --- tool-call hooks -------------------------------------------------------------------------


@dataclass(kw_only=True, slots=True)
class BeforeToolCallContext:
    """Input of ``before_tool_call``: a validated call about to run."""

    assistant_message: AssistantMessage
    """The message that requested the call (already in the transcript)."""
    tool_call: ToolCall
    """The raw tool-call block."""
    args: Any
    """The validated (and coerced) arguments the tool will receive."""
    context: AgentContext


@dataclass(kw_only=True, slots=True)
class BeforeToolCallResult:
    """Answer of ``before_tool_call``; ``None`` (or ``block=False``) lets the call run."""

    block: bool = False
    reason: str | None = None
    """Shown to the model as the error result; default "Tool execution was blocked"."""
    terminate: bool = False
    """With ``block``: the blocked call asks to end the run after this batch (the batch ends
    the run when every call's result asks so; pi-agent-core 1.6)."""


@dataclass(kw_only=True, slots=True)
class AfterToolCallContext:
    """Input of ``after_tool_call``: a call that ran, with its result."""

    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: Any
    result: AgentToolResult
    is_error: bool
    context: AgentContext


@dataclass(kw_only=True, slots=True)
class AfterToolCallResult:
    """Answer of ``after_tool_call``: each field that is not ``None`` replaces the result's.

    ``content``, ``details`` and ``usage`` replace wholesale (no merge), as in pi-mono. A new
    ``content`` without ``structured_content`` drops the result's structured content, which may
    no longer match it (pi-agent-core 1.6): return both to keep it.
    """

    content: list[ToolResultContent] | None = None
    details: Any = None
    is_error: bool | None = None
    terminate: bool | None = None
    structured_content: Any = None
    usage: Usage | None = None


BeforeToolCall: TypeAlias = Callable[
    [BeforeToolCallContext, AbortSignal],
    BeforeToolCallResult | None | Awaitable[BeforeToolCallResult | None],
]
"""``before_tool_call(context, signal)``, sync or async.

Contract: return ``None`` to allow, or ``BeforeToolCallResult(block=True, reason=...)``. An
exception becomes an error tool result with its message (pi-mono).
"""

AfterToolCall: TypeAlias = Callable[
    [AfterToolCallContext, AbortSignal],
    AfterToolCallResult | None | Awaitable[AfterToolCallResult | None],
]
"""``after_tool_call(context, signal)``, sync or async.

Contract: return ``None`` to keep the result. Must not raise: an exception ends the run with an
error assistant message (pi-mono propagates it; pi-sdk ends the event stream cleanly).
"""

ConvertToLlm: TypeAlias = Callable[
    [list[AgentMessage]], Sequence[Message] | Awaitable[Sequence[Message]]
]
"""``convert_to_llm(messages) -> list[Message]``, sync or async.

Contract: the only place custom messages become LLM messages; must not raise (an exception
ends the run with an error assistant message). Default (``None`` in :class:`AgentLoopConfig`):
:func:`pi_sdk.default_convert_to_llm`.
"""

TransformContext: TypeAlias = Callable[
    [list[AgentMessage], AbortSignal], Sequence[AgentMessage] | Awaitable[Sequence[AgentMessage]]
]
"""``transform_context(messages, signal)``, sync or async: prune or inject before each call.

Runs before ``convert_to_llm``; its result is used for that one call and does not replace the
transcript. Contract: must not raise.
"""

GetApiKey: TypeAlias = Callable[[str], str | None | Awaitable[str | None]]
"""``get_api_key(provider)``, sync or async, called before every model call (short-lived
OAuth tokens); ``None`` falls back to ``StreamOptions.api_key`` and then the plugins."""

MessageSource: TypeAlias = Callable[[], Sequence[AgentMessage] | Awaitable[Sequence[AgentMessage]]]
"""``get_steering_messages()`` / ``get_follow_up_messages()``: messages to inject now."""


class AssistantStream(Protocol):
    """What a stream function returns: :class:`pi_sdk.AssistantMessageEventStream` or alike."""

    def __aiter__(self) -> AsyncIterator[AssistantMessageEvent]: ...  # noqa: D105

    async def result(self) -> AssistantMessage:
        """Return the final message."""
        ...


AgentStreamFn: TypeAlias = Callable[
    [Model, Context, StreamOptions], AssistantStream | Awaitable[AssistantStream]
]
"""``stream_fn(model, context, options)``; default :func:`pi_sdk.stream`.

Contract: failures after the call starts are reported inside the stream (an ``error`` event),
not raised. A raise is still caught and becomes an error assistant message.
"""


# --- events ----------------------------------------------------------------------------------

_slots: dict[str, Any] = {"slots": True, "kw_only": True}


@dataclass(**_slots)
class AgentStartEvent:
    """A run started."""

    type: Literal["agent_start"] = "agent_start"


@dataclass(**_slots)
class AgentEndEvent:
    """A run ended; ``messages`` are the new messages it produced, in transcript order."""

    messages: list[AgentMessage]
    type: Literal["agent_end"] = "agent_end"


@dataclass(**_slots)
class TurnStartEvent:
    """A turn (one assistant response plus its tool executions) started."""

    type: Literal["turn_start"] = "turn_start"


@dataclass(**_slots)
class TurnEndEvent:
    """A turn ended: its assistant ``message`` and the ``tool_results`` it produced."""

    message: AgentMessage
    tool_results: list[ToolResultMessage]
    type: Literal["turn_end"] = "turn_end"


@dataclass(**_slots)
class MessageStartEvent:
    """A message entered the transcript (assistant messages: streaming begins)."""

    message: AgentMessage
    type: Literal["message_start"] = "message_start"


@dataclass(**_slots)
class MessageUpdateEvent:
    """The streaming assistant message changed; ``assistant_message_event`` says how.

    ``message`` is the live partial message (the same object across updates); copy it to keep
    a snapshot.
    """

    message: AssistantMessage
    assistant_message_event: AssistantMessageEvent = field(repr=False)
    type: Literal["message_update"] = "message_update"


@dataclass(**_slots)
class MessageEndEvent:
    """A message is final (the only point where it is added to an Agent's state)."""

    message: AgentMessage
    type: Literal["message_end"] = "message_end"


@dataclass(**_slots)
class ToolExecutionStartEvent:
    """A tool call is about to be prepared; ``args`` are the raw arguments from the model."""

    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    type: Literal["tool_execution_start"] = "tool_execution_start"


@dataclass(**_slots)
class ToolExecutionUpdateEvent:
    """A running tool reported progress through ``on_update``."""

    tool_call_id: str
    tool_name: str
    args: dict[str, Any]
    partial_result: AgentToolResult
    type: Literal["tool_execution_update"] = "tool_execution_update"


@dataclass(**_slots)
class ToolExecutionEndEvent:
    """A tool call finished (ran, failed, was blocked, skipped or not found)."""

    tool_call_id: str
    tool_name: str
    result: AgentToolResult
    is_error: bool
    duration_ms: int | None = None
    """Milliseconds ``execute`` took (monotonic clock); ``None`` when the tool did not run
    (unknown, invalid, blocked, skipped). pi-agent-core 1.6 ``durationMs``."""
    type: Literal["tool_execution_end"] = "tool_execution_end"


AgentEvent: TypeAlias = (
    AgentStartEvent
    | AgentEndEvent
    | TurnStartEvent
    | TurnEndEvent
    | MessageStartEvent
    | MessageUpdateEvent
    | MessageEndEvent
    | ToolExecutionStartEvent
    | ToolExecutionUpdateEvent
    | ToolExecutionEndEvent
)
"""Every event of an agent run (pi-mono ``AgentEvent``), discriminated by ``type``."""

_WIRE_NAMES = {
    "tool_results": "toolResults",
    "assistant_message_event": "assistantMessageEvent",
    "tool_call_id": "toolCallId",
    "tool_name": "toolName",
    "partial_result": "partialResult",
    "is_error": "isError",
    "duration_ms": "durationMs",
}


def _jsonable(value: Any) -> Any:
    from pydantic_core import to_jsonable_python

    return to_jsonable_python(value, by_alias=True, fallback=repr)


def _tool_result_to_dict(result: AgentToolResult) -> dict[str, Any]:
    out: dict[str, Any] = {
        "content": [block.model_dump(mode="json") for block in result.content],
        "details": _jsonable(result.details),
    }
    if result.structured_content is not None:
        out["structuredContent"] = _jsonable(result.structured_content)
    if result.usage is not None:
        out["usage"] = result.usage.model_dump(mode="json", by_alias=True)
    if result.is_error:
        out["isError"] = True
    if result.terminate:
        out["terminate"] = True
    return out


def _value_to_json(value: Any, include_partial: bool) -> Any:
    if isinstance(value, AgentToolResult):
        return _tool_result_to_dict(value)
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, list):
        return [_value_to_json(v, include_partial) for v in value]  # pyright: ignore[reportUnknownVariableType]
    if hasattr(value, "partial") and hasattr(value, "__slots__"):
        return event_to_dict(value, include_partial=include_partial)
    return _jsonable(value)


def agent_event_to_dict(event: AgentEvent, *, include_partial: bool = True) -> dict[str, Any]:
    """Return the event in pi-mono's JSON shape, e.g. ``{"type": "tool_execution_end", ...}``.

    Args:
        event: Any agent event.
        include_partial: For ``message_update``, include the underlying assistant-message
            event's ``partial`` (pi-mono does; it duplicates ``message``).
    """
    out: dict[str, Any] = {"type": event.type}
    names: tuple[str, ...] = getattr(event, "__slots__")  # noqa: B009 - slots dataclasses
    for name in names:
        if name == "type":
            continue
        value = getattr(event, name)
        if value is None and name == "duration_ms":  # pi-mono omits it when the tool did not run
            continue
        out[_WIRE_NAMES.get(name, name)] = _value_to_json(value, include_partial)
    return out
