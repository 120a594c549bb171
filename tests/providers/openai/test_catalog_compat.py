"""Every catalog Chat Completions model's compat flags are accepted (pi-ai 1.6.0's catalog).

748 catalog models speak Chat Completions and carry a ``compat`` object; every flag of pi-ai
1.6's ``OpenAICompletionsCompat`` (30, and the 11 thinking formats) resolves. The 20 models of
the providers whose thinking format came with 1.6 (``together``, ``baseten`` with its
``chatTemplateArgs``, ``ant-ling``) were strict xfails until issue 27 item 3; their request
bodies are checked in tests/providers/openai/test_completions_compat_16.py.
"""

from __future__ import annotations

import pytest
from pi_sdk_openai.completions._compat import resolve_compat

from pi_sdk.provider import load_models_json

CATALOG = [*load_models_json("pi_sdk_openai"), *load_models_json("pi_sdk_azure")]
MODELS = [m for m in CATALOG if m.api == "openai-completions" and m.compat]
NEW_FORMATS = {"together", "baseten", "ant-ling"}  # pi-ai 1.6 thinking formats of the catalog


def test_the_catalog_has_them_all() -> None:
    assert len([m for m in CATALOG if m.api == "openai-completions"]) == 748
    new = [m for m in MODELS if m.compat and m.compat.get("thinkingFormat") in NEW_FORMATS]
    assert len(new) == 20 and {m.provider for m in new} == NEW_FORMATS


@pytest.mark.parametrize("model", [pytest.param(m, id=f"{m.provider}/{m.id}") for m in MODELS])
def test_the_catalog_compat_resolves(model) -> None:  # noqa: ANN001
    compat = resolve_compat(model)  # raises ConfigurationError on an unknown flag or a bad value
    assert compat.thinking_format == (model.compat or {}).get(
        "thinkingFormat", compat.thinking_format
    )


def test_the_mid_conversation_flags_are_in_the_catalog_and_read() -> None:
    # Left out by the generator (UNREAD_COMPAT) until the resolver read them (issue 27 item 3).
    flagged = [m for m in MODELS if (m.compat or {}).get("supportsMidConvoSystemMessages")]
    assert flagged
    assert all(resolve_compat(m).supports_mid_convo_system_messages for m in flagged)
