"""The ``openai-completions`` wire API: OpenAI Chat Completions and every compatible server.

One adapter serves OpenAI, Azure, Groq, Cerebras, xAI, OpenRouter, DeepSeek, z.ai, Hugging Face,
and local servers (vLLM, Ollama, LM Studio, llama.cpp); what differs between them is described by
the compatibility flags (:func:`resolve_compat`, pi-spec §1.7). The request body is built by
:func:`build_payload` (``_request.py``), the stream decoded by :class:`Decoder` (``_decode.py``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pi_sdk import Context, Model, StreamOptions
from pi_sdk.provider import HttpCall

from .._client import plan_request
from .._shared_ids import normalize_completions_tool_call_id as normalize_tool_call_id
from ._compat import CompletionsCompat, detect_compat, resolve_compat
from ._decode import Decoder
from ._request import (
    API,
    PATH,
    build_payload,
    convert_messages,
    convert_tools,
    request_grammar,
)

__all__ = [
    "API",
    "PATH",
    "CompletionsCompat",
    "Decoder",
    "build_payload",
    "call_openai_completions",
    "convert_messages",
    "convert_tools",
    "detect_compat",
    "normalize_tool_call_id",
    "request_grammar",
    "resolve_compat",
    "session_affinity_headers",
]


async def call_openai_completions(
    model: Model, context: Context, options: StreamOptions
) -> HttpCall[Any]:
    """The plan of one Chat Completions call (the ``openai-completions`` call function).

    The core reads the reply (:class:`pi_sdk.provider.HttpCall`): ``start`` once the response
    body begins, then block events, then ``done`` (or ``error`` for refusals and content
    filters). HTTP errors raise :class:`pi_sdk.provider.ProviderError` (the status and the
    vendor's message; retryable for 408, 409, 429, 5xx and connection errors), which ends the
    call in its ``error`` event with the partial message kept. ``options.client`` (an
    ``openai.AsyncOpenAI``) replaces the client built from ``model.base_url`` and the API key.
    With ``send_session_affinity_headers`` (``model.compat``; detected for OpenRouter),
    ``options.session_id`` goes in the headers of ``session_affinity_format`` (pi-ai 1.6;
    ``options.headers`` still win; none with cache retention ``"none"``).

    Raises:
        ConfigurationError: bad ``model.compat``, no key, a bad ``options.client``.
    """
    compat = resolve_compat(model)
    affinity = session_affinity_headers(compat, options)
    sent: StreamOptions = options
    if affinity:
        sent = dataclasses.replace(options, headers={**affinity, **(options.headers or {})})

    def payload(origin: str) -> dict[str, Any]:
        return build_payload(model, context, options, compat=compat, origin=origin)

    return await plan_request(
        model,
        sent,
        path=PATH,
        build_payload=payload,
        decoder=lambda builder: Decoder(builder, grammar=request_grammar(model, context, compat)),
    )


def session_affinity_headers(compat: CompletionsCompat, options: StreamOptions) -> dict[str, str]:
    """The session-affinity headers pi-ai 1.6 sends for ``compat`` (empty when off).

    ``openrouter``: ``x-session-id``; ``openai``: ``session_id``, ``x-client-request-id`` and
    ``x-session-affinity``; ``openai-nosession``: the last two.
    """
    session = options.session_id
    if not (session and compat.send_session_affinity_headers):
        return {}
    if options.resolved_cache_retention() == "none":
        return {}
    if compat.session_affinity_format == "openrouter":
        return {"x-session-id": session}
    names = ["x-client-request-id", "x-session-affinity"]
    if compat.session_affinity_format == "openai":
        names.insert(0, "session_id")
    return dict.fromkeys(names, session)
