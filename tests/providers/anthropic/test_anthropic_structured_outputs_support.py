"""Which Claude models take structured outputs (``output_config.format``), and the compat flag.

Claude Opus 4.1 and the 4.5 generation and later do (Anthropic docs, "Structured outputs");
the others get a forced tool. ``model.compat["supportsStructuredOutputs"]`` wins both ways.
"""

from __future__ import annotations

import pytest
from pi_sdk_anthropic._client import supports_structured_outputs

from pi_sdk import Model


def _model(model_id: str, **compat: object) -> Model:
    return Model(id=model_id, api="anthropic-messages", provider="anthropic",
                 compat=compat or None)  # fmt: skip


@pytest.mark.parametrize(
    ("model_id", "supported"),
    [
        ("claude-opus-4-1-20250805", True),
        ("claude-opus-4-20250514", False),
        ("claude-sonnet-4-5-20250929", True),
        ("claude-sonnet-4-20250514", False),
        ("claude-haiku-4-5", True),
        ("claude-3-7-sonnet-20250219", False),
        ("claude-sonnet-4-4", False),  # just under the 4.5 generation
        ("claude-opus-4-0", False),  # just under Opus 4.1
        ("claude-opus-4-6", True),
        ("claude-sonnet-5", True),
        ("some-gateway-model", False),
    ],
)
def test_by_model_id(model_id: str, supported: bool) -> None:
    assert supports_structured_outputs(_model(model_id)) is supported


@pytest.mark.parametrize("flag", [True, False])
def test_the_compat_flag_wins_both_ways(flag: bool) -> None:
    assert (
        supports_structured_outputs(_model("claude-sonnet-4-5", supportsStructuredOutputs=flag))
        is flag
    )
    assert (
        supports_structured_outputs(_model("claude-3-haiku", supportsStructuredOutputs=flag))
        is flag
    )
