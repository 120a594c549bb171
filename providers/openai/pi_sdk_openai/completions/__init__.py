"""The ``openai-completions`` wire API: OpenAI Chat Completions and every compatible server.

One adapter serves OpenAI, Azure, Groq, Cerebras, xAI, OpenRouter, DeepSeek, z.ai, Hugging Face,
and local servers (vLLM, Ollama, LM Studio, llama.cpp); what differs between them is described by
the compatibility flags (:func:`resolve_compat`, pi-spec §1.7). The request body is built by
:func:`build_payload` (``_request.py``), the stream decoded by :class:`Decoder` (``_decode.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from typing import Any

from pi_sdk.provider import (
    AssistantMessageEvent,
    Context,
    Model,
    StreamOptions,
    forwards_events,
)

from .._client import stream_request
from .._shared_ids import normalize_completions_tool_call_id as normalize_tool_call_id
from ._compat import CompletionsCompat, detect_compat, resolve_compat
from ._decode import Decoder
from ._request import API, PATH, build_payload, convert_messages, convert_tools

__all__ = [
    "API",
    "PATH",
    "CompletionsCompat",
    "Decoder",
    "build_payload",
    "convert_messages",
    "convert_tools",
    "detect_compat",
    "normalize_tool_call_id",
    "resolve_compat",
    "stream_openai_completions",
]


def stream_openai_completions(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """Call a Chat Completions endpoint and yield normalized events (``openai-completions``).

    Contract (:data:`pi_sdk.provider.StreamFunction`): ``start`` once the response body begins,
    then block
    events, then ``done`` (or ``error`` for refusals and content filters). Failures raise
    :class:`pi_sdk.provider.ProviderError` (HTTP status and the vendor's message; retryable for
    408, 409,
    429, 5xx and connection errors) and the core turns them into the terminal ``error`` event
    with the partial message kept. ``options.client`` (an ``openai.AsyncOpenAI``) replaces the
    client built from ``model.base_url`` and the API key. Nothing runs until the first
    iteration (bad ``model.compat`` or options end the call as its ``error`` event).
    With ``send_session_affinity_headers`` (``model.compat``), ``options.session_id`` goes as the
    ``session_id``, ``x-client-request-id`` and ``x-session-affinity`` headers (pi-ai 0.73;
    ``options.headers`` still win; none with cache retention ``"none"``).
    """
    return _stream(model, context, options)


def session_affinity_headers(compat: CompletionsCompat, options: StreamOptions) -> dict[str, str]:
    """The session-affinity headers pi-ai 0.73 sends for ``compat`` (empty when off)."""
    session = options.session_id
    if not (session and compat.send_session_affinity_headers):
        return {}
    if options.resolved_cache_retention() == "none":
        return {}
    return dict.fromkeys(("session_id", "x-client-request-id", "x-session-affinity"), session)


@forwards_events
async def _stream(
    model: Model, context: Context, options: StreamOptions
) -> AsyncGenerator[AssistantMessageEvent, None]:
    compat = resolve_compat(model)
    affinity = session_affinity_headers(compat, options)
    sent: StreamOptions = options
    if affinity:
        sent = dataclasses.replace(options, headers={**affinity, **(options.headers or {})})

    def payload(origin: str) -> dict[str, Any]:
        return build_payload(model, context, options, compat=compat, origin=origin)

    events = stream_request(model, sent, path=PATH, build_payload=payload, decoder=Decoder)
    async with aclosing(events) as stream:
        async for event in stream:
            yield event
