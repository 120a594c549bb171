"""The fallback stream's less travelled paths (``pi_sdk/_models/fallback_stream.py``).

A planned wire API stands in for vendors: each call plays the next plan of its model (blocks
opened, filled and maybe left open, then a failure or a normal end), so a cut can leave a text
or thinking block open, which the stream must close for the caller before the next model
continues. Covered: usage summed per model over its attempts, an ``on_attempt`` observer that
raises, a reply continued twice (the carried blocks stay in front, the signatures of another
model are dropped, the open blocks are closed at the cut), and a model that fails without
content between two continuations (the caller's partial takes the next model's identity).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from _support.strings import built

import pi_sdk
from pi_sdk._models.fallback import FallbackEntry, FallbackPolicy
from pi_sdk._stream.builder import Events, MessageBuilder
from pi_sdk._stream.contract import ApiProvider
from pi_sdk.provider import ProviderError

API = "fallback-plan"
OTHER_API = "fallback-plan-b"
CUT = "connection lost while reading the response: ReadError"


@dataclass
class Plan:
    steps: list[Callable[[MessageBuilder], Events]] = field(default_factory=list)
    error: str | None = None
    usage: pi_sdk.Usage | None = None
    status: int | None = None


PLANS: dict[str, list[Plan]] = {}
SEEN: list[tuple[str, pi_sdk.StreamOptions]] = []
"""Each call's model id and options, in call order."""


async def _play(
    model: pi_sdk.Model, context: pi_sdk.Context, options: pi_sdk.StreamOptions
) -> AsyncIterator[Any]:
    SEEN.append((model.id, options))
    plan = PLANS[model.id].pop(0)
    builder = MessageBuilder(model)
    yield builder.start()
    for step in plan.steps:
        for event in step(builder):
            yield event
    if plan.usage is not None:
        builder.message.usage = plan.usage.model_copy(deep=True)
    if plan.error is not None:
        raise ProviderError(plan.error, status=plan.status, retryable=plan.status is None)
    for event in builder.done():
        yield event


@pytest.fixture(autouse=True)
def planned_api(plugin_manager: Any) -> None:
    PLANS.clear()
    SEEN.clear()
    pi_sdk.register_api_provider(ApiProvider(api=API, stream=_play))
    pi_sdk.register_api_provider(ApiProvider(api=OTHER_API, stream=_play))


def _model(
    model_id: str, *, provider: str = "plan", api: str = API, context_window: int = 0
) -> pi_sdk.Model:
    return pi_sdk.Model(id=model_id, api=api, provider=provider, context_window=context_window)


def _text(text: str, *, close: bool = True, signature: str | None = None):
    def step(b: MessageBuilder) -> Events:
        events = b.open_text("t", text, signature=signature)
        return events + b.end_text("t") if close else events

    return step


def _thinking(text: str, *, close: bool = True, signature: str | None = None):
    def step(b: MessageBuilder) -> Events:
        events = b.open_thinking("k", text, signature=signature)
        return events + b.end_thinking("k") if close else events

    return step


async def _run(first: pi_sdk.Model, policy: FallbackPolicy) -> tuple[list[Any], Any, Any]:
    context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="Go.")])
    options = pi_sdk.StreamOptions(max_retries=0, fallback=policy, api_key="k")
    stream = pi_sdk.stream(first, context, options)
    events = [event async for event in stream]
    return events, await stream.result(), stream


async def test_usage_by_model_sums_every_attempt_of_the_same_model() -> None:
    model = _model("m-1")
    spent = pi_sdk.Usage(input=10, output=2, cache_write_1h=4, total_tokens=12)
    spent.cost.input, spent.cost.total = 0.5, 0.5
    more = pi_sdk.Usage(input=5, output=3, reasoning=7, total_tokens=8)
    more.cost.output, more.cost.total = 0.25, 0.25
    PLANS["m-1"] = [
        Plan(error="503 Service Unavailable", status=503, usage=spent),
        Plan([_text("ok")], usage=more),
    ]
    policy = FallbackPolicy([FallbackEntry(model, {"max_tokens": 100})])
    _, message, stream = await _run(model, policy)
    assert message.text == "ok" and message.stop_reason == "stop"
    assert [(a.outcome, a.kind) for a in stream.attempts] == [
        ("failed", "overloaded"),
        ("answered", None),
    ]
    totals = stream.usage_by_model()
    assert list(totals) == ["plan/m-1"]
    total = totals["plan/m-1"]
    assert (total.input, total.output, total.total_tokens) == (15, 5, 20)
    assert (total.cache_write_1h, total.reasoning) == (4, 7)  # one side's count kept
    assert (total.cost.input, total.cost.output, total.cost.total) == (0.5, 0.25, 0.75)
    assert (total.cache_read, total.cost.cache_read) == (0, 0.0)


