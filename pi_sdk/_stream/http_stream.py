"""run_http_stream: the one read loop of a provider that reads its HTTP response body itself.

A provider's stream function builds the payload, then hands :func:`run_http_stream` a coroutine
that sends the request and returns the unread response (the vendor client does auth, the
request and the HTTP status errors), a :class:`WireDecoder` for the vendor's events, and the
:class:`~pi_sdk.provider.MessageBuilder` the decoder writes into. The runner:

* waits for the body's first bytes (:meth:`ResponseBody.start`) before ``start``, so a
  connection dropped before them fails before the call started and is retried; a page where
  the stream should be (``200`` with ``text/html``: a captive portal) is named as one
  (:meth:`ResponseBody.check_content`);
* reads server-sent events (:class:`SseFramer`, a network chunk at a time, +
  :func:`parse_event`: the JSON parsed from the event's bytes), skipping empty ``data:`` fields
  (proxy keep-alives); an event that is not a JSON object is a named error
  (:func:`malformed_event_error`); the ``[DONE]`` marker (OpenAI-style servers) ends the body;
* reads an ``application/json`` body whole (a server that ignored ``stream: true``) and gives
  the decoder the one document (:meth:`WireDecoder.feed_document`);
* stops at the decoder's terminal event (:attr:`WireDecoder.terminal`): anything after it is
  not merged into the reply; a body that ends without it, cut in the middle of an event, is an
  error ("the response stream was cut in the middle of an event") unless the decoder is
  ``settled`` (its stop reason and usage arrived: only the final marker is missing, issue 12);
* lets the decoder end the message (:meth:`WireDecoder.finish`), then drains what is left of a
  complete body (bounded: :meth:`ResponseBody.drain`) so the connection is reused, and closes
  the response on every path: end, error, abort, and a consumer that stops early;
* maps the transport's errors to retryable :class:`ProviderError` (:func:`connection_error`);
* when the core reads the call (it offers so on the call's ``Activity``), yields one
  :class:`~pi_sdk._stream.activity.EventPump` instead of the events: the core pulls them from the
  body
  loop directly, one generator deep whatever the provider's generators around this one, and a
  failure the pump kept is raised here, after it, through those generators' handlers.

The read loops of the Anthropic, OpenAI and Google packages (pi-spec §4.0 steps 3-5) were three
copies of this.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import aclosing
from typing import Any, Protocol, TypeAlias, cast

from pydantic_core import from_json

from pi_sdk._stream.activity import EventPump, current_activity, forwards_events
from pi_sdk._stream.builder import MessageBuilder
from pi_sdk._stream.provider_errors import (
    ConnectionPhase,
    ProviderError,
    body_excerpt,
    connection_error,
    malformed_event_error,
)
from pi_sdk._stream.response_body import ResponseBody
from pi_sdk._stream.sse import SseFramer
from pi_sdk._stream.sse_json import parse_event
from pi_sdk.events import AssistantMessageEvent

__all__ = [
    "HttpResponse",
    "WireDecoder",
    "connection_error_from_httpx",
    "is_json_response",
    "run_http_stream",
]

ResponseHook: TypeAlias = Callable[[int, Mapping[str, str]], object]
"""``on_response(status, headers)``; may return an awaitable (``StreamOptions.on_response``)."""

DONE_MARKER = b"[DONE]"
"""The data of the event that ends an OpenAI-style stream."""


class HttpResponse(Protocol):
    """What the runner needs of a response: headers, the body's bytes, and closing it.

    An ``httpx2.Response`` is one; wrap other transports' responses in an object with these.
    """

    @property
    def headers(self) -> Mapping[str, str]:
        """The response headers (``content-type`` is read, case-insensitively)."""
        ...

    def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body's bytes, chunked as the transport delivers them."""
        ...

    async def aclose(self) -> None:
        """Close the response (and return or drop its connection)."""
        ...


