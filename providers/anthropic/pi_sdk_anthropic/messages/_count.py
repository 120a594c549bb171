"""Token counting on the Messages API: ``POST /v1/messages/count_tokens``.

Anthropic's "Token counting" guide: the body is a Messages request without what only
generation reads (``model``, ``messages``, ``system``, ``tools``, ``tool_choice``,
``thinking``), and the answer is ``{"input_tokens": N}``. The body is the one a call would send
(:func:`._request.build_request`, the same history transform), so the count is that call's.
"""

from __future__ import annotations

import pi_sdk
from pi_sdk import provider as kit

from .._client import build_headers, open_messages

__all__ = ["COUNT_FIELDS", "COUNT_PATH", "count_anthropic_tokens"]

COUNT_PATH = "/v1/messages/count_tokens"
COUNT_FIELDS = ("model", "messages", "system", "tools", "tool_choice", "thinking")
"""The Messages request fields the counting endpoint takes (others are refused)."""


async def count_anthropic_tokens(
    model: pi_sdk.Model, context: pi_sdk.Context, options: pi_sdk.StreamOptions
) -> int:
    """The input tokens Anthropic counts for the request of a call with ``context``.

    Raises:
        ConfigurationError: no API key (as a call).
        ProviderError: an HTTP or connection failure.
        KeyError, TypeError: an answer without ``input_tokens``.
    """
    from . import call_anthropic_messages  # the call's own plan: client, key, payload

    plan = await call_anthropic_messages(model, context, options)
    api_key = kit.resolve_api_key(model, options)
    headers = build_headers(model, options, api_key, has_tools=bool(context.tools))
    answer = await plan.request_json(
        model,
        lambda client, body: open_messages(client, body, headers, path=COUNT_PATH),
        COUNT_FIELDS,
    )
    return answer["input_tokens"]  # the core checks it is a count
