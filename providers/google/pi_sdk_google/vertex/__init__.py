"""Vertex AI (api ``google-vertex``, ``*aiplatform.googleapis.com``).

pi-mono ``google-vertex.ts``; pi-spec §4.8. Authentication and the URL are in :mod:`._request`
(rules in its docstring); the body, the decode and the call are shared with the Gemini API
(``pi_sdk_google._shared_*``). Importing this package does not import ``google.genai``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any

from pi_sdk.provider import AssistantMessageEvent, Context, Model, StreamOptions

from .._shared_call import run_stream
from ._decode import Decoder
from ._request import API, OPTIONS, recognize_vertex, resolve_target

__all__ = ["API", "recognize_vertex", "stream_google_vertex"]


def stream_google_vertex(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """Stream a Vertex AI call (the ``google-vertex`` :class:`pi_sdk.provider.StreamFunction`).

    Args:
        model: A ``google-vertex`` model (``pi_sdk.get_model("google-vertex", ...)``).
        context: System prompt, messages and tools.
        options: Authentication as in :mod:`pi_sdk_google.vertex._request`;
            ``provider_options`` also takes ``tool_choice``, ``thinking``, ``timeout_ms`` (as
            the Gemini API) and ``api_version``.

    Returns:
        An async generator of events; failures end it with the terminal ``error`` event.
    """

    def connect() -> tuple[AbstractAsyncContextManager[Any], str, str]:
        target = resolve_target(model, options)
        lease: AbstractAsyncContextManager[Any] = nullcontext(options.client)
        if options.client is None:
            from .._client import get_client

            provider = options.provider_options
            lease = get_client(
                vertex=True,
                api_key=target.api_key,
                project=target.project,
                location=target.location,
                credentials=provider.get("credentials"),
                timeout_ms=provider.get("timeout_ms"),
            )
        return lease, target.base_url, target.url

    return run_stream(model, context, options, connect, Decoder, api=API, known=OPTIONS)
