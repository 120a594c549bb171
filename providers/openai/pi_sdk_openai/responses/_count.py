"""Token counting on the Responses API: ``POST /v1/responses/input_tokens``.

OpenAI's API reference ("Get input token counts"): the body takes the Responses request fields
that shape the input (``model``, ``input``, ``instructions``, ``tools``, ``tool_choice``,
``reasoning``, ``text``, ``truncation``, ``parallel_tool_calls``, ``previous_response_id``,
``conversation``) and answers ``{"object": "response.input_tokens", "input_tokens": N}``. The
body is the one a call would send (:func:`._request.build_payload`), so the count is that
call's.
"""

from __future__ import annotations

from pi_sdk import Context, Model, StreamOptions

from .._client import open_response, request_headers
from . import call_openai_responses

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

    Raises what the call's plan raises (``ConfigurationError`` without a key), a
    ``ProviderError`` for an HTTP or connection failure, ``KeyError`` for an answer without
    ``input_tokens``.
    """
    headers = request_headers(model, options)
    plan = await call_openai_responses(model, context, options)
    answer = await plan.request_json(
        model, lambda client, body: open_response(client, COUNT_PATH, body, headers), COUNT_FIELDS
    )
    return answer["input_tokens"]  # the core checks it is a count
