"""Every Chat Completions thinking format, reasoning on and off, per level-map shape (pi-ai 1.6).

``add_reasoning`` writes each server's own fields (pi-ai 1.6 ``buildParams``): the table gives
the whole set of fields per format for reasoning ``high`` and off, on a model without a level
map (``-``), one that maps ``off`` and ``high`` to strings (``str``), and one whose ``off`` is
``null`` (cannot be turned off: ``null``). ``reasoning_effort`` goes only where
``supports_reasoning_effort``; a model without reasoning gets nothing; the budget field is the
level's budget fitted under the output cap with 1,024 tokens left for the answer.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_openai.completions._compat import CompletionsCompat
from pi_sdk_openai.completions._reasoning_switch import add_reasoning, thinking_budget

from pi_sdk import Model, StreamOptions

MAPS: dict[str, dict[str, Any] | None] = {
    "-": None,
    "str": {"off": "off-v", "high": "h-v"},
    "null": {"off": None},
}
ON = {"type": "enabled", "clear_thinking": False}

CASES: list[tuple[str, str | None, str, dict[str, Any]]] = [
    ("openai", "high", "-", {"reasoning_effort": "high"}),
    ("openai", "high", "str", {"reasoning_effort": "h-v"}),
    ("openai", None, "-", {}),
    ("openai", None, "str", {"reasoning_effort": "off-v"}),
    ("openai", None, "null", {}),
    ("zai", "high", "-", {"thinking": ON, "reasoning_effort": "high"}),
    ("zai", "high", "str", {"thinking": ON, "reasoning_effort": "h-v"}),
    ("zai", None, "str", {"thinking": {"type": "disabled"}}),
    ("qwen", "high", "-", {"enable_thinking": True, "reasoning_effort": "high"}),
    ("qwen", "high", "str", {"enable_thinking": True, "reasoning_effort": "h-v"}),
    ("qwen", None, "-", {"enable_thinking": False}),
    ("qwen-chat-template", "high", "-",
     {"chat_template_kwargs": {"enable_thinking": True, "preserve_thinking": True}}),
    ("qwen-chat-template", None, "-",
     {"chat_template_kwargs": {"enable_thinking": False, "preserve_thinking": True}}),
    ("deepseek", "high", "-", {"thinking": {"type": "enabled"}, "reasoning_effort": "high"}),
    ("deepseek", None, "-", {"thinking": {"type": "disabled"}}),
    ("deepseek", None, "str", {"thinking": {"type": "disabled"}}),
    ("deepseek", None, "null", {}),
    ("openrouter", "high", "-", {"reasoning": {"effort": "high"}}),
    ("openrouter", "high", "str", {"reasoning": {"effort": "h-v"}}),
    ("openrouter", None, "-", {"reasoning": {"effort": "none"}}),
    ("openrouter", None, "str", {"reasoning": {"effort": "off-v"}}),
    ("openrouter", None, "null", {}),
    ("ant-ling", "high", "-", {}),
    ("ant-ling", "high", "str", {"reasoning": {"effort": "h-v"}}),
    ("ant-ling", None, "str", {"reasoning_effort": "off-v"}),  # pi-ai's last branch
    ("together", "high", "-", {"reasoning": {"enabled": True}, "reasoning_effort": "high"}),
    ("together", None, "-", {"reasoning": {"enabled": False}}),
    ("string-thinking", "high", "-", {"thinking": "high"}),
    ("string-thinking", "high", "str", {"thinking": "h-v"}),
    ("string-thinking", None, "-", {"thinking": "none"}),
    ("string-thinking", None, "str", {"thinking": "off-v"}),
    ("string-thinking", None, "null", {}),
    ("baseten", "high", "-", {"reasoning_effort": "high"}),
    ("baseten", None, "-", {}),
    ("baseten", None, "str", {"reasoning_effort": "off-v"}),
]  # fmt: skip


def _model(level_map: str, reasoning: bool = True) -> Model:
    return Model(
        id="m",
        api="openai-completions",
        provider="acme",
        reasoning=reasoning,
        max_tokens=32_000,
        thinking_level_map=MAPS[level_map],
    )


def _fields(fmt: Any, effort: str | None, level_map: str, **compat: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {}
    flags = CompletionsCompat(thinking_format=fmt, **compat)
    add_reasoning(payload, _model(level_map), flags, effort, StreamOptions())
    return payload


@pytest.mark.parametrize(("fmt", "effort", "level_map", "expected"), CASES)
def test_each_format(fmt: str, effort: str | None, level_map: str, expected: dict[str, Any]):
    assert _fields(fmt, effort, level_map) == expected


@pytest.mark.parametrize(("fmt", "effort", "level_map", "expected"), CASES)
def test_without_reasoning_effort_support(
    fmt: str, effort: str | None, level_map: str, expected: dict[str, Any]
) -> None:
    fields = _fields(fmt, effort, level_map, supports_reasoning_effort=False)
    if fmt in ("openai", "baseten", "zai", "qwen", "deepseek", "together", "ant-ling"):
        expected = {k: v for k, v in expected.items() if k != "reasoning_effort"}
    assert fields == expected


@pytest.mark.parametrize("fmt", sorted({case[0] for case in CASES}))
def test_a_model_without_reasoning_gets_nothing(fmt: Any) -> None:
    payload: dict[str, Any] = {}
    flags = CompletionsCompat(thinking_format=fmt, supports_thinking_token_budget=True)
    add_reasoning(payload, _model("str", reasoning=False), flags, "high", StreamOptions())
    assert payload == {}


def test_the_compat_effort_map_after_the_models_map() -> None:
    flags = CompletionsCompat(reasoning_effort_map={"high": "default", "low": "lo"})
    payload: dict[str, Any] = {}
    add_reasoning(payload, _model("str"), flags, "high", StreamOptions())
    assert payload == {"reasoning_effort": "h-v"}  # the model's map first
    payload = {}
    add_reasoning(payload, _model("-"), flags, "high", StreamOptions())
    assert payload == {"reasoning_effort": "default"}


@pytest.mark.parametrize(
    ("effort", "ceiling", "budgets", "expected"),
    [
        ("high", 32_000, None, 16_384),
        ("xhigh", 32_000, None, 16_384),
        ("max", 32_000, None, 16_384),
        ("minimal", 32_000, None, 1_024),
        ("low", 32_000, {"low": 500}, 500),
        ("high", 2_000, None, 976),
        ("high", 1_024, None, None),
        ("high", 1_025, None, 1),
        (None, 32_000, None, None),
    ],
)
def test_the_budget_under_the_cap(
    effort: str | None, ceiling: int, budgets: dict[str, int] | None, expected: int | None
) -> None:
    options = StreamOptions(thinking_budgets=budgets)  # type: ignore[arg-type]
    assert thinking_budget(_model("-"), options, effort, ceiling) == expected


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"max_tokens": 3_000}, 1_976),
        ({"max_completion_tokens": 5_000}, 3_976),
        ({}, 16_384),  # the model's 32,000
    ],
)
def test_the_budget_field_reads_the_request_cap(payload: dict[str, Any], expected: int) -> None:
    flags = CompletionsCompat(supports_thinking_token_budget=True)
    add_reasoning(payload, _model("-"), flags, "high", StreamOptions())
    assert payload["thinking_token_budget"] == expected
    off: dict[str, Any] = {}
    add_reasoning(off, _model("-"), flags, None, StreamOptions())
    assert "thinking_token_budget" not in off
