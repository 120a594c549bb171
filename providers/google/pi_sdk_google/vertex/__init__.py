"""Vertex AI (api ``google-vertex``, ``*aiplatform.googleapis.com``).

pi-mono ``google-vertex.ts``; pi-spec §4.8. Authentication and the URL are in :mod:`._request`
(rules in its docstring); the body, the decode and the call are shared with the Gemini API
(``pi_sdk_google._shared_*``). Importing this package does not import ``google.genai``.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any

from pi_sdk import Context, Model, StreamOptions
from pi_sdk.provider import HttpCall

from .._shared_call import plan_call
from ._decode import Decoder
from ._request import API, OPTIONS, recognize_vertex, resolve_target

__all__ = ["API", "call_google_vertex", "recognize_vertex"]


async def call_google_vertex(
    model: Model, context: Context, options: StreamOptions
) -> HttpCall[Any]:
    """The plan of one Vertex AI call (the ``google-vertex`` call function).

    Args:
        model: A ``google-vertex`` model (``pi_sdk.get_model("google-vertex", ...)``).
        context: System prompt, messages and tools.
        options: Authentication as in :mod:`pi_sdk_google.vertex._request`;
            ``provider_options`` also takes ``tool_choice``, ``thinking``, ``timeout_ms`` (as
            the Gemini API) and ``api_version``.

    Returns:
        The call's plan (:func:`.._shared_call.plan_call`); failures end the call with its
        ``error`` event.

    Raises:
        ConfigurationError: no project or credentials, an unknown ``provider_options`` key.
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

    return await plan_call(model, context, options, connect, Decoder, api=API, known=OPTIONS)
