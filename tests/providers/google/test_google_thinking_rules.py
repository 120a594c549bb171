"""Gemini ``thinkingConfig`` rules the per-family tables leave out (pi-ai 1.6 ``streamSimple``).

Which ids take ``thinkingLevel`` (Gemini 3 Pro/Flash, Gemini 4 and later, two-digit majors
included, Gemma 4 with or without the dash, the two ``-latest`` aliases); the explicit
``provider_options["thinking"]`` (level wins over a budget, neither gives thoughts alone, a
model without reasoning sends nothing, a value that is not a dict is refused); reasoning off on
a model whose level map supports ``off`` (``thinkingBudget: 0``) or names its lowest level.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_google._shared_thinking import thinking_config, uses_thinking_level

from pi_sdk import ConfigurationError, Model, StreamOptions


def _model(model_id: str, reasoning: bool = True, **fields: Any) -> Model:
    return Model(
        id=model_id, api="google-generative-ai", provider="google", reasoning=reasoning, **fields
    )


@pytest.mark.parametrize(
    ("model_id", "level"),
    [
        ("gemini-3-pro-preview", True),
        ("Gemini-3.1-Flash-Lite", True),
        ("gemini-4-hydrogen", True),
        ("gemini-12-x", True),
        ("gemma-4-31b-it", True),
        ("gemma4-e2b", True),
        ("gemini-flash-latest", True),
        ("gemini-flash-lite-latest", True),
        ("gemini-pro-latest", False),
        ("gemini-2.5-pro", False),
        ("gemini-3-nano", False),
        ("gemma-3-27b-it", False),
    ],
)
def test_which_models_take_a_thinking_level(model_id: str, level: bool) -> None:
    assert uses_thinking_level(_model(model_id)) is level


@pytest.mark.parametrize(
    ("thinking", "expected"),
    [
        ({}, {"includeThoughts": True}),
        ({"enabled": True}, {"includeThoughts": True}),
        ({"level": "low", "budget_tokens": 99}, {"includeThoughts": True, "thinkingLevel": "LOW"}),
        ({"budget_tokens": "64"}, {"includeThoughts": True, "thinkingBudget": 64}),
        ({"level": None, "budget_tokens": 7}, {"includeThoughts": True, "thinkingBudget": 7}),
        ({"enabled": False, "level": "high"}, {"thinkingBudget": 0}),
    ],
)
def test_the_explicit_thinking_option(thinking: dict[str, Any], expected: dict[str, Any]) -> None:
    options = StreamOptions(reasoning="high", provider_options={"thinking": thinking})
    assert thinking_config(_model("gemini-2.5-flash"), options) == expected
    assert thinking_config(_model("gemini-2.5-flash", reasoning=False), options) is None


@pytest.mark.parametrize("thinking", ["LOW", ["level"], True])
def test_an_explicit_thinking_option_that_is_not_a_dict_is_refused(thinking: Any) -> None:
    options = StreamOptions(provider_options={"thinking": thinking})
    with pytest.raises(ConfigurationError) as refused:
        thinking_config(_model("gemini-2.5-flash"), options)
    assert str(refused.value) == (
        "provider_options['thinking'] must be a dict like {'enabled': True, 'level': 'LOW'}"
    )


@pytest.mark.parametrize(
    ("level_map", "off"),
    [
        ({"off": "none", "low": "low", "high": "high"}, {"thinkingBudget": 0}),
        ({"off": None, "minimal": None, "low": "low", "high": "high"}, {"thinkingLevel": "LOW"}),
        ({"off": None, "minimal": "minimal", "high": "high"}, {"thinkingLevel": "MINIMAL"}),
        ({"off": None, "minimal": None, "low": "MEDIUM"}, {"thinkingLevel": "MEDIUM"}),
    ],
)
def test_reasoning_off_with_a_level_map(level_map: dict[str, Any], off: dict[str, Any]) -> None:
    model = _model("gemini-3-flash-preview", thinking_level_map=level_map)
    assert thinking_config(model, StreamOptions()) == off


def test_a_budget_model_with_a_level_map_turns_off_with_a_budget() -> None:
    model = _model("gemini-2.5-flash", thinking_level_map={"off": None, "minimal": "minimal"})
    assert thinking_config(model, StreamOptions()) == {"thinkingBudget": 0}
