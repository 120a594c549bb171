"""Chat Completions flags detected from the provider's name compare names by value.

A provider id read from a models.json, a config file or a command line is a new string, never
the literal in pi-sdk's source: detection must give it the same flags as the literal (it did
not for an identity comparison, which only a literal passes).
"""

from __future__ import annotations

import pytest
from pi_sdk_openai.completions import detect_compat

from pi_sdk import Model

PROVIDERS = ["zai", "zai-coding-cn", "together", "moonshotai", "moonshotai-cn", "openrouter",
             "cloudflare-workers-ai", "cloudflare-ai-gateway", "nvidia", "ant-ling", "cerebras",
             "deepseek", "xai", "groq"]  # fmt: skip
BASE = "https://gateway.example.invalid/v1"


def _read(name: str) -> str:
    """``name`` as a string made at run time (as read from a file), not the interned literal."""
    built = "".join(list(name))
    assert built == name and built is not name
    return built


def _model(provider: str) -> Model:
    # groq's rule is for this model alone
    return Model(id="qwen/qwen3-32b", api="openai-completions", provider=provider, base_url=BASE)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_provider_name_read_at_run_time_gets_the_literals_flags(provider: str) -> None:
    assert detect_compat(_model(_read(provider))) == detect_compat(_model(provider))


def test_the_names_are_detected_at_all() -> None:
    unknown = detect_compat(_model("some-gateway"))
    detected = [p for p in PROVIDERS if detect_compat(_model(_read(p))) != unknown]
    assert detected == PROVIDERS
