"""Which first-party distribution brings a provider's models: the hint for a missing package.

With only ``pi-sdk-core`` installed no provider is registered, so "no models registered for
provider 'anthropic'" is all the registry can say. :data:`FIRST_PARTY_PROVIDERS` names the
distributions whose plugins register each provider id, so that the message can end with the
command that fixes it (:func:`install_hint`). ``tests/plugins/test_provider_packages.py`` checks
the table against the installed packages' ``PROVIDERS``.
"""

from __future__ import annotations

__all__ = ["FIRST_PARTY_PROVIDERS", "install_hint"]

_ANTHROPIC, _OPENAI, _GOOGLE = "pi-sdk-anthropic", "pi-sdk-openai", "pi-sdk-google"

FIRST_PARTY_PROVIDERS: dict[str, tuple[str, ...]] = {
    "amazon-bedrock": ("pi-sdk-bedrock",),
    "ant-ling": (_OPENAI,),
    "anthropic": (_ANTHROPIC,),
    "azure": ("pi-sdk-azure",),
    "azure-openai": ("pi-sdk-azure",),
    "azure-openai-responses": ("pi-sdk-azure",),
    "baseten": (_OPENAI,),
    "cerebras": (_OPENAI,),
    "cloudflare-ai-gateway": (_ANTHROPIC, _OPENAI),
    "cloudflare-workers-ai": (_OPENAI,),
    "deepseek": (_OPENAI,),
    "fireworks": (_ANTHROPIC, _OPENAI),
    "github-copilot": (_ANTHROPIC, _OPENAI),
    "google": (_GOOGLE,),
    "google-vertex": (_GOOGLE,),
    "groq": (_OPENAI,),
    "huggingface": (_OPENAI,),
    "kimi-coding": (_OPENAI,),
    "lm-studio": (_OPENAI,),
    "meta": (_OPENAI,),
    "minimax": (_ANTHROPIC,),
    "minimax-cn": (_ANTHROPIC,),
    "mistral": ("pi-sdk-mistral",),
    "moonshotai": (_OPENAI,),
    "moonshotai-cn": (_OPENAI,),
    "nvidia": (_OPENAI,),
    "ollama": (_OPENAI,),
    "openai": (_OPENAI,),
    "opencode": (_ANTHROPIC, _GOOGLE, _OPENAI),
    "opencode-go": (_ANTHROPIC, _GOOGLE, _OPENAI),
    "openrouter": (_ANTHROPIC, _OPENAI),
    "qwen-token-plan": (_OPENAI,),
    "qwen-token-plan-cn": (_OPENAI,),
    "qwen-token-plan-individual": (_OPENAI,),
    "qwen-token-plan-individual-cn": (_OPENAI,),
    "together": (_OPENAI,),
    "vercel-ai-gateway": (_ANTHROPIC,),
    "xai": (_OPENAI,),
    "xiaomi": (_OPENAI,),
    "xiaomi-token-plan-ams": (_OPENAI,),
    "xiaomi-token-plan-cn": (_OPENAI,),
    "xiaomi-token-plan-sgp": (_OPENAI,),
    "zai": (_OPENAI,),
    "zai-coding-cn": (_OPENAI,),
}
"""Provider id -> the first-party distributions whose plugins register it (sorted)."""


def install_hint(provider: str) -> str:
    """``"; its models come with pi-sdk-anthropic: pip install pi-sdk-anthropic"``, or ``""``.

    Args:
        provider: A provider id that has no registered model.

    Returns:
        The clause to append to a "no models registered" message, naming every first-party
        distribution that registers ``provider``; empty for a provider none of them knows.
    """
    distributions = FIRST_PARTY_PROVIDERS.get(provider, ())
    if not distributions:
        return ""
    names = " and ".join(distributions)
    return f"; its models come with {names}: pip install {' '.join(distributions)}"
