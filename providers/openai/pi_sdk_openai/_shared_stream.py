"""The read loop both wire APIs share: request, ``start``, SSE or JSON body, decoder, close.

The stream function body of pi-spec §4.0 on the client of :mod:`pi_sdk_openai._client`; each
API supplies its payload builder and its decoder (:class:`WireDecoder`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, Protocol

from pi_sdk.provider import (
    AssistantMessage,
    AssistantMessageEvent,
    Model,
    ProviderError,
    ResponseBody,
    StartEvent,
    StreamOptions,
    apply_payload_hooks,
    body_excerpt,
    import_vendor,
    iter_sse,
    malformed_event_error,
    new_assistant_message,
    signature_origin,
)

from ._client import get_client, open_response, request_headers

if TYPE_CHECKING:
    import httpx2

__all__ = ["WireDecoder", "run_stream"]


class WireDecoder(Protocol):
    """Turns one API's response into pi events for one output message."""

    @property
    def terminal(self) -> bool:
        """True once the API's own terminal event was fed; nothing after it is read.

        Responses: ``response.completed``. Chat Completions has none in its chunks: ``[DONE]``
        ends it.
        """
        ...

    def feed(self, data: Any) -> list[AssistantMessageEvent]:
        """Consume one parsed SSE ``data`` object; return the events it produces."""
        ...

    def feed_body(self, body: Any) -> list[AssistantMessageEvent]:
        """Consume a whole non-streamed JSON response (a server that ignored ``stream``)."""
        ...

    def finish(self, *, saw_done: bool) -> list[AssistantMessageEvent]:
        """Close open blocks and return the remaining events, ending with ``done``/``error``.

        ``saw_done`` tells whether the body ended with the ``[DONE]`` marker (always true for
        a JSON body). Raises :class:`pi_sdk.ProviderError` when the response is incomplete.
        """
        ...


def _malformed_body(text: str, error: ValueError) -> ProviderError:
    return ProviderError(f"malformed JSON response: {error}; body: {body_excerpt(text)!r}")


async def run_stream(
    model: Model,
    options: StreamOptions,
    *,
    path: str,
    build_payload: Callable[[str], dict[str, Any]],
    decoder: Callable[[AssistantMessage], WireDecoder],
) -> AsyncGenerator[AssistantMessageEvent, None]:
    """The stream function body both APIs share (pi-spec §4.0).

    Builds the client, the payload (``build_payload(origin)``, ``origin`` being the
    :func:`pi_sdk.signature_origin` of the URL actually called), runs the payload hooks, sends
    the request, yields ``start`` once the body's first bytes are in, then feeds the decoder
    every SSE event (or the whole body when the server answered with JSON) and yields what it
    returns. The response is closed on every exit path (end, error, abort); a complete one is
    drained first so its connection is reused.
    """
    # The first import of the SDK runs in a worker thread, not on the event loop.
    await import_vendor("openai")
    import httpx2

    response: httpx2.Response | None = None
    body: ResponseBody | None = None
    complete = False
    async with await get_client(model, options) as client:
        try:
            # Signatures are tied to the URL actually called (a caller's client, or the SDK
            # default / OPENAI_BASE_URL when model.base_url is empty).
            base_url = str(client.base_url)
            payload = build_payload(signature_origin(model, base_url))
            payload = await apply_payload_hooks(payload, model, options)
            headers = request_headers(model, options)
            response = await open_response(client, path, payload, headers)
            body = ResponseBody(
                response.aiter_bytes(),
                transport_errors=(httpx2.TransportError,),
                timeout_errors=(httpx2.TimeoutException,),
            )
            # The reply has begun once its first bytes are in: a connection dropped before
            # them fails here, before start, and is retried.
            await body.start()
            is_json = "application/json" in response.headers.get("content-type", "")
            output = new_assistant_message(model, base_url=base_url)
            yield StartEvent(partial=output)
            async with aclosing(_read(body, is_json, decoder(output))) as events:
                async for event in events:
                    if event.type == "done" or event.type == "error":
                        complete = True  # the reply is complete (the consumer may stop here)
                    yield event
        finally:
            if response is not None:
                try:
                    if complete and body is not None:  # the connection goes back to the pool
                        await body.drain()
                finally:
                    await response.aclose()


async def _read(
    body: ResponseBody, is_json: bool, state: WireDecoder
) -> AsyncGenerator[AssistantMessageEvent, None]:
    """Feed the body to ``state`` (SSE events, or one JSON document) and yield its events.

    An SSE body is read up to the ``[DONE]`` marker or the API's terminal event
    (:attr:`WireDecoder.terminal`); nothing after it is read as events.
    """
    saw_done = False
    loads = json.loads
    if is_json:
        raw = b"".join([chunk async for chunk in body])
        text = raw.decode("utf-8", errors="replace")
        try:
            document = loads(text)
        except ValueError as exc:
            raise _malformed_body(text, exc) from None
        for event in state.feed_body(document):
            yield event
        saw_done = True
    else:
        number = 0
        async for sse in iter_sse(body):
            number += 1
            data = sse.data
            if not data.strip():
                continue  # an empty ``data:`` field (keep-alive from a proxy) carries no event
            if data == "[DONE]":
                saw_done = True
                break
            try:
                parsed = loads(data)
            except ValueError as exc:
                raise malformed_event_error(
                    data, event=sse.event, number=number, error=exc
                ) from None
            if not isinstance(parsed, dict):
                raise malformed_event_error(
                    data, event=sse.event, number=number, error=ValueError("not a JSON object")
                )
            for event in state.feed(parsed):
                yield event
            if state.terminal:
                break  # the reply is complete: events after it are not merged into it
        else:
            if not body.ended_on_event_boundary():
                raise ProviderError(
                    "the response stream was cut in the middle of an event: the reply is"
                    " incomplete (connection closed early?)"
                )
    for event in state.finish(saw_done=saw_done):
        yield event
