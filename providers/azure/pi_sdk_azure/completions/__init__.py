"""Chat Completions on Azure OpenAI (provider ``azure-openai`` on ``openai-completions``).

pi-sdk-openai's ``openai-completions`` provider hands models of provider ``azure-openai`` to
:func:`stream_azure_chat_completions` (``pi_sdk_openai.PROVIDER_STREAMS``, filled by this plugin),
which reuses that package's request builder, compatibility flags, decoder and read loop; what
is Azure's is the endpoint, the client and credential, the deployment as ``model`` and the
content-filter error.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from pi_sdk.provider import AssistantMessageEvent, Context, Model, StreamOptions

from .._client import stream_on
from ._decode import Decoder
from ._request import PATH, build_payload

__all__ = ["PATH", "Decoder", "build_payload", "stream_azure_chat_completions"]


def stream_azure_chat_completions(
    model: Model, context: Context, options: StreamOptions
) -> AsyncIterator[AssistantMessageEvent]:
    """Call Chat Completions on an Azure endpoint and yield normalized events.

    Contract as :func:`pi_sdk_openai.completions.stream_openai_completions`; the endpoint and
    credential as for ``azure-openai-responses`` (``model.base_url`` may be the v1 endpoint or
    a deployment URL). ``finish_reason: content_filter`` ends in an ``error`` event naming the
    filtered categories, with the content streamed so far kept. Nothing runs until the first
    iteration.
    """
    # build_payload resolves the compatibility flags from the model (OpenAI's defaults).
    return stream_on(
        model, context, options, api="chat", path=PATH, build_payload=build_payload, decoder=Decoder
    )
