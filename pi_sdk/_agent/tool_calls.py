"""Running the tool calls of one assistant message (pi-mono ``executeToolCalls``, pi-spec §8.5).

Per call: ``tool_execution_start``; *prepare* (find the tool, validate the arguments, ask the
``before_tool_call`` callable and plugin hooks); *execute* (``tool.execute`` with the abort signal
and an update callback); *finalize* (the ``after_tool_call`` callable and plugin hooks); then
``tool_execution_end`` and the tool-result message (``message_start`` / ``message_end``).

Failures are results, never exceptions (pi-agent-core 1.6): an unknown tool, invalid arguments,
a blocked call, a hook that raises in preparation (``prepare_arguments``, validation,
``before_tool_call``), a tool that raises (or returns something that is no result), and an
``after_tool_call`` callable or plugin that raises all become an error tool result the model can
read, with the exception's text; the run goes on. A blocked call's result has ``details``
:data:`BLOCKED_DETAILS` (``{"blocked": true}``), so that a UI can tell a call that was refused
from one that ran and failed. An ``after_tool_call`` that raises keeps the call's
``duration_ms`` (the tool ran) and is logged at WARNING on this module's logger.

A reply cut at the output token limit (``stop_reason`` ``"length"``): pi-agent-core 1.6 runs
none of its tool calls, since its parser salvages truncated arguments into ones that validate.
pi-sdk never salvages: a call whose argument text was cut is invalid (below) and never runs,
while a whole call (Gemini sends each call whole) runs. A deliberate difference.

``duration_ms`` (``tool_execution_end`` and the tool-result message, pi-agent-core 1.6
``durationMs``) is how long ``execute`` took, in whole milliseconds on the monotonic clock, up to
its return or raise (the progress updates it queued are delivered after that); a call that never
ran (unknown, invalid, blocked, skipped) has none. Updates a tool pushes once ``execute`` has
returned or raised (a callback it kept, a thread left behind after an abort) are dropped, as
pi-agent-core 1.6 does: a call's updates never follow its ``tool_execution_end``.

Modes (pi-agent-core 0.73: a batch with a call to a tool whose ``execution_mode`` is
``"sequential"`` runs sequentially whatever ``config.tool_execution`` says):

* ``sequential``: prepare, execute and finalize one call at a time; steering is polled after
  each call, and a steering message skips the remaining calls;
* ``parallel`` (default): prepare every call in order (steering polled after each preparation;
  a steering message skips every call not yet run), run the prepared calls concurrently, then
  finalize and emit the outcomes **in source order**. pi-mono emits immediate outcomes (not
  found, invalid, blocked) before the executed ones (pi-spec §10.1 #14); pi-sdk keeps the tool
  results in the order of the tool calls.

Invalid arguments (a pi-sdk rule; pi-mono runs such calls with its partial parse): a call whose
argument text was not one whole JSON object (``ToolCall.invalid_arguments``, or pi-ai 1.6's
``ToolCall.arguments_error`` on a call from a pi transcript) is never run; it
gets the error result :func:`pi_sdk._wire.invalid_arguments.invalid_arguments_text`.

Abort (a pi-sdk addition; pi-mono only passes the signal on, pi-spec §8.5): once the run's
signal is aborted, no call that has not started executing is started. Each gets the error result
:data:`ABORTED_TEXT`, like a steering skip: in ``sequential`` mode the calls after the one that
was running, in ``parallel`` mode every call when the abort comes during the prepare phase.
Calls already executing see the signal and should honour it: one that has not returned
``config.tool_abort_grace_ms`` after the abort is cancelled, and if it does not stop within
another grace period (or runs in a thread) it is left behind with a logged warning; its call
gets the error result :func:`abandoned_text`, and the run ends ``aborted`` as usual.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from pi_sdk._agent.tool_hooks import (
    BLOCKED_TEXT,
    ToolCallHooks,
    resolve,
    run_after_tool_call_hooks,
    run_before_tool_call_hooks,
)
from pi_sdk._agent.tools import find_tool, to_tool_result
from pi_sdk._wire.abort import AbortController, AbortSignal
from pi_sdk._wire.agent_types import (
    AfterToolCallContext,
    AgentContext,
    AgentEvent,
    AgentMessage,
    AgentTool,
    AgentToolResult,
    BeforeToolCallContext,
    MessageEndEvent,
    MessageStartEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
)
from pi_sdk._wire.invalid_arguments import has_invalid_arguments, invalid_arguments_text
from pi_sdk._wire.json_data import NotJsonData, to_json_data
from pi_sdk._wire.loop_config import AgentLoopConfig
from pi_sdk._wire.redact import exception_text
from pi_sdk.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage

__all__ = [
    "ABORTED_TEXT",
    "BLOCKED_DETAILS",
    "BLOCKED_TEXT",
    "SKIPPED_TEXT",
    "ToolCallHooks",
    "abandoned_text",
    "ToolBatchResult",
    "execute_tool_calls",
    "resolve",
    "skip_tool_calls",
    "run_after_tool_call_hooks",
    "run_before_tool_call_hooks",
]

SKIPPED_TEXT = "Skipped due to queued user message."
"""Error text of a tool call skipped because a steering message arrived (pi-mono)."""
ABORTED_TEXT = "Skipped because the run was aborted."
"""Error text of a tool call not started because the run's signal was aborted (pi-sdk)."""

