"""pi-sdk provider plugin for Azure OpenAI: ``azure-openai-responses`` and Chat Completions.

Published through the ``pi_sdk`` entry-point group as :data:`PROVIDERS`, all with the key
``AZURE_OPENAI_API_KEY``:

* ``azure`` (pi-ai 1.6's Azure provider): the catalog in ``models.json`` (pi-ai 1.6.0: its
  ``azure-openai-responses`` models and its Chat Completions models), served by the
  ``azure-openai-responses`` wire API (with a recorded-request recognizer for ``pi-sdk replay``
  and the conformance runner) and by Azure's ``openai-completions`` implementation below;
* ``azure-openai-responses``: pi-ai 0.73's name of that provider (pi-ai 1.0.3 renamed it
  ``azure``), kept so code, sessions and recordings that name it keep working: the same
  Responses models, re-labelled with the old id, the same key and API. A duplicate provider
  entry rather than an alias, so a message stays "from the same model" for the history rules
  (:func:`pi_sdk.provider.transform_messages` compares provider ids) in an old transcript
  continued under the old name;
* ``azure-openai``: Chat Completions deployments, through an ``openai-completions``
  implementation of its own (``exclusive``: it serves this package's providers' models only),
  built on pi-sdk-openai's request and decoder code. Its models are your deployments
  (``register_model``).

:func:`provider` configures one for a :class:`pi_sdk.Models` collection (a tenant of its own).
Importing this module imports neither the ``openai`` SDK nor the wire code
(:mod:`pi_sdk_azure.responses`, :mod:`pi_sdk_azure.completions`), which the stream functions
import on first call.

Azure's rules live in :mod:`pi_sdk_azure._endpoint` (URL, deployment, ``api-version``),
:mod:`pi_sdk_azure._client` (client class, key or Entra ID token) and
:mod:`pi_sdk_azure._filters` (content-filter errors). See ``docs/providers/azure.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_sdk import provider as kit

from ._endpoint import CHAT_PROVIDER, PROVIDER, RESPONSES_PROVIDER, recognize_responses_request

if TYPE_CHECKING:
    from pi_sdk import Model

__all__ = ["AZURE_CHAT_COMPLETIONS", "AZURE_OPENAI_RESPONSES", "PROVIDERS", "provider"]

# The wire modules (and so the SDK) are imported on the first call only.
AZURE_OPENAI_RESPONSES = kit.ApiProvider(
    api="azure-openai-responses",
    call=kit.lazy_call(f"{__name__}.responses", "call_azure_openai_responses"),
    recognize=recognize_responses_request,
)
"""The ``azure-openai-responses`` implementation."""
AZURE_CHAT_COMPLETIONS = kit.ApiProvider(
    api="openai-completions",
    call=kit.lazy_call(f"{__name__}.completions", "call_azure_chat_completions"),
    exclusive=True,
)
"""``openai-completions`` for this package's providers only (``azure``, ``azure-openai``): Azure's
endpoint and auth."""

_ENV = ("AZURE_OPENAI_API_KEY",)
_AZURE, *_ = kit.package_providers(
    __name__,
    apis=[AZURE_OPENAI_RESPONSES, AZURE_CHAT_COMPLETIONS],
    env={PROVIDER: _ENV},
    names={PROVIDER: "Azure OpenAI"},
)


def _under_the_old_id() -> list[Model]:
    """The ``azure`` provider's Responses models, labelled ``azure-openai-responses``."""
    return [
        model.model_copy(update={"provider": RESPONSES_PROVIDER})
        for model in _AZURE.catalog()
        if model.api == AZURE_OPENAI_RESPONSES.api
    ]


PROVIDERS = (
    _AZURE,
    kit.Provider(
        id=RESPONSES_PROVIDER,
        name="Azure OpenAI (Responses; pi-ai 0.73's id, now azure)",
        auth=kit.ProviderAuth(env=_ENV),
        models=_under_the_old_id,
        apis=(AZURE_OPENAI_RESPONSES,),
    ),
    kit.Provider(
        id=CHAT_PROVIDER,
        name="Azure OpenAI (Chat Completions)",
        auth=kit.ProviderAuth(env=_ENV),
        apis=(AZURE_CHAT_COMPLETIONS,),
    ),
)
"""``azure``, ``azure-openai-responses`` (its old id) and ``azure-openai``; the entry point names
this tuple."""


provider = kit.provider_factory(PROVIDERS, PROVIDER)
"""``provider(provider_id, *, api_key, base_url, headers)``: one of :data:`PROVIDERS`, configured
for a :class:`pi_sdk.Models` collection of your own."""
