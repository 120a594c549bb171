"""The core's read loop: one HTTP call of a wire API on the kit, from its plan to its events.

A provider on the kit returns the plan of a call (:class:`~pi_sdk.provider.HttpCall`); the core
runs it here, in one async generator per attempt (:meth:`ReadLoop.events`), which the call's
stream (:mod:`pi_sdk._stream.run`) reads directly. The loop (pi-spec §4.0 steps 2-5):

* enters the plan's client lease for the whole attempt, builds the payload for the signature
  origin of the URL called, runs the payload hooks of the call's scope, and sends it (a refused
  request once more in its lesser form, when the plan has one: :mod:`.resend`);
* calls ``StreamOptions.on_response`` (pi-ai 0.73 ``onResponse``) and waits for the body's first
  bytes (:meth:`ResponseBody.start`) before ``start``, so a connection dropped before them fails
  before the call started and is retried; a page where the stream should be (``200`` with
  ``text/html``: a captive portal) is named as one (:meth:`ResponseBody.check_content`);
* reads server-sent events (:class:`SseFramer`, a network chunk at a time, + the JSON parsed
  from each event's bytes), skipping empty ``data:`` fields (proxy keep-alives); an event that
  is not a JSON object is a named error (:func:`malformed_event_error`); the ``[DONE]`` marker
  (OpenAI-style servers) ends the body. A :class:`~pi_sdk.provider.ByteDecoder` gets the raw
  chunks instead (it owns its framing); an ``application/json`` body is read whole and given to
  ``feed_document`` (a server that ignored ``stream: true``);
* decodes each event as the consumer asks for the next one, so each event's ``partial`` is
  exact at that event;
* stops at the decoder's terminal event (nothing after it is merged into the reply); a body that
  ends without it, cut in the middle of an event, is an error ("the response stream was cut in
  the middle of an event") unless the decoder is ``settled`` (its stop reason and usage
  arrived: only the final marker is missing, issue 12);
* lets the decoder end the message (``finish``), prices the usage on every path, drains what is
  left of a complete body (bounded: :meth:`ResponseBody.drain`) so the connection is reused,
  closes the response and leaves the lease on every path: end, error, abort, timeout, and a
  consumer that stops early (closing the generator);
* maps the transport's errors to retryable :class:`ProviderError` (:func:`connection_error`),
  and every :class:`ProviderError` through the plan's ``map_error``.

The read loops of the Anthropic, OpenAI, Google and Bedrock packages were four copies of this.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import AsyncGenerator, Callable, Iterable, Iterator
from contextlib import aclosing
from typing import Any, cast

from pydantic_core import from_json

from pi_sdk._stream.builder import MessageBuilder
from pi_sdk._stream.call_scope import CallScope
from pi_sdk._stream.contract import CallFunction, HttpCall
from pi_sdk._stream.httpx_errors import httpx_transport_errors
from pi_sdk._stream.provider_errors import ProviderError, body_excerpt, malformed_event_error
from pi_sdk._stream.resend import send_request
from pi_sdk._stream.response_body import ResponseBody
from pi_sdk._stream.sse import SseFramer
from pi_sdk._stream.sse_json import parse_event
from pi_sdk._stream.wire_decoder import (
    Decoder,
    HttpResponse,
    WireDecoder,
    is_json_response,
    is_settled,
)
from pi_sdk._wire.transform import signature_origin
from pi_sdk.events import AssistantMessageEvent
from pi_sdk.options import StreamOptions
from pi_sdk.types import Context, Diagnostic, Model

__all__ = ["DONE_MARKER", "ReadLoop"]

DONE_MARKER = b"[DONE]"
"""The data of the event that ends an OpenAI-style stream."""

_Feed = Callable[[Any], Iterable[AssistantMessageEvent]]


class ReadLoop:
    """One call of a wire API on the kit, as the core runs it: its call function and arguments.

    :class:`~pi_sdk.AssistantMessageEventStream` takes one in place of a stream
    function; it starts :meth:`events` on each attempt and, since the builder made every event,
    skips the per-event contract checks a stream function's events get.
    """

    __slots__ = ("call", "context", "model", "options", "resent")

    def __init__(
        self, call: CallFunction, model: Model, context: Context, options: StreamOptions
    ) -> None:
        self.call = call
        self.model = model
        self.context = context
        self.options = options
        self.resent: Diagnostic | None = None
        """The diagnostic of the call's resend of a refused request (:mod:`.resend`), once made."""

    async def events(self, scope: CallScope) -> AsyncGenerator[AssistantMessageEvent, None]:
        """One attempt: the call's events, ``start`` first and the terminal event last.

        ``scope`` gives the payload hooks. Closing the generator (the consumer stopped) closes
        the response and leaves the lease. The loop over the body is written out here, in this
        one generator, on purpose: the core reads it directly, so an event costs one generator
        step between the decoder and the consumer.

        Raises:
            ProviderError: HTTP, connection and in-stream errors (retryable ones before
                ``start`` are retried by the core); a malformed event (``"malformed stream
                event #<n> (<event name>): ...; data: <excerpt>"``), a malformed JSON body
                (``"malformed JSON response: ...; body: <excerpt>"``), a cut or incomplete
                stream. Anything the plan's callables or the hooks raise.
            TypeError: the call function returned something else than an ``HttpCall``.
        """
        plan = await self._plan()
        try:
            async with plan.lease as client:
                builder, decoder, response = await self._send(plan, client, scope)
                lost, timeouts = plan.errors or httpx_transport_errors()
                body = ResponseBody(
                    response.aiter_bytes(), transport_errors=lost, timeout_errors=timeouts
                )
                complete = False  # the reply ended as the vendor ends it: drain, then close
                try:
                    json_body = await _first_bytes(response, body, self.options, plan)
                    feed_bytes: _Feed | None = getattr(decoder, "iter_bytes", None) or getattr(
                        decoder, "feed_bytes", None
                    )
                    sse_feed = None if feed_bytes else cast("WireDecoder", decoder).feed
                    feed = cast("_Feed", feed_bytes or sse_feed)
                    deferred = _StartOnContent(builder) if plan.start_on_content else None
                    if deferred is None:
                        yield builder.start()
                    else:
                        feed = deferred.wrap(feed)
                    saw_done = stop = False
                    if json_body:
                        events = decoder.feed_document(await _read_document(body))
                        for event in deferred.first(events) if deferred else events:
                            yield event
                        saw_done = True
                    elif feed_bytes is not None:
                        async for chunk in body:
                            for event in feed(chunk):
                                yield event
                            if decoder.terminal:
                                stop = True  # the reply is complete: nothing after it is merged
                                break
                    else:
                        number = 0
                        async with aclosing(_frames(body)) as chunks:
                            async for frames in chunks:  # per network chunk, its events
                                for name, data in frames:
                                    number += 1
                                    try:  # parse_event's fast path, inline (a call less per event)
                                        parsed = from_json(data, cache_strings="keys")
                                    except ValueError:
                                        parsed = _parsed(name, data, number)
                                        if parsed is _SKIP:
                                            continue
                                        if parsed is _DONE:
                                            saw_done = stop = True
                                            break
                                    if type(parsed) is not dict:
                                        parsed = _parsed(name, data, number)  # raises
                                    for event in feed(parsed):
                                        yield event
                                    if decoder.terminal:
                                        stop = True  # the reply is complete
                                        break
                                if stop:
                                    break
                        if not (stop or body.ended_on_event_boundary() or is_settled(decoder)):
                            raise ProviderError(
                                "the response stream was cut in the middle of an event: the"
                                " reply is incomplete (connection closed early?)",
                                incomplete=True,
                            )
                    if deferred is not None and deferred.pending:
                        yield builder.start()  # the reply ended without content
                    complete = saw_done or decoder.terminal
                    ended_early = not complete and not is_settled(decoder)
                    try:
                        for event in decoder.finish(saw_done=saw_done):
                            if event.type == "done" or event.type == "error":
                                complete = True  # the consumer may stop at the terminal event
                            yield event
                    except ProviderError as exc:
                        # The body ended before the API's end ("stream ended before
                        # message_stop"): a cut reply, whose missing usage is estimated.
                        exc.incomplete = exc.incomplete or ended_early
                        raise
                finally:
                    builder.price_usage()  # usage is kept, priced, on every path
                    try:
                        if complete:  # the connection goes back to the pool
                            await body.drain()
                    finally:
                        await response.aclose()
        except ProviderError as exc:
            mapped = plan.map_error(exc) if plan.map_error is not None else exc
            if mapped is exc:
                raise
            raise mapped from exc

    async def _plan(self) -> HttpCall[Any]:
        """The plan of this attempt, from the call function.

        Raises:
            TypeError: the call function returned something else than an ``HttpCall``.
        """
        plan = await self.call(self.model, self.context, self.options)
        if not isinstance(plan, HttpCall):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(
                f"the call function of {self.model.api!r} returned {type(plan).__name__},"
                " not an HttpCall"
            )
        return plan

    async def _send(
        self, plan: HttpCall[Any], client: Any, scope: CallScope
    ) -> tuple[MessageBuilder, Decoder, HttpResponse]:
        """Build the payload for the URL called, run the hooks, send it: the reply's parts.

        Returns the builder (stamped with the URL's signature origin), the decoder writing into
        it, and the unread response.
        """
        model, options = self.model, self.options
        base_url = plan.base_url
        if callable(base_url):
            base_url = base_url(client)
        builder = MessageBuilder(model, base_url=base_url)
        decoder = plan.decoder(builder)
        origin = signature_origin(model, base_url)

        async def hooked(build: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
            payload = build(origin)
            if scope.payload_hooks is not None:
                payload = await scope.payload_hooks(payload, model, options)
            return payload

        response = await send_request(plan, client, hooked, options, self)
        if self.resent is not None:  # the reply tells that its request was sent again
            builder.message.diagnostics = [*(builder.message.diagnostics or ()), self.resent]
        return builder, decoder, response


class _StartOnContent:
    """``start`` deferred to the first decoded content (:attr:`HttpCall.start_on_content`)."""

    __slots__ = ("builder", "pending")

    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.pending = True
        """``start`` was not yielded yet."""

    def first(self, events: Iterable[AssistantMessageEvent]) -> Iterable[AssistantMessageEvent]:
        """``events``, after ``start`` if they are the first ones.

        Lazy: ``start`` goes out as soon as the first event is taken from ``events``, before the
        rest is (a decoder's ``iter_bytes`` decodes the frames of a chunk one by one).
        """
        if not self.pending:
            return events
        return self._after_start(events)

    def _after_start(
        self, events: Iterable[AssistantMessageEvent]
    ) -> Iterator[AssistantMessageEvent]:
        iterator = iter(events)
        for event in iterator:
            self.pending = False
            yield self.builder.start()
            yield event
            yield from iterator
            return

    def wrap(self, feed: _Feed) -> _Feed:
        """``feed``, with ``start`` put before the first events it returns."""
        first = self.first
        return lambda item: first(feed(item))


async def _first_bytes(
    response: HttpResponse, body: ResponseBody, options: StreamOptions, plan: HttpCall[Any]
) -> bool:
    """``on_response``, then the body's first bytes; True for a whole JSON document.

    Raises:
        ProviderError: the connection dropped before the first bytes (retryable), or the body
            is a page, not the stream.
    """
    status: Any = getattr(response, "status_code", 200)
    status = status if isinstance(status, int) else 200
    if options.on_response is not None:
        result = options.on_response(status, response.headers)
        if inspect.isawaitable(result):
            await result
    await body.start()
    if is_json_response(response):
        return True
    content_type = response.headers.get("content-type")
    body.check_content(content_type, status=status, expected=plan.stream_kind)
    return False


async def _frames(body: ResponseBody) -> AsyncGenerator[list[tuple[str, bytes]], None]:
    """Per chunk of ``body``, the server-sent events it completed; then the body's last one."""
    framer = SseFramer()
    async for chunk in body:
        yield framer.feed(chunk)
    yield framer.end()


_DONE: Any = object()
_SKIP: Any = object()


def _parsed(name: str, data: bytes, number: int) -> Any:
    """The JSON object of event ``number``; ``_DONE`` for ``[DONE]``, ``_SKIP`` for a blank one.

    Raises:
        ProviderError: the data is not a JSON object (:func:`malformed_event_error`).
    """
    if data == DONE_MARKER:
        return _DONE
    try:
        parsed: Any = parse_event(data)
    except ValueError as exc:
        if not data.strip():
            return _SKIP  # an empty ``data:`` field (proxy keep-alive) carries no event
        text = data.decode("utf-8", errors="replace")
        raise malformed_event_error(text, event=name, number=number, error=exc) from None
    if not isinstance(parsed, dict):
        raise malformed_event_error(
            data.decode("utf-8", errors="replace"),
            event=name,
            number=number,
            error=ValueError("not a JSON object"),
        )
    return cast("dict[str, Any]", parsed)


async def _read_document(body: ResponseBody) -> Any:
    """The decoded JSON of a whole body.

    Raises:
        ProviderError: the body is not JSON (``"malformed JSON response: ..."``).
    """
    raw = b"".join([chunk async for chunk in body])
    text = raw.decode("utf-8", errors="replace")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ProviderError(
            f"malformed JSON response: {exc}; body: {body_excerpt(text)!r}"
        ) from None