class WireDecoder(Protocol):
    """Turns one wire API's response into :class:`~pi_sdk.provider.MessageBuilder` calls.

    Every method returns the events the builder returned for what it was fed.
    """

    @property
    def terminal(self) -> bool:
        """True once the API's own terminal event was fed; nothing after it is read.

        Anthropic ``message_stop``, Responses ``response.completed``, a Gemini chunk with a
        ``finishReason``; always False for Chat Completions, which ``[DONE]`` ends.
        """
        ...

    # Optional: ``settled`` (bool attribute or property), True once the reply's terminal
    # information (stop reason and usage) arrived before the API's final marker (Anthropic
    # ``message_delta`` before ``message_stop``, Chat Completions ``finish_reason`` + usage
    # before ``[DONE]``). A body that then ends, even cut in the middle of the final marker's
    # event, is complete: :meth:`finish` is called (read with :func:`_is_settled`).

    def feed(self, data: dict[str, Any]) -> Iterable[AssistantMessageEvent]:
        """Consume one server-sent event's JSON object."""
        ...

    def feed_document(self, document: Any) -> Iterable[AssistantMessageEvent]:
        """Consume a whole JSON response (a server that ignored the streaming flag).

        ``document`` is the decoded body, of any JSON type; raise :class:`ProviderError` for
        one that is not the API's response.
        """
        ...

    def finish(self, *, saw_done: bool) -> Iterable[AssistantMessageEvent]:
        """End the message: the remaining events, ending with ``done`` or ``error``.

        ``saw_done``: the body ended with the ``[DONE]`` marker (always True after
        :meth:`feed_document`). Raise :class:`ProviderError` for an incomplete response (no
        terminal event), a refused one, etc.: the core turns it into the ``error`` event with
        the partial message kept.
        """
        ...


def _is_settled(decoder: object) -> bool:
    """The decoder's optional ``settled`` flag: its stop reason and usage have arrived.

    A reply whose terminal information arrived is complete even if the final marker
    (``message_stop``, ``[DONE]``) is missing or cut (issue 12; pi-mono reads what arrived).
    """
    return getattr(decoder, "settled", False) is True


def is_json_response(response: HttpResponse) -> bool:
    """True when the response's ``content-type`` is ``application/json`` (not a stream)."""
    content_type = response.headers.get("content-type") or ""
    return "application/json" in content_type.lower()


@forwards_events
async def run_http_stream(
    open_response: Callable[[], Awaitable[HttpResponse]],
    decoder: WireDecoder,
    builder: MessageBuilder,
    *,
    transport_errors: tuple[type[BaseException], ...] = (),
    timeout_errors: tuple[type[BaseException], ...] = (),
    on_response: ResponseHook | None = None,
) -> AsyncGenerator[AssistantMessageEvent, None]:
    """Send the request, read the response, and yield the call's events (pi-spec §4.0).

    Args:
        open_response: Sends the request; returns the response once its headers are in,
            unread, or raises :class:`ProviderError` for HTTP and connection errors.
        decoder: The wire API's decoder; it writes into ``builder``.
        builder: The message builder; its ``start`` event is yielded first and its usage is
            priced on every exit path (also on errors and aborts).
        transport_errors: The transport's exception types for a lost connection (httpx2:
            ``(httpx2.TransportError,)``); raised while reading, they become a retryable
            :class:`ProviderError`.
        timeout_errors: Those of them that mean "gave up waiting" (for the error text).
        on_response: ``StreamOptions.on_response``: called (and awaited when it returns an
            awaitable) with the HTTP status and the headers of a successful response, before
            its body is read (pi-ai 0.73 ``onResponse``). An exception it raises fails the call.

    Yields:
        ``start`` once the body's first bytes are in, then what the decoder returns, ending
        with its ``done`` or ``error``; to the core (``Activity.pumps``), one
        :class:`~pi_sdk._stream.activity.EventPump` of those events instead.

    Raises:
        ProviderError: HTTP, connection and in-stream errors; a malformed event (``"malformed
            stream event #<n> (<event name>): ...; data: <excerpt>"``), a malformed JSON body
            (``"malformed JSON response: ...; body: <excerpt>"``), a cut or incomplete stream.
    """
    response = await open_response()
    body = ResponseBody(
        response.aiter_bytes(), transport_errors=transport_errors, timeout_errors=timeout_errors
    )
    reader: _BodyReader | None = None
    try:
        if on_response is not None:
            status: Any = getattr(response, "status_code", 200)
            result = on_response(status if isinstance(status, int) else 200, response.headers)
            if inspect.isawaitable(result):
                await result
        # The reply has begun once its first bytes are in: a connection dropped before them
        # fails here, before start, and is retried.
        await body.start()
        json_body = is_json_response(response)
        if not json_body:
            status = getattr(response, "status_code", 200)
            body.check_content(response.headers.get("content-type"), status=status)
        reader = _BodyReader(body, decoder, builder, json_body=json_body)
        pump = reader.pump
        activity = current_activity.get()
        if activity is not None and activity.pumps:
            yield cast("Any", pump)  # the core reads the events from the pump itself
        else:
            async for event in pump.events:
                yield event
        if pump.failure is not None:
            raise pump.failure
    finally:
        builder.price_usage()  # usage is kept, priced, on every path
        try:
            if reader is not None:
                await reader.close()
            if reader is not None and reader.complete:  # the connection goes back to the pool
                await body.drain()
        finally:
            await response.aclose()


