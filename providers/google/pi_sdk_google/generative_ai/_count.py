"""Token counting on the Gemini API: ``POST <base>/models/<id>:countTokens``.

Gemini API reference (``models.countTokens``): the body is ``{"generateContentRequest": {...}}``,
a whole ``GenerateContentRequest`` (``model``, ``contents``, ``systemInstruction``, ``tools``,
``toolConfig``, ``generationConfig``), so the system instruction and the tools are counted too;
the answer is ``{"totalTokens": N, ...}``. The request is the one a call would send
(:func:`.._shared_request.build_request`), so the count is that call's.
"""

from __future__ import annotations

from pi_sdk import Context, Model, StreamOptions

from .._shared_call import request_headers
from .._transport import send
from ._request import base_url, model_path

__all__ = ["COUNT_METHOD", "count_gemini_tokens"]

COUNT_METHOD = "countTokens"


async def count_gemini_tokens(model: Model, context: Context, options: StreamOptions) -> int:
    """The input tokens Gemini counts for the request of a call with ``context``.

    Raises:
        ConfigurationError: no API key (as a call).
        ProviderError: an HTTP or connection failure.
        KeyError, TypeError: an answer without ``totalTokens``.
    """
    from . import call_google_generative_ai  # the call's own plan: client, key, payload

    plan = await call_google_generative_ai(model, context, options)
    url = f"{base_url(model, options.client)}/{model_path(model.id)}:{COUNT_METHOD}"
    headers = request_headers(model, options)
    request = {"model": model_path(model.id)}
    answer = await plan.request_json(
        model,
        lambda client, body: send(client, url, {"generateContentRequest": request | body}, headers),
    )
    return answer["totalTokens"]  # the core checks it is a count
