"""Usage limits with an exact input count before each request (``UsageLimits.count_tokens``).

A fake counter stands in for the vendor's counting endpoint (:func:`pi_sdk.count_tokens`): it
sees the request the loop is about to send, its answer decides the pre-request check, and a
counter that fails falls back to the estimate and says so (issue 28: "the counting endpoint
failing falls back to the estimate and says so").
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from _support.agent import isolated_plugins  # noqa: F401
from _support.strings import built

import pi_sdk
from pi_sdk import AgentToolResult, ToolCall
from pi_sdk.agent import UsageLimits, estimate_context_tokens
from pi_sdk.testing import ScriptedProvider, ScriptedReply

LOGGER = "pi_sdk._agent.agent"


class Looper:
    """Calls a tool on every turn; each reply reports 100 input and 50 output tokens."""

    def __init__(self) -> None:
        self.provider = ScriptedProvider([])

    def stream_fn(self, model: Any, context: Any, options: Any) -> Any:
        n = len(self.provider.calls) + 1
        usage = pi_sdk.Usage(input=100, output=50, total_tokens=150)
        call = ToolCall(id=f"c{n}", name="step", arguments={})
        self.provider.add(ScriptedReply(content=[call], usage=usage))
        return self.provider.stream_fn(model, context, options)

    def agent(self, limits: UsageLimits) -> pi_sdk.Agent:
        async def step(call_id: str, args: Any, signal: Any, on_update: Any) -> AgentToolResult:
            return AgentToolResult.text("again")

        tool = pi_sdk.AgentTool(name="step", execute=step)
        return pi_sdk.Agent(
            model=self.provider.model,
            system_prompt="Loop.",
            tools=[tool],
            stream_fn=self.stream_fn,
            usage_limits=limits,
        )


class FakeCounter:
    """Answers ``answers`` in turn (the last one repeats): an int, a TokenCount or an exception."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.seen: list[tuple[Any, Any, Any]] = []

    async def __call__(self, model: Any, context: Any, options: Any) -> Any:
        self.seen.append((model, context, options))
        answer = self.answers[min(len(self.seen), len(self.answers)) - 1]
        if isinstance(answer, BaseException):
            raise answer
        return answer


def _details(agent: pi_sdk.Agent) -> dict[str, Any]:
    last = agent.state.messages[-1]
    assert isinstance(last, pi_sdk.AssistantMessage) and last.stop_reason == "error"
    (diagnostic,) = last.diagnostics or []
    assert diagnostic.type == "usage_limit"
    return diagnostic.details


async def test_the_exact_count_decides_the_check_before_each_request() -> None:
    looper = Looper()
    counter = FakeCounter(1_450)
    agent = looper.agent(UsageLimits(input_tokens_limit=1_500, count_tokens=counter))
    await asyncio.wait_for(agent.prompt("loop"), 10)

    # 1,450 fits; 100 reported + 1,450 more passes 1,500: no second request (the estimate of
    # this small context, a few hundred tokens at most, would have let it through).
    assert len(looper.provider.calls) == 1
    details = _details(agent)
    assert details == {
        "limit": "input_tokens_limit",
        "max": 1_500,
        "used": 1_550,
        "inputCount": "vendor",
    }
    model, context, options = counter.seen[1]
    assert model is looper.provider.model
    # The counter sees the request the loop was about to send: the transcript so far.
    assert [m.role for m in context.messages] == ["user", "assistant", "toolResult"]
    assert context.system_prompt == "Loop." and [t.name for t in context.tools] == ["step"]
    assert options.signal is not None


