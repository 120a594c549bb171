"""Every provider of a package's catalog gets its key from pi-ai's environment variable.

The variables are pi-ai 1.6.0's (``dist/env-api-keys.js`` ``getApiKeyEnvVars``; GitHub Copilot
takes ``COPILOT_GITHUB_TOKEN`` only, no generic ``GH_TOKEN`` / ``GITHUB_TOKEN`` since issue 27
item 3), but Anthropic's ``ANTHROPIC_AUTH_TOKEN``
(Bearer auth, which pi-ai 1.6 lists but never takes as an API key) is not read. A provider spread
over several packages (opencode, github-copilot, cloudflare-ai-gateway, openrouter...) is served
by each package that lists one of its models; ``azure-openai-responses`` is pi-ai 0.73's id of
``azure``, served too. Amazon Bedrock and Vertex AI also take cloud credentials (their own
tests); here only their key variable.
"""

from __future__ import annotations

from importlib import import_module

import pytest

import pi_sdk
from pi_sdk.provider import load_models_json

# provider, then its variables in pi-ai 1.6.0 (getApiKeyEnvVars), tried in order
PI_AI_ENV_TABLE = """
amazon-bedrock                 AWS_BEARER_TOKEN_BEDROCK
ant-ling                       ANT_LING_API_KEY
anthropic                      ANTHROPIC_OAUTH_TOKEN ANTHROPIC_API_KEY
azure                          AZURE_OPENAI_API_KEY
azure-openai-responses         AZURE_OPENAI_API_KEY
baseten                        BASETEN_API_KEY
cerebras                       CEREBRAS_API_KEY
cloudflare-ai-gateway          CLOUDFLARE_API_KEY
cloudflare-workers-ai          CLOUDFLARE_API_KEY
deepseek                       DEEPSEEK_API_KEY
fireworks                      FIREWORKS_API_KEY
github-copilot                 COPILOT_GITHUB_TOKEN
google                         GEMINI_API_KEY
google-vertex                  GOOGLE_CLOUD_API_KEY
groq                           GROQ_API_KEY
huggingface                    HF_TOKEN
kimi-coding                    KIMI_API_KEY
meta                           META_API_KEY
minimax                        MINIMAX_API_KEY
minimax-cn                     MINIMAX_CN_API_KEY
mistral                        MISTRAL_API_KEY
moonshotai                     MOONSHOT_API_KEY
moonshotai-cn                  MOONSHOT_API_KEY
nvidia                         NVIDIA_API_KEY
openai                         OPENAI_API_KEY
opencode                       OPENCODE_API_KEY
opencode-go                    OPENCODE_API_KEY
openrouter                     OPENROUTER_API_KEY
qwen-token-plan                QWEN_TOKEN_PLAN_TEAM_API_KEY QWEN_TOKEN_PLAN_API_KEY
qwen-token-plan-cn             QWEN_TOKEN_PLAN_TEAM_CN_API_KEY QWEN_TOKEN_PLAN_CN_API_KEY
qwen-token-plan-individual     QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY QWEN_TOKEN_PLAN_API_KEY
qwen-token-plan-individual-cn  QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY QWEN_TOKEN_PLAN_CN_API_KEY
together                       TOGETHER_API_KEY
vercel-ai-gateway              AI_GATEWAY_API_KEY
xai                            XAI_API_KEY
xiaomi                         XIAOMI_API_KEY
xiaomi-token-plan-ams          XIAOMI_TOKEN_PLAN_AMS_API_KEY
xiaomi-token-plan-cn           XIAOMI_TOKEN_PLAN_CN_API_KEY
xiaomi-token-plan-sgp          XIAOMI_TOKEN_PLAN_SGP_API_KEY
zai                            ZAI_API_KEY
zai-coding-cn                  ZAI_CODING_CN_API_KEY
"""
PI_AI_ENV = {
    line.split()[0]: tuple(line.split()[1:]) for line in PI_AI_ENV_TABLE.strip().splitlines()
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
    | {("pi_sdk_azure", "azure-openai-responses")}  # the old id: its models are the package's
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


@pytest.mark.parametrize("package", ["pi_sdk_openai", "pi_sdk_anthropic"])
def test_a_generic_github_token_never_reaches_copilot(
    package: str, clean_env: pytest.MonkeyPatch
) -> None:
    get_api_key = pi_sdk.Models(import_module(package).PROVIDERS).get_api_key
    clean_env.setenv("GH_TOKEN", "ghp_generic")
    clean_env.setenv("GITHUB_TOKEN", "ghp_generic2")
    assert get_api_key("github-copilot") is None  # pi-ai 1.6: COPILOT_GITHUB_TOKEN or a login
    clean_env.setenv("COPILOT_GITHUB_TOKEN", "ghu_copilot")
    assert get_api_key("github-copilot") == "ghu_copilot"


def test_every_catalog_provider_is_covered() -> None:
    assert {provider for _, provider in CASES} == set(PI_AI_ENV)
    assert len({provider for _, provider in CASES}) == 41  # 40 of pi-ai 1.6, and the old azure id


def test_every_catalog_provider_is_published_by_its_packages() -> None:
    published = {(package, p.id) for package in PACKAGES for p in import_module(package).PROVIDERS}
    assert set(CASES) <= published


def test_the_old_azure_id_still_resolves_to_the_same_models_and_key(
    clean_env: pytest.MonkeyPatch,
) -> None:
    import pi_sdk_azure

    models = pi_sdk.Models(pi_sdk_azure.PROVIDERS)
    old = models.models("azure-openai-responses")
    new = [m for m in models.models("azure") if m.api == "azure-openai-responses"]
    assert len(old) == len(new) == 47
    assert [m.model_copy(update={"provider": "azure"}) for m in old] == new
    assert (
        models.get_model("azure-openai-responses", "gpt-4.1").provider == "azure-openai-responses"
    )
    clean_env.setenv("AZURE_OPENAI_API_KEY", "az")
    assert models.get_api_key("azure-openai-responses") == models.get_api_key("azure") == "az"
    chat = models.get_model("azure", "deepseek-v4-pro")
    assert models.api_provider(chat.api, chat.provider) is pi_sdk_azure.AZURE_CHAT_COMPLETIONS
