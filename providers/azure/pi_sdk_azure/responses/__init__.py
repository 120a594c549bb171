"""The ``azure-openai-responses`` wire API: OpenAI's Responses API served by Azure OpenAI.

Reuses pi-sdk-openai's Responses request builder, decoder and call plan
(:func:`pi_sdk_openai._client.plan_request`); what is Azure's is the endpoint
(:mod:`pi_sdk_azure._endpoint`), the client and credential (:mod:`pi_sdk_azure._client`), the
deployment as ``model`` (:func:`pi_sdk_azure._client.plan_on`) and the content-filter error
(``_decode.py``).
Signatures and tool-call ids are stored as for ``openai-responses``.
"""

from __future__ import annotations

from typing import Any

from pi_sdk_openai.responses import request_grammar
from pi_sdk_openai.responses._request import string_option

from pi_sdk import Context, Model, StreamOptions
from pi_sdk.provider import HttpCall

from .._client import plan_on
from ._decode import Decoder
from ._request import API, PATH, build_payload

__all__ = ["API", "PATH", "Decoder", "build_payload", "call_azure_openai_responses"]


async def call_azure_openai_responses(
    model: Model, context: Context, options: StreamOptions
) -> HttpCall[Any]:
    """The plan of one call of Azure OpenAI's Responses API (``azure-openai-responses``).

    Contract as :func:`pi_sdk_openai.responses.call_openai_responses`; the endpoint, the
    deployment and the credential follow :func:`pi_sdk_azure._endpoint.resolve_endpoint` and
    :func:`pi_sdk_azure._client.lease_client`. A reply Azure's content filter cut ends in an
    ``error`` event naming the filtered categories, with the content streamed so far kept; HTTP
    or stream failures (:class:`pi_sdk.provider.ProviderError`) end the call as its ``error``
    event.

    Raises:
        ConfigurationError: a missing base URL or credential, bad options.
    """
    return await plan_on(
        model,
        context,
        options,
        api="responses",
        path=PATH,
        build_payload=build_payload,
        decoder=lambda builder: Decoder(
            builder,
            service_tier=string_option(options, "service_tier"),
            grammar=request_grammar(model, context),
        ),
    )
