"""pi-sdk provider plugin for Azure OpenAI: ``azure-openai-responses`` and Chat Completions.

Published through the ``pi_sdk`` entry-point group as :data:`PROVIDERS`, both with the key
``AZURE_OPENAI_API_KEY``:

* ``azure-openai-responses``: the ``azure-openai-responses`` wire API (with a recorded-request
  recognizer for ``pi-sdk replay`` and the conformance runner) and its catalog in
  ``models.json`` (pi-ai 0.73.1);
* ``azure-openai``: Chat Completions deployments, through an ``openai-completions``
  implementation of its own (``exclusive``: it serves this provider's models only), built on
  pi-sdk-openai's request and decoder code. Its models are your deployments (``register_model``).

:func:`provider` configures one for a :class:`pi_sdk.Models` collection (a tenant of its own).
Importing this module imports neither the ``openai`` SDK nor the wire code
(:mod:`pi_sdk_azure.responses`, :mod:`pi_sdk_azure.completions`), which the stream functions
import on first call.

Azure's rules live in :mod:`pi_sdk_azure._endpoint` (URL, deployment, ``api-version``),
:mod:`pi_sdk_azure._client` (client class, key or Entra ID token) and
:mod:`pi_sdk_azure._filters` (content-filter errors). See ``docs/providers/azure.md``.
"""

from __future__ import annotations

from pi_sdk import provider as kit

from ._endpoint import CHAT_PROVIDER, RESPONSES_PROVIDER, recognize_responses_request

__all__ = ["AZURE_CHAT_COMPLETIONS", "AZURE_OPENAI_RESPONSES", "PROVIDERS", "provider"]

# The wire modules (and so the SDK) are imported on the first call only.
AZURE_OPENAI_RESPONSES = kit.ApiProvider(
    api="azure-openai-responses",
    stream=kit.lazy_stream(f"{__name__}.responses", "stream_azure_openai_responses"),
    recognize=recognize_responses_request,
)
"""The ``azure-openai-responses`` implementation."""
AZURE_CHAT_COMPLETIONS = kit.ApiProvider(
    api="openai-completions",
    stream=kit.lazy_stream(f"{__name__}.completions", "stream_azure_chat_completions"),
    exclusive=True,
)
"""``openai-completions`` for provider ``azure-openai`` only (Azure's endpoint and auth)."""

_ENV = ("AZURE_OPENAI_API_KEY",)
PROVIDERS = (
    *kit.package_providers(
        __name__,
        apis=[AZURE_OPENAI_RESPONSES],
        env={RESPONSES_PROVIDER: _ENV},
        names={RESPONSES_PROVIDER: "Azure OpenAI (Responses)"},
    ),
    kit.Provider(
        id=CHAT_PROVIDER,
        name="Azure OpenAI (Chat Completions)",
        auth=kit.ProviderAuth(env=_ENV),
        apis=(AZURE_CHAT_COMPLETIONS,),
    ),
)
"""``azure-openai-responses`` and ``azure-openai``; the entry point names this tuple."""


provider = kit.provider_factory(PROVIDERS, RESPONSES_PROVIDER)
"""``provider(provider_id, *, api_key, base_url, headers)``: one of :data:`PROVIDERS`, configured
for a :class:`pi_sdk.Models` collection of your own."""
