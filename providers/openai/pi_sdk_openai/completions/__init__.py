"""The ``openai-completions`` wire API: OpenAI Chat Completions and every compatible server.

One adapter serves OpenAI, Azure, Groq, Cerebras, xAI, OpenRouter, DeepSeek, z.ai, Hugging Face,
and local servers (vLLM, Ollama, LM Studio, llama.cpp); what differs between them is described by
the compatibility flags (:func:`resolve_compat`, pi-spec §1.7). The request body is built by
:func:`build_payload` (``_request.py``), the stream decoded by :class:`Decoder` (``_decode.py``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from pi_sdk.provider import AssistantMessageEvent, Context, Model, StreamOptions

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

    Contract (:data:`pi_sdk.StreamFunction`): ``start`` once the response body begins, then block
    events, then ``done`` (or ``error`` for refusals and content filters). Failures raise
    :class:`pi_sdk.ProviderError` (HTTP status and the vendor's message; retryable for 408, 409,
    429, 5xx and connection errors) and the core turns them into the terminal ``error`` event
    with the partial message kept. ``options.client`` (an ``openai.AsyncOpenAI``) replaces the
    client built from ``model.base_url`` and the API key. Nothing runs until the first
    iteration (bad ``model.compat`` or options end the call as its ``error`` event).
    """
    return stream_request(
        model,
        options,
        path=PATH,
        build_payload=lambda origin: build_payload(model, context, options, origin=origin),
        decoder=Decoder,
    )
