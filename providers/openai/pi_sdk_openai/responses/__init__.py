"""The ``openai-responses`` wire API: OpenAI's Responses API (and OpenRouter's copy of it).

The request body is built by :func:`build_payload` (``_request.py``; its ``input`` items by
:func:`convert_input` in ``_input.py``, tools and ``text.format`` in ``_tools.py``), the stream
decoded by :class:`Decoder` (``_decode.py``); the signatures below are encoded and read in
``_signatures.py``.

Conventions for what pi-sdk stores (pi-mono's, so sessions interoperate):

* a text block from a ``message`` output item has ``text_signature`` = TextSignatureV1, the
  JSON ``{"v":1,"id":"<message item id>","phase":...}`` (``phase`` only when the API sent one);
* a thinking block from a ``reasoning`` item has ``thinking_signature`` = the whole item as JSON,
  but only when the item carries ``encrypted_content``: with ``store: false`` (what pi-sdk sends)
  an item without it cannot be replayed, so it is not a signature;
* a tool call id is ``"<call_id>|<function_call item id>"``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pi_sdk import Context, Model, StreamOptions
from pi_sdk.provider import HttpCall, MessageBuilder

from .._client import plan_request
from .._shared_ids import normalize_responses_tool_call_id as normalize_tool_call_id
from ._compat import ResponsesCompat, resolve_responses_compat
from ._decode import Decoder
from ._input import convert_input
from ._request import API, PATH, build_payload, configuration_update_effort, string_option
from ._signatures import parse_text_signature, text_signature
from ._tools import convert_tools, request_grammar

__all__ = [
    "API",
    "PATH",
    "Decoder",
    "build_payload",
    "call_openai_responses",
    "convert_input",
    "convert_tools",
    "normalize_tool_call_id",
    "parse_text_signature",
    "request_grammar",
    "session_affinity_headers",
    "text_signature",
]


async def call_openai_responses(
    model: Model, context: Context, options: StreamOptions
) -> HttpCall[Any]:
    """The plan of one Responses call (the ``openai-responses`` call function).

    The core reads the reply (:class:`pi_sdk.provider.HttpCall`): ``start`` once the response
    body begins, then block events, then ``done`` (or ``error`` for refusals). HTTP errors,
    ``response.failed``, ``error`` events and cut streams raise
    :class:`pi_sdk.provider.ProviderError`, which ends the call in its ``error`` event with the
    partial message kept. ``options.client`` (an ``openai.AsyncOpenAI``) replaces the client
    built from ``model.base_url`` and the API key.

    With ``options.session_id``, session-affinity headers go too (pi-ai 1.6: ``session-id`` and
    ``x-client-request-id``, or OpenRouter's ``x-session-id``; none with cache retention
    ``"none"``; ``options.headers`` win).

    Raises:
        ConfigurationError: no key, a bad ``options.client``, a mistyped compat flag.
    """
    affinity = session_affinity_headers(resolve_responses_compat(model), options)
    sent = options
    if affinity:
        sent = dataclasses.replace(options, headers={**affinity, **(options.headers or {})})
    return await plan_request(
        model,
        sent,
        path=PATH,
        build_payload=lambda origin: build_payload(model, context, options, origin=origin),
        decoder=lambda builder: Decoder(
            _stamped(builder, configuration_update_effort(model, options)),
            service_tier=string_option(options, "service_tier"),
            grammar=request_grammar(model, context),
        ),
    )


def _stamped(builder: MessageBuilder, level: str | None) -> MessageBuilder:
    """The reply records its ``configuration_update`` effort (``providerThinkingLevel``)."""
    if level is not None:
        builder.message.provider_thinking_level = level
    return builder


def session_affinity_headers(compat: ResponsesCompat, options: StreamOptions) -> dict[str, str]:
    """The session-affinity headers pi-ai 1.6's Responses module sends.

    ``openrouter``: ``x-session-id``; ``openai``: ``session-id`` and ``x-client-request-id``;
    ``openai-nosession``: ``x-client-request-id``. Empty without a session and with cache
    retention ``"none"`` (pi-ai 1.6 gives its client no session id then).
    """
    session = options.session_id
    if not session or options.resolved_cache_retention() == "none":
        return {}
    if compat.session_affinity_format == "openrouter":
        return {"x-session-id": session}
    if compat.session_affinity_format == "openai":
        return {"session-id": session, "x-client-request-id": session}
    return {"x-client-request-id": session}
