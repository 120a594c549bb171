"""What every wire and settings type holds when a field is left out, whole.

A price, a count or a flag left out of a catalog entry, a transcript line or a constructor call
takes its default; a JSON file written by another tool (pi-mono's catalog tiers name only the
prices that differ) relies on it. These rows show each type's defaults in one value.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import pi_sdk
from pi_sdk._wire.agent_types import AgentToolResult, BeforeToolCallResult
from pi_sdk._wire.cost import calculate_cost
from pi_sdk._wire.loop_config import AgentLoopConfig
from pi_sdk._wire.pi_messages import PiCustomMessage
from pi_sdk._wire.retry_policy import RetryPolicy
from pi_sdk._wire.usage_limits import RunUsage, UsageLimits
from pi_sdk.types import Cost, ModelCost, ModelCostTier, NestedToolCalls, Usage

COST = {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0}


@pytest.mark.parametrize(
    ("made", "dumped"),
    [
        (ModelCostTier(input_tokens_above=1000), {"inputTokensAbove": 1000, **COST}),
        (
            ModelCostTier.model_validate_json('{"inputTokensAbove": 5}'),
            {"inputTokensAbove": 5, **COST},
        ),
        (ModelCost(), COST),
        (ModelCost.model_validate_json("{}"), COST),
        (Cost(), {**COST, "total": 0.0}),
        (
            Usage(),
            {
                "input": 0,
                "output": 0,
                "cacheRead": 0,
                "cacheWrite": 0,
                "totalTokens": 0,
                "cost": {**COST, "total": 0.0},
            },
        ),
        (NestedToolCalls(), {"calls": [], "complete": True}),
    ],
    ids=["tier", "tier from JSON", "cost", "cost from JSON", "call cost", "usage", "nested calls"],
)
def test_a_wire_type_s_defaults(made: Any, dumped: dict[str, Any]) -> None:
    assert made.model_dump(mode="json") == dumped
    assert all(type(v) is type(dumped[k]) for k, v in made.model_dump(mode="json").items())


def test_a_tier_that_names_only_its_input_price_prices_the_rest_at_zero() -> None:
    model = pi_sdk.Model(
        id="m",
        api="a",
        provider="p",
        cost=ModelCost.model_validate(
            {"input": 1, "output": 2, "tiers": [{"inputTokensAbove": 10, "input": 3}]}
        ),
    )
    usage = Usage(input=1_000_000, output=1_000_000)
    calculate_cost(model, usage)
    assert (usage.cost.input, usage.cost.output, usage.cost.total) == (3.0, 0.0, 3.0)


def test_a_model_s_defaults() -> None:
    model = pi_sdk.Model(id="m", api="a", provider="p")
    assert (model.reasoning, model.context_window, model.max_tokens) == (False, 128_000, 16_384)


def test_messages_defaults() -> None:
    result = pi_sdk.ToolResultMessage(tool_call_id="c", tool_name="t", timestamp=1)
    assert result.is_error is False
    custom = PiCustomMessage(custom_type="x", content="y", timestamp=1)
    assert custom.display is True


@pytest.mark.parametrize(
    ("made", "fields"),
    [
        (
            RetryPolicy(),
            {
                "max_retries": 3,
                "base_delay_ms": 2000,
                "max_delay_ms": 60_000,
                "jitter": 0.25,
                "honour_retry_after": True,
                "retry_on": None,
                "enabled": True,
            },
        ),
        (
            RunUsage(),
            {
                "requests": 0,
                "input_tokens": 0,
                "output_tokens": 0,
                "cost_usd": 0.0,
                "tool_calls": 0,
            },
        ),
        (
            UsageLimits(),
            {
                "request_limit": None,
                "input_tokens_limit": None,
                "output_tokens_limit": None,
                "total_tokens_limit": None,
                "cost_limit_usd": None,
                "tool_calls_limit": None,
                "count_tokens_before_request": True,
                "count_tokens": None,
            },
        ),
        (
            AgentToolResult(),
            {
                "content": [],
                "details": None,
                "terminate": False,
                "is_error": False,
                "structured_content": None,
                "usage": None,
            },
        ),
        (BeforeToolCallResult(), {"block": False, "reason": None, "terminate": False}),
    ],
    ids=lambda v: type(v).__name__ if not isinstance(v, dict) else "",
)
def test_a_settings_type_s_defaults(made: Any, fields: dict[str, Any]) -> None:
    found = {f.name: getattr(made, f.name) for f in dataclasses.fields(made)}
    assert found == fields
    assert all(type(found[k]) is type(v) for k, v in fields.items())


def test_the_stream_and_loop_settings_defaults() -> None:
    options = pi_sdk.StreamOptions()
    assert (
        options.max_retries,
        options.max_retry_delay_ms,
        options.timeout_ms,
        options.idle_timeout_ms,
    ) == (2, 60_000, 600_000, 300_000)
    config = AgentLoopConfig(model=pi_sdk.Model(id="m", api="a", provider="p"))
    assert config.tool_abort_grace_ms == 2000