_log = logging.getLogger(__name__)

Emit = Callable[[AgentEvent], Coroutine[Any, Any, None]]


PollSteering = Callable[[], Awaitable[list[AgentMessage]]]


def _describe(exc: BaseException) -> str:
    return exception_text(exc)


def _current_task_cancelling() -> bool:
    """True when the task running this code is itself being cancelled (not just the tool)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


async def _first_of(task: asyncio.Future[Any], signal: AbortSignal) -> None:
    """Return once ``task`` is done or ``signal`` aborts, whichever comes first.

    One future woken by two callbacks: what ``asyncio.wait({task, signal.wait()},
    FIRST_COMPLETED)`` does, without a second task and ``wait``'s own futures per tool call
    (about 5% of an Agent's tool round trip, ``benchmarks/bench_agent_loop.py``).
    """
    waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def wake(*_: object) -> None:
        if not waiter.done():
            waiter.set_result(None)

    task.add_done_callback(wake)
    remove = signal.add_callback(wake)
    try:
        await waiter
    finally:
        remove()
        task.remove_done_callback(wake)


def _retrieve(task: asyncio.Future[Any]) -> None:
    """Consume a left-behind tool's outcome so asyncio does not log it as never retrieved."""
    if not task.cancelled():
        task.exception()


def abandoned_text(name: str, grace_s: float) -> str:
    """The error result of a tool that did not stop within the grace period after an abort."""
    return (
        f"Tool {name} did not stop within {grace_s:g} s after the run was aborted; it was"
        " cancelled (a tool running in a thread is left behind and its result dropped)."
    )


def _error_result(text: str) -> AgentToolResult:
    return AgentToolResult(content=[TextContent(text=text)], details={})


BLOCKED_DETAILS = {"blocked": True}
"""The ``details`` of a blocked call's error result (pi-sdk): a UI tells it from a failure."""


def _with_json_details(
    tool_call: ToolCall, result: AgentToolResult, is_error: bool
) -> tuple[AgentToolResult, bool]:
    """The result with its ``details`` made JSON data (:func:`pi_sdk._wire.json_data.to_json_data`).

    Details with no JSON form make an error result: the tool ran, so its own content is kept
    after a first block saying why its details were dropped (a model that reads "failed" alone
    might run it again).
    """
    try:
        details = to_json_data(result.details)
    except NotJsonData as exc:
        text = f"Tool {tool_call.name} ran, but its details cannot be stored: {exc}."
        content = [TextContent(text=text), *result.content]
        return dataclasses.replace(result, content=content, details=None), True
    if details is result.details:
        return result, is_error
    return dataclasses.replace(result, details=details), is_error


@dataclass(kw_only=True, slots=True)
class ToolBatchResult:
    """Outcome of one assistant message's tool calls."""

    tool_results: list[ToolResultMessage]
    """One result per tool call, in the order of the calls."""
    steering_messages: list[AgentMessage] | None = None
    """Steering messages polled during the batch, to inject before the next model call."""
    terminate: bool = False
    """Every call's result asked to terminate: do not call the model for these results."""


@dataclass(slots=True)
class _Immediate:
    tool_call: ToolCall
    result: AgentToolResult
    is_error: bool = True


@dataclass(slots=True)
class _Prepared:
    tool_call: ToolCall
    tool: AgentTool
    args: Any


# --- hooks: the one call site for callables and plugins ---------------------------------------


# --- progress updates -------------------------------------------------------------------------


class _Updates:
    """The ``on_update`` callback of one call: ordered, thread-safe, drained before the end.

    Closed once ``execute`` returned or raised: later updates are dropped (pi-agent-core 1.6
    ``acceptingUpdates``).
    """

    def __init__(self, emit: Emit, tool_call: ToolCall) -> None:
        self._emit = emit
        self._tool_call = tool_call
        self._loop = asyncio.get_running_loop()
        self._pending: set[asyncio.Task[None]] = set()
        self.closed = False

    def push(self, partial: AgentToolResult) -> None:
        try:
            on_loop = asyncio.get_running_loop() is self._loop
        except RuntimeError:
            on_loop = False
        if on_loop:
            self._schedule(partial)
        else:
            self._loop.call_soon_threadsafe(self._schedule, partial)

    def _schedule(self, partial: AgentToolResult) -> None:
        if self.closed:
            return
        event = ToolExecutionUpdateEvent(
            tool_call_id=self._tool_call.id,
            tool_name=self._tool_call.name,
            args=self._tool_call.arguments,
            partial_result=partial,
        )
        task = self._loop.create_task(self._emit(event))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def drain(self) -> None:
        while self._pending:
            await asyncio.gather(*self._pending)


# --- one call ---------------------------------------------------------------------------------


@dataclass(eq=False, repr=False)  # repr: the config may hold an API key
class _Batch:
    """One assistant message's tool calls: what preparing, running and finishing them share."""

    context: AgentContext
    message: AssistantMessage
    config: ToolCallHooks
    signal: AbortSignal
    emit: Emit
    poll_steering: PollSteering | None
    on_result: Callable[[ToolResultMessage], None] | None
    terminate_flags: list[bool] = field(default_factory=list[bool], init=False)

    async def start(self, tool_call: ToolCall) -> None:
        await self.emit(
            ToolExecutionStartEvent(
                tool_call_id=tool_call.id, tool_name=tool_call.name, args=tool_call.arguments
            )
        )

    async def prepare(self, tool_call: ToolCall) -> _Immediate | _Prepared:
        found = find_tool(self.context.tools, tool_call.name)
        if found is None:
            return _Immediate(tool_call, _error_result(f"Tool {tool_call.name} not found"))
        if has_invalid_arguments(tool_call):
            text = invalid_arguments_text(tool_call, self.message)
            return _Immediate(tool_call, _error_result(text))
        try:
            args = found.validate_arguments(found.prepare_arguments(tool_call.arguments))
            before = await run_before_tool_call_hooks(
                BeforeToolCallContext(
                    assistant_message=self.message,
                    tool_call=tool_call,
                    args=args,
                    context=self.context,
                ),
                self.config,
                self.signal,
            )
        except Exception as exc:  # noqa: BLE001 - pi-mono: becomes the call's error result
            return _Immediate(tool_call, _error_result(_describe(exc)))
        if before is not None:
            blocked = _error_result(before.reason or BLOCKED_TEXT)
            blocked.details, blocked.terminate = BLOCKED_DETAILS, before.terminate
            return _Immediate(tool_call, blocked)
        return _Prepared(tool_call, found, args)

    async def execute(self, prepared: _Prepared) -> tuple[AgentToolResult, bool, int]:
        """Run the tool: its result, whether it failed, and how long ``execute`` took (ms)."""
        updates = _Updates(self.emit, prepared.tool_call)
        call = prepared.tool_call
        started = time.monotonic()
        ended, closing, settled = started, False, True
        task = asyncio.ensure_future(
            prepared.tool.execute(call.id, prepared.args, self.signal, updates.push)
        )
        try:
            if not (settled := await self._settle(task, call.name)):
                result, is_error = _error_result(abandoned_text(call.name, self.grace_s)), True
            else:
                result = to_tool_result(task.result())
                is_error = result.is_error
        except asyncio.CancelledError:
            if not task.cancelled() or _current_task_cancelling():
                raise
            result, is_error = _error_result(abandoned_text(call.name, self.grace_s)), True
        except Exception as exc:  # noqa: BLE001 - tools report failure by raising
            result, is_error = _error_result(_describe(exc)), True
        except GeneratorExit:  # the run's coroutine is being closed: it may not wait
            closing = True
            raise
        finally:
            ended = time.monotonic()  # the tool returned or raised (pi: before its updates drain)
            updates.closed = True
            if not task.done():
                task.cancel()
                if settled and not closing:  # the run was cancelled: let the tool clean up
                    await asyncio.wait({task}, timeout=self.grace_s)
            if not closing:
                await updates.drain()
        return result, is_error, round((ended - started) * 1000)

    async def _settle(self, task: asyncio.Future[Any], name: str) -> bool:
        """Wait for the tool; after an abort, at most the grace period, then cancel it.

        Returns ``True`` once the task is done (by itself, or cancelled after ignoring the
        abort for the grace period); ``False`` when it is still not done one more grace period
        after the cancel (a coroutine that swallows the cancellation): it is left behind. A
        sync function in a thread ends at the cancel; its thread is left behind
        (:mod:`pi_sdk._agent.tool_thread`).
        """
        if task.done():
            return True
        await _first_of(task, self.signal)
        if task.done():
            return True
        await asyncio.wait({task}, timeout=self.grace_s)
        if task.done():
            return True
        _log.warning("tool %r ignored the abort for %.3g s: cancelling it", name, self.grace_s)
        task.cancel()
        await asyncio.wait({task}, timeout=self.grace_s)
        if task.done():
            return True
        _log.warning("tool %r did not stop when cancelled: it is left behind", name)
        task.add_done_callback(_retrieve)
        return False

    async def after(
        self, prepared: _Prepared, result: AgentToolResult, is_error: bool
    ) -> tuple[AgentToolResult, bool]:
        """``after_tool_call`` (callable, then plugins); one that raises makes an error result."""
        context = AfterToolCallContext(
            assistant_message=self.message,
            tool_call=prepared.tool_call,
            args=prepared.args,
            result=result,
            is_error=is_error,
            context=self.context,
        )
        try:
            return await run_after_tool_call_hooks(context, self.config, self.signal)
        except Exception as exc:  # noqa: BLE001 - pi-agent-core 1.6: the call's error result
            name = prepared.tool_call.name
            _log.warning("after_tool_call raised for tool %r: %s", name, _describe(exc))
            return _error_result(_describe(exc)), True

    async def finalize(
        self, prepared: _Prepared, result: AgentToolResult, is_error: bool, duration_ms: int
    ) -> ToolResultMessage:
        result, is_error = await self.after(prepared, result, is_error)
        return await self.outcome(prepared.tool_call, result, is_error, duration_ms)

    async def outcome(
        self,
        tool_call: ToolCall,
        result: AgentToolResult,
        is_error: bool,
        duration_ms: int | None = None,
    ) -> ToolResultMessage:
        result, is_error = _with_json_details(tool_call, result, is_error)
        await self.emit(
            ToolExecutionEndEvent(
                tool_call_id=tool_call.id,
                tool_name=tool_call.name,
                result=result,
                is_error=is_error,
                duration_ms=duration_ms,
            )
        )
        message = ToolResultMessage(
            tool_call_id=tool_call.id,
            tool_name=tool_call.name,
            content=list(result.content),
            details=result.details,
            usage=result.usage,
            is_error=is_error,
            duration_ms=duration_ms,
        )
        self.terminate_flags.append(result.terminate)
        await self.emit(MessageStartEvent(message=message))
        await self.emit(MessageEndEvent(message=message))
        if self.on_result is not None:
            self.on_result(message)
        return message

    async def skip(
        self, tool_call: ToolCall, *, emit_start: bool, text: str = SKIPPED_TEXT
    ) -> ToolResultMessage:
        if emit_start:
            await self.start(tool_call)
        return await self.outcome(tool_call, _error_result(text), True)

    @property
    def grace_s(self) -> float:
        """The abort grace period, seconds (``config.tool_abort_grace_ms``)."""
        return self.config.tool_abort_grace_ms / 1000

    @property
    def aborted(self) -> bool:
        return self.signal.aborted

    async def steering(self) -> list[AgentMessage]:
        if self.poll_steering is None:
            return []
        return await self.poll_steering()


# --- modes ------------------------------------------------------------------------------------


async def _sequential(batch: _Batch, calls: Sequence[ToolCall]) -> ToolBatchResult:
    results: list[ToolResultMessage] = []
    for index, tool_call in enumerate(calls):
        if batch.aborted:
            for rest in calls[index:]:
                results.append(await batch.skip(rest, emit_start=True, text=ABORTED_TEXT))
            return ToolBatchResult(tool_results=results)
        await batch.start(tool_call)
        prepared = await batch.prepare(tool_call)
        if isinstance(prepared, _Immediate):
            results.append(await batch.outcome(tool_call, prepared.result, prepared.is_error))
        elif batch.aborted:  # aborted while a before_tool_call hook ran
            results.append(await batch.skip(tool_call, emit_start=False, text=ABORTED_TEXT))
        else:
            result, is_error, duration_ms = await batch.execute(prepared)
            results.append(await batch.finalize(prepared, result, is_error, duration_ms))
        steering = await batch.steering()
        if steering:
            for rest in calls[index + 1 :]:
                results.append(await batch.skip(rest, emit_start=True))
            return ToolBatchResult(tool_results=results, steering_messages=steering)
    return ToolBatchResult(tool_results=results)


async def _parallel(batch: _Batch, calls: Sequence[ToolCall]) -> ToolBatchResult:
    outcomes: list[_Immediate | _Prepared] = []
    results: list[ToolResultMessage] = []
    steering: list[AgentMessage] = []
    for tool_call in calls:
        if batch.aborted:
            break  # an abort never clears: the later calls are skipped below
        await batch.start(tool_call)
        outcomes.append(await batch.prepare(tool_call))
        steering = await batch.steering()
        if steering:
            break
    if steering or batch.aborted:
        text = ABORTED_TEXT if batch.aborted else SKIPPED_TEXT
        for outcome in outcomes:
            if isinstance(outcome, _Immediate):
                results.append(await batch.outcome(outcome.tool_call, outcome.result, True))
            else:
                results.append(await batch.skip(outcome.tool_call, emit_start=False, text=text))
        for rest in calls[len(outcomes) :]:
            results.append(await batch.skip(rest, emit_start=True, text=text))
        return ToolBatchResult(tool_results=results, steering_messages=steering or None)

    tasks = {
        i: asyncio.ensure_future(batch.execute(o))
        for i, o in enumerate(outcomes)
        if isinstance(o, _Prepared)
    }
    try:
        for i, outcome in enumerate(outcomes):
            if isinstance(outcome, _Immediate):
                results.append(await batch.outcome(outcome.tool_call, outcome.result, True))
            else:
                result, is_error, duration_ms = await tasks[i]
                results.append(await batch.finalize(outcome, result, is_error, duration_ms))
    except BaseException as exc:
        for task in tasks.values():
            task.cancel()
        if not isinstance(exc, GeneratorExit):  # a coroutine being closed must not wait
            await asyncio.gather(*tasks.values(), return_exceptions=True)
        raise
    return ToolBatchResult(tool_results=results, steering_messages=await batch.steering() or None)


async def execute_tool_calls(
    context: AgentContext,
    message: AssistantMessage,
    config: AgentLoopConfig,
    signal: AbortSignal,
    emit: Emit,
    poll_steering: PollSteering | None = None,
    on_result: Callable[[ToolResultMessage], None] | None = None,
) -> ToolBatchResult:
    """Run every tool call of ``message`` in ``config.tool_execution`` mode.

    The batch runs sequentially when a called tool's ``execution_mode`` is ``"sequential"``.

    Args:
        context: The loop's working context (tools, transcript for hooks).
        message: The assistant message whose tool calls run.
        config: Hooks and mode.
        signal: The run's abort signal, passed to tools and hooks.
        emit: Awaited for every event.
        poll_steering: Returns queued steering messages (empty when none).
        on_result: Called with each tool-result message right after its ``message_end``.

    Returns:
        The tool-result messages in call order, steering messages seen, and whether every
        result asked to terminate.

    """
    calls = message.tool_calls
    batch = _Batch(context, message, config, signal, emit, poll_steering, on_result)
    sequential = config.tool_execution == "sequential" or any(
        (tool := find_tool(context.tools, call.name)) is not None
        and tool.execution_mode == "sequential"
        for call in calls
    )
    if sequential:
        outcome = await _sequential(batch, calls)
    else:
        outcome = await _parallel(batch, calls)
    outcome.terminate = bool(batch.terminate_flags) and all(batch.terminate_flags)
    return outcome


async def skip_tool_calls(
    message: AssistantMessage,
    emit: Emit,
    on_result: Callable[[ToolResultMessage], None] | None,
    text: str,
) -> ToolBatchResult:
    """Answer every tool call of ``message`` with the error result ``text``, running none.

    Each call still gets ``tool_execution_start`` / ``tool_execution_end`` and its tool-result
    message, so the transcript stays valid (a usage limit stopped the run, e.g.).
    """
    # A skip reads neither the config nor the signal.
    config = cast("AgentLoopConfig", None)
    batch = _Batch(AgentContext(), message, config, AbortController().signal, emit, None, on_result)
    results = [await batch.skip(call, emit_start=True, text=text) for call in message.tool_calls]
    return ToolBatchResult(tool_results=results)
