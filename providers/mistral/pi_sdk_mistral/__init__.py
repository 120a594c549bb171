"""pi-sdk provider plugin for Mistral: the ``mistral-conversations`` wire API and its catalog.

Loaded through the ``pi_sdk`` entry-point group. Importing this package imports neither the
``mistralai`` SDK nor the wire code: :mod:`pi_sdk_mistral.conversations` is imported on the
first call (or replayed request), and it imports the SDK inside its stream function.

Hooks:

* ``register_api_providers``: ``ApiProvider(api="mistral-conversations", ...)`` with a request
  recognizer for ``pi-sdk replay``;
* ``register_models``: the catalog in ``models.json`` (see ``docs/models.md``);
* ``get_api_key``: for provider ``mistral``, ``MISTRAL_API_KEY`` (pi-mono ``getEnvApiKey``).
"""

from __future__ import annotations

from pi_sdk import provider as kit

__all__ = ["get_api_key", "register_api_providers", "register_models"]

register_api_providers = kit.api_providers_hook(
    kit.lazy_api(
        "mistral-conversations",
        "pi_sdk_mistral.conversations",
        call="call_mistral_conversations",
    )
)
register_models = kit.models_hook(__name__)
get_api_key = kit.env_api_key_hook({"mistral": ("MISTRAL_API_KEY",)})
