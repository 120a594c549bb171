"""The tool-call hooks: ``before_tool_call`` and ``after_tool_call``, callables then plugins.

The one place the loop (:mod:`pi_sdk._agent.tool_calls`) and ``run_tool_call`` ask them: the
callable of the loop's config first, then each plugin's hook implementation in plugin order
(:func:`pi_sdk.plugins.hook_implementations`). ``before_tool_call`` plugins fail closed (a raise
or a wrong answer blocks the call); an ``after_tool_call`` raise is the caller's to turn into an
error result (pi-agent-core 1.6).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable
from typing import Protocol, TypeVar

import pluggy

from pi_sdk._plugins.calling import call_hook_implementation, hook_implementations
from pi_sdk._wire.abort import AbortSignal
from pi_sdk._wire.agent_types import (
    AfterToolCall,
    AfterToolCallContext,
    AfterToolCallResult,
    AgentToolResult,
    BeforeToolCall,
    BeforeToolCallContext,
    BeforeToolCallResult,
)

__all__ = [
    "BLOCKED_TEXT",
    "ToolCallHooks",
    "resolve",
    "run_after_tool_call_hooks",
    "run_before_tool_call_hooks",
]

T = TypeVar("T")

BLOCKED_TEXT = "Tool execution was blocked"
"""Error text of a blocked call whose callable or plugin gave no reason (pi-mono's wording)."""


class ToolCallHooks(Protocol):
    """What running a tool call reads of the loop's config (pi ``ToolCallHooks``).

    An :class:`AgentLoopConfig` fits.
    """

    before_tool_call: BeforeToolCall | None
    after_tool_call: AfterToolCall | None
    tool_abort_grace_ms: float


async def resolve(value: T | Awaitable[T]) -> T:
    """Await ``value`` if it is awaitable (sync-or-async callbacks)."""
    if inspect.isawaitable(value):
        return await value
    return value


async def run_before_tool_call_hooks(
    context: BeforeToolCallContext, config: ToolCallHooks, signal: AbortSignal
) -> BeforeToolCallResult | None:
    """Ask ``config.before_tool_call``, then each ``before_tool_call`` plugin; any block wins.

    The callable is asked first; the plugins only when it allowed the call, in plugin order
    (:func:`pi_sdk.plugins.hook_implementations`), awaited one at a time. The first answer with
    ``block=True`` is returned at once (later plugins are not asked); a plugin's block without
    a reason gets :data:`BLOCKED_TEXT`. Plugins fail closed: one that raises, or answers
    something other than ``None`` / :class:`pi_sdk.BeforeToolCallResult`, blocks the call with
    a reason naming it.

    Returns:
        The blocking answer, or ``None`` to let the call run.

    Raises:
        Whatever the callable raises (the caller turns it into an error result, as pi-mono).
    """
    if config.before_tool_call is not None:
        answer = await resolve(config.before_tool_call(context, signal))
        if answer is not None and answer.block:
            return answer
    for impl in hook_implementations("before_tool_call"):
        try:
            answer = await call_hook_implementation(impl, context=context, signal=signal)
        except Exception as exc:  # noqa: BLE001 - a failing policy must not let the call through
            return _plugin_block(impl, f"failed: {type(exc).__name__}: {exc}")
        if answer is None:
            continue
        if not isinstance(answer, BeforeToolCallResult):
            return _plugin_block(
                impl, f"returned {type(answer).__name__}, expected BeforeToolCallResult or None"
            )
        if answer.block:
            return dataclasses.replace(answer, reason=answer.reason or BLOCKED_TEXT)
    return None


def _plugin_block(impl: pluggy.HookImpl, why: str) -> BeforeToolCallResult:
    return BeforeToolCallResult(
        block=True, reason=f"before_tool_call of plugin {impl.plugin_name!r} {why}"
    )


def _apply_after(
    answer: AfterToolCallResult | None, context: AfterToolCallContext
) -> AfterToolCallContext:
    """Lay one ``after_tool_call`` answer on the call: each field that is not ``None`` wins.

    A new ``content`` without ``structured_content`` drops the old structured content, which
    may no longer match it (pi-agent-core 1.6).
    """
    if answer is None:
        return context
    result = context.result
    structured = answer.structured_content
    if structured is None and answer.content is None:
        structured = result.structured_content
    return dataclasses.replace(
        context,
        result=AgentToolResult(
            content=list(answer.content) if answer.content is not None else result.content,
            details=answer.details if answer.details is not None else result.details,
            terminate=answer.terminate if answer.terminate is not None else result.terminate,
            is_error=result.is_error,
            structured_content=structured,
            usage=answer.usage if answer.usage is not None else result.usage,
        ),
        is_error=answer.is_error if answer.is_error is not None else context.is_error,
    )


async def run_after_tool_call_hooks(
    context: AfterToolCallContext, config: ToolCallHooks, signal: AbortSignal
) -> tuple[AgentToolResult, bool]:
    """Apply ``config.after_tool_call``, then each ``after_tool_call`` plugin in plugin order.

    Every answer is laid on the result as the previous ones left it: a field that is not
    ``None`` replaces the result's (pi-mono), and the next hook sees the change (a new
    :class:`pi_sdk.AgentToolResult`; ``context`` itself is not mutated).

    Returns:
        The final ``(result, is_error)``.

    Raises:
        Whatever the callable or a plugin raises (the run then ends with an error message; a
        plugin's error carries a note naming it). A plugin answering something other than
        ``None`` / :class:`pi_sdk.AfterToolCallResult` raises :class:`TypeError` naming it.
    """
    if config.after_tool_call is not None:
        context = _apply_after(await resolve(config.after_tool_call(context, signal)), context)
    for impl in hook_implementations("after_tool_call"):
        answer = await call_hook_implementation(impl, context=context, signal=signal)
        if answer is not None and not isinstance(answer, AfterToolCallResult):
            raise TypeError(
                f"after_tool_call of plugin {impl.plugin_name!r} returned"
                f" {type(answer).__name__}, expected AfterToolCallResult or None"
            )
        context = _apply_after(answer, context)
    return context.result, context.is_error
