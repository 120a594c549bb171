"""stream_http_call: the body every HTTP stream function shares, once its client is leased.

A provider's stream function resolves its client and the URL it calls; then the steps are the
same for every wire API (pi-spec §4.0 steps 2-5): the payload is built for the signature
origin of that URL (:func:`pi_sdk.provider.signature_origin`), the payload hooks run
(:func:`pi_sdk.provider.apply_payload_hooks`), a :class:`~pi_sdk.provider.MessageBuilder`
stamped with the URL is made, and :func:`~pi_sdk.provider.run_http_stream` sends the request
and reads the reply through the API's decoder, its generator closed (and with it the response)
as soon as the caller stops. The Anthropic, Mistral, OpenAI (and so Azure) and Google packages
wrote these steps out four times.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing
from typing import Any, TypeAlias

from pi_sdk._models.calls import apply_payload_hooks
from pi_sdk._stream.activity import forwards_events
from pi_sdk._stream.builder import MessageBuilder
from pi_sdk._stream.http_stream import HttpResponse, WireDecoder, run_http_stream
from pi_sdk._wire.transform import signature_origin
from pi_sdk.events import AssistantMessageEvent
from pi_sdk.options import StreamOptions
from pi_sdk.types import Model

__all__ = ["TransportErrors", "httpx_transport_errors", "stream_http_call"]

TransportErrors: TypeAlias = tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]]
"""``(lost connection, timeout)`` exception types of a transport, as ``run_http_stream`` takes."""


def httpx_transport_errors() -> TransportErrors:
    """httpx2's ``(TransportError,)`` and ``(TimeoutException,)`` (httpx2 imported on call).

    The transport of every vendor SDK pi-sdk's providers send through (``anthropic``,
    ``openai``, ``mistralai``, ``google-genai``).
    """
    import httpx2

    return (httpx2.TransportError,), (httpx2.TimeoutException,)


@forwards_events
async def stream_http_call(
    model: Model,
    options: StreamOptions,
    *,
    base_url: str | None,
    build_payload: Callable[[str], dict[str, Any]],
    send: Callable[[dict[str, Any]], Awaitable[HttpResponse]],
    decoder: Callable[[MessageBuilder], WireDecoder],
    errors: TransportErrors | None = None,
) -> AsyncGenerator[AssistantMessageEvent, None]:
    """Build the payload, run its hooks, send it and yield the reply's events (pi-spec §4.0).

    Args:
        model: The model called.
        options: The call's options (payload hooks, ``on_response``).
        base_url: The URL actually called (a caller's client, or the SDK's default when
            ``model.base_url`` is empty); ``None`` or empty means ``model.base_url``. It binds
            the reply's signatures and is the origin given to ``build_payload``.
        build_payload: ``build_payload(origin)``: the vendor payload for
            ``signature_origin(model, base_url)`` (signatures minted elsewhere are not sent).
        send: ``send(payload)``: sends the hooked payload and returns the unread response once
            its headers are in, or raises :class:`~pi_sdk.provider.ProviderError` for HTTP and
            connection errors.
        decoder: ``decoder(builder)``: the wire API's decoder writing into the call's builder.
        errors: The transport's exception types (default :func:`httpx_transport_errors`).

    Yields:
        The events of :func:`~pi_sdk.provider.run_http_stream`: ``start`` once the body's first
        bytes are in, then the decoder's, ending with ``done`` or ``error``.

    Raises:
        ProviderError: HTTP, connection and in-stream errors, a malformed or cut reply.
        ConfigurationError: raised by ``build_payload`` or a payload hook, before any I/O.
    """
    payload = build_payload(signature_origin(model, base_url))
    payload = await apply_payload_hooks(payload, model, options)
    lost, timeouts = errors if errors is not None else httpx_transport_errors()
    builder = MessageBuilder(model, base_url=base_url)
    events = run_http_stream(
        lambda: send(payload),
        decoder(builder),
        builder,
        transport_errors=lost,
        timeout_errors=timeouts,
        on_response=options.on_response,
    )
    async with aclosing(events) as stream:  # closes the response if the consumer stops
        async for event in stream:
            yield event
