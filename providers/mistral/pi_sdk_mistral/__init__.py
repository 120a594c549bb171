"""pi-sdk provider plugin for Mistral: the ``mistral-conversations`` wire API and its catalog.

Published through the ``pi_sdk`` entry-point group as :data:`PROVIDERS`: the provider
``mistral``, with the catalog in ``models.json`` (see ``docs/models.md``),
:data:`MISTRAL_CONVERSATIONS` (with a request recognizer for ``pi-sdk replay``) and its key
``MISTRAL_API_KEY`` (pi-mono ``getEnvApiKey``). :func:`provider` configures it for a
:class:`pi_sdk.Models` collection.

Importing this package imports neither the ``mistralai`` SDK nor the wire code:
:mod:`pi_sdk_mistral.conversations` is imported on the first call (or replayed request), and it
imports the SDK inside its stream function.
"""

from __future__ import annotations

from pi_sdk import provider as kit

__all__ = ["MISTRAL_CONVERSATIONS", "PROVIDERS", "provider"]

MISTRAL_CONVERSATIONS = kit.lazy_api(
    "mistral-conversations", "pi_sdk_mistral.conversations", call="call_mistral_conversations"
)
"""The ``mistral-conversations`` implementation (its module imported on the first call)."""

PROVIDERS = kit.package_providers(
    __name__,
    apis=[MISTRAL_CONVERSATIONS],
    env={"mistral": ("MISTRAL_API_KEY",)},
    names={"mistral": "Mistral"},
)
"""The ``mistral`` provider; the entry point names this tuple."""


provider = kit.provider_factory(PROVIDERS, "mistral")
"""``provider(provider_id, *, api_key, base_url, headers)``: one of :data:`PROVIDERS`, configured
for a :class:`pi_sdk.Models` collection of your own."""
