"""What crosses Temporal's wire: workflow input, activity inputs and outputs, the run's state.

Every payload is plain JSON (Temporal's default data converter). Transcript entries are pi's
message JSON, the format of pi-sdk session files (``role``, camelCase fields, thinking and
tool-call signatures kept): :func:`message_to_json` / :func:`message_from_json`.

Every payload class is keyword-only: built by field name, as Temporal's converter builds it from
a payload's JSON object, so a field can be added in any place without changing what existing
code or a recorded history means (a positional argument is a ``TypeError``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from pi_sdk.agent import AgentMessage, agent_message_from_dict

__all__ = [
    "STREAM_OPTION_FIELDS",
    "ActivitySettings",
    "AgentRunInput",
    "AgentRunResult",
    "AgentRunState",
    "Continued",
    "ModelCall",
    "ToolOutcome",
    "ToolRun",
    "ToolSpec",
    "WorkerCatalog",
    "jsonable",
    "message_from_json",
    "message_to_json",
    "verbatim",
]

JSON = dict[str, Any]

T = TypeVar("T")

STREAM_OPTION_FIELDS = (
    "temperature",
    "max_tokens",
    "reasoning",
    "thinking_budgets",
    "cache_retention",
    "session_id",
    "metadata",
    "max_retries",
    "max_retry_delay_ms",
    "timeout_ms",
    "idle_timeout_ms",
    "foreign_reasoning",
    "tool_choice",
    "provider_options",
)
"""The :class:`pi_sdk.StreamOptions` fields a workflow sends to the model activity.

