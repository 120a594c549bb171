"""pi-sdk provider plugin for Azure OpenAI: ``azure-openai-responses`` and Chat Completions.

Loaded through the ``pi_sdk`` entry-point group. This module holds the hook implementations
only: importing it imports neither the ``openai`` SDK nor the wire code
(:mod:`pi_sdk_azure.responses`, :mod:`pi_sdk_azure.completions`), which the stream functions
import on first call.

Hooks:

* ``register_api_providers``: ``azure-openai-responses`` (with a recorded-request recognizer
  for ``pi-sdk replay`` and the conformance runner), and the Azure stream for provider
  ``azure-openai`` on pi-sdk-openai's ``openai-completions`` adapter
  (:data:`pi_sdk_openai.PROVIDER_CALLS`);
* ``register_models``: the ``azure-openai-responses`` catalog in ``models.json`` (pi-ai 0.73.1);
* ``get_api_key``: ``AZURE_OPENAI_API_KEY`` for ``azure-openai-responses`` and ``azure-openai``.

Azure's rules live in :mod:`pi_sdk_azure._endpoint` (URL, deployment, ``api-version``),
:mod:`pi_sdk_azure._client` (client class, key or Entra ID token) and
:mod:`pi_sdk_azure._filters` (content-filter errors). See ``docs/providers/azure.md``.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from pi_sdk.provider import ApiProvider, hookimpl, lazy_call, models_hook

from ._endpoint import CHAT_PROVIDER, RESPONSES_PROVIDER, recognize_responses_request

__all__ = ["get_api_key", "register_api_providers", "register_models"]

_ENV_API_KEY = "AZURE_OPENAI_API_KEY"


# The wire modules (and so the SDK) are imported on the first call only.
_RESPONSES = ApiProvider(
    api="azure-openai-responses",
    call=lazy_call(f"{__name__}.responses", "call_azure_openai_responses"),
    recognize=recognize_responses_request,
)
_CALL_CHAT = lazy_call(f"{__name__}.completions", "call_azure_chat_completions")


@hookimpl
def register_api_providers(register: Callable[..., None]) -> None:
    """Register ``azure-openai-responses``; serve provider ``azure-openai`` Chat Completions."""
    from pi_sdk_openai import PROVIDER_CALLS

    register(_RESPONSES)
    PROVIDER_CALLS[CHAT_PROVIDER] = _CALL_CHAT


register_models = models_hook(__name__)
"""Register the ``azure-openai-responses`` catalog (``models.json``, from pi-ai 0.73.1)."""


@hookimpl
def get_api_key(provider: str) -> str | None:
    """``AZURE_OPENAI_API_KEY`` for Azure's providers, else ``None``."""
    if provider not in (RESPONSES_PROVIDER, CHAT_PROVIDER):
        return None
    return os.environ.get(_ENV_API_KEY) or None
