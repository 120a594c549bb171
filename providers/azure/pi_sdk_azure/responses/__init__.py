"""The ``azure-openai-responses`` wire API: OpenAI's Responses API served by Azure OpenAI.

Reuses pi-sdk-openai's Responses request builder, decoder and read loop
(:func:`pi_sdk_openai._client.stream_request`); what is Azure's is the endpoint
(:mod:`pi_sdk_azure._endpoint`), the client and credential (:mod:`pi_sdk_azure._client`), the
deployment as ``model`` (:func:`pi_sdk_azure._client.stream_on`) and the content-filter error
(``_decode.py``).
Signatures and tool-call ids are stored as for ``openai-responses``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from pi_sdk_openai.responses._request import string_option

from pi_sdk.provider import AssistantMessageEvent, Context, Model, StreamOptions

from .._client import stream_on
from ._decode import Decoder
from ._request import API, PATH, build_payload

__all__ = ["API", "PATH", "Decoder", "build_payload", "stream_azure_openai_responses"]


def stream_azure_openai_responses(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """Call Azure OpenAI's Responses API and yield normalized events (``azure-openai-responses``).

    Contract as :func:`pi_sdk_openai.responses.stream_openai_responses`; the endpoint, the
    deployment and the credential follow :func:`pi_sdk_azure._endpoint.resolve_endpoint` and
    :func:`pi_sdk_azure._client.lease_client`. A reply Azure's content filter cut ends in an
    ``error`` event naming the filtered categories, with the content streamed so far kept.
    Nothing runs until the first iteration: a missing base URL or credential
    (:class:`pi_sdk.ConfigurationError`) and HTTP or stream failures
    (:class:`pi_sdk.provider.ProviderError`) end the call as its ``error`` event.
    """
    return stream_on(
        model,
        context,
        options,
        api="responses",
        path=PATH,
        build_payload=build_payload,
        decoder=lambda builder: Decoder(
            builder, service_tier=string_option(options, "service_tier")
        ),
    )
