"""One call, the same for the Gemini API and Vertex AI: build, send, read, normalize.

The API packages (:mod:`.generative_ai`, :mod:`.vertex`) differ only in how they pick the
client and the URL; both hand over to :func:`run_stream` (pi-spec §4.0 steps 2-3).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, cast

from pi_sdk.provider import (
    AssistantMessage,
    AssistantMessageEvent,
    ConfigurationError,
    Context,
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

from ._client import transport_errors
from ._shared_decode import ResponseNormalizer
from ._shared_request import build_request

__all__ = [
    "COMMON_OPTIONS",
    "STREAM_METHOD",
    "check_provider_options",
    "request_headers",
    "run_stream",
]

STREAM_METHOD = "streamGenerateContent?alt=sse"
COMMON_OPTIONS = frozenset({"tool_choice", "thinking", "timeout_ms"})
"""``provider_options`` keys both Google APIs read."""


def check_provider_options(options: StreamOptions, allowed: frozenset[str], api: str) -> None:
    """Reject ``provider_options`` keys the API does not read, so a typo is not silently lost.

    Raises:
        ConfigurationError: An unknown key; the message lists the known ones.
    """
    unknown = sorted(set(options.provider_options) - allowed)
    if unknown:
        raise ConfigurationError(
            f"unknown provider_options for {api}: {', '.join(unknown)} "
            f"(known: {', '.join(sorted(allowed))})"
        )


def _json_chunks(raw: bytes) -> list[dict[str, Any]]:
    """The response objects of a whole JSON body: one object, or an array of them.

    Raises:
        ProviderError: The body is not JSON, or is neither an object nor an array of objects.
    """
    text = raw.decode("utf-8", errors="replace")
    try:
        document: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProviderError(
            f"malformed JSON response: {exc}; body: {body_excerpt(text)!r}"
        ) from None
    items = cast(list[Any], document) if isinstance(document, list) else [document]
    if not all(isinstance(item, dict) for item in items):
        raise ProviderError(f"Gemini sent an unexpected JSON response: {body_excerpt(text)!r}")
    return cast(list[dict[str, Any]], items)


def request_headers(model: Model, options: StreamOptions) -> dict[str, str]:
    """Return ``model.headers`` merged with ``options.headers`` (the call's win)."""
    headers: dict[str, str] = dict(model.headers or {})
    if options.headers:
        headers.update(options.headers)
    return headers


async def run_stream(
    model: Model,
    context: Context,
    options: StreamOptions,
    connect: Callable[[], tuple[AbstractAsyncContextManager[Any], str, str]],
    new_decoder: Callable[[Model, AssistantMessage], ResponseNormalizer],
) -> AsyncIterator[AssistantMessageEvent]:
    """Stream one ``streamGenerateContent`` call as pi-sdk events.

    Args:
        model: The model called.
        context: What to send.
        options: Per-call options.
        connect: Returns ``(lease, base URL, full request URL)``: ``lease`` is a context
            manager giving the ``google.genai.Client`` for the call (a cached one from
            :func:`._client.get_client`, or ``nullcontext(options.client)``); the base URL is
            the part before the model resource and binds the signatures of the reply
            (:func:`pi_sdk.signature_origin`). Configuration errors raised here come before any
            I/O.
        new_decoder: Builds the API's decoder for ``(model, output message)``.

    Yields:
        ``start`` once the first bytes of the response are in, then block events, then ``done``. An
        ``application/json`` answer (the server ignored ``alt=sse``: one
        ``GenerateContentResponse`` or an array of them) is read whole and fed to the same
        API's decoder, as a complete reply (no finish reason means ``stop``).

    Raises:
        ProviderError: HTTP, connection and in-stream errors, error-type finish reasons,
            blocked prompts and cut-off streams (the stream wrapper turns them into the terminal
            ``error`` event, keeping partial content).
        ConfigurationError: Missing key/project, bad options or tool schemas.
    """
    from ._client import prepare
    from ._transport import send

    # The first import of the SDK (about 0.6 s) runs in a worker thread, not on the event loop.
    await import_vendor("google.genai")
    await prepare()
    lease, base_url, url = connect()
    async with lease as client:
        payload = build_request(model, context, options, signature_origin(model, base_url))
        payload = await apply_payload_hooks(payload, model, options)
        response = await send(client, url, payload, request_headers(model, options))
        output = new_assistant_message(model, base_url=base_url)
        normalizer = new_decoder(model, output)
        errors, timeouts = transport_errors()
        body = ResponseBody(
            response.aiter_bytes(), transport_errors=errors, timeout_errors=timeouts
        )
        complete = False
        try:
            # The reply has begun once its first bytes are in: a connection dropped before
            # them fails here, before start, and is retried.
            await body.start()
            yield StartEvent(partial=output)
            streamed = "application/json" not in response.content_type
            if not streamed:
                # The server ignored alt=sse: one JSON document, a GenerateContentResponse (the
                # generateContent shape) or an array of them (streamGenerateContent without SSE).
                for chunk in _json_chunks(b"".join([part async for part in body])):
                    for item in normalizer.feed(chunk):
                        yield item
            else:
                number = 0
                async for event in iter_sse(body):
                    number += 1
                    if not event.data.strip():
                        continue  # an empty ``data:`` field (keep-alive) carries no event
                    try:
                        chunk = json.loads(event.data)
                    except json.JSONDecodeError as exc:
                        raise malformed_event_error(
                            event.data, event=event.event, number=number, error=exc
                        ) from None
                    if not isinstance(chunk, dict):
                        raise malformed_event_error(
                            event.data,
                            event=event.event,
                            number=number,
                            error=ValueError("not a JSON object"),
                        )
                    for item in normalizer.feed(chunk):  # pyright: ignore[reportUnknownArgumentType]
                        yield item
                    if normalizer.finish_reason is not None:
                        # The chunk with the finish reason ends the reply (its usage included:
                        # usageMetadata is cumulative and comes with it); nothing after it is
                        # read, so content sent later is not merged into this reply.
                        break
            for item in normalizer.finish(streamed=streamed):
                if item.type == "done":
                    complete = True  # the consumer may stop at done: the reply is complete
                yield item
        finally:
            normalizer.price_usage()  # also on errors, aborts and early exits: usage is kept
            try:
                if complete:  # let the connection go back to the pool
                    await body.drain()
            finally:
                await response.aclose()
