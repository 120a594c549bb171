"""The Gemini API (api ``google-generative-ai``, ``generativelanguage.googleapis.com``).

pi-mono ``google.ts``; pi-spec §4.7-4.8. Its URL and key are in :mod:`._request`; the body,
the decode and the call are shared with Vertex AI (``pi_sdk_google._shared_*``). Importing this
package does not import ``google.genai``.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any

from pi_sdk import Context, Model, StreamOptions
from pi_sdk.provider import HttpCall

from .._shared_call import COMMON_OPTIONS, plan_call
from ._decode import Decoder
from ._request import API, base_url, recognize_generative_ai, request_url, require_api_key

__all__ = ["API", "call_google_generative_ai", "recognize_generative_ai"]


async def call_google_generative_ai(
    model: Model, context: Context, options: StreamOptions
) -> HttpCall[Any]:
    """The plan of one Gemini API call (the ``google-generative-ai`` call function).

    Args:
        model: A ``google-generative-ai`` model (``pi_sdk.get_model("google", ...)``).
        context: System prompt, messages and tools.
        options: ``api_key`` (else ``GEMINI_API_KEY`` through the ``get_api_key`` hook),
            ``client`` (a ``google.genai.Client`` to use instead of a cached pinned one; its own
            retry settings then apply), and ``provider_options``: ``tool_choice``
            (``"auto"``/``"none"``/``"any"``), ``thinking`` (``{"enabled", "budget_tokens",
            "level"}``), ``timeout_ms`` (per-read HTTP timeout, milliseconds); other keys are a
            ``ConfigurationError``.

    Returns:
        The call's plan (:func:`.._shared_call.plan_call`): HTTP errors, blocked prompts,
        error-type finish reasons and cut-off streams end the call with its ``error`` event.

    Raises:
        ConfigurationError: no key, an unknown ``provider_options`` key.
    """

    def connect() -> tuple[AbstractAsyncContextManager[Any], str, str]:
        client = options.client
        lease: AbstractAsyncContextManager[Any] = nullcontext(client)
        if client is None:
            from .._client import get_client

            lease = get_client(
                vertex=False,
                api_key=require_api_key(model, options),
                timeout_ms=options.provider_options.get("timeout_ms"),
            )
        return lease, base_url(model, client), request_url(model, client)

    known = COMMON_OPTIONS
    return await plan_call(model, context, options, connect, Decoder, api=API, known=known)