async def test_an_on_attempt_observer_that_raises_is_logged_and_changes_nothing(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[str] = []

    def observer(attempt: Any) -> None:
        seen.append(f"{attempt.model}:{attempt.kind}")
        raise RuntimeError("observer broke")

    PLANS["a"] = [Plan(error="503 Service Unavailable", status=503)]
    PLANS["b"] = [Plan([_text("from b")])]
    policy = FallbackPolicy([_model("b")], on_attempt=observer)
    with caplog.at_level(logging.WARNING, logger="pi_sdk"):
        events, message, _ = await _run(_model("a"), policy)
    assert seen == ["a:overloaded"]
    assert message.text == "from b" and message.model == "b" and events[-1].type == "done"
    (record,) = [r for r in caplog.records if r.getMessage() == "fallback: on_attempt raised"]
    assert record.levelno == logging.ERROR and record.exc_info is not None
    assert str(record.exc_info[1]) == "observer broke"


async def test_a_reply_continued_twice_keeps_every_part_and_closes_what_was_open() -> None:
    PLANS["x"] = [Plan([_text("Part one, ", close=False, signature="sig-x")], error=CUT)]
    PLANS["y"] = [Plan([_text("part two; "), _thinking("pondering", close=False)], error=CUT)]
    PLANS["w"] = [Plan(error="503 Service Unavailable", status=503)]  # fails before any content
    PLANS["z"] = [Plan([_text("the end.")])]
    models = [_model(i) for i in "ywz"]
    policy = FallbackPolicy(models, after_content=built("continue"))  # as a settings file gives it
    events, message, stream = await _run(_model("x"), policy)

    assert [(a.model, a.kind, a.moved_on, a.content_streamed) for a in stream.attempts] == [
        ("x", "connection", True, True),
        ("y", "connection", True, True),
        ("w", "overloaded", True, False),
        ("z", None, False, True),
    ]
    ends = [(e.type, e.content_index, e.content) for e in events if e.type.endswith("_end")]
    assert ends == [
        ("text_end", 0, "Part one, "),  # closed by the fallback at x's cut
        ("text_end", 1, "part two; "),
        ("thinking_end", 2, "pondering"),  # closed by the fallback at y's cut
        ("text_end", 3, "the end."),
    ]
    assert [e.type for e in events].count("start") == 1 and events[-1].type == "done"
    texts = [getattr(b, "text", None) or getattr(b, "thinking", None) for b in message.content]
    assert texts == ["Part one, ", "part two; ", "pondering", "the end."]
    assert message.content[0].text_signature is None  # x's signature is not z's to send
    assert (message.provider, message.model) == ("plan", "z")
    # z's events carry the whole reply so far, under z's identity (w's failure moved it on)
    z_deltas = [e for e in events if e.type == "text_delta" and e.delta == "the end."]
    (last,) = z_deltas
    assert last.content_index == 3 and last.partial.model == "z"
    assert [getattr(b, "text", None) for b in last.partial.content][:2] == [
        "Part one, ",
        "part two; ",
    ]
    # y was asked to continue x's partial, z to continue x's and y's
    assert [(d.error or {}).get("name") for d in message.diagnostics or []] == [
        "connection",
        "connection",
        "overloaded",
    ]


CLIENT = object()
"""The caller's vendor client (of the first model's API)."""


async def test_each_model_gets_the_callers_options_less_what_belongs_to_the_first() -> None:
    """The key stays with the first provider, the client with the first API; overrides last."""
    first = _model("first")
    same = _model("same")
    other_provider = _model("elsewhere", provider="plan-2")
    other_api = _model("other-api", api=OTHER_API)
    overridden = _model("overridden", provider="plan-3", api=OTHER_API)
    for name in ("first", "same", "elsewhere", "other-api"):
        PLANS[name] = [Plan(error="503 Service Unavailable", status=503)]
    PLANS["overridden"] = [Plan([_text("ok")])]
    chain = [same, other_provider, other_api, (overridden, {"api_key": "k3", "max_tokens": 7})]
    policy = FallbackPolicy(chain)
    context = pi_sdk.Context(messages=[pi_sdk.UserMessage(content="Go.")])
    options = pi_sdk.StreamOptions(
        max_retries=0, fallback=policy, api_key="k", client=CLIENT, max_tokens=50
    )
    message = await pi_sdk.complete(first, context, options)
    assert message.text == "ok"
    seen = {name: (o.api_key, o.client, o.max_tokens, o.fallback) for name, o in SEEN}
    assert seen == {
        "first": ("k", CLIENT, 50, None),
        "same": ("k", CLIENT, 50, None),
        "elsewhere": (None, CLIENT, 50, None),
        "other-api": ("k", None, 50, None),
        "overridden": ("k3", None, 7, None),
    }
    assert options.api_key == "k" and options.fallback is policy  # the caller's, unchanged


OVERFLOW = "prompt is too long: 300 tokens > 100 maximum"


@pytest.mark.parametrize(
    ("error", "status", "windows", "tried"),
    [
        # an overflow skips every model whose window is not larger
        (OVERFLOW, 400, (100, 100, 50, 200), ["a", "d"]),
        (OVERFLOW, 400, (100, 101, 0, 0), ["a", "b"]),  # one token larger is larger
        (OVERFLOW, 400, (100, 100, 100, 100), ["a"]),  # none larger: the call ends
        (OVERFLOW, 400, (0, 50, 0, 0), ["a", "b"]),  # the first window unknown: the next
        ("503 Service Unavailable", 503, (100, 50, 0, 0), ["a", "b"]),  # not an overflow
    ],
)
async def test_an_overflow_moves_on_only_to_a_larger_context_window(
    error: str, status: int, windows: tuple[int, ...], tried: list[str]
) -> None:
    names = "abcd"
    for name in names:
        PLANS[name] = [Plan(error=error, status=status)]
    PLANS[tried[-1]] = [Plan([_text("fits")])] if len(tried) > 1 else PLANS[tried[-1]]
    models = [_model(n, context_window=w) for n, w in zip(names, windows, strict=True)]
    _, message, stream = await _run(models[0], FallbackPolicy(models[1:]))
    assert [name for name, _ in SEEN] == tried
    assert [a.moved_on for a in stream.attempts] == [True] * (len(tried) - 1) + [False]
    if len(tried) > 1:
        assert message.text == "fits" and message.stop_reason == "stop"
    else:
        assert message.stop_reason == "error"
        assert stream.attempts[0].kind == "overflow" and not stream.attempts[0].moved_on


def _tool_call_left_open(b: MessageBuilder) -> Events:
    return b.open_tool_call("c", id="call-1", name="lookup", arguments='{"q": "x')


@pytest.mark.parametrize(
    ("steps", "after_content", "moved_on"),
    [
        ([_text("half a rep", close=False)], "continue", True),
        ([_text("half a rep", close=False)], "error", False),  # the default ends the call
        ([_text("Looking up."), _tool_call_left_open], "continue", False),  # never continued
    ],
)
async def test_a_failure_after_content_moves_on_only_to_continue_a_reply_without_tool_calls(
    steps: list[Any], after_content: Any, moved_on: bool, caplog: pytest.LogCaptureFixture
) -> None:
    PLANS["a"] = [Plan(steps, error=CUT)]
    PLANS["b"] = [Plan([_text("the rest.")])]
    policy = FallbackPolicy([_model("b")], after_content=after_content)
    with caplog.at_level(logging.WARNING, logger="pi_sdk"):
        events, message, stream = await _run(_model("a"), policy)
    (attempt, *rest) = stream.attempts
    assert (attempt.kind, attempt.moved_on, attempt.content_streamed) == (
        "connection",
        moved_on,
        True,
    )
    (warning,) = [r.getMessage() for r in caplog.records if r.getMessage().startswith("fallback:")]
    assert warning == f"fallback: plan/a failed (connection): {CUT}" + (
        "; moving on" if moved_on else ""
    )
    if moved_on:
        assert [a.outcome for a in rest] == ["answered"] and events[-1].type == "done"
        assert message.text == "half a repthe rest."
    else:
        assert rest == [] and events[-1].type == "error" and message.stop_reason == "error"
        assert [name for name, _ in SEEN] == ["a"]


async def test_each_failed_attempt_leaves_a_diagnostic_with_its_details() -> None:
    spent = pi_sdk.Usage(input=11, output=3, total_tokens=14)
    PLANS["a"] = [Plan([_text("Part one, ", close=False)], error=CUT, usage=spent)]
    PLANS["b"] = [Plan(error="503 Service Unavailable", status=503)]
    PLANS["c"] = [Plan([_text("done.")])]
    policy = FallbackPolicy([_model("b"), _model("c")], after_content="continue")
    _, message, stream = await _run(_model("a"), policy)
    fallback = [d for d in message.diagnostics or [] if d.type == "fallback"]
    assert [d.error for d in fallback] == [
        {"name": "connection", "message": CUT},
        {"name": "overloaded", "message": "503 Service Unavailable"},
    ]
    first, second = (d.details or {} for d in fallback)
    assert {k: v for k, v in first.items() if k not in ("usage", "partial")} == {
        "provider": "plan",
        "model": "a",
        "api": API,
        "movedOn": True,
        "contentStreamed": True,
    }
    assert first["usage"]["input"] == 11 and first["usage"]["totalTokens"] == 14
    partial = pi_sdk.AssistantMessage.model_validate(first["partial"])
    assert partial.text == "Part one, " and partial.model == "a"
    assert first["partial"]["stopReason"] == partial.stop_reason  # pi's JSON names
    assert "stop_reason" not in first["partial"]
    assert "partial" not in second  # nothing streamed: no partial to keep
    assert (second["model"], second["movedOn"], second["contentStreamed"]) == ("b", True, False)
    answered = stream.attempts[-1]
    assert (answered.outcome, answered.kind, answered.error) == ("answered", None, None)


async def test_blocks_left_open_at_a_cut_are_closed_in_content_order() -> None:
    """Two blocks open at once (thinking, then text): their ends come first block first."""
    PLANS["a"] = [
        Plan([_thinking("Hmm, ", close=False), _text("Part one, ", close=False)], error=CUT)
    ]
    PLANS["b"] = [Plan([_text("done.")])]
    policy = FallbackPolicy([_model("b")], after_content="continue")
    events, message, _ = await _run(_model("a"), policy)
    ends = [(e.type, e.content_index, e.content) for e in events if e.type.endswith("_end")]
    assert ends[:2] == [("thinking_end", 0, "Hmm, "), ("text_end", 1, "Part one, ")]
    assert message.text == "Part one, done."


_ZERO_COST = {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0}


@pytest.mark.parametrize(
    ("first", "second", "summed"),
    [
        # A vendor's extra counts (kept by Usage) on one attempt only: kept as they are.
        (
            {"input": 1, "serverToolUse": {"webSearchRequests": 1}},
            {"input": 2},
            {"input": 3, "serverToolUse": {"webSearchRequests": 1}},
        ),
        (
            {"input": 2},
            {"input": 1, "serverToolUse": {"webSearchRequests": 1}},
            {"input": 3, "serverToolUse": {"webSearchRequests": 1}},
        ),
        # On both: summed, number by number, at any depth.
        (
            {"serverToolUse": {"webSearchRequests": 1, "deep": {"n": 2}}},
            {"serverToolUse": {"webSearchRequests": 3, "deep": {"n": 5}}},
            {"input": 0, "serverToolUse": {"webSearchRequests": 4, "deep": {"n": 7}}},
        ),
        # What is not a number is the first attempt's (the second's fills a gap).
        ({"tier": "standard"}, {"tier": "priority"}, {"input": 0, "tier": "standard"}),
        ({}, {"tier": "priority"}, {"input": 0, "tier": "priority"}),
    ],
)
def test_the_usage_of_two_attempts_sums_the_vendors_extra_counts_too(
    first: dict[str, Any], second: dict[str, Any], summed: dict[str, Any]
) -> None:
    from pi_sdk._models.fallback_stream import _add  # pyright: ignore[reportPrivateUsage]

    total = _add(pi_sdk.Usage.model_validate(first), pi_sdk.Usage.model_validate(second))
    assert total.model_dump(by_alias=True) == {
        "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0, "cost": _ZERO_COST,
        **summed,
    }  # fmt: skip
