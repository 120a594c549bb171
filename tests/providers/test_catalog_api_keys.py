"""Every provider of a package's catalog gets its key from pi-ai's environment variable.

The variables are pi-ai 0.73.1's (``dist/env-api-keys.js`` ``getApiKeyEnvVars``); a provider
spread over several packages (opencode, github-copilot, cloudflare-ai-gateway) is served by each
package that lists one of its models. Amazon Bedrock and Vertex AI also take cloud credentials
(their own tests); here only their key variable.
"""

from __future__ import annotations

from importlib import import_module

import pytest

import pi_sdk
from pi_sdk.provider import load_models_json

# provider -> its variables in pi-ai 0.73.1, tried in order
PI_AI_ENV = {
    "amazon-bedrock": ("AWS_BEARER_TOKEN_BEDROCK",),
    "anthropic": ("ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"),
    "azure-openai-responses": ("AZURE_OPENAI_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",),
    "cloudflare-ai-gateway": ("CLOUDFLARE_API_KEY",),
    "cloudflare-workers-ai": ("CLOUDFLARE_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "github-copilot": ("COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"),
    "google": ("GEMINI_API_KEY",),
    "google-vertex": ("GOOGLE_CLOUD_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "huggingface": ("HF_TOKEN",),
    "kimi-coding": ("KIMI_API_KEY",),
    "minimax": ("MINIMAX_API_KEY",),
    "minimax-cn": ("MINIMAX_CN_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "moonshotai": ("MOONSHOT_API_KEY",),
    "moonshotai-cn": ("MOONSHOT_API_KEY",),
    "openai": ("OPENAI_API_KEY",),
    "opencode": ("OPENCODE_API_KEY",),
    "opencode-go": ("OPENCODE_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "vercel-ai-gateway": ("AI_GATEWAY_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "xiaomi": ("XIAOMI_API_KEY",),
    "xiaomi-token-plan-ams": ("XIAOMI_TOKEN_PLAN_AMS_API_KEY",),
    "xiaomi-token-plan-cn": ("XIAOMI_TOKEN_PLAN_CN_API_KEY",),
    "xiaomi-token-plan-sgp": ("XIAOMI_TOKEN_PLAN_SGP_API_KEY",),
    "zai": ("ZAI_API_KEY",),
}
PACKAGES = (
    "pi_sdk_anthropic",
    "pi_sdk_openai",
    "pi_sdk_google",
    "pi_sdk_mistral",
    "pi_sdk_bedrock",
    "pi_sdk_azure",
)
CASES = sorted(
    {(package, model.provider) for package in PACKAGES for model in load_models_json(package)}
)
ALL_VARIABLES = sorted({name for names in PI_AI_ENV.values() for name in names})


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ALL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.mark.parametrize(("package", "provider"), CASES, ids=lambda v: str(v))
def test_the_package_reads_the_catalog_providers_variables_in_order(
    package: str, provider: str, clean_env: pytest.MonkeyPatch
) -> None:
    get_api_key = pi_sdk.Models(import_module(package).PROVIDERS).get_api_key
    names = PI_AI_ENV[provider]
    assert get_api_key(provider) is None
    # the last variable alone, then each earlier one wins over those after it
    for rank, name in reversed(list(enumerate(names))):
        clean_env.setenv(name, f"key-{rank}-{provider}")
        assert get_api_key(provider) == f"key-{rank}-{provider}"


def test_every_catalog_provider_is_covered() -> None:
    assert {provider for _, provider in CASES} <= set(PI_AI_ENV)
    assert len({provider for _, provider in CASES}) == 30
