"""Every catalog Chat Completions model's compat flags are accepted (pi-ai 0.73.1's flags).

71 catalog models carry a ``compat`` object; before the 0.73 flags were read, 22 of them failed
with an unknown flag (sendSessionAffinityHeaders, zaiToolStream,
requiresReasoningContentOnAssistantMessages, thinkingFormat "deepseek").
"""

from __future__ import annotations

import pytest
from pi_sdk_openai.completions._compat import resolve_compat

from pi_sdk.provider import load_models_json

CATALOG = load_models_json("pi_sdk_openai")
MODELS = [m for m in CATALOG if m.api == "openai-completions" and m.compat]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: f"{m.provider}/{m.id}")
def test_the_catalog_compat_resolves(model) -> None:
    resolve_compat(model)  # raises ConfigurationError on an unknown flag or a bad value
