"""Azure's Chat Completions implementation serves Azure's providers only.

pi-sdk-azure registers its own ``openai-completions`` implementation (Azure's endpoint and
auth) for the ``azure`` and ``azure-openai`` providers. Another provider's Chat Completions
model must never go through it, even in a collection where no other implementation of the API
is present: it has none there rather than Azure's.
"""

from __future__ import annotations

import pytest
from pi_sdk_azure import AZURE_CHAT_COMPLETIONS, AZURE_OPENAI_RESPONSES, PROVIDERS

import pi_sdk


def test_only_azure_providers_get_azure_chat_completions() -> None:
    models = pi_sdk.Models(list(PROVIDERS))
    for own in ("azure", "azure-openai"):
        assert models.api_provider("openai-completions", own) is AZURE_CHAT_COMPLETIONS
    with pytest.raises(pi_sdk.ProviderNotFoundError):
        models.api_provider("openai-completions", "vllm")
    # The Responses implementation is Azure's own API id: anyone's model of it may use it.
    assert models.api_provider("azure-openai-responses", "vllm") is AZURE_OPENAI_RESPONSES
