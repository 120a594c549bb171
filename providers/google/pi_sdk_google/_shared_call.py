"""One call, the same for the Gemini API and Vertex AI: its plan, for the core's read loop.

The API packages (:mod:`.generative_ai`, :mod:`.vertex`) differ only in how they pick the
client and the URL; both hand over to :func:`plan_call` (pi-spec §4.0 steps 2-3), whose
:class:`pi_sdk.provider.HttpCall` the core runs.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from pi_sdk import Context, Model, StreamOptions
from pi_sdk.provider import (
    HttpCall,
    MessageBuilder,
    WireDecoder,
    check_provider_options,
    import_vendor,
)

from ._client import transport_errors
from ._shared_request import build_request

__all__ = [
    "COMMON_OPTIONS",
    "STREAM_METHOD",
    "plan_call",
    "request_headers",
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


async def plan_call(
    model: Model,
    context: Context,
    options: StreamOptions,
    connect: Callable[[], tuple[AbstractAsyncContextManager[Any], str, str]],
    new_decoder: Callable[[MessageBuilder], WireDecoder],
    *,
    api: str,
    known: frozenset[str],
) -> HttpCall[Any]:
    """The plan of one ``streamGenerateContent`` call.

    Args:
        model: The model called.
        context: What to send.
        options: Per-call options.
        connect: Returns ``(lease, base URL, full request URL)``: ``lease`` is a context
            manager giving the ``google.genai.Client`` for the call (a cached one from
            :func:`._client.get_client`, or ``nullcontext(options.client)``); the base URL is
            the part before the model resource and binds the signatures of the reply
            (:func:`pi_sdk.provider.signature_origin`). Configuration errors raised here come
            before any I/O.
        new_decoder: Builds the API's decoder on the reply's builder.
        api: The wire API (for the message of an unknown ``provider_options`` key).
        known: The ``provider_options`` keys the API reads; another is a
            ``ConfigurationError`` (:func:`pi_sdk.provider.check_provider_options`).

    Returns:
        The plan: the core yields ``start`` once the first bytes of the response are in, then
        block events, then ``done``. An ``application/json`` answer (the server ignored
        ``alt=sse``: one ``GenerateContentResponse`` or an array of them) is read whole, as a
        complete reply (no finish reason means ``stop``). HTTP, connection and in-stream
        errors, error-type finish reasons, blocked prompts and cut-off streams end the call in
        its ``error`` event, partial content kept.

    Raises:
        ConfigurationError: Missing key/project, bad options or tool schemas.
    """
    from ._client import prepare
    from ._transport import send as send_request

    # The first import of the SDK (about 0.6 s) runs in a worker thread, not on the event loop.
    await import_vendor("google.genai")
    await prepare()
    check_provider_options(options, known, api)
    lease, base_url, url = connect()
    headers = request_headers(model, options)
    return HttpCall(
        lease=lease,
        base_url=base_url,
        build_payload=lambda origin: build_request(model, context, options, origin),
        send=lambda client, payload: send_request(client, url, payload, headers),
        decoder=new_decoder,
        errors=transport_errors(),
    )