async def test_a_vendor_token_count_object_is_read_for_its_tokens() -> None:
    looper = Looper()
    counter = FakeCounter(pi_sdk.TokenCount(tokens=1_401, source="vendor"))
    agent = looper.agent(UsageLimits(total_tokens_limit=1_400, count_tokens=counter))
    await asyncio.wait_for(agent.prompt("loop"), 10)
    assert looper.provider.calls == []  # the first request alone would pass the limit
    assert _details(agent)["used"] == 1_401 and _details(agent)["inputCount"] == "vendor"


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (ConnectionError("count endpoint down"), "count_tokens raised ConnectionError: count"),
        (
            pi_sdk.TokenCount(tokens=7, source="estimate", reason="count_tokens endpoint failed"),
            "count_tokens endpoint failed",
        ),
        ("many", "count_tokens answered 'many'"),
    ],
    ids=["raises", "estimate", "not a count"],
)
async def test_a_failing_count_falls_back_to_the_estimate_and_says_so(
    answer: Any, reason: str, caplog: pytest.LogCaptureFixture
) -> None:
    baseline = Looper()
    plain = baseline.agent(UsageLimits(input_tokens_limit=400))
    await asyncio.wait_for(plain.prompt("loop"), 10)
    estimated = _details(plain)

    caplog.set_level(logging.WARNING, logger=LOGGER)
    looper = Looper()
    counter = FakeCounter(answer)
    agent = looper.agent(UsageLimits(input_tokens_limit=400, count_tokens=counter))
    await asyncio.wait_for(agent.prompt("loop"), 10)

    # The run goes exactly as with the estimate, asking the counter before every request.
    requests = len(baseline.provider.calls)
    assert requests >= 2 and len(looper.provider.calls) == requests
    assert len(counter.seen) == requests + 1  # the last request was counted, then refused
    details = _details(agent)
    assert details["used"] == estimated["used"] and details["inputCount"] == "estimate"
    assert details["inputCountReason"].startswith(reason)
    warnings = [r for r in caplog.records if "exact token count unavailable" in r.getMessage()]
    assert len(warnings) == 1 and reason in warnings[0].getMessage()  # once per run


async def test_without_a_counter_the_estimate_is_used_and_the_counter_never_asked() -> None:
    looper = Looper()
    agent = looper.agent(UsageLimits(input_tokens_limit=400))
    await asyncio.wait_for(agent.prompt("loop"), 10)
    assert len(looper.provider.calls) >= 2
    assert _details(agent)["inputCount"] == "estimate"
    assert "inputCountReason" not in _details(agent)


async def test_the_counter_is_not_asked_when_no_input_limit_is_set() -> None:
    looper = Looper()
    counter = FakeCounter(10**9)
    agent = looper.agent(UsageLimits(request_limit=2, count_tokens=counter))
    await asyncio.wait_for(agent.prompt("loop"), 10)
    assert counter.seen == [] and len(looper.provider.calls) == 2
    assert "inputCount" not in _details(agent)


def test_a_counter_that_is_not_callable_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="UsageLimits.count_tokens must be a callable"):
        UsageLimits(input_tokens_limit=10, count_tokens=42)  # type: ignore[arg-type]


async def test_pi_sdk_count_tokens_fits_and_says_why_it_estimated() -> None:
    """``pi_sdk.count_tokens`` itself: the scripted API has no counting endpoint."""
    looper = Looper()
    agent = looper.agent(UsageLimits(input_tokens_limit=400, count_tokens=pi_sdk.count_tokens))
    await asyncio.wait_for(agent.prompt("loop"), 10)
    details = _details(agent)
    assert details["inputCount"] == "estimate"
    assert details["inputCountReason"] == f"no counting endpoint for {looper.provider.model.api}"


# --- the counter's answer read one by one (RunLimits) ---------------------------------------


def _context() -> pi_sdk.Context:
    return pi_sdk.Context(messages=[pi_sdk.UserMessage(content="count me " * 40)])


def _sync_seven(model: Any, context: Any, options: Any) -> int:
    return 7


