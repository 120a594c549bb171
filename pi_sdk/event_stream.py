"""The stream object a call returns: async-iterable events, ``await result()``, and the contract.

:class:`AssistantMessageEventStream` wraps a provider's async generator and *enforces* pi-mono's
event protocol (pi-spec §2) whatever the provider does:

* ``start`` comes first (synthesized when the provider did not send one);
* ``*_start`` / ``*_delta`` / ``*_end`` nest per ``content_index``;
* exactly one terminal ``done`` or ``error`` ends the stream, and nothing follows it;
* a provider exception, a stream that ends without a terminal event, or an abort becomes one
  ``error`` event whose message keeps the partial content and usage;
* a retryable failure before any content (:class:`ProviderError` with ``retryable``) is retried
  with exponential backoff (tenacity), honouring ``retry-after``.

Events are pulled: nothing runs ahead of the consumer, and leaving early (``break``,
``async with``, ``aclose()``) closes the provider generator and with it the HTTP response.
"""

from __future__ import annotations

import asyncio
import datetime
import email.utils
import math
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Mapping
from typing import Any

from .abort import AbortSignal
from .events import AssistantMessageEvent, DoneEvent, ErrorEvent, StartEvent
from .types import AssistantMessage, Model

__all__ = [
    "RETRYABLE_STATUS",
    "AssistantMessageEventStream",
    "ProviderError",
    "new_assistant_message",
    "retry_after_ms",
]

RETRYABLE_STATUS = frozenset({408, 409, 429})
"""HTTP statuses below 500 worth a retry: request timeout, conflict, rate limit (every 5xx is
retryable too). The policy the vendor SDKs share (``anthropic``/``openai`` ``_should_retry``,
``google-genai`` ``HttpRetryOptions`` defaults)."""

_START_KIND = {"text_start": "text", "thinking_start": "thinking", "toolcall_start": "toolcall"}
_CONT_KIND = {
    "text_delta": "text",
    "text_end": "text",
    "thinking_delta": "thinking",
    "thinking_end": "thinking",
    "toolcall_delta": "toolcall",
    "toolcall_end": "toolcall",
}


