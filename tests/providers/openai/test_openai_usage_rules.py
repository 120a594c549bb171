"""OpenAI usage objects as pi's usage, every field and fallback (pi-ai 1.6 ``parseChunkUsage``,
``applyServiceTierPricing``).

Chat Completions: ``input`` = ``prompt_tokens`` less the cached tokens
(``prompt_tokens_details.cached_tokens``, else DeepSeek's ``prompt_cache_hit_tokens``), never
below 0; ``reasoning`` from ``completion_tokens_details.reasoning_tokens``, else a top-level
``reasoning_tokens``, else 0. Responses: the same from ``input_tokens`` /
``input_tokens_details`` / ``output_tokens_details``, and the cost multiplied by the service
tier's factor (the response's tier, else the requested one): flex 0.5, priority 2, others 1.
"""

from __future__ import annotations

from typing import Any

import pytest
from pi_sdk_openai.completions._usage import apply_usage
from pi_sdk_openai.responses._usage import report_usage

from pi_sdk import Model
from pi_sdk.provider import MessageBuilder

MODEL = Model(
    id="m",
    api="openai-responses",
    provider="openai",
    cost={"input": 1.0, "output": 2.0, "cache_read": 0.5, "cache_write": 0.0},
)


def _builder() -> MessageBuilder:
    builder = MessageBuilder(MODEL)
    builder.start()
    return builder


@pytest.mark.parametrize(
    ("usage", "expected"),  # expected: input, output, cache_read, reasoning
    [
        ({"prompt_tokens": 10, "completion_tokens": 5}, (10, 5, 0, 0)),
        ({}, (0, 0, 0, 0)),
        ({"prompt_tokens": None, "completion_tokens": None}, (0, 0, 0, 0)),
        ({"prompt_tokens": 10, "prompt_tokens_details": {"cached_tokens": 4}}, (6, 0, 4, 0)),
        ({"prompt_tokens": 10, "prompt_cache_hit_tokens": 3}, (7, 0, 3, 0)),
        (
            {
                "prompt_tokens": 10,
                "prompt_tokens_details": {"cached_tokens": 4},
                "prompt_cache_hit_tokens": 3,
            },
            (6, 0, 4, 0),
        ),
        (
            {
                "prompt_tokens": 10,
                "prompt_tokens_details": {"cached_tokens": 0},
                "prompt_cache_hit_tokens": 3,
            },
            (7, 0, 3, 0),
        ),
        ({"prompt_tokens": 2, "prompt_tokens_details": {"cached_tokens": 5}}, (0, 0, 5, 0)),
        (
            {"completion_tokens": 9, "completion_tokens_details": {"reasoning_tokens": 6}},
            (0, 9, 0, 6),
        ),
        ({"completion_tokens": 9, "reasoning_tokens": 2}, (0, 9, 0, 2)),
        (
            {
                "completion_tokens": 9,
                "completion_tokens_details": {"reasoning_tokens": 6},
                "reasoning_tokens": 2,
            },
            (0, 9, 0, 6),
        ),
        ({"completion_tokens": 9, "completion_tokens_details": None}, (0, 9, 0, 0)),
    ],
)
def test_chat_completions_usage(usage: dict[str, Any], expected: tuple[int, ...]) -> None:
    builder = _builder()
    apply_usage(builder, usage)
    got = builder.message.usage
    assert (got.input, got.output, got.cache_read, got.reasoning, got.cache_write) == (*expected, 0)


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ({"input_tokens": 10, "output_tokens": 5}, (10, 5, 0, 0)),
        ({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 4}}, (6, 0, 4, 0)),
        ({"input_tokens": 1, "input_tokens_details": {"cached_tokens": 4}}, (0, 0, 4, 0)),
        ({"output_tokens": 8, "output_tokens_details": {"reasoning_tokens": 3}}, (0, 8, 0, 3)),
        ({"output_tokens": 8, "output_tokens_details": {}}, (0, 8, 0, 0)),
        ({"input_tokens": None, "output_tokens": None}, (0, 0, 0, 0)),
    ],
)
def test_responses_usage(usage: dict[str, Any], expected: tuple[int, ...]) -> None:
    builder = _builder()
    assert report_usage(builder, {"usage": usage}, None) is True
    got = builder.message.usage
    assert (got.input, got.output, got.cache_read, got.reasoning, got.cache_write) == (*expected, 0)


@pytest.mark.parametrize("response", [{}, {"usage": None}, {"usage": {}}, {"usage": "x"}])
def test_responses_without_usage_report_none(response: dict[str, Any]) -> None:
    builder = _builder()
    assert report_usage(builder, response, "flex") is False
    assert builder.message.usage.input == 0 and builder.message.usage.cost.total == 0


@pytest.mark.parametrize(
    ("served", "requested", "factor"),
    [
        (None, None, 1.0),
        ("flex", None, 0.5),
        ("priority", None, 2.0),
        ("default", None, 1.0),
        ("auto", "flex", 1.0),  # the response's tier wins
        (None, "flex", 0.5),
        (None, "priority", 2.0),
        ("", "priority", 2.0),
        (None, 3, 1.0),
        ("scale", "priority", 1.0),
    ],
)
def test_the_cost_follows_the_service_tier(served: Any, requested: Any, factor: float) -> None:
    builder = _builder()
    usage = {"input_tokens": 1_000_000, "output_tokens": 1_000_000}
    response: dict[str, Any] = {"usage": usage}
    if served is not None:
        response["service_tier"] = served
    report_usage(builder, response, requested)
    cost = builder.message.usage.cost
    assert (cost.input, cost.output, cost.total) == (1.0 * factor, 2.0 * factor, 3.0 * factor)
