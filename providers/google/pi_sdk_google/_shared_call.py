"""One call, the same for the Gemini API and Vertex AI: build, send, then the kit's read loop.

The API packages (:mod:`.generative_ai`, :mod:`.vertex`) differ only in how they pick the
client and the URL; both hand over to :func:`run_stream` (pi-spec §4.0 steps 2-3), which reads
the reply with :func:`pi_sdk.provider.run_http_stream`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, aclosing
from typing import Any

from pi_sdk.provider import (
    AssistantMessageEvent,
    Context,
    MessageBuilder,
    Model,
    StreamOptions,
    WireDecoder,
    check_provider_options,
    forwards_events,
    import_vendor,
    stream_http_call,
)

from ._client import transport_errors
from ._shared_request import build_request

__all__ = [
    "COMMON_OPTIONS",
    "STREAM_METHOD",
    "request_headers",
    "run_stream",
]

STREAM_METHOD = "streamGenerateContent?alt=sse"
COMMON_OPTIONS = frozenset({"tool_choice", "thinking", "timeout_ms"})
"""``provider_options`` keys both Google APIs read."""


def request_headers(model: Model, options: StreamOptions) -> dict[str, str]:
    """Return ``model.headers`` merged with ``options.headers`` (the call's win)."""
    headers: dict[str, str] = dict(model.headers or {})
    if options.headers:
        headers.update(options.headers)
    return headers


@forwards_events
async def run_stream(
    model: Model,
    context: Context,
    options: StreamOptions,
    connect: Callable[[], tuple[AbstractAsyncContextManager[Any], str, str]],
    new_decoder: Callable[[MessageBuilder], WireDecoder],
    *,
    api: str,
    known: frozenset[str],
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
            (:func:`pi_sdk.provider.signature_origin`). Configuration errors raised here come
            before any
            I/O.
        new_decoder: Builds the API's decoder on the reply's builder.
        api: The wire API (for the message of an unknown ``provider_options`` key).
        known: The ``provider_options`` keys the API reads; another is a
            ``ConfigurationError`` (:func:`pi_sdk.provider.check_provider_options`).

    Yields:
        ``start`` once the first bytes of the response are in, then block events, then ``done``
        (:func:`pi_sdk.provider.run_http_stream`). An ``application/json`` answer (the server
        ignored ``alt=sse``: one ``GenerateContentResponse`` or an array of them) is read whole,
        as a complete reply (no finish reason means ``stop``).

    Raises:
        ProviderError: HTTP, connection and in-stream errors, error-type finish reasons,
            blocked prompts and cut-off streams (the stream wrapper turns them into the terminal
            ``error`` event, keeping partial content).
        ConfigurationError: Missing key/project, bad options or tool schemas.
    """
    from ._client import prepare
    from ._transport import send as send_request

    # The first import of the SDK (about 0.6 s) runs in a worker thread, not on the event loop.
    await import_vendor("google.genai")
    await prepare()
    check_provider_options(options, known, api)
    lease, base_url, url = connect()
    async with lease as client:
        headers = request_headers(model, options)

        async def send(payload: dict[str, Any]) -> Any:
            return await send_request(client, url, payload, headers)

        events = stream_http_call(
            model,
            options,
            base_url=base_url,
            build_payload=lambda origin: build_request(model, context, options, origin),
            send=send,
            decoder=new_decoder,
            errors=transport_errors(),
        )
        async with aclosing(events):
            async for event in events:
                yield event
