"""pi-sdk provider plugin for Anthropic: the ``anthropic-messages`` wire API and its catalog.

Loaded through the ``pi_sdk`` entry-point group. Importing this package imports neither the
``anthropic`` SDK nor the wire code: :mod:`pi_sdk_anthropic.messages` is imported on the first
call (or replayed request), and it imports the SDK inside its stream function.

Hooks:

* ``register_api_providers``: ``ApiProvider(api="anthropic-messages", ...)`` with a request
  recognizer for ``pi-sdk replay``;
* ``register_models``: the catalog in ``models.json`` (see ``docs/models.md``);
* ``get_api_key``: for provider ``anthropic``, ``ANTHROPIC_OAUTH_TOKEN`` then
  ``ANTHROPIC_API_KEY`` (pi-mono ``getEnvApiKey``).
"""

from __future__ import annotations

from pi_sdk import provider as kit

__all__ = ["get_api_key", "register_api_providers", "register_models"]

register_api_providers = kit.api_providers_hook(
    kit.lazy_api("anthropic-messages", "pi_sdk_anthropic.messages", "stream_anthropic_messages")
)
register_models = kit.models_hook(__name__)
get_api_key = kit.env_api_key_hook({"anthropic": ("ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY")})
