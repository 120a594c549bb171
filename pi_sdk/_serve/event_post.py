"""The HTTP side of pi's serialized-event clients: one JSON POST whose reply is an event stream.

``stream_proxy`` (pi-agent-core's proxy) and the ``pi-messages`` API (pi-ai 1.6) both POST a
JSON body with a bearer token and read server-sent events of serialized pi events
(:class:`~pi_sdk._serve.decoder.EventDecoder`); they differ in the URL, the body and the words
of a refusal. :func:`event_post_call` is the plan of such a call for the core's read loop: an
httpx2 client per event loop (or the caller's), connection failures retryable before any
content, an HTTP error read whole and turned into a :class:`~pi_sdk.provider.ProviderError`
by the protocol's own ``refusal`` text (429 and 5xx retryable, ``Retry-After`` honoured).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any

from pi_sdk._kit.clients import ClientCache, shared_in_thread
from pi_sdk._serve.decoder import EventDecoder
from pi_sdk._stream.builder import MessageBuilder
from pi_sdk._stream.contract import HttpCall
from pi_sdk._stream.httpx_errors import connection_error_from_httpx
from pi_sdk._stream.provider_errors import ProviderError
from pi_sdk.errors import ConfigurationError

__all__ = ["Refusal", "bearer_headers", "event_post_call", "json_object"]

Refusal = Callable[[int, str, bytes], str]
"""``refusal(status, reason_phrase, body)``: the error text of a refused call."""


async def _close(client: Any) -> None:
    await client.aclose()


_CLIENTS: ClientCache[Any] = ClientCache(_close)


def _build_client(verify: Any) -> Any:
    import httpx2

    # No request timeout here: the stream's own timeouts apply. No pool cap: one streamed call
    # holds its connection for the whole reply.
    limits = httpx2.Limits(max_connections=None, max_keepalive_connections=32)
    return httpx2.AsyncClient(verify=verify, timeout=None, limits=limits)


async def event_post_call(
    url: str,
    build_payload: Callable[[str], dict[str, Any]],
    *,
    headers: dict[str, str],
    refusal: Refusal,
    source: str,
    client: Any = None,
    base_url: str | None = None,
) -> HttpCall[Any]:
    """The plan of one POST to ``url`` answered by serialized pi events.

    Args:
        url: Where the POST goes.
        build_payload: ``build_payload(origin)``, the JSON body.
        headers: The request's headers (:func:`bearer_headers` and any of the caller's).
        refusal: The text of an HTTP error (:data:`Refusal`).
        source: Names the server in the decoder's errors (``"proxy"``, a provider id).
        client: An ``httpx2.AsyncClient`` to send with; default one per event loop, kept.
        base_url: The URL that binds the reply's signatures (default ``model.base_url``).

    Raises:
        ConfigurationError: httpx2 is not installed (the ``proxy`` extra).
    """
    try:
        import httpx2
    except ImportError:
        raise ConfigurationError(
            f"the {source} client needs httpx2: pip install 'pi-sdk-core[proxy]'"
        ) from None

    lease: AbstractAsyncContextManager[Any] = nullcontext(client)
    if client is None:
        verify = await shared_in_thread("httpx2.ssl_context", httpx2.create_ssl_context)
        lease = _CLIENTS.lease(("event_post",), lambda: _build_client(verify))

    async def send(http: Any, payload: dict[str, Any]) -> Any:
        body = json.dumps(payload).encode()
        request = http.build_request("POST", url, content=body, headers=headers)
        try:
            response = await http.send(request, stream=True)
        except httpx2.TransportError as exc:  # a connect timeout is a failed connect too
            raise connection_error_from_httpx(exc) from None
        if response.status_code >= 400:
            raise await _http_error(response, refusal)
        return response

    def decoder(builder: MessageBuilder) -> EventDecoder:
        return EventDecoder(builder, source=source)

    return HttpCall(
        lease=lease, base_url=base_url, build_payload=build_payload, send=send, decoder=decoder
    )


async def _http_error(response: Any, refusal: Refusal) -> ProviderError:
    """The error of a refused call, in the protocol's words."""
    import httpx2

    try:
        raw = await response.aread()  # an error body: a small JSON object or a short page
    except httpx2.TransportError:
        raw = b""  # the status is the error; a body cut short only shortens its message
    finally:
        await response.aclose()
    message = refusal(response.status_code, response.reason_phrase or "", raw)
    return ProviderError.from_http(response.status_code, message, response.headers)


def bearer_headers(token: str) -> dict[str, str]:
    """The headers of a JSON POST with a bearer token whose answer is an event stream."""
    return {
        "Authorization": f"Bearer {token}",
        "Content-Type": "application/json",
        "Accept": "text/event-stream",
    }


def json_object(raw: bytes) -> dict[str, Any] | None:
    """``raw`` parsed as a JSON object, else ``None``."""
    try:
        data: Any = json.loads(raw)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None  # pyright: ignore[reportUnknownVariableType]
