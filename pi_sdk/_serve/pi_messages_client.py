"""The ``pi-messages`` wire API (pi-ai 1.6): call any pi gateway that streams pi's own events.

``POST <base URL>/messages`` with ``Authorization: Bearer <key>`` and the JSON body
``{"model": "<model id>", "context": <the context>, "options": {...}}``; the answer is a
``text/event-stream`` of serialized pi events (:mod:`pi_sdk._serve.wire`: pi-ai 1.6
``PiMessagesEvent``) ending in ``done`` or ``error``, which carry the usage (priced by the
gateway), the response id and model, the vendor's thinking level and a gateway's rewrite
summary. This is the protocol of pi's Radius gateway, of any backend that speaks it, and of
``pi-sdk serve`` (``POST /messages``): a model whose ``api`` is ``"pi-messages"`` is called
this way, whatever its ``provider``.

The implementation lives in the core, next to the proxy client it shares its decoder and HTTP
plan with (:mod:`pi_sdk._serve.event_post`): it needs no vendor SDK, only the ``proxy`` extra
(httpx2). pi-sdk-core publishes it through its own entry point, :data:`PROVIDERS`, so every
installation has it. Options sent (pi-ai 1.6 ``api/pi-messages.js``; ``None`` ones left out):
``temperature``, ``maxTokens``, ``reasoning``, ``cacheRetention`` (or ``"long"`` from
``PI_CACHE_RETENTION=long``), ``sessionId``, ``toolChoice``. The key is the call's
(``StreamOptions.api_key``, else the key of ``model.provider``); ``model.headers`` then
``StreamOptions.headers`` are sent too.
"""

from __future__ import annotations

import os
from typing import Any

from pi_sdk._stream.contract import ApiProvider, HttpCall
from pi_sdk._stream.provider import ModelSource, Provider, ProviderAuth
from pi_sdk._wire.transcript import normalize_context
from pi_sdk.options import StreamOptions
from pi_sdk.types import Context, Model

__all__ = [
    "API",
    "PI_MESSAGES",
    "PROVIDERS",
    "call_pi_messages",
    "pi_messages_body",
    "pi_messages_provider",
    "pi_messages_refusal",
]

API = "pi-messages"
"""The wire-API id (pi-ai 1.6 ``Api``)."""

PATH = "/messages"
"""Where a pi-messages backend takes calls, under the model's base URL."""


def pi_messages_body(model: Model, context: Context, options: StreamOptions) -> dict[str, Any]:
    """The JSON body of a call: ``{"model": <id>, "context", "options"}`` (pi-ai 1.6).

    The context goes in pi 1.6's transcript form (``normalize_context``: the system prompt and
    tools as a leading ``system`` message), as pi-ai sends it.
    ``toolChoice`` ``{"name": n}`` is sent in pi's ``{"type": "function", "function":
    {"name": n}}`` form.

    Raises:
        ConfigurationError: ``options.tool_choice`` is not one of its documented values.
    """
    wire: dict[str, Any] = {
        "temperature": options.temperature,
        "maxTokens": options.max_tokens,
        "reasoning": options.reasoning,
        "cacheRetention": options.cache_retention
        or ("long" if os.environ.get("PI_CACHE_RETENTION") == "long" else None),
        "sessionId": options.session_id,
    }
    transcript = normalize_context(context)
    choice = options.resolved_tool_choice()
    if choice is not None:
        kind, name = choice
        wire["toolChoice"] = (
            {"type": "function", "function": {"name": name}} if kind == "tool" else kind
        )
    return {
        "model": model.id,
        "context": transcript.model_dump(mode="json", by_alias=True, exclude_none=True),
        "options": {key: value for key, value in wire.items() if value is not None},
    }


def pi_messages_refusal(status: int, reason: str, raw: bytes) -> str:
    """pi-ai 1.6's words for a refused call: ``"<status> <reason>: <message> (<code>)"``.

    ``message`` and ``code`` come from a JSON body ``{"error": {"message", "code"}}``; any
    other body is shown as an excerpt.
    """
    from pi_sdk._serve.event_post import json_object
    from pi_sdk._stream.provider_errors import body_excerpt

    data = json_object(raw)
    error: Any = data.get("error") if data is not None else None
    fields: dict[str, Any] = error if isinstance(error, dict) else {}  # pyright: ignore[reportUnknownVariableType]
    message, code = fields.get("message"), fields.get("code")
    said = message if isinstance(message, str) else body_excerpt(raw)
    suffix = f" ({code})" if isinstance(code, str) and code else ""
    return f"{status} {reason}: {body_excerpt(said)}{suffix}"


