"""Token counting on the Responses API: ``POST /v1/responses/input_tokens``.

OpenAI's API reference ("Get input token counts"): the body takes the Responses request fields
that shape the input (``model``, ``input``, ``instructions``, ``tools``, ``tool_choice``,
``reasoning``, ``text``, ``truncation``, ``parallel_tool_calls``, ``previous_response_id``,
``conversation``) and answers ``{"object": "response.input_tokens", "input_tokens": N}``. The
body is the one a call would send (:func:`._request.build_payload`), so the count is that
call's.
"""

from __future__ import annotations

import json
from typing import Any

from pi_sdk import Context, Model, StreamOptions
from pi_sdk import provider as kit

from .._client import open_response, request_headers

__all__ = ["COUNT_FIELDS", "COUNT_PATH", "count_openai_responses_tokens"]

COUNT_PATH = "/responses/input_tokens"
"""Relative to the client's base URL (``https://api.openai.com/v1``)."""
COUNT_FIELDS = (
    "model",
    "input",
    "instructions",
    "tools",
    "tool_choice",
    "reasoning",
    "text",
    "truncation",
    "parallel_tool_calls",
    "previous_response_id",
    "conversation",
)
"""The Responses request fields the counting endpoint takes."""


async def count_openai_responses_tokens(
    model: Model, context: Context, options: StreamOptions
) -> int:
    """The input tokens OpenAI counts for the request of a Responses call with ``context``.

    Raises:
        ConfigurationError: no API key (as a call).
        ProviderError: an HTTP or connection failure.
        KeyError, TypeError: an answer without ``input_tokens``.
    """
    from . import call_openai_responses  # the call's own plan: client, key, payload

    plan = await call_openai_responses(model, context, options)
    headers = request_headers(model, options)
    async with plan.lease as client:
        base_url = plan.base_url(client) if callable(plan.base_url) else plan.base_url
        payload = plan.build_payload(kit.signature_origin(model, base_url or None))
        body = {key: payload[key] for key in COUNT_FIELDS if key in payload}
        response = await open_response(client, COUNT_PATH, body, headers)
        try:
            answer: Any = json.loads(await response.aread())
        finally:
            await response.aclose()
    return answer["input_tokens"]  # the core checks it is a count
