"""``UsageLimits`` / ``RunUsage`` (``pi_sdk/_wire/usage_limits.py``) check by check: what each
check counts, where a limit is reached and where passed, which check is named first, and the
settings refused at construction."""

from __future__ import annotations

from typing import Any

import pytest

from pi_sdk import Cost, Usage
from pi_sdk._wire.usage_limits import RunUsage, UsageLimits


def test_a_reply_counts_its_cache_as_input_and_its_billed_cost() -> None:
    used = RunUsage()
    usage = Usage(input=100, output=20, cache_read=30, cache_write=7, cost=Cost(total=0.5))
    used.add_reply(usage)
    used.add_reply(usage)
    assert (used.input_tokens, used.output_tokens, used.total_tokens) == (274, 40, 314)
    assert used.cost_usd == pytest.approx(1.0)
    assert (used.requests, used.tool_calls) == (0, 0)  # counted by the loop, not by a reply


@pytest.mark.parametrize(
    ("limits", "used", "estimate", "passed"),
    [
        (UsageLimits(request_limit=3), RunUsage(requests=2), 0, None),  # the 3rd is allowed
        (UsageLimits(request_limit=3), RunUsage(requests=3), 0, ("request_limit", 3, 4)),
        (UsageLimits(input_tokens_limit=100), RunUsage(input_tokens=60), 40, None),
        (
            UsageLimits(input_tokens_limit=100),
            RunUsage(input_tokens=60),
            41,
            ("input_tokens_limit", 100, 101),
        ),
        (
            UsageLimits(total_tokens_limit=100),
            RunUsage(input_tokens=30, output_tokens=30),
            41,
            ("total_tokens_limit", 100, 101),
        ),
        (UsageLimits(total_tokens_limit=100), RunUsage(output_tokens=60), 40, None),
        # Output and cost: reaching the limit already stops the next request.
        (UsageLimits(output_tokens_limit=50), RunUsage(output_tokens=49), 0, None),
        (
            UsageLimits(output_tokens_limit=50),
            RunUsage(output_tokens=50),
            0,
            ("output_tokens_limit", 50, 50),
        ),
        (UsageLimits(cost_limit_usd=0.5), RunUsage(cost_usd=0.49), 0, None),
        (UsageLimits(cost_limit_usd=0.5), RunUsage(cost_usd=0.5), 0, ("cost_limit_usd", 0.5, 0.5)),
        (UsageLimits(tool_calls_limit=1), RunUsage(tool_calls=9), 0, None),  # not checked here
        (
            UsageLimits(request_limit=1, cost_limit_usd=0.1),
            RunUsage(requests=1, cost_usd=1.0),
            0,
            ("request_limit", 1, 2),  # the first check in order is named
        ),
        (
            UsageLimits(input_tokens_limit=10, output_tokens_limit=10),
            RunUsage(input_tokens=20, output_tokens=20),
            0,
            ("input_tokens_limit", 10, 20),
        ),
    ],
)
def test_before_a_request(
    limits: UsageLimits, used: RunUsage, estimate: int, passed: tuple[str, float, float] | None
) -> None:
    assert limits.before_request(used, estimate) == passed


def test_without_an_estimate_a_request_adds_no_input_tokens() -> None:
    at_the_limit = RunUsage(input_tokens=100)
    assert UsageLimits(input_tokens_limit=100).before_request(at_the_limit) is None
    assert UsageLimits(total_tokens_limit=100).before_request(at_the_limit) is None
    assert UsageLimits(input_tokens_limit=100).before_request(at_the_limit, 1) == (
        "input_tokens_limit",
        100,
        101,
    )


@pytest.mark.parametrize(
    ("limits", "used", "passed"),
    [
        (UsageLimits(input_tokens_limit=100), RunUsage(input_tokens=100), None),  # reached only
        (
            UsageLimits(input_tokens_limit=100),
            RunUsage(input_tokens=101),
            ("input_tokens_limit", 100, 101),
        ),
        (UsageLimits(output_tokens_limit=50), RunUsage(output_tokens=50), None),
        (
            UsageLimits(output_tokens_limit=50),
            RunUsage(output_tokens=51),
            ("output_tokens_limit", 50, 51),
        ),
        (
            UsageLimits(total_tokens_limit=100),
            RunUsage(input_tokens=50, output_tokens=51),
            ("total_tokens_limit", 100, 101),
        ),
        (UsageLimits(cost_limit_usd=0.5), RunUsage(cost_usd=0.5), None),
        (UsageLimits(cost_limit_usd=0.5), RunUsage(cost_usd=0.51), ("cost_limit_usd", 0.5, 0.51)),
        (UsageLimits(request_limit=1), RunUsage(requests=5), None),  # not a reply's limit
        (
            UsageLimits(output_tokens_limit=1, total_tokens_limit=1),
            RunUsage(input_tokens=5, output_tokens=5),
            ("output_tokens_limit", 1, 5),  # output is checked before total
        ),
    ],
)
def test_after_a_reply(
    limits: UsageLimits, used: RunUsage, passed: tuple[str, float, float] | None
) -> None:
    assert limits.after_reply(used) == passed


@pytest.mark.parametrize(
    ("limit", "done", "calls", "passed"),
    [
        (None, 100, 100, None),
        (3, 1, 2, None),  # reaching the limit is allowed
        (3, 1, 3, ("tool_calls_limit", 3, 4)),
        (3, 0, 0, None),
    ],
)
def test_before_a_tool_batch(limit: int | None, done: int, calls: int, passed: Any) -> None:
    limits = UsageLimits(tool_calls_limit=limit)
    assert limits.before_tools(RunUsage(tool_calls=done), calls) == passed


@pytest.mark.parametrize(
    ("limits", "matters"),
    [
        (UsageLimits(), False),
        (UsageLimits(request_limit=1, output_tokens_limit=1, cost_limit_usd=1.0), False),
        (UsageLimits(input_tokens_limit=1), True),
        (UsageLimits(total_tokens_limit=1), True),
    ],
)
def test_the_request_estimate_matters_only_to_an_input_or_total_limit(
    limits: UsageLimits, matters: bool
) -> None:
    assert limits.limits_input is matters


def test_the_defaults_limit_nothing_and_count_before_a_request() -> None:
    limits = UsageLimits()
    assert limits.count_tokens_before_request is True and limits.count_tokens is None
    big = RunUsage(requests=10**6, input_tokens=10**9, output_tokens=10**9, cost_usd=1e6)
    assert limits.before_request(big, 10**9) is None and limits.after_reply(big) is None


@pytest.mark.parametrize(
    ("kwargs", "text"),
    [
        ({"cost_limit_usd": float("inf")}, "cost_limit_usd must be a positive number"),
        ({"cost_limit_usd": "1"}, "cost_limit_usd must be a positive number"),
        ({"request_limit": 2.0}, "request_limit must be an int; got 2.0"),
        ({"count_tokens": 5}, "count_tokens must be a callable"),
    ],
)
def test_settings_refused_at_construction(kwargs: dict[str, Any], text: str) -> None:
    with pytest.raises(ValueError, match=text):
        UsageLimits(**kwargs)


def test_settings_accepted_at_construction() -> None:
    async def count(*args: Any) -> int:
        return 1

    limits = UsageLimits(
        cost_limit_usd=0.25, request_limit=1, count_tokens=count, count_tokens_before_request=False
    )
    assert (limits.cost_limit_usd, limits.count_tokens) == (0.25, count)
    with pytest.raises(TypeError):
        UsageLimits(5)  # type: ignore[misc]  # keyword-only