async def call_pi_messages(model: Model, context: Context, options: StreamOptions) -> HttpCall[Any]:
    """The plan of one ``pi-messages`` call (the core's read loop runs it).

    Raises:
        ProviderError: no key for the model's provider (not retried), as pi-ai: ``No API key
            provided for provider "<provider>"``.
        ConfigurationError: httpx2 is missing (``pip install 'pi-sdk-core[proxy]'``).
    """
    from pi_sdk._models.calls import resolve_api_key
    from pi_sdk._serve.event_post import bearer_headers, event_post_call
    from pi_sdk._stream.provider_errors import ProviderError

    key = resolve_api_key(model, options)
    if not key:
        raise ProviderError(f'No API key provided for provider "{model.provider}"')
    headers = {**(model.headers or {}), **bearer_headers(key), **(options.headers or {})}
    body = pi_messages_body(model, context, options)
    return await event_post_call(
        model.base_url.rstrip("/") + PATH,
        lambda origin: body,
        headers=headers,
        refusal=pi_messages_refusal,
        source=model.provider,
        client=options.client,
    )


def recognize(method: str, uri: str, body: Any) -> Model | None:
    """For replay: a recorded ``POST <base URL>/messages`` whose body is pi-messages' shape."""
    base_url, _, endpoint = uri.partition("?")[0].rpartition("/")
    if method != "POST" or endpoint != "messages" or not isinstance(body, dict):
        return None
    fields: dict[str, Any] = body  # pyright: ignore[reportUnknownVariableType]
    model_id, context = fields.get("model"), fields.get("context")
    if not isinstance(model_id, str) or not isinstance(context, dict):
        return None
    return Model(id=model_id, api=API, provider=API, base_url=base_url)


PI_MESSAGES = ApiProvider(
    api=API,
    call=call_pi_messages,
    recognize=recognize,
    source_id="pi-sdk-core",
)
"""The ``pi-messages`` implementation; any model whose ``api`` is ``"pi-messages"`` uses it."""


def pi_messages_provider(
    id: str,  # noqa: A002 - pi's name for it
    *,
    base_url: str | None = None,
    auth: ProviderAuth | None = None,
    models: ModelSource = (),
    name: str = "",
) -> Provider:
    """A provider whose models are called through a ``pi-messages`` gateway (pi-ai 1.6).

    Example, a ``pi-sdk serve`` gateway (its token is the key; model ids are
    ``"<provider>/<id>"``)::

        gateway = pi_messages_provider(
            "gateway",
            base_url="http://127.0.0.1:8787",
            auth=ProviderAuth(env=("PI_SDK_PROXY_TOKEN",)),
            models=[Model(id="anthropic/claude-sonnet-4-5", api="pi-messages", provider="gateway")],
        )
        models = pi_sdk.Models([gateway])

    Args:
        id: The provider id its models name.
        base_url: The gateway's URL; calls go to ``<base_url>/messages`` (every model's own
            ``base_url`` is replaced when set).
        auth: Where the key comes from (sent as ``Authorization: Bearer <key>``).
        models: Its catalog (models with ``api="pi-messages"`` and ``provider=id``).
        name: Display name.
    """
    return Provider(
        id=id,
        name=name,
        base_url=base_url,
        auth=auth or ProviderAuth(),
        models=models,
        apis=(PI_MESSAGES,),
    )


PROVIDERS = (Provider(id=API, name="pi-messages (any pi 1.6 gateway)", apis=(PI_MESSAGES,)),)
"""What pi-sdk-core's ``pi-messages`` entry point names: the API, with no catalog of its own (a
gateway's models are the application's: ``Model(api="pi-messages", provider=..., base_url=...)``,
or a ``Provider`` of its own)."""