class _BodyReader:
    """The read loop of one response body: its events, from ``start`` to the terminal one.

    :meth:`events` never raises an ``Exception``: a failure ends it and is kept in the pump's
    ``failure`` (:class:`~pi_sdk._stream.activity.EventPump`), raised by :func:`run_http_stream`.
    """

    __slots__ = ("body", "builder", "complete", "decoder", "pump")

    def __init__(
        self, body: ResponseBody, decoder: WireDecoder, builder: MessageBuilder, *, json_body: bool
    ) -> None:
        self.body, self.decoder, self.builder = body, decoder, builder
        self.complete = False
        """The reply ended as the vendor ends it: drain the body, then close it."""
        self.pump = EventPump(self._run(json_body))
        """The call's events (:meth:`_run`), as the core reads them."""

    async def close(self) -> None:
        """Close the events' generator (the core may have left it at the terminal event)."""
        await self.pump.events.aclose()

    async def _run(self, json_body: bool) -> AsyncGenerator[AssistantMessageEvent, None]:
        decoder = self.decoder
        try:
            yield self.builder.start()
            saw_done = False
            if json_body:
                for event in decoder.feed_document(await _read_document(self.body)):
                    yield event
                saw_done = True
            else:
                feed = decoder.feed
                number = 0
                stop = False
                async with aclosing(_frames(self.body)) as chunks:
                    async for frames in chunks:  # per network chunk, its events
                        for name, data in frames:
                            number += 1
                            try:  # parse_event's fast path, inline (one call less per event)
                                parsed = from_json(data, cache_strings="keys")
                            except ValueError:
                                parsed = _parsed(name, data, number)
                                if parsed is _SKIP:
                                    continue
                                if parsed is _DONE:
                                    saw_done = stop = True
                                    break
                            if type(parsed) is not dict:
                                parsed = _parsed(name, data, number)  # raises: not an object
                            for event in feed(parsed):  # pyright: ignore[reportUnknownArgumentType]
                                yield event
                            if decoder.terminal:
                                stop = True  # the reply is complete: nothing after it is merged
                                break
                        if stop:
                            break
                if (
                    not stop
                    and not self.body.ended_on_event_boundary()
                    and not _is_settled(decoder)
                ):
                    raise ProviderError(
                        "the response stream was cut in the middle of an event: the reply is"
                        " incomplete (connection closed early?)",
                        incomplete=True,
                    )
            async for event in self._finish(saw_done):
                yield event
        except Exception as exc:  # noqa: BLE001 - kept for run_http_stream to raise
            self.pump.failure = exc

    async def _finish(self, saw_done: bool) -> AsyncGenerator[AssistantMessageEvent, None]:
        decoder = self.decoder
        self.complete = saw_done or decoder.terminal
        ended_early = not self.complete and not _is_settled(decoder)
        try:
            for event in decoder.finish(saw_done=saw_done):
                if event.type == "done" or event.type == "error":
                    self.complete = True  # the consumer may stop at the terminal event
                yield event
        except ProviderError as exc:
            # The body ended before the API's end ("stream ended before message_stop"): a cut
            # reply, whose missing usage is estimated (issue 12).
            exc.incomplete = exc.incomplete or ended_early
            raise


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
    return parsed  # pyright: ignore[reportUnknownVariableType]


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


def connection_error_from_httpx(exc: BaseException) -> ProviderError:
    """Turn a vendor SDK's connection error (over httpx2) into a retryable :class:`ProviderError`.

    For ``anthropic.APIConnectionError`` / ``openai.APIConnectionError`` and their
    ``APITimeoutError``: their ``__cause__`` is the transport's exception, a failed connect
    (``httpx2.ConnectError``/``ConnectTimeout``: phase ``"connect"``) or a connection the server
    closed after the request was sent, before the response (phase ``"request"``); a timeout is
    named as one (:func:`pi_sdk.provider.connection_error`). An ``httpx2.TransportError`` itself
    (a provider that sends with httpx2 directly) is classified as it is, not by its ``__cause__``
    (httpx2 chains the httpcore2 error there). httpx2 is imported here, on the first failure:
    only providers whose SDK runs on it call this.
    """
    import httpx2

    cause: BaseException = exc if isinstance(exc, httpx2.TransportError) else exc.__cause__ or exc
    phase: ConnectionPhase = (
        "connect" if isinstance(cause, httpx2.ConnectError | httpx2.ConnectTimeout) else "request"
    )
    timed_out = isinstance(cause, httpx2.TimeoutException) or "Timeout" in type(exc).__name__
    return connection_error(cause, phase, timed_out=timed_out)
