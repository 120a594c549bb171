"""The spans: one ``invoke_agent`` per run, one ``turn`` per turn, ``chat`` and ``execute_tool``.

:class:`Tracing` turns the two observer hooks into spans. An agent run's events
(``on_agent_event``) open and close the run, turn and tool spans; a model call
(``on_model_call``) opens a ``chat`` span under its run's open turn (or under the current
OpenTelemetry context when no agent makes the call), closed with the final message::

    invoke_agent                 (INTERNAL)
    ├── turn                     (INTERNAL, pi_sdk.turn.index = 1)
    │   ├── chat claude-sonnet-4-5   (CLIENT)
    │   ├── execute_tool get_weather (INTERNAL)
    │   └── execute_tool get_time    (INTERNAL)
    └── turn                     (pi_sdk.turn.index = 2)
        └── chat claude-sonnet-4-5

Parents are given explicitly (the run is looked up by its ``run_id``), never attached to the
current context, so nothing leaks into the application's context when a run is cancelled.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pi_sdk import (
    AssistantMessage,
    Context,
    Model,
    StreamOptions,
    current_system_prompt,
    current_tools,
)
from pi_sdk.types import TextContent, Usage

from . import attributes as attr
from .metrics import Metrics

if TYPE_CHECKING:
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import Span, Tracer, TracerProvider

    from pi_sdk import AgentEvent

__all__ = ["MAX_OPEN_RUNS", "Tracing"]

MAX_OPEN_RUNS = 10_000
"""Runs tracked at once; past it the oldest run's spans are ended (a run whose task was
cancelled never sends ``agent_end``)."""

_TRACER_NAME = "pi_sdk_otel"
_UNTRACED = frozenset({"message_start", "message_update", "tool_execution_update"})
"""Events that open or close no span (most of a run's events: one per streamed delta)."""


@dataclass(eq=False)
class _Call:
    """One model call's clock: its start and its first streamed chunk (``perf_counter``)."""

    start: float
    first_chunk: float | None = None


@dataclass(eq=False)
class _Run:
    span: Span
    model: Model
    call: _Call | None = None
    """The run's model call in progress (its ``message_update`` events time the first chunk)."""
    turn: Span | None = None
    turns: int = 0
    tools: dict[str, Span] = field(default_factory=dict[str, "Span"])
    usage: Usage = field(default_factory=Usage)
    last: AssistantMessage | None = None


class Tracing:
    """Spans for agent runs, turns, model calls and tool executions; metrics of model calls.

    Both follow the GenAI conventions; the metrics are described in :mod:`pi_sdk_otel.metrics`.

    Example:
        ```python
        import pi_sdk_otel
        from opentelemetry.sdk.trace import TracerProvider

        pi_sdk_otel.configure(pi_sdk_otel.Tracing(TracerProvider(), capture_content=True))
        ```

    Prompts, completions, tool arguments and results (``gen_ai.input.messages``,
    ``gen_ai.output.messages``, ``gen_ai.system_instructions``, ``gen_ai.tool.definitions``,
    ``gen_ai.tool.call.arguments``, ``gen_ai.tool.call.result``) are recorded only when
    ``capture_content`` is on: they are sensitive and large, and the conventions say not to
    capture them by default.
    """

    def __init__(
        self,
        tracer_provider: TracerProvider | None = None,
        *,
        meter_provider: MeterProvider | None = None,
        capture_content: bool | Callable[[], bool] = False,
    ) -> None:
        """Set up the spans' and the metrics' source.

        Args:
            tracer_provider: Where spans go; default: OpenTelemetry's global provider (a no-op
                until the application sets one), read when each span starts.
            meter_provider: Where the metrics of model calls go (:mod:`pi_sdk_otel.metrics`);
                default: OpenTelemetry's global meter provider, read on the first call.
            capture_content: Record prompts, completions and tool values: a bool, or a
                callable asked at each span (the plugin's default reads
                ``PI_SDK_OTEL_CAPTURE_CONTENT``).
        """
        self.metrics = Metrics(meter_provider)
        """The metrics of the model calls (durations, tokens, first chunk, cost)."""
        self._provider = tracer_provider
        self._tracer: Tracer | None = None
        self._capture = capture_content
        self._runs: OrderedDict[str, _Run] = OrderedDict()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Tracing(capture_content={self.capture_content})"

    @property
    def capture_content(self) -> bool:
        """Whether prompts, completions and tool values are recorded now."""
        capture = self._capture
        return capture() if callable(capture) else capture

    @property
    def tracer(self) -> Tracer:
        """The tracer spans are made with.

        Made once; the global provider's tracer follows a provider the application installs
        later (OpenTelemetry's proxy).
        """
        if self._tracer is None:
            from opentelemetry import trace  # by the first span, not when discovered

            provider = self._provider or trace.get_tracer_provider()
            self._tracer = provider.get_tracer(_TRACER_NAME, attr.scope_version())
        return self._tracer

    # -- model calls -----------------------------------------------------------------------

    def on_model_call(
        self, model: Model, context: Context, options: StreamOptions, run_id: str | None
    ) -> Callable[[AssistantMessage], None]:
        """Start a ``chat {model}`` span; return what ends it with the final message."""
        with self._lock:
            run = self._runs.get(run_id) if run_id is not None else None
        parent = run.turn or run.span if run is not None else None
        attributes: dict[str, Any] = {attr.OPERATION: "chat", **attr.model_attributes(model)}
        if options.max_tokens is not None:
            attributes[attr.REQUEST_MAX_TOKENS] = options.max_tokens
        if options.temperature is not None:
            attributes[attr.REQUEST_TEMPERATURE] = options.temperature
        if options.session_id:
            attributes[attr.CONVERSATION_ID] = options.session_id
        if self.capture_content:
            attributes[attr.INPUT_MESSAGES] = attr.input_messages(context)
            if prompt := current_system_prompt(context):  # replayed: the transcript's too
                attributes[attr.SYSTEM_INSTRUCTIONS] = attr.system_instructions(prompt)
            if current_tools(context):
                attributes[attr.TOOL_DEFINITIONS] = attr.tool_definitions(context)
        from opentelemetry.trace import SpanKind, set_span_in_context

        span = self.tracer.start_span(
            f"chat {model.id}",
            context=set_span_in_context(parent) if parent is not None else None,
            kind=SpanKind.CLIENT,
            attributes=attributes,
        )
        request = {attr.OPERATION: "chat", **attr.model_attributes(model)}
        call = _Call(time.perf_counter())
        if run is not None:
            run.call = call

        def finish(message: AssistantMessage) -> None:
            if run is not None and run.call is call:
                run.call = None
            first = call.first_chunk - call.start if call.first_chunk is not None else None
            self.metrics.record(request, message, time.perf_counter() - call.start, first)
            span.set_attributes(attr.usage_attributes(message.usage))
            if message.response_id:
                span.set_attribute(attr.RESPONSE_ID, message.response_id)
            if self.capture_content:
                span.set_attribute(attr.OUTPUT_MESSAGES, attr.output_messages(message))
            _set_outcome(span, message)
            span.end()

        return finish

    # -- agent runs ------------------------------------------------------------------------

    def on_agent_event(self, event: AgentEvent, run_id: str, model: Model) -> None:
        """Open or close the run, turn and tool spans ``event`` starts or ends."""
        if event.type in _UNTRACED:
            if event.type == "message_update":  # the first one times the call's first chunk
                run = self._runs.get(run_id)
                call = run.call if run is not None else None
                if call is not None and call.first_chunk is None:
                    call.first_chunk = time.perf_counter()
            return
        if event.type == "agent_start":
            self._start_run(run_id, model)
            return
        with self._lock:
            run = self._runs.get(run_id)
        if run is None:  # started before this Tracing was configured
            return
        match event.type:
            case "turn_start":
                from opentelemetry.trace import set_span_in_context

                run.turns += 1
                run.turn = self.tracer.start_span(
                    "turn",
                    context=set_span_in_context(run.span),
                    attributes={attr.TURN_INDEX: run.turns},
                )
            case "message_end" if isinstance(event.message, AssistantMessage):
                _add_usage(run.usage, event.message.usage)
                run.last = event.message
            case "tool_execution_start":
                self._start_tool(run, event.tool_call_id, event.tool_name, event.args)
            case "tool_execution_end":
                span = run.tools.pop(event.tool_call_id, None)
                if span is not None:
                    self._end_tool(span, event.result, event.is_error)
            case "turn_end":
                if run.turn is not None:
                    if isinstance(event.message, AssistantMessage):
                        _set_status(run.turn, event.message)
                    run.turn.end()
                    run.turn = None
            case "agent_end":
                with self._lock:
                    self._runs.pop(run_id, None)
                self._end_run(run)
            case _:
                pass

    def _start_run(self, run_id: str, model: Model) -> None:
        span = self.tracer.start_span(
            "invoke_agent",
            attributes={attr.OPERATION: "invoke_agent", **attr.model_attributes(model)},
        )
        with self._lock:
            self._runs[run_id] = _Run(span, model)
            stale = self._runs.popitem(last=False)[1] if len(self._runs) > MAX_OPEN_RUNS else None
        if stale is not None:
            from opentelemetry.trace import Status, StatusCode

            stale.span.set_status(Status(StatusCode.ERROR, "abandoned: the run never ended"))
            self._end_run(stale)

    def _start_tool(self, run: _Run, call_id: str, name: str, args: dict[str, Any]) -> None:
        attributes: dict[str, Any] = {
            attr.OPERATION: "execute_tool",
            attr.TOOL_NAME: name,
            attr.TOOL_CALL_ID: call_id,
            attr.TOOL_TYPE: "function",
        }
        if self.capture_content:
            attributes[attr.TOOL_ARGUMENTS] = attr.tool_value(args)
        from opentelemetry.trace import set_span_in_context

        run.tools[call_id] = self.tracer.start_span(
            f"execute_tool {name}",
            context=set_span_in_context(run.turn or run.span),
            attributes=attributes,
        )

    def _end_tool(self, span: Span, result: Any, is_error: bool) -> None:
        content = getattr(result, "content", [])
        if is_error:
            span.set_attribute(attr.ERROR_TYPE, "tool_error")
            text = "".join(b.text for b in content if isinstance(b, TextContent))
            from opentelemetry.trace import Status, StatusCode

            span.set_status(Status(StatusCode.ERROR, text[:500] or "the tool failed"))
        elif self.capture_content:
            span.set_attribute(
                attr.TOOL_RESULT,
                attr.tool_value({"content": content, "details": getattr(result, "details", None)}),
            )
        span.end()

    def _end_run(self, run: _Run) -> None:
        for span in run.tools.values():
            span.end()
        if run.turn is not None:
            run.turn.end()
        run.span.set_attributes(attr.usage_attributes(run.usage))
        if run.last is not None:
            _set_outcome(run.span, run.last)
        run.span.end()


def _add_usage(total: Usage, usage: Usage) -> None:
    total.input += usage.input
    total.output += usage.output
    total.cache_read += usage.cache_read
    total.cache_write += usage.cache_write


def _set_outcome(span: Span, message: AssistantMessage) -> None:
    """The response attributes of ``message``; ERROR status and ``error.type`` if it failed."""
    span.set_attributes(
        {
            attr.RESPONSE_MODEL: message.response_model or message.model,
            attr.FINISH_REASONS_KEY: [
                attr.FINISH_REASONS.get(message.stop_reason, message.stop_reason)
            ],
            attr.STOP_REASON: message.stop_reason,
        }
    )
    _set_status(span, message)


def _set_status(span: Span, message: AssistantMessage) -> None:
    """ERROR status and ``error.type`` for a failed or aborted call; nothing otherwise."""
    kind = attr.error_type(message)
    if kind is None:
        return
    span.set_attribute(attr.ERROR_TYPE, kind)
    text = message.error_message or kind
    description = f"aborted: {text}" if kind == "aborted" else text
    from opentelemetry.trace import Status, StatusCode

    span.set_status(Status(StatusCode.ERROR, description[:500]))
