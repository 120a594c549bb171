"""The ``mistral-conversations`` wire API: sent through the ``mistralai`` SDK, raw SSE body read.

The SDK provides the client, auth, the request and the HTTP errors
(:mod:`pi_sdk_mistral._client`); the core reads the body (raw server-sent events + the JSON of
each, a fraction of the cost of the SDK's typed per-chunk objects:
:class:`pi_sdk.provider.HttpCall`) and :class:`._decode.Decoder` maps it. The request is
:mod:`._request`'s. Behaviour follows pi-mono ``providers/mistral.ts`` with the differences
listed in ``docs/providers/mistral.md``.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any, cast
from urllib.parse import urlsplit

import pi_sdk
from pi_sdk import provider as kit

from .._client import CHAT_PATH, build_headers, client_base_url, client_lease, open_chat
from ._decode import Decoder, map_finish_reason
from ._request import API, build_request, convert_messages, normalize_tool_call_id

__all__ = [
    "API",
    "build_headers",
    "build_request",
    "call_mistral_conversations",
    "convert_messages",
    "map_finish_reason",
    "normalize_tool_call_id",
    "recognize_request",
]

_MISTRAL_HOST = "mistral.ai"


async def call_mistral_conversations(
    model: pi_sdk.Model, context: pi_sdk.Context, options: pi_sdk.StreamOptions
) -> kit.HttpCall[Any]:
    """The plan of one Mistral chat completions call (the ``mistral-conversations`` call function).

    The core reads the reply (:class:`pi_sdk.provider.HttpCall`): ``start`` once the body's
    first bytes are in, then block events (:class:`._decode.Decoder` gives the mapping), then
    ``done`` or ``error``; failures end the call in its ``error`` event, partial message kept.
    An ``application/json`` answer (``"stream": false``, or a server that ignored ``"stream":
    true``) is read whole and mapped as the events it would have streamed. Signatures are tied
    to the URL actually called: the client's server URL.

    Raises:
        ConfigurationError: no API key and no ``options.client`` (bad ``provider_options`` come
            from the payload builder).
    """
    # The first import of the SDK (about 2 s) runs in a worker thread, not on the event loop.
    await kit.import_vendor("mistralai.client.chat")
    lease: AbstractAsyncContextManager[Any] = nullcontext(options.client)
    if options.client is None:
        api_key = kit.resolve_api_key(model, options)
        if not api_key:
            raise pi_sdk.ConfigurationError(
                f"No API key for provider {model.provider!r}: set MISTRAL_API_KEY, pass "
                "StreamOptions(api_key=...) or options.client"
            )
        lease = await client_lease(model, api_key)
    headers = build_headers(model, options)
    return kit.HttpCall(
        lease=lease,
        base_url=client_base_url,
        build_payload=lambda origin: build_request(model, context, options, origin=origin),
        send=lambda client, payload: open_chat(client, payload, headers),
        decoder=Decoder,
    )


def recognize_request(method: str, uri: str, body: Any) -> pi_sdk.Model | None:
    """Return the model that sent a recorded ``POST <mistral.ai host>/v1/chat/completions``.

    Used by ``pi-sdk replay``: only hosts under ``mistral.ai`` (``api.mistral.ai``,
    ``codestral.mistral.ai``) are recognized (other servers speak OpenAI's chat completions;
    pass ``--api mistral-conversations`` for a proxy); the model id comes from the body,
    ``base_url`` is the URI up to ``/v1/chat/completions`` (query and ``#stream`` fragment
    dropped), and catalog data (prices, limits) is used when the id is a ``mistral`` model.
    """
    parts = urlsplit(uri)
    host = (parts.hostname or "").lower()
    if method.upper() != "POST" or not parts.path.rstrip("/").endswith(CHAT_PATH):
        return None
    if host != _MISTRAL_HOST and not host.endswith("." + _MISTRAL_HOST):
        return None
    model_id: Any = cast("dict[str, Any]", body).get("model") if isinstance(body, dict) else None
    if not isinstance(model_id, str) or not model_id:
        return None
    path = parts.path.rstrip("/")
    base_url = f"{parts.scheme}://{parts.netloc}{path[: -len(CHAT_PATH)]}"
    reasoning = model_id.startswith("magistral")
    return kit.recorded_model("mistral", model_id, api=API, base_url=base_url, reasoning=reasoning)