class ProviderError(Exception):
    """A failure a provider reports; its text becomes the message's ``error_message``.

    Args:
        message: What went wrong, with the vendor's own message (never an API key).
        status: HTTP status, if any.
        retryable: Whether a retry may succeed (408, 409, 429, 5xx, connection errors).
        retry_after_ms: The server's requested wait in milliseconds, if it sent one.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        retry_after_ms: float | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.retry_after_ms = retry_after_ms

    @classmethod
    def from_http(
        cls,
        status: int,
        message: str,
        headers: Mapping[str, str] | None = None,
        *,
        fallback_retry_after_ms: float | None = None,
    ) -> ProviderError:
        """Return the error for an HTTP error response, classified for retries.

        Every provider builds its HTTP errors here, so the retry policy is one piece of code:

        * ``retryable``: the server's ``x-should-retry: true|false`` header when present (an
          Anthropic and OpenAI convention), else 408, 409, 429 and every 5xx
          (:data:`RETRYABLE_STATUS`);
        * ``retry_after_ms``: the server's wait from ``headers`` (:func:`retry_after_ms`), else
          ``fallback_retry_after_ms`` (a wait the vendor put in the error body, e.g.
          Google's ``RetryInfo.retryDelay``).

        Args:
            status: The HTTP status code.
            message: The error text (status and vendor message; never an API key).
            headers: The response headers; any mapping, names matched case-insensitively.
            fallback_retry_after_ms: Wait in milliseconds when the headers name none.
        """
        should_retry = _header(headers, "x-should-retry")
        if should_retry is not None and should_retry.strip().lower() in ("true", "false"):
            retryable = should_retry.strip().lower() == "true"
        else:
            retryable = status in RETRYABLE_STATUS or status >= 500
        wait = retry_after_ms(headers)
        return cls(
            message,
            status=status,
            retryable=retryable,
            retry_after_ms=wait if wait is not None else fallback_retry_after_ms,
        )


def _header(headers: Mapping[str, str] | None, name: str) -> str | None:
    """``headers[name]``, case-insensitively (``name`` lower-case); ``None`` when absent."""
    if not headers:
        return None
    value = headers.get(name)
    if value is not None:
        return value
    for key, found in headers.items():
        if key.lower() == name:
            return found
    return None


def retry_after_ms(headers: Mapping[str, str] | None) -> float | None:
    """Return the wait a server asked for before a retry, in milliseconds, or ``None``.

    Reads ``retry-after-ms`` (milliseconds; an OpenAI/Anthropic extension), then ``retry-after``
    as delay-seconds or as an HTTP-date (RFC 9110 §10.2.3; a date in the past gives 0). Names
    match case-insensitively. Negative values become 0; unparsable, infinite or NaN values are
    ignored (``None``), so a bad header never makes a caller wait forever.

    Args:
        headers: Response headers (``httpx2.Headers``, a ``dict``, aiohttp's multidict, ...).
    """
    value = _header(headers, "retry-after-ms")
    if value is not None:
        wait = _finite(value)
        if wait is not None:
            return max(0.0, wait)
    value = _header(headers, "retry-after")
    if value is None:
        return None
    seconds = _finite(value)
    if seconds is not None:
        return max(0.0, seconds * 1000)
    try:
        when = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # "-0000": RFC 9110 dates are in GMT
        when = when.replace(tzinfo=datetime.UTC)
    return max(0.0, (when.timestamp() - time.time()) * 1000)


def _finite(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def new_assistant_message(model: Model, *, base_url: str | None = None) -> AssistantMessage:
    """Return the empty output message a provider starts from (pi-spec §4.0 step 1).

    The message is stamped with ``signature_origin(model, base_url)`` so its signatures are only
    replayed to the same endpoint; pass ``base_url`` when the request goes somewhere other than
    ``model.base_url`` (e.g. a custom client).
    """
    from .transform import signature_origin

    return AssistantMessage(
        api=model.api,
        provider=model.provider,
        model=model.id,
        signature_origin=signature_origin(model, base_url),
    )


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return text if text else type(exc).__name__


class _Aborted(Exception):
    pass


class AssistantMessageEventStream:
    """Events of one call; ``async for`` them, then (or instead) ``await result()``.

    Example:
        ```python
        async with pi_sdk.stream(model, context) as events:
            async for event in events:
                if event.type == "text_delta":
                    print(event.delta, end="")
            message = await events.result()
        ```

    One consumer at a time. ``result()`` drains whatever was not consumed and returns the final
    message; it never raises for API failures (the message carries them).
    """

    def __init__(
        self,
        start: Callable[[], AsyncIterator[AssistantMessageEvent]],
        *,
        model: Model,
        signal: AbortSignal | None = None,
        max_retries: int = 0,
        max_retry_delay_ms: int = 60_000,
    ) -> None:
        """Wrap a provider.

        Args:
            start: Called (again on each retry) to start the provider's async generator.
            model: The model called; used for the message when the provider fails before
                producing one.
            signal: Abort signal; aborting ends the stream with ``stop_reason == "aborted"``.
            max_retries: Retries of a retryable :class:`ProviderError` raised before any event.
            max_retry_delay_ms: Cap on one retry wait (0: no cap).
        """
        self._start = start
        self._model = model
        self._signal = signal
        self._max_retries = max_retries
        self._max_retry_delay_ms = max_retry_delay_ms
        self._source: AsyncIterator[AssistantMessageEvent] | None = None
        self._partial: AssistantMessage | None = None
        self._result: AssistantMessage | None = None
        self._iterating = False
        self._events = self._run()
        self._waiter: asyncio.Task[Any] | None = None
        self._abort_requested = False

    # -- public API ------------------------------------------------------------------------

    def __aiter__(self) -> AsyncIterator[AssistantMessageEvent]:
        if self._iterating:
            raise RuntimeError("this stream is already being iterated (one consumer at a time)")
        self._iterating = True
        return self._events

    async def result(self) -> AssistantMessage:
        """Consume the remaining events and return the final assistant message."""
        if self._result is None:
            async for _ in self._events:
                pass
        assert self._result is not None
        return self._result

    def __await__(self) -> Generator[Any, None, AssistantMessage]:
        return self.result().__await__()

    async def aclose(self) -> None:
        """Stop early: close the provider generator (and its HTTP response)."""
        await self._events.aclose()

    async def __aenter__(self) -> AssistantMessageEventStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # -- machinery -------------------------------------------------------------------------

    def _on_abort(self) -> None:
        self._abort_requested = True
        if self._waiter is not None and not self._waiter.done():
            self._waiter.cancel()

    async def _next(self, source: AsyncIterator[AssistantMessageEvent]) -> AssistantMessageEvent:
        """``anext(source)``, interrupted by an abort (raises :class:`_Aborted`)."""
        if self._abort_requested:
            raise _Aborted
        task = asyncio.current_task()
        self._waiter = task
        try:
            return await source.__anext__()
        except asyncio.CancelledError:
            if self._abort_requested and task is not None and task.cancelling() > 0:
                task.uncancel()
                raise _Aborted from None
            raise
        finally:
            self._waiter = None

    def _message(self) -> AssistantMessage:
        if self._partial is None:
            self._partial = new_assistant_message(self._model)
        return self._partial

    def _fail(self, reason: str, text: str) -> ErrorEvent:
        message = self._message()
        aborted = reason == "aborted" or (self._signal is not None and self._signal.aborted)
        message.stop_reason = "aborted" if aborted else "error"
        if aborted and (self._signal is not None and self._signal.reason) and reason == "aborted":
            text = self._signal.reason
        message.error_message = text
        self._result = message
        return ErrorEvent(reason=message.stop_reason, error=message)

    def _finish(self, event: DoneEvent | ErrorEvent) -> DoneEvent | ErrorEvent:
        """Check a provider's terminal event; a ``done`` carrying a failure becomes ``error``."""
        final = event.message
        self._partial = final
        if isinstance(event, DoneEvent):
            if final.stop_reason == "error" or final.stop_reason == "aborted":
                return self._fail(final.stop_reason, final.error_message or "unknown error")
            if event.reason != final.stop_reason:
                return self._fail("error", f"done reason {event.reason!r} != {final.stop_reason!r}")
        else:
            if final.stop_reason != "error" and final.stop_reason != "aborted":
                final.stop_reason = event.reason
            if final.error_message is None:
                final.error_message = "unknown error"
        self._result = final
        return event

    async def _retry_wait(self, attempt: int, error: ProviderError) -> None:
        from tenacity import wait_exponential, wait_random  # lazy: only retries need it

        strategy = wait_exponential(multiplier=0.5, max=30) + wait_random(0, 0.25)
        wait_s: float = strategy(_RetryState(attempt))  # pyright: ignore[reportArgumentType]
        if error.retry_after_ms is not None:
            wait_s = max(wait_s, error.retry_after_ms / 1000)
        if self._max_retry_delay_ms:
            wait_s = min(wait_s, self._max_retry_delay_ms / 1000)
        if self._signal is None:
            await asyncio.sleep(wait_s)
            return
        try:
            await asyncio.wait_for(self._signal.wait(), timeout=wait_s)
        except TimeoutError:
            return
        raise _Aborted

    async def _run(self) -> AsyncGenerator[AssistantMessageEvent, None]:
        remove = self._signal.add_callback(self._on_abort) if self._signal is not None else None
        started = False
        open_blocks: dict[int, str] = {}
        attempt = 0
        source: AsyncIterator[AssistantMessageEvent] | None = None
        try:
            while True:
                try:
                    if source is None:
                        if self._abort_requested:
                            raise _Aborted
                        source = self._start()
                    event = await self._next(source)
                except StopAsyncIteration:
                    if not started:
                        started = True
                        yield StartEvent(partial=self._message())
                    yield self._fail("error", "stream ended without a terminal event")
                    return
                except _Aborted:
                    if not started:
                        yield StartEvent(partial=self._message())
                    yield self._fail("aborted", "Request was aborted")
                    return
                except ProviderError as exc:
                    if not started and exc.retryable and attempt < self._max_retries:
                        attempt += 1
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
                    yield self._fail("error", _describe(exc))
                    return
                except Exception as exc:  # noqa: BLE001 - the contract: failures are data
                    if not started:
                        yield StartEvent(partial=self._message())
                    yield self._fail("error", _describe(exc))
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
                    yield self._finish(event)
                    return
                kind = event.type
                index = event.content_index
                block_kind = _START_KIND.get(kind)
                if block_kind is not None:
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
            if remove is not None:
                remove()
            await _aclose(source)
            if self._result is None:
                # Consumer left early: record the partial as aborted-by-consumer.
                message = self._message()
                if message.stop_reason not in ("error", "aborted"):
                    message.stop_reason = "aborted"
                    message.error_message = message.error_message or "stream closed by the consumer"
                self._result = message


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
