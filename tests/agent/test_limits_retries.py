"""Usage limits per run and retries of a failed turn (issue 28 items 3 and 4)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from _support.agent import collect, config, isolated_plugins, roles, user  # noqa: F401
from _support.strings import built

import pi_sdk
from pi_sdk import AgentContext, AgentToolResult, ToolCall, agent_loop
from pi_sdk.agent import (
    RetryPolicy,
    UsageLimits,
    is_retryable_assistant_error,
    retry_assistant_call,
)
from pi_sdk.testing import ScriptedProvider, ScriptedReply

# --- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"request_limit": 0},
        {"tool_calls_limit": -1},
        {"cost_limit_usd": 0.0},
        {"input_tokens_limit": float("nan")},
        {"output_tokens_limit": 1.5},
        {"total_tokens_limit": True},
    ],
)
def test_a_limit_of_zero_negative_or_not_a_count_is_a_value_error(kwargs: dict[str, Any]) -> None:
    name = next(iter(kwargs))
    with pytest.raises(ValueError, match=name):
        UsageLimits(**kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [{"max_retries": -1}, {"base_delay_ms": -5}, {"max_delay_ms": float("inf")}, {"jitter": 2}],
)
def test_a_bad_retry_policy_is_a_value_error(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        RetryPolicy(**kwargs)


# --- usage limits ---------------------------------------------------------------------------


class Looper:
    """A scripted model that calls a tool on every turn, forever; each reply reports usage."""

    def __init__(self) -> None:
        self.provider = ScriptedProvider([])
        self.tool_runs = 0

    def stream_fn(self, model: Any, context: Any, options: Any) -> Any:
        n = len(self.provider.calls) + 1
        usage = pi_sdk.Usage(input=100, output=50, total_tokens=150)
        usage.cost.total = 0.01
        self.provider.add(
            ScriptedReply(content=[ToolCall(id=f"c{n}", name="step", arguments={})], usage=usage)
        )
        return self.provider.stream_fn(model, context, options)

    def agent(self, limits: UsageLimits) -> pi_sdk.Agent:
        async def step(call_id: str, args: Any, signal: Any, on_update: Any) -> AgentToolResult:
            self.tool_runs += 1
            return AgentToolResult.text("again")

        tool = pi_sdk.AgentTool(name="step", execute=step)
        return pi_sdk.Agent(
            model=self.provider.model, tools=[tool], stream_fn=self.stream_fn, usage_limits=limits
        )


def _limit_of(message: Any) -> dict[str, Any]:
    assert message.stop_reason == "error"
    (diagnostic,) = message.diagnostics
    assert diagnostic.type == "usage_limit"
    return diagnostic.details


def _every_call_answered(messages: Any) -> bool:
    asked = [c.id for m in messages if isinstance(m, pi_sdk.AssistantMessage) for c in m.tool_calls]
    answered = [m.tool_call_id for m in messages if isinstance(m, pi_sdk.ToolResultMessage)]
    return asked == answered


@pytest.mark.parametrize(
    ("limits", "name", "requests", "tool_runs"),
    [
        (UsageLimits(request_limit=3), "request_limit", 3, 3),
        (UsageLimits(tool_calls_limit=2), "tool_calls_limit", 3, 2),
        (UsageLimits(output_tokens_limit=120), "output_tokens_limit", 3, 2),
        (
            UsageLimits(input_tokens_limit=250, count_tokens_before_request=False),
            "input_tokens_limit",
            3,
            2,
        ),
        (UsageLimits(total_tokens_limit=400), "total_tokens_limit", 2, 2),
        (UsageLimits(cost_limit_usd=0.025), "cost_limit_usd", 3, 2),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
async def test_a_looping_agent_stops_at_each_limit_and_continues_when_raised(
    limits: UsageLimits, name: str, requests: int, tool_runs: int
) -> None:
    looper = Looper()
    agent = looper.agent(limits)
    await asyncio.wait_for(agent.prompt("loop"), timeout=10)
    last = agent.state.messages[-1]
    details = _limit_of(last)
    assert details["limit"] == name and details["used"] > details["max"]
    assert f"UsageLimits.{name}" in last.error_message  # type: ignore[union-attr]
    assert len(looper.provider.calls) == requests and looper.tool_runs == tool_runs
    assert agent.state.error == last.error_message  # type: ignore[union-attr]
    assert _every_call_answered(agent.state.messages)
    kept = len(agent.state.messages)

    # raised: the same transcript goes on (a new run counts from zero)
    agent.usage_limits = UsageLimits(request_limit=requests + 2)
    await asyncio.wait_for(agent.continue_(), timeout=10)
    assert len(looper.provider.calls) == requests + requests + 2
    assert len(agent.state.messages) > kept and agent.state.messages[kept - 1] is last
    assert _limit_of(agent.state.messages[-1])["limit"] == "request_limit"


async def test_the_input_estimate_stops_a_request_before_it_is_sent() -> None:
    provider = ScriptedProvider(["never"])
    cfg = config(provider, usage_limits=UsageLimits(input_tokens_limit=10))
    events = await collect(
        agent_loop([user("word " * 200)], AgentContext(), cfg, stream_fn=provider.stream_fn)
    )
    details = _limit_of(events[-1].messages[-1])  # type: ignore[union-attr]
    assert provider.calls == [] and details["limit"] == "input_tokens_limit"
    assert details["used"] >= 200


# --- retries ----------------------------------------------------------------------------------


def _failure(text: str, **diagnostic: Any) -> pi_sdk.AssistantMessage:
    message = pi_sdk.AssistantMessage(api="openai-responses", provider="openai", model="m")
    message.stop_reason, message.error_message = "error", text
    if diagnostic:
        message.diagnostics = [pi_sdk.types.Diagnostic(type="provider_error", details=diagnostic)]
    return message


@pytest.mark.parametrize(
    ("text", "retryable"),
    [
        ("529 overloaded_error: Overloaded", True),
        ("connection closed by the server mid-body: RemoteProtocolError", True),
        ("429 Too Many Requests: rate limit", True),
        ("timed out: the provider sent nothing for 30000 ms", True),
        ("401 Unauthorized: invalid x-api-key", False),
        ("400 Bad Request: messages.0.content is required", False),
        ("429 insufficient_quota: You exceeded your current quota", False),
        ("400 prompt is too long: 210000 tokens > 200000 maximum", False),
        ("request id 15290 failed", False),
    ],
)
def test_which_failures_are_retried(text: str, retryable: bool) -> None:
    assert is_retryable_assistant_error(_failure(text)) is retryable


def test_a_provider_error_diagnostic_decides_and_its_retry_after_is_honoured() -> None:
    assert is_retryable_assistant_error(_failure("503 whatever", retryable=False)) is False
    assert is_retryable_assistant_error(_failure("strange text", retryable=True)) is True
    policy = RetryPolicy(base_delay_ms=100, jitter=0, max_delay_ms=10_000)
    assert policy.delay_ms(1) == 100 and policy.delay_ms(3) == 400
    asked = _failure("429", retryable=True, retryAfterMs=2500)
    assert policy.delay_ms(1, asked) == 2500
    assert RetryPolicy(base_delay_ms=100, jitter=0, max_delay_ms=1000).delay_ms(1, asked) == 1000
    jittered = {RetryPolicy(base_delay_ms=1000, jitter=0.5).delay_ms(1) for _ in range(20)}
    assert all(1000 <= d <= 1500 for d in jittered) and len(jittered) > 1


async def test_the_stream_records_status_and_retry_after_of_an_http_failure() -> None:
    from pi_sdk.provider import ProviderError

    model = ScriptedProvider([]).model

    async def failing() -> Any:
        raise ProviderError.from_http(429, "429 Too Many Requests", {"retry-after": "3"})
        yield  # pragma: no cover - an async generator

    from pi_sdk._stream.event_stream import AssistantMessageEventStream

    message = await AssistantMessageEventStream(failing, model=model).result()
    (diagnostic,) = message.diagnostics or []
    assert diagnostic.type == "provider_error" and diagnostic.error["code"] == 429  # type: ignore[index]
    assert diagnostic.details == {"retryable": True, "retryAfterMs": 3000}


async def test_a_turn_that_fails_after_streaming_began_is_retried_in_the_same_run() -> None:
    provider = ScriptedProvider(
        [
            ScriptedReply.text("half an ans", error="connection closed by the server mid-body"),
            ScriptedReply.text("also cut", error="529 overloaded_error: Overloaded"),
            "the whole answer",
        ]
    )
    policy = RetryPolicy(base_delay_ms=1, jitter=0)
    cfg = config(provider, retry=policy)
    events = await collect(
        agent_loop([user("x")], AgentContext(), cfg, stream_fn=provider.stream_fn)
    )
    new = events[-1].messages  # type: ignore[union-attr]
    assert roles(new) == ["user", "assistant", "assistant", "assistant"]
    assert [m.stop_reason for m in new[1:]] == ["error", "error", "stop"]  # every attempt kept
    assert new[-1].text == "the whole answer" and len(provider.calls) == 3
    assert [e.type for e in events].count("turn_end") == 1


@pytest.mark.parametrize(
    ("error", "retries", "calls"),
    [("401 Unauthorized: invalid key", 3, 1), ("503 Service Unavailable", 2, 3)],
)
async def test_a_non_retryable_failure_or_a_spent_budget_ends_the_run(
    error: str, retries: int, calls: int
) -> None:
    provider = ScriptedProvider([ScriptedReply.text("x", error=error)] * 4)
    cfg = config(provider, retry=RetryPolicy(max_retries=retries, base_delay_ms=1, jitter=0))
    events = await collect(
        agent_loop([user("x")], AgentContext(), cfg, stream_fn=provider.stream_fn)
    )
    assert len(provider.calls) == calls
    assert events[-1].messages[-1].stop_reason == "error"  # type: ignore[union-attr]


async def test_an_abort_during_the_wait_ends_the_run_at_once() -> None:
    provider = ScriptedProvider([ScriptedReply.text("x", error="503 Service Unavailable"), "never"])
    controller = pi_sdk.AbortController()
    policy = RetryPolicy(base_delay_ms=60_000, jitter=0)
    cfg = config(provider, retry=policy)
    stream = agent_loop(
        [user("x")], AgentContext(), cfg, signal=controller.signal, stream_fn=provider.stream_fn
    )
    asyncio.get_running_loop().call_later(0.05, controller.abort)
    started = time.monotonic()
    events = await collect(stream)
    assert time.monotonic() - started < 5 and len(provider.calls) == 1
    last = events[-1].messages[-1]  # type: ignore[union-attr]
    assert last.stop_reason == "aborted" and "503" in last.error_message


async def test_retry_assistant_call_reports_each_retry() -> None:
    replies = iter([_failure("502 Bad Gateway"), _failure("502 Bad Gateway")])
    done = pi_sdk.AssistantMessage(api="openai-responses", provider="openai", model="m")
    log: list[Any] = []

    async def produce() -> pi_sdk.AssistantMessage:
        return next(replies, done)

    from pi_sdk.agent import RetryCallbacks

    callbacks = RetryCallbacks(
        on_retry_scheduled=lambda *a: log.append(("scheduled", a[0], a[1])),
        on_retry_attempt_start=lambda: log.append("start"),
        on_retry_finished=lambda ok, attempt, err: log.append(("finished", ok, attempt)),
    )
    policy = RetryPolicy(max_retries=3, base_delay_ms=1, jitter=0)
    result = await retry_assistant_call(produce, policy, None, callbacks)
    assert result is done
    assert log == [
        ("scheduled", 1, 3),
        "start",
        ("scheduled", 2, 3),
        "start",
        ("finished", True, 2),
    ]
    assert await retry_assistant_call(lambda: _coro(_failure("502")), None) is not None


async def _coro(value: Any) -> Any:
    return value


async def test_a_usage_limit_message_is_never_retried() -> None:
    provider = ScriptedProvider(["a", "b"])
    always = RetryPolicy(retry_on=lambda m: True, base_delay_ms=1)
    cfg = config(
        provider,
        retry=always,
        usage_limits=UsageLimits(request_limit=1),
        finish_turn=lambda t, s: "continue",
    )
    events = await collect(
        agent_loop([user("x")], AgentContext(), cfg, stream_fn=provider.stream_fn)
    )
    assert len(provider.calls) == 1
    assert _limit_of(events[-1].messages[-1])["limit"] == "request_limit"  # type: ignore[union-attr]


def _aborted_reply() -> pi_sdk.AssistantMessage:
    message = pi_sdk.AssistantMessage(api="openai-responses", provider="openai", model="m")
    message.stop_reason, message.error_message = "aborted", "Request was aborted"
    return message


@pytest.mark.parametrize(
    ("replies", "max_retries", "log", "calls"),
    [
        # a reply aborted after a retry: the retry did not succeed
        (
            ["502 Bad Gateway", "aborted"],
            3,
            [("scheduled", 1), "start", ("finished", False, 1, None)],
            2,
        ),
        # the budget spent: the last failure's text
        (
            ["502 Bad Gateway", "503 Unavailable"],
            1,
            [("scheduled", 1), "start", ("finished", False, 1, "503 Unavailable")],
            2,
        ),
        # no budget: nothing reported, the failure returned as it is
        (["502 Bad Gateway"], 0, [], 1),
        # the first reply answers: nothing reported
        (["ok"], 3, [], 1),
    ],
)
# A produce() that decodes its replies (a relay, a queue) hands stop reasons equal to the
# literals but not the same objects: they are read the same.
@pytest.mark.parametrize("make", [str, built], ids=["literal", "built"])
async def test_retry_assistant_call_reports_how_the_retries_ended(
    replies: list[str], max_retries: int, log: list[Any], calls: int, make: Any
) -> None:
    made = [
        _aborted_reply()
        if r == "aborted"
        else pi_sdk.AssistantMessage(api="a", provider="p", model="m")
        if r == "ok"
        else _failure(r)
        for r in replies
    ]
    for message in made:
        message.stop_reason = make(message.stop_reason)
    produced: list[pi_sdk.AssistantMessage] = []

    async def produce() -> pi_sdk.AssistantMessage:
        produced.append(made[len(produced)])
        return produced[-1]

    from pi_sdk.agent import RetryCallbacks

    seen: list[Any] = []
    callbacks = RetryCallbacks(
        on_retry_scheduled=lambda attempt, limit, delay, error: seen.append(("scheduled", attempt)),
        on_retry_attempt_start=lambda: seen.append("start"),
        on_retry_finished=lambda ok, attempt, error: seen.append(("finished", ok, attempt, error)),
    )
    policy = RetryPolicy(max_retries=max_retries, base_delay_ms=1, jitter=0)
    result = await retry_assistant_call(produce, policy, None, callbacks)
    assert result is made[calls - 1] and len(produced) == calls
    assert seen == log


async def test_a_signal_aborted_before_the_wait_ends_the_retry_at_once() -> None:
    controller = pi_sdk.AbortController()
    controller.abort()
    failed = _failure("502 Bad Gateway")
    failed.error_message = None  # a failure without words
    produced: list[int] = []

    async def produce() -> pi_sdk.AssistantMessage:
        produced.append(1)
        return failed

    from pi_sdk.agent import RetryCallbacks

    seen: list[Any] = []
    callbacks = RetryCallbacks(
        on_retry_scheduled=lambda *a: seen.append(("scheduled", *a[:2], a[3])),
        on_retry_finished=lambda *a: seen.append(("finished", *a)),
    )
    policy = RetryPolicy(retry_on=lambda m: True, max_retries=2, base_delay_ms=60_000)
    result = await asyncio.wait_for(
        retry_assistant_call(produce, policy, controller.signal, callbacks), 5
    )
    assert produced == [1]
    assert result is not failed and failed.stop_reason == "error"  # a copy, the reply kept
    assert (result.stop_reason, result.error_message) == (
        "aborted",
        "Retry aborted (after: unknown error)",
    )
    assert seen == [("scheduled", 1, 2, "unknown error"), ("finished", False, 1, "unknown error")]


async def test_the_aborted_copy_shares_nothing_mutable_with_the_failed_reply() -> None:
    controller = pi_sdk.AbortController()
    controller.abort()
    failed = _failure("502 Bad Gateway", status=502)
    failed.content = [pi_sdk.TextContent(text="partial")]
    failed.usage.input = 7

    async def produce() -> pi_sdk.AssistantMessage:
        return failed

    policy = RetryPolicy(retry_on=lambda m: True, max_retries=1, base_delay_ms=60_000)
    result = await retry_assistant_call(produce, policy, controller.signal)
    assert result.stop_reason == "aborted" and result.content == failed.content
    # a deep copy: changing the aborted reply's content, usage or diagnostics leaves the failed one
    result.content[0].text = "changed"  # type: ignore[union-attr]
    result.content.append(pi_sdk.TextContent(text="more"))
    result.usage.input = 99
    result.diagnostics[0].details["status"] = 500
    assert [c.text for c in failed.content] == ["partial"]  # type: ignore[union-attr]
    assert failed.usage.input == 7 and failed.diagnostics[0].details == {"status": 502}
