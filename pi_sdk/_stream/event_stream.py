"""The stream object a call returns: async-iterable events, ``await result()``, and the contract.

:class:`AssistantMessageEventStream` runs a call, through the core's read loop (a wire API on the
kit: :class:`~pi_sdk._stream.read_loop.ReadLoop`) or a provider's async generator (a stream
function), and *enforces* pi-mono's event protocol (pi-spec §2) whatever the provider does:

* ``start`` comes first (synthesized when the provider did not send one);
* ``*_start`` / ``*_delta`` / ``*_end`` nest per ``content_index``;
* exactly one terminal ``done`` or ``error`` ends the stream, and nothing follows it;
* a provider exception, a stream that ends without a terminal event, or an abort becomes one
  ``error`` event whose message keeps the partial content and usage;
* a retryable failure before any content (:class:`ProviderError` with ``retryable``) is retried
  with exponential backoff (tenacity), honouring ``retry-after``.

Events are pulled: nothing runs ahead of the consumer, and leaving early (``break``,
``async with``, ``aclose()``) closes the read loop (or the provider generator) and with it the
HTTP response.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Generator, Iterable
from typing import Any

from pi_sdk._stream.call_scope import CallScope
from pi_sdk._stream.read_loop import ReadLoop
from pi_sdk._stream.run import StreamRun
from pi_sdk._wire.abort import AbortSignal
from pi_sdk._wire.output import Output
from pi_sdk.events import AssistantMessageEvent
from pi_sdk.options import RetryNotice
from pi_sdk.types import AssistantMessage, Context, Model

__all__ = ["AssistantMessageEventStream"]


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
        start: Callable[[], AsyncIterator[AssistantMessageEvent]] | ReadLoop,
        *,
        model: Model,
        signal: AbortSignal | None = None,
        max_retries: int = 0,
        max_retry_delay_ms: int = 60_000,
        timeout_ms: float | None = None,
        idle_timeout_ms: float | None = None,
        secrets: Callable[[], Iterable[str | None]] | None = None,
        context: Context | None = None,
        output: Output | None = None,
        observe: Callable[[], Callable[[AssistantMessage], None] | None] | None = None,
        scope: CallScope | None = None,
        on_retry: Callable[[RetryNotice], object] | None = None,
    ) -> None:
        """Wrap a provider.

        Args:
            start: The call: the core's read loop over a wire API's call plan, or a function
                called (again on each retry) to start the provider's async generator, whose
                events are then checked one by one.
            model: The model called; used for the message when the provider fails before
                producing one.
            signal: Abort signal; aborting ends the stream with ``stop_reason == "aborted"``.
            max_retries: Retries of a retryable :class:`ProviderError` raised before any event.
            max_retry_delay_ms: Cap on one retry wait (0: no cap).
            timeout_ms: Longest wait, in milliseconds, for the response to start (connecting,
                the headers and the first bytes of the body: the provider's first event);
                ``None``: no limit. Exceeded, it is retryable.
            idle_timeout_ms: Once the response started, the longest silence, in
                milliseconds: no event and no byte on the wire (keep-alives count as
                activity); ``None``: no limit.
            secrets: Returns the values to redact from error messages (e.g. the API key);
                called only when the stream fails.
            context: The request; a reply aborted or cut after it started whose vendor usage
                is missing gets an estimated usage from it (``usage_estimated``, issue 12).
            output: The typed answer asked for (``StreamOptions.output``): the final message
                is parsed once, at ``done`` (:func:`settle_output`), never per event.
            observe: Called when the stream is first read (the call starts); a callable it
                returns is called once with the final message when the stream ends (the
                ``on_model_call`` observers, :mod:`pi_sdk._plugins.observers`).
            scope: What the call reads from the collection that started it: payload hooks, key
                lookup (:class:`~pi_sdk._stream.call_scope.CallScope`; default: none, and the
                default registry's keys).
            on_retry: Told before each retry (``StreamOptions.on_retry``,
                :class:`~pi_sdk.options.RetryNotice`).
        """
        retries = (max_retries, max_retry_delay_ms)
        limits = (timeout_ms, idle_timeout_ms)
        self._call = StreamRun(start, model, signal, retries, limits, secrets, context, scope)
        self._call.output = output
        self._call.observe = observe
        self._call.on_retry = on_retry
        # The generator refers to the run, never to this object: dropping this object (and
        # the generator) frees the generator at once, and the event loop then closes it.
        self._events = self._call.events()
        self._iterating = False

    # -- public API ------------------------------------------------------------------------

    def __aiter__(self) -> AsyncIterator[AssistantMessageEvent]:
        if self._iterating:
            raise RuntimeError("this stream is already being iterated (one consumer at a time)")
        self._iterating = True
        return self._events

    @property
    def failure(self) -> BaseException | None:
        """The exception that ended the call, once it ended in one (``None`` otherwise).

        A :class:`~pi_sdk.provider.ProviderError` keeps the HTTP ``status`` and ``retryable``
        the ``error_message`` only words: a fallback policy classifies the failure by it.
        """
        return self._call.failure

    async def result(self) -> AssistantMessage:
        """Consume the remaining events and return the final assistant message."""
        call = self._call
        if call.final is None:
            async for _ in self._events:
                pass
        result = call.final
        assert result is not None
        return result

    def __await__(self) -> Generator[Any, None, AssistantMessage]:
        return self.result().__await__()

    async def aclose(self) -> None:
        """Stop early: close the read loop or the provider generator (and its HTTP response)."""
        await self._events.aclose()

    async def __aenter__(self) -> AssistantMessageEventStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
