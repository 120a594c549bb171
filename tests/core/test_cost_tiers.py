"""calculate_cost at pi-ai 1.6: price tiers by request size, one-hour cache writes (issue 27).

Checked against the vendors' published prices, on the catalog's own entries where the catalog has
them: Anthropic's Claude Sonnet 4.5 (input $3/M, five-minute cache writes 1.25x = $3.75/M,
one-hour cache writes 2x = $6/M), Google's Gemini 2.5 Pro ($1.25/M in, $10/M out up to 200,000
input tokens; $2.50 and $15 above) and OpenAI's GPT-5.5 ($5 / $30, and $10 / $45 above 272,000).
pi-ai's own ``calculateCost`` gives the same numbers to the last bit on a table of cases
(tests/core/test_pi16_shapes.py).
"""

from __future__ import annotations

import pytest

import pi_sdk
from pi_sdk._wire.cost import calculate_cost
from pi_sdk.types import Cost, Model, ModelCost, ModelCostTier, Usage


def priced(model: Model, **tokens: int) -> Cost:
    usage = Usage(**tokens)
    calculate_cost(model, usage)
    return usage.cost


def test_a_one_hour_cache_write_costs_twice_the_input_price() -> None:
    sonnet = pi_sdk.get_model("anthropic", "claude-sonnet-4-5")
    assert (sonnet.cost.input, sonnet.cost.cache_write) == (3, 3.75)
    # A real reply: 3,000 tokens written to the cache, 2,000 of them with one-hour retention.
    # At the five-minute rate only (pi-sdk before pi 1.6) it came to 0.01125 USD.
    cost = priced(sonnet, cache_write=3000, cache_write_1h=2000)
    assert cost.cache_write == pytest.approx(0.01575)  # 1,000 x $3.75/M + 2,000 x $6/M
    assert cost.total == pytest.approx(0.01575)
    assert priced(sonnet, cache_write=3000).cache_write == pytest.approx(0.01125)
    every = priced(
        sonnet, input=10, output=100, cache_read=5000, cache_write=1000, cache_write_1h=1000
    )
    assert every.cache_write == pytest.approx(0.006)
    assert every.total == pytest.approx(0.00003 + 0.0015 + 0.0015 + 0.006)


def test_the_tier_of_the_request_size_prices_the_whole_request() -> None:
    pro = pi_sdk.get_model("google", "gemini-2.5-pro")
    assert pro.cost.tiers == [
        ModelCostTier(input_tokens_above=200_000, input=2.5, output=15, cache_read=0.25)
    ]
    small = priced(pro, input=150_000, output=1_000)
    assert (small.input, small.output) == (pytest.approx(0.1875), pytest.approx(0.01))
    large = priced(pro, input=250_000, output=1_000)
    assert (large.input, large.output) == (pytest.approx(0.625), pytest.approx(0.015))
    assert large.total == pytest.approx(0.64)
    # the size counts cached input too: 150,000 + 60,000 read from the cache is over 200,000
    cached = priced(pro, input=150_000, cache_read=60_000, output=1_000)
    assert (cached.input, cached.cache_read) == (pytest.approx(0.375), pytest.approx(0.015))
    at = priced(pro, input=200_000)  # "above": the threshold itself is the base price
    assert at.input == pytest.approx(0.25)


def test_gpt_5_5_long_context_prices() -> None:
    gpt = pi_sdk.get_model("openai", "gpt-5.5")
    assert priced(gpt, input=272_001, output=1000).total == pytest.approx(2.72001 + 0.045)
    assert priced(gpt, input=100_000, output=1000).total == pytest.approx(0.5 + 0.03)


def test_the_highest_threshold_passed_wins_whatever_the_tier_order() -> None:
    tiers = [
        ModelCostTier(input_tokens_above=200_000, input=5, output=22.5),
        ModelCostTier(input_tokens_above=100_000, input=4, output=20),
    ]
    model = Model(id="m", api="a", provider="p", cost=ModelCost(input=2.5, output=15, tiers=tiers))
    assert priced(model, input=150_000).input == pytest.approx(0.6)
    assert priced(model, input=250_000).input == pytest.approx(1.25)
    assert priced(model, input=50_000).input == pytest.approx(0.125)


def test_one_hour_writes_use_the_tier_input_price() -> None:
    tiers = [ModelCostTier(input_tokens_above=1000, input=6, cache_write=7.5)]
    model = Model(
        id="m", api="a", provider="p", cost=ModelCost(input=3, cache_write=3.75, tiers=tiers)
    )
    cost = priced(model, input=10, cache_write=2000, cache_write_1h=500)
    assert cost.cache_write == pytest.approx((1500 * 7.5 + 500 * 12) / 1e6)


def test_a_billed_total_mark_is_cleared_by_an_estimate() -> None:
    model = Model(id="m", api="a", provider="p", cost=ModelCost(input=1))
    usage = Usage(input=1000, cost=Cost(total=9.0, total_from_provider=True))
    calculate_cost(model, usage)
    assert usage.cost.total == pytest.approx(0.001)
    assert usage.cost.total_from_provider is None
    assert "totalFromProvider" not in usage.model_dump()["cost"]
    plain = Usage(input=1000)
    calculate_cost(model, plain)
    assert "totalFromProvider" not in plain.cost.model_dump()  # nothing new on the wire


def test_the_pi_names_of_the_new_usage_and_price_fields() -> None:
    usage = Usage.model_validate(
        {
            "input": 1,
            "output": 2,
            "cacheRead": 0,
            "cacheWrite": 4,
            "cacheWrite1h": 3,
            "reasoning": 1,
        }
    )
    assert (usage.cache_write_1h, usage.reasoning) == (3, 1)
    dumped = usage.model_dump()
    assert (dumped["cacheWrite1h"], dumped["reasoning"]) == (3, 1)
    assert "cacheWrite1H" not in dumped
    tier = ModelCostTier.model_validate({"inputTokensAbove": 5, "input": 1})
    assert tier.model_dump()["inputTokensAbove"] == 5