``api_key`` and ``headers`` never enter the workflow history (they may hold secrets): the
worker's :class:`~pi_sdk_temporal.AgentRegistry` resolves keys. Callables (``on_payload``,
``on_response``), ``client`` and ``signal`` cannot cross a wire.
"""


class Verbatim:
    """A large JSON value (a transcript, a model call's context) for Temporal to encode as is.

    Temporal's JSON converter turns a dataclass into a dict with :func:`dataclasses.asdict`,
    which walks and copies every nested list and dict: for a 3,000-message transcript that is
    0.7 s of a workflow task (Temporal fails a workflow task that does not yield within 2 s),
    ten times the encoding itself. ``asdict`` copies this wrapper by reference
    (``__deepcopy__``), and the converter's encoder writes the wrapped value through its
    ``dict()`` hook. Only the sender sees it: the receiver decodes a plain list or dict.
    """

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __deepcopy__(self, memo: Any) -> Verbatim:
        return self

    def dict(self) -> Any:
        """The wrapped value (what the JSON encoder writes)."""
        return self.value


def verbatim(value: T) -> T:
    """``value`` wrapped in :class:`Verbatim`, typed as itself (for a dataclass field)."""
    return cast("T", Verbatim(value))


def jsonable(value: Any) -> Any:
    """``value`` as JSON data (pydantic models by alias, unknown objects as their ``repr``)."""
    return to_jsonable_python(value, by_alias=True, fallback=repr)


def message_to_json(message: AgentMessage) -> JSON:
    """One transcript entry as pi's message JSON (the session-file format).

    Raises:
        TypeError: ``message`` is not a pydantic message model.
    """
    if not isinstance(message, BaseModel):
        raise TypeError(f"cannot send {type(message).__name__} to Temporal: not a message model")
    return message.model_dump(mode="json", by_alias=True)


def message_from_json(data: Mapping[str, Any]) -> AgentMessage:
    """Read one transcript entry back (LLM roles, registered custom types, pi's own types).

    Raises:
        pi_sdk.errors.ConfigurationError: the role is unknown on this process.
        pydantic.ValidationError: the data does not fit the type.
    """
    return agent_message_from_dict(data)


@dataclass(kw_only=True)
class ActivitySettings:
    """Timeouts (seconds) and attempts of the model and tool activities.

    Vendor failures never fail the model activity: pi-sdk's own retry policy
    (``StreamOptions.max_retries``, ``max_retry_delay_ms``) runs inside it, and a call that
    still fails returns an assistant message with ``stop_reason="error"``, as on a plain Agent.
    A tool that raises returns an error outcome. So Temporal retries an activity only when it
    timed out: its worker died or hung (no heartbeat for ``heartbeat_timeout_s``), up to
    ``max_attempts`` attempts, ``retry_initial_interval_s`` apart at first, doubling.
    """

    model_timeout_s: float = 1800.0
    """start-to-close timeout of one model call (a whole streamed reply)."""
    tool_timeout_s: float = 3600.0
    """start-to-close timeout of one tool execution."""
    heartbeat_timeout_s: float = 30.0
    """How long a silent activity is trusted before Temporal retries it on another worker."""
    max_attempts: int = 5
    retry_initial_interval_s: float = 1.0


@dataclass(kw_only=True)
class Continued:
    """What a workflow that continued-as-new carries over besides the transcript.

    Set by the workflow itself (``AgentRunInput.continued``) when its history grew past its
    limits (``AgentRunInput.history_max_events`` / ``history_max_bytes``, or Temporal's
    suggestion); not meant to be written by hand.
    """

    resume: bool
    """True: the run was between two turns and goes on (``continue_()``); False: the workflow
    was idle (``keep_open``), waiting for a prompt."""
    steering: list[JSON] = field(default_factory=list[JSON])
    """Steering messages queued (or taken by the loop) but not yet in the transcript."""
    follow_up: list[JSON] = field(default_factory=list[JSON])
    """Follow-up messages not yet in the transcript."""
    prompts: list[list[JSON]] = field(default_factory=list[list[JSON]])
    """Queued prompts of a ``keep_open`` workflow."""
    events_before: int = 0
    """Events of the earlier runs: the ``events`` query's indices go on from there."""
    previous_runs: int = 0
    """How many runs of this workflow continued-as-new before this one."""
    model: str = ""
    """The registry name of the agent's model (a ``set_model`` may have changed it)."""
    base_tools: list[JSON] | None = None
    """The tool declarations the transcript starts with (pi JSON ``Tool``s: the first run's
    tools; later changes are system messages in the transcript). Without them the next run would
    take its tools for new ones and announce them again (``None``: an input from before they
    were carried; the run's own tools are the base then)."""


@dataclass(kw_only=True)
class AgentRunInput:
    """The workflow's input: what a plain :class:`pi_sdk.Agent` is built from, by name.

    ``model`` and ``tools`` are names in the workers' :class:`~pi_sdk_temporal.AgentRegistry`.
    """

    model: str
    prompt: list[JSON] = field(default_factory=list[JSON])
    """The first run's prompt messages (pi JSON); empty with ``messages``: ``continue_()``."""
    messages: list[JSON] = field(default_factory=list[JSON])
    """An initial transcript (pi JSON), e.g. a loaded session."""
    system_prompt: str = ""
    tools: list[str] = field(default_factory=list[str])
    thinking_level: str = "off"
    tool_execution: str = "parallel"
    tool_steering: str = "wait"
    steering_mode: str = "one-at-a-time"
    follow_up_mode: str = "one-at-a-time"
    tool_abort_grace_ms: float = 2000
    options: JSON = field(default_factory=JSON)
    """:data:`STREAM_OPTION_FIELDS` by their Python names."""
    keep_open: bool = False
    """After a run, wait for a ``prompt`` signal (or ``close``) instead of completing."""
    activities: ActivitySettings = field(default_factory=ActivitySettings)
    history_max_events: int | None = None
    """Continue-as-new at the end of a turn once the history has this many events; ``None``:
    when Temporal suggests it (the server's ``limit.historyCount.suggestContinueAsNew``, 4,096
    events by default, or its size counterpart, 4 MiB). Temporal fails a workflow at 51,200
    events or 50 MiB."""
    history_max_bytes: int | None = None
    """The same for the history's size in bytes."""
    continued: Continued | None = None
    """Set by the workflow when it continued-as-new (:class:`Continued`)."""


@dataclass(kw_only=True)
class AgentRunResult:
    """The workflow's result: the whole transcript and whether the last run was aborted."""

    messages: list[JSON]
    aborted: bool = False


@dataclass(kw_only=True)
class AgentRunState:
    """The ``state`` query: the Agent's state as the workflow holds it now."""

    model: str
    messages: list[JSON]
    is_streaming: bool
    pending_tool_calls: list[str]
    error: str | None
    events: int
    """How many events the ``events`` query can return so far."""


@dataclass(kw_only=True)
class ToolSpec:
    """What the workflow needs of a tool: the wire definition, no code."""

    name: str
    description: str
    parameters: JSON
    label: str
    execution_mode: str | None = None


@dataclass(kw_only=True)
class WorkerCatalog:
    """The ``describe`` activity's answer: models (pi ``Model`` JSON) and tools by name."""

    models: dict[str, JSON]
    tools: list[ToolSpec]


@dataclass(kw_only=True)
class ModelCall:
    """The model activity's input: one request, already converted for the LLM."""

    model: str
    context: JSON
    """A :class:`pi_sdk.Context` as JSON (system prompt, messages, tools)."""
    options: JSON


@dataclass(kw_only=True)
class ToolRun:
    """The tool activity's input: one validated call."""

    tool: str
    tool_call_id: str
    args: JSON


@dataclass(kw_only=True)
class ToolOutcome:
    """The tool activity's output: a result, or the failure text the loop turns into one."""

    content: list[JSON] = field(default_factory=list[JSON])
    details: Any = None
    terminate: bool = False
    error: str | None = None
