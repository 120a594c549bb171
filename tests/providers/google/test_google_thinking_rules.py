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


def _pi_budgets(module: str) -> dict[str, dict[str, int]]:
    """pi-ai 1.6's ``getGoogleBudget`` table in ``dist/api/<module>.js``: ``{id part: budgets}``."""
    import re

    from _support.pi16_source import API_DIR

    source = (API_DIR / f"{module}.js").read_text("utf-8")
    body = source[source.index("function getGoogleBudget(") :]
    body = body[: body.index("\n}\n")]
    found = re.findall(r'model\.id\.includes\("([^"]+)"\)\) \{\s*const budgets = \{([^}]*)\}', body)
    return {
        part: {k: int(v) for k, v in re.findall(r"(\w+): (\d+)", table)} for part, table in found
    }


def test_every_budget_family_sends_pi_ai_s_budget_for_every_level() -> None:
    """One table serves both APIs: pi-ai 1.6's Gemini API table. pi-ai's Vertex table is the
    same without its Flash-Lite row, so there Flash-Lite falls to 2.5 Flash's minimal 128,
    under Flash-Lite's 512 floor (Google's thinking guide); pi-sdk keeps 512 on Vertex too."""
    from _support.pi16_source import SKIP_REASON, installed

    if not (installed("google-generative-ai") and installed("google-vertex")):
        pytest.skip(SKIP_REASON)
    families = _pi_budgets("google-generative-ai")
    assert set(families) == {"2.5-pro", "2.5-flash-lite", "2.5-flash"}
    vertex = _pi_budgets("google-vertex")
    assert vertex == {part: families[part] for part in ("2.5-pro", "2.5-flash")}
    for part, budgets in families.items():
        assert set(budgets) == {"minimal", "low", "medium", "high"}
        for level, budget in budgets.items():
            for api in ("google-generative-ai", "google-vertex"):
                model = _model(f"gemini-{part}-preview").model_copy(update={"api": api})
                sent = thinking_config(model, StreamOptions(reasoning=level))  # pyright: ignore[reportArgumentType]
                assert sent == {"includeThoughts": True, "thinkingBudget": budget}, (
                    api,
                    part,
                    level,
                )
    # An id of no family: the vendor's own dynamic budget
    sent = thinking_config(_model("gemini-2.0-thinking"), StreamOptions(reasoning="high"))
    assert sent == {"includeThoughts": True, "thinkingBudget": -1}
