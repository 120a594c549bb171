"""Bedrock ``additionalModelRequestFields`` for reasoning, whole, per model family and option.

pi-ai 1.6 ``buildAdditionalModelRequestFields``: Claude with a token budget (``thinking:
{type: enabled, budget_tokens}`` plus the interleaved-thinking beta unless
``provider_options["interleaved_thinking"]`` is false) or adaptive (Opus/Sonnet 4.6+:
``thinking: {type: adaptive}`` plus ``output_config.effort``); ``thinking.display`` is
``"summarized"`` unless ``thinking_display`` says otherwise (``None`` leaves it out) and is never
sent in GovCloud; Opus 4.7+ binds signed thinking (``block_binding`` plus its beta) outside
GovCloud. No reasoning level, a model without reasoning, or a model of another family (Nova)
sends no fields. The whole dict is compared, so a field that must be absent is checked too.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_bedrock.converse import build_request

import pi_sdk
from pi_sdk import Context, StreamOptions

INTERLEAVED = ["interleaved-thinking-2025-05-14"]
BINDING = {"prefix_mismatch_behavior": "drop_block"}


def _model(model_id: str, reasoning: bool = True) -> pi_sdk.Model:
    return pi_sdk.Model(
        id=model_id,
        name="",
        api="bedrock-converse-stream",
        provider="amazon-bedrock",
        base_url="https://bedrock-runtime.us-east-1.amazonaws.com",
        reasoning=reasoning,
        max_tokens=64_000,
        context_window=200_000,
    )


def _fields(model: pi_sdk.Model, **options: Any) -> Any:
    body = build_request(model, Context(), StreamOptions(max_tokens=32_000, **options))
    return body.get("additionalModelRequestFields")


SONNET_45 = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"


@pytest.mark.parametrize(
    ("level", "budget"),
    [("minimal", 1024), ("low", 2048), ("medium", 8192), ("high", 16384), ("xhigh", 16384)],
)
def test_budget_claude_by_level(level: str, budget: int) -> None:
    assert _fields(_model(SONNET_45), reasoning=level) == {
        "thinking": {"type": "enabled", "budget_tokens": budget, "display": "summarized"},
        "anthropic_beta": INTERLEAVED,
    }


@pytest.mark.parametrize(
    ("extra", "thinking", "beta"),
    [
        ({"interleaved_thinking": False}, {"display": "summarized"}, None),
        ({"interleaved_thinking": True}, {"display": "summarized"}, INTERLEAVED),
        ({"thinking_display": "omitted"}, {"display": "omitted"}, INTERLEAVED),
        ({"thinking_display": None}, {}, INTERLEAVED),
    ],
)
def test_budget_claude_options(extra: dict[str, Any], thinking: dict[str, Any], beta: Any) -> None:
    expected: dict[str, Any] = {"thinking": {"type": "enabled", "budget_tokens": 2048, **thinking}}
    if beta is not None:
        expected["anthropic_beta"] = beta
    assert _fields(_model(SONNET_45), reasoning="low", provider_options=extra) == expected


def test_a_budget_of_its_own_wins() -> None:
    fields = _fields(_model(SONNET_45), reasoning="medium", thinking_budgets={"medium": 5000})
    assert fields["thinking"]["budget_tokens"] == 5000


def test_adaptive_claude_without_binding() -> None:
    assert _fields(_model("anthropic.claude-sonnet-4-6"), reasoning="medium") == {
        "thinking": {"type": "adaptive", "display": "summarized"},
        "output_config": {"effort": "medium"},
    }
    omitted = {"thinking_display": "omitted"}
    fields = _fields(
        _model("anthropic.claude-sonnet-4-6"), reasoning="low", provider_options=omitted
    )
    assert fields == {
        "thinking": {"type": "adaptive", "display": "omitted"},
        "output_config": {"effort": "low"},
    }


def test_adaptive_claude_with_binding_and_in_govcloud() -> None:
    assert _fields(_model("us.anthropic.claude-opus-4-7"), reasoning="high") == {
        "thinking": {"type": "adaptive", "display": "summarized", "block_binding": BINDING},
        "output_config": {"effort": "high"},
        "anthropic_beta": ["thinking-binding-controls-2026-08-01"],
    }
    for gov in (
        "us-gov.anthropic.claude-opus-4-7",
        "arn:aws-us-gov:bedrock:us-gov-west-1::foundation-model/anthropic.claude-opus-4-7",
    ):
        assert _fields(_model(gov), reasoning="high") == {
            "thinking": {"type": "adaptive"},
            "output_config": {"effort": "high"},
        }


def test_budget_claude_in_govcloud_has_no_display() -> None:
    assert _fields(_model("us-gov.anthropic.claude-sonnet-4-5"), reasoning="low") == {
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "anthropic_beta": INTERLEAVED,
    }


@pytest.mark.parametrize(
    ("model", "options"),
    [
        (_model(SONNET_45), {}),  # no level
        (_model(SONNET_45, reasoning=False), {"reasoning": "high"}),
        (_model("us.amazon.nova-pro-v1:0"), {"reasoning": "high"}),
    ],
    ids=["no-level", "no-reasoning", "nova"],
)
def test_no_fields(model: pi_sdk.Model, options: dict[str, Any]) -> None:
    assert _fields(model, **options) is None
