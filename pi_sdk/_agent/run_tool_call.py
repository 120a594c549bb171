"""One tool call through every step, without events: pi-agent-core 1.6 ``runToolCall``.

A tool that calls other tools (codemode, an MCP bridge, a planner) runs each nested call through
the same steps as a call the model made: argument preparation, validation, ``before_tool_call``
(the callable and the plugins: a permission check applies to nested calls too), execution, and
``after_tool_call``. Nothing is emitted and nothing is added to a transcript: the caller decides
what to do with the outcome (e.g. record it in ``ToolResultMessage.nested_calls``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pi_sdk._agent.tool_calls import (
    ABORTED_TEXT,
    _Batch,  # pyright: ignore[reportPrivateUsage]
    _error_result,  # pyright: ignore[reportPrivateUsage]
    _Immediate,  # pyright: ignore[reportPrivateUsage]
)
from pi_sdk._wire.abort import AbortController, AbortSignal
from pi_sdk._wire.agent_types import (
    AfterToolCall,
    AgentContext,
    AgentEvent,
    AgentTool,
    AgentToolResult,
    BeforeToolCall,
    ToolExecutionUpdateEvent,
)
from pi_sdk.types import AssistantMessage, ToolCall

__all__ = ["AgentToolCallOutcome", "run_tool_call"]


@dataclass(kw_only=True, slots=True)
class AgentToolCallOutcome:
    """The final outcome of one tool call, hooks applied (pi ``AgentToolCallOutcome``)."""

    tool_call: ToolCall
    result: AgentToolResult
    is_error: bool
    duration_ms: int | None = None
    """Milliseconds ``execute`` took (monotonic clock); ``None`` when the tool did not run."""


@dataclass(kw_only=True, slots=True)
class _Hooks:
    before_tool_call: BeforeToolCall | None
    after_tool_call: AfterToolCall | None
    tool_abort_grace_ms: float


async def run_tool_call(
    tool_call: ToolCall,
    *,
    tools: list[AgentTool],
    assistant_message: AssistantMessage,
    context: AgentContext | None = None,
    before_tool_call: BeforeToolCall | None = None,
    after_tool_call: AfterToolCall | None = None,
    signal: AbortSignal | None = None,
    on_update: Callable[[AgentToolResult], Any] | None = None,
    tool_abort_grace_ms: float = 2000,
) -> AgentToolCallOutcome:
    """Run ``tool_call`` through preparation, validation, hooks and execution; emit nothing.

    Never raises for a tool failure: an aborted ``signal`` (checked first, before any hook), an
    unknown tool, invalid arguments, a blocked call, a tool that raises, and an
    ``after_tool_call`` that raises all come back as an outcome with ``is_error`` (pi-agent-core
    1.6). The ``before_tool_call`` / ``after_tool_call`` plugins are asked too, after the
    callables, as for the model's calls.

    Example:
        ```python
        async def execute(call_id, args, signal, on_update):
            call = ToolCall(id=f"{call_id}.1", name="read", arguments={"path": args["path"]})
            outcome = await run_tool_call(call, tools=tools, assistant_message=message)
            return outcome.result
        ```

    Args:
        tool_call: The call to run (``id``, ``name``, ``arguments``).
        tools: The tools it resolves against (by name).
        assistant_message: Passed to the hooks as the message that issued the call.
        context: Passed to the hooks as the agent context (default: empty, with ``tools``).
        before_tool_call: May block the call (:data:`pi_sdk.agent.BeforeToolCall`).
        after_tool_call: May change the result (:data:`pi_sdk.agent.AfterToolCall`).
        signal: The abort signal passed to the hooks and the tool.
        on_update: Called with each partial result the tool reports.
        tool_abort_grace_ms: After an abort, how long the tool may take to stop (ms).

    Returns:
        An :class:`AgentToolCallOutcome`.
    """
    signal = signal or AbortController().signal
    context = context or AgentContext(tools=list(tools))
    if context.tools is not tools:
        context = AgentContext(system_prompt=context.system_prompt, messages=context.messages)
        context.tools = list(tools)
    if signal.aborted:
        return AgentToolCallOutcome(
            tool_call=tool_call, result=_error_result(ABORTED_TEXT), is_error=True
        )

    async def emit(event: AgentEvent) -> None:
        if on_update is not None and isinstance(event, ToolExecutionUpdateEvent):
            on_update(event.partial_result)

    hooks = _Hooks(
        before_tool_call=before_tool_call,
        after_tool_call=after_tool_call,
        tool_abort_grace_ms=tool_abort_grace_ms,
    )
    batch = _Batch(context, assistant_message, hooks, signal, emit, None, None)
    prepared = await batch.prepare(tool_call)
    if isinstance(prepared, _Immediate):
        return AgentToolCallOutcome(
            tool_call=tool_call, result=prepared.result, is_error=prepared.is_error
        )
    result, is_error, duration_ms = await batch.execute(prepared)
    result, is_error = await batch.after(prepared, result, is_error)  # a raise: an error result
    return AgentToolCallOutcome(
        tool_call=tool_call, result=result, is_error=is_error, duration_ms=duration_ms
    )
