"""pi-ai 1.6's compat defaults for Anthropic Messages, per provider and host (issue 34).

Session affinity (OpenRouter's format) is on only for OpenRouter, named by the provider or by
an ``openrouter.ai`` base URL; message threads default to on only at ``api.anthropic.com``. A
sample (seed 20261205) loosened the provider comparison unnoticed: every provider id is read
here, those sorting before and after ``openrouter`` included.
"""

from __future__ import annotations

import pytest
from pi_sdk_anthropic.messages._compat import resolve_anthropic_compat

from pi_sdk import Model

CASES = {  # provider: (base URL, session affinity, message threads)
    "anthropic": ("https://api.anthropic.com", False, True),
    "amazon-bedrock": ("https://gateway.test", False, False),
    "openrouter": ("https://gateway.test", True, False),
    "zai": ("https://api.z.ai/api/anthropic", False, False),
    "my-gateway": ("https://openrouter.ai/api", True, False),
}


@pytest.mark.parametrize("provider", list(CASES))
def test_defaults_by_provider_and_host(provider: str) -> None:
    base_url, affinity, threads = CASES[provider]
    model = Model(id="m", api="anthropic-messages", provider=provider, base_url=base_url)
    compat = resolve_anthropic_compat(model)
    assert compat.send_session_affinity_headers is affinity
    assert compat.session_affinity_format == ("openrouter" if affinity else None)
    assert compat.supports_message_threads is threads


def _with_fallbacks(value: object) -> Model:
    return Model(
        id="m",
        api="anthropic-messages",
        provider="anthropic",
        compat={"allowedFallbackModels": value},
    )


def test_fallback_models_are_read_in_order() -> None:
    entries = [{"provider": "anthropic", "model": "claude-b"}, {"model": "claude-a"}]
    compat = resolve_anthropic_compat(_with_fallbacks(entries))
    assert compat.allowed_fallback_models == ("claude-b", "claude-a")


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("claude-a", "allowedFallbackModels must be a list, got 'claude-a'"),
        ({"model": "claude-a"}, "allowedFallbackModels must be a list, got {'model': 'claude-a'}"),
        (["claude-a"], "entries need a 'model' id, got 'claude-a'"),
        ([{"provider": "anthropic"}], "entries need a 'model' id, got {'provider': 'anthropic'}"),
        ([{"model": ""}], "entries need a 'model' id, got {'model': ''}"),
        ([{"model": 7}], "entries need a 'model' id, got {'model': 7}"),
        ([{"model": "claude-a"}, {"model": None}], "got {'model': None}"),
    ],
    ids=["a-string", "a-dict", "a-bare-id", "no-model", "empty-id", "not-text", "second-bad"],
)
def test_every_malformed_fallback_list_is_refused_naming_what_it_got(value: object, said: str):
    from pi_sdk import ConfigurationError

    with pytest.raises(ConfigurationError) as refused:
        resolve_anthropic_compat(_with_fallbacks(value))
    assert str(refused.value).startswith("model.compat: allowedFallbackModels")
    assert said in str(refused.value)
