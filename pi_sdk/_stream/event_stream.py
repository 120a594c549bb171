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

from collections.abc import AsyncIterator, Callable, Generator, Iterable
from typing import Any

from pi_sdk._stream.run import StreamRun
from pi_sdk._wire.abort import AbortSignal
from pi_sdk._wire.output import Output
from pi_sdk.events import AssistantMessageEvent
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
        start: Callable[[], AsyncIterator[AssistantMessageEvent]],
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
    ) -> None:
        """Wrap a provider.

        Args:
            start: Called (again on each retry) to start the provider's async generator.
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
        """
        retries = (max_retries, max_retry_delay_ms)
        self._call = StreamRun(
            start, model, signal, retries, (timeout_ms, idle_timeout_ms), secrets, context
        )
        self._call.output = output
        self._call.observe = observe
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
        """Stop early: close the provider generator (and its HTTP response)."""
        await self._events.aclose()

    async def __aenter__(self) -> AssistantMessageEventStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
