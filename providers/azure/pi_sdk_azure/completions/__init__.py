"""Chat Completions on Azure OpenAI (provider ``azure-openai`` on ``openai-completions``).

pi-sdk-openai's ``openai-completions`` provider hands models of provider ``azure-openai`` to
:func:`call_azure_chat_completions` (``pi_sdk_openai.PROVIDER_CALLS``, filled by this plugin),
which reuses that package's request builder, compatibility flags and decoder; what
is Azure's is the endpoint, the client and credential, the deployment as ``model`` and the
content-filter error.
"""

from __future__ import annotations

from typing import Any

from pi_sdk import Context, Model, StreamOptions
from pi_sdk.provider import HttpCall

from .._client import plan_on
from ._decode import Decoder
from ._request import PATH, build_payload, request_grammar

__all__ = ["PATH", "Decoder", "build_payload", "call_azure_chat_completions"]


async def call_azure_chat_completions(
    model: Model, context: Context, options: StreamOptions
) -> HttpCall[Any]:
    """The plan of one Chat Completions call on an Azure endpoint.

    Contract as :func:`pi_sdk_openai.completions.call_openai_completions`; the endpoint and
    credential as for ``azure-openai-responses`` (``model.base_url`` may be the v1 endpoint or
    a deployment URL). ``finish_reason: content_filter`` ends in an ``error`` event naming the
    filtered categories, with the content streamed so far kept.

    Raises:
        ConfigurationError: a missing base URL or credential, bad options.
    """
    # build_payload resolves the compatibility flags from the model (OpenAI's defaults).
    return await plan_on(
        model,
        context,
        options,
        api="chat",
        path=PATH,
        build_payload=build_payload,
        decoder=lambda builder: Decoder(builder, grammar=request_grammar(model, context)),
    )
