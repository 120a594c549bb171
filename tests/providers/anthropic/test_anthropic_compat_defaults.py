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
