"""Each catalog provider's API-key environment variables, in a module of their own.

The package's ``__init__`` publishes them with its providers at plugin discovery; they live apart
from :mod:`pi_sdk_openai._client` (which reads them at a call) so that discovery does not import
the client code and the stream machinery it needs.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["ENV_API_KEYS"]

ENV_API_KEYS: Mapping[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "ant-ling": ("ANT_LING_API_KEY",),
    "baseten": ("BASETEN_API_KEY",),
    "cerebras": ("CEREBRAS_API_KEY",),
    "cloudflare-ai-gateway": ("CLOUDFLARE_API_KEY",),
    "cloudflare-workers-ai": ("CLOUDFLARE_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "fireworks": ("FIREWORKS_API_KEY",),
    "github-copilot": ("COPILOT_GITHUB_TOKEN",),
    "groq": ("GROQ_API_KEY",),
    "huggingface": ("HF_TOKEN",),
    "kimi-coding": ("KIMI_API_KEY",),
    "meta": ("META_API_KEY",),
    "moonshotai": ("MOONSHOT_API_KEY",),
    "moonshotai-cn": ("MOONSHOT_API_KEY",),
    "nvidia": ("NVIDIA_API_KEY",),
    "opencode": ("OPENCODE_API_KEY",),
    "opencode-go": ("OPENCODE_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    # a plan's own variable first, then the region's variable both plans used to share
    "qwen-token-plan": ("QWEN_TOKEN_PLAN_TEAM_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"),
    "qwen-token-plan-cn": ("QWEN_TOKEN_PLAN_TEAM_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"),
    "qwen-token-plan-individual": ("QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"),
    "qwen-token-plan-individual-cn": (
        "QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY",
        "QWEN_TOKEN_PLAN_CN_API_KEY",
    ),
    "together": ("TOGETHER_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "xiaomi": ("XIAOMI_API_KEY",),
    "xiaomi-token-plan-ams": ("XIAOMI_TOKEN_PLAN_AMS_API_KEY",),
    "xiaomi-token-plan-cn": ("XIAOMI_TOKEN_PLAN_CN_API_KEY",),
    "xiaomi-token-plan-sgp": ("XIAOMI_TOKEN_PLAN_SGP_API_KEY",),
    "zai": ("ZAI_API_KEY",),
    "zai-coding-cn": ("ZAI_CODING_CN_API_KEY",),
}
"""Environment variables holding each catalog provider's key, tried in order (pi-ai 1.6
``getEnvApiKey``: Copilot takes only ``COPILOT_GITHUB_TOKEN``, never a generic ``GH_TOKEN`` /
``GITHUB_TOKEN``, which 0.73.1 also read and which could reach Copilot by accident)."""
