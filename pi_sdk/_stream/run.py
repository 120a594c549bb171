"""One call's run, under the public stream object (:mod:`pi_sdk._stream.event_stream`).

:class:`StreamRun` reads the call's events from one source per attempt: the core's own read loop
(:class:`~pi_sdk._stream.read_loop.ReadLoop`, a wire API on the kit) or a provider's async
generator (a stream function). It enforces pi-mono's event protocol (pi-spec §2): ``start``
first, exactly one terminal event, failures turned into an ``error`` event with the partial
message kept; it retries a retryable failure before any content (tenacity backoff,
``retry-after``), times out a reply that does not start or goes silent, and ends an aborted call.
A stream function's events are also checked one by one (per-index nesting of the blocks, only
event objects); the read loop's are made by the :class:`~pi_sdk.provider.MessageBuilder`, which
nests and closes blocks by construction, so only their kind is read.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
)
from functools import partial
from typing import Any, cast, get_args

from pi_sdk._stream.assistant_message import new_assistant_message, settle_output
from pi_sdk._stream.call_scope import CallScope, Permit, current_scope
from pi_sdk._stream.log_redaction import watch_call
from pi_sdk._stream.provider_errors import ProviderError, note_provider_error
from pi_sdk._stream.read_loop import ReadLoop
from pi_sdk._wire.abort import AbortSignal
from pi_sdk._wire.lean import compact_tree
from pi_sdk._wire.output import Output, parse_output
from pi_sdk.events import (
    AssistantMessageEvent,
    DoneEvent,
    ErrorEvent,
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
)
from pi_sdk.options import RetryNotice
from pi_sdk.types import (
    AssistantMessage,
    Context,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
)

__all__ = ["StreamRun"]

_START_KIND = {"text_start": "text", "thinking_start": "thinking", "toolcall_start": "toolcall"}
_CONT_KIND = {
    "text_delta": "text",
    "text_end": "text",
    "thinking_delta": "thinking",
    "thinking_end": "thinking",
    "toolcall_delta": "toolcall",
    "toolcall_end": "toolcall",
}


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return text if text else type(exc).__name__


class _Aborted(Exception):
    pass


class _TimedOut(Exception):
    pass


current_task = asyncio.current_task

_EVENT_TYPES: tuple[type, ...] = get_args(AssistantMessageEvent)
"""The 15 event classes, read from the union in :mod:`pi_sdk.events` (one list of them)."""
_WHOLE_BLOCK = frozenset({"servertool_call", "servertool_result", "image"})
"""Events that carry a whole block (no start/delta/end): nothing to track."""
_DELTA_KIND: dict[type[Any], str] = {
    TextDeltaEvent: "text",
    ThinkingDeltaEvent: "thinking",
    ToolCallDeltaEvent: "toolcall",
}
"""The delta events and the kind of block each belongs to."""


class StreamRun:
    """The machinery of one :class:`AssistantMessageEventStream`: what its event generator runs.

    Kept apart from the public object so that nothing in a call forms a reference cycle with
    the generator: when the consumer drops the stream (a bare ``break``, then the variable goes
    away), the generator is freed by reference counting and the event loop closes it in order
    (outer generator first, which closes the provider generator and its HTTP response), instead
    of the garbage collector finalizing every nested generator at once ("aclose(): asynchronous
    generator is already running"). Only :meth:`events`' frame refers to this object strongly;
    the timeout watchdog and the abort callback do not keep the generator alive.
    """

    def __init__(
        self,
        start: Callable[[], AsyncIterator[AssistantMessageEvent]] | ReadLoop,
        model: Model,
        signal: AbortSignal | None,
        retries: tuple[int, int],
        limits: tuple[float | None, float | None],
        secrets: Callable[[], Iterable[str | None]] | None,
        context: Context | None = None,
        scope: CallScope | None = None,
    ) -> None:
        """Take the arguments of :class:`AssistantMessageEventStream`.

        ``retries`` is ``(max_retries, max_retry_delay_ms)``, ``limits`` is
        ``(timeout_ms, idle_timeout_ms)``.
        """
        max_retries, max_retry_delay_ms = retries
        timeout_ms, idle_timeout_ms = limits
        self._scope = scope if scope is not None else CallScope()
        self._loop = start if isinstance(start, ReadLoop) else None
        """The core's read loop when the events come from it (the builder made them)."""
        self._open: Callable[[], AsyncIterator[AssistantMessageEvent]] = (
            partial(start.events, self._scope) if isinstance(start, ReadLoop) else start
        )
        """Starts one attempt's source of events."""
        self._model = model
        self._signal = signal
        self._max_retries = max_retries
        self._max_retry_delay_ms = max_retry_delay_ms
        self._context = context
        self._activity = self._scope.activity
        self._partial: AssistantMessage | None = None
        self.final: AssistantMessage | None = None
        """The final message, once the stream ended (or was closed)."""
        self._began = (time.time_ns() // 1_000_000, time.monotonic())
        """When the call began (epoch ms, monotonic s): the final message's ``duration_ms``."""
        self._abort_requested = False
        self._first_byte_s = timeout_ms / 1000 if timeout_ms else None
        self._idle_s = idle_timeout_ms / 1000 if idle_timeout_ms else None
        self._timeout_s = self._first_byte_s
        """The limit of the current phase: the first-byte wait, then the idle limit."""
        self._started = False
        self._timeout_requested = False
        self._cancels_sent = 0
        self._watchdog: asyncio.TimerHandle | None = None
        self._secrets = secrets
        self.output: Output | None = None
        """The typed answer asked for; the final message is parsed against it at the end."""
        self.observe: Callable[[], Callable[[AssistantMessage], None] | None] | None = None
        """Told when the call starts; what it returns gets the final message."""
        self.on_retry: Callable[[RetryNotice], object] | None = None
        """Told before each retry (``StreamOptions.on_retry``)."""
        self._attempts = 1
        """Attempts started so far; a failure after more than one says so."""
        self.failure: BaseException | None = None
        """The exception that ended the call, if one did (a :class:`ProviderError` keeps the
        HTTP status): what a fallback policy reads to classify the failure."""
        self._permit: Permit | None = None

    # -- machinery -------------------------------------------------------------------------

    def _on_abort(self) -> None:
        self._abort_requested = True
        self._interrupt()

    def _interrupt(self) -> None:
        """Cancel the pending wait (the waiter task), counting the cancellation as ours.

        The waiter is the task reading the call while the reply has not started or a stream
        function is read, and the task in a network read of the core's read loop after that
        (:class:`~pi_sdk._stream.activity.Activity`); with nobody waiting, the next read sees
        the abort flag.
        """
        waiter = self._activity.waiter
        if waiter is not None and not waiter.done():
            self._cancels_sent += 1
            waiter.cancel()

    def _arm_watchdog(self: StreamRun, delay_s: float) -> None:
        """Schedule :func:`_watchdog_fired` in ``delay_s`` through a weak reference.

        The timer never keeps this run (or anything it refers to) alive: a stream dropped by
        its consumer is freed, and closed, whatever the timeout.
        """
        self._watchdog = asyncio.get_running_loop().call_later(
            delay_s, _watchdog_fired, weakref.ref(self)
        )

    def _on_watchdog(self) -> None:
        """Timer callback: time out a wait that made no progress for the phase's limit.

        Progress is an event from the provider or bytes on the wire
        (:mod:`pi_sdk._stream.activity`). Re-armed only while a wait is pending; with nobody
        waiting (the consumer paused or left), the next read arms it again.
        """
        self._watchdog = None
        limit = self._timeout_s
        activity = self._activity
        if activity.waiter is None or limit is None:
            return
        idle = time.monotonic() - max(activity.since, activity.last)
        if idle < limit:
            self._arm_watchdog(max(limit - idle, 0.001))
            return
        self._timeout_requested = True
        self._interrupt()

    def _mark_started(self) -> None:
        """The response started: from now on the idle limit applies."""
        self._started = True
        self._timeout_s = self._idle_s
        if self._permit is not None:
            self._permit.started()
        if self._watchdog is not None:  # armed with the first-byte limit
            self._watchdog.cancel()
            self._watchdog = None

    def _after_cancel(self, task: asyncio.Task[Any] | None) -> Exception | None:
        """What a read cancelled in ``task`` raises; ``None``: the cancellation itself."""
        if task is not None and task.cancelling() > 0:
            # Take back only the cancellations we sent; one from outside (task.cancel(),
            # asyncio.timeout) still pending must propagate, never be swallowed.
            remaining = task.cancelling()
            while self._cancels_sent and remaining:
                remaining = task.uncancel()
                self._cancels_sent -= 1
            self._cancels_sent = 0
            if remaining:
                return None
            if self._abort_requested:
                return _Aborted()
            if self._timeout_requested:
                self._timeout_requested = False
                return _TimedOut()
            return None
        # The provider raised CancelledError itself, nobody cancelled us: a provider bug.
        return RuntimeError("the provider raised CancelledError without a cancellation")

    def _message(self) -> AssistantMessage:
        if self._partial is None:
            self._partial = new_assistant_message(self._model)
            if self._loop is not None and self._loop.resent is not None:  # failed after a resend
                self._partial.diagnostics = [self._loop.resent]
        return self._partial

    def _fail(self, reason: str, text: str, *, cut: bool = False) -> ErrorEvent:
        """Return the terminal ``error`` event.

        ``cut``: the reply had started and ended early (an abort, a timeout, a lost
        connection), so a usage the vendor never sent is estimated.
        """
        message = self._message()
        if cut:
            self._estimate_usage(message, "aborted" if reason == "aborted" else "cut")
        aborted = reason == "aborted" or (self._signal is not None and self._signal.aborted)
        message.stop_reason = "aborted" if aborted else "error"
        if aborted and (self._signal is not None and self._signal.reason) and reason == "aborted":
            text = self._signal.reason
        elif self._attempts > 1 and not aborted:
            text = f"{text} (after {self._attempts} attempts)"
        message.error_message = self._redact(text)
        if self.output is not None:
            message.set_output(parse_output(message, self.output))
        self._time(message)
        compact_tree(message)  # finished: share its bookkeeping (pi_sdk._wire.lean)
        self.final = message
        return ErrorEvent(reason=message.stop_reason, error=message)

    def _time(self, message: AssistantMessage) -> None:
        """Set ``duration_ms``: ms since the call began, monotonic (pi-ai 1.6 event stream).

        Left alone when already set, or when the message began before this call (a reply
        that started elsewhere, forwarded here).
        """
        began_ms, began = self._began
        if message.duration_ms is None and message.timestamp >= began_ms:
            message.duration_ms = max(0, round((time.monotonic() - began) * 1000))

    def _estimate_usage(self, message: AssistantMessage, reason: str) -> None:
        from pi_sdk._stream.usage_estimate import estimate_missing_usage  # lazy: only failures

        try:
            estimate_missing_usage(message, self._model, self._context, reason=reason)
        except Exception:  # noqa: BLE001 - an estimate must not replace the real outcome
            pass

    def _redact(self, text: str) -> str:
        from pi_sdk._wire.redact import redact_text  # lazy: only failures need it

        try:
            known = list(self._secrets()) if self._secrets is not None else []
        except Exception:  # noqa: BLE001 - redaction must not replace the real error
            known = []
        return redact_text(text, known)

    def _finish(self, event: DoneEvent | ErrorEvent) -> DoneEvent | ErrorEvent:
        """Check a provider's terminal event; a ``done`` carrying a failure becomes ``error``."""
        final = event.message
        self._partial = final
        if isinstance(event, DoneEvent):
            if final.stop_reason == "error" or final.stop_reason == "aborted":
                return self._fail(final.stop_reason, final.error_message or "unknown error")
            if event.reason != final.stop_reason:
                return self._fail("error", f"done reason {event.reason!r} != {final.stop_reason!r}")
            if self.output is not None:
                settle_output(final, self.output)
                if final.stop_reason != event.reason:
                    event = DoneEvent(reason=cast("Any", final.stop_reason), message=final)
        elif self.output is not None:
            final.set_output(parse_output(final, self.output))
        else:
            if final.stop_reason != "error" and final.stop_reason != "aborted":
                final.stop_reason = event.reason
            final.error_message = self._redact(final.error_message or "unknown error")
        self._time(final)
        compact_tree(final)  # finished: share its bookkeeping (pi_sdk._wire.lean)
        self.final = final
        return event

    def _close_blocks(
        self, message: AssistantMessage, open_blocks: dict[int, str]
    ) -> list[AssistantMessageEvent]:
        """The ``*_end`` events for blocks still open at ``done`` (removed from ``open_blocks``)."""
        events: list[AssistantMessageEvent] = []
        for index in sorted(open_blocks):
            block = message.content[index] if index < len(message.content) else None
            if isinstance(block, TextContent) and open_blocks[index] == "text":
                events.append(
                    TextEndEvent(content_index=index, content=block.text, partial=message)
                )
            elif isinstance(block, ThinkingContent) and open_blocks[index] == "thinking":
                events.append(
                    ThinkingEndEvent(content_index=index, content=block.thinking, partial=message)
                )
            elif isinstance(block, ToolCall) and open_blocks[index] == "toolcall":
                events.append(
                    ToolCallEndEvent(content_index=index, tool_call=block, partial=message)
                )
            else:
                continue
            del open_blocks[index]
        return events

    def _beyond_cap(self, error: ProviderError) -> str | None:
        """Why a retryable error is not retried: the server asked for a wait beyond the cap.

        ``None`` when a retry may happen (no requested wait, no cap, or a wait within it).
        """
        wait = error.retry_after_ms
        cap = self._max_retry_delay_ms
        if wait is None or not cap or wait <= cap:
            return None
        return (
            f"the server asked to retry in {wait:.0f} ms, beyond max_retry_delay_ms={cap};"
            " not retried"
        )

    async def _retrying(self, attempt: int, error: ProviderError, wait_s: float) -> None:
        """Attempt ``attempt`` failed with ``error`` and is retried in ``wait_s``: say so."""
        from pi_sdk._stream.retry_notice import announce_retry  # lazy: only retries need it

        self._attempts = attempt + 1
        notice = RetryNotice(
            attempt=attempt,
            max_attempts=self._max_retries + 1,
            delay_ms=round(wait_s * 1000, 3),
            error_message=self._redact(_describe(error)),
            status=error.status,
        )
        await announce_retry(self._model, notice, self.on_retry)

    async def _retry_wait(self, attempt: int, error: ProviderError) -> None:
        from tenacity import wait_exponential, wait_random  # lazy: only retries need it

        strategy = wait_exponential(multiplier=0.5, max=30) + wait_random(0, 0.25)
        wait_s: float = strategy(_RetryState(attempt))  # pyright: ignore[reportArgumentType]
        if error.retry_after_ms is not None:
            wait_s = max(wait_s, error.retry_after_ms / 1000)
        if self._max_retry_delay_ms:
            wait_s = min(wait_s, self._max_retry_delay_ms / 1000)
        await self._retrying(attempt, error, wait_s)
        if self._signal is None:
            await asyncio.sleep(wait_s)
            return
        try:
            await asyncio.wait_for(self._signal.wait(), timeout=wait_s)
        except TimeoutError:
            return
        raise _Aborted

    async def _start_attempt(self) -> AsyncIterator[AssistantMessageEvent]:
        """Open one attempt's source of events, after the scope's gate let it (abortable)."""
        gate = self._scope.gate
        if gate is None:
            return self._open()
        task = current_task()
        self._activity.waiter = task
        try:
            self._permit = await gate()
        except asyncio.CancelledError:
            # An abort while waiting for the gate ends the call as aborted (pi-spec §2).
            aborted = self._after_cancel(task)
            if aborted is not None:
                raise aborted from None
            raise
        finally:
            self._activity.waiter = None
        return self._open()

    def _release(self, message: AssistantMessage | None, failure: BaseException | None) -> None:
        permit = self._permit
        if permit is not None:
            self._permit = None
            permit.finished(message, failure)

    async def events(self) -> AsyncGenerator[AssistantMessageEvent, None]:
        """The call's events, contract enforced (one generator per stream)."""
        remove = self._signal.add_callback(self._on_abort) if self._signal is not None else None
        unwatch = watch_call(self._secrets) if self._secrets is not None else None
        finish = self.observe() if self.observe is not None else None
        started = False
        open_blocks: dict[int, str] = {}
        attempt = 0
        core = self._loop is not None
        source: AsyncIterator[AssistantMessageEvent] | None = None
        # The read loop's next event, once the reply started: then its network reads are
        # watched (``Activity.waiter``), not each event.
        pull: Callable[[], Awaitable[AssistantMessageEvent]] | None = None
        activity = self._activity
        try:
            while True:
                try:
                    if self._abort_requested:
                        raise _Aborted
                    if pull is not None:
                        if self._watchdog is None and self._timeout_s is not None:
                            self._arm_watchdog(self._timeout_s)
                        try:
                            event: AssistantMessageEvent = await pull()
                        except asyncio.CancelledError:
                            failure = self._after_cancel(current_task())
                            if failure is None:
                                raise
                            raise failure from None
                    else:  # wait for the source's next event, watched as one wait
                        if source is None:
                            source = await self._start_attempt()
                        task = current_task()
                        activity.waiter = task
                        if self._timeout_s is not None:
                            activity.since = time.monotonic()
                            if self._watchdog is None:
                                self._arm_watchdog(self._timeout_s)
                        # Until the reply started, the provider's code runs in the call's scope
                        # (its key lookup, its response body's activity).
                        token = None if self._started else current_scope.set(self._scope)
                        try:
                            event = await source.__anext__()
                        except asyncio.CancelledError:
                            failure = self._after_cancel(task)
                            if failure is None:
                                raise
                            raise failure from None
                        finally:
                            activity.waiter = None
                            if token is not None:
                                current_scope.reset(token)
                        if token is not None:
                            self._mark_started()
                except StopAsyncIteration:
                    if not started:
                        started = True
                        yield StartEvent(partial=self._message())
                    yield self._fail("error", "stream ended without a terminal event")
                    return
                except _Aborted:
                    if not started:
                        yield StartEvent(partial=self._message())
                    yield self._fail("aborted", "Request was aborted", cut=started)
                    return
                except _TimedOut:
                    assert self._timeout_s is not None
                    waited = f"{self._timeout_s * 1000:.0f} ms"
                    exc = ProviderError(
                        f"timed out: no response from the provider within {waited}"
                        if not started
                        else f"timed out: the provider sent nothing for {waited}",
                        retryable=not started,
                    )
                    self.failure = exc
                    if not started and attempt < self._max_retries:
                        attempt += 1
                        self._release(None, exc)
                        await _aclose(source)
                        source = None
                        await self._retrying(attempt, exc, 0.0)
                        continue
                    if not started:
                        yield StartEvent(partial=self._message())
                    yield self._fail("error", str(exc), cut=started)
                    return
                except ProviderError as exc:
                    self.failure = exc
                    retry = not started and exc.retryable and attempt < self._max_retries
                    beyond = self._beyond_cap(exc) if retry else None
                    if beyond is not None:
                        # pi-mono maxRetryDelayMs: the server will refuse sooner calls, so the
                        # call fails at once, naming the requested delay.
                        yield StartEvent(partial=self._message())
                        failure = self._fail("error", f"{_describe(exc)} ({beyond})")
                        note_provider_error(failure.error, exc)
                        yield failure
                        return
                    if not started and exc.retryable and attempt < self._max_retries:
                        attempt += 1
                        self._release(None, exc)
                        await _aclose(source)
                        source = None
                        try:
                            await self._retry_wait(attempt, exc)
                        except _Aborted:
                            yield StartEvent(partial=self._message())
                            yield self._fail("aborted", "Request was aborted")
                            return
                        continue
                    if not started:
                        yield StartEvent(partial=self._message())
                    cut = started and (exc.incomplete or exc.retryable)
                    failure = self._fail("error", _describe(exc), cut=cut)
                    note_provider_error(failure.error, exc)
                    yield failure
                    return
                except Exception as exc:  # noqa: BLE001 - the contract: failures are data
                    self.failure = exc
                    if not started:
                        yield StartEvent(partial=self._message())
                    yield self._fail("error", _describe(exc))
                    return

                if core:
                    # The builder made the read loop's events: blocks nest and close by
                    # construction (pi_sdk.provider.MessageBuilder), so only the kind is read.
                    kind = event.type
                    if kind == "done" or kind == "error":
                        yield self._finish(cast("DoneEvent | ErrorEvent", event))
                        return
                    if pull is None:  # ``start``: from now on the reads watch themselves
                        assert source is not None
                        started = True
                        self._partial = event.partial
                        pull = source.__anext__
                    yield event
                    continue
                cls: type[Any] = type(event)
                delta_kind = _DELTA_KIND.get(cls)
                if delta_kind is not None and started:  # the common event: one check
                    # A delta class (by the lookup above): it has a content_index.
                    index: int = event.content_index  # pyright: ignore
                    if open_blocks.get(index) != delta_kind:  # pyright: ignore
                        yield self._fail(
                            "error",
                            f"protocol violation: {event.type} without {delta_kind} start"
                            f" at {index}",
                        )
                        return
                    self._partial = event.partial
                    yield event
                    continue
                if not isinstance(event, _EVENT_TYPES):
                    if not started:
                        started = True
                        yield StartEvent(partial=self._message())
                    yield self._fail(
                        "error",
                        f"protocol violation: the provider yielded {type(event).__name__},"
                        " not an event",
                    )
                    return
                if isinstance(event, StartEvent):
                    self._partial = event.partial
                    if not started:
                        started = True
                        yield event
                    continue
                if not started:
                    started = True
                    self._partial = event.partial
                    yield StartEvent(partial=event.partial)
                if isinstance(event, DoneEvent | ErrorEvent):
                    if isinstance(event, DoneEvent) and open_blocks:
                        # Blocks the provider left open are closed before ``done``.
                        for closing in self._close_blocks(event.message, open_blocks):
                            yield closing
                        if open_blocks:
                            yield self._fail("error", "protocol violation: open block at done")
                            return
                    yield self._finish(event)
                    return
                kind = event.type
                index = event.content_index
                block_kind = _START_KIND.get(kind)
                if kind in _WHOLE_BLOCK:
                    pass  # a whole block (a server tool's call or result): nothing to track
                elif block_kind is not None:
                    if index in open_blocks:
                        yield self._fail(
                            "error", f"protocol violation: {kind} for open block {index}"
                        )
                        return
                    open_blocks[index] = block_kind
                else:
                    block_kind = _CONT_KIND[kind]
                    if open_blocks.get(index) != block_kind:
                        yield self._fail(
                            "error",
                            f"protocol violation: {kind} without {block_kind} start at {index}",
                        )
                        return
                    if kind.endswith("_end"):
                        del open_blocks[index]
                self._partial = event.partial
                yield event
        finally:
            if self._watchdog is not None:
                self._watchdog.cancel()
                self._watchdog = None
            if remove is not None:
                remove()
            try:
                await _aclose(source)
            finally:
                if unwatch is not None:
                    unwatch()
            if self.final is None:
                # Consumer left early: record the partial as aborted-by-consumer.
                message = self._message()
                if message.stop_reason not in ("error", "aborted"):
                    message.stop_reason = "aborted"
                    message.error_message = message.error_message or "stream closed by the consumer"
                    if started:
                        self._estimate_usage(message, "aborted")
                self.final = message
            self._release(self.final, self.failure)
            if finish is not None:
                finish(self.final)


def _watchdog_fired(ref: weakref.ref[StreamRun]) -> None:
    run = ref()
    if run is not None:
        run._on_watchdog()  # pyright: ignore[reportPrivateUsage]


async def _aclose(source: AsyncIterator[AssistantMessageEvent] | None) -> None:
    close = getattr(source, "aclose", None)
    if close is not None:
        try:
            await close()
        except Exception:  # noqa: BLE001 - closing must not mask the real outcome
            pass


class _RetryState:
    """The slice of tenacity's RetryCallState that its wait strategies read."""

    def __init__(self, attempt: int) -> None:
        self.attempt_number = attempt
