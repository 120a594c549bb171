"""pi-sdk provider plugin for Anthropic: the ``anthropic-messages`` wire API and its catalog.

Loaded through the ``pi_sdk`` entry-point group. Importing this package imports neither the
``anthropic`` SDK nor the wire code: :mod:`pi_sdk_anthropic.messages` is imported on the first
call (or replayed request), and it imports the SDK inside its stream function.

Hooks:

* ``register_api_providers``: ``ApiProvider(api="anthropic-messages", ...)`` with a request
  recognizer for ``pi-sdk replay``;
* ``register_models``: the catalog in ``models.json``: every ``anthropic-messages`` model of
  pi-ai 0.73.1 (anthropic, and the servers speaking its API: fireworks, vercel-ai-gateway,
  minimax, kimi-coding, xiaomi, ...; see ``docs/models.md``);
* ``get_api_key``: the provider's environment variables (:data:`ENV_API_KEYS`, pi-ai 0.73.1
  ``getEnvApiKey``); for ``anthropic``, ``ANTHROPIC_OAUTH_TOKEN`` then ``ANTHROPIC_API_KEY``.
"""

from __future__ import annotations

from pi_sdk import provider as kit

__all__ = ["ENV_API_KEYS", "get_api_key", "register_api_providers", "register_models"]

ENV_API_KEYS: dict[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"),
    "cloudflare-ai-gateway": ("CLOUDFLARE_API_KEY",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "github-copilot": ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"),
    "kimi-coding": ("KIMI_API_KEY",),
    "minimax": ("MINIMAX_API_KEY",),
    "minimax-cn": ("MINIMAX_CN_API_KEY",),
    "opencode": ("OPENCODE_API_KEY",),
    "vercel-ai-gateway": ("AI_GATEWAY_API_KEY",),
    "xiaomi": ("XIAOMI_API_KEY",),
    "xiaomi-token-plan-ams": ("XIAOMI_TOKEN_PLAN_AMS_API_KEY",),
    "xiaomi-token-plan-cn": ("XIAOMI_TOKEN_PLAN_CN_API_KEY",),
    "xiaomi-token-plan-sgp": ("XIAOMI_TOKEN_PLAN_SGP_API_KEY",),
}
"""Environment variables holding each catalog provider's key, tried in order (pi-ai 0.73.1
``getEnvApiKey``)."""

register_api_providers = kit.api_providers_hook(
    kit.lazy_api("anthropic-messages", "pi_sdk_anthropic.messages", call="call_anthropic_messages")
)
register_models = kit.models_hook(__name__)
get_api_key = kit.env_api_key_hook(ENV_API_KEYS)