@pytest.mark.parametrize(
    ("counter", "tokens", "counted"),
    [
        (FakeCounter(0), 0, "vendor"),  # zero is a count
        (FakeCounter(12), 12, "vendor"),
        (_sync_seven, 7, "vendor"),  # a plain function is called, not awaited
        (FakeCounter(pi_sdk.TokenCount(tokens=9, source="vendor")), 9, "vendor"),
        (FakeCounter(True), None, "estimate"),  # a bool is no count
        (FakeCounter(-1), None, "estimate"),
        (FakeCounter(5.0), None, "estimate"),
        (FakeCounter(None), None, "estimate"),
        (FakeCounter(pi_sdk.TokenCount(tokens=9, source="estimate")), None, "estimate"),
        # a source read from a file or JSON: equal to the literal, another object
        (FakeCounter(pi_sdk.TokenCount(tokens=9, source=built("estimate"))), None, "estimate"),
        (FakeCounter(pi_sdk.TokenCount(tokens=9, source=built("vendor"))), 9, "vendor"),
    ],
)
async def test_only_a_whole_non_negative_vendor_count_is_taken(
    counter: Any, tokens: int | None, counted: str
) -> None:
    from pi_sdk._agent.limits import RunLimits
    from pi_sdk.options import StreamOptions

    model = ScriptedProvider([]).model
    context = _context()
    estimate = estimate_context_tokens(context).tokens
    assert estimate > 12  # the estimate is told from every count above
    limits = RunLimits(UsageLimits(input_tokens_limit=10**6, count_tokens=counter))
    assert await limits.before_request(model, context, StreamOptions()) is None
    assert limits.used.requests == 1
    assert limits.counted == counted
    assert (limits.count_reason is None) == (counted == "vendor")
    # The check used the count (or the estimate): a limit one below it stops the request.
    wanted = estimate if tokens is None else tokens
    tight = RunLimits(UsageLimits(input_tokens_limit=max(wanted, 1), count_tokens=counter))
    assert await tight.before_request(model, context, StreamOptions()) is None
    if wanted > 1:
        tighter = RunLimits(UsageLimits(input_tokens_limit=wanted - 1, count_tokens=counter))
        stop = await tighter.before_request(model, context, StreamOptions())
        assert stop == ("input_tokens_limit", wanted - 1, wanted)
        assert tighter.used.requests == 0  # a refused request is not counted


@pytest.mark.parametrize(
    ("stop", "text"),
    [
        (("request_limit", 3, 4), "requests 4 would pass UsageLimits.request_limit=3."),
        (("tool_calls_limit", 10, 12), "tool calls 12 would pass UsageLimits.tool_calls_limit=10"),
        (
            ("input_tokens_limit", 1_000_000, 1_234_567),
            "input tokens 1,234,567 would pass UsageLimits.input_tokens_limit=1,000,000.",
        ),
        (("output_tokens_limit", 5, 5.0), "output tokens 5 would pass"),  # a whole float
        (("total_tokens_limit", 5, 6), "total tokens 6 would pass"),
        (
            ("cost_limit_usd", 0.5, 0.123456789),
            "cost (USD) 0.123457 would pass UsageLimits.cost_limit_usd=0.5.",
        ),
        (("cost_limit_usd", 2.0, 2.25), "cost (USD) 2.25 would pass UsageLimits.cost_limit_usd=2."),
    ],
)
def test_the_stop_text_names_the_limit_its_value_and_the_count(
    stop: tuple[str, float, float], text: str
) -> None:
    from pi_sdk._agent.limits import limit_text

    message = limit_text(stop)
    assert message.startswith("Usage limit reached: ")
    assert text in message
    assert message.endswith("raise the limit and continue the run to go on.")


def test_a_passed_limit_stops_every_later_request_and_tool_batch_uncounted() -> None:
    from pi_sdk._agent.limits import RunLimits

    limits = RunLimits(UsageLimits(output_tokens_limit=40, tool_calls_limit=5))
    assert limits.before_tools(3) is None and limits.used.tool_calls == 3
    assert limits.before_tools(3) == ("tool_calls_limit", 5, 6)
    assert limits.used.tool_calls == 3  # the refused batch is not counted
    assert limits.passed == ("tool_calls_limit", 5, 6)
    limits.after_reply(
        pi_sdk.AssistantMessage(api="x", provider="p", model="m", usage=pi_sdk.Usage(output=50))
    )
    assert limits.used.output_tokens == 50
    assert limits.passed == ("tool_calls_limit", 5, 6)  # the first limit passed is kept
    assert limits.before_tools(1) == ("tool_calls_limit", 5, 6)
    assert limits.used.tool_calls == 3
