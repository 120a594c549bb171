"""pi-sdk provider plugin for Anthropic: the ``anthropic-messages`` wire API and its catalog.

Published through the ``pi_sdk`` entry-point group as :data:`PROVIDERS`: one
:class:`~pi_sdk.Provider` per catalog provider (``anthropic``, and the servers speaking its API:
fireworks, vercel-ai-gateway, openrouter, minimax, ...; see ``docs/models.md``), each with its
models from ``models.json`` (every ``anthropic-messages`` model of pi-ai 1.6.0), its
environment variables (:data:`ENV_API_KEYS`, pi-ai 1.6 ``getEnvApiKey``; for ``anthropic``,
``ANTHROPIC_OAUTH_TOKEN`` then ``ANTHROPIC_API_KEY``) and :data:`ANTHROPIC_MESSAGES`, whose
request recognizer serves ``pi-sdk replay``. :func:`provider` configures one for a
:class:`pi_sdk.Models` collection of your own.

Importing this package imports neither the ``anthropic`` SDK nor the wire code:
:mod:`pi_sdk_anthropic.messages` is imported on the first call (or replayed request), and it
imports the SDK inside its stream function.
"""

from __future__ import annotations

from pi_sdk import provider as kit

__all__ = ["ANTHROPIC_MESSAGES", "ENV_API_KEYS", "PROVIDERS", "provider"]

ENV_API_KEYS: dict[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"),
    "cloudflare-ai-gateway": ("CLOUDFLARE_API_KEY",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "github-copilot": ("COPILOT_GITHUB_TOKEN",),
    "minimax": ("MINIMAX_API_KEY",),
    "minimax-cn": ("MINIMAX_CN_API_KEY",),
    "opencode": ("OPENCODE_API_KEY",),
    "opencode-go": ("OPENCODE_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "vercel-ai-gateway": ("AI_GATEWAY_API_KEY",),
}
"""Each catalog provider's key variables in the order tried, per pi-ai 1.6 ``getEnvApiKey``
(GitHub Copilot reads ``COPILOT_GITHUB_TOKEN`` only: never ``GH_TOKEN`` or ``GITHUB_TOKEN``)."""

ANTHROPIC_MESSAGES = kit.lazy_api(
    "anthropic-messages",
    "pi_sdk_anthropic.messages",
    call="call_anthropic_messages",
    count_tokens="count_anthropic_tokens",
)
"""The ``anthropic-messages`` implementation (its module imported on the first call)."""

PROVIDERS = kit.package_providers(
    __name__, apis=[ANTHROPIC_MESSAGES], env=ENV_API_KEYS, names={"anthropic": "Anthropic"}
)
"""Every provider of the catalog; the entry point names this tuple."""


provider = kit.provider_factory(PROVIDERS, "anthropic")
"""``provider(provider_id, *, api_key, base_url, headers)``: one of :data:`PROVIDERS`, configured
for a :class:`pi_sdk.Models` collection of your own."""
