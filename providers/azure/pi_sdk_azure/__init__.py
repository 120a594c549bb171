"""pi-sdk provider plugin for Azure OpenAI: ``azure-openai-responses`` and Chat Completions.

Loaded through the ``pi_sdk`` entry-point group. This module holds the hook implementations
only: importing it imports neither the ``openai`` SDK nor the wire code
(:mod:`pi_sdk_azure.responses`, :mod:`pi_sdk_azure.completions`), which the stream functions
import on first call.

Hooks:

* ``register_api_providers``: ``azure-openai-responses`` (with a recorded-request recognizer
  for ``pi-sdk replay`` and the conformance runner), and the Azure stream for provider
  ``azure-openai`` on pi-sdk-openai's ``openai-completions`` adapter
  (:data:`pi_sdk_openai.PROVIDER_STREAMS`);
* ``register_models``: the ``azure-openai-responses`` catalog in ``models.json`` (pi-ai 0.73.1);
* ``get_api_key``: ``AZURE_OPENAI_API_KEY`` for ``azure-openai-responses`` and ``azure-openai``.

Azure's rules live in :mod:`pi_sdk_azure._endpoint` (URL, deployment, ``api-version``),
:mod:`pi_sdk_azure._client` (client class, key or Entra ID token) and
:mod:`pi_sdk_azure._filters` (content-filter errors). See ``docs/providers/azure.md``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import AsyncIterator, Callable

from pi_sdk.provider import (
    ApiProvider,
    AssistantMessageEvent,
    Context,
    Model,
    StreamFunction,
    StreamOptions,
    hookimpl,
    load_models_json,
)

from ._endpoint import CHAT_PROVIDER, RESPONSES_PROVIDER, recognize_responses_request

__all__ = ["get_api_key", "register_api_providers", "register_models"]

_ENV_API_KEY = "AZURE_OPENAI_API_KEY"


def _lazy(module: str, function: str) -> StreamFunction:
    """A stream function that hands each call to ``pi_sdk_azure.<module>.<function>``.

    The module (and so the wire code and the SDK) is imported on the first call only.
    """

    def stream(
        model: Model, context: Context, options: StreamOptions
    ) -> AsyncIterator[AssistantMessageEvent]:
        wire = importlib.import_module(f"{__name__}.{module}")
        return getattr(wire, function)(model, context, options)

    return stream


_STREAM_RESPONSES = _lazy("responses", "stream_azure_openai_responses")
_STREAM_CHAT = _lazy("completions", "stream_azure_chat_completions")


@hookimpl
def register_api_providers(register: Callable[..., None]) -> None:
    """Register ``azure-openai-responses``; serve provider ``azure-openai`` Chat Completions."""
    from pi_sdk_openai import PROVIDER_STREAMS

    register(
        ApiProvider(
            api="azure-openai-responses",
            stream=_STREAM_RESPONSES,
            recognize=recognize_responses_request,
        )
    )
    PROVIDER_STREAMS[CHAT_PROVIDER] = _STREAM_CHAT


@hookimpl
def register_models(register: Callable[..., None]) -> None:
    """Register the ``azure-openai-responses`` catalog (``models.json``, from pi-ai 0.73.1)."""
    catalog = load_models_json(__name__)
    for model in catalog:
        register(model)


@hookimpl
def get_api_key(provider: str) -> str | None:
    """``AZURE_OPENAI_API_KEY`` for Azure's providers, else ``None``."""
    if provider not in (RESPONSES_PROVIDER, CHAT_PROVIDER):
        return None
    return os.environ.get(_ENV_API_KEY) or None
