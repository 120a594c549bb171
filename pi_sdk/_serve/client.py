"""stream_proxy: call a model through a proxy server that holds the keys (pi-agent-core).

pi-agent-core ``streamProxy`` (0.73.1 and 1.6) POSTs ``{"model", "context", "options"}`` to
``<proxy_url>/api/stream`` with ``Authorization: Bearer <token>`` and reads the reply's
server-sent events in the proxy event shape (:mod:`.wire`), rebuilding the partial
message on this side. This is the same client, on the provider kit: the call is the plan of an
HTTP call (:class:`~pi_sdk.provider.HttpCall`) that the core's read loop runs, in an ordinary
:class:`~pi_sdk.AssistantMessageEventStream` (timeouts, retries of a refused or lost
connection before any content, abort), so it serves as an Agent's ``stream_fn``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pi_sdk._serve.event_post import bearer_headers, event_post_call, json_object
from pi_sdk._stream.contract import HttpCall
from pi_sdk._stream.event_stream import AssistantMessageEventStream
from pi_sdk._stream.provider_errors import body_excerpt
from pi_sdk._stream.read_loop import ReadLoop
from pi_sdk.options import StreamOptions
from pi_sdk.types import Context, Model

__all__ = ["proxy_request_body", "stream_proxy"]

STREAM_PATH = "/api/stream"
"""Where a proxy server takes calls (pi-agent-core ``streamProxy``)."""

_CONNECTION_LIMITS = ("max_retries", "max_retry_delay_ms", "timeout_ms", "idle_timeout_ms")
"""The options that apply to the connection to the proxy (and are not sent)."""

_SERIALIZED_OPTIONS = {
    "temperature": "temperature",
    "max_tokens": "maxTokens",
    "reasoning": "reasoning",
    "cache_retention": "cacheRetention",
    "session_id": "sessionId",
    "headers": "headers",
    "metadata": "metadata",
    "thinking_budgets": "thinkingBudgets",
    "max_retry_delay_ms": "maxRetryDelayMs",
}
"""The options a proxy request carries (pi ``ProxySerializableStreamOptions``; pi's
``transport`` has no counterpart here). Keys, callbacks and the signal stay on this side."""


def proxy_request_body(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    """Return the JSON body ``stream_proxy`` POSTs: ``{"model", "context", "options"}``.

    ``model`` and ``context`` in their wire JSON (pi's camelCase); ``options`` holds only the
    serializable ones that are set (``temperature``, ``maxTokens``, ``reasoning``,
    ``cacheRetention``, ``sessionId``, ``headers``, ``metadata``, ``thinkingBudgets``,
    ``maxRetryDelayMs``), as pi's ``buildProxyRequestOptions`` (whose ``undefined`` values
    ``JSON.stringify`` drops).
    """
    wire_options: dict[str, Any] = {}
    for name, key in _SERIALIZED_OPTIONS.items():
        value = getattr(options, name)
        if value is not None:
            wire_options[key] = value
    return {
        "model": model.model_dump(mode="json", by_alias=True, exclude_none=True),
        "context": context.model_dump(mode="json", by_alias=True, exclude_none=True),
        "options": wire_options,
    }


def stream_proxy(
    model: Model,
    context: Context,
    options: StreamOptions | None = None,
    *,
    proxy_url: str,
    auth_token: str,
    client: Any = None,
) -> AssistantMessageEventStream:
    """Stream one call through a proxy server (pi-agent-core ``streamProxy``).

    The server (``pi-sdk serve``, or a pi-mono one) holds the API keys and calls the vendor;
    this side sends the model, the context and the serializable options, and rebuilds the
    message from the proxy events. As an Agent's stream function::

        agent = Agent(stream_fn=functools.partial(
            stream_proxy, proxy_url="https://genai.example.com", auth_token=token))

    Args:
        model: The model; the server decides whether it serves it.
        context: The conversation.
        options: ``signal`` aborts the call (the server then aborts its vendor call);
            ``timeout_ms``, ``idle_timeout_ms`` and ``max_retries`` apply to the proxy
            connection; ``api_key`` and the callbacks are not sent.
        proxy_url: The server's URL, e.g. ``"https://genai.example.com"``; calls go to
            ``<proxy_url>/api/stream``.
        auth_token: Sent as ``Authorization: Bearer <auth_token>``; redacted from errors.
        client: An ``httpx2.AsyncClient`` to send with (its pool is shared); default: one
            client per event loop, kept between calls.

    Returns:
        The call's event stream, never raising for a failed call: an HTTP error from the
        proxy ends it with an ``error`` event whose ``error_message`` is pi's
        ``"Proxy error: <status> <reason>"`` or ``"Proxy error: <the body's error>"``
        (401, 403 and 413 are not retried; 429 and 5xx are, before any content).
    """
    options = options or StreamOptions()
    url = proxy_url.rstrip("/") + STREAM_PATH
    payload = proxy_request_body(model, context, options)

    async def plan(model: Model, context: Context, options: StreamOptions) -> HttpCall[Any]:
        return await event_post_call(
            url,
            lambda origin: payload,
            headers=bearer_headers(auth_token),
            refusal=_proxy_refusal,
            source="proxy",
            client=client,
        )

    # The server calls the vendor, and with it the options' hooks; this side runs none (its
    # stream has no payload hooks, and ``on_response`` is not the proxy's).
    local = dataclasses.replace(options, on_response=None)
    limits: dict[str, Any] = {name: getattr(options, name) for name in _CONNECTION_LIMITS}
    secrets = (auth_token,)
    return AssistantMessageEventStream(
        ReadLoop(plan, model, context, local),
        model=model,
        signal=options.signal,
        secrets=lambda: secrets,
        context=context,
        on_retry=options.on_retry,
        **limits,
    )


def _proxy_refusal(status: int, reason: str, raw: bytes) -> str:
    """The refusal in pi's words: ``Proxy error: <the body's error>``, else the status."""
    data = json_object(raw)
    if data is not None and data.get("error"):
        return f"Proxy error: {body_excerpt(str(data['error']))}"
    return f"Proxy error: {status} {reason}".rstrip()
