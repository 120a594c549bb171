"""The stateless agent loop: model call, tool calls, steering and follow-ups (pi-spec §8.2–8.5).

pi-mono ``agent-loop.ts``. Two nested loops: the inner one calls the model, runs the tool calls
of its reply and injects steering messages until the model stops calling tools and nothing is
queued (or, after a reply Anthropic paused mid server-tool run, ``rawStopReason`` ``pause_turn``,
calls again with the history as it is, which continues that turn: a pi-sdk addition); the outer
one then asks for follow-up messages and goes round again if there are any. Every step is
reported as an :data:`pi_sdk.AgentEvent`.

Before each model call the transcript goes through ``transform_context`` (optional, e.g. pruning)
and then ``convert_to_llm``, the only place custom messages become LLM messages.

pi-agent-core 1.6 hooks (:mod:`pi_sdk._agent.turn_hooks`): ``prepare_request`` before every
request, ``finish_turn`` after every turn (before its ``turn_end``), ``prepare_next_turn``
between turns. A request that fails is retried per ``config.retry`` (:mod:`pi_sdk._agent.retry`);
``config.usage_limits`` can end the run before a request (:mod:`pi_sdk._agent.limits`).

Failures never hang the stream and never lose the transcript. A model or request failure is an
assistant message with ``stop_reason`` ``"error"``/``"aborted"`` (pi-mono). An exception from a
callback (``convert_to_llm``, ``transform_context``, ``get_api_key``, the message sources, the
turn hooks) or from a stream function that raises ends the run the same way: the
streaming message (if any) is finalized, or a new error assistant message is emitted, followed by
``turn_end`` and ``agent_end``. pi-mono's ``agentLoop`` stream never ends in that case (pi-spec
§10.1 #13). Tool-call failures are never run failures: a tool or a tool hook that raises gives
the call an error result and the run goes on (:mod:`pi_sdk._agent.tool_calls`, pi-agent-core
1.6).
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging
import uuid
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

from pi_sdk._agent.limits import RunLimits, limit_text
from pi_sdk._agent.messages import default_convert_to_llm, is_plain_llm_list
from pi_sdk._agent.retry import retry_assistant_call
from pi_sdk._agent.tool_calls import ToolBatchResult, execute_tool_calls, resolve, skip_tool_calls
from pi_sdk._agent.tool_declarations import shorthand, tool_change_message
from pi_sdk._agent.transcript import Conversion, TrackedMessages
from pi_sdk._agent.turn_hooks import (
    ask_finish_turn,
    ask_prepare_next_turn,
    ask_prepare_request,
    has_turn_hooks,
)
from pi_sdk._plugins.observers import agent_event_observers, current_run_id, notify_agent_event
from pi_sdk._stream.assistant_message import new_assistant_message
from pi_sdk._stream.log_redaction import install as install_log_redaction
from pi_sdk._wire.abort import AbortController, AbortSignal
from pi_sdk._wire.agent_types import (
    AgentContext,
    AgentEndEvent,
    AgentEvent,
    AgentMessage,
    AgentStartEvent,
    AgentStreamFn,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from pi_sdk._wire.loop_config import AgentLoopConfig, AgentTurnContext, AgentTurnDecision
from pi_sdk._wire.redact import exception_text
from pi_sdk.errors import ConfigurationError
from pi_sdk.options import StreamOptions
from pi_sdk.types import AssistantMessage, Context, Tool, ToolResultMessage

__all__ = [
    "AgentEventStream",
    "agent_loop",
    "agent_loop_continue",
    "run_agent_loop",
]

logger = logging.getLogger("pi_sdk._agent.agent")

Emit = Callable[[AgentEvent], Awaitable[None]]
_STREAM_OPTION_FIELDS = tuple(f.name for f in dataclasses.fields(StreamOptions))


def _describe(exc: BaseException) -> str:
    return exception_text(exc)


@dataclasses.dataclass(eq=False, repr=False)  # repr: the config may hold an API key
class _Run:
    """State of one run: working context, new messages, the open turn and streaming message."""

    context: AgentContext
    config: AgentLoopConfig
    sink: Emit
    signal: AbortSignal
    stream_fn: AgentStreamFn | None
    new_messages: list[AgentMessage] = dataclasses.field(
        default_factory=list[AgentMessage], init=False
    )
    partial: AssistantMessage | None = dataclasses.field(default=None, init=False)
    baseline: list[Tool] | None = dataclasses.field(default=None, init=False)
    """The tools the transcript starts with (``context.declared_tools``, else the first
    request's ``context.tools``)."""
    conversion: Conversion | None = dataclasses.field(default=None, init=False)
    """The transcript's LLM messages, kept up to date (default conversion only)."""
    turn_open: bool = dataclasses.field(default=False, init=False)
    turn_message: AssistantMessage | None = dataclasses.field(default=None, init=False)
    turn_results: list[ToolResultMessage] = dataclasses.field(
        default_factory=list[ToolResultMessage], init=False
    )
    lock: asyncio.Lock = dataclasses.field(default_factory=asyncio.Lock, init=False)
    run_id: str = dataclasses.field(default_factory=lambda: uuid.uuid4().hex, init=False)
    """What the ``on_agent_event`` / ``on_model_call`` observers know this run by."""
    observers: list[Any] = dataclasses.field(default_factory=list[Any], init=False)
    """The plugins' ``on_agent_event`` implementations (read once, at the start of the run)."""
    limits: RunLimits | None = dataclasses.field(default=None, init=False)
    """``config.usage_limits`` and what the run used (:mod:`pi_sdk._agent.limits`)."""
    last_reply: AssistantMessage | None = dataclasses.field(default=None, init=False)

    async def emit(self, event: AgentEvent) -> None:
        # Serialized: tool updates of parallel calls emit from their own tasks.
        async with self.lock:
            if event.type == "turn_start":
                self.turn_open, self.turn_message, self.turn_results = True, None, []
            elif event.type == "turn_end":
                self.turn_open = False
            if self.observers:
                await notify_agent_event(self.observers, event, self.run_id, self.config.model)
            await self.sink(event)

    def record_result(self, message: ToolResultMessage) -> None:
        self.turn_results.append(message)
        self.context.messages.append(message)
        self.new_messages.append(message)

    async def add_message(self, message: AgentMessage) -> None:
        await self.emit(MessageStartEvent(message=message))
        self.context.messages.append(message)
        self.new_messages.append(message)
        await self.emit(MessageEndEvent(message=message))

    async def poll(self, source: Callable[[], Any] | None) -> list[AgentMessage]:
        if source is None:
            return []
        return list(await resolve(source()) or [])

    async def poll_steering(self) -> list[AgentMessage]:
        return await self.poll(self.config.get_steering_messages)

    # -- the algorithm (pi-spec §8.3) ------------------------------------------------------

    async def run(self, prompts: Sequence[AgentMessage] | None) -> list[AgentMessage]:
        self.observers = agent_event_observers()
        if self.config.usage_limits is not None:
            self.limits = RunLimits(self.config.usage_limits)
        token = current_run_id.set(self.run_id)  # model calls (and tools' calls) see the run
        try:
            await self.emit(AgentStartEvent())
            await self.emit(TurnStartEvent())
            for prompt in prompts or ():
                await self.add_message(prompt)
            await self.loop()
        except Exception as exc:  # noqa: BLE001 - the run ends with an error message instead
            await self.fail(exc)
        except (asyncio.CancelledError, GeneratorExit) as exc:
            _log_stopped(exc, self.run_id)
            raise
        finally:
            try:
                current_run_id.reset(token)
            except ValueError:  # closed by the garbage collector, in another context
                pass
        return self.new_messages

    async def loop(self) -> None:
        first_turn = True
        explicit = False  # finish_turn asked for one more request
        turn: AgentTurnContext | None = None
        pending = await self.poll_steering()
        while True:
            has_more_tool_calls = True
            while has_more_tool_calls or pending:
                if first_turn:
                    first_turn = False
                else:
                    if turn is not None and self.config.prepare_next_turn is not None:
                        pending = await self.prepare_next_turn(turn, pending)
                    await self.emit(TurnStartEvent())
                for message in pending:
                    await self.add_message(message)
                message = await self.request()
                self.turn_message = message
                if message.stop_reason in ("error", "aborted"):
                    await self.finish_turn(message)  # its answer cannot keep a failed run going
                    await self.emit(TurnEndEvent(message=message, tool_results=[]))
                    await self.emit(AgentEndEvent(messages=list(self.new_messages)))
                    return
                pending = []
                has_more_tool_calls = bool(message.tool_calls)
                # Anthropic paused a long server-tool turn: sending the history back as it is
                # lets the vendor continue it (Anthropic docs, "pause_turn").
                paused = message.raw_stop_reason == "pause_turn" and not has_more_tool_calls
                if has_more_tool_calls:
                    batch = await self.run_tools(message)
                    pending = batch.steering_messages or []
                    has_more_tool_calls = not batch.terminate
                has_more_tool_calls = has_more_tool_calls or paused
                decision, turn = await self.finish_turn(message)
                await self.emit(TurnEndEvent(message=message, tool_results=list(self.turn_results)))
                if decision == "end":
                    await self.emit(AgentEndEvent(messages=list(self.new_messages)))
                    return
                if not pending:
                    pending = await self.poll_steering()
                explicit = decision == "continue" and not (has_more_tool_calls or pending)
            pending = await self.poll(self.config.get_follow_up_messages)
            if not pending and not explicit:
                break
            explicit = False
        await self.emit(AgentEndEvent(messages=list(self.new_messages)))

    async def request(self) -> AssistantMessage:
        """One model request (``prepare_request`` first), retried per ``config.retry``."""
        if self.config.retry is None:
            return await self.prepare_and_stream()
        message = await retry_assistant_call(
            self.prepare_and_stream, self.config.retry, self.signal
        )
        if message is not self.last_reply:  # aborted while waiting to retry: no request made
            aborted = new_assistant_message(self.config.model)
            aborted.stop_reason, aborted.error_message = "aborted", message.error_message
            await self.add_message(aborted)
            return aborted
        return message

    async def prepare_and_stream(self) -> AssistantMessage:
        self.config, self.context = await ask_prepare_request(
            self.config, self.context, self.signal
        )
        return await self.stream_assistant_response()

    async def run_tools(self, message: AssistantMessage) -> ToolBatchResult:
        """The tool calls of ``message``, unless a usage limit stops them (then error results)."""
        limits = self.limits
        stop = None if limits is None else limits.before_tools(len(message.tool_calls))
        if stop is not None:
            return await skip_tool_calls(message, self.emit, self.record_result, limit_text(stop))
        return await execute_tool_calls(
            self.context,
            message,
            self.config,
            self.signal,
            self.emit,
            self.poll_steering if self._steering_skips else None,
            self.record_result,
        )

    @property
    def _steering_skips(self) -> bool:
        """Poll steering during the batch (``tool_steering="skip"``); ``"wait"``: after it."""
        return self.config.tool_steering == "skip" and self.config.get_steering_messages is not None

    async def finish_turn(
        self, message: AssistantMessage
    ) -> tuple[AgentTurnDecision | None, AgentTurnContext | None]:
        """Ask ``finish_turn`` (and ``should_stop_after_turn``) about the turn that just ended.

        Returns the decision and the turn (``None`` without any turn hook: nothing is built).
        """
        config = self.config
        if not has_turn_hooks(config):
            return None, None
        turn = AgentTurnContext(
            message=message,
            tool_results=list(self.turn_results),
            context=self.context,
            new_messages=list(self.new_messages),
        )
        return await ask_finish_turn(config, turn, self.signal), turn

    async def prepare_next_turn(
        self, turn: AgentTurnContext, pending: list[AgentMessage]
    ) -> list[AgentMessage]:
        """``prepare_next_turn`` before a turn; its messages, then steering, to add."""
        self.config, self.context, prepared = await ask_prepare_next_turn(
            self.config, self.context, turn
        )
        if not pending:  # the preparation may have taken long: steering queued meanwhile
            pending = await self.poll_steering()
        return [*prepared, *pending]

    async def llm_messages(self) -> tuple[list[Any], bool]:
        """The transcript through ``transform_context`` and ``convert_to_llm``; whether plain.

        With neither hook set (the default conversion), only the entries added since the last
        call are converted (:class:`~pi_sdk._agent.transcript.Conversion`); otherwise the hooks
        see the full list on every call, as in pi-mono.
        """
        config = self.config
        convert = config.convert_to_llm or default_convert_to_llm
        messages = self.context.messages
        if config.transform_context is None and convert is default_convert_to_llm:
            if isinstance(messages, TrackedMessages):  # else a hook replaced the list
                if self.conversion is None or self.conversion.source is not messages:
                    self.conversion = Conversion(messages)
                return self.conversion.convert()
        messages = list(messages)
        if config.transform_context is not None:
            messages = list(await resolve(config.transform_context(messages, self.signal)))
        llm_messages = list(await resolve(convert(messages)))
        return llm_messages, is_plain_llm_list(llm_messages)

    async def stream_assistant_response(self) -> AssistantMessage:
        config = self.config
        context = self.context
        if self.baseline is None:
            declared = context.declared_tools
            self.baseline = [t.to_tool() for t in context.tools] if declared is None else declared
        tools = [t.to_tool() for t in context.tools]
        change = tool_change_message(context.messages, self.baseline, tools)
        if change is not None:  # announced before the request (pi-agent-core 1.6)
            await self.add_message(change)
        llm_messages, plain = await self.llm_messages()
        prompt, declared = shorthand(context.messages, context.system_prompt, self.baseline)
        fields: dict[str, Any] = {
            "system_prompt": prompt,
            "messages": llm_messages,
            "tools": declared,
        }
        # Validating every message again on every turn is what made long runs slow; a list of
        # plain LLM messages (the default conversion's output) is already valid.
        if plain:
            llm_context = Context.model_construct(**fields)
        else:
            llm_context = Context(**fields)
        api_key: str | None = None
        if config.get_api_key is not None:
            api_key = await resolve(config.get_api_key(config.model.provider))
        options = StreamOptions(**{name: getattr(config, name) for name in _STREAM_OPTION_FIELDS})
        options.api_key = api_key or config.api_key
        options.signal = self.signal

        if self.signal.aborted:  # what every provider answers; no request needed
            final = new_assistant_message(config.model)
            final.stop_reason, final.error_message = "aborted", "Request was aborted"
            await self.add_message(final)
            self.last_reply = final
            return final
        limits = self.limits
        if limits is not None and (
            stop := await limits.before_request(config.model, llm_context, options)
        ):
            self.last_reply = final = limits.stop_message(config.model, stop)
            await self.add_message(final)
            return final

        if self.stream_fn is None:
            from pi_sdk._models.calls import stream as default_stream_fn

            response: Any = default_stream_fn(config.model, llm_context, options)
        else:
            response = self.stream_fn(config.model, llm_context, options)
            if not hasattr(response, "__aiter__"):  # a coroutine; an event stream is awaitable too
                if not inspect.isawaitable(response):
                    raise TypeError(
                        f"stream_fn returned {type(response).__name__}: it must return an event"
                        " stream (what pi_sdk.stream returns), or be async and return one"
                    )
                response = await response
        final: AssistantMessage | None = None
        try:
            async for event in response:
                if event.type == "start":
                    if self.partial is None:
                        self.partial = event.partial
                        self.context.messages.append(event.partial)
                        await self.emit(MessageStartEvent(message=event.partial))
                elif event.type == "done" or event.type == "error":
                    final = event.message
                    break
                elif self.partial is not None:
                    if self.partial is not event.partial:
                        self.context.messages[-1] = self.partial = event.partial
                    await self.emit(
                        MessageUpdateEvent(message=event.partial, assistant_message_event=event)
                    )
        except GeneratorExit:  # the run's coroutine is being closed: it may not wait
            response = None
            raise
        finally:
            close = getattr(response, "aclose", None)
            if close is not None:
                await close()
        if final is None:
            raise RuntimeError("the assistant stream ended without a done or error event")
        # The level the loop asked for, whichever stream function answered (pi-agent-core 1.6).
        final.thinking_level = config.reasoning or "off"
        if self.partial is not None:
            self.context.messages[-1] = final
            self.partial = None
        else:
            self.context.messages.append(final)
            await self.emit(MessageStartEvent(message=final))
        self.new_messages.append(final)
        self.last_reply = final
        if self.limits is not None:
            self.limits.after_reply(final)
        await self.emit(MessageEndEvent(message=final))
        return final

    async def fail(self, exc: Exception) -> None:
        """End the run after an unexpected exception, keeping everything emitted so far."""
        install_log_redaction()  # the failure may come before any call installed it
        logger.error("agent run failed; ending it with an error message", exc_info=exc)
        reason = "aborted" if self.signal.aborted else "error"
        message = self.partial
        self.partial = None
        if message is not None:  # finalize the streaming message, partial content kept
            message.stop_reason, message.error_message = reason, _describe(exc)
            self.new_messages.append(message)
            await self.emit(MessageEndEvent(message=message))
        else:
            if self.turn_open and self.turn_message is not None:  # failed during the tools
                await self.emit(
                    TurnEndEvent(message=self.turn_message, tool_results=list(self.turn_results))
                )
            if not self.turn_open:
                await self.emit(TurnStartEvent())
            message = new_assistant_message(self.config.model)
            message.stop_reason, message.error_message = reason, _describe(exc)
            await self.add_message(message)
        await self.emit(TurnEndEvent(message=message, tool_results=[]))
        await self.emit(AgentEndEvent(messages=list(self.new_messages)))


def _log_stopped(exc: BaseException, run_id: str) -> None:
    """Say that a run was stopped from outside: not a failure, so never at ERROR.

    ``CancelledError``: its task was cancelled (``AgentEventStream.aclose()``, a dropped stream,
    a Temporal worker evicting the workflow from its cache; a cancelled ``Agent.prompt()``
    aborts the run instead, which then ends ``aborted`` as usual). ``GeneratorExit``: its
    coroutine was closed without running to its end (Temporal drops the tasks an evicted
    workflow left behind). The transcript keeps what was emitted.
    """
    how = "cancelled" if isinstance(exc, asyncio.CancelledError) else "closed before its end"
    logger.info("agent run %s %s (not a failure: it was stopped from outside)", run_id, how)


def _signal(signal: AbortSignal | None, config: AgentLoopConfig) -> AbortSignal:
    return signal or config.signal or AbortController().signal


def _check_continue(messages: Sequence[AgentMessage]) -> None:
    if not messages:
        raise ConfigurationError("Cannot continue: no messages in context")
    last = messages[-1]
    if isinstance(last, AssistantMessage) and last.stop_reason not in ("error", "aborted"):
        raise ConfigurationError(
            "Cannot continue from message role: assistant (the model has already answered;"
            " add a user or tool-result message first)"
        )


async def run_agent_loop(
    prompts: Sequence[AgentMessage] | None,
    context: AgentContext,
    config: AgentLoopConfig,
    emit: Emit,
    signal: AbortSignal | None = None,
    stream_fn: AgentStreamFn | None = None,
) -> list[AgentMessage]:
    """Run the loop, awaiting ``emit`` for every event (pi-mono ``runAgentLoop``).

    With ``prompts``, the run starts by adding them; with ``None`` it continues from
    ``context`` without a new message (pi-mono ``runAgentLoopContinue``: a retry, or the answer
    to tool results). The caller's ``context`` is not mutated: the run works on a copy whose
    messages are ``context.messages + prompts``.

    Returns:
        The new messages of the run (prompts first), as in ``agent_end``.

    Raises:
        ConfigurationError: continuing (``prompts`` is ``None``) when ``context.messages`` is
            empty, or ends with a completed assistant message (one that ended in
            ``error``/``aborted`` may be continued: the model call is retried, since providers
            drop errored turns from the history).
    """
    if prompts is None:
        _check_continue(context.messages)
    # The run appends each prompt (then the replies) to a copy of the messages, never to
    # the caller's list.
    working = dataclasses.replace(context, messages=TrackedMessages(context.messages))
    return await _Run(working, config, emit, _signal(signal, config), stream_fn).run(prompts)


class _Feed:
    """The buffer between a run's task and its :class:`AgentEventStream`.

    The task refers to this object only, never to the stream: a stream its consumer drops is
    freed at once, and its finalizer stops the run (and with it the model call's response).
    """

    __slots__ = ("events", "finished", "result", "wakeup")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.events: deque[AgentEvent] = deque()
        self.wakeup = asyncio.Event()
        self.finished = False
        self.result: asyncio.Future[list[AgentMessage]] = loop.create_future()
        self.result.add_done_callback(_mark_retrieved)

    async def push(self, event: AgentEvent) -> None:
        self.events.append(event)
        self.wakeup.set()

    async def drive(self, run: Callable[[Emit], Awaitable[list[AgentMessage]]]) -> None:
        try:
            messages = await run(self.push)
            self.result.set_result(messages)
        except asyncio.CancelledError as exc:
            self.result.set_exception(exc)
        except Exception as exc:  # noqa: BLE001 - reported through result() and iteration
            self.result.set_exception(exc)
        finally:
            self.finished = True
            self.wakeup.set()

    def end_unstarted(self) -> None:
        """End a run whose task was cancelled before :meth:`drive` ran: ``CancelledError``."""
        if not self.finished:
            self.result.set_exception(asyncio.CancelledError())
            self.finished = True
            self.wakeup.set()


class AgentEventStream:
    """The events of one run, async-iterable, plus ``await result()`` (the new messages).

    The run starts at once and does not wait for the consumer (pi-mono: events are pushed and
    buffered). ``result()`` returns ``agent_end.messages``. Iteration ends after ``agent_end``;
    if the run itself breaks (a bug, or cancellation through :meth:`aclose`), iteration and
    ``result()`` raise that exception instead of hanging. One consumer at a time.

    A stream dropped before its run ended (a bare ``break``, then no reference left) cancels
    the run when it is collected: the model call's HTTP response is closed, nothing is logged.
    Keep a reference (or ``await result()``) to let a run finish unobserved.
    """

    def __init__(self, run: Callable[[Emit], Awaitable[list[AgentMessage]]]) -> None:
        """Start ``run(emit)`` as a task on the running event loop."""
        loop = asyncio.get_running_loop()
        self._feed = _Feed(loop)
        self._iterating = False
        self._task = loop.create_task(self._feed.drive(run))

    def __del__(self) -> None:
        task = getattr(self, "_task", None)
        if task is not None and not task.done():
            try:
                task.cancel()
            except RuntimeError:  # the event loop is closed already: nothing runs anymore
                pass

    def __aiter__(self) -> AsyncIterator[AgentEvent]:
        if self._iterating:
            raise RuntimeError("this agent event stream is already being iterated")
        self._iterating = True
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[AgentEvent]:
        feed = self._feed
        events = feed.events
        while True:
            while events:
                yield events.popleft()
            if feed.finished:
                break
            feed.wakeup.clear()
            await feed.wakeup.wait()
        if feed.result.exception() is not None:
            await feed.result

    async def result(self) -> list[AgentMessage]:
        """Wait for the run to end and return its new messages."""
        return await asyncio.shield(self._feed.result)

    async def aclose(self) -> None:
        """Stop the run (cancels its task); iteration then ends with ``CancelledError``."""
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
        self._feed.end_unstarted()  # cancelled before its first step, ``drive`` never ran

    async def __aenter__(self) -> AgentEventStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if not self._task.done():
            await self.aclose()


def _mark_retrieved(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()  # consumed: no "exception was never retrieved" warning


def agent_loop(
    prompts: Sequence[AgentMessage],
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None = None,
    stream_fn: AgentStreamFn | None = None,
) -> AgentEventStream:
    """Start a run with new ``prompts`` and return its event stream (pi-mono ``agentLoop``).

    Example:
        ```python
        events = pi_sdk.agent_loop([UserMessage(content="hi")], AgentContext(), config)
        async for event in events:
            print(event.type)
        new_messages = await events.result()
        ```

    Args:
        prompts: Messages to add before the first model call.
        context: System prompt, transcript and tools; not mutated.
        config: Model, callbacks and stream options.
        signal: Abort signal (default ``config.signal``); aborting ends the run with an
            ``aborted`` assistant message.
        stream_fn: Replaces :func:`pi_sdk.stream` for model calls.

    Raises:
        RuntimeError: no running event loop.
    """
    prompts = list(prompts)
    return AgentEventStream(
        lambda emit: run_agent_loop(prompts, context, config, emit, signal, stream_fn)
    )


def agent_loop_continue(
    context: AgentContext,
    config: AgentLoopConfig,
    signal: AbortSignal | None = None,
    stream_fn: AgentStreamFn | None = None,
) -> AgentEventStream:
    """Continue from ``context`` and return the event stream (pi-mono ``agentLoopContinue``).

    The last message must convert to a user or tool-result message (or be a custom message),
    or be an assistant message that ended in ``error``/``aborted``, which retries that turn.

    Raises:
        ConfigurationError: raised at once when there are no messages or the last one is a
            completed assistant message.
    """
    _check_continue(context.messages)
    return AgentEventStream(
        lambda emit: run_agent_loop(None, context, config, emit, signal, stream_fn)
    )
